#!/bin/sh
# --compare DIR and "dump tensors DIR" on the sample LeNet (no shared data
# needed): a run against its own dump passes, a poked register fails at the
# layer it changes, and every unusable reference exits 2 naming the file and
# what was expected.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

run_exit 0 "dump tensors" --batch -ex "dump tensors ref" sample:lenet
expect_line "$out" 'Wrote 5 tensors and order.txt to ref (a reference for "compare ref").'
expect_line "$(cat ref/order.txt)" "layer2_sdp 1 8 8 8"
[ -f ref/probabilities.npy ] || fail "no CPU output in the dump"

run_exit 0 "compare with its own dump" --batch --compare ref sample:lenet
expect_line "$out" "compare: all 5 compared outputs are within tolerance."
expect_grep "$out" "^2 *SDP *layer2_sdp *1x8x8x8 .* ok$"
expect_grep "$out" "^  layer 4 (PDP) *1x8x4x4 *-> layer4_pdp "

# a register poked before layer 2 launches: that layer departs first (exit 1)
cat >poke.dladbg <<'EOS'
break reg SDP.D_OP_ENABLE
run
reg SDP.D_CVT_SHIFT@0 = 1
delete
continue
EOS
run_exit 1 "poked run" --batch --compare ref -x poke.dladbg sample:lenet
expect_grep "$out" '^error: compare: layer 2 (SDP) departs first from blob "layer2_sdp" (ref/layer2_sdp.npy): 99th percentile error .* LSB > 2; first differing element (n,c,h,w) = (0,0,0,0): got 127, expected '

# break mismatch stops after the departing layer
sed 's/^delete$/delete 2/' poke.dladbg >poke-bm.dladbg
run_exit 1 "break mismatch" --batch --compare ref -ex "break mismatch" -x poke-bm.dladbg \
    -ex "info breakpoints" sample:lenet
expect_grep "$out" '^Breakpoint 1, layer 2 (SDP) departs from "layer2_sdp": 99th percentile error'
expect_grep "$out" "breakpoint  y   1     a layer departing from its reference (compare)"

# unusable references: exit 2, naming the file
copy() { rm -rf bad && cp -r ref bad; }
copy; rm bad/layer3_sdp.npy
run_exit 2 "missing .npy" --batch --compare bad sample:lenet
expect_grep "$out" 'bad/layer3_sdp.npy: no such file; expected the values of blob "layer3_sdp" (order.txt line 4)'
copy; head -c 100 ref/layer3_sdp.npy >bad/layer3_sdp.npy
run_exit 2 "truncated .npy" --batch --compare bad sample:lenet
expect_grep "$out" "bad/layer3_sdp.npy.*(blob of order.txt line 4)"
copy; printf 'image\nimage\n' >bad/order.txt
run_exit 2 "bad order.txt" --batch --compare bad sample:lenet
expect_grep "$out" 'bad/order.txt:2: blob "image" is listed already (line 1); expected each once'
copy; printf '{"layer2_sdp": {"scale": 0.1},}' >bad/calib.json
run_exit 2 "bad calib.json" --batch --compare bad sample:lenet
expect_grep "$out" 'bad/calib.json:1:31 (byte 30): expected a string'
copy; printf '2 layer2_sdp extra\n' >bad/map.txt
run_exit 2 "bad map.txt" --batch --compare bad sample:lenet
expect_grep "$out" 'bad/map.txt:1: expected "LAYER BLOB"'
# a blob of a shape no layer writes: an .npy of shape (1, 7, 3, 3) written by hand
copy; echo "odd 1 7 3 3" >>bad/order.txt
{
    printf '\223NUMPY\001'; head -c 1 /dev/zero; printf 'v'; head -c 1 /dev/zero # v: 118
    printf "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 7, 3, 3), }"
    printf '%*s\n' 52 ''
    head -c 252 /dev/zero
} >bad/odd.npy
run_exit 2 "impossible shape" --batch --compare bad sample:lenet
expect_grep "$out" 'bad/odd.npy: blob "odd" (order.txt line 6) is 1x7x3x3, which fits no layer.s output'
run_exit 2 "no folder" --batch --compare nowhere sample:lenet
expect_grep "$out" "nowhere: No such file or directory; expected a reference folder"

# options
run_exit 2 "--tolerance syntax" --batch --compare ref --tolerance lsb=much sample:lenet
expect_grep "$out" "lsb=much: expected a number from 0 to 65536"
run_exit 2 "--calibtable empty" --batch --compare ref --calibtable /dev/null sample:lenet
expect_grep "$out" "/dev/null:1:1 (byte 0): expected a JSON object"
echo '{}' >empty.json
run_exit 0 "--calibtable" --batch --compare ref --calibtable empty.json sample:lenet
expect_grep "$out" "calibration empty.json"
run_exit 0 "--tolerance that lets the poke pass" --batch --compare ref \
    --tolerance lsb=255,cos=-1 -x poke.dladbg sample:lenet
expect_line "$out" "compare: all 5 compared outputs are within tolerance."
run_exit 2 "--calibtable alone" --batch --calibtable x.json sample:lenet
expect_grep "$out" "calibtable applies to --compare DIR"
run_exit 0 "help" --help
expect_grep "$out" "^  --compare DIR "
run_exit 0 "help compare" --batch -ex "help compare" sample:lenet
expect_grep "$out" "int8 vs float   99th percentile error > lsb LSB \[24\]"
echo ok
