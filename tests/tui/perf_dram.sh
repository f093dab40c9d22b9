#!/bin/sh
# The performance pane names the memory a layer's bytes went to, as "info
# perf" does: traces/bdma_copy copies 2048 bytes DRAM -> CV-SRAM (layer 0)
# and 1024 bytes CV-SRAM -> DRAM (layer 1), half of each layer's bytes
# DRAM's; its bytes per cycle are DRAM's (what bandwidth is tuned for), not
# every DMA byte's.  nv_small has no CV-SRAM: every byte is DRAM's.
. "$(dirname "$0")/lib.inc"

tui_start --config nv_full "$top/traces/bdma_copy"
keys c
wait_for 'Run finished'
keys 5
wait_for '5 Performance'
# the layer the run is at: the last to finish, layer 1, 1024 DRAM bytes in
# its 132 cycles
wait_for 'layer 1 BDMA group 1: '
expect_screen '1024 bytes read, 1024 written (DRAM 1024, CV-SRAM 1024)'
cycles=$(screen | sed -n 's/.*cycles [0-9]*\.\.[0-9]* = \([0-9]*\) .*/\1/p' | head -n 1)
[ -n "$cycles" ] || fail "no cycles of layer 1 on the screen"
rate=$(awk -v c="$cycles" 'BEGIN { printf "%.1f", 1024 / c }')
expect_screen "bytes 1024 ([0-9.]*/cycle)  DRAM $rate bytes/cycle"
keys 1 Home 5
wait_for 'layer 0 BDMA group 0: '
expect_screen '2048 bytes read, 2048 written (DRAM 2048, CV-SRAM 2048)'

tui_restart --config nv_small sample:sdp
keys c
wait_for 'Run finished'
keys 5
wait_for 'layer 0 SDP group 0: '
expect_screen '256 bytes read, 256 written (all DRAM)'
expect_screen 'elements 256 ([0-9.]*/cycle)  DRAM [0-9.]* bytes/cycle'
quit_now
echo ok
