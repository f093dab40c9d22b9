#!/bin/sh
# gdb's advance and until (src/cmd/cmd_run.c): a one-shot stop at what
# tbreak takes, numbered nowhere and gone once the command is over, however
# the run stopped; until also stops when the layer the run is at completes
# (gdb's: when the frame returns), and alone is next.  sample:lenet's layers:
# 0 CONV, 1 CONV, 2 SDP, 3 SDP, 4 PDP; 2 runs on the fly with 0.
set -eu
. "$(dirname "$0")/lib.inc"

# the location reached: its event is the stop line, no breakpoint is made
# (none listed, the next break is number 1)
run_exit 0 "advance to a layer" --batch -q -ex 'advance layer 3 done' -ex 'info breakpoints' \
    -ex 'break layer 4 done' sample:lenet
expect_line "$out" "layer 3 (SDP, group 1) done"
expect_grep "$out" "^5 layers done, the last: layer 3 (SDP, group 1) done at cycle "
expect_line "$out" "No breakpoints or watchpoints."
expect_line "$out" "Breakpoint 1: layer 4 done"

# a breakpoint stops the run first; the one-shot is gone after it: continue
# runs to the end, past layer 4's completion
run_exit 0 "a breakpoint first" --batch -q -ex 'break layer 2 done' -ex 'advance layer 4 done' \
    -ex 'info breakpoints' -ex continue sample:lenet
expect_line "$out" "Breakpoint 1, layer 2 (SDP, group 0) done"
[ "$(printf '%s\n' "$out" | grep -c '^[0-9]    ')" = 1 ] || fail "a breakpoint more than 1: $out"
expect_grep "$out" "^Run finished: sample:lenet: "
printf '%s\n' "$out" | grep -q "^layer 4 (PDP, group 0) done$" && fail "the one-shot stopped continue: $out"
# ... and when the end of the run comes first (layer 4 is done already):
# run, from the start, passes layer 4's completion
run_exit 0 "the end first" --batch -q -ex 'advance layer 4 done' -ex 'advance layer 4 done' \
    -ex run -ex 'echo after' sample:lenet
[ "$(printf '%s\n' "$out" | grep -c "^layer 4 (PDP, group 0) done$")" = 1 ] ||
    fail "the one-shot stopped again: $out"
[ "$(printf '%s\n' "$out" | grep -c "^Run finished: sample:lenet: ")" = 2 ] ||
    fail "advance or run did not reach the end: $out"
expect_line "$out" "after"

# a breakpoint at the location's event names the stop, as gdb's does
run_exit 0 "breakpoint and location at one event" --batch -q -ex 'break unit sdp done' \
    -ex 'advance layer 2 done' sample:lenet
expect_line "$out" "Breakpoint 1, layer 2 (SDP, group 0) done"

# a condition, as tbreak's: the second SDP layer
run_exit 0 "advance if" --batch -q -ex 'advance unit sdp done if $layers >= 3' sample:lenet
expect_line "$out" "layer 3 (SDP, group 1) done"

# until: after step layer, layer 2 (SDP, on the fly from layer 0) runs;
# until stops when it completes, before the PDP; then again at the PDP,
# the layer it is at then; until alone is next (layer 1, the next to complete)
run_exit 0 "until" --batch -q -ex 'step layer' -ex 'until unit pdp done' -ex 'until unit pdp done' \
    -ex until -ex 'info breakpoints' sample:lenet
expect_grep "$out" "^layer 2 (SDP, group 0) done at cycle [0-9]*; next: "
expect_line "$out" "layer 4 (PDP, group 0) done"
expect_grep "$out" "^layer 1 (CONV, group 1) done at cycle [0-9]*; next: "
expect_line "$out" "No breakpoints or watchpoints."
# before any layer, until is advance
run_exit 0 "until before any layer" --batch -q -ex 'until layer 2 done' sample:lenet
expect_line "$out" "layer 2 (SDP, group 0) done"

# refused: no location, a location tbreak refuses, a bad condition
refused() { # COMMAND MESSAGE-REGEX
    run_exit 2 "$1" --batch -q -ex "$1" sample:lenet
    expect_grep "$out" "^error: -ex 1: $2"
}
refused 'until foo' 'until: unknown "foo"; expected one of: layer, unit, reg, intr, lut, rule, diag, mismatch (or a layer number, a unit or UNIT.REG)$'
# break's shorthands: "advance 3" (gdb's line number) is advance layer 3
run_exit 0 "advance 3" --batch -q -ex 'advance 3' sample:lenet
short=$out
run_exit 0 "advance layer 3" --batch -q -ex 'advance layer 3' sample:lenet
[ "$short" = "$out" ] || fail "advance 3 is not advance layer 3: $short"
run_exit 0 "until sdp done" --batch -q -ex 'until sdp done' sample:lenet
expect_line "$out" "layer 2 (SDP, group 0) done"
refused 'advance' 'advance: expected one of: layer, unit, '
refused 'advance layer 9' 'advance layer: no layer 9: layers are 0\.\.4 '
refused 'advance layer 3 if $nosuch' 'advance layer: condition: '
# after the run, as next says it: no error
run_exit 0 "advance after the run" --batch -q -ex run -ex 'advance layer 3' sample:lenet
expect_line "$out" 'The run has finished ("run" starts it again).'
echo ok
