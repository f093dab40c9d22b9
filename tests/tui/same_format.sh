#!/bin/sh
# One name and one format per thing in every view (issue 35, item 6): the
# registers pane writes fields as "info regs" does (format_fields_inline:
# addresses and values above 9 in hex), and the LUT counter of lookups that
# hit both tables is "hybrid" (D_PERF_LUT_HYBRID) in the LUT pane, in
# "info lut" and in the lut decoder's CSV.
. "$(dirname "$0")/lib.inc"

# the field text "info regs CDMA" gives for group 0 after the first layer
batch=$("$DLADBG" --batch -q -ex next -ex 'info regs CDMA' sample:lenet 2>&1) || fail "batch: $batch"
want=$(printf '%s\n' "$batch" | sed -n 's/^ *D_DAIN_ADDR_LOW_0 *g0 0x[0-9a-f]* *\(DATAIN_ADDR_LOW_0=[^ ]*\).*/\1/p' | head -n 1)
case $want in DATAIN_ADDR_LOW_0=0x*) ;; *) fail "info regs: no hex address field: \"$want\"" ;; esac

TUI_COLS=200 TUI_ROWS=50
tui_start sample:lenet
keys n
wait_for 'layer 1/'
# the pane is narrow: the field's first characters, as "info regs" wrote them
wait_for "D_DAIN_ADDR_LOW_0 *0x[0-9a-f]* *$(printf '%s' "$want" | cut -c1-22)"
expect_screen 'DATAIN_WIDTH=0xb '
quit_confirmed

tui_restart sample:cdp
keys c
wait_for 'Run finished'
keys 4
wait_for 'lookups 512  LE hit 0 (0%)  LO hit 4 (0%)  hybrid 1'
quit_now

out=$("$DLADBG" --batch -q -ex run -ex 'info lut' -ex "export csv $TUI_TMP/lut.csv --decoder lut" \
    sample:cdp 2>&1) || fail "info lut: $out"
printf '%s\n' "$out" | grep -q 'lookups: LE hit 0, LO hit 4, hybrid 1, underflow 0' ||
    fail "info lut does not say hybrid: $out"
head -n 1 "$TUI_TMP/lut.csv" | grep -q '"hybrid"' || fail "the CSV has no hybrid column"
echo ok
