#!/bin/sh
# "info perf"'s DMA clients' totals give each client's bytes by memory, as
# its layer lines do, where the configuration has CV-SRAM: traces/bdma_copy
# copies 2048 bytes DRAM -> CV-SRAM (layer 0), then 1024 bytes CV-SRAM ->
# DRAM (layer 1), so BDMA's read client moved 2048 DRAM and 1024 CV-SRAM
# bytes and its write client the other way round; the host loaded its 2048
# bytes into DRAM.  Mid-run, after layer 0, only its bytes are counted, and
# so after the run and two steps back (the counts are the run's state).
# Where the configuration has no CV-SRAM (nv_small), the heading says all
# are DRAM's.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)

clients() { printf '%s\n' "$out" | sed -n '/^DMA clients over the whole run/,/^whole run:/p'; }

run_exit 0 "bdma_copy" --batch -q --config nv_full -ex run -ex 'info perf' -ex 'help info perf' \
    "$top/traces/bdma_copy"
expect_line "$(clients)" "DMA clients over the whole run:"
expect_line "$(clients)" "  host               2048 bytes in 1 transactions (DRAM 2048, CV-SRAM 0)"
expect_line "$(clients)" "  bdma.rd            3072 bytes in 48 transactions (DRAM 2048, CV-SRAM 1024)"
expect_line "$(clients)" "  bdma.wr            3072 bytes in 48 transactions (DRAM 1024, CV-SRAM 2048)"
expect_grep "$out" "totals (their bytes by memory likewise; model-derived);"

run_exit 0 "bdma_copy, layer 0 done" --batch -q --config nv_full -ex 'break layer 1' -ex run \
    -ex 'info perf' "$top/traces/bdma_copy"
expect_line "$(clients)" "  bdma.rd            2048 bytes in 32 transactions (DRAM 2048, CV-SRAM 0)"
expect_line "$(clients)" "  bdma.wr            2048 bytes in 32 transactions (DRAM 0, CV-SRAM 2048)"

run_exit 0 "bdma_copy, back to layer 0" --batch -q --config nv_full -ex run -ex 'back layer' \
    -ex 'back layer' -ex 'info perf' "$top/traces/bdma_copy"
expect_line "$(clients)" "  bdma.rd            2048 bytes in 32 transactions (DRAM 2048, CV-SRAM 0)"
expect_line "$(clients)" "  bdma.wr            2048 bytes in 32 transactions (DRAM 0, CV-SRAM 2048)"

run_exit 0 "nv_small" --batch -q --config nv_small -ex run -ex 'info perf' sample:sdp
expect_line "$(clients)" "DMA clients over the whole run (all DRAM):"
expect_line "$(clients)" "  sdp.wdma            256 bytes in 32 transactions"
echo ok
