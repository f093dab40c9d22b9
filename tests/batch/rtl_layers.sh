#!/bin/sh
# tests/calibration/rtl_layers.py on a testbench log of several layers: the
# driver goes on programming (and enabling: SDP here) the next layers while a
# convolution runs, so the launch is the convolution's CDMA.D_OP_ENABLE, not
# the last write before the interrupt nor the last enable; a log without a
# launch register falls back to the last write and says so.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 >/dev/null 2>&1 || { echo "no python3"; exit 77; }
in_scratch_dir

cat >multi.log <<'LOG'
(100) write to nvdla: addr ffff0c04, data 00000001
(102) write to nvdla: addr ffff240e, data 00000001
(104) write to nvdla: addr ffff2c10, data 00000003
(110) write to nvdla: addr ffff2c11, data 00000000
(300) intr rise
(500) intr rise
LOG
got=$(python3 "$top/tests/calibration/rtl_layers.py" multi.log)
[ "$got" = "$(printf 'multi.log\tlaunch CDMA.D_OP_ENABLE ffff0c04\t100 200')" ] ||
    fail "nv_small, several layers: $got"

# a v2 trace's converter writes word addresses without 0xffff: the same register
sed 's/addr ffff/addr 0000/' multi.log >v2.log
got=$(python3 "$top/tests/calibration/rtl_layers.py" v2.log)
[ "$got" = "$(printf 'v2.log\tlaunch CDMA.D_OP_ENABLE 00000c04\t100 200')" ] || fail "v2 addresses: $got"

# on nv_full 0xffff0c04 is no launch register (CDMA's is 0xffff1404)
got=$(python3 "$top/tests/calibration/rtl_layers.py" --config nv_full multi.log)
[ "$got" = "$(printf 'multi.log\tlaunch the last write (no launch register written) ffff2c11\t95 195')" ] ||
    fail "nv_full: $got"
echo ok
