#!/bin/sh
# Opening something that is not directly a loadable or a trace: a folder with
# exactly one loadable opens it; a folder with several, or with nothing dladbg
# takes, and a file of another kind are refused (exit 2) with a message saying
# which kinds dladbg opens and what was found, not a flatbuffers offset only.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
samples="$top/${BUILD:-build}/samples"
[ -f "$samples/bdma.nvdla" ] || fail "$samples/bdma.nvdla was not generated"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kinds='a loadable (.nvdla), a register trace folder (holding input.txn or one .cfg), an input.txn, a .cfg trace test, or sample:NAME'

mkdir "$tmp/one" "$tmp/two" "$tmp/none" "$tmp/empty"
cp "$samples/bdma.nvdla" "$tmp/one/"
echo notes >"$tmp/one/README"
cp "$samples/bdma.nvdla" "$samples/sdp.nvdla" "$tmp/two/"
echo notes >"$tmp/none/README"

run_exit 0 "folder with one loadable" --batch "$tmp/one"
expect_line "$out" "$tmp/one: opening $tmp/one/bdma.nvdla, the only loadable in it"
expect_grep "$out" "^bdma.nvdla: 1 of 1 tasks run"

run_exit 2 "folder with two loadables" --batch "$tmp/two"
expect_grep "$out" "^dladbg: $tmp/two: no input.txn, and 2 loadables (.*\.nvdla, .*\.nvdla): name the one to open$"

run_exit 2 "folder without anything to open" --batch "$tmp/none"
expect_line "$out" "dladbg: $tmp/none: nothing dladbg opens ($kinds); found 1 other entry (README)"

run_exit 2 "empty folder" --batch "$tmp/empty"
expect_line "$out" "dladbg: $tmp/empty: an empty folder; dladbg opens $kinds"

run_exit 2 "a text file" --batch "$top/README.md"
expect_grep "$out" "^dladbg: $top/README.md: a text file ([0-9]* bytes), not a kind dladbg opens ($kinds); read as a loadable: offset 0: "

# the same from the console's "file" command
run_exit 2 "file README.md" --batch -ex "file $top/README.md" sample:bdma
expect_grep "$out" "^error: -ex 1: file: $top/README.md: a text file"

# a damaged .nvdla keeps the reader's own message
head -c 64 "$samples/bdma.nvdla" >"$tmp/cut.nvdla"
run_exit 2 "truncated loadable" --batch "$tmp/cut.nvdla"
printf '%s\n' "$out" | grep -q "not a kind dladbg opens" && fail "a .nvdla is explained as another kind"
echo ok
