#!/bin/sh
# tests/calibration/patch_testbench.py on a miniature of a generated nvdla/hw
# folder (the lines it edits, as NVIDIA ships them):
#   - the testbench prints the interrupt's rising edge and reads
#     NVDLA_NO_CLOCK_GATING; GLB's interrupt controller gets its probe;
#   - NV_DW02_tree copies each input word with one part-select instead of a
#     loop over its bits (the same values; half the C++ of nv_full's CMAC);
#   - a second run changes nothing; a file without the expected text is an
#     error naming the file, and leaves the file as it was.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 >/dev/null 2>&1 || { echo "no python3"; exit 77; }
in_scratch_dir

mkdir -p nv/verilator nv/vmod/nvdla/glb nv/vmod/vlibs
printf '%s\n' 'int main() {' '	dla->tmc2slcg_disable_clock_gating = 0;' \
    '		if (waiting && dla->dla_intr) {' '}' >nv/verilator/nvdla.cpp
printf '%s\n' 'module NV_NVDLA_GLB_ic;' 'endmodule // NV_NVDLA_GLB_ic' \
    >nv/vmod/nvdla/glb/NV_NVDLA_GLB_ic.v
cat >nv/vmod/vlibs/NV_DW02_tree.v <<'V'
always @ (INPUT) begin
    for (i=0 ; i < num_inputs ; i=i+1) begin
        for (j=0 ; j < input_width ; j=j+1) begin
            input_slice[j] = INPUT[i*input_width+j];
        end
        input_array[i] = input_slice;
    end
end
V
cp -r nv orig

python3 "$top/tests/calibration/patch_testbench.py" nv >out.txt
tree=$(cat nv/vmod/vlibs/NV_DW02_tree.v)
expect_line "$tree" "        input_array[i] = INPUT[i*input_width +: input_width];"
! grep -q 'input_slice\[j\]' nv/vmod/vlibs/NV_DW02_tree.v || fail "the bit loop is still there"
expect_grep "$(cat nv/verilator/nvdla.cpp)" 'getenv("NVDLA_NO_CLOCK_GATING")'
expect_grep "$(cat nv/verilator/nvdla.cpp)" 'intr rise'
expect_grep "$(cat nv/vmod/nvdla/glb/NV_NVDLA_GLB_ic.v)" 'PROBE GLB %0d set CACC_DONE_STATUS0'

# twice: nothing more
cp -r nv once
python3 "$top/tests/calibration/patch_testbench.py" nv >out.txt
diff -r once nv >/dev/null || fail "a second run changed the folder"
[ "$(grep -c 'already prepared' out.txt)" = 3 ] || fail "second run: $(cat out.txt)"

# a tree of another shape: an error naming the file, the file unchanged
rm -r nv && cp -r orig nv
sed -i 's/input_slice\[j\]/slice_bit[j]/' nv/vmod/vlibs/NV_DW02_tree.v
cp nv/vmod/vlibs/NV_DW02_tree.v other.v
set +e
out=$(python3 "$top/tests/calibration/patch_testbench.py" nv 2>&1)
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "an unknown tree was accepted"
expect_grep "$out" "NV_DW02_tree.v: expected one"
cmp -s other.v nv/vmod/vlibs/NV_DW02_tree.v || fail "the unknown tree was changed"
echo ok
