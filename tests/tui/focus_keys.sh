#!/bin/sh
# Keys a new user tripped over: Tab never traps the keys in the console (it
# goes round the panes only; on an empty console line Tab and 1-8 leave it),
# an in-place edit replaces the selected old value as the first character is
# typed, and the memory pane's address prompt starts empty, says why an
# address is refused, and takes c:ADDR as an address of CV-SRAM.
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
# c:ADDR is an address of CV-SRAM, not read as 0xc:..: lenet binds none, so
# c:0x10 is refused with the words x says (the CV-SRAM of a file that binds
# some is dumped: below)
keys a
wait_for 'dump address (0x..., c:ADDR for CV-SRAM): *$'
type_text c:0x10
keys Enter
wait_for 'Cannot access memory at address cvsram:0x10: no memory samp'
expect_no_screen 'not an address'
quit_confirmed

# nv_full has CV-SRAM: c:ADDR, the form the prompt names, dumps it where the
# file binds some (a trace that loads 256 bytes at CV-SRAM 0x50000000 as it
# runs)
cv=$(mktemp -d "${TMPDIR:-/tmp}/dladbg-cv.XXXXXX")
trap 'tui_cleanup; rm -rf "$cv"' EXIT
awk 'BEGIN { for (i = 0; i < 256; i++) printf "0x%02x%s", i, i % 32 == 31 ? "\n" : " " }' \
    >"$cv/source.dat"
printf 'load_mem 0x50000000 0x100 source.dat\n' >"$cv/input.txn"
tui_restart --config nv_full "$cv"
keys c
wait_for 'Run finished'
keys 6 a
wait_for 'dump address (0x..., c:ADDR for CV-SRAM): *$'
type_text c:0x50000000
keys Enter
wait_for 'cvsram 0x50000000 +'
expect_screen '0x0050000000: 00 01 02 03'
expect_no_screen 'not an address'
expect_no_screen 'Cannot access memory'
quit_now
