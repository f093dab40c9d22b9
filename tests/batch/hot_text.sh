#!/bin/sh
# The functions a batch run calls (share/hot-text.order) lie together in
# dladbg's text, so the kernel's 64 KiB of code mapped around each page a
# call touches holds them and little else (issue 34's memory target: a small
# network's peak RSS fell by 0.3-0.4 MiB).  The list is still the program's:
# most of its names are functions of the binary.  Those an AVX-512 host runs
# instead, which callgrind cannot see, are in the link's list too
# ($BUILD/hot-text.order, tests/bench/hot_text_avx512.sh).  Skipped where the
# Makefile does not link with the list: sanitizer builds (SAN=1), no ld.gold.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$top/share/hot-text.order" ] || fail "no $top/share/hot-text.order"
[ -z "${SAN:-}" ] && command -v ld.gold >/dev/null || exit 77
order="$top/${BUILD:-build}/hot-text.order"
[ -f "$order" ] || fail "no $order: the link's list (make)"
command -v nm >/dev/null && command -v readelf >/dev/null || exit 77
readelf -SW "$DLADBG" | grep -q '\.note\.gnu\.gold-version' ||
    fail "$DLADBG was not linked by gold with $order"

# the listed names (sections .text.NAME, .text.startup.NAME, .text.unlikely.NAME)
names=$(sed -e 's/^\.text\.startup\.//' -e 's/^\.text\.unlikely\.//' -e 's/^\.text\.//' "$order" |
    sort -u)
# every function of the binary: address, size, name (a NAME.cold part counts as NAME)
nm -S "$DLADBG" | awk 'NF == 4 && ($3 == "t" || $3 == "T") { print $1, $2, $4 }' |
    sed 's/\.cold$//' > "${TMPDIR:-/tmp}/hot_text.$$"
trap 'rm -f "${TMPDIR:-/tmp}/hot_text.$$"' EXIT
result=$(printf '%s\n' "$names" | awk -v funcs="${TMPDIR:-/tmp}/hot_text.$$" '
    function hex(h,   v, i) { v = 0; h = tolower(h)
        for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
        return v }
    BEGIN { while ((getline l < funcs) > 0) { split(l, f, " "); addr[f[3]] = f[1]; size[f[3]] = f[2] } }
    { listed++
      if (!($1 in addr)) next
      found++
      a = hex(addr[$1]); s = hex(size[$1])
      if (lo == "" || a < lo) lo = a
      if (a + s > hi) hi = a + s
      sum += s }
    END { printf "%d %d %d %d\n", listed, found, hi - lo, sum }')
set -- $result
listed=$1 found=$2 span=$3 sum=$4
[ "$found" -ge $((listed * 8 / 10)) ] ||
    fail "only $found of the $listed functions of $order are in $DLADBG: write share/hot-text.order again (tests/bench/hot_text.sh)"
# together: within their own size and a little alignment, not spread over the
# whole text (1.4 MB, the listed functions some 0.3 MB)
[ "$span" -le $((sum * 3 / 2 + 65536)) ] ||
    fail "the $found listed functions ($sum bytes) are spread over $span bytes of $DLADBG"
# and they hold what an AVX-512 host runs: every function with AVX-512 code
# is listed (else each left out keeps 64 KiB of code resident wherever it
# lies)
command -v objdump >/dev/null || exit 77
missing=$(objdump -d --no-show-raw-insn "$DLADBG" |
    awk '/^[0-9a-f]+ <.*>:$/ { fn = substr($2, 2, length($2) - 3) } /%zmm/ { print fn }' |
    sed 's/\.cold$//' | sort -u | while read -r fn; do
        printf '%s\n' "$names" | grep -qxF "$fn" || printf '%s ' "$fn"
    done)
[ -z "$missing" ] ||
    fail "AVX-512 functions not in $order: $missing"
# and the rarest first: the ifunc resolvers, which every run calls at
# start-up, lie after the fp16 cells, which no int8 network calls (next to
# .rodata, whose first window every run reads)
cells=$(nm "$DLADBG" | awk '$3 == "cmac_fp16_fma_layout" { print $1 }')
[ -n "$cells" ] || fail "no cmac_fp16_fma_layout in $DLADBG"
# (nm's addresses compared as the strings they are, all 16 digits: awk took
# one such as 000000000050e020 for the number 50e20 and another for 568750)
early=$(nm "$DLADBG" | awk -v c="$cells" '$3 ~ /\.resolver$/ && ($1 "") < (c "") { printf "%s ", $3 }')
[ -z "$early" ] || fail "resolvers laid out before the fp16 cells: $early"
echo "hot text: $found of $listed functions, $sum bytes within $span"
