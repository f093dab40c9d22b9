#!/bin/sh
# A runs until the layer selected in the layers pane completes (gdb
# frontends' "run to cursor": "advance layer N done"); the stop names the
# layer and leaves no breakpoint, in the list or as a mark.  The console
# takes until as the batch mode does.
. "$(dirname "$0")/lib.inc"

tui_start
expect_screen '1 Layers (0)'
keys A
wait_for 'select a layer first (pane 1)'
# after n, the layers 0 to 4 are programmed: select layer 3
keys n
wait_for '^ dladbg | sample:lenet | nv_full | layer 1/'
keys 1 Home j j j A
wait_for '(dladbg) advance layer 3 done'
wait_for '^ dladbg | sample:lenet .* cycle [0-9]*  *layer 3 (SDP, group 1) done'
console_has '^│layer 3 (SDP, group 1) done  *│'
wait_for '^│.*  3 done  *SDP   1'
screen | grep -q '^│[*●] *3 ' && fail "a breakpoint mark on layer 3"
keys :
type_text 'info breakpoints'
keys Enter
wait_for '^│No breakpoints or watchpoints\. *│'

# until alone: next; every layer is done, so the run goes to its end
type_text 'until'
keys Enter
wait_for '^│(dladbg) until *│'
wait_for '^│Run finished: sample:lenet: '
keys Escape
keys q
wait_exit
[ "$status" = 0 ] || fail "exit status $status"
expect_restored
