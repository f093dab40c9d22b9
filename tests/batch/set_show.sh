#!/bin/sh
# gdb's set and show: the lines a gdb script begins with (set pagination off,
# set confirm off, set height 0, set width 0) run instead of ending a batch
# run at "unknown command"; set var NAME = VALUE (and set NAME = VALUE)
# write a register as "reg NAME = VALUE" does; what cannot be had (pages on,
# a height other than 0) or is not a setting is an error, exit 2.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

cat > prologue.gdb <<'SCRIPT'
set pagination off
set confirm off
set height 0
set width 0
show confirm
set var SDP.D_DATA_CUBE_WIDTH = 7
print SDP.D_DATA_CUBE_WIDTH
set SDP.D_DATA_CUBE_WIDTH.WIDTH = 0x9
print SDP.D_DATA_CUBE_WIDTH
set confirm
show confirm
show version
SCRIPT
run_exit 0 "a gdb script's settings" --batch -x prologue.gdb sample:lenet
expect_line "$out" 'Whether to confirm potentially dangerous operations is off.'
expect_line "$out" '= 7 (0x7)'
expect_line "$out" '= 9 (0x9)'
expect_line "$out" 'Whether to confirm potentially dangerous operations is on.'
expect_grep "$out" '^dladbg [0-9][0-9.]*$'

run_exit 0 "show" --batch -q -ex show sample:lenet
expect_line "$out" 'State of pagination is off (dladbg never pages its output).'

for bad in 'set pagination on' 'set height 24' 'set confirm maybe' 'set SDP.D_DATA_CUBE_WIDTH' \
    'set' 'show foo' 'set var NOPE.REG = 1' 'set var SDP.D_DATA_CUBE_WIDTH == 3'; do
    run_exit 2 "$bad" --batch -q -ex "$bad" sample:lenet
    expect_grep "$out" "^error: -ex 1: "
done
echo ok
