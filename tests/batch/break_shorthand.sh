#!/bin/sh
# gdb's way of saying where to stop, read as the kind it plainly is: "break 3"
# (gdb's line number) is break layer 3, "break sdp" break unit sdp, "break
# CDMA.D_OP_ENABLE" break reg, "tbreak" the same; "watch UNIT.REG" is watch
# reg and gdb's "watch *ADDR" / "watch -l *ADDR" the 4 bytes there.  They are
# set, stop and are saved as the long forms; anything else is still an error
# naming the kinds (and the nearest), exit 2.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

check() { # SHORT LONG: the same breakpoint line, stop and saved form
    run_exit 0 "$1" --batch -q -ex "$1" -ex "save breakpoints bp.txt" -ex run sample:lenet
    short=$out
    mv bp.txt short.txt
    run_exit 0 "$2" --batch -q -ex "$2" -ex "save breakpoints bp.txt" -ex run sample:lenet
    mv bp.txt long.txt
    [ "$short" = "$out" ] || fail "\"$1\" is not \"$2\":
$short
---
$out"
    cmp -s short.txt long.txt || fail "\"$1\" saved as $(tail -n 1 short.txt), not as \"$2\""
    printf '%s\n' "$out" | grep -q '^Breakpoint 1, \|^Watchpoint 1, ' || fail "$2 did not stop: $out"
}
check 'break 3' 'break layer 3'
check 'b 4 done' 'break layer 4 done'
check 'tbreak 2' 'tbreak layer 2'
check 'break SDP' 'break unit SDP'
check 'break pdp done if $cycle > 10' 'break unit pdp done if $cycle > 10'
check 'break CDMA.D_OP_ENABLE' 'break reg CDMA.D_OP_ENABLE'
check 'b SDP.D_OP_ENABLE == 1' 'break reg SDP.D_OP_ENABLE == 1'
check 'watch CDMA.D_OP_ENABLE' 'watch reg CDMA.D_OP_ENABLE'
check 'watch *0x80000000' 'watch mem 0x80000000 4'
check 'watch -l *0x80000000' 'watch mem 0x80000000 4'

run_exit 2 "break lyer" --batch -q -ex 'break lyer 3' sample:lenet
expect_line "$out" 'error: -ex 1: break: unknown "lyer" (did you mean "layer"?); expected one of: layer, unit, reg, intr, lut, rule, diag, mismatch (or a layer number, a unit or UNIT.REG)'
for bad in 'break' 'break 3x' 'break foo' 'watch' 'watch foo' 'watch *0x80000000 if 1' 'tbreak NOPE.REG'; do
    run_exit 2 "$bad" --batch -q -ex "$bad" sample:lenet
    expect_grep "$out" '^error: -ex 1: '
done
echo ok
