#!/bin/sh
# Exports survive being killed and power losses (issue 36 item 11): a file
# is written unnamed (O_TMPFILE) and linked into place, so kill -9 at any
# point leaves the old file or the new one and no temporary; its bytes are
# fsynced before it takes the name; a trace folder changes places with the
# old one in one exchange (a kill leaves the old folder, never none); a
# symbolic link to a folder is followed as a link to a file is; a folder
# entry with one of the export's names that is no regular file makes the
# folder the user's; a full disk says why.  The kills are strace's fault
# injection at the exact system call: no timing.
set -eu
. "$(dirname "$0")/lib.inc"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
lenet() { # ARGS...: sample:lenet run, then the commands given
    run_dladbg --batch -q -ex continue "$@" sample:lenet
}
no_temporaries() { # WHAT
    set -- ./*.tmp* ./*.old* ./*.dladbg-* ./*/*.tmp*
    for f in "$@"; do
        [ -e "$f" ] && fail "temporaries left behind: $f"
    done
    return 0
}

# a symbolic link to a folder: the folder it leads to is written (twice:
# the second replaces the first), the link stays a link
mkdir real
ln -s real link
lenet -ex 'export txn link' >/dev/null
lenet -ex 'export txn link' >/dev/null
[ -L link ] || fail "the link to the folder was replaced"
[ -f real/input.txn ] || fail "the linked folder holds no trace"
no_temporaries

# an entry with the export's name that is a folder (a user's notes in it):
# refused, the notes stay, nothing is moved aside
mkdir -p t1/input.txn
echo mine >t1/input.txn/notes.md
run_exit 2 "a folder named input.txn" --batch -q -ex continue -ex 'export txn t1' sample:lenet
expect_grep "$out" "the folder holds input.txn, which an export did not write"
[ "$(cat t1/input.txn/notes.md)" = mine ] || fail "the user's notes were touched"
no_temporaries

# a full disk: the reason, not just "write failed" (through a link, so a
# regression replaces the link, never /dev/full)
if [ -c /dev/full ] && [ -w /dev/full ]; then
    ln -s /dev/full full
    run_exit 2 "dump memory to a full disk" --batch -q -ex continue \
        -ex 'dump memory full 0x80000000 +0x28' sample:lenet
    expect_grep "$out" "full: write failed: No space left on device"
fi

# without /proc an unnamed file could not be linked: a named temporary then
# (checked where a private mount namespace can hide /proc: root, unshare;
# not under ASan, which cannot start without /proc)
if [ "${SAN:-}" != 1 ] && command -v unshare >/dev/null 2>&1 &&
    unshare --mount --fork sh -c 'mount -t tmpfs none /proc' 2>/dev/null; then
    unshare --mount --fork sh -c 'mount -t tmpfs none /proc &&
        "$0" --batch -q -ex "dump memory noproc.bin 0x80001000 +0x100" sample:lenet' "$DLADBG" \
        >/dev/null 2>&1 || fail "a file export without /proc failed"
    [ "$(wc -c <noproc.bin)" = 256 ] || fail "the export without /proc wrote no file"
    no_temporaries
fi

command -v strace >/dev/null 2>&1 || {
    echo "strace not installed: the kill and fsync checks skipped"
    exit 0
}
strace -f -o /dev/null -e inject=linkat:error=EPERM:when=999 true 2>/dev/null || {
    echo "strace cannot inject faults here: the kill and fsync checks skipped"
    exit 0
}
# LeakSanitizer cannot run under ptrace: off for the traced runs of SAN=1
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
export ASAN_OPTIONS
killed_at() { # SYSCALL COMMAND...: dladbg killed by SIGKILL as it makes its first SYSCALL
    call=$1
    shift
    rc=0
    strace -f -o /dev/null -e trace="$call" -e inject="$call":signal=KILL:when=1 \
        "$DLADBG" --batch -q -ex continue "$@" sample:lenet >/dev/null 2>&1 || rc=$?
    [ $rc -eq 137 ] # strace ends as its tracee did: 128 + SIGKILL
}

# a new file, killed just before it is linked: no file and no temporary
killed_at linkat -ex 'export csv new.csv --decoder layers' || fail "the export was not killed"
[ -e new.csv ] && fail "a killed export left new.csv"
no_temporaries

# a file replaced, killed just before the link: the old file, whole
echo old >old.csv
killed_at linkat -ex 'export csv old.csv --decoder layers' || fail "the export was not killed"
[ "$(cat old.csv)" = old ] || fail "a killed export changed old.csv"
no_temporaries

# the bytes reach the disk before the name: fsync of the file comes before
# its link and rename
strace -f -o trace.log -e trace=fsync,linkat,rename \
    "$DLADBG" --batch -q -ex continue -ex 'export csv old.csv --decoder layers' sample:lenet \
    >/dev/null 2>&1
first=$(grep -E 'fsync|linkat|rename' trace.log | head -n 1)
case $first in *fsync*) ;; *) fail "the first of fsync, link, rename was: $first" ;; esac
grep -q '^layer\|,' old.csv || fail "the export did not replace old.csv"
rm trace.log

# a trace folder replaced, killed at the exchange: the old folder is there,
# whole (it used to be renamed aside first: a kill then left none)
lenet -ex 'export txn tx' >/dev/null
n=$(ls tx | wc -l)
echo marker >>tx/input.txn
killed_at renameat2 -ex 'export txn tx' || fail "the folder export was not killed"
[ -d tx ] && [ "$(ls tx | wc -l)" = "$n" ] || fail "a killed folder export left no whole folder"
tail -n 1 tx/input.txn | grep -q marker || fail "the old folder is not the old one"

# kill -9 while a folder is being written (at its first file's link): its
# temporary stays, named with the dead process's id; the next folder export
# into the same parent removes it, and the one at the exchange above
set -- ./tx.dladbg-tmp-*
[ -d "$1" ] || fail "the kill at the exchange left no temporary: the test tells nothing"
killed_at linkat -ex 'export txn t2' || fail "the folder export was not killed"
set -- ./t2.dladbg-tmp-*
[ -d "$1" ] || fail "the killed export left no temporary folder: the test tells nothing"
[ -e t2 ] && fail "a killed export left t2"
# what is not a dead export's is kept: a live process's temporary, one that
# holds a folder, a name that only looks like one
dead=$(sh -c 'echo $$')
mkdir "live.dladbg-tmp-$$-abcdef" "dead.dladbg-tmp-$dead-abcdef" "dead.dladbg-tmp-$dead-abcdef/sub" \
    "mine.dladbg-tmp-$dead-notes"
lenet -ex 'export txn other' >/dev/null
[ -f other/input.txn ] || fail "the export after the kills failed"
for f in "live.dladbg-tmp-$$-abcdef" "dead.dladbg-tmp-$dead-abcdef/sub" "mine.dladbg-tmp-$dead-notes"; do
    [ -d "$f" ] || fail "$f was removed"
    rm -r "${f%/sub}"
done
no_temporaries
echo ok
