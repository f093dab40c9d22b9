#!/bin/sh
# The console: typed commands run and print there, Tab completes through the
# command layer, Up recalls history (kept in the XDG state folder), an empty
# line repeats the last step, PgUp scrolls back, errors are shown.
. "$(dirname "$0")/lib.inc"

tui_start
keys :
wait_for 'Console (Tab completes'
type_text 'inf'
keys Tab
wait_for '^│(dladbg) info  *│'
type_text 'lay'
keys Tab
wait_for '^│(dladbg) info layers  *│'
keys C-u
type_text 'step layer'
keys Enter
wait_for 'layer 1/'
keys Enter # repeats the last step
wait_for 'layer 2/'
keys Up
wait_for '^│(dladbg) step layer  *│'
keys C-u
# several candidates are listed
type_text 'reg CDMA.D_DATAIN_SI'
keys Tab
wait_for 'CDMA.D_DATAIN_SIZE_0 .*CDMA.D_DATAIN_SIZE_1'
keys C-u
type_text 'frobnicate'
keys Enter
wait_for 'unknown command "frobnicate"'
type_text 'info layers'
keys Enter
wait_for '^│ *4 *PDP'
keys PageUp
wait_for 'scrolled up'
keys PageDown
wait_gone 'scrolled up'
# another file from the console: everything follows the new model (a trace
# folder of the other register map's size classes: nv_full BDMA)
type_text "file $top/traces/bdma_copy"
keys Enter
wait_for '^ dladbg | bdma_copy | nv_full | layer 0/0+ | cycle 0'
type_text 'continue'
keys Enter
wait_for 'Run finished: bdma_copy'
wait_for '1 Layers (2)'
wait_for '2 Registers BDMA'
keys Escape
wait_gone 'Console (Tab completes'
keys 6
wait_for 'bdma.rd *R'
# opening a file again: the finished run's stop leaves the status line
keys :
type_text "file $top/traces/bdma_copy"
keys Enter
wait_for '^ dladbg | bdma_copy | nv_full | layer 0/0+ | cycle 0'
expect_no_screen '^ dladbg | .*Run finished'
keys Escape
# a script that opens another file and runs it: the panes follow mid-command
printf 'file sample:lenet\nstep layer\ncontinue\n' >"$TUI_TMP/switch.dladbg"
keys :
type_text "source $TUI_TMP/switch.dladbg"
keys Enter Escape
wait_for '^ dladbg | sample:lenet | nv_full | layer 5/5'
wait_for '1 Layers (5)'
keys q # the run is over: no question
wait_exit
expect_restored
grep -q '^step layer$' "$TUI_TMP/state/dladbg/history" || fail "no history file with the commands"
