#!/bin/sh
# The TUI says where a whole run's cycles come from: LeNet on nv_small, whose
# whole networks were compared with NVIDIA's RTL, finishes with "calibrated
# against RTL" after its hardware cycles, and the timeline's title says
# whole networks are calibrated too (issue 38).
. "$(dirname "$0")/lib.inc"
net=${NVDLA_TESTDATA:-$top/../shared/testdata}/networks/lenet-mnist
[ -f "$net/fast-math.nvdla" ] || { echo "skip: no $net"; exit 77; }

tui_start --config nv_small --image "$net/images/125_5.jpg" "$net/fast-math.nvdla"
keys F5
wait_for 'Run finished: fast-math.nvdla: .*; hardware [0-9]* cycles'
wait_for 'last interrupt (calibrated against RTL)'
wait_for 'Timeline .* calibrated against RTL, whole networks'
quit_now
echo ok
