#!/bin/sh
# Auto-display, as gdb has it: "display EXPR" shows the expression once when
# made and then at every stop (a breakpoint, next, finish, back, the end of
# the run, a hang), numbered, in the order made, after the stop's own lines;
# one that fails at a stop shows its error on its line and stays; "info
# display", "undisplay N", "delete display N", and "undisplay" alone
# (no question in batch); a number that names no display is an error (exit 2).
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
in_scratch_dir

# two displays, shown when made, then after each stop's lines, in order
run_exit 0 "displays at stops" --batch -ex 'display $layers' -ex 'display/x $cycle' \
    -ex 'break layer 1' -ex run -ex next -ex finish -ex 'back' -ex 'delete' -ex continue sample:lenet
expect_line "$out" '1: $layers = 0 (0x0)'
expect_line "$out" '2: $cycle = 0 (0x0)'
# each stop's last line ("  at ...", "Back at ..."'s "  at the start") is followed by the displays
stops=$(printf '%s\n' "$out" | grep -c '^  at ')
[ "$(printf '%s\n' "$out" | grep -A2 '^  at ' | grep -c '^1: \$layers = [0-9]* (0x[0-9a-f]*)$')" = "$stops" ] ||
    fail "not every stop shows display 1 next: $out"
[ "$(printf '%s\n' "$out" | grep -A1 '^1: \$layers' | grep -c '^2: \$cycle = [0-9]* (0x[0-9a-f]*)$')" = \
    "$(printf '%s\n' "$out" | grep -c '^1: \$layers')" ] || fail "display 2 does not follow display 1: $out"
[ "$stops" = 4 ] || fail "expected 4 stops (break, next, finish, back): $out"
# the breakpoint stops at cycle 290 of sample:lenet, next at the first layer's end
expect_grep "$out" "^Breakpoint 1, layer 1 (CONV, group 1) programmed$"
printf '%s\n' "$out" | grep -A3 '^  at sample:lenet: task 0 op 3 CONV group 1' | grep -q '^2: \$cycle = 290 (0x122)$' ||
    fail "display 2 after the breakpoint's stop: $out"
# the end of the run shows them too, after "Run finished"
printf '%s\n' "$out" | grep -A1 '^Run finished: ' | grep -q '^1: \$layers = 5 (0x5)$' ||
    fail "no displays at the end of the run: $out"

# an expression that fails at a stop shows its error on its line and stays
run_exit 0 "a failing display" --batch -ex 'display 100 / (1 - $layers)' -ex 'break unit bdma done' \
    -ex run -ex continue -ex continue "$top/traces/bdma_copy"
expect_line "$out" '1: 100 / (1 - $layers) = 100 (0x64)'
expect_line "$out" '1: 100 / (1 - $layers) = <error: division by zero>'
[ "$(printf '%s\n' "$out" | grep -c '^1: 100 / (1 - \$layers) = -100 ')" = 2 ] ||
    fail "the display did not stay after its error: $out"

# a hang's report is followed by the displays
run_exit 1 "displays at a hang" --batch -ex 'display $layers' -ex run "$top/traces/hang_masked_intr"
printf '%s\n' "$out" | grep -A1 '^  interrupt line: low$' | grep -q '^1: \$layers = 1 (0x1)$' ||
    fail "no display after the hang report: $out"

# listing and deleting
run_exit 0 "info display, undisplay" --batch -ex 'display $layers' -ex 'display $cycle' \
    -ex 'display $writes' -ex 'info display' -ex 'delete display 1' -ex 'undisplay 3' \
    -ex 'info display' -ex 'display' -ex 'undisplay' -ex 'info display' -ex 'display $cycle' "$top/traces/bdma_copy"
expect_line "$out" "Auto-display expressions now in effect:"
expect_line "$out" "3    \$writes"
[ "$(printf '%s\n' "$out" | grep -c '^1    \$layers$')" = 1 ] || fail "info display: $out"
[ "$(printf '%s\n' "$out" | grep -c '^2    \$cycle$')" = 2 ] || fail "info display after deleting: $out"
expect_line "$out" "Deleted 1 display."
expect_line "$out" "There are no auto-display expressions now."
# numbers are not reused
expect_line "$out" '4: $cycle = 0 (0x0)'

# errors: no such display, a bad expression, a format display has no use for
run_exit 2 "undisplay 7" --batch -ex 'display $layers' -ex 'undisplay 7' -ex 'info display' "$top/traces/bdma_copy"
expect_line "$out" 'error: -ex 2: undisplay: no display number 7 ("info display" lists them)'
run_exit 2 "delete display 7" --batch -ex 'delete display 1 7' "$top/traces/bdma_copy"
expect_line "$out" 'error: -ex 1: delete display: no display number 1 ("info display" lists them)'
run_exit 2 "display of a typo" --batch -ex 'display CDMA.D_NOSUCH' -ex 'info display' "$top/traces/bdma_copy"
expect_grep "$out" '^error: -ex 1: display: '
run_exit 2 "display/i" --batch -ex 'display/i $cycle' "$top/traces/bdma_copy"
expect_grep "$out" '^error: -ex 1: display: no format "/i": '
echo ok
