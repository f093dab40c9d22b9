#!/bin/sh
# What dladbg says, in hardware terms (issue 16 items 1-5, issue 11 item 7):
# stops name the layer that completed and what comes next; "where" names the
# file once; a loadable's tasks, operations and tensors are listed before it
# runs; one name per layer state; the work column says what each unit
# counts; a poke after the end says what it does to the layer accounting and
# a layer never enabled is no layer of the run; stepping crosses the DLA and
# EMU tasks and steps back across them.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
in_scratch_dir

# --- stops and where (sample:lenet: conv -> sdp -> pdp -> conv -> sdp, then softmax)
out=$(run_dladbg --batch -ex next -ex where -ex 'step write' sample:lenet) || fail "next: exit $?"
expect_grep "$out" '^layer 0 (CONV, group 0) done at cycle [0-9]*; next: layer [0-9]* ([A-Z]*, group [01]) [a-z]*'
expect_grep "$out" '^  at sample:lenet: task 0 interrupt (write GLB.S_INTR_STATUS = 0x[0-9a-f]*), cycle [0-9]*, 1 layer done$'
# where: the file once, then what the hardware does next and the driver's place
expect_grep "$out" '^at sample:lenet: task 0 interrupt'
printf '%s\n' "$out" | grep -q 'sample:lenet: at sample:lenet' && fail "where doubles its prefix"
expect_grep "$out" '^next: '
expect_grep "$out" '^  driver: sample:lenet: '
# a write step that changes no layer says so
expect_grep "$out" '; next: '

# --- the plan before the run: tasks, operations (to come) and tensors
out=$(run_dladbg --batch -ex 'info tasks' -ex 'info layers' sample:lenet) || fail "plan: exit $?"
expect_line "$out" "task 0: DLA task 0, 5 operations, tensors image: to come"
expect_line "$out" "task 1: EMU (CPU) task 1, tensors probabilities: to come"
expect_grep "$out" '^    op 0    CONV  to come  *12x12x1 -> 8x8x8 (on the fly)  \[image ->\]$'
expect_line "$out" "No hardware layer has been programmed yet."
expect_line "$out" "Operations to come (no hardware layer has run them yet):"
[ "$(printf '%s\n' "$out" | grep -c '^  [A-Z]* *task 0 op [0-9] *to come')" = 5 ] ||
    fail "info layers does not list the five operations to come: $out"

# --- during and after: the layer that ran each operation, one state name each,
# MACs only where they are MACs
out=$(run_dladbg --batch -ex next -ex 'info layers' -ex 'info tasks' sample:lenet) || fail "exit $?"
expect_grep "$out" '^0     CONV  0     done  .* [0-9]* MACs  .*\[task 0 op 0: image ->\]$'
expect_grep "$out" '^2     SDP   0     [a-z]*  .* [0-9]* elements  .*\[task 0 op 1\]$'
expect_grep "$out" '^    op 0    CONV  layer 0 done '
expect_line "$out" "task 0: DLA task 0, 5 operations, tensors image: running since cycle 0"
printf '%s\n' "$out" | grep -q 'programmed\|pending' && fail "a state named otherwise: $out"
# "info layers brief" mid-run: a layer not launched has no cycles to call
# calibrated, a running one's are so far
out=$(run_dladbg --batch -ex 'break layer 3' -ex run -ex 'info layers brief' sample:lenet) ||
    fail "brief: exit $?"
expect_line "$out" "layer 1: CONV group 1, not launched yet, programming"
expect_grep "$out" '^layer 0: CONV group 0, [0-9]* cycles so far (calibrated against RTL), programmed in [0-9]*, running$'
printf '%s\n' "$out" | grep -q ' 0 cycles (' && fail "a layer not launched has 0 cycles: $out"
out=$(run_dladbg --batch -ex continue -ex 'info layers' -ex 'export csv perf.csv --decoder perf' \
    sample:pdp) || fail "sample:pdp: exit $?"
expect_grep "$out" '^[0-9]*     PDP   [01]     done  .* [0-9]* pool reads '
tr -d '\r' <perf.csv | grep -q '^"[0-9]*","PDP","work_pool_reads","[0-9]*"$' || fail "perf.csv: $(cat perf.csv)"
grep -q '"macs"' perf.csv && fail "perf.csv calls PDP's work MACs"
out=$(run_dladbg --batch -ex continue -ex 'info layers' sample:bdma) || fail "sample:bdma: exit $?"
expect_grep "$out" '^[0-9]*     BDMA  [01-]     done  .* [0-9]* bytes '

