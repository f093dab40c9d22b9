#!/bin/sh
# x, dump memory and tensor ADDR on memory no region holds (a new user's
# tour): gdb's "Cannot access memory at address", naming the regions
# nearest it, exit 2; memory the file binds that nothing wrote yet reads
# as zeros, as DRAM holds it after power-on; on a trace, what its DMA wrote
# is memory too (the trace names only what it loads and dumps); "info mem"
# lists the regions.  Needs nothing from ../shared.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

# a loadable: its memories, before anything ran and after
out=$(run_dladbg --batch -q -ex 'x/2w 0x80005000' -ex 'info mem' sample:lenet)
expect_line "$out" "dram:0x80005000: 0x00000000 0x00000000"
expect_grep "$out" "^sample:lenet binds 15 regions of memory:"
expect_line "$out" "  dram 0x8000f000-0x8000f01f (memory 14, output)"
run_exit 2 "x past every region" --batch -q -ex 'x dram:0x90000000' sample:lenet
expect_grep "$out" 'x: Cannot access memory at address dram:0x90000000: no memory sample:lenet binds'
expect_grep "$out" 'nearest: dram 0x8000f000-0x8000f01f (memory 14, output); "info mem" lists'
# a read that runs off a region's end names the first byte outside
run_exit 2 "x off the end" --batch -q -ex 'x/2g 0x8000f018' sample:lenet
expect_grep "$out" 'Cannot access memory at address dram:0x8000f020: '
# between two regions: the one below and the one above
run_exit 2 "x between regions" --batch -q -ex 'x 0x80000800' sample:lenet
expect_grep "$out" 'nearest: dram 0x80000000-0x80000027 (memory 0), dram 0x80001000-0x80001243 (memory 1)'
# no CV-SRAM in this loadable, though nv_full has some
run_exit 2 "x on CV-SRAM" --batch -q -ex 'x cvsram:0x50000000' sample:lenet
expect_grep "$out" 'it binds no cvsram memory'
# dump memory and tensor ADDR ask the same question
run_exit 2 "dump memory off the end" --batch -q -ex 'dump memory out.bin 0x8000f000 +0x40' sample:lenet
expect_grep "$out" 'dump memory: Cannot access memory at address dram:0x8000f020 (the dump spans '
[ ! -e out.bin ] || fail "a refused dump wrote a file"
run_exit 2 "tensor outside" --batch -q -ex 'tensor 0x90000000 4x4x1 int8' sample:lenet
expect_grep "$out" 'tensor: Cannot access memory at address dram:0x90000000: '
out=$(run_dladbg --batch -q -ex run -ex 'dump memory out.bin 0x8000f000 +0x20' \
    -ex 'tensor 0x8000f000 10x1x1 int8' sample:lenet) || fail "dump of the output: exit $?"
[ "$(wc -c <out.bin)" = 32 ] || fail "the output's dump is not 32 bytes"

# a trace: what it loads (DRAM and CV-SRAM) and what its BDMA copies
mkdir t
awk 'BEGIN { for (i = 0; i < 256; i++) printf "0x%02x%s", (i * 13 + 5) % 256, i % 32 == 31 ? "\n" : " " }' >t/source.dat
{
    echo "load_mem 0x80000000 0x100 source.dat"
    echo "load_mem 0x50000000 0x100 source.dat"
    printf 'write_reg 0xffff%s\n' '1000 0x80000000' '1002 0x80100000' '1004 0x0' '1005 0x3' \
        '1006 0x7' '1007 0x20' '1008 0x20' '1009 0x0' '100a 0x100' '100b 0x100' '100c 0x1' \
        '100d 0x1'
    echo wait
    echo "write_reg 0xffff0003 0xffffffff"
} >t/input.txn
out=$(run_dladbg --batch -q --config nv_full -ex 'x/1w 0x80000000' -ex 'x/1w cvsram:0x500000fc' \
    -ex 'info mem' t)
expect_grep "$out" "^dram:0x80000000: 0x"
expect_grep "$out" "^cvsram:0x500000fc: 0x"
expect_line "$out" "  dram 0x80000000-0x800000ff (input.txn:1 load_mem)"
expect_line "$out" "  cvsram 0x50000000-0x500000ff (input.txn:2 load_mem)"
# the BDMA's destination is memory once the copy wrote it, not before
run_exit 2 "x before the DMA wrote" --batch -q --config nv_full -ex 'x 0x80100000' t
expect_grep "$out" 'nothing the run wrote is there (nearest: dram 0x80000000-0x800000ff (input.txn:1 load_mem)'
out=$(run_dladbg --batch -q --config nv_full -ex run -ex 'x/1w 0x80100000' -ex 'x/1w 0x80000000' t) ||
    fail "x after the copy: exit $?"
copy=$(printf '%s\n' "$out" | sed -n 's/^dram:0x80100000: //p')
orig=$(printf '%s\n' "$out" | sed -n 's/^dram:0x80000000: //p')
[ -n "$copy" ] && [ "$copy" = "$orig" ] || fail "the copy reads $copy, its source $orig"
# help x says what unwritten memory reads as
out=$(run_dladbg --batch -q -ex 'help x' sample:lenet)
expect_grep "$out" "bytes there that nothing wrote read as zeros, as the simulated DRAM"
echo ok
