#!/bin/sh
# "help export chrome" names the counter tracks the export writes, as the
# README does: one per memory, "dram bandwidth" and "cvsram bandwidth"
# (traces/bdma_copy moves bytes to and from both), not "memory bandwidth
# counters", which leaves a reader to guess which memory a track is.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
in_scratch_dir

run_exit 0 "export chrome" --batch -q --config nv_full -ex run -ex 'export chrome t.json' \
    -ex 'help export chrome' "$top/traces/bdma_copy"
help=$out
counters=$(grep -o '"name":"[^"]*","ph":"C"' t.json | sed 's/^"name":"\([^"]*\)".*/\1/' | sort -u)
[ "$(printf '%s\n' "$counters" | tr '\n' ,)" = "cvsram bandwidth,dram bandwidth," ] ||
    fail "counter tracks of the export: $counters"
for c in $(printf '%s\n' "$counters" | tr ' ' _); do
    name=$(printf '%s' "$c" | tr _ ' ')
    expect_grep "$help" "\"$name\""
    grep -q "\`$name\`" "$top/README.md" || fail "README does not name \"$name\""
done
echo ok
