#!/bin/sh
# Tensors seen, saved and fed back as NumPy .npy files:
#   - the LeNet sample's 10 probabilities printed whole, a layer's output saved
#     (int8, and float32 real values) and checked with numpy.load (dtype, shape,
#     values against what "tensor" printed) when a Python with NumPy is at
#     hand ($DLADBG_PYTHON, tests/run.sh), else that part skips;
#   - the input saved after --image and given back with --input FILE.npy runs
#     to the same output; wrong dtype, shape or a malformed file exit 2 naming
#     the file, what it holds and the input tensor, before anything runs;
#   - with NVIDIA's networks (../shared/testdata, else skipped): the int8
#     LeNet's last layer is the VP's logits (vp_logits.txt) after --image, after
#     --input of the saved input, and after --input of the reference's float
#     data.npy with --input-scale (its calibration scale) or quantized by NumPy;
#     the fp16 LeNet's input given as the image's pixel values in float32.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir
DATA=${NVDLA_TESTDATA:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/testdata}
PY=${DLADBG_PYTHON:-}

# ---------------------------------------------------------------- the sample
run_exit 0 "probabilities" --batch -q -ex run -ex "tensor probabilities" \
    -ex "tensor layer 4 c=0 h=0" -ex "tensor layer 4 save pool.npy" \
    -ex "tensor layer 4 save poolf.npy float scale=0.25" -ex "tensor image save image.npy" \
    sample:lenet
expect_grep "$out" "^tensor probabilities dram 0x[0-9a-f]*: N=1 C=10 H=1 W=1 int8"
# all ten values on one line, nothing left out
logits=$(printf '%s\n' "$out" | grep '^  c=0 ' | sed 's/^  c=0 *//')
[ "$(printf '%s\n' "$logits" | wc -w)" -eq 10 ] || fail "expected 10 probabilities: $logits"
printf '%s\n' "$out" | grep -q "more" && fail "tensor probabilities left something out"
expect_grep "$out" "Wrote 1x8x4x4 int8 (NCHW) to pool.npy."
expect_grep "$out" "Wrote 1x8x4x4 float32 (NCHW, raw x scale) to poolf.npy."
row=$(printf '%s\n' "$out" | grep '^  h=0 ' | head -n 1 | sed 's/^  h=0 *//')

if [ -n "$PY" ]; then
    "$PY" - "$row" <<'EOF' || fail "numpy.load of the saved tensors"
import sys
import numpy as np
a = np.load("pool.npy")
assert a.dtype == np.int8 and a.shape == (1, 8, 4, 4), (a.dtype, a.shape)
row = [int(v) for v in sys.argv[1].split()]
assert list(a[0, 0, 0]) == row, (list(a[0, 0, 0]), row)
f = np.load("poolf.npy")
assert f.dtype == np.float32 and f.shape == (1, 8, 4, 4), (f.dtype, f.shape)
assert (f == a.astype(np.float32) * 0.25).all()
i = np.load("image.npy")
assert i.dtype == np.int8 and i.shape == (1, 1, 12, 12)
np.save("image_chw.npy", i[0])
np.save("image_f32.npy", i.astype(np.float32) * 0.5)
np.save("image_i16.npy", i.astype(np.int16))
np.save("image_t.npy", np.ascontiguousarray(i[:, :, :, :11]))
EOF
else
    echo "numpy checks skipped: no Python with NumPy (DLADBG_PYTHON)"
fi

# the saved input fed back runs to the same probabilities
run_exit 0 "--input image.npy" --batch -q --input image.npy -ex run -ex "tensor probabilities" \
    sample:lenet
expect_line "$out" "  c=0   $(printf ' %7s' $logits)"
if [ -n "$PY" ]; then
    run_exit 0 "--input (C,H,W)" --batch -q --input image_chw.npy -ex run \
        -ex "tensor probabilities" sample:lenet
    expect_line "$out" "  c=0   $(printf ' %7s' $logits)"
    run_exit 0 "--input float32 with --input-scale" --batch -q --input image_f32.npy \
        --input-scale 0.5 -ex run -ex "tensor probabilities" sample:lenet
    expect_line "$out" "  c=0   $(printf ' %7s' $logits)"
    run_exit 2 "--input float32 without a scale" --batch -q --input image_f32.npy -ex run sample:lenet
    expect_grep "$out" "image_f32.npy: holds float32 (1, 1, 12, 12); the input tensor is 1x1x12x12 int8 (NCHW): expected int8 values, or real values with --input-scale S"
    run_exit 2 "--input int16" --batch -q --input image_i16.npy sample:lenet
    expect_grep "$out" "image_i16.npy: holds int16 (1, 1, 12, 12); the input tensor is 1x1x12x12 int8 (NCHW): expected int8"
    run_exit 2 "--input of another shape" --batch -q --input image_t.npy sample:lenet
    expect_grep "$out" "image_t.npy: holds int8 (1, 1, 12, 11); the input tensor is 1x1x12x12 int8 (NCHW): expected shape (1, 1, 12, 12) or (1, 12, 12)"
