#!/bin/sh
# The TUI is on the screen before the file is opened (a large network shows
# its first frame at once, "opening FILE ..." in the status line), so what
# goes with the opening comes out in the console pane: ~/.dladbgrc's output,
# where it used to be printed on the terminal the screen then covered.
. "$(dirname "$0")/lib.inc"

mkdir -p "$TUI_TMP/home"
echo 'echo rc-was-read' >"$TUI_TMP/home/.dladbgrc"
tui_start sample:lenet
wait_for '^│rc-was-read  '
expect_screen '1 Layers (0)'
expect_no_screen 'opening sample:lenet'
quit_now
[ ! -s "$TUI_TMP/stderr" ] || fail "stderr: $(cat "$TUI_TMP/stderr")"
echo ok
