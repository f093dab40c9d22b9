#!/bin/sh
# Export from the console writes files: CSV through the layers decoder, a
# Chrome trace and a VCD, each complete and parseable.
. "$(dirname "$0")/lib.inc"

out="$TUI_TMP/out"
mkdir -p "$out"
tui_start
keys c
wait_for 'Run finished'
keys :
type_text "export csv $out/layers.csv --decoder layers"
keys Enter
type_text "export chrome $out/trace.json"
keys Enter
type_text "export vcd $out/busy.vcd"
keys Enter Escape
sync_ui
[ -s "$out/layers.csv" ] || fail "no CSV written"
[ -s "$out/trace.json" ] || fail "no Chrome trace written"
[ -s "$out/busy.vcd" ] || fail "no VCD written"
# one header and one row per hardware layer
[ "$(wc -l <"$out/layers.csv")" -eq 6 ] || fail "CSV: expected 6 lines, got $(wc -l <"$out/layers.csv")"
head -n 1 "$out/layers.csv" | grep -q 'index' || fail "CSV has no header"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out/trace.json" ||
        fail "the Chrome trace is not JSON"
fi
grep -q '^\$enddefinitions' "$out/busy.vcd" || fail "the VCD has no definitions"
# a failing export says why, in the console, and the TUI goes on
keys :
type_text "export csv /nonexistent-dir/x.csv --decoder layers"
keys Enter Escape
wait_for 'export csv: '
keys q
wait_exit
[ "$status" = 0 ] || fail "exit status $status"
expect_restored
