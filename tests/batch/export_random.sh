#!/bin/sh
# export txn of a .cfg trace whose input is RANDOM memory (issue 36 item 5):
# random memory is made when read, so no host write ever put it there and
# the export once left it out: the replay read zeros and its dump_mem check
# of the copy failed.  The export now loads the random blocks the run read,
# as the run saw them, before anything else.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir
cat >t.cfg <<'CFG'
mem_init(pri_mem, 0x80000000, 0x1000, RANDOM);
reg_write(NVDLA_BDMA.CFG_SRC_ADDR_LOW_0, 0x80000100);
reg_write(NVDLA_BDMA.CFG_DST_ADDR_LOW_0, 0x80100000);
reg_write(NVDLA_BDMA.CFG_LINE_0, 0x7);
reg_write(NVDLA_BDMA.CFG_CMD_0, 0x3);
reg_write(NVDLA_BDMA.CFG_LINE_REPEAT_0, 0x0);
reg_write(NVDLA_BDMA.CFG_SRC_LINE_0, 0x100);
reg_write(NVDLA_BDMA.CFG_DST_LINE_0, 0x100);
reg_write(NVDLA_BDMA.CFG_SURF_REPEAT_0, 0x0);
reg_write(NVDLA_BDMA.CFG_SRC_SURF_0, 0x100);
reg_write(NVDLA_BDMA.CFG_DST_SURF_0, 0x100);
reg_write(NVDLA_BDMA.CFG_OP_0, 0x1);
reg_write(NVDLA_BDMA.CFG_LAUNCH0_0, 0x1);
intr_notify(BDMA_0, s0);
check_nothing(s0);
CFG
run_exit 0 "the .cfg run" --batch -q --config nv_full -ex run -ex 'x/4xb 0x80100000' \
    -ex 'export txn ex' t.cfg
copied=$(printf '%s\n' "$out" | grep '^dram:0x80100000:')
case $copied in *"0x00 0x00 0x00 0x00") fail "the copy of random memory is zeros: $copied" ;; esac
grep -q '^load_mem 0x80000000 0x1000 ' ex/input.txn || fail "no load of the random block the run read"
# the replay copies the same bytes: its dump_mem check of the copy passes
run_exit 0 "the replay of the export" --batch ex
expect_grep "$out" "1 dump matched"
run_exit 0 "the replay, looked at" --batch -q -ex run -ex 'x/4xb 0x80100000' ex
expect_line "$out" "$copied"
echo ok
