#!/bin/sh
# The memory pane's "a" asks the question x, dump memory and tensor ADDR ask
# (mem_accessible): an address no region of the file holds and nothing the
# run wrote is refused with gdb's "Cannot access memory at address ..." in
# the status line, the dump left as it was (it showed zeros); a bound
# address is dumped, and the dump stops where the memory ends, with the
# same words.
. "$(dirname "$0")/lib.inc"

tui_start sample:lenet
expect_screen '1 Layers (0)'
keys 6 a
wait_for 'dump address (0x..., c:ADDR for CV-SRAM): *$'
type_text 0x90000000
keys Enter
wait_for 'Cannot access memory at address dram:0x90000000'
expect_no_screen 'dram 0x90000000 +'
# memory 14, the output: 0x8000f000-0x8000f01f; the line after it is no memory
keys a
wait_for 'dump address (0x..., c:ADDR for CV-SRAM): *$'
type_text 0x8000f000
keys Enter
wait_for 'dram 0x8000f000 +1048576'
expect_screen '0x008000f000: 00 00 00 00'
expect_screen '0x008000f020: Cannot access memory at address dram:0x8000f020'
expect_no_screen '0x008000f040:'
# the console's x says the same
keys :
type_text 'x 0x90000000'
keys Enter
console_has 'x: Cannot access memory at address dram:0x90000000: no memory'
quit_now
