#!/bin/sh
# A loadable in the TUI (sample:lenet: one DLA task, the softmax on the CPU):
# t lists every task before it runs; Enter on a task shows its tensors in the
# console; the layers pane names each layer's loadable operation and the
# tensors it reads; states have one name ("programming", as "info layers").
. "$(dirname "$0")/lib.inc"

# wide enough for the layers pane to show the names (as a description, they
# are clipped on narrow screens)
TUI_COLS=160
tui_start sample:lenet
expect_screen '1 Layers (0)'
keys t
wait_for '1 Tasks (2)'
expect_screen '^│0  *DLA to come   5  *-  image'
expect_screen '^│1  *EMU to come   -  *-  probabilities'
# Enter on the EMU task: its output tensor, all zero before it runs, its 10 values on one line
keys Down Enter
wait_for '^│  c=0  *0  *0  *0  *0  *0  *0  *0  *0  *0  *0 *│'
console_has 'tensor probabilities dram 0x8000f000: N=1 C=10 H=1 W=1 int8'
# the DLA task steps over, then the EMU task: both done
keys :
type_text 'step task'
keys Enter Escape
wait_for '^│0  *DLA done  '
expect_screen '^│1  *EMU to come '
keys :
type_text 'step task'
keys Enter Escape
wait_for '^│1  *EMU done  '
# back across the EMU task: it is to come again
keys B
wait_for '^│1  *EMU to come '
# the layers: operation and tensor names first, one name per state
keys t
wait_for '1 Layers (5)'
expect_screen '^│ *0 done  *CONV  0 -  *[0-9]*  op0 image ->  conv'
expect_screen '^│ *2 done  *SDP   0 <0  *[0-9]*  op1  sdp'
expect_no_screen 'programmed'

# the run ends; a poke of a finished layer's group starts a layer that is
# never enabled: said in the console, shown as such, not counted
keys c
wait_for 'Run finished: sample:lenet'
keys :
type_text 'reg SDP.D_DATA_CUBE_WIDTH = 5'
keys Enter Escape
wait_for '1 Layers (5, 1 never enabled)'
console_has '^│This write starts layer 5 (SDP, group [01]) programming: it counts as a layer of the run'
expect_screen '^│ *5 never enabled  *SDP '
expect_screen '^ dladbg | sample:lenet | nv_full | layer 5/5 '
quit_now
echo ok
