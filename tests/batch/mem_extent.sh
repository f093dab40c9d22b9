#!/bin/sh
# x, dump memory and tensor ADDR over a range that starts in memory and runs
# past it: each is judged by every byte it reads, not its first.  x shows
# the units before the first byte that is no memory and then gdb's "Cannot
# access memory at address ..." (exit 2); dump memory writes nothing; a
# tensor described by hand, a layer's surface as its registers place it and
# a loadable's tensor (tests/unit/test_cmd_tensor.c) are refused when their
# extent (shape, strides and atoms) runs past, naming the first byte outside
# and the extent.
# sample:lenet's output, memory 14, is dram 0x8000f000-0x8000f01f.  Needs
# nothing from ../shared.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

msg='Cannot access memory at address dram:0x8000f020'
# x: the giant word inside is shown, then the error
run_exit 2 "x across the end" --batch -q -ex 'x/4g 0x8000f010' sample:lenet
expect_line "$out" "dram:0x8000f010: 0x0000000000000000 0x0000000000000000"
expect_grep "$out" "x: $msg: no memory sample:lenet binds"
# a unit straddling the end is not shown: the error comes first
run_exit 2 "x straddling the end" --batch -q -ex 'x/2w 0x8000f01e' sample:lenet
expect_grep "$out" "x: Cannot access memory at address dram:0x8000f020"
if printf '%s\n' "$out" | grep -q '^dram:0x8000f01e:'; then fail "x showed a word past the memory"; fi
# dump memory: all or nothing, the extent named
run_exit 2 "dump across the end" --batch -q -ex 'dump memory out.bin 0x8000f000 +0x40' sample:lenet
expect_grep "$out" "dump memory: $msg (the dump spans dram:0x8000f000-0x8000f03f, 64 bytes): "
[ ! -e out.bin ] || fail "a refused dump wrote a file"
# tensor ADDR: 4x4x1 int8 in 32-byte atoms spans 512 bytes; its first byte is memory
run_exit 2 "tensor across the end" --batch -q -ex 'tensor 0x8000f000 4x4x1 int8' sample:lenet
expect_grep "$out" "tensor: $msg (the tensor spans dram:0x8000f000-0x8000f1ff, 512 bytes): "
# strides count: one row of 1x1x1 is inside, a second row 0x20 further is not
run_exit 2 "tensor with a line stride past the end" --batch -q -ex 'tensor 0x8000f000 1x2x1 int8 0x20' \
    sample:lenet
expect_grep "$out" "tensor: $msg (the tensor spans dram:0x8000f000-0x8000f03f, 64 bytes): "
# tensor layer N: a PDP layer of 8x4x4 int8 (512 bytes) poked, after the run,
# to write 256 bytes before the end of the 64 KiB the run wrote (the poke
# starts layer 5, programmed)
run_exit 2 "tensor layer across the end" --batch -q -ex run \
    -ex 'reg PDP.D_DST_BASE_ADDR_LOW@0 = 0x8000ff00' -ex 'tensor layer 5' sample:lenet
expect_grep "$out" "tensor: layer 5 output, as its registers place it: Cannot access memory at address dram:0x80010000 (the tensor spans dram:0x8000ff00-0x800100ff, 512 bytes): "
if printf '%s\n' "$out" | grep -q '^tensor layer 5 output'; then fail "tensor layer 5 was shown"; fi
# what fits is shown
out=$(run_dladbg --batch -q -ex 'tensor 0x8000f000 1x1x1 int8' -ex 'x/4g 0x8000f000' sample:lenet) ||
    fail "a tensor and x inside the memory: exit $?"
expect_grep "$out" "^tensor dram 0x8000f000: N=1 C=1 H=1 W=1 int8"
expect_line "$out" "dram:0x8000f010: 0x0000000000000000 0x0000000000000000"
echo ok
