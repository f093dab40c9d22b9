#!/bin/sh
# A breakpoint's command list typed in the TUI's console: after "commands"
# the console says what to type and the prompt is ">" until "end"; each line
# typed is echoed after ">"; then "run" logs every hit silently and goes on to
# the end of the run.  Ctrl-D on an empty line at ">" ends the list as
# "end" does, as gdb's end of input does, and does not quit.
. "$(dirname "$0")/lib.inc"

tui_start
list_begin 'break unit sdp done'
wait_for '^│End with a line saying just "end"\. '
type_text 'silent'
keys Enter
wait_for '^│>silent '
type_text 'print $layers'
keys Enter
type_text 'continue'
keys Enter
type_text 'end'
keys Enter
wait_for '^│>end '
wait_for '^│(dladbg) *│$'
type_text 'run'
keys Enter
wait_for '^│Run finished: sample:lenet: '
screen | grep -q '^│= 2 (0x2) ' || fail "the first hit was not logged"
screen | grep -q '^│= 5 (0x5) ' || fail "the second hit was not logged"
expect_no_screen '^│Breakpoint 1, '

keys Escape
list_begin 'break layer 0 done'
type_text 'echo logged at 0'
keys Enter
keys C-d
wait_for '^│>end '
wait_for '^│(dladbg) *│$'
type_text 'info breakpoints'
keys Enter
wait_for '^│        echo logged at 0 *│$'
[ -f "$TUI_TMP/status" ] && fail "Ctrl-D at > quit"
keys Escape
quit_now
