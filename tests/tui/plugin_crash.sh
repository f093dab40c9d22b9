#!/bin/sh
# A decoder that crashes, in the TUI (issue 36 item 9): the decoder runs in
# a child process, so the crash is a failed command, named in the console;
# the script that made it goes on to its next command, the session goes on
# with the keys after it (a plugin command that crashes, too), nothing of the export is left, and the terminal is
# restored at the end as always.
. "$(dirname "$0")/lib.inc"
plugin="$top/${BUILD:-build}/tests/plugins/crash.so"
[ -f "$plugin" ] || { echo "skip: no $plugin"; exit 77; }
work="$TUI_TMP/work"
mkdir -p "$work"
cat >"$work/crash.dladbg" <<EOS
continue
export csv $work/x.csv --decoder crash
print 6*7
EOS
TUI_COLS=250 TUI_ENV=DLADBG_TEST_CRASH=event tui_start --plugin "$plugin" -x "$work/crash.dladbg" sample:lenet
wait_for 'crashed in its event() callback'
console_has "plugin crash .* crashed in its event() callback"
console_has '^│= 42 (0x2a)'
keys :
type_text 'crashnow'
keys Enter
wait_for 'crashed in its exec() callback'
type_text 'print 6*9'
keys Enter
wait_for '^│= 54 (0x36)'
keys Escape
set -- "$work"/x.csv*
[ -e "$1" ] && fail "the crash left $*"
quit_now
[ "$status" = 0 ] || fail "exit status $status after the crash, expected 0"
echo ok
