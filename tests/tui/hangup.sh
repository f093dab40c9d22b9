#!/bin/sh
# The terminal going away while dladbg waits for an answer ("Delete all
# breakpoints? (y or n)") ends the program as at its prompt: on SIGHUP with
# status 129 and the terminal restored; and with the hangup signal blocked
# (only the dead terminal left to notice) it still leaves instead of spinning
# on reads that fail at once.  Both used to loop forever at the question.
. "$(dirname "$0")/lib.inc"

ask_delete_all() {
    keys :
    type_text 'break layer 1'
    keys Enter
    type_text 'delete'
    keys Enter
    wait_for '^Delete all breakpoints? (y or n)'
}

tui_start sample:lenet
ask_delete_all
kill -HUP "$(dladbg_pid)"
wait_exit
[ "$status" = 129 ] || fail "SIGHUP at the question: exit status $status, expected 129"
expect_restored

# SIGHUP blocked before exec (a blocked signal stays blocked across exec and
# is never delivered): the closed terminal is all there is to notice.
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is not installed"; exit 77; }
real=$DLADBG
wrap_dir=$(mktemp -d "${TMPDIR:-/tmp}/dladbg-hup.XXXXXX")
trap 'tui_cleanup; rm -rf "$wrap_dir"' EXIT
DLADBG=$wrap_dir/hup-blocked
cat >"$DLADBG" <<WRAP
#!/usr/bin/env python3
import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
os.execv("$real", ["$real"] + sys.argv[1:])
WRAP
chmod +x "$DLADBG"
tui_restart sample:lenet
ask_delete_all
pid=$(dladbg_pid)
[ -n "$pid" ] || fail "no dladbg process"
$TMUX_CMD kill-server
n=0
while kill -0 "$pid" 2>/dev/null; do
    n=$((n + 1))
    if [ $n -gt $((TUI_WAIT * 20)) ]; then
        kill -KILL "$pid"
        echo "FAIL: dladbg (SIGHUP blocked) still running after its terminal closed" >&2
        exit 1
    fi
    sleep 0.05
done
echo ok
