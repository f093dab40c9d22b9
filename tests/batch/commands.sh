#!/bin/sh
# Breakpoint command lists, as gdb has them: "commands [N]", its lines, "end".
# A list with silent and continue logs every hit of a layer breakpoint and
# the run goes on to its normal end (the same from a script and from -ex, a
# line each); without silent the stop's lines come first; "info breakpoints"
# shows the lists; an empty body clears one; a tbreak's runs once.  Errors
# exit 2 with a message: commands 99, end outside a list, a missing end, a
# failing line (the rest of the script skipped), a list that would go round
# for ever.  The run's own exit status stays: a hang with a list is 1.
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
in_scratch_dir

cat >log.dladbg <<'SCRIPT'
display $cycle
break unit sdp done
commands
  silent
  echo SDP layer done:
  print $layers
  continue
end
info breakpoints
run
SCRIPT
run_exit 0 "a logging list" --batch -x log.dladbg sample:lenet
[ "$(printf '%s\n' "$out" | grep -c '^SDP layer done:$')" = 2 ] || fail "two hits logged: $out"
expect_line "$out" "= 2 (0x2)"
expect_line "$out" "= 5 (0x5)"
printf '%s\n' "$out" | grep -q '^Breakpoint 1, ' && fail "silent: the stop's lines shown: $out"
# silent leaves out the displays too: $cycle shown when made and at the end only
[ "$(printf '%s\n' "$out" | grep -c '^1: \$cycle = ')" = 2 ] || fail "displays at a silent stop: $out"
printf '%s\n' "$out" | tail -n 2 | grep -q '^Run finished: sample:lenet: ' || fail "no normal end: $out"
# info breakpoints shows the list, indented, after the breakpoint
printf '%s\n' "$out" | grep -A4 '^1  *breakpoint  *y  *0  *any SDP layer done$' >bp.txt ||
    fail "info breakpoints: $out"
[ "$(sed -n 2,5p bp.txt | tr -s ' ' | tr '\n' '|')" = " silent| echo SDP layer done:| print \$layers| continue|" ] ||
    fail "info breakpoints' list: $(cat bp.txt)"

# from -ex, one line each; without silent the stop comes first, then the
# list's output; commands alone takes the last breakpoint set
run_exit 0 "a list from -ex" --batch -ex 'break layer 0 done' -ex 'break layer 2 done' -ex commands \
    -ex 'print $layers' -ex continue -ex end -ex run -ex continue sample:lenet
[ "$(printf '%s\n' "$out" | grep -c '^Breakpoint [0-9]*, ')" = 2 ] || fail "-ex: $out"
printf '%s\n' "$out" | grep -A4 '^Breakpoint 2, layer 2 (SDP, group 0) done$' | grep -q '^= 2 (0x2)$' ||
    fail "the list's output after the stop: $out"
expect_line "$out" "Breakpoint 1, layer 0 (CONV, group 0) done"
printf '%s\n' "$out" | tail -n 1 | grep -q '^Run finished: ' || fail "-ex: no normal end: $out"

# an empty body clears the list: the second run stops at the breakpoint
run_exit 0 "an empty body" --batch -ex 'break layer 2 done' -ex 'commands 1' -ex continue -ex end \
    -ex 'commands 1' -ex end -ex 'info breakpoints' -ex run -ex 'info layers brief' sample:lenet
expect_line "$out" "Breakpoint 1, layer 2 (SDP, group 0) done"
printf '%s\n' "$out" | grep -q '^Run finished' && fail "the cleared list still continued: $out"

# a tbreak's list runs once, and the run goes on
run_exit 0 "a tbreak's list" --batch -ex 'tbreak layer 2 done' -ex commands -ex 'echo once' \
    -ex continue -ex end -ex run -ex 'info breakpoints' sample:lenet
[ "$(printf '%s\n' "$out" | grep -c '^once$')" = 1 ] || fail "tbreak: $out"
expect_line "$out" "No breakpoints or watchpoints."
expect_grep "$out" "^Run finished: "

# a hang stays a hang (exit 1) with a logging list on the way
run_exit 1 "a hang with a list" --batch -ex 'break unit bdma done' -ex commands -ex silent \
    -ex 'echo logged' -ex continue -ex end -ex run "$top/traces/hang_masked_intr"
