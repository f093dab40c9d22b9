#!/bin/sh
# Batch replay of register traces: exit codes, summary lines, messages that
# name the file and line.
set -eu
. "$(dirname "$0")/lib.inc"

# our own trace passes, with its summary line
out=$(run_dladbg --batch traces/bdma_copy) || fail "bdma_copy: exit $?"
expect_line "$out" "bdma_copy: 4 checks passed, 0 failed; 2 dumps matched"

# a golden that differs: exit 1, the byte named
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp traces/bdma_copy/* "$tmp/"
sed -i 's/^0x\(..\) /0xff /' "$tmp/golden_dram.dat"
run_exit 1 "corrupted golden" --batch "$tmp"
expect_grep "$out" "dump_mem 0x80100000+0x1000 differs from .*golden_dram.dat in"

# a malformed line: exit 2 and the line number
printf 'write_reg 0xffff1000 0x0\nwrite_reg 0xffff1000\n' >"$tmp/input.txn"
run_exit 2 "malformed trace" --batch "$tmp"
expect_grep "$out" "input.txn:2: expected \"write_reg ADDR DATA\""

# a write to a reserved CSB address: a diagnostic naming the trace line, exit 2
printf 'write_reg 0xffff0000 0x0\nwrite_reg 0xffff5000 0x1\n' >"$tmp/input.txn"
run_exit 2 "reserved address" --batch "$tmp"
expect_grep "$out" "input.txn:2: cycle 1: CSB write of reserved address 0x14000"
expect_grep "$out" "1 input error"

# usage errors: exit 2
run_exit 2 "unknown config" --batch --config nv_tiny traces/bdma_copy
run_exit 2 "missing file" --batch "$tmp/no-such-file.txn"
echo ok
