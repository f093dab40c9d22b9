#!/bin/sh
# Bytes by memory: a layer's DMA to and from DRAM and to and from CV-SRAM
# counted apart.  "info perf top"'s column is DRAM bytes per cycle (what
# memory bandwidth is tuned for; on-chip CV-SRAM does not load the DRAM
# bus), "info perf" gives each layer both.  A BDMA copy of 256 bytes from
# CV-SRAM to DRAM reads 256 bytes of CV-SRAM and writes 256 of DRAM: the
# column is 256 bytes over the layer's cycles, not 512.  NVIDIA's
# sanity1_cvsram, when ../shared/testdata is there, copies within CV-SRAM:
# every byte is CV-SRAM's, none DRAM's.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
in_scratch_dir

mkdir t
awk 'BEGIN { for (i = 0; i < 256; i++) printf "0x%02x%s", (i * 13 + 5) % 256, i % 32 == 31 ? "\n" : " " }' >t/source.dat
{
    echo "load_mem 0x50000000 0x100 source.dat"
    # BDMA: source CV-SRAM 0x50000000, destination DRAM 0x80100000 (CFG_CMD 0x2:
    # SRC_RAM_TYPE CVSRAM, DST_RAM_TYPE MC), 8 lines of 32 bytes
    printf 'write_reg 0xffff%s\n' '1000 0x50000000' '1002 0x80100000' '1004 0x0' '1005 0x2' \
        '1006 0x7' '1007 0x20' '1008 0x20' '1009 0x0' '100a 0x100' '100b 0x100' '100c 0x1' \
        '100d 0x1'
    echo wait
    echo "write_reg 0xffff0003 0xffffffff"
} >t/input.txn
run_exit 0 "a copy from CV-SRAM" --batch -q --config nv_full -ex run -ex 'info perf' \
    -ex 'info perf top' -ex 'help info perf top' t
expect_grep "$out" "^layer 0 (BDMA, group 0): [0-9]* cycles, .*, 256 bytes read, 256 written (DRAM 256, CV-SRAM 256)$"
expect_grep "$out" "DRAM bytes/cycle: what its DMA read from and wrote to DRAM"
expect_grep "$out" " DRAM bytes/cycle operation$"
row=$(printf '%s\n' "$out" | awk '$1 == "1" && $2 == "0" && $3 == "BDMA"')
[ -n "$row" ] || fail "no row of layer 0 in info perf top"
set -- $row
want=$(awk -v c="$5" 'BEGIN { printf "%.1f", 256 / c }')
# the row's last number before the (empty) operation is the bytes per cycle
got=$(printf '%s\n' "$row" | awk '{ print $NF }')
[ "$got" = "$want" ] || fail "bytes/cycle $got, expected DRAM's 256 over $5 cycles: $want ($row)"
expect_grep "$out" "per cycle (what its DMA read from and wrote to DRAM: on-chip CV-SRAM"

data=${NVDLA_TESTDATA:-$top/../shared/testdata}
trace=$data/traces/sanity1_cvsram
if [ -d "$trace" ]; then
    out=$(run_dladbg --batch -q -ex run -ex 'info perf' "$trace") || fail "sanity1_cvsram: exit $?"
    line=$(printf '%s\n' "$out" | grep '^layer 0 (BDMA')
    set -- $(printf '%s\n' "$line" | sed 's/.*, \([0-9]*\) bytes read, \([0-9]*\) written (DRAM \([0-9]*\), CV-SRAM \([0-9]*\))$/\1 \2 \3 \4/')
    [ $# = 4 ] || fail "sanity1_cvsram: no DRAM and CV-SRAM bytes in: $line"
    [ "$3" -eq 0 ] && [ "$4" -eq $(($1 + $2)) ] ||
        fail "sanity1_cvsram: DRAM $3, CV-SRAM $4; expected 0 and read $1 + written $2"
else
    echo "sanity1_cvsram checks skipped: no $trace"
fi
echo ok
