#!/bin/sh
# A decoder plugin that crashes (issue 36 item 9): a write through NULL in
# event(), abort() in open().  dladbg cannot survive a crash in its own
# process, but it names the plugin, its file and the callback, and leaves
# no temporary of the export behind.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
plugin="$top/$BUILD/tests/plugins/crash.so"
[ -f "$plugin" ] || { echo "no $plugin"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

crash() { # WHERE: export csv through the crashing decoder; its stderr in $err
    rc=0
    err=$(DLADBG_TEST_CRASH=$1 "$DLADBG" --batch -q --plugin "$plugin" -ex continue \
        -ex 'export csv x.csv --decoder crash' sample:lenet 2>&1 >/dev/null) || rc=$?
    [ $rc -ne 0 ] || fail "a crashing decoder ($1) left exit status 0"
    set -- ./x.csv*
    [ -e "$1" ] && fail "the crash left $*"
    return 0
}

crash event
# a sanitized build's plugin reports its own null store first (and ends the
# process its way): the message is the plain build's to check
[ "${SAN:-}" = 1 ] ||
    expect_grep "$err" "dladbg: plugin crash ($plugin) crashed in its event() callback: SIGSEGV"
crash open
expect_grep "$err" "dladbg: plugin crash ($plugin) crashed in its open() callback: SIGABRT, abort()"
echo ok
