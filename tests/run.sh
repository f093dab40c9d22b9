#!/bin/sh
# Runs every test suite of one build: cmocka unit tests (build/tests/test_*),
# batch-mode integration tests (tests/batch/*.sh) and TUI tests
# (tests/tui/*.sh, driven through tmux).  A script exits 0 to pass, 77 to skip.
# Environment: BUILD (build folder), SAN (1 for the sanitizer build).
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
DLADBG="$top/$BUILD/dladbg"
export DLADBG BUILD
export DLADBG_PLUGIN_PATH="$top/$BUILD/plugins"
# The Python that tests check .npy files with: the first with NumPy (Debian's
# python3-numpy is /usr/bin/python3's); tests that need it skip when empty.
DLADBG_PYTHON=""
for py in /usr/bin/python3 python3; do
    if "$py" -c 'import numpy' >/dev/null 2>&1; then DLADBG_PYTHON=$py; break; fi
done
export DLADBG_PYTHON
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
label=$([ "${SAN:-}" = 1 ] && echo "asan+ubsan" || echo "plain")
pass=0 fail=0 skip=0 failed=""
out="$top/$BUILD/test-logs"
mkdir -p "$out"

run_one() { # name command...
    name=$1; shift
    log="$out/$(echo "$name" | tr '/' '_').log"
    if (cd "$top" && "$@") >"$log" 2>&1; then
        pass=$((pass + 1)); echo "  PASS  $name"
    else
        rc=$?
        if [ $rc -eq 77 ]; then
            skip=$((skip + 1)); echo "  SKIP  $name ($(tail -n 1 "$log"))"
        else
            fail=$((fail + 1)); failed="$failed $name"
            echo "  FAIL  $name (exit $rc, log $log)"; tail -n 15 "$log" | sed 's/^/        /'
        fi
    fi
}

echo "== $label: unit tests"
for t in "$top/$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    run_one "unit/$(basename "$t")" "$t"
done
echo "== $label: batch tests"
for t in "$top"/tests/batch/*.sh; do
    [ -f "$t" ] || continue
    run_one "batch/$(basename "$t" .sh)" sh "$t"
done
echo "== $label: fuzz seeds and regression inputs (tests/fuzz, plain driver)"
for t in "$top/$BUILD"/tests/fuzz/replay_*; do
    [ -x "$t" ] || continue
    name=${t##*/replay_}
    run_one "fuzz/$name" "$t" "$top/tests/fuzz/corpus/$name" "$top/tests/fuzz/regress/$name"
done
echo "== $label: tui tests"
for t in "$top"/tests/tui/*.sh; do
    [ -f "$t" ] || continue
    run_one "tui/$(basename "$t" .sh)" sh "$t"
done
echo "$label: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || { echo "failed:$failed"; exit 1; }
