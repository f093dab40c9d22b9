#!/bin/sh
# "info rules": every programming-guide rule the model checks (each rule id a
# unit passes to dla_rule() in sim/), with its unit, the guide's section and
# how often it fired in this run; "help break" names the ids.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)

out=$(run_dladbg --batch -ex 'info rules' -ex 'help break' "$top/traces/bdma_copy") ||
    fail "info rules: exit $?"
# the ids the units use: dla_rule(d, UNIT, "unit.id", ...), the id within
# two lines of the call (lut.c picks one of four with ?:)
ids=$(grep -h -A2 'dla_rule(' "$top"/sim/*/*.c | grep -o '"[a-z_]*\.[a-z0-9_]*"' | tr -d '"' | sort -u)
[ -n "$ids" ] || fail "found no rule ids in sim/"
for id in $ids; do
    expect_grep "$out" "^$id  *[A-Z_]*  *0  [A-Z]"
    expect_grep "$out" "^  .*$id"
done
[ "$(printf '%s\n' "$out" | grep -c '^[a-z_]*\.[a-z0-9_]*  ')" = "$(printf '%s\n' "$ids" | wc -l)" ] ||
    fail "info rules lists rules no unit checks"
expect_grep "$out" "^0 of [0-9]* rules fired in this run"

# the 21st CFG_OP.EN with 20 operations staged breaks bdma.free_slot once;
# a restart (power-on reset) forgets it
set -- --batch
i=0
while [ $i -lt 21 ]; do
    set -- "$@" -ex 'reg BDMA.CFG_OP = 1'
    i=$((i + 1))
done
out=$(run_dladbg "$@" -ex 'info rules' -ex restart -ex 'info rules' "$top/traces/bdma_copy" 2>&1) ||
    fail "pokes: exit $?"
expect_grep "$out" "^bdma.free_slot  *BDMA  *1  BDMA programming: "
expect_line "$out" "1 of $(printf '%s\n' "$ids" | wc -l | tr -d ' ') rules fired in this run (\"break rule ID\" stops at one)."
[ "$(printf '%s\n' "$out" | grep -c '^bdma.free_slot  *BDMA  *0  ')" = 1 ] ||
    fail "restart did not clear the rule's count"
echo ok
