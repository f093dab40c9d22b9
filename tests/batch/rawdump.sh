#!/bin/sh
# --rawdump: the output tensor as nvdla_runtime --rawdump writes output.dimg
# (each element followed by a space, no newline in the file), printed on
# stdout and, with -o, written instead of the DIMG.  The values must be the
# DIMG's elements.  Needs nothing from ../shared.
set -eu
. "$(dirname "$0")/lib.inc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run_exit 0 "dimg" --batch -q -o "$tmp/out.dimg" sample:lenet
# the DIMG payload (after the 36-byte header) as signed bytes, runtime-style
want=$(od -An -v -t d1 -j 36 "$tmp/out.dimg" | tr -s ' \n' '  ' | sed 's/^ //')
[ -n "$want" ] || fail "no DIMG payload"

run_exit 0 "rawdump" --batch -q --rawdump sample:lenet
expect_line "$out" "$want"

run_exit 0 "rawdump -o" --batch -q --rawdump -o "$tmp/raw.txt" sample:lenet
expect_line "$out" "$want"
expect_grep "$out" "output written to $tmp/raw.txt"
[ "$(cat "$tmp/raw.txt"; echo x)" = "${want}x" ] || fail "file holds \"$(cat "$tmp/raw.txt")\""

# a bad output path is an input error and leaves no file behind
run_exit 2 "rawdump to a missing folder" --batch -q --rawdump -o "$tmp/no/such/raw.txt" sample:lenet
[ ! -e "$tmp/no" ] || fail "a folder was created"
expect_grep "$out" "raw.txt: cannot create"
echo ok
