#!/bin/sh
# "info registers" / "i r" without a unit, as gdb's prints the general
# registers (a new user's tour found it an error): the registers of the
# units of the hardware layer the run is at, its group only; before any
# layer, one line a unit with its groups and status and a hint to name one.
# "info regs UNIT" is unchanged: both groups.  Needs nothing from ../shared.
set -eu
. "$(dirname "$0")/lib.inc"

# before anything ran
out=$(run_dladbg --batch -q -ex 'info registers' sample:lenet) || fail "info registers: exit $?"
expect_line "$out" 'No hardware layer yet.  The units ("info regs UNIT" shows one):'
expect_line "$out" "CDMA at 0x05000: producer group 0, consumer group 0, status STATUS_0=IDLE STATUS_1=IDLE"
expect_line "$out" "GLB at 0x00000"
# nv_small lacks some units the map has
out=$(run_dladbg --batch -q --config nv_small -ex 'i r' sample:pdp) || fail "i r on nv_small: exit $?"
expect_line "$out" "BDMA at 0x10000; not in this configuration"

# a convolution layer: its five units, group 0 only
out=$(run_dladbg --batch -q -ex 'break layer 0 enabled' -ex continue -ex 'i r' sample:lenet) ||
    fail "i r at a convolution: exit $?"
expect_grep "$out" '^layer 0 (CONV, group 0) enabled: its units. registers, group 0'
for u in CDMA CSC CMAC_A CMAC_B CACC; do
    expect_grep "$out" "^$u at 0x0[0-9a-f]*: producer group 0, consumer group 0\$"
done
expect_grep "$out" '^  D_DATAIN_SIZE_0  *g0 0x'
if printf '%s\n' "$out" | grep -q -e '^SDP' -e ' g1 0x'; then
    fail "i r shows another unit's or group's registers"
fi

# the run goes on: the layer it is at now, an SDP layer
out=$(run_dladbg --batch -q -ex 'step layer' -ex 'info regs' sample:lenet) || fail "info regs: exit $?"
expect_grep "$out" '^layer 2 (SDP, group 0) running: its units. registers, group 0'
expect_grep "$out" '^SDP_RDMA at 0x0a000'
expect_grep "$out" '^SDP at 0x0b000'

# one unit named: both groups, as before
out=$(run_dladbg --batch -q -ex 'info regs CDMA' sample:lenet) || fail "info regs CDMA: exit $?"
expect_grep "$out" '^  D_OP_ENABLE  *g0 0x'
expect_grep "$out" '^  D_OP_ENABLE  *g1 0x'
echo ok
