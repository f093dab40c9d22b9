#!/bin/sh
# The debugger's batch scripts: the tour script (break, run, info, reg, step
# layer, back layer, delete, continue to the end, export, quit) exits 0 on our traces and on
# NVIDIA's sanity traces when ../shared is there, and its exports parse.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
in_scratch_dir

out=$(run_dladbg --batch -x "$top/share/examples/tour.dladbg" "$top/traces/bdma_copy") ||
    fail "tour on bdma_copy: exit $?"
# the stop names the breakpoint and the trace line that programmed layer 1
expect_line "$out" "Breakpoint 1: layer 1 programmed"
expect_line "$out" "Breakpoint 1, layer 1 (BDMA) programmed"
expect_grep "$out" "^  at input.txn:26 (write BDMA.CFG_SRC_ADDR_LOW = 0x50000000), cycle [0-9]*, 1 layer done$"
expect_grep "$out" "^CDMA.D_DATAIN_SIZE_0 (group 0) at 0x0501c = 0x00000000"
expect_grep "$out" "^Back at layer boundary 1, cycle [0-9]*\.$"
expect_line "$out" "CBUF: 16 banks of 32768 bytes (256 entries of 128 bytes)"
expect_line "$out" "No layer has used a LUT yet."
expect_line "$out" "(cycles: BDMA, CONV, SDP, PDP calibrated against RTL, whole networks too, the others estimated; counters model-derived)"
expect_grep "$out" "^layers   one row per hardware layer"
# the tour finishes the run it says it finishes, then exports all of it
expect_line "$out" "Deleted 1 breakpoint."
expect_grep "$out" "^Run finished: bdma_copy: 4 checks passed, 0 failed; 2 dumps matched; hardware [0-9]* cycles, first launch to last interrupt (calibrated against RTL)$"
expect_line "$out" "Wrote CSV out.csv (2 rows)."
head -n 1 out.csv | grep -q '^"index","unit","op","group","start_cycle","end_cycle","cycles","macs","bytes_read","bytes_written","stall_cycles","state"' ||
    fail "out.csv header: $(head -n 1 out.csv)"

# every export of a finished run parses, and the exported trace replays
out=$(run_dladbg --batch -x "$top/share/examples/export-all.dladbg" "$top/traces/bdma_copy") ||
    fail "export-all: exit $?"
expect_line "$out" "Wrote CSV layers.csv (2 rows)."
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; d=json.load(open("trace.json")); sys.exit(0 if len([e for e in d["traceEvents"] if e.get("ph")=="X"])==2 else 1)' ||
        fail "trace.json is not the expected JSON"
    python3 -c 'import csv; rows=list(csv.reader(open("regs.csv", newline=""))); assert len(rows)==29, len(rows)' ||
        fail "regs.csv"
fi
grep -q '^\$enddefinitions \$end$' trace.vcd || fail "trace.vcd has no definitions"
out=$(run_dladbg --batch replay) || fail "replaying the exported trace: exit $?"
# 4 reads of the run and, for each of its 2 interrupts, the export's read of
# the mask before the wait
expect_grep "$out" "^replay: 6 checks passed, 0 failed; [0-9]* dumps matched$"

# --batch alone: a line per hardware layer, then the driver's summary.  LeNet's
# DLA part is conv -> relu (SDP, fused) -> pool (PDP) -> fc (conv) -> SDP: two
# CONV, two SDP and one PDP layers; softmax is the CPU task.
out=$(run_dladbg --batch sample:lenet) || fail "sample:lenet: exit $?"
[ "$(printf '%s\n' "$out" | grep -c '^layer [0-9]*: CONV group [01], [0-9]* cycles (calibrated against RTL), programmed in [0-9]*$')" = 2 ] ||
    fail "expected two CONV layers: $out"
[ "$(printf '%s\n' "$out" | grep -c '^layer [0-9]*: SDP group [01], [0-9]* cycles (calibrated against RTL), programmed in [0-9]*$')" = 2 ] ||
    fail "expected two SDP layers: $out"
[ "$(printf '%s\n' "$out" | grep -c '^layer [0-9]*: PDP group [01], [0-9]* cycles (calibrated against RTL), programmed in [0-9]*$')" = 1 ] ||
    fail "expected one PDP layer: $out"
[ "$(printf '%s\n' "$out" | tail -n 1)" = "sample:lenet: 2 of 2 tasks run (1 DLA, 1 EMU), 5 DLA operations" ] ||
    fail "summary: $(printf '%s\n' "$out" | tail -n 1)"
