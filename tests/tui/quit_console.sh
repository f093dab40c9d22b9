#!/bin/sh
# gdb's habits in the console: "quit" typed mid-run asks as q does (n keeps
# the run, "Not confirmed."), Ctrl-D on an empty console line asks the same
# and quits on y; nothing run, both quit at once; Ctrl-D in a line being
# typed edits it (issue 35, item 8).  The idle Ctrl-C is quit.sh's.
. "$(dirname "$0")/lib.inc"

tui_start sample:lenet
keys n
wait_for 'layer 1/'
keys :
type_text quit
keys Enter
wait_for 'A run is in progress (1 layer done, cycle [0-9]*). Quit? \[y/N\]'
keys n
wait_for '^│Not confirmed\.'
[ -f "$TUI_TMP/status" ] && fail "quit answered n exited"

# Ctrl-D inside a line deletes, as readline does; on an empty line it asks
type_text 'info'
keys C-a C-d
wait_for '^│(dladbg) nfo'
keys C-e C-u C-d
wait_for 'A run is in progress (1 layer done, cycle [0-9]*). Quit? \[y/N\]'
keys y
wait_exit
[ "$status" = 0 ] || fail "Ctrl-D, y: exit status $status"
expect_restored

# nothing run: quit and Ctrl-D leave without a question
tui_restart sample:lenet
keys :
type_text quit
keys Enter
wait_exit
expect_restored
tui_restart sample:lenet
keys : C-d
wait_exit
expect_restored
echo ok
