#!/bin/sh
# "info perf top": sample:resnet18's layers ranked by cycles.  The first line
# is the layer "info perf" gives the most cycles (ties: the lower index), its
# share is its cycles of the run's (the "Run finished" figure), the lines and
# the rest line together hold every layer's cycles, as the by-unit line does;
# N larger than the layers shows them all; mid-run, the cycles so far; before
# a run, a message, not a table; N not a positive number: exit 2.
set -eu
. "$(dirname "$0")/lib.inc"

run_exit 0 "before the run" --batch -ex 'info perf top' sample:lenet
expect_line "$out" "No hardware layer has been launched yet: nothing to rank (run, continue or step first)."

run_exit 0 "resnet18" --batch -ex run -ex 'info perf' -ex 'echo ==top3' -ex 'info perf top 3' \
    -ex 'echo ==all' -ex 'info perf top all' -ex 'echo ==100' -ex 'info perf top 100' sample:resnet18
section() { printf '%s\n' "$out" | awk -v s="==$1" '/^==/ { on = ($0 == s); next } on'; }
run=$(printf '%s\n' "$out" | sed -n 's/^Run finished: .*; hardware \([0-9]*\) cycles, first launch.*/\1/p')
[ -n "$run" ] || fail "no Run finished line"

# info perf: "layer I (UNIT, group G): C cycles, ..."; the most cycles, lowest index on ties
best=$(printf '%s\n' "$out" | awk '/^layer [0-9]+ \(/ { c = $6 + 0
    if (c > max || best == "") { max = c; best = $2 } } END { print best, max }')
total=$(printf '%s\n' "$out" | awk '/^layer [0-9]+ \(/ { t += $6 } END { print t }')
layers=$(printf '%s\n' "$out" | grep -c '^layer [0-9]* (')
[ "$layers" -eq 66 ] || fail "expected 66 layers in info perf, got $layers"

top3=$(section top3)
expect_grep "$top3" "^Hardware layers by cycles, 3 of 66; share: of the run's $run hardware cycles, first launch to last interrupt (calibrated against RTL)$"
expect_grep "$top3" "so shares can sum past 100%"
rows=$(printf '%s\n' "$top3" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/')
[ "$(printf '%s\n' "$rows" | wc -l)" -eq 3 ] || fail "top 3 shows $(printf '%s\n' "$rows" | wc -l) rows"
set -- $(printf '%s\n' "$rows" | head -1)
[ "$1 $2 $5" = "1 $best" ] || fail "first line \"$*\", expected layer and cycles \"$best\""
[ "$6 $7 $8" = "calibrated against RTL" ] || fail "first line's cycles say \"$6 $7 $8\""
want=$(awk -v c="$5" -v r="$run" 'BEGIN { printf "%.1f%%", 100 * c / r }')
[ "$9" = "$want" ] || fail "first line's share $9, expected $want ($5 of $run)"
# the ranking descends
printf '%s\n' "$rows" | awk 'NR > 1 && $5 > prev { exit 1 } { prev = $5 }' || fail "top 3 not descending"
shown=$(printf '%s\n' "$rows" | awk '{ t += $5 } END { print t }')
rest=$(printf '%s\n' "$top3" | sed -n 's/^not shown: 63 layers, \([0-9]*\) cycles, .*/\1/p')
[ -n "$rest" ] || { printf '%s\n' "$top3" >&2; fail "no rest line for 63 layers"; }
[ $((shown + rest)) -eq "$total" ] || fail "shown $shown + rest $rest != every layer's $total"
units=$(printf '%s\n' "$top3" | sed -n 's/^by unit: //p' | tr ',' '\n' | awk '{ t += $2 } END { print t }')
[ "$units" -eq "$total" ] || fail "by unit sums $units, every layer $total"

for n in all 100; do
    s=$(section "$n")
    [ "$(printf '%s\n' "$s" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/' | wc -l)" -eq 66 ] ||
        fail "top $n does not show the 66 layers"
    expect_line "$s" "not shown: none"
done

# mid-run: the layers running so far, their cycles marked, no rates yet
# (their counters are the whole layer's, computed at launch)
run_exit 0 "mid-run" --batch -ex 'break layer 3' -ex run -ex 'info perf top' sample:lenet
expect_grep "$out" "^Hardware layers by cycles, 2 of 2 so far; share: of the run's [0-9]* hardware cycles so far, first launch to now"
expect_grep "$out" "^   1     0 CONV      0 *[0-9]*+ calibrated against RTL *[0-9.]*% *- *- *- *- \[task 0 op 0: image ->\]$"
expect_line "$out" "(+: still running, its cycles so far; its rates once it is done)"

for bad in 0 -2 x '3 4'; do
    run_exit 2 "info perf top $bad" --batch -ex run -ex "info perf top $bad" sample:lenet
    expect_grep "$out" "info perf top: expected a positive number of layers or \"all\", not \"$bad\""
done
echo ok
