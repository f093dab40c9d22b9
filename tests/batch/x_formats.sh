#!/bin/sh
# gdb's format letters: x/NFU takes x d u o t c f (f: h fp16, w float, g
# double) beside the sizes, print/F and output/F show the value in that one
# format; print without one shows decimal and hex as before; a letter gdb
# would refuse (or a 1-byte float) is an error, exit 2.  sample:lenet's DRAM
# at 0x80000000 begins 01 00 02 00 03 00 04 00 ff ff ff ff ff ff 00 00.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

x() { # FORMAT EXPECTED
    run_exit 0 "x$1" --batch -q -ex run -ex "x$1 0x80000000" sample:lenet
    expect_line "$out" "dram:0x80000000: $2"
}
x '/4xw' '0x00020001 0x00040003 0xffffffff 0x0000ffff'
x '/4w' '0x00020001 0x00040003 0xffffffff 0x0000ffff'
x '/4dw' '131073 262147 -1 65535'
x '/4uw' '131073 262147 4294967295 65535'
x '/8db' '1 0 2 0 3 0 4 0'
x '/4hd' '1 2 3 4'
x '/2tb' '00000001 00000000'
x '/4ob' '01 0 02 0'
x '/2c' "1 '\\001' 0 '\\000'"
x '/4fh' '5.9605e-08 1.1921e-07 1.7881e-07 2.3842e-07'
x '/fw' '1.83672394e-40'

p() { # EXPR-WITH-FORMAT EXPECTED
    run_exit 0 "$1" --batch -q -ex "$1" sample:lenet
    expect_line "$out" "$2"
}
p 'p/x 255' '= 0xff'
p 'p/d 0xff' '= 255'
p 'p/t 5' '= 101'
p 'p/o 8' '= 010'
p 'p/c 65' "= 65 'A'"
p 'p/x -1' '= 0xffffffffffffffff'
p 'p/f 3' '= 3'
p 'print 7' '= 7 (0x7)'
p 'output/x 255' '0xff'

for bad in 'x/fb 0x80000000' 'x/4zb 0x80000000' 'p/q 1' 'print/xx 1' 'output/f 1'; do
    run_exit 2 "$bad" --batch -q -ex run -ex "$bad" sample:lenet
    expect_grep "$out" '^error: -ex 2: '
done
echo ok
