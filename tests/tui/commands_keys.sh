#!/bin/sh
# Keys that stand for commands (F5 continue, F10 and n step layer, Enter on
# a task's tensors, a register edit) while the lines of "commands N" are
# typed run nothing and go into no list: the key bar says to finish the list
# with "end" first; gdb's TUI keys act on the program, never on the lines
# being typed.  Once the list is ended, the same keys step as before.
. "$(dirname "$0")/lib.inc"

tui_start
list_begin 'break unit sdp done'
type_text 'echo logged'
keys Enter
wait_for '^│>echo logged '
keys F5
wait_for '"continue" not run: finish the command list with "end" first'
keys F10
wait_for '"step layer" not run: finish the command list with "end" first'
# from a pane, too: Escape leaves the console, the list stays open
keys Escape
keys n
wait_for '"step layer" not run: finish the command list with "end" first'
keys :
type_text 'end'
keys Enter
wait_for '^│>end '
wait_for '^│(dladbg) *│$'
type_text 'info breakpoints'
keys Enter
wait_for '^│1  *breakpoint  *y  *0  *any SDP layer done'
# the list holds the one line typed: no "continue", no "step layer"
screen | grep -A3 '^│1  *breakpoint ' | sed -n '2,3p' | grep -q '^│  *echo logged *│$' ||
    fail "the list is not just the line typed"
screen | grep -q '^│  *\(continue\|step layer\) *│$' && fail "a key's command went into the list"
expect_no_screen '^│layer [0-9]* (.*) done at cycle'
# the list ended, F10 steps a layer
keys F10
wait_for '^│layer 0 (CONV, group 0) done at cycle '
keys Escape
quit_confirmed
