#!/bin/sh
# An --image that does not fit the input tensor is refused when the file is
# opened: dladbg exits 2 with the message before the TUI comes up, instead
# of opening a normal screen and failing at the first step (issue 35, item 2).
. "$(dirname "$0")/lib.inc"

{
    printf 'P5\n13 12\n255\n'
    head -c 156 /dev/zero
} >"$TUI_TMP/wide.pgm"

mkdir -p "$TUI_TMP/home"
$TMUX_CMD new-session -d -x 120 -y 40 -s tui \
    sh -c "HOME='$TUI_TMP/home' '$DLADBG' --image '$TUI_TMP/wide.pgm' sample:lenet \
           2>'$TUI_TMP/stderr'; echo \$? >'$TUI_TMP/status'; exec sleep 3600" ||
    fail "tmux could not start a session"
wait_exit
[ "$status" = 2 ] || fail "exit status $status, expected 2"
screen | grep -q '^ dladbg |' && fail "the TUI came up"
grep -q 'wide.pgm: image 1x1x12x13 (NCHW) does not fit the input tensor 1x1x12x12 int8' \
    "$TUI_TMP/stderr" || fail "no misfit message"
echo ok
