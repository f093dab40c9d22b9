#!/bin/sh
# A long run of tiny layers (issue 36 item 8): a trace of many one-line BDMA
# layers runs with step back on, within a memory ceiling (ulimit -v: the
# checkpoints cost a bounded number of states, not one per layer), and
# stepping back then forward reaches exactly the state a run that never
# stepped back has at the same boundaries: registers, memory, cycle, counts.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir
# the sanitizers' shadow memory defeats ulimit -v, and they run 5-10x slower
if [ "${SAN:-}" = 1 ]; then layers=10000; else layers=100000; fi
ceiling_kib=524288 # 512 MiB of address space for 100,000 layers (they take about 320 MB)

# LAYERS one-line BDMA copies, each from one of 7 sources into one of 64
# destinations, so that the destinations' bytes tell the layers apart
mkdir t
awk 'BEGIN { for (i = 0; i < 256; i++) printf "0x%02x%s", (i * 13 + 5) % 256, i % 32 == 31 ? "\n" : " " }' >t/source.dat
awk -v n="$layers" 'BEGIN {
    print "load_mem 0x80000000 0x100 source.dat"
    for (i = 0; i < n; i++) {
        printf "write_reg 0xffff1000 0x%08x\n", 2147483648 + (i % 7) * 32
        printf "write_reg 0xffff1002 0x%08x\n", 2148532224 + (i % 64) * 4096
        print "write_reg 0xffff1004 0x0\nwrite_reg 0xffff1005 0x3\nwrite_reg 0xffff1006 0x7"
        print "write_reg 0xffff1007 0x20\nwrite_reg 0xffff1008 0x20\nwrite_reg 0xffff1009 0x0"
        print "write_reg 0xffff100a 0x100\nwrite_reg 0xffff100b 0x100\nwrite_reg 0xffff100c 0x1"
        printf "write_reg 0xffff%s 0x1\nwait\nwrite_reg 0xffff0003 0xffffffff\n", i % 2 ? "100e" : "100d"
    }
}' >t/input.txn

# What a point of the run looks like, as a script; the memory goes to NAME.bin.
look() { # NAME
    printf '%s\n' 'print $cycle' 'print $layers' 'print $writes' 'info regs BDMA' \
        "dump memory $1.bin 0x80100000 +0x40000" >"$1.dladbg"
    echo "$1.dladbg"
}

bounded() {
    if [ "${SAN:-}" = 1 ]; then "$@"; else (ulimit -v $ceiling_kib && "$@"); fi
}

# back: to the end, 1,000 boundaries back (the run ended after its last
# boundary, so that lands at boundary LAYERS - 999), then 3 forward
target=$((layers - 999))
rc=0
bounded "$DLADBG" --batch -q -ex continue -ex 'back layer 1000' -x "$(look back1)" \
    -ex 'step layer 3' -x "$(look back2)" t >back.out 2>&1 || rc=$?
[ $rc -eq 0 ] || { cat back.out; fail "the run with step back: exit $rc"; }
# straight: to the same boundaries, never stepping back
"$DLADBG" --batch -q -ex "step layer $target" -x "$(look straight1)" -ex 'step layer 3' \
    -x "$(look straight2)" t >straight.out 2>&1 || { cat straight.out; fail "the straight run failed"; }

# the messages of the moves differ; what the points look like must not
strip() { grep -v -e '^Wrote ' -e '^Back at' -e '^Run finished' -e 'layers done' -e '^  at ' -e 'done at cycle' "$1"; }
strip back.out >back.seen
strip straight.out >straight.seen
diff straight.seen back.seen >/dev/null || { diff straight.seen back.seen | head -20; fail "stepping back reached another state"; }
expect_grep "$(cat back.seen)" "^= $target "
cmp back1.bin straight1.bin || fail "memory differs at boundary $target"
cmp back2.bin straight2.bin || fail "memory differs at boundary $((target + 3))"
cmp -s back1.bin back2.bin && fail "the two points have the same memory: the test tells nothing"
echo ok
