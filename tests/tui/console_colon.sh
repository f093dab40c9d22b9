#!/bin/sh
# ':' reaches the console from any pane; typed again in the console on an
# empty line (the vim and less habit of starting every command with ':') it
# is not part of the command, which runs as if typed without it; a ':' inside
# a command is text.  gdb's echo/printf in the TUI console: an open line is
# shown when the command ends.
. "$(dirname "$0")/lib.inc"

tui_start
keys :
wait_for 'Console (Tab completes'
type_text 'echo first\n'
keys Enter
wait_for '^│first  *│'
keys :
type_text 'printf "x=%d\n", 6 * 7'
keys Enter
wait_for '^│x=42  *│'
expect_no_screen 'unknown command ":printf"'
type_text 'echo a:b'
keys Enter
wait_for '^│a:b  *│'
keys Escape
quit_now
echo ok
