#!/bin/sh
# A trace's bad register accesses are reported at their own line, whether
# they are the first command, a write, or a read_reg checked on the host
# (once reported at the previous line, or at none); a register address with
# upper bits other than 0xffff is an error, not silently truncated.
set -eu
. "$(dirname "$0")/lib.inc"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/input.txn" <<'TXN'
read_reg 0xffff0ffe 0x0 0x0
write_reg 0xffff1000 0x0
write_reg 0xffff0fff 0x1
# a comment
read_reg 0xffff0ffe 0x0 0x0
TXN
run_exit 2 "reserved accesses" --batch "$work"
expect_grep "$out" "^error: input.txn:1: cycle [0-9]*: CSB read of 0x03ff8: CVIF has no register at offset 0xff8$"
expect_grep "$out" "^error: input.txn:3: cycle [0-9]*: CSB write of 0x03ffc: CVIF has no register at offset 0xffc$"
expect_grep "$out" "^error: input.txn:5: cycle [0-9]*: CSB read of 0x03ff8: CVIF has no register at offset 0xff8$"

printf 'write_reg 0xffff1000 0x0\nread_reg 0x81d41c0c 0x0 0x0\n' >"$work/input.txn"
run_exit 2 "upper address bits" --batch "$work"
expect_grep "$out" "input.txn:2: expected a CSB word address 0xffffNNNN in \"read_reg ADDR MASK EXPECTED\", found 0x81d41c0c"
echo ok
