#!/bin/sh
# Plugins that add views (the aie and sophon commands of plugin ABI 1):
#   - both are listed by "plugins" with their commands, and "help" shows them;
#   - every DMA stream of the sample networks, derived from the registers as
#     AIE-ML tiling parameters, generates the addresses the model accessed:
#     "aie streams" says so, and an independent walk (python3) of the
#     exported tiling parameters equals the "dma" decoder's transfers;
#   - "aie tiling" prints the seed's sequences and names the member that
#     breaks the 32-bit alignment rule (exit 2 in batch);
#   - "sophon" reproduces the seed's worked examples and places a layer's cube;
#   - NVIDIA's traces, when ../shared/testdata is there, match as well.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

run_exit 0 "plugins" --batch -q -ex plugins -ex "help aie" -ex "help sophon" sample:sdp
expect_grep "$out" "^aie  *each layer's DMA streams as AMD AIE-ML tiling parameters"
expect_grep "$out" "^sophon  *every element of each layer's input and output cube"
expect_grep "$out" '^         commands: aie ("help NAME")$'
expect_grep "$out" '^         commands: sophon ("help NAME")$'
expect_grep "$out" "^usage: aie tiling BUFFER_DIM TILING_DIM OFFSET"
expect_grep "$out" "^usage: sophon layout|matrix|vector|kernel|layer"

# --- every stream of every sample matches the model's transfers
for s in bdma conv sdp pdp cdp rubik lenet; do
    run_exit 0 "aie streams on $s" --batch -q -ex run -ex "aie streams" \
        -ex "export csv aie_$s.csv --decoder aie" -ex "export csv dma_$s.csv --decoder dma" \
        "sample:$s"
    expect_grep "$out" "^\([0-9]*\) streams\{0,1\}: \1 match the model's transfers, 0 do not, 0 not checked"
    if grep -q "mismatch\|not derived" "aie_$s.csv"; then
        fail "aie_$s.csv: $(grep 'mismatch\|not derived' "aie_$s.csv")"
    fi
done
# lenet's first layer, exactly
run_exit 0 "aie streams 0" --batch -q -ex run -ex "aie streams 0" sample:lenet
expect_line "$out" "layer 0 (CONV) cdma.dat read, input cube 12x12x1 int8:"
expect_line "$out" "  0x80005000 buffer_dimension {384,12}, tiling_dimension {384,12}, offset {0,0}, tile_traversal {}, type int8; 4608 elements, 1 buffer descriptor"
expect_line "$out" "  model: 1 transfer, 4608 bytes: match"

# The same check, independently: walk the exported tiling parameters in
# python and compare with the transfers the "dma" decoder exported.
if command -v python3 >/dev/null 2>&1; then
    cat >walk.py <<'EOF'
import csv, itertools, sys

def nums(text):
    return [int(x) for x in text.replace("{", " ").replace("}", " ").replace(",", " ").split()]

def addresses(row):
    """Element addresses, dimension 0 fastest, traversal loop 0 innermost."""
    buf, tile, off = nums(row["buffer_dimension"]), nums(row["tiling_dimension"]), nums(row["offset"])
    t = nums(row["tile_traversal"])
    loops = [t[i:i + 3] for i in range(0, len(t), 3)]
    unit = [1]
    for b in buf[:-1]:
        unit.append(unit[-1] * b)
    for ks in itertools.product(*[range(w) for _, _, w in reversed(loops)]):
        origin = list(off)
        for (dim, stride, _), k in zip(reversed(loops), ks):
            origin[dim] += stride * k
        for idx in itertools.product(*[range(n) for n in reversed(tile)]):
            pos = [o + i for o, i in zip(origin, reversed(idx))]
            assert all(0 <= p < b for p, b in zip(pos, buf)), "padding"
            yield sum(p * u for p, u in zip(pos, unit))

