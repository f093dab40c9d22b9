#!/bin/sh
# Files are never half-written: exports to devices and FIFOs are written in
# place (a write error says why), symbolic links are followed, new files get
# 0666 less the umask, a trace folder appears complete or not at all, and a
# SIGTERM in the middle of an export leaves no temporary behind.
set -eu
. "$(dirname "$0")/lib.inc"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
csv() { # FILE: export the layers of sample:lenet as CSV to FILE
    run_dladbg --batch -q -ex continue -ex "export csv $1 --decoder layers" sample:lenet
}

# a full device: the error names the reason, nothing claims success, exit 2.
# Reached through a link in the work folder, so that a regression (a file
# renamed over the target) replaces the link, never the system's /dev/full.
if [ -c /dev/full ] && [ -w /dev/full ]; then
    ln -s /dev/full full
    run_exit 2 "csv to /dev/full" --batch -q -ex continue -ex 'export csv full --decoder layers' \
        sample:lenet
    expect_grep "$out" "export csv: full: write failed: No space left on device"
    printf '%s\n' "$out" | grep -q "Wrote CSV" && fail "a failed write reported success"
    [ -L full ] || fail "the link to /dev/full was replaced"
    run_exit 2 "-o /dev/full" --batch -q -o full sample:lenet
    expect_grep "$out" "full: write failed: No space left on device"
    [ -L full ] || fail "the link to /dev/full was replaced"
fi

# /dev/stdout on a pipe: a link to a pipe, written through
n=$(run_dladbg --batch -q -ex continue -ex 'export csv /dev/stdout --decoder layers' sample:lenet |
    grep -c '"layer"\|SDP\|CONV' || true)
[ "$n" -gt 0 ] || fail "export csv /dev/stdout wrote nothing to the pipe"

# new files: 0666 less the umask; replaced files keep their mode
(umask 027 && csv new.csv >/dev/null)
[ "$(stat -c %a new.csv)" = 640 ] || fail "new file mode $(stat -c %a new.csv), expected 640"
(umask 022 && csv new2.csv >/dev/null)
[ "$(stat -c %a new2.csv)" = 644 ] || fail "new file mode $(stat -c %a new2.csv), expected 644"
chmod 600 new2.csv
csv new2.csv >/dev/null
[ "$(stat -c %a new2.csv)" = 600 ] || fail "a replaced file lost its mode"

# a symbolic link: its target is written, the link stays a link
echo old >target.csv
ln -s target.csv link.csv
csv link.csv >/dev/null
[ -L link.csv ] || fail "the symbolic link was replaced by a file"
grep -q "^layer" target.csv || grep -q "," target.csv || fail "the link's target was not written"
ln -s nowhere/x.csv dangling.csv
run_exit 2 "dangling link" --batch -q -ex continue -ex 'export csv dangling.csv --decoder layers' \
    sample:lenet
expect_grep "$out" "dangling.csv: a symbolic link to nothing writable"

# a FIFO: written in place when someone reads it, refused when nobody does
mkfifo fifo
run_exit 2 "FIFO without reader" --batch -q -ex continue -ex 'export csv fifo --decoder layers' \
    sample:lenet
expect_grep "$out" "fifo: cannot write: a FIFO with no reader"
cat fifo >from_fifo &
reader=$!
sleep 0.2
csv fifo >/dev/null
wait $reader
[ -s from_fifo ] || fail "nothing came through the FIFO"
[ -p fifo ] || fail "the FIFO was replaced by a file"

# a folder is not a file
mkdir adir
run_exit 2 "folder" --batch -q -ex continue -ex 'export csv adir --decoder layers' sample:lenet
expect_grep "$out" "adir: is a folder"

# export txn before anything ran: refused (it would replay nothing and pass),
# and an earlier export in its place is kept
run_dladbg --batch -q -ex continue -ex 'export txn early' sample:lenet >/dev/null
run_exit 2 "txn before the run" --batch -q -ex 'export txn early' sample:lenet
expect_line "$out" 'error: -ex 1: export txn: early: nothing has run yet, so the trace would replay nothing ("run" or a step first)'
grep -q '^write_reg' early/input.txn || fail "the earlier export was replaced"
# export txn: a new folder, then the same folder replaced whole; a folder
# holding anything else is refused and left alone
run_dladbg --batch -q -ex continue -ex 'export txn tx' sample:lenet >/dev/null
[ -f tx/input.txn ] || fail "no trace folder"
n1=$(ls tx | wc -l)
run_dladbg --batch -q -ex continue -ex 'export txn tx' sample:lenet >/dev/null
[ "$(ls tx | wc -l)" = "$n1" ] || fail "a re-export mixed two folders"
touch tx/notes.txt
run_exit 2 "txn over a foreign folder" --batch -q -ex continue -ex 'export txn tx' sample:lenet
expect_grep "$out" "the folder holds notes.txt, which an export did not write"
[ -f tx/notes.txt ] || fail "a refused export touched the folder"
rm tx/notes.txt
ls -d ./*.tmp* ./*.old* ./*.dladbg-* 2>/dev/null && fail "temporaries left behind"

# SIGTERM while the export's temporary folder exists: it is removed, the
# status is 128 + 15, and the folder is either the old complete one or absent
hits=0
for trial in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    rm -rf sig
    "$DLADBG" --batch -q -ex continue -ex 'export txn sig' sample:lenet >/dev/null 2>&1 &
    pid=$!
    i=0
    while [ $i -lt 20000 ]; do
        set -- sig.dladbg-*
        [ -e "$1" ] && break
        kill -0 $pid 2>/dev/null || break
        i=$((i + 1))
    done
    kill -TERM $pid 2>/dev/null || true
    rc=0
    wait $pid || rc=$?
    if [ $rc -eq 143 ]; then
        hits=$((hits + 1))
        [ ! -e sig ] || [ -f sig/input.txn ] || fail "trial $trial: a half-written trace folder"
    fi
    set -- ./*.tmp* ./*.dladbg-*
    [ -e "$1" ] && fail "trial $trial: SIGTERM left $*"
    [ $hits -ge 3 ] && break
done
[ $hits -gt 0 ] || echo "note: no trial was killed during the export (machine too fast)"
echo "ok ($hits runs killed during the export)"
