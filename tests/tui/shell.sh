#!/bin/sh
# shell in the TUI: the screen is left for the shell command's output, Enter
# brings it back (the keys work again), and a status other than 0 is told
# in the console.
. "$(dirname "$0")/lib.inc"

tui_start
keys :
type_text 'shell echo hello-from-sh; exit 3'
keys Enter
wait_for '^hello-from-sh$'
wait_for '^\[press Enter to go back to dladbg\]'
expect_no_screen '^ dladbg |'
keys Enter
wait_for '^ dladbg | sample:lenet'
wait_for '^│shell: exit status 3 '
keys Escape n
wait_for '^ dladbg | sample:lenet | nv_full | layer 1/'
# function keys too: the keypad mode came back with the screen
keys F10
wait_for '^ dladbg | sample:lenet | nv_full | layer 2/'
quit_confirmed
