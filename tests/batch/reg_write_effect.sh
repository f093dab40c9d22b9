#!/bin/sh
# "reg UNIT.REG = V" says what the hardware did with the write: a read-only
# register ignores it, a W1C register clears the bits written as ones (a field
# write clears that field only), a plain register shows old -> new.
set -eu
. "$(dirname "$0")/lib.inc"

run_exit 0 "pokes" --batch -ex 'reg GLB.S_NVDLA_HW_VERSION = 5' -ex 'break intr SDP_DONE0' \
    -ex 'break intr CACC_DONE0' -ex run -ex continue -ex 'reg GLB.S_INTR_STATUS' \
    -ex 'reg GLB.S_INTR_STATUS.CACC_DONE_STATUS0 = 1' -ex 'reg GLB.S_INTR_STATUS = 0x1' \
    -ex 'reg GLB.S_INTR_STATUS = 0x1' -ex 'reg SDP.D_DATA_CUBE_WIDTH = 9' \
    -ex 'reg SDP.D_PERF_LUT_UFLOW = 3' sample:lenet
expect_line "$out" "GLB.S_NVDLA_HW_VERSION: ignored: read-only (wrote 0x00000005, still 0x00303031)"
# at the SDP interrupt only SDP_DONE_STATUS0 is set: a write of another field leaves it set
expect_line "$out" "GLB.S_INTR_STATUS.CACC_DONE_STATUS0: no bit cleared (the bits written, 0x00100000, were not set): 0x00000001"
expect_line "$out" "GLB.S_INTR_STATUS: cleared bits SDP_DONE_STATUS0: 0x00000001 -> 0x00000000"
expect_line "$out" "GLB.S_INTR_STATUS: no bit cleared (the bits written, 0x00000001, were not set): 0x00000000"
expect_grep "$out" "^SDP.D_DATA_CUBE_WIDTH: 0x0000000[0-9a-f] -> 0x00000009$"
expect_line "$out" "SDP.D_PERF_LUT_UFLOW: ignored: read-only (wrote 0x00000003, still 0x00000000)"
run_exit 0 "field clear" --batch -ex 'break intr CACC_DONE0' -ex run \
    -ex 'reg GLB.S_INTR_STATUS.CACC_DONE_STATUS0 = 1' sample:lenet
expect_line "$out" "GLB.S_INTR_STATUS.CACC_DONE_STATUS0: cleared bits CACC_DONE_STATUS0: 0x00100000 -> 0x00000000"
# a poke while the driver still programs the layer says that the driver may undo it
run_exit 0 "poke while programming" --batch -ex 'break layer 0' -ex run \
    -ex 'reg CDMA.D_DATAIN_SIZE_0 = 0x00070009' sample:lenet
expect_line "$out" "Part of layer 0 (CONV, group 0) programming."
expect_grep "$out" "^The driver is still programming layer 0: if it writes this register again before the layer is enabled, its value replaces the poke (to keep a poke, make it at \"break layer 0 enabled\")\.$"
# at the layer's enable the driver is done with it: no such note
run_exit 0 "poke at the enable" --batch -ex 'break layer 0 enabled' -ex run \
    -ex 'reg CDMA.D_DATAIN_SIZE_0 = 0x00070009' sample:lenet
printf '%s\n' "$out" | grep -q "The driver is still programming" && fail "note at the enable: $out"
echo ok
