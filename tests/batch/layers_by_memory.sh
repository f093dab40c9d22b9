#!/bin/sh
# "info layers" says which memory its bytes are: read and written are every
# byte the layer's DMA moved, and where the configuration has CV-SRAM the
# same bytes by memory follow, DRAM's and CV-SRAM's, as "info perf" gives
# them; where it has none, a note says they are all DRAM's.
# traces/bdma_copy copies DRAM -> CV-SRAM (layer 0, 2048 bytes) and back
# (layer 1, 1024 bytes): half of each layer's bytes are CV-SRAM's;
# sample:lenet on nv_full uses no CV-SRAM; nv_small has none.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)

# by_memory: "LAYER READ WRITTEN DRAM CVSRAM" of each row, each number the
# ten characters that end where its right-aligned heading does
by_memory() {
    printf '%s\n' "$out" | awk '
        function cell(name) { return substr($0, end[name] - 9, 10) + 0 }
        $1 == "layer" && $2 == "unit" {
            n = split("read written DRAM CV-SRAM", names, " ")
            for (i = 1; i <= n; i++)
                if (p = index($0, " " names[i] " "))
                    end[names[i]] = p + length(names[i])
            on = ("CV-SRAM" in end)
            next
        }
        on && $1 ~ /^[0-9]+$/ {
            print $1, cell("read"), cell("written"), cell("DRAM"), cell("CV-SRAM") }
        on && $1 !~ /^[0-9]+$/ { on = 0 }'
}
# perf_by_memory: the same of "info perf"'s lines
perf_by_memory() {
    printf '%s\n' "$out" | sed -n 's/^layer \([0-9]*\) (.*, \([0-9]*\) bytes read, \([0-9]*\) written (DRAM \([0-9]*\), CV-SRAM \([0-9]*\))$/\1 \2 \3 \4 \5/p'
}

run_exit 0 "bdma_copy" --batch -q --config nv_full -ex run -ex 'info layers' -ex 'info perf' \
    -ex 'help info layers' "$top/traces/bdma_copy"
expect_grep "$out" "^layer unit  group state .*      read    written       DRAM    CV-SRAM operation$"
want="0 2048 2048 2048 2048
1 1024 1024 1024 1024"
[ "$(by_memory)" = "$want" ] || fail "bdma_copy by memory: $(by_memory)"
[ "$(perf_by_memory)" = "$want" ] || fail "info perf disagrees: $(perf_by_memory)"
expect_line "$out" "(read, written: bytes the layer's DMA moved; DRAM, CV-SRAM: the same by memory)"
expect_grep "$out" "bytes its DMA read and wrote (where the"
expect_grep "$out" "configuration has CV-SRAM, then the same bytes by memory: DRAM, CV-SRAM), operation."

run_exit 0 "lenet" --batch -q -ex run -ex 'info layers' -ex 'info perf' sample:lenet
[ "$(by_memory | wc -l)" -eq 5 ] || fail "lenet: $(by_memory | wc -l) rows by memory, expected 5"
by_memory | awk '$4 != $2 + $3 || $5 != 0 { exit 1 }' ||
    fail "lenet: every byte is DRAM's: $(by_memory)"
[ "$(by_memory)" = "$(perf_by_memory)" ] || fail "info perf disagrees: $(perf_by_memory)"

run_exit 0 "nv_small" --batch -q --config nv_small -ex run -ex 'info layers' sample:sdp
expect_grep "$out" "^layer unit  group state .*      read    written operation$"
expect_grep "$out" "^0     SDP   0     done .*        256        256 sdp "
expect_line "$out" "(read, written: bytes the layer's DMA moved, all DRAM: nv_small has no CV-SRAM)"
echo ok
