#!/bin/sh
# Every pane renders on the sample network: layers, registers, CBUF, LUT,
# perf, memory, timeline, console, the status line and the help overlay;
# 1-7 and Tab move between panes.
. "$(dirname "$0")/lib.inc"

tui_start # no FILE: the built-in sample:lenet
expect_screen '^ dladbg | sample:lenet | nv_full | layer 0/0+ | cycle 0'
expect_screen '1 Layers (0)'
expect_screen 'no hardware layer yet'
expect_screen '2 Registers GLB'
expect_screen 'S_INTR_MASK'
expect_screen '7 Timeline'
expect_screen 'Console'
expect_screen 'F5 Cont'

keys c
wait_for 'Run finished'
expect_screen '^ dladbg | sample:lenet | nv_full | layer 5/5 | cycle [1-9]'
expect_screen '1 Layers (5)'
expect_screen '0 done  *CONV  0'
expect_screen '2 done  *SDP   0 <0'
expect_screen '4 done  *PDP'

keys 3
wait_for '3 CBUF 16 banks x 32 KiB'
expect_screen 'B00 '
expect_screen 'B15 '
expect_screen 'owners: '

keys 4
wait_for '4 LUT'
expect_screen 'config LE_FUNCTION='
expect_screen 'LE table (65)'
expect_screen 'LO table (257)'

keys 5
wait_for '5 Performance'
expect_screen 'util compute|stall  *run%│'
expect_screen '││CONV  *2 '
expect_screen 'layer 3 SDP group 1: '

keys 1 Home j j 6
wait_for '6 Memory'
expect_screen 'layer 2 DMA'
expect_screen 'sdp.wdma *W'
expect_screen '^.*0x0[0-9a-f]*: [0-9a-f][0-9a-f] '

keys 7
wait_for 'Timeline (whole run) [0-9.]* cycles*/column'
expect_screen '^│CONV '
expect_screen '^│cycle |0 '
# zoom in twice (4x), scroll right, fit the whole run again
whole=$(screen | sed -n 's/.*Timeline (whole run) \([0-9.]*\) cycles*\/column.*/\1/p' | head -n 1)
keys + +
wait_for '7 Timeline [0-9.]* cycles*/column'
# a quarter of the whole run's scale (both shown to three digits: within 1%)
zoomed=$(screen | sed -n 's/.*7 Timeline \([0-9.]*\) cycles*\/column.*/\1/p' | head -n 1)
awk -v w="$whole" -v z="$zoomed" 'BEGIN { r = z * 4 / w; exit !(r > 0.99 && r < 1.01) }' ||
    fail "zoomed in twice: $zoomed cycles/column, not a quarter of $whole"
keys l
wait_for '^│cycle  *|[1-9][0-9]*[kMG]* '
keys z
wait_for "Timeline (whole run) $whole cycles*/column"
expect_screen '^│cycle |0 '

keys 2
wait_for '2 Registers SDP group 0'

# the help overlay lists the keys with the commands they execute
keys '?'
wait_for 'Keys (\[...\]: the console command'
expect_screen 'F5 c  *continue until a breakpoint or the end  \[continue\]'
expect_screen 'F10 n  *step one hardware layer  \[step layer\]'
keys Escape
wait_gone 'Keys (\[...\]'

# Tab: layers -> registers -> timeline -> layers, never into the console
# (":" enters it; tests/tui/focus_keys.sh has the rest)
keys 1 Tab Tab Tab
sleep 0.2
expect_no_screen 'Console (Tab completes'
keys :
wait_for 'Console (Tab completes'
keys Escape
wait_gone 'Console (Tab completes'

keys q
wait_exit
[ "$status" = 0 ] || fail "exit status $status"
expect_restored
