#!/bin/sh
# Hang diagnosis: a trace waiting for an interrupt that is masked, and one
# waiting for an operation never launched, stop instead of spinning and say
# what waits on what, the units' state and the interrupt status and mask by name.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)

run_exit 1 "masked interrupt" --batch "$top/traces/hang_masked_intr"
expect_line "$out" "error: no progress: input.txn:19: waiting for interrupt, but the hardware is idle"
expect_line "$out" "  trace: at input.txn:19 (wait), command 15 of 15"
expect_line "$out" "  GLB.S_INTR_STATUS 0x00000040 BDMA_DONE_STATUS0"
expect_line "$out" "  GLB.S_INTR_MASK   0x000000c0 BDMA_DONE_MASK0 BDMA_DONE_MASK1"
expect_line "$out" "  pending but masked (the interrupt line stays low): BDMA_DONE_STATUS0"
expect_grep "$out" "^    SDP       group0 idle     group1 idle"

run_exit 1 "never launched" --batch -x "$top/share/examples/hang.dladbg" "$top/traces/hang_never_launched"
expect_line "$out" "  layer 0: BDMA programming (operations queued, never launched: no CFG_LAUNCH0/1 write)"
expect_line "$out" "interrupt line: low"
# a run that finished is no hang: "info hang" says so instead of "no progress"
run_exit 0 "info hang after the end" --batch -ex run -ex 'info hang' "$top/traces/bdma_copy"
expect_grep "$out" "^No hang: the run finished at cycle [0-9]*; nothing waits\.$"
printf '%s\n' "$out" | grep -q "no progress" && fail "info hang after the end reports no progress"
echo ok
