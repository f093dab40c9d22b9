#!/bin/sh
# Stepping back by register writes (back write N, gdb's reverse-step / rs):
# the run returns to the point right after write $writes - N, exactly where
# stepping forward stopped there (the same action next, cycle, counters and
# registers), across layer boundaries too; past the start is an error (exit
# 2); reverse-next / rn step back layer boundaries as "back layer" does.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

# "where" and the counters at a point, from a script ending in them
at() {
    printf '%s\n' "$@" > at.gdb
    printf 'where\nprint $cycle\nprint $layers\nprint $writes\nprint SDP.D_DATA_CUBE_WIDTH\nprint CDMA.D_DAIN_ADDR_LOW_0\n' >> at.gdb
    run_exit 0 "$*" --batch -q -x at.gdb sample:lenet
    printf '%s\n' "$out" | tail -n 7
}

# within a layer's programming
want=$(at 'step 7')
got=$(at 'step 10' 'back write 3')
[ "$got" = "$want" ] || fail "back write 3 from write 10: got
$got
expected
$want"

# across layer boundaries (two layers complete between)
want=$(at 'next 2' 'back write 40')
n=$(printf '%s\n' "$want" | sed -n 's/^= \([0-9]*\) .*/\1/p' | sed -n 3p)
[ "$n" -gt 0 ] || fail "no write count in: $want"
layers=$(printf '%s\n' "$want" | sed -n 's/^= \([0-9]*\) .*/\1/p' | sed -n 2p)
[ "$layers" -lt 2 ] || fail "back write 40 did not cross a layer boundary: $want"
got=$(at "step $n")
[ "$got" = "$want" ] || fail "back write 40 after next 2 is not write $n: got
$want
stepping forward gives
$got"

# rs is reverse-step is back write; the report names the write
run_exit 0 "rs" --batch -q -ex 'step 12' -ex 'rs 2' -ex 'reverse-step' sample:lenet
expect_grep "$out" '^Back after register write 10, cycle [0-9]*\.$'
expect_grep "$out" '^Back after register write 9, cycle [0-9]*\.$'

# to the start, and past it
run_exit 0 "back to the start" --batch -q -ex 'step 5' -ex 'back write 5' sample:lenet
expect_grep "$out" '^Back after register write 0, cycle 0\.$'
run_exit 2 "past the start" --batch -q -ex 'step 5' -ex 'back write 6' sample:lenet
expect_grep "$out" '^error: -ex 2: back write: cannot go back 6 register writes: the run has made 5$'
run_exit 2 "nothing run" --batch -q -ex 'rs' sample:lenet
expect_grep "$out" '^error: -ex 1: reverse-step: '

# reverse-next is back layer
run_exit 0 "rn" --batch -q -ex 'next 2' -ex 'rn' sample:lenet
expect_grep "$out" '^Back at layer boundary 1, cycle [0-9]*\.$'
echo ok
