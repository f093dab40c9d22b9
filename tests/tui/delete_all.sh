#!/bin/sh
# "delete" without numbers asks first, as gdb does: the question takes the key
# bar, n keeps the breakpoints, y deletes them and says how many; the question
# and its answer stay in the console.  Deleting one by number asks nothing.
. "$(dirname "$0")/lib.inc"

tui_start
keys :
type_text 'break layer 1'
keys Enter
type_text 'break layer 2'
keys Enter
type_text 'break layer 3'
keys Enter
type_text 'delete 3'
keys Enter
wait_for '(dladbg) delete 3'
expect_no_screen 'Delete all breakpoints'
type_text 'delete'
keys Enter
wait_for '^Delete all breakpoints? (y or n)'
keys n
wait_for 'Delete all breakpoints? (y or n) n'
wait_for 'Not confirmed: 2 breakpoints kept.'
type_text 'd'
keys Enter
wait_for '^Delete all breakpoints? (y or n)'
keys y
wait_for 'Deleted 2 breakpoints.'
type_text 'info breakpoints'
keys Enter
wait_for 'No breakpoints or watchpoints.'
keys Escape
quit_now
