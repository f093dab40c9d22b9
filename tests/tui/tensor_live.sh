#!/bin/sh
# Pane 8 without a reference: the selected layer's output surface read from
# memory now (as its registers describe it), its values one channel at a
# time, and its statistics and histogram (v); a CONV layer, whose output
# feeds SDP on chip, says so.
. "$(dirname "$0")/lib.inc"

tui_start sample:lenet
expect_screen '1 Layers (0)'
keys n n
wait_for 'layer 2/5+'
# the selection follows the step: layer 2 (SDP), just completed
keys 8
wait_for '8 Tensor: layer 2 output, values'
expect_screen 'layer 2 (SDP) 1x8x8x8 int8  memory now'
expect_screen '│c=0/8 w=0\.\.[0-9]* hardware'
expect_screen '│h0  *[0-9]'
keys ']'
wait_for '│c=1/8 w='
keys v
wait_for 'statistics and histogram'
expect_screen 'min 0  max [0-9]*  mean [0-9.]*  std [0-9.]*  at the int8 limits: 0 low, 0 high'
expect_screen 'raw values (scale 1), 512 elements, [0-9]* zeros'
# layer 0 is a convolution: its output never reaches memory
keys 1 Home 8
wait_for 'feeds SDP on chip'
quit_confirmed
