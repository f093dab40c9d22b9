#!/bin/sh
# The key bar names the focused pane's own keys (pane_ops.bar_keys), as
# htop's function bar changes with its screen: the layers pane's o (order
# by cycles) was in the help overlay only.  Every pane with keys of its own
# shows them while it has the focus, and only then; at 80 columns the
# first still fits beside q Quit.
. "$(dirname "$0")/lib.inc"

bar() { screen | tail -n 1; }
bar_has() { bar | grep -q -- "$1" || fail "key bar without \"$1\": $(bar)"; }
bar_lacks() { if bar | grep -q -- "$1"; then fail "key bar with \"$1\": $(bar)"; fi; }

tui_start sample:lenet
expect_screen '1 Layers (0)'
bar_has 'o Order  t Tasks  \. Now  : Console  q Quit'
# each pane with keys of its own: its first two (of up to three)
for pane in '2 g Group  e Edit' '3 Enter Owner' '4 u Unit  C Config' '6 a Address  f Format' \
    '7 +/- Zoom  z Fit' '8 v Stats  d Diff'; do
    keys "${pane%% *}"
    sync_ui
    bar_has "${pane#* }"
    bar_lacks 'o Order'
done
# the perf pane only scrolls; the console takes what is typed
keys 5
sync_ui
bar_has 'F2 Max  : Console'
keys :
wait_for 'Console (Tab completes'
bar_lacks 'o Order'
bar_has 'F2 Max  : Console'
keys Escape 1
sync_ui
bar_has 'o Order'
quit_now

TUI_COLS=80 TUI_ROWS=24
tui_restart sample:lenet
expect_screen '1 Layers (0)'
bar_has '^F1 Help .* o Order  : Console  q Quit *$'
quit_now
