#!/bin/sh
# A 100 KB paste into the console is handled as one burst of keys with one
# redraw, not a redraw per key (which took 10-15 s): the frames drawn are
# counted ($DLADBG_TUI_FRAMES), nothing is timed.
. "$(dirname "$0")/lib.inc"

awk 'BEGIN { s = "x"; for (i = 0; i < 17; i++) s = s s; printf "%s", substr(s, 1, 100000) }' \
    >"$TUI_TMP/paste.txt"
TUI_ENV="DLADBG_TUI_FRAMES=$TUI_TMP/frames" tui_start sample:lenet
keys :
wait_for 'Console (Tab completes'
$TMUX_CMD load-buffer "$TUI_TMP/paste.txt"
$TMUX_CMD paste-buffer -t tui
type_text ENDMARK
wait_for 'xENDMARK'
# the line is dropped, not run: the console stays usable
keys C-u
type_text 'echo after-paste'
keys Enter
wait_for '^│after-paste  '
keys Escape
quit_now
frames=$(cat "$TUI_TMP/frames")
# a handful of frames per burst the terminal delivers; one per key was 100,000
[ "$frames" -lt 2000 ] || fail "$frames frames drawn for a 100 KB paste"
echo "ok ($frames frames)"
