#!/bin/sh
# The help overlay describes the marks the layers pane draws (● and ▶ on a
# UTF-8 terminal, * and > without), and the memory pane offers CV-SRAM only
# on a configuration that has one (issue 35, item 9); the registers pane's
# keys say that units the configuration lacks are left out and refused.
. "$(dirname "$0")/lib.inc"

# the overlay, paged down to the layers pane's keys
help_layers() {
    keys '?'
    wait_for 'Keys (\[...\]'
    help_page_until 'marks  '
}

TUI_ENV="LC_ALL=C.UTF-8" tui_start sample:lenet
help_layers
wait_for 'marks *●: breakpoint, o: disabled breakpoint, u: unit breakpoint, ▶: in'
screen | grep -q '\* or o' && fail "the overlay still says * or o"
# what the user reads is no note to the developers
screen | grep -q 'help\.c' && fail "the overlay names a source file"
keys Escape
quit_now

TUI_ENV="LC_ALL=C" tui_restart sample:lenet
help_layers
wait_for 'marks *\*: breakpoint, o: disabled breakpoint, u: unit breakpoint, >: in'
keys Escape
quit_now

# nv_small has no CV-SRAM: the memory pane does not offer it; nv_full does
tui_restart --config nv_small sample:pdp
keys 6
wait_for 'a: dump an address'
screen | grep -q 'CV-SRAM' && fail "the memory pane offers CV-SRAM on nv_small"
quit_now
tui_restart sample:lenet
keys 6
wait_for 'a: dump an address (c: prefix for CV-SRAM)'
quit_now

# the registers pane's keys tell the absent-unit rule (tests/batch/absent_units.sh)
tui_restart --config nv_small sample:pdp
keys '?'
wait_for 'Keys (\[...\]'
help_page_until 'units the configuration lacks (nv_small: BDMA, RBK) are left'
keys Escape
quit_now
echo ok
