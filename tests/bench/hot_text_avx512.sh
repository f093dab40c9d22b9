#!/bin/sh
# Writes the section ordering dladbg is linked with: share/hot-text.order
# (the functions callgrind saw a batch run call, the rarest first,
# tests/bench/hot_text.sh) and the functions an AVX-512 host runs instead,
# which callgrind cannot see: valgrind runs no AVX-512 code, so under it the
# model takes the paths of a host without it.  Left out, the FMA, bit-sliced
# and 16-kernel cells and the helpers only their layers call kept 0.25 MiB
# more of code resident on NN_L0_0 (the kernel maps 64 KiB around each page
# a call touches).  Taken from the objects at each link, so a new one needs
# no new list: every function of an object holding AVX-512 code (less the
# clones for other hosts, and the cold parts), every x86-64-v4 clone, and
# every ifunc resolver (all of them run at start-up, whatever the network).
#
#   sh tests/bench/hot_text_avx512.sh share/hot-text.order OBJECTS... > ORDER
set -eu
list=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/owner"
: > "$tmp/added"
k=0
for o in "$@"; do
    k=$((k + 1))
    objdump -h "$o" | awk '$2 ~ /^\.text\./ { print $2 }' > "$tmp/sections"
    awk -v k="$k" '{ print $1, k }' "$tmp/sections" >> "$tmp/owner"
    {
        grep -E '\.(arch_x86_64_v4|resolver)$' "$tmp/sections" || true
        if objdump -d --no-show-raw-insn "$o" | grep -q '%zmm'; then
            grep -v -E -e '\.(default|arch_x86_64_v3)$' -e '^\.text\.unlikely\.' "$tmp/sections" ||
                true
        fi
    } | awk -v k="$k" '{ print k, $1 }' >> "$tmp/added"
done
# The list read twice: the objects it names, then in its order.  An
# object's additions go after the first of its functions the list names (the
# rarest: the list runs from the functions fewest runs call to those all do),
# those the list names itself where it puts them; the additions of objects
# it names none of (the fp16 cells' own files) go first, with the rarest,
# and the resolvers last, with the code every run calls (and libgcc's
# __cpu_indicator_init, which they call, in a .text.startup of its own).
awk 'FNR == 1 { file++ }
     file == 1 { if (!($1 in owner)) owner[$1] = $2; next }
     file == 2 { n[$1]++; add[$1, n[$1]] = $2; if ($1 > last) last = $1; next }
     file == 3 { inlist[$1] = 1; if ($1 in owner) listed[owner[$1]] = 1; next }
     function place(s) { if (!(s in seen)) { seen[s] = 1; print s } }
     function extra(o,   i, s) {
         placed[o] = 1
         for (i = 1; i <= n[o]; i++) {
             s = add[o, i]
             if (!(s in inlist) && s !~ /\.resolver$/)
                 place(s)
         }
     }
     FNR == 1 { for (o = 1; o <= last; o++) if (!(o in listed)) extra(o) }
     { place($1); if (($1 in owner) && !(owner[$1] in placed)) extra(owner[$1]) }
     END {
         for (k in add)
             if (add[k] ~ /\.resolver$/)
                 place(add[k])
         place(".text.startup")
     }' "$tmp/owner" "$tmp/added" "$list" "$list"
