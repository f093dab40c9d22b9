#!/bin/sh
# Auto-display in the TUI's console: "display EXPR" shows the value at once,
# every stop (a key's step too) shows it again after the stop's lines, "info
# display" lists it, and "undisplay" without numbers asks first, as "delete"
# does: n keeps the displays, y deletes them.
. "$(dirname "$0")/lib.inc"

tui_start
keys :
type_text 'display $layers'
keys Enter
wait_for '^│1: \$layers = 0 (0x0) '
type_text 'display $cycle + 1'
keys Enter
wait_for '^│2: \$cycle + 1 = 1 (0x1) '
keys Escape
# n (a layer, from the key bar): the stop, then both displays in order
keys n
wait_for '^ dladbg | sample:lenet | nv_full | layer 1/'
wait_for '^│1: \$layers = 1 (0x1) '
screen | grep -A1 '^│1: \$layers = 1 (0x1) ' | grep -q '^│2: \$cycle + 1 = [0-9]* (0x[0-9a-f]*) ' ||
    fail "display 2 does not follow display 1 after the step"
screen | grep -B1 '^│1: \$layers = 1 (0x1) ' | grep -q '^│  at sample:lenet: ' ||
    fail "the displays do not follow the stop's lines"
keys :
type_text 'info display'
keys Enter
wait_for '^│2    \$cycle + 1 '
type_text 'undisplay'
keys Enter
wait_for '^Delete all auto-display expressions? (y or n)'
keys n
wait_for 'Not confirmed: 2 displays kept.'
type_text 'undisplay'
keys Enter
wait_for '^Delete all auto-display expressions? (y or n)'
keys y
wait_for 'Deleted 2 displays.'
keys Escape n
wait_for '^ dladbg | sample:lenet | nv_full | layer 2/'
sync_ui
expect_no_screen '^│1: \$layers = 2 '
quit_confirmed
