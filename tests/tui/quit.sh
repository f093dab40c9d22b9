#!/bin/sh
# Quitting: q leaves at once when nothing is running and asks while a run is
# in progress (unless "set confirm off"); an idle Ctrl-C twice quits; SIGTERM and SIGHUP end the program.
# A fatal signal (a crash) still gives the terminal back.  Every way out
# leaves the terminal as it was: same stty modes, normal screen, cursor
# visible, mouse reporting and keypad mode off.
. "$(dirname "$0")/lib.inc"

# q with nothing run yet: no question
tui_start
keys q
wait_exit
[ "$status" = 0 ] || fail "q: exit status $status"
expect_restored
screen | grep -q '\[dladbg exited\]' || fail "the shell's screen did not come back"

# q during a run asks; n keeps going, y quits
tui_restart
keys n
wait_for 'layer 1/'
keys q
wait_for 'A run is in progress (1 layer done, cycle [0-9]*). Quit? \[y/N\]'
keys n
wait_gone 'Quit? \[y/N\]'
keys n
wait_for 'layer 2/'
quit_confirmed

# after "set confirm off" (gdb's), q during a run quits without asking
tui_restart
keys n
wait_for 'layer 1/'
keys :
type_text 'set confirm off'
keys Enter
sync_ui
keys Escape q
wait_exit
[ "$status" = 0 ] || fail "q after set confirm off: exit status $status"
expect_restored

# idle Ctrl-C: the first one says how to quit, a second one soon after quits
tui_restart
keys C-c
wait_for 'Ctrl-C again within 2 s quits'
keys C-c
wait_exit
expect_restored

# SIGTERM, with a run in progress
tui_restart
keys n
wait_for 'layer 1/'
kill -TERM "$(dladbg_pid)"
wait_exit
[ "$status" = 143 ] || fail "SIGTERM: exit status $status, expected 143"
expect_restored

# SIGHUP (the terminal went away)
tui_restart
kill -HUP "$(dladbg_pid)"
wait_exit
[ "$status" = 129 ] || fail "SIGHUP: exit status $status, expected 129"
expect_restored

# a crash: SIGSEGV (the sanitizer build reports it, then aborts)
tui_restart
keys n
wait_for 'layer 1/'
kill -SEGV "$(dladbg_pid)"
wait_exit
[ "$status" != 0 ] || fail "SIGSEGV: exit status 0"
rm -f "$TUI_TMP/stderr" # the crash report is expected here
expect_restored
