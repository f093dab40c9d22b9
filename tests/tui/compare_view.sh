#!/bin/sh
# Which layer goes wrong first, in the TUI: a run compared with a reference
# folder ("dump tensors" of the same network, one blob then corrupted) marks
# each layer ok or DIFF in the layers pane; pane 8 shows the selected layer's
# output and its blob side by side, d jumps to the first differing element,
# v shows the statistics and the histogram.
. "$(dirname "$0")/lib.inc"

ref="$TUI_TMP/ref"
"$DLADBG" --batch -q -ex "dump tensors $ref" sample:lenet >/dev/null 2>&1 ||
    fail "dump tensors: exit $?"
[ -f "$ref/layer2_sdp.npy" ] || fail "no layer2_sdp.npy in $ref: $(ls "$ref")"
# the second half of layer 2's 512 int8 values (the end of the file) become 127
size=$(wc -c <"$ref/layer2_sdp.npy")
head -c 256 /dev/zero | tr '\0' '\177' |
    dd of="$ref/layer2_sdp.npy" bs=1 seek=$((size - 256)) conv=notrunc 2>/dev/null

TUI_COLS=130
tui_start --compare "$ref" sample:lenet
# the layers pane makes room for the reference column
wait_for 'reference  operation'
keys c
wait_for 'Run finished'
# the console says which layer departs first as the run ends, as batch does
wait_for 'compare: layer 2 (SDP) departs first from blob "layer2_sdp"'
wait_for '^│ *2 done  *SDP .* DIFF \.[0-9]' # the pane may come a frame after the status line
expect_screen '^│ *4 done  *PDP .* ok 1\.0000'
# CONV's output never reaches memory: nothing to compare
expect_screen '^│ *0 done  *CONV .* -  '
# layer 2, its output against the corrupted blob, at the first difference
keys Home Down Down 8
wait_for '8 Tensor: layer 2 output'
expect_screen 'layer 2 (SDP) 1x8x8x8 int8 vs layer2_sdp  DEPARTS'
keys d
wait_for 'c=4/8 w='
expect_screen '| reference (LSB)'
expect_screen '│h0  *0  *0  *0 |  *127  *127  *127 '
# the statistics and histogram of the output
keys v
wait_for 'statistics and histogram'
expect_screen 'at the int8 limits: '
expect_screen 'raw values (scale 1), 512 elements'
# a layer that agrees, one value per channel: the channels as rows
keys 1 End Up 8 v
wait_for 'layer 3 (SDP) 1x10x1x1 int8 vs layer3_sdp  agrees'
expect_screen '│c  *hardware  *reference  *error  (LSB)'
expect_screen '│9  *-*[0-9][0-9]* *-*[0-9][0-9]*  *0 '
quit_now
