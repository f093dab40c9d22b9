#!/bin/sh
# A whole run's cycles say where they come from: on nv_small and nv_full, where
# whole networks were compared with NVIDIA's RTL (tests/calibration/rtl_networks.tsv),
# "calibrated against RTL"; elsewhere (nv_small_256 here) "estimated".  The batch "Run finished"
# line, "info perf" and "info layers" (and the TUI's perf pane title, the same
# phrase) say so; the figure is the first layer's launch to the last layer's
# interrupt, as the table measures it.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
net=${NVDLA_TESTDATA:-$top/../shared/testdata}/networks/lenet-mnist
[ -f "$net/fast-math.nvdla" ] || { echo "no $net"; exit 77; }
in_scratch_dir

run_exit 0 "LeNet on nv_small" --batch --config nv_small --image "$net/images/125_5.jpg" \
    -ex run -ex 'info perf' -ex 'info layers' "$net/fast-math.nvdla"
expect_grep "$out" "^Run finished: fast-math.nvdla: .*; hardware [0-9]* cycles, first launch to last interrupt (calibrated against RTL)$"
expect_grep "$out" "^whole run: [0-9]* cycles from the first launch to the last interrupt (calibrated against RTL)$"
expect_line "$out" "(cycles from launch to interrupt: CONV, SDP, PDP, CDP calibrated against RTL, whole networks too, the others estimated)"
# the figure: first start to last end of the layers "info layers" lists
span=$(printf '%s\n' "$out" | awk '$2 ~ /^(CONV|SDP|PDP|CDP)$/ && $4 == "done" {
    if (first == "" || $5 < first) first = $5; if ($6 > last) last = $6 } END { print last - first }')
expect_grep "$out" "^whole run: $span cycles"

# nv_full: the fp16 LeNets were measured on nvdlav1's RTL
run_exit 0 "sample:lenet on nv_full" --batch -ex run -ex 'info perf' sample:lenet
expect_grep "$out" "^Run finished: sample:lenet: .*; hardware [0-9]* cycles, first launch to last interrupt (calibrated against RTL)$"
expect_grep "$out" "^whole run: [0-9]* cycles from the first launch to the last interrupt (calibrated against RTL)$"
expect_line "$out" "(cycles: BDMA, CONV, SDP, PDP calibrated against RTL, whole networks too, the others estimated; counters model-derived)"

# nv_small_256: nothing of it was measured on an RTL
lrn=${NVDLA_TESTDATA:-$top/../shared/testdata}/traces_v2/nv_small/cdp_1x1x1_lrn3_int8_0
[ -f "$lrn/cdp_1x1x1_lrn3_int8_0.cfg" ] || { echo "no $lrn"; exit 77; }
run_exit 0 "an LRN on nv_small_256" --batch --config nv_small_256 -ex run -ex 'info perf' \
    "$lrn/cdp_1x1x1_lrn3_int8_0.cfg"
expect_grep "$out" "^Run finished: cdp_1x1x1_lrn3_int8_0: .*; hardware [0-9]* cycles, first launch to last interrupt (estimated)$"
expect_grep "$out" "^whole run: [0-9]* cycles from the first launch to the last interrupt (estimated)$"
expect_line "$out" "(cycles: estimated (nv_small_256 is not calibrated against RTL); counters model-derived)"
echo ok
