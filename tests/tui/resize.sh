#!/bin/sh
# Resizing relayouts at once (KEY_RESIZE): panes follow the new size, a wide
# screen shows the registers and another pane side by side, and below 80x24 a
# clear message replaces the panes until the window grows again.
. "$(dirname "$0")/lib.inc"

tui_start
keys n
wait_for 'layer 1/'

resize 100 30
wait_for '7 Timeline'
[ "$(screen | wc -l)" -eq 30 ] || fail "screen is not 30 lines"
# the frames fill the new width: every line between the bars ends on a border.
# Polled: "7 Timeline" is already on the old screen tmux crops, so under load
# the first capture can come before dladbg has redrawn at the new size.
n=0
until [ "$(screen | sed -n '2,29p' | grep -vc '[┐│┘]$')" -eq 0 ]; do
    n=$((n + 1))
    [ $n -gt $((TUI_WAIT * 20)) ] && fail "frames do not reach the right edge"
    sleep 0.05
done
expect_screen '1 Layers (5)'
expect_screen '2 Registers CDMA'
expect_screen '^└.*┘$'
# the key bar is on the last line
screen | tail -n 1 | grep -q 'F1 Help' || fail "key bar not on the last line"

# too small: a message, not garbage
resize 70 20
wait_for 'Terminal too small: 70x20'
expect_screen 'dladbg needs at least 80x24'
expect_no_screen 'Layers'

# back to a usable size: everything again, state kept
resize 120 40
wait_for '1 Layers (5)'
expect_screen '^ dladbg | sample:lenet | nv_full | layer 1/'
expect_no_screen 'Terminal too small'

# wide: registers and the last other right-hand pane side by side
keys 5
wait_for '5 Performance'
resize 200 50
wait_for '2 Registers CDMA'
expect_screen '5 Performance'
expect_screen '1 Layers'

# keys still work after all that
resize 120 40
wait_for '1 Layers (5)'
keys n
wait_for 'layer 2/'
quit_confirmed
