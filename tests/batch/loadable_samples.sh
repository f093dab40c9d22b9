#!/bin/sh
# The project's own sample networks in batch mode: every built-in sample runs
# to completion, writes a DIMG, and the files dladbg-mknet generated at build
# time load the same way.  Needs nothing from ../shared.
set -eu
. "$(dirname "$0")/lib.inc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for s in lenet bdma conv sdp pdp cdp rubik; do
    run_exit 0 "sample:$s" --batch -q -o "$tmp/$s.dimg" "sample:$s"
    expect_grep "$out" "^sample:$s: .* tasks run"
    [ "$(head -c 4 "$tmp/$s.dimg")" = DIMG ] || fail "sample:$s: no DIMG written"
done
# lenet runs a DLA task and the CPU softmax
out=$(run_dladbg --batch -q sample:lenet 2>&1)
expect_grep "$out" "2 of 2 tasks run (1 DLA, 1 EMU), 5 DLA operations"
# the BDMA sample's copy is exact: the DIMG holds the source pattern, so two
# runs agree byte for byte
run_dladbg --batch -q -o "$tmp/again.dimg" sample:bdma >/dev/null 2>&1
cmp -s "$tmp/bdma.dimg" "$tmp/again.dimg" || fail "sample:bdma: output differs between runs"

# files written by dladbg-mknet at build time
samples="${BUILD:-build}/samples"
[ -f "$samples/lenet.nvdla" ] || fail "$samples/lenet.nvdla was not generated"
run_dladbg --batch -q -o "$tmp/file.dimg" "$samples/bdma.nvdla" >/dev/null 2>&1 ||
    fail "$samples/bdma.nvdla: exit $?"
cmp -s "$tmp/bdma.dimg" "$tmp/file.dimg" || fail "file and built-in bdma sample differ"

# a sample keeps its values from one version to the next (the bench's
# whole-network figures are compared across runs, and a speed-up of the
# generator must draw the same numbers): the files' checksums, pinned
# (lenet's moved once without a value changing: its EMU blobs' version tag
# became NVIDIA's 0.0.1, which the runtime checks)
for pair in lenet:1344506256 resnet18:2606183319 resnet50:1336411694; do
    s=${pair%%:*} want=${pair##*:}
    got=$(cksum <"$samples/$s.nvdla" | cut -d' ' -f1)
    [ "$got" = "$want" ] || fail "$samples/$s.nvdla: checksum $got, expected $want (sample values changed)"
done
mknet="${BUILD:-build}/dladbg-mknet"
"$mknet" --help | grep -q '^usage: dladbg-mknet' || fail "dladbg-mknet --help"
if "$mknet" --bogus 2>"$tmp/err"; then fail "dladbg-mknet --bogus: exit 0"; fi
grep -q '^usage:' "$tmp/err" || fail "dladbg-mknet --bogus: no usage"
"$mknet" lenet "$tmp/lenet.nvdla" && cmp -s "$tmp/lenet.nvdla" "$samples/lenet.nvdla" ||
    fail "dladbg-mknet NAME FILE differs from the build's sample"
if "$mknet" lenet /dev/full 2>/dev/null; then fail "dladbg-mknet to /dev/full: exit 0"; fi

# the ResNet-shaped samples: ImageNet input and a 1000-way output, fp16 and int8
for pair in resnet18:fp16 resnet50:int8; do
    s=${pair%%:*} ty=${pair##*:}
    out=$(run_dladbg --batch -ex "info tensors" "sample:$s" 2>&1)
    expect_grep "$out" "input .* NCHW 1x3x224x224 $ty"
    expect_grep "$out" "NCHW 1x1000x1x1 $ty"
done

# an unknown sample is an input error
run_exit 2 "sample:nosuch" --batch sample:nosuch
expect_grep "$out" "no such sample"
# a typo of a sample's name gets its nearest name, on the command line and by "file"
run_exit 2 "sample:lenett" --batch sample:lenett
expect_grep "$out" 'no such sample; did you mean "sample:lenet"?'
run_exit 2 "file sample:resnt18" --batch -ex 'file sample:resnt18' sample:lenet
expect_grep "$out" 'did you mean "sample:resnet18"?'
echo ok
