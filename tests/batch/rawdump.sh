#!/bin/sh
# --rawdump: the output tensor as nvdla_runtime --rawdump writes output.dimg
# (each element followed by a space, no newline in the file), printed on
# stdout and, with -o, written instead of the DIMG.  The values must be the
# DIMG's elements; nvdla_runtime's --loadable FILE spelling works.  Needs
# nothing from ../shared.
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

# -q: stdout holds the tensor only (the summary goes to stderr), so it can be
# compared with nvdla_runtime's output as it is
only=$(run_dladbg --batch -q --rawdump sample:lenet 2>/dev/null) || fail "rawdump -q: exit $?"
[ "$only" = "$want" ] || fail "stdout of -q --rawdump is not the tensor alone: \"$only\""

run_exit 0 "rawdump -o" --batch -q --rawdump -o "$tmp/raw.txt" sample:lenet
expect_line "$out" "$want"
expect_grep "$out" "output written to $tmp/raw.txt"
[ "$(cat "$tmp/raw.txt"; echo x)" = "${want}x" ] || fail "file holds \"$(cat "$tmp/raw.txt")\""

# a tensor whose text is longer than one message line (sample:bdma: several
# kilobytes) is printed whole, the same text as the file
run_exit 0 "rawdump of a large tensor" --batch -q --rawdump -o "$tmp/bdma.txt" sample:bdma
[ "$(wc -c < "$tmp/bdma.txt")" -gt 2048 ] || fail "sample:bdma's dump is too short to test"
expect_line "$out" "$(cat "$tmp/bdma.txt")"

# nvdla_runtime's own command line: --loadable FILE is FILE; FILE given twice
# (as --loadable and as the argument, or two --loadable) is a usage error
only=$(run_dladbg --batch -q --loadable sample:lenet --rawdump 2>/dev/null) ||
    fail "--loadable: exit $?"
[ "$only" = "$want" ] || fail "--loadable sample:lenet --rawdump printed \"$only\""
run_exit 2 "--loadable and FILE" --batch -q --loadable sample:lenet --rawdump sample:bdma
expect_grep "$out" "give the file once"
run_exit 2 "--loadable twice" --batch -q --loadable sample:lenet --loadable sample:bdma
expect_grep "$out" "--loadable given twice"

# a bad output path is an input error and leaves no file behind
run_exit 2 "rawdump to a missing folder" --batch -q --rawdump -o "$tmp/no/such/raw.txt" sample:lenet
[ ! -e "$tmp/no" ] || fail "a folder was created"
expect_grep "$out" "raw.txt: cannot create"
echo ok
