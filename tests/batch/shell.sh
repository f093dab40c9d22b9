#!/bin/sh
# shell CMD and !CMD, as gdb has them: /bin/sh -c CMD on dladbg's terminal,
# its output in order with dladbg's; a status other than 0 (or a signal) is
# told and is not dladbg's: the batch run goes on and exits 0.  "shell"
# without a command, gdb's interactive shell, is refused in batch mode (exit
# 2): standard input is the script or a pipe (tests/tui/shell_interactive.sh).
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

run_exit 0 "shell" --batch -ex 'echo before' -ex 'shell echo from-sh; exit 3' \
    -ex '  !echo "bang-$((1 + 2))"' -ex '!kill -9 $$' -ex 'shell true' -ex 'echo after' sample:lenet
[ "$(printf '%s\n' "$out" | grep -v '^sample:lenet: compiled for' | tr '\n' '|')" = \
    "before|from-sh|shell: exit status 3|bang-3|shell: killed by signal 9 (Killed)|after|" ] ||
    fail "shell's output and statuses: $out"
run_exit 2 "shell without a command" --batch -ex shell sample:lenet
expect_line "$out" 'error: -ex 1: shell: an interactive shell needs a terminal, and in --batch standard input is the script or a pipe: give a command ("shell ls", "!ls")'
echo ok
