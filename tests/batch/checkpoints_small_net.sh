#!/bin/sh
# Saved states of a small network stay within its share of memory: a quarter
# of its working set, at least 256 KiB, beside the start and the newest two
# (issue 34: the whole process within twice the working set and 4 MiB).
# With a floor of 2 MiB resnet18-cifar10's 24 states held 1.2 MiB, more
# than the network itself.  A step back far behind them replays exactly.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
net=${NVDLA_TESTDATA:-$top/../shared/testdata}/networks/resnet18-cifar10/default.nvdla
[ -f "$net" ] || { echo "no $net"; exit 77; }

run_exit 0 "a run to the end" --batch -q --nx -ex run -ex 'info checkpoints' \
    -ex 'back layer 100' -ex 'print $layers' -ex 'info regs CDMA' -ex 'info regs SDP' "$net"
held=$(printf '%s\n' "$out" | sed -n 's/.* saved states holding \([0-9]*\) KiB .*/\1/p')
[ -n "$held" ] || { printf '%s\n' "$out" >&2; fail "info checkpoints said nothing of what states hold"; }
[ "$held" -le 384 ] || fail "saved states hold $held KiB, above 384 KiB"
after_back=$(printf '%s\n' "$out" | sed -n '/^= [0-9]/,$p')
layers=$(printf '%s\n' "$after_back" | sed -n 's/^= \([0-9]*\) .*/\1/p' | head -n 1)
[ -n "$layers" ] && [ "$layers" -gt 0 ] || fail "no layer count after back layer 100"

# the same boundary reached forwards, by a session that never stepped back
set --
i=0
while [ $i -lt "$layers" ]; do
    set -- "$@" -ex 'step layer'
    i=$((i + 1))
done
out=$("$DLADBG" --batch -q --nx "$@" -ex 'print $layers' -ex 'info regs CDMA' -ex 'info regs SDP' \
    "$net" 2>&1) || fail "stepping forward: exit $?"
forward=$(printf '%s\n' "$out" | sed -n '/^= [0-9]/,$p')
[ "$forward" = "$after_back" ] || {
    printf 'back:\n%s\nforward:\n%s\n' "$after_back" "$forward" >&2
    fail "the state after back layer 100 differs from the same boundary stepped to"
}
echo ok
