#!/bin/sh
# The mouse: a click focuses the pane under it and selects the item there
# (a layer row, a timeline bar, a CBUF bank); the wheel scrolls.
. "$(dirname "$0")/lib.inc"

tui_start
keys c
wait_for 'Run finished'
# layers pane: screen row 2 is the heading, layer i is on row 3 + i
click 5 10
wait_for '2 Registers SDP group 0 (layer 2;'
click 4 10
wait_for '2 Registers CONV\|2 Registers CDMA group 1 (layer 1;'
# a bar on the timeline: PDP's lane holds layer 4
row=$(screen | grep -n '^│PDP ' | cut -d: -f1)
# columns: make the line one byte per cell first
col=$(screen | grep '^│PDP ' | sed 's/│/|/g; s/·/./g; s/[^4]*$//' | awk '{ print length($0) }')
[ -n "$row" ] && [ -n "$col" ] || fail "no PDP lane on the timeline"
click $((row - 1)) $((col - 1))
wait_for '2 Registers PDP group 0 (layer 4;'
# the console: a click focuses it
crow=$(screen | grep -n '─ Console ' | cut -d: -f1)
click "$crow" 5
wait_for 'Console (Tab completes'
keys Escape
# a CBUF bank owned by layer 0 selects layer 0
keys 3
wait_for '3 CBUF'
brow=$(screen | grep -n '││B00 ' | cut -d: -f1)
click $((brow - 1)) 50
wait_for 'bank 0: layer 1'
keys 2
wait_for '2 Registers CDMA group 1 (layer 1;'
# memory: a click on a region row dumps that region
keys 1 Home 6
wait_for 'layer 0 DMA'
mrow=$(screen | grep -n 'layer 0 DMA' | cut -d: -f1)
wrow=$(screen | grep -n '││ *cdma.wt ' | head -n 1 | cut -d: -f1)
[ -n "$wrow" ] || fail "no weight region listed for layer 0"
click $((wrow - 1)) 60
wait_for 'cdma.wt read, hex'
[ "$mrow" -lt "$wrow" ] || fail "region rows are not below the heading"
quit_now