fi
# a malformed .npy: the magic, then nonsense
printf '\223NUMPY\001\000\020\000{nonsense}    \n' >bad.npy
run_exit 2 "a malformed .npy" --batch -q --input bad.npy -ex run sample:lenet
expect_grep "$out" "bad.npy: "
printf '%s\n' "$out" | grep -q "tasks run (1 DLA" && fail "a malformed input ran"
run_exit 2 "--input-scale without --input" --batch -q --input-scale 0.5 sample:lenet
expect_grep "$out" "input-scale quantizes the real values of an --input .npy"
run_exit 2 "--input-scale 0" --batch -q --input image.npy --input-scale 0 sample:lenet
expect_grep "$out" "input-scale: expected a number > 0"

# ---------------------------------------------------------------- NVIDIA's networks
net=$DATA/networks/lenet-mnist
if [ ! -f "$net/fast-math.nvdla" ] || [ ! -f "$net/vp_logits.txt" ]; then
    echo "LeNet checks skipped: no $net"
    exit 0
fi
vp=$(grep '^125_5.jpg:' "$net/vp_logits.txt" | sed 's/^125_5.jpg: *//')
want="  c=0   $(printf ' %7s' $vp)"
run_exit 0 "LeNet --image" --batch -q --config nv_small --image "$net/images/125_5.jpg" -ex run \
    -ex 'tensor layer $layers-1' -ex "tensor data save data_i8.npy" "$net/fast-math.nvdla"
expect_line "$out" "$want"
run_exit 0 "LeNet --input of the saved input" --batch -q --config nv_small --input data_i8.npy \
    -ex run -ex 'tensor layer $layers-1' "$net/fast-math.nvdla"
expect_line "$out" "$want"
ref=$net/reference/125_5
if [ -n "$PY" ] && [ -f "$ref/data.npy" ] && [ -f "$ref/calib.json" ]; then
    scale=$("$PY" -c 'import json, sys; print(repr(json.load(open(sys.argv[1]))["data"]["scale"]))' \
        "$ref/calib.json")
    run_exit 0 "LeNet --input data.npy --input-scale" --batch -q --config nv_small \
        --input "$ref/data.npy" --input-scale "$scale" -ex run -ex 'tensor layer $layers-1' \
        "$net/fast-math.nvdla"
    expect_line "$out" "$want"
    "$PY" - "$ref/data.npy" "$scale" <<'EOF' || fail "quantizing data.npy"
import sys
import numpy as np
d = np.load(sys.argv[1])
q = np.round(d / float(sys.argv[2])).astype(np.int8)
assert (q == np.load("data_i8.npy")).all(), "data.npy / scale is not the runtime's input"
np.save("data_q.npy", q)
EOF
    run_exit 0 "LeNet --input quantized data.npy" --batch -q --config nv_small \
        --input data_q.npy -ex run -ex 'tensor layer $layers-1' "$net/fast-math.nvdla"
    expect_line "$out" "$want"
    run_exit 2 "LeNet --input data.npy without a scale" --batch -q --config nv_small \
        --input "$ref/data.npy" "$net/fast-math.nvdla"
    expect_grep "$out" "data.npy: holds float32 (1, 1, 28, 28); the input tensor is 1x1x28x28 int8 (NCHW)"
fi
# real values with the scales a comparison knows: the one applied to a layer, the table's entry
if [ -f "$ref/calib.json" ] && [ -f "$ref/order.txt" ]; then
    run_exit 0 "LeNet real values from compare" --batch -q --config nv_small \
        --image "$net/images/125_5.jpg" -ex "compare $ref" -ex run -ex 'tensor layer $layers-1 real' \
        -ex "tensor data real stats" "$net/fast-math.nvdla"
    expect_grep "$out" "^tensor layer 9 output .*, scale [0-9.]* (the comparison's, blob ip2)$"
    expect_grep "$out" "^tensor data .*, scale [0-9.]* (calibration table, data)$"
    expect_grep "$out" "^784 elements (real values: raw x scale)$"
fi

# fp16: the runtime feeds the pixel values themselves; as float32 they round to the same halves
fp=$DATA/networks/lenet-gem5-fp16
if [ -n "$PY" ] && [ -f "$fp/lenet_fast-math.nvdla" ] && [ -f "$fp/eight_invert.pgm" ]; then
    run_exit 0 "fp16 LeNet --image" --batch -q --image "$fp/eight_invert.pgm" -ex run \
        -ex "tensor data save fp_in.npy" -ex 'tensor layer $layers-1' "$fp/lenet_fast-math.nvdla"
    logits16=$(printf '%s\n' "$out" | grep '^  c=0 ')
    [ -n "$logits16" ] || fail "no fp16 logits"
    "$PY" -c 'import numpy as np; a = np.load("fp_in.npy"); assert a.dtype == np.float16; np.save("fp_f32.npy", a.astype(np.float32))' ||
        fail "fp16 input"
    run_exit 0 "fp16 LeNet --input float32" --batch -q --input fp_f32.npy -ex run \
        -ex 'tensor layer $layers-1' "$fp/lenet_fast-math.nvdla"
    expect_line "$out" "$logits16"
fi
