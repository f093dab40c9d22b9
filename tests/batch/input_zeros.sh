#!/bin/sh
# A loadable compiled from a model carries no input data (NVIDIA's sanity
# tests embed theirs, and nvdla_runtime without --image runs on it): run
# without --image or --input, its input is zeros and every answer the same,
# which the run says as it starts, naming the tensor; a loadable carrying its
# input (the samples) or an input given says nothing of the kind.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
in_scratch_dir

run_exit 0 "a sample carries its input" --batch -q -ex run sample:lenet
printf '%s\n' "$out" | grep -q 'holds zeros' && fail "sample:lenet: $out"

data=${NVDLA_TESTDATA:-$top/../shared/testdata}
net=$data/networks/lenet-mnist
if [ -f "$net/fast-math.nvdla" ]; then
    run_exit 0 "no --image" --batch -q -ex run -ex run "$net/fast-math.nvdla"
    expect_line "$out" 'fast-math.nvdla: the input tensor "data" (1x1x28x28) holds zeros: the loadable carries no input data and neither --image nor --input gave any'
    [ "$(printf '%s\n' "$out" | grep -c 'holds zeros')" = 2 ] || fail "not once a run: $out"
    img=$(ls "$net"/images/*.jpg | head -n 1)
    run_exit 0 "--image" --batch -q --image "$img" -ex run "$net/fast-math.nvdla"
    printf '%s\n' "$out" | grep -q 'holds zeros' && fail "with --image: $out"
else
    echo "LeNet checks skipped: no $net"
fi
echo ok
