#!/bin/sh
# Small inputs that once cost gigabytes (issue 36 items 3, 4 and 5), end to
# end in batch mode: a loadable whose task entries share one table with a
# large vector, a 2 KB loadable declaring an 8192x4000x32 SDP surface, and
# a .cfg whose two mem_init lines ask for 4 GB of RANDOM memory each.  Each
# is answered at once: the first two with a message and exit 2, the third
# run with nothing allocated.  Bounded by ulimit -v where the build allows
# it (not under ASan, which reserves terabytes of address space).
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
corpus="$top/tests/fuzz/corpus/loadable"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
limit() { # COMMAND...: at most 1 GB of address space unless sanitized
    if [ "${SAN:-}" = 1 ]; then "$@"; else (ulimit -v 1048576 && "$@"); fi
}

rc=0
out=$(limit "$DLADBG" --batch -ex run "$corpus/shared_task_table.nvdla" 2>&1) || rc=$?
[ $rc -eq 2 ] || { printf '%s\n' "$out" >&2; fail "shared task table: exit $rc, expected 2"; }
expect_grep "$out" "shared_task_table.nvdla: offset [0-9]*: expected the file's vectors to be copied at most once"

rc=0
out=$(limit "$DLADBG" --batch -ex run "$corpus/huge_surface.nvdla" 2>&1) || rc=$?
[ $rc -eq 2 ] || { printf '%s\n' "$out" >&2; fail "huge surface: exit $rc, expected 2"; }
expect_grep "$out" "SDP's cubes and output: 10485760000 bytes of host memory .* would exceed the working budget"

cat >"$work/t.cfg" <<'CFG'
mem_init(pri_mem, 0x0, 0xffffffe0, RANDOM);
mem_init(sec_mem, 0x0, 0xffffffe0, RANDOM);
reg_write(NVDLA_GLB.S_INTR_SET_0, 0x1);
intr_notify(SDP_0, s0);
check_nothing(s0);
CFG
rc=0
out=$(limit "$DLADBG" --batch --config nv_large -ex run -ex 'x/4xb 0x12345678' "$work/t.cfg" 2>&1) ||
    rc=$?
[ $rc -eq 0 ] || { printf '%s\n' "$out" >&2; fail "RANDOM mem_init: exit $rc, expected 0"; }
first=$(printf '%s\n' "$out" | grep '0x12345678:')
again=$(limit "$DLADBG" --batch --config nv_large -ex run -ex 'x/4xb 0x12345678' "$work/t.cfg" 2>&1 |
    grep '0x12345678:')
[ "$first" = "$again" ] || fail "RANDOM memory differs between runs: $first / $again"
echo ok