out=$(run_dladbg --batch -q sample:lenet)
[ "$out" = "sample:lenet: 2 of 2 tasks run (1 DLA, 1 EMU), 5 DLA operations" ] || fail "-q: $out"

# our own sample networks (built into dladbg): the tour exits 0 on each with a
# second layer; on a one-layer network its "break layer 1" is refused with the
# range (the plan says how many layers it runs), and the rest of it runs
sed '/^break layer/d' "$top/share/examples/tour.dladbg" >tour-no-break.dladbg
for n in lenet bdma conv sdp pdp cdp rubik; do
    case $n in
    lenet | conv) tour=$top/share/examples/tour.dladbg ;;
    *)
        run_exit 2 "tour on sample:$n" --batch -x "$top/share/examples/tour.dladbg" "sample:$n"
        expect_grep "$out" "break layer: no layer 1: layers are 0..0 (sample:$n runs 1, one per DLA operation)"
        tour=tour-no-break.dladbg
        ;;
    esac
    out=$(run_dladbg --batch -x "$tour" "sample:$n") || fail "tour on sample:$n: exit $?"
    expect_grep "$out" "^Run finished: sample:$n: "
    expect_grep "$out" "^Wrote CSV out.csv ([0-9]* rows*)\.$"
done
out=$(run_dladbg --batch -x "$top/share/examples/tour.dladbg" sample:lenet)
expect_line "$out" "Breakpoint 1, layer 1 (CONV, group 1) programmed"
expect_line "$out" "Wrote CSV out.csv (5 rows)."
# a loadable's run exported as a trace folder replays to the same outputs
run_dladbg --batch -q -ex continue -ex 'export txn lenet_txn' sample:lenet >/dev/null ||
    fail "export txn of sample:lenet"
out=$(run_dladbg --batch -q lenet_txn) || fail "replaying sample:lenet's trace: exit $?"
expect_grep "$out" "^lenet_txn: [0-9]* checks* passed, 0 failed; [0-9]* dumps* matched$"

# NVIDIA's sanity traces (BDMA), when the shared test data is there
data=${NVDLA_TESTDATA:-$top/../shared/testdata}
for t in sanity0 sanity1 sanity2; do
    [ -d "$data/traces/$t" ] || continue
    out=$(run_dladbg --batch -x "$top/share/examples/tour.dladbg" "$data/traces/$t") ||
        fail "tour on $t: exit $?"
    expect_grep "$out" "^Wrote CSV out.csv ([0-9]* rows*)\.$"
    expect_grep "$out" "^Run finished: $t: [0-9]* checks passed, 0 failed"
done
# a v2 trace (nv_small) exported and replayed: the folder names its configuration
t=$data/traces_v2/nv_small/pdp_7x9x10_3x3_int8
if [ -d "$t" ]; then
    run_dladbg --batch -q -ex continue -ex 'export txn pdp_txn' "$t" >/dev/null || fail "export txn of $t"
    out=$(run_dladbg --batch -q pdp_txn) || fail "replaying the nv_small export: exit $?"
    expect_line "$out" "configuration nv_small (the trace was exported from a run on it; use --config to choose another)"
    expect_grep "$out" "^pdp_txn: [0-9]* checks* passed, 0 failed; [0-9]* dumps* matched$"
fi
# a loadable of NVIDIA's, once loadables are supported
if [ -f "$data/loadables/CONV_D_L0_0/CONV_D_L0_0.nvdla" ] &&
    ! run_dladbg --batch -ex quit "$data/loadables/CONV_D_L0_0/CONV_D_L0_0.nvdla" 2>&1 | grep -q "not supported yet"; then
    out=$(run_dladbg --batch -x "$top/share/examples/tour.dladbg" \
        "$data/loadables/CONV_D_L0_0/CONV_D_L0_0.nvdla") || fail "tour on CONV_D_L0_0: exit $?"
    expect_line "$out" "Breakpoint 1, layer 1 (SDP, group 0) programmed"
    run_dladbg --batch -q -x "$top/share/examples/export-all.dladbg" \
        "$data/loadables/CONV_D_L0_0/CONV_D_L0_0.nvdla" >/dev/null || fail "export-all on CONV_D_L0_0"
    out=$(run_dladbg --batch -q replay) || fail "replaying CONV_D_L0_0's trace: exit $?"
    expect_grep "$out" "^replay: [0-9]* checks* passed, 0 failed; [0-9]* dumps* matched$"
fi
echo ok
