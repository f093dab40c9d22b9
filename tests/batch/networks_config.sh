#!/bin/sh
# Real compiled networks (NVIDIA's test data, read in place; skipped when
# absent): the configuration each was compiled for is told from the loadable
# and said on the first line, an explicit --config it cannot run on is refused
# naming the one it needs, and without --config they run to completion with
# no CBUF error or rule warning (the AlexNet slice too: nv_full, fp16).
set -eu
. "$(dirname "$0")/lib.inc"

data=${NVDLA_TESTDATA:-../shared/testdata}
nets=$data/networks
if [ ! -d "$nets" ]; then
    echo "skip: $nets not found (set NVDLA_TESTDATA)"
    exit 77
fi

first_line() {
    printf '%s\n' "$1" | head -n 1
}

# nv_small networks: told without --config, then every task runs with no
# CBUF error and no warning
for net in lenet-mnist/fast-math resnet18-cifar10/basic resnet18-cifar10/default \
    resnet18-cifar10/fast-math resnet18-cifar10/performance; do
    run_exit 0 "$net" --batch "$nets/$net.nvdla"
    first=$(first_line "$out")
    case $first in
    "$(basename "$net").nvdla: compiled for nv_small (atom 8 bytes, 8-byte CBUF entries, convolutions take up to "*" of 32 CBUF banks, int8)") ;;
    *) fail "$net: first line: $first" ;;
    esac
    if printf '%s\n' "$out" | grep -E '^(warning|error)' >&2; then
        fail "$net: errors or warnings"
    fi
    expect_grep "$out" ": 2 of 2 tasks run (1 DLA, 1 EMU), [0-9]* DLA operations$"
done
expect_line "$(run_dladbg --batch "$nets/lenet-mnist/fast-math.nvdla" 2>&1 | head -n 1 || true)" \
    "fast-math.nvdla: compiled for nv_small (atom 8 bytes, 8-byte CBUF entries, convolutions take up to 8 of 32 CBUF banks, int8)"

# asked for a configuration it cannot run on: refused, naming the one it needs
run_exit 2 "lenet on nv_full" --batch --config nv_full "$nets/lenet-mnist/fast-math.nvdla"
expect_grep "$out" "fast-math.nvdla: compiled for nv_small, it cannot run on nv_full: "
expect_grep "$out" "(use --config nv_small)"
run_exit 2 "alexnet on nv_small" --batch --config nv_small "$nets/unverified/alex_4_part_1.nvdla"
expect_grep "$out" "compiled for nv_full, it cannot run on nv_small: it has no fp16 (use --config nv_full)"

# the AlexNet slice: nv_full, every operation run, nothing to warn about
run_exit 0 "alexnet" --batch "$nets/unverified/alex_4_part_1.nvdla"
expect_line "$(first_line "$out")" \
    "alex_4_part_1.nvdla: compiled for nv_full (atom 32 bytes, 128-byte CBUF entries, convolutions take up to 5 of 16 CBUF banks, fp16)"
expect_line "$out" "alex_4_part_1.nvdla: 1 of 1 tasks run (1 DLA, 0 EMU), 19 DLA operations"
if printf '%s\n' "$out" | grep -E '^(warning|error)' >&2; then
    fail "alexnet: warnings or errors"
fi

# a register trace: its register map
vp=$data/vp_traces/lenet
if [ -f "$vp/input.txn" ]; then
    run_exit 0 "VP trace" --batch "$vp"
    expect_line "$(first_line "$out")" "input.txn: written for nv_full (registers of the v1 (nv_full) map)"
fi
echo ok
