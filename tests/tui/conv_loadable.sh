#!/bin/sh
# NVIDIA's CONV_D_L0_0 loadable (direct convolution through SDP), driven from
# the keyboard: a layer step shows the convolution's registers, its CBUF banks
# (data and weights, owned by layer 0), its DMA and a timeline bar; the run
# finishes with the runtime's summary.  Needs ../shared/testdata.
. "$(dirname "$0")/lib.inc"

data=${NVDLA_TESTDATA:-$top/../shared/testdata}
file="$data/loadables/CONV_D_L0_0/CONV_D_L0_0.nvdla"
[ -f "$file" ] || { echo "skip: no $file (NVIDIA's test data)"; exit 77; }

tui_start "$file"
# the first frame comes before the file is open (issue 35 item 10): wait for it
wait_for '^ dladbg | CONV_D_L0_0.nvdla | nv_full | layer 0/'
keys n
wait_for 'layer 1/'
expect_screen '^│ *0 done  *CONV  0 -  *[0-9][0-9]*  op0  c'
wait_for '2 Registers CDMA group 0 (layer 0;'
# the convolution's input cube as programmed: 8x8x128
keys 2 /
type_text D_DATAIN_SIZE_0
keys Enter
wait_for '││. D_DATAIN_SIZE_0  *0x00070007 .*DATAIN_WIDTH=7 DATAIN_HEIGHT=7'
keys 3
wait_for '3 CBUF'
expect_screen 'B00 D'
expect_screen 'owners: L0 data x[0-9]* L0 weight x[0-9]*'
keys 6
wait_for '6 Memory'
expect_screen 'cdma.dat *R *dram'
keys 7
expect_screen '^│CONV  .*0'
keys c
wait_for 'Run finished: CONV_D_L0_0.nvdla: 1 of 1 tasks run'
expect_screen 'layer 2/2'
keys 1 j 5
wait_for 'layer 1 SDP group 0'
expect_screen 'sdp.wdma *4096 B'
keys q
wait_exit
[ "$status" = 0 ] || fail "exit status $status"
expect_restored
