#!/bin/sh
# The README's decoder example ("Writing one") builds as the README says,
# against the source tree's header without "make install", loads, and its
# export has one row per hardware layer.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
in_scratch_dir
command -v cc >/dev/null 2>&1 || { echo "skip: no cc"; exit 77; }

# the first C block after the heading, as a reader copies it
sed -n '/^### Writing one/,/^### /p' "$top/README.md" |
    awk '/^```c$/ && !done { on = 1; next } /^```$/ && on { on = 0; done = 1 } on' >mine.c
grep -q 'dladbg_decoder' mine.c || fail "no decoder example under \"Writing one\""
build=$(sed -n '/^### Writing one/,/^### /p' "$top/README.md" | tr '\n' ' ' |
    grep -o '`cc [^`]*-I/path/to/dladbg/plugins/include[^`]*`' | tr -d '`')
[ -n "$build" ] || fail "the README does not say how to build a plugin against the source tree"
eval "$(printf '%s\n' "$build" | sed "s|/path/to/dladbg|$top|")" || fail "building the example: $build"
run_exit 0 "the example's export" --batch --plugin ./mine.so \
    -ex run -ex 'export csv layers.csv --decoder mine' sample:lenet
expect_grep "$out" "^Wrote CSV .*layers.csv (5 rows)\.$"
tr -d '\r' <layers.csv | head -2 | grep -qx '"0","CONV","[0-9]*"' || fail "layers.csv: $(cat layers.csv)"
echo ok