expect_line "$out" "logged"
expect_grep "$out" "^error: no progress: "

# errors
run_exit 2 "commands 99" --batch -ex 'break layer 2 done' -ex 'commands 99' sample:lenet
expect_line "$out" 'error: -ex 2: commands: no breakpoint number 99 ("info breakpoints" lists them)'
run_exit 2 "commands with no breakpoint" --batch -ex commands sample:lenet
expect_line "$out" 'error: -ex 1: commands: no breakpoints ("commands" alone takes the last one set)'
run_exit 2 "end outside a list" --batch -ex end sample:lenet
expect_line "$out" 'error: -ex 1: end: not inside a command list ("commands N" starts one)'
# the end of a script, or of the -ex commands, ends a list as "end" does,
# as gdb's end of input (process_next_line) does: kept, no error, exit 0
printf 'break layer 2 done\ncommands\nprint $layers\n' >noend.dladbg
run_exit 0 "a missing end" --batch -x noend.dladbg -ex 'info breakpoints' -ex run sample:lenet
expect_line "$out" '        print $layers'
expect_line "$out" '= 2 (0x2)'
run_exit 0 "a missing end in -ex" --batch -ex 'break layer 2 done' -ex commands -ex 'echo hit' \
    sample:lenet
printf '%s\n' "$out" | grep -q '^error: ' && fail "a missing end in -ex: $out"
run_exit 2 "silent on a later line" --batch -ex 'break layer 2 done' -ex commands -ex 'echo x' \
    -ex silent -ex end sample:lenet
expect_line "$out" 'error: -ex 4: commands: "silent" goes on the first line of a command list'
run_exit 2 "commands inside commands" --batch -ex 'break layer 2 done' -ex commands -ex 'commands 1' \
    -ex end sample:lenet
expect_line "$out" 'error: -ex 3: commands: a command list cannot hold "commands"'
run_exit 2 "commands by a prefix inside commands" --batch -ex 'break layer 2 done' -ex commands \
    -ex 'comm 1' -ex end sample:lenet
expect_line "$out" 'error: -ex 3: commands: a command list cannot hold "commands"'
# nor does a script a list sources define one
printf 'commands 1\necho x\nend\n' >define.dladbg
run_exit 2 "commands in a sourced script of a list" --batch -ex 'break layer 2 done' -ex commands \
    -ex 'source define.dladbg' -ex end -ex run sample:lenet
expect_grep "$out" "^error: define.dladbg:1: commands: not while a breakpoint's commands run$"
# a failing line: named with its list and line, the rest of the script skipped
run_exit 2 "a failing line" --batch -ex 'break layer 2 done' -ex commands -ex 'echo a' \
    -ex 'print CDMA.D_NOSUCH' -ex 'echo b' -ex end -ex run -ex 'echo after' sample:lenet
expect_grep "$out" "^error: -ex 7: breakpoint 1's commands, line 2: print: "
expect_line "$out" "a"
printf '%s\n' "$out" | grep -q '^b$\|^after$' && fail "ran on after a failing line: $out"
# run in a list brings the run back where it stopped: stopped, not repeated
run_exit 2 "a list that goes round" --batch -ex 'break layer 2 done' -ex commands -ex run -ex end \
    -ex run sample:lenet
expect_grep "$out" "^error: -ex 5: breakpoint 1's commands were not run again: the run came back to where they last ran (cycle [0-9]*), and would go round for ever$"
# too long a list: at most 256 lines
awk 'BEGIN { print "break layer 2 done"; print "commands"; for (i = 0; i < 300; i++) print "echo " i; print "end"; print "echo after" }' >long.dladbg
run_exit 2 "a list too long" --batch -x long.dladbg sample:lenet
expect_grep "$out" "^error: long.dladbg:259: commands: a command list holds at most 256 lines or 16384 bytes"
printf '%s\n' "$out" | grep -q '^after$' && fail "ran on after too long a list: $out"

# the example script does what its comment says
run_exit 0 "log-layers.dladbg" --batch -x "$top/share/examples/log-layers.dladbg" sample:lenet
[ "$(printf '%s\n' "$out" | grep -c '^SDP layer done:$')" = 2 ] || fail "log-layers: $out"
printf '%s\n' "$out" | tail -n 1 | grep -q '^Run finished: sample:lenet: ' || fail "log-layers: $out"
echo ok
