#!/bin/sh
# Screen space: the console grows and shrinks on request (} { or F4 F3, also
# from inside the console) and F2/M maximises it and gives the screen back;
# the key bar keeps "q Quit" at 80x24; the performance pane's headings end
# where its rows do at 140 columns; the memory dump fills the pane's width
# (16 bytes a row in an 82-column pane).
. "$(dirname "$0")/lib.inc"

# console height: the rows from its top border to its bottom border
console_rows() {
    top=$(screen | grep -n -- '─ Console' | cut -d: -f1)
    echo $(($(screen | wc -l) - 1 - top + 1))
}

TUI_COLS=250 TUI_ROWS=70 tui_start
[ "$(console_rows)" = 10 ] || fail "console: $(console_rows) rows at 250x70, expected 10"
keys '}' '}' '}'
sync_ui
[ "$(console_rows)" = 16 ] || fail "console after } } }: $(console_rows) rows, expected 16"
keys : F4 Escape # from inside the console too
sync_ui
[ "$(console_rows)" = 18 ] || fail "console after F4 in it: $(console_rows) rows, expected 18"
keys '{'
sync_ui
[ "$(console_rows)" = 16 ] || fail "console after {: $(console_rows) rows, expected 16"
expect_screen '─ 1 Layers'
keys F2
wait_gone '─ 1 Layers'
[ "$(console_rows)" = 68 ] || fail "maximised console: $(console_rows) rows, expected 68"
keys F2
wait_for '─ 1 Layers'
sync_ui # the panes may show before the whole screen is redrawn
[ "$(console_rows)" = 16 ] || fail "restored console: $(console_rows) rows, expected 16"
# asking for another pane gives the screen back too
keys Escape M
wait_gone '─ 1 Layers'
keys Escape 1
wait_for '─ 1 Layers'
# the panes above keep a few rows however often } is pressed
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25; do keys '}'; done
sync_ui
expect_screen '─ 1 Layers'
expect_screen '─ 7 Timeline'

tui_restart sample:lenet
resize 80 24
wait_for '^F1 Help .* q Quit *$'

resize 140 40
keys n n 5
wait_for '│unit  layers .* util busy: compute|stall  *run%│'
# layer 2 (SDP) wrote 2048 bytes: the dump shows 16 of them a row
keys 1 Home j j 6
wait_for '0x0080007000:\( [0-9a-f][0-9a-f]\)\{16\}  [.]\{16\}'
quit_confirmed
