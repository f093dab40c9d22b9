#!/bin/sh
# The status line's stop reason follows the run: after "restart" it no longer
# says "Run finished" (the new run has not finished), as after "back" to the
# start it says nothing of a run that is no longer there (issue 35, item 7).
. "$(dirname "$0")/lib.inc"

status_line() {
    screen | head -n 1
}

tui_start sample:lenet
keys F5
wait_for '^ dladbg | sample:lenet .* Run finished'
keys :
type_text restart
keys Enter Escape
wait_for '^ dladbg | sample:lenet | nv_full | layer 0/'
status_line | grep -q 'Run finished' && fail "still Run finished after restart: $(status_line)"
# a run that finishes again says so again
keys F5
wait_for '^ dladbg | sample:lenet .* Run finished'
quit_now
echo ok
