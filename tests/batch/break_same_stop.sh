#!/bin/sh
# Several breakpoints hit by the same action, as gdb's stop chain: the stop
# line names each of them ("Breakpoint 1, 2, layer 2 (SDP, group 0) done"),
# their command lists run in breakpoint-number order, a list that resumes the
# run ends the processing of the others (the new stop's lists run instead),
# "silent" leaves the stop's lines out only when every hit breakpoint's list
# says so, and a breakpoint held back by its ignore count or condition is no
# part of the stop; "continue N" sets the ignore count of each.
# sample:lenet's SDP layers are 2 and 3: "break layer 2 done" and "break
# unit sdp done" both hit when layer 2 completes.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

# lines of $out matching REGEX, joined by "|"
lines() { printf '%s\n' "$out" | grep -e "$1" | tr '\n' '|'; }

# both lists run, in number order, after the stop line naming both
run_exit 0 "two lists" --batch -ex 'break layer 2 done' -ex 'break unit sdp done' \
    -ex 'commands 2' -ex 'echo list of 2\n' -ex end -ex 'commands 1' -ex 'echo list of 1\n' -ex end \
    -ex run sample:lenet
expect_line "$out" "Breakpoint 1, 2, layer 2 (SDP, group 0) done"
[ "$(lines '^Breakpoint [0-9, ]*, \|^list of ')" = "Breakpoint 1, 2, layer 2 (SDP, group 0) done|list of 1|list of 2|" ] ||
    fail "two lists, in number order after the stop: $out"

# a list that resumes the run ends the processing: 2's list runs at the next
# stop (layer 3, its own) only
run_exit 0 "a list that continues" --batch -ex 'break layer 2 done' -ex 'break unit sdp done' \
    -ex 'commands 1' -ex 'echo list of 1\n' -ex continue -ex end \
    -ex 'commands 2' -ex 'echo list of 2\n' -ex end -ex run sample:lenet
[ "$(lines '^Breakpoint [0-9, ]*, \|^list of ')" = "Breakpoint 1, 2, layer 2 (SDP, group 0) done|list of 1|Breakpoint 2, layer 3 (SDP, group 1) done|list of 2|" ] ||
    fail "a list that continues: $out"

# silent: the stop's lines are left out only when every hit list says silent
run_exit 0 "one list silent" --batch -ex 'break layer 2 done' -ex 'break unit sdp done' \
    -ex 'commands 1' -ex silent -ex 'echo list of 1\n' -ex end -ex run sample:lenet
[ "$(lines '^Breakpoint [0-9, ]*, \|^list of ')" = "Breakpoint 1, 2, layer 2 (SDP, group 0) done|list of 1|" ] ||
    fail "one list silent: $out"
run_exit 0 "every list silent" --batch -ex 'break layer 2 done' -ex 'break unit sdp done' \
    -ex 'commands 1' -ex silent -ex 'echo list of 1\n' -ex end \
    -ex 'commands 2' -ex silent -ex 'echo list of 2\n' -ex end -ex run sample:lenet
[ "$(lines '^Breakpoint [0-9, ]*, \|^list of \|^2 layers done')" = "list of 1|list of 2|" ] ||
    fail "every list silent: $out"

# an ignore count or a condition keeps a breakpoint out of the stop, and its list
run_exit 0 "one ignored" --batch -ex 'break layer 2 done' -ex 'break unit sdp done' \
    -ex 'commands 1' -ex 'echo list of 1\n' -ex end -ex 'commands 2' -ex 'echo list of 2\n' -ex end \
    -ex 'ignore 1 1' -ex run sample:lenet
[ "$(lines '^Breakpoint [0-9, ]*, \|^list of ')" = "Breakpoint 2, layer 2 (SDP, group 0) done|list of 2|" ] ||
    fail "one ignored: $out"
run_exit 0 "one conditional" --batch -ex 'break layer 2 done' -ex 'break unit sdp done if $layers > 2' \
    -ex 'commands 1' -ex 'echo list of 1\n' -ex end -ex 'commands 2' -ex 'echo list of 2\n' -ex end \
    -ex run -ex continue sample:lenet
[ "$(lines '^Breakpoint [0-9, ]*, \|^list of ')" = "Breakpoint 1, layer 2 (SDP, group 0) done|list of 1|Breakpoint 2, layer 3 (SDP, group 1) done|list of 2|" ] ||
    fail "one conditional: $out"

# different stop texts are told one after the other
run_exit 0 "a register and a layer" --batch -ex 'break layer 2 enabled' -ex 'break reg SDP.D_OP_ENABLE' \
    -ex run sample:lenet
expect_line "$out" "Breakpoint 1, layer 2 (SDP, group 0) enabled; Breakpoint 2, SDP.D_OP_ENABLE (group 0) written: 0x00000001 (was 0x00000000)"

# continue N: each breakpoint of the stop ignores the next N-1 crossings
run_exit 0 "continue 2" --batch -ex 'break layer 2 done' -ex 'break unit sdp done' -ex run \
    -ex 'continue 2' -ex 'info breakpoints' sample:lenet
expect_line "$out" "Will ignore the next 1 crossings of breakpoint 1."
expect_line "$out" "Will ignore the next 1 crossings of breakpoint 2."
expect_grep "$out" "^Run finished: "
echo ok
