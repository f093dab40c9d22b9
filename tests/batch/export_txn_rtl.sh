#!/bin/sh
# "export txn" writes traces that NVIDIA's RTL testbench can replay as they
# are, whose checks test the hardware, not the model against itself:
#   - each layer's output is checked once the driver has read its interrupt,
#     before a host step loads over it: sample:lenet's trace, replayed with
#     the memory the network reads zeroed, fails at its first check (the
#     checks used to follow the EMU task's load_mem lines and passed whatever
#     the hardware computed);
#   - an output the hardware later overwrites is checked in between: two
#     BDMA copies to one buffer, two checks, the first of which can fail;
#   - interrupts do not rest on the model's timing: before each wait every
#     other interrupt is masked and a read lets the line settle, and a read
#     of GLB.S_INTR_STATUS checks only the bits handled, so the trace still
#     passes with the host 3000 register reads slower after a launch (the
#     exact status read used to fail: more interrupts were up by then);
#   - a run exported mid-way replays too.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
in_scratch_dir

run_exit 0 "export" --batch -q -ex run -ex "export txn $tmp/lenet" sample:lenet
run_exit 0 "replay" --batch -q "$tmp/lenet"
dumps=$(grep -c '^dump_mem ' "$tmp/lenet/input.txn")
expect_grep "$out" "lenet: [0-9]* checks passed, 0 failed; $dumps dumps matched"

# every check comes before the first load of the host's work after the launch
awk '/^load_mem/ && launched && !host { host = NR }
     /D_OP_ENABLE/ { launched = 1 }
     /^dump_mem/ && host { bad = 1 }
     END { exit bad }' "$tmp/lenet/input.txn" ||
    fail "a dump_mem follows the host's load_mem lines"

# the hardware reads zeros: its outputs differ and the checks say so
mkdir "$tmp/zero"
cp "$tmp/lenet"/* "$tmp/zero"/
awk '/^ 0x/ { gsub(/0x[0-9a-f][0-9a-f]/, "0x00") } { print }' "$tmp/lenet/load_0000.dat" \
    >"$tmp/zero/load_0000.dat"
run_exit 1 "replay on zeroed memory" --batch -q "$tmp/zero"
expect_grep "$out" "dump_mem 0x[0-9a-f]*+0x[0-9a-f]* differs from"

# a buffer written twice is checked twice
mkdir "$tmp/reuse"
cp "$top/traces/bdma_copy/source.dat" "$tmp/reuse/"
cat >"$tmp/reuse/input.txn" <<'TXN'
# two BDMA copies (nv_full) of 256 bytes to 0x80100000: source lines 0, then 1
load_mem 0x80000000 0x800 source.dat
write_reg 0xffff1000 0x80000000
write_reg 0xffff1001 0x0
write_reg 0xffff1002 0x80100000
write_reg 0xffff1003 0x0
write_reg 0xffff1004 0x7
write_reg 0xffff1005 0x3
write_reg 0xffff1006 0x0
write_reg 0xffff1007 0x100
write_reg 0xffff1008 0x100
write_reg 0xffff1009 0x0
write_reg 0xffff100a 0x800
write_reg 0xffff100b 0x800
write_reg 0xffff100c 0x1
write_reg 0xffff100d 0x1
wait
read_reg 0xffff0003 0x000000c0 0x00000040
write_reg 0xffff0003 0xffffffff
write_reg 0xffff1000 0x80000100
write_reg 0xffff100c 0x1
write_reg 0xffff100e 0x1
wait
read_reg 0xffff0003 0x000000c0 0x00000080
write_reg 0xffff0003 0xffffffff
TXN
run_exit 0 "export of the copies" --batch -q -ex run -ex "export txn $tmp/twice" "$tmp/reuse"
[ "$(grep -c '^dump_mem 0x80100000 0x100 ' "$tmp/twice/input.txn")" -eq 2 ] ||
    fail "the reused buffer is not checked twice: $(grep '^dump_mem' "$tmp/twice/input.txn")"
first=$(awk '/^dump_mem/ { print $4; exit }' "$tmp/twice/input.txn")
mkdir "$tmp/bad"
cp "$tmp/twice"/* "$tmp/bad"/
awk '/^ 0x/ && !done { $1 = ($1 == "0x5a") ? "0xa5" : "0x5a"; done = 1 } { print }' \
    "$tmp/twice/$first" >"$tmp/bad/$first"
run_exit 1 "a wrong first copy" --batch -q "$tmp/bad"
expect_grep "$out" "dump_mem 0x80100000+0x100 differs from .*$first in 1 byte"

# each wait awaits one bit, the mask settled first; status reads check the bits handled
awk '$1 == "wait" && !(p2 ~ /^write_reg .*GLB.S_INTR_MASK \(export: only bit [0-9]* may end the wait\)/ &&
                       p1 ~ /^read_reg .*GLB.S_INTR_MASK \(export: settle\)/) { bad = NR }
     /#GLB.S_INTR_STATUS/ && $1 == "read_reg" && $3 == "0xffffffff" { bad = NR }
     { p2 = p1; p1 = $0 }
     END { if (bad) { print "line " bad; exit 1 } }' "$tmp/lenet/input.txn" ||
    fail "an interrupt awaited as the model timed it"

# the host slower than the model's: 3000 reads after the first launch
run_exit 0 "export of sample:conv" --batch -q -ex run -ex "export txn $tmp/conv" sample:conv
mkdir "$tmp/slow"
cp "$tmp/conv"/*.dat "$tmp/slow"/
awk '{ print } /#CDMA.D_OP_ENABLE/ && !done {
        for (i = 0; i < 3000; i++) print "read_reg 0xffff0001 0x00000000 0x00000000"; done = 1 }' \
    "$tmp/conv/input.txn" >"$tmp/slow/input.txn"
run_exit 0 "replay with a slower host" --batch -q "$tmp/slow"
expect_grep "$out" "slow: [0-9]* checks passed, 0 failed; 1 dump matched"
# exported mid-run: the interrupts up when the run stopped are awaited one
# bit at a time (a plain wait found every bit but the last one masked), and an
# output whose interrupt the driver had not read yet is checked once it is up
run_exit 0 "export inside a wait" --batch -q -ex "break layer 1 started" -ex run \
    -ex "step event 2" -ex "export txn $tmp/inwait" sample:conv
tail -n 1 "$tmp/inwait/input.txn" | grep -q '^wait$' || fail "the export inside a wait ends otherwise"
run_exit 0 "replay of the export inside a wait" --batch -q "$tmp/inwait"
run_exit 0 "export at a layer's end" --batch -q -ex "break layer 4 done" -ex run \
    -ex "export txn $tmp/atdone" sample:lenet
tail -n 2 "$tmp/atdone/input.txn" | head -n 1 | grep -q '^wait$' ||
    fail "the last output is not awaited: $(tail -n 3 "$tmp/atdone/input.txn")"
run_exit 0 "replay of the export at a layer's end" --batch -q "$tmp/atdone"
expect_grep "$out" "atdone: [0-9]* checks passed, 0 failed; 2 dumps matched"
echo ok
