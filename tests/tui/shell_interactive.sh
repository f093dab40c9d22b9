#!/bin/sh
# "shell" alone, as gdb's: an interactive $SHELL on the terminal the TUI
# gives back, until it exits; Enter brings the screen back and the keys work.
# The plain readline console (stdout not a terminal) does the same.
. "$(dirname "$0")/lib.inc"

TUI_ENV="SHELL=/bin/sh PS1=sh-prompt:"
tui_start
keys :
type_text 'shell'
keys Enter
wait_gone '^ dladbg |'
type_text 'echo in-$((6 * 7))'
keys Enter
wait_for '^in-42$'
# interactive: it prompts, on its standard error (the test's wrapper keeps dladbg's in a file)
grep -q 'sh-prompt:' "$TUI_TMP/stderr" || fail "the shell did not prompt: not interactive"
type_text 'exit 4'
keys Enter
wait_for '^\[press Enter to go back to dladbg\]'
keys Enter
wait_for '^ dladbg | sample:lenet'
wait_for '^│shell: exit status 4 '
keys Escape F10
wait_for '^ dladbg | sample:lenet | nv_full | layer 1/'
quit_confirmed

# the readline console: standard output a pipe, so no TUI
tui_cleanup
TUI_TMP=$(mktemp -d "${TMPDIR:-/tmp}/dladbg-tui.XXXXXX")
TMUX_CMD="tmux -S $TUI_TMP/sock -f /dev/null"
mkdir -p "$TUI_TMP/home"
$TMUX_CMD new-session -d -x 120 -y 40 -s tui env HOME="$TUI_TMP/home" SHELL=/bin/sh \
    PS1=sh-prompt: sh -c '"$0" --nx sample:lenet | cat; echo "[dladbg exited]"; sleep 3600' \
    "$DLADBG" || fail "tmux could not start a session"
wait_for '^(dladbg)'
type_text 'shell'
keys Enter
# (dash prompts only when its standard output is a terminal too: here a pipe)
type_text 'echo in-$((6 * 7))'
keys Enter
wait_for '^in-42$'
type_text 'exit'
keys Enter
type_text 'echo back-in-dladbg'
keys Enter
wait_for '^back-in-dladbg'
type_text 'quit'
keys Enter
wait_for '^\[dladbg exited\]'
