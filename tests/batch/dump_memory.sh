#!/bin/sh
# dump memory FILE START END|+LENGTH (and gdb's "dump binary memory"): the
# bytes x shows, written whole; bad ranges and unwritable files are errors
# (exit 2 in batch) that leave no file behind.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

# sample:lenet's output tensor, probabilities: 32 bytes at dram 0x8000f000
out=$(run_dladbg --batch -ex run -ex "x/32xb 0x8000f000" -ex "dump memory probs.bin 0x8000f000 +32" \
    -ex "dump binary memory probs2.bin 0x8000f000 0x8000f020" sample:lenet) ||
    fail "dump memory: exit $?"
expect_line "$out" "Wrote 32 bytes of dram 0x8000f000..0x8000f020 to probs.bin."
expect_line "$out" "Wrote 32 bytes of dram 0x8000f000..0x8000f020 to probs2.bin."
[ "$(wc -c <probs.bin)" -eq 32 ] || fail "probs.bin: $(wc -c <probs.bin) bytes, not 32"
cmp -s probs.bin probs2.bin || fail "dump memory and dump binary memory differ"
# the file holds what x printed, byte for byte
want=$(printf '%s\n' "$out" | sed -n 's/^dram:0x8000f0[01]0://p' | tr -s ' ' '\n' | sed '/^$/d' |
    sed 's/^0x//' | tr '\n' ' ')
got=$(od -An -v -tx1 probs.bin | tr -s ' \n' '  ' | sed 's/^ //')
[ "$(echo $want)" = "$(echo $got)" ] || fail "probs.bin holds $got, x printed $want"
# the probabilities are not all zero: the dump comes after the run
[ "$(od -An -v -tx1 probs.bin | tr -d ' 0\n')" != "" ] || fail "probs.bin is all zero"

# errors: exit 2, a message naming what is wrong, no file (and no temporary) left
expect_fail() { # expect_fail WHAT COMMAND
    set +e
    msg=$(run_dladbg --batch -ex "$2" sample:lenet 2>&1)
    rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$2: exit $rc, not 2"
    printf '%s\n' "$msg" | grep -q "$1" || fail "$2: no \"$1\" in: $msg"
}
expect_fail "END 0x8000f000 is not past START 0x8000f010" "dump memory e1.bin 0x8000f010 0x8000f000"
expect_fail "expected a positive length" "dump memory e2.bin 0x8000f000 +0"
expect_fail "at most 256 MiB a dump" "dump memory e3.bin 0x80000000 +0x20000000"
expect_fail "address out of range" "dump memory e4.bin dram:0xfffffffffffffff0 +0x100"
expect_fail "expected FILE START END" "dump memory e5.bin 0x8000f000"
expect_fail "expected \"dump binary memory" "dump binary e6.bin 0x8000f000 +4"
expect_fail "nodir/e7.bin" "dump memory nodir/e7.bin 0x8000f000 +4"
left=$(ls | grep -v '^probs' || true)
[ -z "$left" ] || fail "files left by failed dumps: $left"
echo "dump_memory: ok"
