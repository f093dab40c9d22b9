#!/bin/sh
# Inputs beyond what the fuzzers' small one-shot runs reach: scripts that
# source themselves or each other, expressions nested thousands deep, and
# devices or binary files given as scripts or line files.  Each is refused
# with a message and exit 2, never a crash or a read without end.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

echo 'source self.dladbg' >self.dladbg
run_exit 2 "a script that sources itself" --batch -x self.dladbg sample:bdma
expect_grep "$out" "^error: self.dladbg:1: source: self.dladbg: source nested too deep (at most 32 scripts, one inside another)$"
[ "$(printf '%s\n' "$out" | grep -c '^error')" -eq 1 ] || fail "more than one error line: $out"

echo 'source b.dladbg' >a.dladbg
echo 'source a.dladbg' >b.dladbg
run_exit 2 "two scripts that source each other" --batch -x a.dladbg sample:bdma
expect_grep "$out" "source nested too deep"

# nesting a person writes still works
echo 'print 2' >leaf.dladbg
echo 'source leaf.dladbg' >mid.dladbg
run_exit 0 "a script sourcing a script" --batch -x mid.dladbg sample:bdma
expect_line "$out" "= 2 (0x2)"

deep() { # N OPEN CLOSE: "print" with N OPENs, 1, N CLOSEs
    awk -v n="$1" -v o="$2" -v c="$3" 'BEGIN { s = "print "; for (i = 0; i < n; i++) s = s o;
        s = s "1"; for (i = 0; i < n; i++) s = s c; print s }'
}
deep 15000 '(' ')' >parens.dladbg
run_exit 2 "15,000 nested parentheses" --batch -x parens.dladbg sample:bdma
expect_grep "$out" "^error: parens.dladbg:1: print: expression nested too deep (at most 256 levels"
deep 400000 '~' '' >tilde.dladbg
run_exit 2 "400,000 unary operators" --batch -x tilde.dladbg sample:bdma
expect_grep "$out" "expression nested too deep"
run_exit 2 "deep parentheses in a breakpoint condition" --batch -ex "break layer 0 if $(deep 5000 '(' ')' | cut -c7-)" sample:bdma
expect_grep "$out" "expression nested too deep"
# the limit leaves room for what people write
run_exit 0 "200 nested parentheses" --batch -ex "$(deep 200 '(' ')')" sample:bdma
expect_line "$out" "= 1 (0x1)"

# devices and binary files: the first NUL byte ends the reading
run_exit 2 "-x /dev/zero" --batch -x /dev/zero sample:bdma
expect_grep "$out" "/dev/zero:1: NUL byte at column 1 (expected a text file)"
run_exit 2 "source /dev/zero" --batch -ex 'source /dev/zero' sample:bdma
expect_grep "$out" "/dev/zero:1: NUL byte at column 1"
run_exit 2 "info dma lines /dev/zero" --batch -ex 'info dma lines /dev/zero /dev/zero' sample:bdma
expect_grep "$out" "/dev/zero:1: NUL byte at column 1"
printf 'print 1\nprint 2\0print 3\n' >nul.dladbg
run_exit 2 "a NUL byte in a script line" --batch -x nul.dladbg sample:bdma
expect_grep "$out" "nul.dladbg:2: NUL byte at column 8"
# a line longer than 1 MiB without a newline
awk 'BEGIN { s = "#"; for (i = 0; i < 21; i++) s = s s; printf "%s", s }' >long.dladbg
run_exit 2 "a line longer than 1 MiB" --batch -x long.dladbg sample:bdma
expect_grep "$out" "long.dladbg:1: line longer than 1048576 bytes"
echo ok
