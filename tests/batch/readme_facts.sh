#!/bin/sh
# What README.md says about the build and the data must match the Makefile
# and tests/conformance.sh (issue 35, item 9): no paragraph swallowed by a
# table (a table ends at a blank line in Markdown), every package the
# Makefile checks for named in Install, every test-data folder the
# conformance run reads in the data table; a rule of the command language
# that the README, the help and the TUI must all give (the absent units).
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
readme=$top/README.md

# a table row followed directly by a line of text: that text joins the table
awk 'prev ~ /^\|/ && $0 != "" && $0 !~ /^\|/ && !fence { print FILENAME ":" NR ": " $0; bad = 1 }
     /^```/ { fence = !fence }
     { prev = $0 } END { exit bad }' "$readme" || fail "a paragraph runs into a table"

install=$(sed -n '/^## Install/,/^## /p' "$readme")
for pkg in $(sed -n '/^\$(call DEPS_STAMP,build): Makefile/,/deps_remembered/p;/^\$(call DEPS_STAMP,test): Makefile/,/deps_remembered/p' \
        "$top/Makefile" | grep -o ':[a-z0-9.+-]*-dev\|:[a-z0-9.+-]*' | tr -d ':' | sort -u); do
    printf '%s\n' "$install" | grep -q -- "$pkg" || fail "Install does not name $pkg"
done

table=$(sed -n '/laid out as follows/,/^$/p;/^| folder | from |/,/^$/p' "$readme")
for dir in $(grep -o '"\$DATA"/[a-z_0-9]*\|\$DATA/[a-z_0-9]*' "$top/tests/conformance.sh" |
        sed 's|.*/||' | sort -u) loadables_v05; do
    printf '%s\n' "$table" | grep -q "^| \`$dir/" || fail "the data table has no row for $dir/"
done

# the absent-unit rule (a register of a unit the configuration lacks is
# refused: tests/batch/absent_units.sh) is told where registers are read:
# the README, help print and help reg; the TUI's ? overlay in
# tests/tui/help_marks.sh
printf '%s\n' "$(tr '\n' ' ' <"$readme")" | grep -q 'A register of a unit the configuration lacks (nv_small has no BDMA and no RUBIK, `RBK`) is refused' ||
    fail "README.md does not give the absent-unit rule"
for topic in print reg; do
    run_dladbg --batch -ex "help $topic" "$top/traces/bdma_copy" |
        grep -q '^A register of a unit the configuration lacks (nv_small: BDMA, RBK) is refused\.$' ||
        fail "help $topic does not give the absent-unit rule"
done
echo ok
