#!/bin/sh
# The breakpoint mark in the layers pane is what the README says: "●" on a
# UTF-8 terminal, also with --no-color (uncoloured), "*" without UTF-8; "o"
# once the breakpoint is disabled.
. "$(dirname "$0")/lib.inc"

mark_layer_0() {
    keys n
    wait_for '^.[ ●*] *0 done'
    keys 1 Home b
}

TUI_ENV="LC_ALL=C.UTF-8" tui_start --no-color sample:lenet
mark_layer_0
wait_for '^│● *0 done'
keys :
type_text 'disable 1'
keys Enter Escape
wait_for '^│o *0 done'
quit_confirmed

TUI_ENV="LC_ALL=C" tui_restart sample:lenet
mark_layer_0
wait_for '^.\* *0 done'
quit_confirmed
