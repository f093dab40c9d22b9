#!/bin/sh
# --compare on real networks against their Caffe models' float outputs
# (networks/REFERENCE.md of the shared test data; skipped without it): the
# int8 and the fp16 LeNet pass with every layer compared, a reference with
# conv2 corrupted fails naming the layer that writes it, and a run compares
# clean against its own "dump tensors".
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
data=${NVDLA_TESTDATA:-$top/../shared/testdata}
net=$data/networks
[ -f "$net/lenet-mnist/fast-math.nvdla" ] && [ -d "$net/lenet-mnist/reference/125_5" ] &&
    [ -d "$net/lenet-gem5-fp16/reference/eight_invert" ] || exit 77
in_scratch_dir

int8="--image $net/lenet-mnist/images/125_5.jpg $net/lenet-mnist/fast-math.nvdla"
fp16="--image $net/lenet-gem5-fp16/eight_invert.pgm $net/lenet-gem5-fp16/lenet_fast-math.nvdla"

# int8 against float: within a few LSB, conv1 and pool1 saturating
# shellcheck disable=SC2086
run_exit 0 "int8 LeNet" --batch -q --compare "$net/lenet-mnist/reference/125_5" $int8
expect_line "$out" "compare: all 8 compared outputs are within tolerance."
for blob in conv1 pool1 conv2 pool2 ip1 ip2; do
    line=$(printf '%s\n' "$out" | grep -E "^[0-9]+ +(SDP|PDP) +$blob ") || fail "no line for $blob"
    p99=$(printf '%s\n' "$line" | awk '{print $9}')
    awk -v p="$p99" 'BEGIN { exit !(p <= 3) }' || fail "$blob: p99 $p99 LSB, expected a few"
done
expect_grep "$out" "^2 *SDP *conv1 *1x20x24x24 .* ok ([0-9]* saturated)$"

# fp16 against float (the configuration told from the file)
# shellcheck disable=SC2086
run_exit 0 "fp16 LeNet" --batch -q --compare "$net/lenet-gem5-fp16/reference/eight_invert" $fp16
expect_line "$out" "compare: all 8 compared outputs are within tolerance."
expect_grep "$out" "^3 *SDP *conv2 *1x50x8x8 "

# conv2 corrupted: its values rotated by 1000 elements (header 128 bytes)
cp -r "$net/lenet-mnist/reference/125_5" bad
src=$net/lenet-mnist/reference/125_5/conv2.npy
{
    head -c 128 "$src"
    tail -c +4129 "$src"
    head -c 4128 "$src" | tail -c 4000
} >bad/conv2.npy
# shellcheck disable=SC2086
run_exit 1 "corrupted conv2" --batch -q --compare bad $int8
expect_grep "$out" '^error: compare: layer 3 (SDP) departs first from blob "conv2" (bad/conv2.npy): .*first differing element (n,c,h,w) = ([0-9]*,[0-9]*,[0-9]*,[0-9]*): got .*, expected '

# a run against its own dump, and the fp16 one too
# shellcheck disable=SC2086
run_exit 0 "dump" --batch -ex "dump tensors own" $int8
# shellcheck disable=SC2086
run_exit 0 "compare with the dump" --batch -q --compare own $int8
expect_line "$out" "compare: all 8 compared outputs are within tolerance."
# shellcheck disable=SC2086
run_exit 0 "fp16 dump" --batch -ex "dump tensors own16" $fp16
# shellcheck disable=SC2086
run_exit 0 "fp16 compare with the dump" --batch -q --compare own16 $fp16
expect_grep "$out" "^2 *SDP *layer2_sdp *1x20x24x24 *0 *0 *1.00000 *inf .* ok$"
echo ok
