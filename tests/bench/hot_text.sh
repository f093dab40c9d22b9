#!/bin/sh
# Writes share/hot-text.order: the functions of dladbg a batch run of the
# bench's networks calls, one ".text.NAME" section a line, which the Makefile
# has gold lay out together (-ffunction-sections, --section-ordering-file).
# The kernel maps 64 KiB of a program's code around every page a call
# touches, so with the called functions spread over the 1.4 MB of text a run
# of sample:lenet kept 0.85 MiB of it resident; packed, some 0.4 MiB less
# (issue 34's memory target: 2 x working set + 4 MiB, most of which the code
# takes on a small network).  Run it again when a run's functions change much
# (tests/batch/hot_text.sh fails when most listed names are gone):
#
#   make && sh tests/bench/hot_text.sh [DLADBG] > share/hot-text.order
#
# valgrind runs no AVX-512 code: what an AVX-512 host runs instead is added
# at each link (tests/bench/hot_text_avx512.sh).  Needs valgrind (callgrind);
# NVDLA_TESTDATA (../shared/testdata) adds NVIDIA's networks when present.
# The list is in the order gold lays the functions out, those the fewest runs
# call first: the end of the laid-out code shares a 64 KiB window with
# .rodata, which every run reads, so the code every run calls goes there,
# and code only some networks run (the fp16 cells, which no int8 network
# calls) at the start, in windows the other networks never touch.
set -eu
dladbg=${1:-build/dladbg}
data=${NVDLA_TESTDATA:-../shared/testdata}
command -v valgrind >/dev/null || { echo "hot_text.sh: needs valgrind" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a seeded 28x28 grey image, as the bench gives NN_L0_0
python3 -c '
import sys
st = 12345
out = bytearray(b"P5\n28 28\n255\n")
for i in range(784):
    st = (st * 1664525 + 1013904223) & 0xffffffff
    out.append(st >> 24)
sys.stdout.buffer.write(out)' > "$tmp/nn.pgm"
n=0
profile() {
    n=$((n + 1))
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$n.%p" \
        "$dladbg" --batch --nx -ex run -ex 'info mem' "$@" > /dev/null 2>&1 || true
}
profile sample:lenet
profile sample:conv
if [ -f "$data/loadables/NN_L0_0/NN_L0_0.nvdla" ]; then
    profile --image "$tmp/nn.pgm" "$data/loadables/NN_L0_0/NN_L0_0.nvdla"
fi
for f in "$data"/networks/*/*.nvdla; do
    [ -f "$f" ] && profile "$f"
done
# functions of the dladbg binary with a cost, as the sections gcc puts them
# in: .text.NAME, or .text.startup.NAME (main, constructors) or
# .text.unlikely.NAME (what it deems cold: NAME.cold parts, ifunc resolvers);
# by the number of runs that call them (callgrind marks a recursive call's
# cost NAME'2: the same function)
for f in "$tmp"/cg.*; do
    callgrind_annotate --threshold=100 --inclusive=no "$f" 2>/dev/null |
        grep "\[$(cd "$(dirname "$dladbg")" && pwd)/$(basename "$dladbg")\]" |
        sed -E "s/^ *[0-9,]+ +\([ 0-9.]+%\) +//; s/ \[.*//; s/.*://; s/\.cold$//; s/'[0-9]+$//" |
        grep -v -e '^0x' -e '^(' | LC_ALL=C sort -u || true
done | LC_ALL=C sort | uniq -c | LC_ALL=C sort -k1,1n -k2,2 |
    awk '{ print ".text." $2; print ".text.startup." $2; print ".text.unlikely." $2 }'
