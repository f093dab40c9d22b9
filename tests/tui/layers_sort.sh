#!/bin/sh
# The layers pane's sort key, htop's habit: o orders the layers by cycles,
# most first (sample:lenet: SDP 2, CONV 0, SDP 3, CONV 1, PDP 4), and back to
# index order; the title says the order; the selection stays on its layer
# (the registers pane still shows it) and the arrows move in the order shown.
. "$(dirname "$0")/lib.inc"

TUI_COLS=160
tui_start sample:lenet
keys c
wait_for 'Run finished: sample:lenet'
keys 1 Home Down
wait_for '2 Registers CDMA group 1 (layer 1;'
expect_screen '1 Layers (5) '

# the layer numbers of the pane's rows, top to bottom
rows() {
    screen | sed -n 's/^│.. *\([0-9]\) done .*/\1/p' | tr -d '\n'
}
[ "$(rows)" = 01234 ] || fail "index order: rows $(rows)"

keys o
wait_for '1 Layers (5, by cycles) '
[ "$(rows)" = 20314 ] || fail "by cycles: rows $(rows), expected 20314"
expect_screen '2 Registers CDMA group 1 (layer 1;'
# Down moves to the next row of this order: layer 4, not layer 2
keys Down
wait_for '2 Registers PDP group 0 (layer 4;'

keys o
wait_for '1 Layers (5) '
[ "$(rows)" = 01234 ] || fail "index order again: rows $(rows)"
expect_screen '2 Registers PDP group 0 (layer 4;'
keys Up
wait_for '2 Registers SDP group 1 (layer 3;'
quit_now
echo ok
