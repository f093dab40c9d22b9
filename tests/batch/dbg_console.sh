#!/bin/sh
# The console without --batch: commands from standard input, the history file
# in the XDG state directory, ~/.dladbgrc read unless --nx, and an empty line
# repeating the last step.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$(printf 'step\n\ninfo layers\nquit\n' | HOME="$tmp" XDG_STATE_HOME="$tmp/state" \
    run_dladbg --nx "$top/traces/bdma_copy" 2>&1) || fail "console: exit $?"
# the empty line repeated "step": two register writes executed
expect_grep "$out" "at input.txn:6 (write BDMA.CFG_SRC_ADDR_HIGH = 0x00000000)"
[ -f "$tmp/state/dladbg/history" ] || fail "no history file in \$XDG_STATE_HOME/dladbg"
grep -qx "info layers" "$tmp/state/dladbg/history" || fail "history lacks \"info layers\""

# ~/.dladbgrc is read first (and skipped with --nx)
printf 'echo from the rc file\n' >"$tmp/.dladbgrc"
out=$(printf 'quit\n' | HOME="$tmp" XDG_STATE_HOME="$tmp/state" run_dladbg "$top/traces/bdma_copy")
expect_line "$out" "from the rc file"
out=$(printf 'quit\n' | HOME="$tmp" XDG_STATE_HOME="$tmp/state" run_dladbg --nx "$top/traces/bdma_copy")
printf '%s\n' "$out" | grep -q "from the rc file" && fail "--nx read ~/.dladbgrc"

# LUT breakpoints on NVIDIA's EW+LUT trace, when the shared test data is there
data=${NVDLA_TESTDATA:-$top/../shared/testdata}
t=$data/traces_v2/nv_small/sdp_3x3x33_ew_le_exp_int8
if [ -d "$t" ]; then
    out=$(run_dladbg --batch --config nv_small_256_full -ex 'break lut underflow' -ex run \
        -ex 'info lut' "$t") || fail "LUT breakpoint: exit $?"
    expect_grep "$out" "^Breakpoint 1, layer 0 (SDP): LUT underflow in [0-9]* of [0-9]* lookups$"
    expect_grep "$out" "^  input histogram: "
fi
echo ok
