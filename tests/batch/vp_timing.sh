#!/bin/sh
# Replaying a trace of NVIDIA's KMD (a virtual-platform trace: the driver
# polled GLB.S_INTR_STATUS with "until") follows the driver, not the clock.
# The trace here is dladbg's own export of sample:conv written as the VP
# writes it; changed copies of it stand for a VP whose simulator raised
# interrupts in another order:
#   - interrupt bits the model raises together but the trace saw one at a
#     time: deferred, a timing note, exit 0 (a replay by the clock stops at the
#     first poll: "expected 0x00040000, got ...");
#   - a consumer pointer read ahead of the model: a timing note; its
#     PRODUCER bit, a mask read, a bit the model never raises, a bit the trace
#     never waits for: failures (exit 1);
#   - the same changes in a trace that does not poll S_INTR_STATUS (a plain
#     traceplayer trace) are failures as before.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

run_exit 0 "export" --batch -q -ex run -ex "export txn $tmp/run" sample:conv

# vp_style IN OUT [AWK]: the export as the VP writes it: no "wait" nor the
# export's own lines, every read of the whole register, the handler's status
# read an "until"; AWK (optional) edits the lines first
vp_style() {
    mkdir -p "$2"
    cp "$1"/*.dat "$2"/
    awk "${3:-}"'
        $1 == "wait" || /\(export:/ { next }
        $1 == "read_reg" { $3 = "0xffffffff" }
        $1 == "read_reg" && $2 == "0xffff0003" && $4 != "0x00000000" && prev ~ /^read_reg 0xffff0001 / {
            print "until 0xffff0003 " $4; prev = $0; next }
        { print; prev = $0 }' "$1/input.txn" >"$2/input.txn"
}

# the handler runs as the export has them: 0x00050000 (CDMA data and weights
# of group 0 together), 0x00100000, 0x00000001
grep -q '^read_reg 0xffff0003 0x00050000 0x00050000 ' "$tmp/run/input.txn" ||
    fail "sample:conv's first interrupt is no longer CDMA data and weights together"

vp_style "$tmp/run" "$tmp/vp"
run_exit 0 "VP-style replay" --batch "$tmp/vp"
expect_grep "$out" "vp: [0-9]* checks passed, 0 failed"
case $out in *timing*) fail "a replay of the same timing noted a timing difference" ;; esac

# the VP saw the weights done first, then the data: two handler runs
split='$1 == "read_reg" && $2 == "0xffff0003" && $4 == "0x00050000" && !done {
        print "until 0xffff0003 0x00040000"; print "write_reg 0xffff0003 0x00040000"
        print "read_reg 0xffff0001 0xffffffff 0x00000000"; print "read_reg 0xffff0003 0xffffffff 0x00000000"
        print "read_reg 0xffff0001 0xffffffff 0x00000000"; print "until 0xffff0003 0x00010000"
        print "write_reg 0xffff0003 0x00010000"; skip = 1; done = 1; next }
    skip && $1 == "write_reg" && $2 == "0xffff0003" { skip = 0; next }'
vp_style "$tmp/run" "$tmp/order" "$split"
run_exit 0 "interrupts in another order" --batch "$tmp/order"
expect_grep "$out" "order: [0-9]* checks passed, 0 failed; 1 dump matched; 1 timing difference (notes)"
expect_grep "$out" "input.txn:[0-9]*: timing: GLB.S_INTR_STATUS (0x0000c): the trace saw 0x00040000; the model had also raised 0x00010000, deferred until the trace waits for it"

# one edit of the first line matching RE: its last word becomes VALUE
edit_first() { # RE VALUE
    printf '$0 ~ /%s/ && !edited { $4 = "%s"; edited = 1 } ' "$1" "$2"
}

vp_style "$tmp/run" "$tmp/consumer" "$(edit_first '^read_reg 0xffff2401 ' 0x00010000)"
run_exit 0 "consumer pointer ahead" --batch "$tmp/consumer"
expect_grep "$out" "timing: read_reg CACC.S_POINTER (0x09004) reads 0x00000000 in the model, 0x00010000 in the trace"
expect_grep "$out" "1 timing difference (notes)"

vp_style "$tmp/run" "$tmp/producer" "$(edit_first '^read_reg 0xffff2401 ' 0x00000001)"
run_exit 1 "producer pointer" --batch -q "$tmp/producer"
expect_grep "$out" "read_reg CACC.S_POINTER (0x09004): expected 0x00000001"

vp_style "$tmp/run" "$tmp/mask" "$(edit_first '^read_reg 0xffff0001 ' 0x00000004)"
run_exit 1 "mask read" --batch -q "$tmp/mask"
expect_grep "$out" "read_reg GLB.S_INTR_MASK (0x00004): expected 0x00000004"

vp_style "$tmp/run" "$tmp/never" '$1 == "read_reg" && $4 == "0x00050000" { $4 = "0x00050004" } '
run_exit 1 "a bit never raised" --batch -q "$tmp/never"
expect_grep "$out" "until GLB.S_INTR_STATUS (0x0000c): expected the interrupt bits 0x00050004, but the hardware went idle"

# the VP never saw the CDMA data interrupt: the model's bit is never awaited
vp_style "$tmp/run" "$tmp/unseen" '$2 == "0xffff0003" && ($3 == "0x00050000" || $4 == "0x00050000") {
    sub(/0x00050000/, "0x00040000") } '
run_exit 1 "a bit never waited for" --batch -q "$tmp/unseen"
expect_grep "$out" "unseen: GLB.S_INTR_STATUS (0x0000c): the model raised the interrupt bits 0x00010000, which the trace never waited for"

# a plain trace (no "until" on S_INTR_STATUS) is checked by the clock
mkdir -p "$tmp/plain"
cp "$tmp/run"/*.dat "$tmp/plain"/
awk '$0 ~ /^read_reg 0xffff2401 / && !edited { $3 = "0xffffffff"; $4 = "0x00010000"; edited = 1 }
    { print }' "$tmp/run/input.txn" >"$tmp/plain/input.txn"
run_exit 1 "plain trace, consumer pointer" --batch -q "$tmp/plain"
expect_grep "$out" "read_reg CACC.S_POINTER (0x09004): expected 0x00010000"
echo ok
