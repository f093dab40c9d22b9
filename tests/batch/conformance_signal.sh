#!/bin/sh
# tests/conformance.sh stopped by a signal (a time limit's SIGTERM) ends there:
# exit 143, one line on stderr with the counts so far, its scratch folder
# removed.  It used to clean up in the signal's trap and go on without the
# folder, every later case a bogus "FAIL ... Directory nonexistent".  Needs
# nothing from ../shared: a data folder of four copies of our own trace, run
# through a DLADBG that takes a second a case.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
in_scratch_dir

mkdir -p data/traces scratch
for i in 1 2 3 4; do cp -r "$top/traces/bdma_copy" "data/traces/copy$i"; done
cat >slow <<SLOW
#!/bin/sh
sleep 1
exec "$DLADBG" "\$@"
SLOW
chmod +x slow

TMPDIR=$tmp/scratch NVDLA_TESTDATA=$tmp/data DLADBG=$tmp/slow sh "$top/tests/conformance.sh" \
    >stdout 2>stderr &
pid=$!
# the first case done: the run is under way
i=0
until grep -q 'copy1' stdout 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 200 ] || fail "conformance.sh ran no case in 20 s"
    sleep 0.1
done
kill -TERM $pid
status=0
wait $pid || status=$?
[ "$status" -eq 143 ] || fail "exit $status after SIGTERM, expected 143: $(cat stdout stderr)"
grep -q '^conformance: stopped by SIGTERM after [0-9]* passed, 0 failed, 0 skipped; the cases from here on did not run$' stderr ||
    fail "no stop line on stderr: $(cat stderr)"
if grep -q 'nonexistent\|^FAIL' stdout stderr; then fail "went on without its folder: $(cat stdout stderr)"; fi
if grep -q 'copy4' stdout; then fail "ran to the end after SIGTERM: $(cat stdout)"; fi
[ -z "$(ls scratch)" ] || fail "scratch folder left: $(ls scratch)"
echo ok
