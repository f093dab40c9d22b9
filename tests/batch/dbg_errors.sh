#!/bin/sh
# Batch failures: an unknown or failing command names itself and its script
# line and makes the exit status 2; the rest of the script does not run; a
# broken plugin is refused with a message.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf 'step\nfrobnicate now\necho not reached\n' >"$tmp/bad.dladbg"
run_exit 2 "unknown command" --batch -x "$tmp/bad.dladbg" "$top/traces/bdma_copy"
expect_line "$out" "error: $tmp/bad.dladbg:2: unknown command \"frobnicate\" (try \"help\")"
printf '%s\n' "$out" | grep -q "not reached" && fail "the script went on after the error"

run_exit 2 "failing -ex" --batch -ex 'break layer' "$top/traces/bdma_copy"
expect_line "$out" "error: -ex 1: break layer: expected a layer index"

run_exit 2 "unknown register" --batch -ex 'reg GLB.NOPE' "$top/traces/bdma_copy"
expect_grep "$out" "reg: no register or field \"GLB.NOPE\""

# a failing run is 1, a clean one 0, quit N is N
out=$(run_dladbg --batch -ex continue -ex quit "$top/traces/bdma_copy") || fail "clean run: exit $?"
run_exit 3 "quit 3" --batch -ex 'quit 3' "$top/traces/bdma_copy"

# plugins: a broken one is refused, clearly, and nothing crashes
BUILD=${BUILD:-build}
for p in broken_abi no_symbol bad_columns; do
    run_exit 2 "plugin $p" --batch --plugin "$top/$BUILD/tests/plugins/$p.so" -ex plugins "$top/traces/bdma_copy"
    expect_grep "$out" "dladbg: plugin .*$p.so: refused: "
done
expect_grep "$out" "0 columns"

# usage
run_dladbg --help | grep -q -- "-ex CMD" || fail "--help does not mention -ex"
run_dladbg --version | grep -q "^dladbg " || fail "--version"
# the exit statuses as the man page and the README give them: a hang is 1
run_dladbg --help | tr '\n' ' ' | grep -q "1 a check or golden mismatch or a hang, 2 usage" ||
    fail "--help's exit status does not say a hang is 1"
# a mistyped option: one line naming it and the nearest, not the whole usage
run_exit 2 "--bach" --bach sample:bdma
[ "$out" = 'dladbg: unknown option --bach; did you mean --batch? ("dladbg --help" lists the options)' ] ||
    fail "--bach: $out"
run_exit 2 "-batch (gdb's spelling)" -batch sample:bdma
expect_line "$out" 'dladbg: unknown option -batch; did you mean --batch? ("dladbg --help" lists the options)'
run_exit 2 "--in" --in x sample:bdma
expect_line "$out" "dladbg: option --in is ambiguous: --input, --input-scale"
run_exit 2 "--config without a value" --batch --config
expect_line "$out" 'dladbg: option --config needs a value ("dladbg --help" lists the options)'
# the man page documents every option --help lists, and the README's list
# of options (the paragraph "Options (`dladbg --help`, ...)") names each
man=$(sed 's/\\//g' "$top/share/dladbg.1")
options=$(sed -n '/^Options (`dladbg --help`/,/^$/p' "$top/README.md")
[ -n "$options" ] || fail "README.md has no paragraph listing the options"
for opt in $(run_dladbg --help | grep -o -- ' -[-a-zA-Z]*' | sort -u); do
    printf '%s\n' "$man" | grep -q -- "$opt" || fail "share/dladbg.1 does not document $opt"
    grep -q -- "\`$opt" "$top/README.md" || fail "README.md does not document $opt"
    printf '%s\n' "$options" | grep -q -- "\`$opt[\` ]" || fail "README.md's list of options lacks $opt"
done
# and names every command "help" lists, in its COMMANDS section's macros
commands=$(sed -n '/^\.SH COMMANDS/,/^\.SH KEYS/p' "$top/share/dladbg.1" | grep '^\.[BRI]* ')
for c in $(run_dladbg --batch -ex help "$top/traces/bdma_copy" | sed -n 's/^  \([a-z][a-z]*\)[ /[].*/\1/p'); do
    printf '%s\n' "$commands" | grep -qw -- "$c" || fail "share/dladbg.1's COMMANDS does not name $c"
done
echo ok
