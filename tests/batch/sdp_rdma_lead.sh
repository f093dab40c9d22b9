#!/bin/sh
# An SDP that reads its input from memory starts reading at SDP_RDMA's own
# op enable (issue 38; nv_full's RTL, tests/calibration/rtl_nv_full.tsv): the
# calibration traces of an 8x8x32 int16 ReLU enable SDP_RDMA at the same
# cycle and SDP 0 or 1 CSB read later, and the layer ends at the same cycle
# in both; with 5 reads between the enables the RDMA's lead is used up and
# the layer ends a fixed time after SDP's enable, as with 12.  The traces in
# tests/calibration/traces are the ones make_traces.py writes.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
traces=$top/tests/calibration/traces
in_scratch_dir

# layer_times CASE: "START END" of the trace's one hardware layer
layer_times() {
    run_exit 0 "$1" --batch -q --config nv_full -ex run -ex "info layers" \
        "$traces/sdp_relu_int16_8x8x32_$1"
    printf '%s\n' "$out" | awk '$1 == "0" && $2 == "SDP" && $4 == "done" { print $5, $6 }'
}

r0=$(layer_times reads0)
r1=$(layer_times reads1)
r5=$(layer_times reads5)
r12=$(layer_times reads12)
[ -n "$r0" ] && [ -n "$r1" ] && [ -n "$r5" ] && [ -n "$r12" ] ||
    fail "no finished SDP layer: '$r0' '$r1' '$r5' '$r12'"
# the later SDP enable launches later but ends at the same cycle
[ "${r0% *}" -lt "${r1% *}" ] || fail "reads1 launched no later than reads0: $r0 / $r1"
[ "${r0#* }" = "${r1#* }" ] || fail "SDP's later enable moved the end: $r0 / $r1"
# past the lead: launch to end the same for 5 and 12 reads, and shorter
# than with the enables back to back
long5=$((${r5#* } - ${r5% *}))
long12=$((${r12#* } - ${r12% *}))
short=$((${r0#* } - ${r0% *}))
[ "$long5" = "$long12" ] || fail "beyond the RDMA's lead: $long5 with 5 reads, $long12 with 12"
[ "$long5" -lt "$short" ] || fail "the RDMA's lead did not shorten the layer: $long5 vs $short"

# the kept traces are make_traces.py's
if command -v python3 >/dev/null 2>&1; then
    python3 "$top/tests/calibration/make_traces.py" gen >/dev/null
    for d in "$traces"/*/; do
        n=$(basename "$d")
        cmp -s "$d/input.txn" "gen/$n/input.txn" ||
            fail "tests/calibration/traces/$n differs from make_traces.py's"
    done
fi
echo "ok"
