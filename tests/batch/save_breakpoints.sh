#!/bin/sh
# save breakpoints FILE, as gdb has it: every breakpoint and watchpoint as the
# commands that set it again, with its condition, ignore count, disabled state
# and command list; "source FILE" in another session sets the same ones (the
# numbers afresh: ignore/disable name $bpnum, the last one set, as gdb's file
# does).  Nothing to save, or a file that cannot be written, is an error
# (exit 2) that leaves no file.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

set_them() {
    printf '%s\n' "-ex" "break layer 1 started" "-ex" 'tbreak unit sdp done if $cycle > 5' \
        "-ex" "break reg CDMA.D_MISC_CFG == 0x1100" "-ex" "watch mem 0x80000000 16" \
        "-ex" "ignore 3 2" "-ex" "disable 4" "-ex" "commands 1" "-ex" "silent" \
        "-ex" 'print $layers' "-ex" "continue" "-ex" "end"
}
# shellcheck disable=SC2046
IFS='
'
run_exit 0 "save" --batch -q $(set_them) -ex "save breakpoints bps.gdb" -ex "info breakpoints" \
    sample:lenet
unset IFS
expect_line "$out" "Saved 4 breakpoints to bps.gdb."
before=$(printf '%s\n' "$out" | sed -n '/^Num /,$p')
[ -n "$before" ] || fail "no breakpoint table: $out"
for line in 'break layer 1 started' '  commands' '    silent' '    print $layers' '    continue' \
    '  end' 'tbreak unit sdp done if $cycle > 5' 'break reg CDMA.D_MISC_CFG == 0x1100' \
    '  ignore $bpnum 2' 'watch mem 0x80000000 16' '  disable $bpnum'; do
    grep -qxF -- "$line" bps.gdb || fail "bps.gdb lacks \"$line\": $(cat bps.gdb)"
done

# sourced in a fresh session: the same table, line for line
run_exit 0 "source" --batch -q -ex "source bps.gdb" -ex "info breakpoints" sample:lenet
after=$(printf '%s\n' "$out" | sed -n '/^Num /,$p')
[ "$before" = "$after" ] || fail "sourced table differs:
$before
---
$after"

# after a breakpoint of its own the numbers move by one, and ignore and
# disable still reach the breakpoints they belong to
run_exit 0 "source after one" --batch -q -ex "break layer 0" -ex "source bps.gdb" \
    -ex "info breakpoints" sample:lenet
expect_grep "$out" '^4 *breakpoint *y *0 *write to CDMA.D_MISC_CFG == 0x1100$'
expect_grep "$out" '^5 *watchpoint *n '
expect_line "$out" "        ignore next 2 hits"

# the list runs as saved: silent, printing, going on to the end
run_exit 0 "run the sourced list" --batch -q -ex "source bps.gdb" -ex "delete 2" -ex run \
    sample:lenet
expect_grep "$out" '^= [0-9]* (0x[0-9a-f]*)$'
if printf '%s\n' "$out" | grep -q '^Breakpoint 1,'; then fail "the silent list printed its stop"; fi

# errors: nothing to save, no file, a folder that does not exist; $bpnum unset
run_exit 2 "nothing to save" --batch -q -ex "save breakpoints none.gdb" sample:lenet
expect_grep "$out" "nothing to save"
[ ! -e none.gdb ] || fail "none.gdb written"
run_exit 2 "no file" --batch -q -ex "break layer 1" -ex "save breakpoints" sample:lenet
run_exit 2 "missing folder" --batch -q -ex "break layer 1" -ex "save breakpoints no/such/f" \
    sample:lenet
[ ! -e no ] || fail "a folder was made"
run_exit 2 '$bpnum unset' --batch -q -ex 'print $bpnum' sample:lenet
expect_grep "$out" 'no breakpoint has been set'
echo ok
