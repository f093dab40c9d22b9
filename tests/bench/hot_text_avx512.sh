#!/bin/sh
# Writes the section ordering dladbg is linked with: share/hot-text.order
# (the functions callgrind saw a batch run call, tests/bench/hot_text.sh) and
# the functions an AVX-512 host runs instead, which callgrind cannot see:
# valgrind runs no AVX-512 code, so under it the model takes the paths of a
# host without it.  Left out, the FMA, bit-sliced and 16-kernel cells and the
# helpers only their layers call kept 0.25 MiB more of code resident on
# NN_L0_0 (the kernel maps 64 KiB around each page a call touches).  Taken
# from the objects at each link, so a new one needs no new list: every
# function of an object holding AVX-512 code (less the clones for other
# hosts, and the cold parts), every x86-64-v4 clone, and every ifunc
# resolver (all of them run at start-up, whatever the network).
#
#   sh tests/bench/hot_text_avx512.sh share/hot-text.order OBJECTS... > ORDER
set -eu
list=$1
shift
sections=$(mktemp)
trap 'rm -f "$sections"' EXIT
{
    cat "$list"
    for o in "$@"; do
        objdump -h "$o" | awk '$2 ~ /^\.text\./ { print $2 }' > "$sections"
        grep -E '\.(arch_x86_64_v4|resolver)$' "$sections" || true
        if objdump -d --no-show-raw-insn "$o" | grep -q '%zmm'; then
            grep -v -E -e '\.(default|arch_x86_64_v3)$' -e '^\.text\.unlikely\.' "$sections" || true
        fi
    done
} | LC_ALL=C sort -u
