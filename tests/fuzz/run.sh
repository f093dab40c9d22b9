#!/bin/sh
# make fuzz: each harness NAME for FUZZ_SECONDS, one at a time and niced (the
# machine may be shared), on three corpora: the working corpus
# $BUILD/fuzz-corpus/NAME (kept between runs), the committed seeds
# tests/fuzz/corpus/NAME, and seeds made at run time from the project's
# build (sample loadables) and NVIDIA's data when $NVDLA_TESTDATA exists.
# FUZZ_TIMEOUT (seconds, default 20) is libFuzzer's per-input limit; it is
# wall-clock time, so a long niced run on a busy machine wants more (a
# starved process once took 24 s over a 13 ms input).
# libFuzzer's final statistics of every harness go to
# $BUILD/fuzz-logs/NAME.log and a summary line here.  A crash, leak or
# timeout is copied to tests/fuzz/regress/NAME/ (make check replays it from
# then on) and the script fails.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build/fuzz}
case $BUILD in /*) ;; *) BUILD="$top/$BUILD" ;; esac
SECONDS_EACH=${FUZZ_SECONDS:-60}
DATA=${NVDLA_TESTDATA:-$top/../shared/testdata}
seeds="$BUILD/fuzz-seeds" logs="$BUILD/fuzz-logs" arts="$BUILD/fuzz-artifacts"
mkdir -p "$logs" "$arts"
sh "$top/tests/fuzz/seeds.sh" "$seeds" "$DATA" "$top"

# largest input per harness: a loadable with its blobs, a trace with its data
max_len() {
    case $1 in
    loadable | runtime) echo 131072 ;;
    txn | cfg) echo 65536 ;;
    image) echo 16384 ;;
    *) echo 4096 ;;
    esac
}

failed=""
for name in "$@"; do
    bin="$BUILD/tests/fuzz/fuzz_$name"
    corpus="$BUILD/fuzz-corpus/$name"
    mkdir -p "$corpus" "$seeds/$name"
    rm -f "$arts/$name"-*
    # absolute paths: the cmd harness works in its scratch folder
    nice -n 15 "$bin" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
        -max_len="$(max_len "$name")" -timeout="${FUZZ_TIMEOUT:-20}" -rss_limit_mb=2048 \
        -artifact_prefix="$arts/$name-" "$corpus" "$top/tests/fuzz/corpus/$name" "$seeds/$name" \
        >"$logs/$name.log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$name.log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$logs/$name.log" | tail -n 1)
    units=$(ls "$corpus" | wc -l)
    echo "fuzz $name: exit $rc, ${execs:-?} runs in ${SECONDS_EACH}s, ${cov:-cov ?}, corpus $units"
    if [ $rc -ne 0 ]; then
        failed="$failed $name"
        mkdir -p "$top/tests/fuzz/regress/$name"
        for a in "$arts/$name"-*; do
            [ -f "$a" ] || continue
            cp "$a" "$top/tests/fuzz/regress/$name/"
            echo "  new regression input tests/fuzz/regress/$name/$(basename "$a")"
        done
        grep -m 1 -A 12 'ERROR: \|runtime error\|timeout' "$logs/$name.log" | sed 's/^/  /'
    fi
done
[ -z "$failed" ] || { echo "fuzz: findings in:$failed (log: $logs)"; exit 1; }
