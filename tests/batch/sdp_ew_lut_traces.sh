#!/bin/sh
# NVIDIA's two SDP EW/LUT traces of the nv_small corpus.  Their CRC goldens
# were made with the EW stage and its LUT active (the C model does not gate
# them), while the nv_small RTL forces EW off and NVIDIA's nv_small
# regression plan leaves them out.  The model follows the RTL on nv_small
# (EW ignored, with an info diagnostic) and reproduces the goldens on a
# configuration that has EW and the SDP LUT with the same register map and
# memory atom (nv_small_256_full).  Skipped without NVIDIA's data.
set -eu
. "$(dirname "$0")/lib.inc"

DATA=${NVDLA_TESTDATA:-../shared/testdata}/traces_v2/nv_small
[ -d "$DATA/sdp_3x3x33_ew_le_exp_int8" ] || { echo "skip: no NVIDIA trace data at $DATA"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for t in sdp_3x3x33_ew_le_exp_int8 sdp_3x3x33_ew_le_lin_int8; do
    # with EW and the LUT: NVIDIA's CRC, bit-exact
    run_exit 0 "$t on nv_small_256_full" --batch --config nv_small_256_full -o "$tmp/out" "$DATA/$t"
    expect_line "$out" "$t: 1 check passed, 0 failed"
    # nv_small: EW is bypassed as the RTL does it, and said so
    run_exit 1 "$t on nv_small (golden assumes EW)" --batch --config nv_small -o "$tmp/out" "$DATA/$t"
    expect_grep "$out" "has no SDP EW: the hardware bypasses it"
done

# the LUT statistics add up (exponent-mode LE at 127..129, LO far above:
# every input underflows both tables, LO chosen by the underflow priority)
run_exit 0 "LUT statistics" --batch --config nv_small_256_full -ex continue -ex 'info lut' \
    "$DATA/sdp_3x3x33_ew_le_exp_int8"
expect_line "$out" "layer 0 (SDP, group 0): 360 lookups: LE hit 0, LO hit 0, hybrid 0, underflow 360, overflow 0"
expect_line "$out" "  LE table: underflow 360 overflow 0; LO table: underflow 360 overflow 0"
expect_grep "$out" "^  input histogram: 360 below |  *| 0 above$"
