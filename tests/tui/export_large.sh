#!/bin/sh
# "export csv" of a decoder that writes a row per element says what it will
# write and asks before writing a file of millions of rows; "n" writes
# nothing; in batch the size is noted after the export (issue 35, item 7).
. "$(dirname "$0")/lib.inc"

cd "$TUI_TMP" || fail "no scratch folder"
tui_start sample:resnet18
keys n
wait_for '^ dladbg | sample:resnet18 | .* layer 1/'
keys :
type_text 'export csv big.csv --decoder sophon'
keys Enter
wait_for 'Write [0-9]* rows ([0-9.]* MB) to big.csv? (y or n)'
expect_screen 'Decoder sophon writes [0-9]* rows, [0-9.]* MB: every element'
keys n
wait_for 'Nothing written\.'
[ -e big.csv ] && fail "big.csv written after n"
type_text 'export csv small.csv --decoder layers'
keys Enter
wait_for 'Wrote CSV small.csv ([0-9]* rows)'
screen | grep -q 'Write [0-9]* rows ([0-9.]* kB)' && fail "asked about a small export"
keys Escape
quit_confirmed
[ -s small.csv ] || fail "small.csv not written"

out=$("$DLADBG" --batch -ex next -ex 'export csv big.csv --decoder sophon' sample:resnet18 2>&1) ||
    fail "batch export: $out"
printf '%s\n' "$out" | grep -q '^note: [0-9.]* MB in big.csv: every element' || fail "no size note: $out"
[ -s big.csv ] || fail "batch export wrote nothing"
echo ok
