#!/bin/sh
# Ctrl-R in the console: readline's reverse incremental search shows its
# "(reverse-i-search)" prompt with the line found, and one Enter runs that line.
. "$(dirname "$0")/lib.inc"

tui_start
keys :
type_text 'echo first-line'
keys Enter
wait_for '^│first-line '
type_text 'echo second'
keys Enter
wait_for '^│second '
keys C-r
wait_for "(reverse-i-search)\`': "
type_text 'first'
wait_for "(reverse-i-search)\`first': echo first-line"
keys Enter
wait_for_count '^│first-line ' 2
wait_for '^│(dladbg)  *│'
expect_no_screen 'reverse-i-search'
# the line ran once: the echo and its output, not a second prompt to confirm
expect_screen '^│(dladbg) echo first-line  *│'
keys Escape
quit_now
