#!/bin/sh
# Hostile loadables in batch mode: truncated, corrupted, empty and absurd
# files end with exit 2 and "FILE: offset N: ... expected ...", never a crash
# or a hang.
set -eu
. "$(dirname "$0")/lib.inc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src="${BUILD:-build}/samples/sdp.nvdla"
[ -f "$src" ] || fail "$src was not generated"
size=$(wc -c <"$src")

expect_input_error() { # file what
    set +e
    out=$(timeout 60 "$DLADBG" --batch -q "$1" 2>&1); rc=$?
    set -e
    [ $rc -eq 2 ] || { printf '%s\n' "$out" >&2; fail "$2: exit $rc, expected 2"; }
    printf '%s\n' "$out" | grep -q "$(basename "$1"): offset [0-9]*: .*expected" ||
        { printf '%s\n' "$out" >&2; fail "$2: no 'offset N: expected' message"; }
}

for n in 0 7 8 100 1000 $((size / 2)) $((size - 1)); do
    head -c "$n" "$src" >"$tmp/trunc$n.nvdla"
    expect_input_error "$tmp/trunc$n.nvdla" "truncated to $n bytes"
done
# root offset pointing past the end
cp "$src" "$tmp/root.nvdla"
printf '\377\377\377\177' | dd of="$tmp/root.nvdla" bs=1 seek=0 conv=notrunc 2>/dev/null
expect_input_error "$tmp/root.nvdla" "root offset"
# random garbage
head -c 5000 /dev/zero | tr '\0' '\125' >"$tmp/garbage.nvdla"
expect_input_error "$tmp/garbage.nvdla" "garbage"
# a byte flipped in many places: any outcome but a crash or a hang
i=0
while [ $i -lt 40 ]; do
    cp "$src" "$tmp/flip.nvdla"
    at=$(( (i * 7919) % size ))
    printf '\377' | dd of="$tmp/flip.nvdla" bs=1 seek=$at conv=notrunc 2>/dev/null
    set +e
    timeout 60 "$DLADBG" --batch -q "$tmp/flip.nvdla" >/dev/null 2>&1; rc=$?
    set -e
    [ $rc -le 2 ] || fail "byte 0x$(printf %x $at) flipped: exit $rc (crash or hang)"
    i=$((i + 1))
done
echo ok