size = {"int8": 1, "int16": 2, "fp16": 2}
streams = {}
for row in csv.DictReader(open(sys.argv[1], newline="")):
    if not row["type"]:
        continue
    key = (row["layer"], row["client"], row["direction"])
    runs = streams.setdefault(key, [])
    e, base = size[row["type"]], int(row["base"], 16)
    for a in addresses(row):
        byte = base + a * e
        if runs and runs[-1][0] + runs[-1][1] == byte:
            runs[-1][1] += e
        else:
            runs.append([byte, e])
model = {}
for row in csv.DictReader(open(sys.argv[2], newline="")):
    key = (row["layer"], row["client"], row["direction"])
    model.setdefault(key, []).append([int(row["address"], 16), int(row["bytes"])])
checked = 0
for key, runs in streams.items():
    if runs != model.get(key, []):
        sys.exit("%s: tiling gives %s..., the model %s..." % (key, runs[:3], model.get(key, [])[:3]))
    checked += 1
print("checked", checked, "streams")
EOF
    for s in bdma conv sdp pdp cdp rubik lenet; do
        res=$(python3 walk.py "aie_$s.csv" "dma_$s.csv") || fail "independent walk of $s: $res"
        case $res in "checked 0 streams") fail "$s: no stream checked" ;; esac
    done
fi

# --- aie tiling: the sequence, overlap, padding, the alignment rule
run_exit 0 "aie tiling" --batch -q -ex "aie tiling {6} {3} {-2} {0,2,3}" \
    -ex "aie tiling 4,4 2,2 0,0 0:2:2 1:2:2 type int16" -ex "aie tiling {8} {4} {0} boundary {6}"
expect_line "$out" "tile 0 at (-2): pad pad 0"
expect_line "$out" "tile 1 at (0): 0 1 2"
expect_line "$out" "tile 2 at (2): 2 3 4"
expect_line "$out" "3 tiles, 9 elements: 7 from the buffer, 2 zero padding; tiles overlap"
expect_grep "$out" "^note: dimension 0 pads 2 before and 0 after"
expect_line "$out" "tile 1 at (2,0): 2 3 | 6 7"
expect_line "$out" "tile 3 at (2,2): 10 11 | 14 15"
expect_line "$out" "tile 0 at (0): 0 1 2 3"
# a buffer too large for the overlap bitmap says so instead of "no overlap"
# (tiles 1 and 2 here are the same tile)
run_exit 0 "aie tiling, huge buffer" --batch -q \
    -ex "aie tiling {65536,65536} {2,2} {0,0} {0,2,2} {0,2,2}"
expect_line "$out" "overlap not checked: the buffer holds 4294967296 elements (2^27 at most)"
printf '%s\n' "$out" | grep -q "tiles overlap" && fail "an unchecked overlap reported"
# a matrix of no rows or of more than 32-bit sizes is named as such (2^64-1
# columns wrapped to an empty tensor: "every dimension must be at least 1")
run_exit 2 "sophon matrix of no rows" --batch -q -ex "sophon matrix 0 5 w 2"
expect_grep "$out" "sophon: matrix of 0x5: rows and columns must be 1 to 4294967295"
run_exit 2 "sophon vector too long" --batch -q -ex "sophon vector 18446744073709551615 w 3"
expect_grep "$out" "sophon: vector of 1x18446744073709551615: rows and columns must be 1 to 4294967295"
run_exit 2 "alignment" --batch -q -ex "aie tiling {8,4} {4,2} {1,0} type int8"
expect_grep "$out" "aie: offset\[0\] = 1 is not a multiple of 4: all generated addresses are 32-bit aligned and 8-bit data are accessed as fours"
run_exit 2 "bad traversal" --batch -q -ex "aie tiling {8} {4} {0} {0,4}"
expect_grep "$out" "aie: tile_traversal\[0\] \"{0,4}\": expected {dimension,stride,wrap}"

# --- sophon: the seed's examples (4 NPUs as in its figures), a layer's cube
run_exit 0 "sophon" --batch -q -ex "sophon layout 2,3,4,5 dtype fp16 npus 4" \
    -ex "sophon layout 2,3,4,5 dtype fp16 npus 4 npu 2" \
    -ex "sophon layout 2,3,4,5 dtype fp16 npus 4 compact npu 2" \
    -ex "sophon layout 4,3,2,2 strides 24,8,4,2" -ex "sophon matrix 2 40 w 6 npus 4" \
    -ex "sophon kernel 70,2,3,3"
