#!/bin/sh
# Keys a new user tripped over: Tab never traps the keys in the console (it
# goes round the panes only; on an empty console line Tab and 1-8 leave it),
# an in-place edit replaces the selected old value as the first character is
# typed, and the memory pane's address prompt starts empty and says why an
# address is refused.
. "$(dirname "$0")/lib.inc"

tui_start sample:lenet
expect_screen '1 Layers (0)'
# Tab ten times, then n n n: three layers stepped, nothing typed in the console
keys Tab Tab Tab Tab Tab Tab Tab Tab Tab Tab
keys n n n
wait_for 'layer 3/5+'
expect_no_screen '(dladbg) nnn'
expect_no_screen 'Console (Tab completes'
# ":" is the way in; on an empty line Tab leaves again, and so does a pane digit
keys :
wait_for 'Console (Tab completes'
keys Tab
wait_gone 'Console (Tab completes'
keys :
wait_for 'Console (Tab completes'
keys 5
wait_for '─ 5 Perf'
expect_no_screen 'Console (Tab completes'
# while a command is typed, Tab completes it and digits are typed
keys :
type_text 'info lay'
keys Tab
wait_for '(dladbg) info layers '
keys C-u Escape

# the register editor: the old value is selected, typing replaces it
keys 2 /
type_text S_INTR_MASK
keys Enter
wait_for '││. S_INTR_MASK  *0x00000000'
keys Enter
wait_for 'Typing replaces the value, Backspace edits it'
type_text 0x100
keys Enter
console_has '(dladbg) reg GLB.S_INTR_MASK = 0x100 '
expect_no_screen '0x000000000x100'
# Backspace keeps the old value and edits it
keys Enter
wait_for 'Typing replaces the value'
keys BSpace
type_text 1
keys Enter
console_has '(dladbg) reg GLB.S_INTR_MASK = 0x00000101 '

# the memory pane's address prompt: empty, and a bad address says why
keys 6 a
wait_for 'dump address (0x..., c:ADDR for CV-SRAM): *$'
type_text 0xzz
keys Enter
wait_for 'not an address: "0xzz"; try 0x80000000 or c:0x10'
# nv_full has CV-SRAM: c:ADDR, the form the prompt names, is taken as it is
keys a
wait_for 'dump address (0x..., c:ADDR for CV-SRAM): *$'
type_text c:0x10
keys Enter
sync_ui
expect_no_screen 'not an address'
quit_confirmed
