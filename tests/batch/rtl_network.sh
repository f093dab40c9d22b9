#!/bin/sh
# tests/calibration/rtl_network.py on a testbench log of a network replay:
#   - a layer ends when its group's done bit is set (the GLB probe's cycle,
#     moved onto the testbench's ticks by the offset between the probe's
#     core_intr rises and the testbench's intr rises), not when the masked
#     interrupt reaches the driver: PDP here finishes at tick 620 while the
#     line rises only at 700;
#   - an SDP fed on the fly starts with its convolution, not at its own
#     earlier enable; one reading from memory starts at its enable;
#   - rises that do not pair at one offset, or a layer that never finished,
#     are errors, not figures.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 >/dev/null 2>&1 || { echo "no python3"; exit 77; }
in_scratch_dir

# net LOG: rtl_network.py on LOG, its output in $out and its status in $rc
net() {
    set +e
    out=$(python3 "$top/tests/calibration/rtl_network.py" "$1" 2>&1)
    rc=$?
    set -e
}

cat >net.log <<'LOG'
(80) write to nvdla: addr ffff2401, data 00000000
(82) write to nvdla: addr ffff242c, data 00000001
(90) write to nvdla: addr ffff240e, data 00000001
(96) write to nvdla: addr ffff0c01, data 00000000
(100) write to nvdla: addr ffff0c04, data 00000001
(110) write to nvdla: addr ffff2401, data 00000001
(112) write to nvdla: addr ffff242c, data 00000000
(114) write to nvdla: addr ffff240e, data 00000001
PROBE GLB 140 set CACC_DONE_STATUS0
PROBE GLB 140 core_intr rise
(300) intr rise
PROBE GLB 150 set SDP_DONE_STATUS0
PROBE GLB 160 set SDP_DONE_STATUS1
(400) write to nvdla: addr ffff2c02, data 00000001
PROBE GLB 300 set PDP_DONE_STATUS0
PROBE GLB 340 core_intr rise
(700) intr rise
LOG
net net.log
want=$(printf 'network\t260\nSDP#0\t110\nCONV#0\t100\nSDP#1\t113\nPDP#0\t110')
[ "$rc" -eq 0 ] && [ "$out" = "$want" ] || fail "figures (exit $rc): $out"

# the second rise 10 ticks later than the first pairs at another offset
sed 's/^(700) intr rise/(710) intr rise/' net.log >skew.log
net skew.log
[ "$rc" -eq 1 ] || fail "skewed rises: exit $rc"
expect_grep "$out" "do not pair at one offset"

# PDP's done bit never set: no figure
grep -v PDP_DONE net.log >stuck.log
net stuck.log
[ "$rc" -eq 1 ] || fail "a stuck layer: exit $rc"
expect_grep "$out" "1 layers never finished (PDP)"
echo ok
