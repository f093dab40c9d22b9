#!/bin/sh
# Plugin commands in the TUI's console pane: Tab completes a plugin's
# subcommands, and what aie and sophon print shows in the pane.
. "$(dirname "$0")/lib.inc"

tui_start
keys :
wait_for 'Console (Tab completes'
type_text 'aie st'
keys Tab
wait_for '^│(dladbg) aie streams  *│'
keys C-u
type_text 'continue'
keys Enter
wait_for 'Run finished'
type_text 'aie streams 4'
keys Enter
wait_for '2 streams: 2 match the model'
wait_for 'layer 4 (PDP) pdp.wdma write, output cube 4x4x8 int8:'
type_text 'sophon layout 2,3,4,5 dtype fp16 npus 4 npu 2'
keys Enter
wait_for 'N 64, C 32, H 5, W 1; 2 channels per NPU'
type_text 'aie tiling {8} {3} {0} type int16'
keys Enter
wait_for 'aie: tiling_dimension\[0\] = 3 is not a multiple of 2'
keys Escape
quit_now
