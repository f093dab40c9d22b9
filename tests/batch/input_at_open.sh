#!/bin/sh
# Inputs are checked when the file is opened, before anything runs: an image
# that does not fit, an unreadable or undecodable file end batch mode with
# exit 2 before the first command of a script (issue 35, item 2).
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir
{
    printf 'P5\n13 12\n255\n'
    head -c 156 /dev/zero
} >wide.pgm
echo 'echo the script ran' >script.dladbg

run_exit 2 "misfit with a script" --batch --image wide.pgm -x script.dladbg sample:lenet
expect_grep "$out" '^dladbg: --image wide.pgm: image 1x1x12x13 (NCHW) does not fit the input tensor 1x1x12x12 int8 (NCHW)'
case $out in *"the script ran"*) fail "the script ran: $out" ;; esac
run_exit 2 "missing file" --batch --input nothing.bin -x script.dladbg sample:lenet
expect_grep "$out" '^dladbg: nothing.bin: cannot open'
case $out in *"the script ran"*) fail "the script ran: $out" ;; esac
printf 'not an image' >junk.jpg
run_exit 2 "not an image" --batch --image junk.jpg -x script.dladbg sample:lenet
expect_grep "$out" '^dladbg: junk.jpg: offset 0: expected a JPEG'
case $out in *"the script ran"*) fail "the script ran: $out" ;; esac
{
    printf 'P5\n12 12\n255\n'
    head -c 144 /dev/zero
} >ok.pgm
# another network's blob as the input, larger than the tensor takes in any
# dtype (in the file's first bytes, or only past them): refused as a misfit
# that names what it holds and the tensor, not as a reader's size limit
# (line and surface strides of 1 byte keep the arrays inside memory 2 of
# sample:lenet, 0x80002000-0x80002c93: tensor ADDR reads memory only)
run_exit 0 "arrays to misfit" --batch -q -ex 'tensor 0x80002000 32x32x8 int8 1 1 save mid.npy' \
    -ex 'tensor 0x80002000 64x64x64 int8 1 1 save big.npy' sample:lenet
for a in 'mid (1, 8, 32, 32)' 'big (1, 64, 64, 64)'; do
    run_exit 2 "a large .npy" --batch --input "${a%% *}.npy" -x script.dladbg sample:lenet
    expect_line "$out" "dladbg: ${a%% *}.npy: holds int8 ${a#* }; the input tensor is 1x1x12x12 int8 (NCHW): expected shape (1, 1, 12, 12) or (1, 12, 12)"
done
run_exit 0 "a fitting image" --batch --image ok.pgm -x script.dladbg sample:lenet
expect_line "$out" 'the script ran'
echo ok
