#!/bin/sh
# --image / --input / --mean / --normalize on the command line, on the
# built-in LeNet sample (input tensor "image", 1x1x12x12 int8, 32-byte atoms):
# a PGM is converted as nvdla_runtime converts it (255 -> 127, 128 -> 64),
# one that does not fit is an input error naming both shapes, and the option
# errors exit 2.  Needs nothing from ../shared.
set -eu
. "$(dirname "$0")/lib.inc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# pgm W H FILE: a binary PGM whose first row starts 255 128 2, zeros elsewhere
pgm() {
    {
        printf 'P5\n%s %s\n255\n' "$1" "$2"
        printf '\377\200\002'
        head -c $(($1 * $2 - 3)) /dev/zero
    } >"$3"
}

pgm 12 12 "$tmp/ok.pgm"
run_exit 0 "12x12 PGM" --batch --image "$tmp/ok.pgm" -ex step -ex "tensor image" sample:lenet
expect_grep "$out" "^  h=0  *127  *64  *1  *0 "

pgm 13 12 "$tmp/wide.pgm"
run_exit 2 "13x12 PGM" --batch -q --image "$tmp/wide.pgm" sample:lenet
expect_grep "$out" "image 1x1x12x13 (NCHW) does not fit the input tensor 1x1x12x12 int8 (NCHW)"

# int8 tensors ignore --mean and --normalize, as the runtime does, with a warning
run_exit 0 "--mean on int8" --batch -q --image "$tmp/ok.pgm" --mean 10 --normalize 3 sample:lenet
expect_grep "$out" "warning: .*--mean and --normalize ignored: the input tensor is int8"

# raw bytes must be the tensor's whole buffer (4608 bytes: 12 lines of 12 atoms)
head -c 4608 /dev/zero >"$tmp/raw.bin"
run_exit 0 "raw input" --batch -q --input "$tmp/raw.bin" sample:lenet
run_exit 2 "a PGM as raw input" --batch -q --input "$tmp/ok.pgm" sample:lenet
expect_grep "$out" "bytes of raw input do not fit the input tensor 1x1x12x12 int8 (NCHW), a buffer of 4608 bytes (an image? give it with --image)"

run_exit 2 "--image and --input" --batch --image "$tmp/ok.pgm" --input "$tmp/raw.bin" sample:lenet
expect_grep "$out" "use one"
run_exit 2 "--normalize 0" --batch --normalize 0 sample:lenet
expect_grep "$out" "expected an integer from 1 to 255"
run_exit 2 "--mean x" --batch --mean 1,x sample:lenet
expect_grep "$out" "comma-separated numbers"

# a register trace loads its own memory: an input file for it is said to go nowhere
top=$(cd "$(dirname "$0")/../.." && pwd)
run_exit 0 "--image on a trace" --batch -q --image "$tmp/ok.pgm" "$top/traces/bdma_copy"
expect_grep "$out" "warning: --image ignored: .*bdma_copy is a register trace, not a loadable"
echo ok
