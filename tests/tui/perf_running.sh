#!/bin/sh
# A layer still running has no rates in the performance pane: its work and
# bytes are its whole run's, computed at launch, and over its cycles so far
# they would overstate them ("info perf top" has "-" too).  sample:lenet
# stopped at layer 3's programming: layer 0, a convolution of 12800 MACs,
# has run 63 cycles (203.2 MACs a cycle, were it done); once it is done its
# rates are there.
. "$(dirname "$0")/lib.inc"

tui_start sample:lenet
keys :
type_text 'break layer 3'
keys Enter Escape
keys c
wait_for 'Breakpoint 1, layer 3'
keys 1 Home 5
wait_for 'layer 0 CONV group 0: '
expect_screen 'cycles [0-9]*\.\.[0-9]* = [0-9]* '
expect_screen 'MACs 12800 (-/cycle: its rates once it is done)  *│'
expect_no_screen 'bytes/cycle'
keys c
wait_for 'Run finished'
keys 1 Home 5
wait_for 'layer 0 CONV group 0: '
expect_screen 'MACs 12800 ([0-9.]*/cycle)  DRAM [0-9.]* bytes/cycle'
quit_now
echo ok
