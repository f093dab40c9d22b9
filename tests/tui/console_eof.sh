#!/bin/sh
# The line console (stdout not a terminal) at the ">" of "commands": Ctrl-D
# on an empty line ends the list, as gdb's end of input does, instead of
# putting "quit" into it; the prompt is "(dladbg) " again and Ctrl-D quits.
. "$(dirname "$0")/lib.inc"

$TMUX_CMD new-session -d -x 120 -y 40 -s tui \
    env HOME="$TUI_TMP/home" XDG_STATE_HOME="$TUI_TMP/state" \
    sh -c "\"$DLADBG\" sample:lenet | cat; echo \"[exit \$?]\"; exec sleep 3600" ||
    fail "tmux could not start a session"
mkdir -p "$TUI_TMP/home" "$TUI_TMP/state"
wait_for '^(dladbg)'
type_text 'break layer 2 done'
keys Enter
type_text 'commands'
keys Enter
wait_for '^>'
type_text 'echo logged'
keys Enter
keys C-d
wait_for '^(dladbg)$'
type_text 'info breakpoints'
keys Enter
wait_for '^        echo logged$'
screen | grep -q '^        quit$' && fail "Ctrl-D put quit into the list"
keys C-d
wait_for '^\[exit 0\]'
