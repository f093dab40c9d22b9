#!/bin/sh
# A plugin built against the header of ABI 1.2, before a layer record's
# bytes_cvsram was appended (1.3), keeps loading and working: its records
# are smaller than this dladbg's, so run->layer() must fill no more than
# the 1.2 record (its "old_layer" command keeps a guard right after one and
# fails when the host writes past it), and its decoder reads the 1.2 fields
# of the layer events.  plugins/test_layout_1_2.c.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
plugin="$top/${BUILD:-build}/tests/plugins/layout_1_2.so"
[ -f "$plugin" ] || fail "no $plugin (make builds it)"
in_scratch_dir

run_exit 0 "a 1.2 plugin" --batch -q --config nv_full --plugin "$plugin" -ex plugins -ex run \
    -ex 'old_layer 0' -ex 'old_layer 1' -ex 'export csv old.csv --decoder old_layout' \
    "$top/traces/bdma_copy"
expect_grep "$out" "^old_layout a plugin built against ABI 1.2"
expect_grep "$out" "from .*/layout_1_2.so (ABI 1, "
expect_line "$out" "layer 0 (BDMA): 2048 bytes read, 2048 written, work in bytes"
expect_line "$out" "layer 1 (BDMA): 1024 bytes read, 1024 written, work in bytes"
want=$(printf '"index","unit","bytes_read","bytes_written"\r\n"0","BDMA","2048","2048"\r\n"1","BDMA","1024","1024"\r\n')
[ "$(cat old.csv)" = "$want" ] || fail "old.csv: $(cat old.csv)"
echo ok
