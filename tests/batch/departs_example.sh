#!/bin/sh
# The README's walk-through of "which layer goes wrong first" on the built-in
# sample network: a good run's "dump tensors" is the reference, the shipped
# script share/examples/departs.dladbg programs layer 2's output scale as a
# bug would, and break mismatch stops right after layer 2 (exit 1, naming it).
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
in_scratch_dir

run_exit 0 "dump tensors" --batch -q -ex 'dump tensors ref' sample:lenet
expect_line "$out" 'Wrote 5 tensors and order.txt to ref (a reference for "compare ref").'
run_exit 0 "the same run against its own dump" --batch -q --compare ref sample:lenet
run_exit 1 "departs.dladbg" --batch --compare ref -x "$top/share/examples/departs.dladbg" sample:lenet
expect_grep "$out" '^Breakpoint 1, layer 2 (SDP) departs from "layer2_sdp": 99th percentile error [0-9.]* LSB > 2; first at (0,0,0,0): got 24, expected 8$'
expect_grep "$out" '^2        SDP   layer2_sdp       1x8x8x8 .* DEPARTS: '
expect_grep "$out" '^error: compare: layer 2 (SDP) departs first from blob "layer2_sdp" (ref/layer2_sdp.npy)'
# the stop comes after layer 2, before the layers after it ran
printf '%s\n' "$out" | grep -q '^Run finished' && fail "the run went on past the departure"
echo ok
