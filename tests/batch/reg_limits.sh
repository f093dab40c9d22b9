#!/bin/sh
# Values that do not fit a field or register, groups that do not exist and
# mistyped register names are errors naming the limit or the nearest name,
# never a silent truncation or another group's copy (issue 35, items 3, 4).
set -eu
. "$(dirname "$0")/lib.inc"

run_exit 2 "field overflow" --batch -ex 'reg CDMA.D_DATAIN_SIZE_0.DATAIN_WIDTH = 0x10000' sample:lenet
expect_grep "$out" 'reg: 0x10000 does not fit the 13 bits of CDMA.D_DATAIN_SIZE_0.DATAIN_WIDTH: 0..0x1fff'
run_exit 2 "register overflow" --batch -ex 'reg GLB.S_INTR_STATUS = 0x1ffffffff' sample:lenet
expect_grep "$out" 'reg: 0x1ffffffff does not fit the 32 bits of GLB.S_INTR_STATUS: 0..0xffffffff'
run_exit 2 "negative beyond the field" --batch -ex 'reg CDMA.D_DATAIN_SIZE_0.DATAIN_WIDTH = -0x1001' sample:lenet
expect_grep "$out" 'or -0x1000..-1 as two.s complement'
run_exit 2 "watch value" --batch -ex 'break reg CDMA.D_DATAIN_SIZE_0.DATAIN_WIDTH == 0x2000' sample:lenet
expect_grep "$out" 'does not fit the 13 bits'
# what fits is written, the widest value and -1 alike
run_exit 0 "values that fit" --batch -ex 'reg CDMA.D_DATAIN_SIZE_0.DATAIN_WIDTH = 0x1fff' \
    -ex 'reg CDMA.D_DATAIN_SIZE_0.DATAIN_HEIGHT = -1' -ex 'reg CDMA.D_DATAIN_SIZE_0' sample:lenet
expect_grep "$out" '= 0x1fff1fff '

run_exit 2 "group 2" --batch -ex 'reg CDMA.D_DATAIN_SIZE_0@2' sample:lenet
expect_grep "$out" 'reg: no group "2": CDMA has groups 0 and 1'
run_exit 2 "group of a single register" --batch -ex 'reg GLB.S_INTR_STATUS@1' sample:lenet
expect_grep "$out" 'GLB.S_INTR_STATUS has no register groups'
run_exit 2 "group in an expression" --batch -ex 'print CDMA.D_DATAIN_SIZE_0@3' sample:lenet
expect_grep "$out" 'no group "3": register groups are 0 and 1'
run_exit 0 "group 1" --batch -ex 'reg CDMA.D_DATAIN_SIZE_0@1' sample:lenet
expect_grep "$out" '^CDMA.D_DATAIN_SIZE_0 (group 1) at '

run_exit 2 "register typo" --batch -ex 'reg CDMA.D_DATAIN_SIZ_0' sample:lenet
expect_grep "$out" 'no register or field "CDMA.D_DATAIN_SIZ_0" in the nv_full map (did you mean "CDMA.D_DATAIN_SIZE_0"?)'
run_exit 2 "unit typo" --batch -ex 'reg CDAM.D_DATAIN_SIZE_0' sample:lenet
expect_grep "$out" '(did you mean "CDMA.D_DATAIN_SIZE_0"?)'
run_exit 2 "field typo" --batch -ex 'reg CDMA.D_DATAIN_SIZE_0.DATAIN_WIDHT' sample:lenet
expect_grep "$out" '(did you mean "CDMA.D_DATAIN_SIZE_0.DATAIN_WIDTH"?)'
run_exit 2 "typo in a watch" --batch -ex 'watch reg SDP.D_DATA_CUBE_WIDHT' sample:lenet
expect_grep "$out" '(did you mean "SDP.D_DATA_CUBE_WIDTH"?)'
run_exit 2 "typo in an expression" --batch -ex 'print CDMA.D_DATAIN_SZE_0' sample:lenet
expect_grep "$out" '(did you mean "CDMA.D_DATAIN_SIZE_0"?)'
run_exit 2 "nothing near" --batch -ex 'reg CDMA.XYZZY' sample:lenet
expect_line "$out" 'error: -ex 1: reg: no register or field "CDMA.XYZZY" in the nv_full map'
echo ok
