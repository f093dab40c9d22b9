#!/bin/sh
# "break layer N" is checked against the layer count when it is known: a
# loadable's plan (one layer per DLA operation), the run when it is over, or
# the last complete run after a restart; a trace not yet run says the count is
# not known yet.  "break layer WORD" says what it takes; "info rules UNIT"
# lists that unit's rules only (issue 35, item 4).
set -eu
. "$(dirname "$0")/lib.inc"

run_exit 2 "past the plan" --batch -ex 'break layer 99' sample:lenet
expect_line "$out" 'error: -ex 1: break layer: no layer 99: layers are 0..4 (sample:lenet runs 5, one per DLA operation)'
run_exit 0 "the last layer" --batch -ex 'break layer 4' sample:lenet
expect_line "$out" 'Breakpoint 1: layer 4 programmed'
run_exit 2 "a word" --batch -ex 'break layer x' sample:lenet
expect_grep "$out" 'break layer: expected a layer index (a hardware layer.s number, as "info layers" lists them), not "x"; then optionally programmed, enabled, started or done'
run_exit 0 "an expression" --batch -ex 'break layer 1+1' sample:lenet
expect_line "$out" 'Breakpoint 1: layer 2 programmed'

trace=$(pwd)/traces/bdma_copy
[ -d "$trace" ] || fail "no $trace"
run_exit 0 "trace before a run" --batch -ex 'break layer 7' "$trace"
expect_line "$out" '(how many layers this file runs is known only once a run is over; 0 so far)'
run_exit 2 "trace after its run" --batch -ex run -ex 'break layer 2' "$trace"
expect_line "$out" 'error: -ex 2: break layer: no layer 2: layers are 0..1 (this run had 2)'
run_exit 2 "trace restarted" --batch -ex run -ex restart -ex 'break layer 2' "$trace"
expect_line "$out" 'error: -ex 3: break layer: no layer 2: layers are 0..1 (the last complete run had 2)'

run_exit 0 "rules of one unit" --batch -ex 'info rules pdp' sample:lenet
printf '%s\n' "$out" | grep -v '^pdp\.' | grep -q '^[a-z_]*\.[a-z_]* ' && fail "a rule of another unit: $out"
expect_grep "$out" '^pdp\.'
expect_grep "$out" '^0 of [0-9]* pdp rules fired in this run'
run_exit 2 "rules of no unit" --batch -ex 'info rules pdq' sample:lenet
expect_grep "$out" 'info rules: no rules of "pdq" (did you mean "PDP"?); units with rules: '
echo ok