# --- a poke after the end starts a layer that is never enabled: said, shown,
# not counted, not exported
out=$(run_dladbg --batch -ex continue -ex 'reg SDP.D_DATA_CUBE_WIDTH = 5' \
    -ex 'reg SDP.D_DATA_CUBE_HEIGHT = 5' -ex 'info layers' -ex 'info layers brief' \
    -ex 'export csv layers.csv --decoder layers' sample:sdp) || fail "poke: exit $?"
n=$(run_dladbg --batch -q -ex continue -ex 'info layers brief' sample:sdp | grep -c '^layer ')
expect_grep "$out" "^This write starts layer $n (SDP, group [01]) programming: it counts as a layer of the run only once its operation is enabled (the run is over: until then it shows as never enabled)\.$"
expect_grep "$out" "^Part of layer $n (SDP, group [01]) programming\.$"
expect_grep "$out" "^$n     SDP   [01]     never enabled "
expect_line "$out" "(registers of SDP group 0 written but never enabled: not a layer of the run)"
[ "$(printf '%s\n' "$out" | grep -c '^layer [0-9]*: ')" = "$n" ] || fail "the never-enabled layer was counted"
expect_grep "$out" "^Wrote CSV layers.csv ($n rows*)\.$"

# --- stepping over the DLA task and the EMU task, and back across the EMU task:
# the softmax output is written by the CPU task and undone by "back"
out=$(run_dladbg --batch -ex 'step task' -ex 'x/1w 0x8000f000' -ex 'step task' \
    -ex 'x/1w 0x8000f000' -ex back -ex 'x/1w 0x8000f000' -ex 'info tasks' -ex 'step task' \
    -ex 'step task' -ex 'x/1w 0x8000f000' sample:lenet) || fail "tasks: exit $?"
expect_grep "$out" '^DLA task 0 done at cycle [0-9]*, 5 layers done, the last: layer [0-9] (SDP, group [01]) done at cycle [0-9]*; next: EMU task 1 begins$'
expect_grep "$out" '^EMU task 1 done at cycle [0-9]*; next: the end of the run$'
expect_grep "$out" '^Back at layer boundary 5, cycle [0-9]*\.$'
expect_line "$out" "task 1: EMU (CPU) task 1, tensors probabilities: to come"
[ "$(printf '%s\n' "$out" | grep -c '^EMU task 1 done at cycle')" = 2 ] || fail "EMU task not rerun: $out"
words=$(printf '%s\n' "$out" | sed -n 's/^dram:0x8000f000: *//p' | tr '\n' ' ')
set -- $words
[ $# = 4 ] || fail "expected four reads of the output tensor: $words"
[ "$1" = 0x00000000 ] && [ "$3" = 0x00000000 ] || fail "before the EMU task and after back: $words"
[ "$2" != 0x00000000 ] && [ "$2" = "$4" ] || fail "the EMU task's output, again after back: $words"

# NVIDIA's LeNet (two EMU tasks around the DLA task), when the shared data is there
nn=${NVDLA_TESTDATA:-$top/../shared/testdata}/loadables/NN_L0_0/NN_L0_0.nvdla
if [ -f "$nn" ]; then
    out=$(run_dladbg --batch -ex 'info tasks' -ex 'step task' -ex 'step task' -ex back \
        -ex 'step task' -ex 'step task' "$nn") || fail "NN_L0_0: exit $?"
    expect_line "$out" "task 1: DLA task 1, 11 operations, tensors data prob: to come"
    expect_grep "$out" '^EMU task 0 done at cycle 0; next: DLA task 1 begins$'
    expect_grep "$out" '^DLA task 1 done at cycle [0-9]*, 11 layers done, .*; next: EMU task 2 begins$'
    expect_grep "$out" '^EMU task 2 done at cycle [0-9]*; next: the end of the run$'
    # the issue's example: the layer that completed, and the one the driver enables next
    out=$(run_dladbg --batch -ex 'next 5' "$nn") || fail "NN_L0_0 next 5: exit $?"
    expect_grep "$out" ', 5 layers done, the last: layer 3 (SDP, group 1) done at cycle [0-9]*; next: .*layer [0-9]* ([A-Z]*, group [01]) programming'
fi
echo ok