expect_grep "$out" "^  strides (elements): N 32, C 32, H 5, W 1; 1 channel per NPU; 104 bytes per lane"
expect_grep "$out" "^  strides (elements): N 64, C 32, H 5, W 1; 2 channels per NPU"
expect_line "$out" "  NPU  0 | -                 | n0c2 @0x40 b0     | -                 | n1c2 @0xc0 b0     |"
expect_grep "$out" "^  strides (elements): N 40, C 20, H 5, W 1; 2 channels per NPU"
expect_grep "$out" "^  strides (elements): N 24, C 8, H 4, W 2; 1 channel per NPU"
expect_line "$out" "matrix 2x40 with w = 6 as (2,7,1,6) fp16, 64-byte aligned (tpu_aligned_stride), from NPU 0 of 4:"
expect_line "$out" "  NPU  3 | n0c3 @0x0 b0      | -                 | n1c3 @0x80 b0     | -                 |"
expect_grep "$out" "^  strides (elements): N 1152, C 1152, H 192, W 64"
run_exit 0 "sophon layer" --batch -q -ex run -ex "sophon layer 4 output elements limit 2" \
    -ex "export csv sophon.csv --decoder sophon" sample:lenet
expect_line "$out" "layer 4 (PDP) output cube (1,8,4,4) int8, 64-byte aligned (tpu_aligned_stride), from NPU 0 of 64:"
expect_line "$out" "  n0c0h0w1: NPU 0 bank 0 offset 0x1 address 0x1"
grep -q '^"4","PDP","output","0","7","3","3","int8","7","0","0xf","0x1c000f"' sophon.csv ||
    fail "sophon.csv has no row for layer 4's last output element"
run_exit 2 "sophon layer of BDMA" --batch -q -ex run -ex "sophon layer 0" sample:bdma
expect_grep "$out" "sophon: layer 0: a BDMA layer moves bytes, not a tensor cube"

# --- NVIDIA's traces and loadables
data=${NVDLA_TESTDATA:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/testdata}
[ -d "$data" ] || { echo "NVIDIA test data not found at $data: traces not checked"; exit 0; }
n=0
for t in "$data"/traces_v2/nv_small/pdp_16x6x16_4x2_split_max_int8_0 \
    "$data"/traces_v2/nv_small/cdp_33x17x34_lrn5_int8_0 \
    "$data"/traces_v2/nv_small/dc_6x8x192_3x3x192x32_int8_0 "$data"/traces/sanity3 \
    "$data"/loadables/RBK_L0_0/RBK_L0_0.nvdla "$data"/loadables/SDP_X1_L0_0/SDP_X1_L0_0.nvdla; do
    [ -e "$t" ] || continue
    run_exit 0 "aie streams on $t" --batch -q -ex run -ex "aie streams" "$t"
    expect_grep "$out" "^\([0-9]*\) streams\{0,1\}: \1 match the model's transfers, 0 do not, 0 not checked"
    n=$((n + 1))
done
# PDP's width splits: the middle split re-reads the first split's columns
# (kernel 4, stride 2): parts whose tiles overlap
t="$data"/traces_v2/nv_small/pdp_16x6x16_4x2_split_max_int8_0
if [ -e "$t" ]; then
    run_exit 0 "PDP splits" --batch -q -ex run -ex "aie streams" "$t"
    expect_grep "$out" "^  part 0x80808e00 buffer_dimension {12464}, tiling_dimension {16}, offset {0},"
    expect_grep "$out" "^  part 0x80808e00 buffer_dimension {12560}, tiling_dimension {112}, offset {0},"
    expect_grep "$out" "^  part 0x80808e00 buffer_dimension {12576}, tiling_dimension {32}, offset {96},"
    expect_line "$out" "  3 parts, 3 buffer descriptors in all"
fi
echo "checked the streams of $n NVIDIA traces and loadables"
