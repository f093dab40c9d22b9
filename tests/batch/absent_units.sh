#!/bin/sh
# Registers of a unit the configuration lacks (nv_small: no BDMA, no RUBIK,
# named RBK in the map): no CSB access reaches them, so an expression
# refuses them as "info regs" refuses the unit, rather than reading 0:
# print, display, a breakpoint's condition, reg, break reg and info regs
# UNIT, each with exit status 2 in batch mode; the units it has still read.
set -eu
. "$(dirname "$0")/lib.inc"

refused() { # COMMAND UNIT.REG: refused with the unit's message, exit 2
    run_exit 2 "$1" --batch -q --config nv_small -ex "$1" sample:pdp
    unit=${2%%.*}
    expect_grep "$out" "^error: -ex 1: [a-z ]*: $2: $unit is not in this configuration (nv_small)\$"
}
refused 'print BDMA.CFG_STATUS' BDMA.CFG_STATUS
refused 'print RBK.D_OP_ENABLE.OP_EN + 1' RBK.D_OP_ENABLE.OP_EN
refused 'display RBK.D_MISC_CFG' RBK.D_MISC_CFG
refused 'reg BDMA.CFG_STATUS' BDMA.CFG_STATUS
refused 'break reg BDMA.CFG_OP' BDMA.CFG_OP
run_exit 2 "a condition" --batch -q --config nv_small -ex 'break layer 0 if BDMA.CFG_STATUS == 0' sample:pdp
expect_grep "$out" "^error: -ex 1: break layer: condition: BDMA.CFG_STATUS: BDMA is not in this configuration (nv_small)\$"
run_exit 2 "info regs BDMA" --batch -q --config nv_small -ex 'info regs BDMA' sample:pdp
expect_line "$out" "error: -ex 1: info regs: BDMA is not in this configuration (nv_small)"

# the units nv_small has read as before; nv_full has BDMA
run_exit 0 "a unit it has" --batch -q --config nv_small -ex 'print PDP.D_OP_ENABLE' sample:pdp
expect_line "$out" "= 0 (0x0)"
run_exit 0 "BDMA on nv_full" --batch -q -ex 'print BDMA.CFG_STATUS' -ex 'info regs BDMA' sample:pdp
expect_line "$out" "= 0 (0x0)"
expect_grep "$out" "^BDMA at 0x"
echo ok
