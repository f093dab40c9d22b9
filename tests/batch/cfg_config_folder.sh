#!/bin/sh
# A .cfg trace test names no configuration; NVIDIA keeps it in the folder of
# the one it was written for (trace_tests/CONFIG/TEST/TEST.cfg).  --config
# naming another runs it (conformance does so on purpose) after one warning
# line; the folder's own configuration, or none asked, gives none.  Needs
# nothing from ../shared.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

mkdir -p nv_small/t
cat >nv_small/t/t.cfg <<'CFG'
mem_init(pri_mem, 0x80000000, 0x100, ALL_ZERO);
reg_write(NVDLA_GLB.S_INTR_SET_0, 0x1);
intr_notify(SDP_0, s0);
check_nothing(s0);
CFG
warning='warning: t.cfg: its folder says it was written for nv_small'
run_exit 0 "another configuration" --batch -q --config nv_full nv_small/t/t.cfg
expect_grep "$out" "^$warning (NVIDIA's trace_tests/CONFIG/TEST layout); running it on nv_full as asked"
[ "$(printf '%s\n' "$out" | grep -c '^warning: ')" = 1 ] || fail "not one warning line: $out"
run_exit 0 "the folder's configuration" --batch -q --config nv_small nv_small/t/t.cfg
case $out in *"$warning"*) fail "a warning: $out" ;; esac
run_exit 0 "no configuration asked" --batch -q nv_small/t/t.cfg
case $out in *"$warning"*) fail "a warning: $out" ;; esac
echo ok
