#!/bin/sh
# NVIDIA's virtual-platform whole-network replay (vp_traces/lenet, fp16 LeNet
# on nv_full): every register read and "until" poll matches, and the 64-byte
# DRAM lines the model's DMA read and wrote equal VP_mem_rd / VP_mem_wr ("-"
# or an empty list leaves a direction uncompared).
# Reads NVIDIA's data in place; skips when it is absent.
set -eu
. "$(dirname "$0")/lib.inc"

vp=${NVDLA_TESTDATA:-../shared/testdata}/vp_traces/lenet
if [ ! -f "$vp/input.txn" ]; then
    echo "skip: $vp not found (set NVDLA_TESTDATA)"
    exit 77
fi

run_exit 0 "VP replay" --batch -q -ex run -ex "info dma lines $vp/VP_mem_rd $vp/VP_mem_wr" "$vp"
expect_grep "$out" "lenet: 90 checks passed, 0 failed"
expect_line "$out" "read: model 14764 lines, golden 14764 ($vp/VP_mem_rd)"
expect_line "$out" "written: model 897 lines, golden 897 ($vp/VP_mem_wr)"
expect_line "$out" "  0 only in the model, 0 only in the golden: equal"

# a golden line the model never touched: exit 1, the line named
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{ cat "$vp/VP_mem_wr"; echo 90000000; } >"$tmp/wr"
run_exit 1 "VP replay, extra golden line" --batch -q -ex run \
    -ex "info dma lines $vp/VP_mem_rd $tmp/wr" "$vp"
expect_line "$out" "    only in the golden: 0x90000000-0x9000003f (1 line)"

# "-" compares one direction only; an empty golden list while the model read
# lines is a capture that holds nothing: said, not compared, not a failure
: >"$tmp/empty"
run_exit 0 "VP replay, write lines only" --batch -q -ex run \
    -ex "info dma lines - $vp/VP_mem_wr" "$vp"
expect_line "$out" "read: model 14764 lines, no golden given: not compared"
expect_line "$out" "written: model 897 lines, golden 897 ($vp/VP_mem_wr)"
run_exit 0 "VP replay, empty read list" --batch -q -ex run \
    -ex "info dma lines $tmp/empty $vp/VP_mem_wr" "$vp"
expect_line "$out" "read: model 14764 lines; golden $tmp/empty is empty (was nothing captured?): not compared"
# a wrong write list still fails with an empty read list beside it
run_exit 1 "VP replay, empty read list and extra write line" --batch -q -ex run \
    -ex "info dma lines $tmp/empty $tmp/wr" "$vp"
echo ok
