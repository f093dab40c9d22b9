#!/bin/sh
# One rule for the hardware layer the run is at (src/debug/layer_at.c):
# finish, info regs alone and the TUI agree.  sample:lenet stopped as its
# PDP layer 4 starts: the older CONV layer 1 is only programmed (it waits
# for the PDP's output) and SDP layer 3 enabled.  finish ran till layer 1,
# the oldest not done, through the PDP and on; info regs showed layer 4.
# Now both take the running layer 4; after it, the next.
set -eu
. "$(dirname "$0")/lib.inc"

run_exit 0 "finish at a running layer" --batch -q -ex 'break layer 4 started' -ex run -ex 'info regs' \
    -ex 'info layers brief' -ex finish -ex 'info layers brief' sample:lenet
expect_line "$out" "layer 1: CONV group 1, not launched yet, programming"
expect_grep "$out" "^layer 4 (PDP, group 0) running: its units' registers, group 0 "
expect_line "$out" "Run till layer 4 (PDP, group 0) completes."
expect_grep "$out" "^layer 4 (PDP, group 0) done at cycle [0-9]*; next: "
# it stopped there: layer 1 is not done yet
[ "$(printf '%s\n' "$out" | grep -c '^layer 1: CONV group 1, not launched yet')" = 2 ] ||
    fail "finish ran past layer 4: $out"

# no layer in progress: before any, and after the run
run_exit 2 "finish before any layer" --batch -q -ex finish sample:lenet
expect_line "$out" 'error: -ex 1: finish: no hardware layer is in progress ("step layer" runs to the next)'
# after the run, as step and next: said, no error (a script goes on)
run_exit 0 "finish after the run" --batch -q -ex run -ex finish -ex 'echo after' sample:lenet
expect_line "$out" 'The run has finished ("run" starts it again).'
expect_line "$out" 'after'
echo ok
