#!/bin/sh
# gdb's output commands: echo resolves C escapes and adds no newline, printf
# formats expressions by a C format, output prints a bare value.  Inside a
# script or a command list the three make one line until a "\n"; other output
# (a stop, print) and the end of the line typed end an open line; a printf
# whose format and arguments disagree fails (exit 2) and prints nothing.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

# gdb's idiom in a command list: one line per stop
cat > log.gdb <<'SCRIPT'
break unit sdp done
commands
silent
echo SDP done, layers\040
output $layers
printf " at cycle %d (%#x), %5.1f%%\n", $cycle, $cycle, 7
continue
end
run
SCRIPT
run_exit 0 "a command list's one line" --batch -q -x log.gdb sample:lenet
expect_grep "$out" '^SDP done, layers [0-9]* at cycle [0-9]* (0x[0-9a-f]*),   7.0%$'
[ "$(printf '%s\n' "$out" | grep -c '^SDP done')" -ge 2 ] || { printf '%s\n' "$out" >&2; fail "one line a stop"; }

cat > stream.gdb <<'SCRIPT'
echo a\tb\n
echo one\040
echo two
echo \n
printf "say \"%c%c\"\n", 72, 105
output/x 255
echo \n
output/t 5
echo \n
echo open
print 1 + 1
echo don't\n
SCRIPT
run_exit 0 "echo and output as a stream" --batch -q -x stream.gdb sample:lenet
expect_line "$out" "$(printf 'a\tb')"
expect_line "$out" 'one two'
expect_line "$out" 'say "Hi"'
expect_line "$out" '0xff'
expect_line "$out" '101'
expect_line "$out" 'open'            # print's output ends the open line
expect_line "$out" '= 2 (0x2)'
expect_line "$out" "don't"
printf '%s\n' "$out" | grep -q 'a\\tb\|\\n' && fail "escapes printed as typed: $out"

# each -ex line is a line typed: its end ends an open line
run_exit 0 "-ex lines" --batch -q -ex 'echo first' -ex 'echo second' sample:lenet
expect_line "$out" 'first'
expect_line "$out" 'second'

for bad in 'printf "%d\n"' 'printf "%d\n", 1, 2' 'printf "%s\n", 1' 'printf "%d" 5' \
    'printf %d, 1' 'printf "%d\n", NOPE.REG' 'output' 'output/z 1'; do
    run_exit 2 "$bad" --batch -q -ex "$bad" sample:lenet
    expect_grep "$out" "^error: -ex 1: "
    [ "$(printf '%s\n' "$out" | grep -vc '^error: ')" = 0 ] || fail "$bad printed: $out"
done
echo ok
