#!/bin/sh
# Colours: on by default on a colour terminal (a changed register is drawn
# in the "changed" colour), off with NO_COLOR=1 and with --no-color, where
# what colour said stays visible as text and attributes ('*' marks, [==] bars).
. "$(dirname "$0")/lib.inc"

esc=$(printf '\033')
# SGR sequences that set a colour: 30-37, 40-47, 90-97, 38;..., 48;...
has_colour() {
    screen_escaped | grep -q "$esc\[\([0-9;]*;\)\?\(3[0-8]\|4[0-8]\|9[0-7]\)[;m]"
}

run_to_end() {
    keys n
    wait_for 'layer 1/'
    keys c
    wait_for 'Run finished'
}

tui_start
run_to_end
has_colour || fail "no colours on a colour terminal"
# the changed marker's line carries colour
screen_escaped | grep -q "$esc\[33m\*" || fail "the changed marks are not in the changed colour"
quit_now

TUI_ENV=NO_COLOR=1 tui_restart
run_to_end
has_colour && fail "NO_COLOR=1: colours drawn"
expect_screen '││\* '
# timeline bars are drawn with characters
expect_screen '^│CONV .*\[=*[0-9]*=*\]'
quit_now

tui_restart --no-color
run_to_end
has_colour && fail "--no-color: colours drawn"
quit_now
