#!/bin/sh
# A decoder plugin that crashes (issue 36 item 9): a write through NULL in
# event(), abort() in open(), and a constructor that calls _exit(42) when
# the plugin is loaded.  Decoders run in a child process: the crash fails
# the export with a message naming the plugin, its file and the callback,
# the session ends as after any failed command (exit status 2, not the
# signal's), and no temporary of the export is left; so does a crash in a
# plugin command, after what it printed.  A plugin whose
# constructor ends the process is refused, named, before it is loaded.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
plugin="$top/$BUILD/tests/plugins/crash.so"
exiting="$top/$BUILD/tests/plugins/exit_at_load.so"
[ -f "$plugin" ] && [ -f "$exiting" ] || { echo "no $plugin or $exiting"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

crash() { # WHERE: export csv through the crashing decoder; its stderr in $err
    rc=0
    err=$(DLADBG_TEST_CRASH=$1 "$DLADBG" --batch -q --plugin "$plugin" -ex continue \
        -ex 'export csv x.csv --decoder crash' sample:lenet 2>&1 >/dev/null) || rc=$?
    [ $rc -eq 2 ] || { printf '%s\n' "$err"; fail "a crashing decoder ($1): exit $rc, expected 2"; }
    set -- ./x.csv*
    [ -e "$1" ] && fail "the crash left $*"
    return 0
}

crash event
expect_grep "$err" "export csv: x.csv: plugin crash ($plugin) crashed in its event() callback"
# a sanitized build's plugin reports its own null store (abort()) before the
# fault: the signal is the plain build's to check
[ "${SAN:-}" = 1 ] ||
    expect_grep "$err" "crashed in its event() callback: SIGSEGV, an invalid memory access"
crash open
expect_grep "$err" "plugin crash ($plugin) crashed in its open() callback: SIGABRT, abort()"

# a plugin command runs in a child too: what it printed before the crash
# shows, and the crash is named
run_exit 2 "a crashing plugin command" --batch -q --plugin "$plugin" -ex crashnow sample:lenet
expect_grep "$out" "crashnow: about to crash"
expect_grep "$out" "plugin crash ($plugin) crashed in its exec() callback"

# the constructor's _exit(42) happens in a probe, not in dladbg
run_exit 2 "a plugin whose constructor exits" --batch --plugin "$exiting" -ex plugins sample:lenet
expect_grep "$out" "$exiting: refused: loading it ends the process (a constructor exited with status 42)"
echo ok
