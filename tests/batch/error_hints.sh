#!/bin/sh
# Errors that name a wrong value list the valid ones, with the nearest as a
# guess: enum values of a field (also of a register's only field), interrupt
# names, commands and subcommands.  "delete" without numbers says how many
# breakpoints it deleted (batch mode asks nothing).
set -eu
. "$(dirname "$0")/lib.inc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# a misspelt command in a script: file and line, then the guess
printf 'break layer 1\nbrek layer 2\necho not reached\n' >"$tmp/typo.dladbg"
run_exit 2 "misspelt command" --batch -x "$tmp/typo.dladbg" sample:lenet
expect_line "$out" "error: $tmp/typo.dladbg:2: unknown command \"brek\"; did you mean \"break\"?"
run_exit 2 "misspelt -ex" --batch -ex 'break layer 1' -ex 'contnue' sample:lenet
expect_line "$out" "error: -ex 2: unknown command \"contnue\"; did you mean \"continue\"?"
run_exit 2 "misspelt subcommand" --batch -ex 'info layrs' sample:lenet
expect_grep "$out" "^error: -ex 1: info: unknown \"layrs\" (did you mean \"layers\"?); expected one of: layers, tasks, "

# enum values of the field
run_exit 2 "bad enum" --batch -ex 'break reg SDP.D_OP_ENABLE == BOGUS' sample:lenet
expect_line "$out" "error: -ex 1: break reg: \"BOGUS\" is not a value of SDP.D_OP_ENABLE.OP_EN; expected one of: DISABLE, ENABLE, or a number"
run_exit 2 "misspelt enum" --batch -ex 'reg SDP.D_FEATURE_MODE_CFG.FLYING_MODE = OF' sample:lenet
expect_line "$out" "error: -ex 1: reg: \"OF\" is not a value of SDP.D_FEATURE_MODE_CFG.FLYING_MODE (did you mean \"OFF\"?); expected one of: OFF, ON, or a number"
# the register's only field lends it its names
run_exit 0 "enum of a whole register" --batch -ex 'break reg SDP.D_OP_ENABLE == ENABLE' -ex continue sample:lenet
expect_line "$out" "Breakpoint 1: write to SDP.D_OP_ENABLE == 0x1"
expect_grep "$out" "^Breakpoint 1, .*SDP.D_OP_ENABLE.*0x00000001"

# interrupt names
run_exit 2 "bad interrupt" --batch -ex 'break intr NOPE' sample:lenet
expect_line "$out" "error: -ex 1: break intr: no interrupt \"NOPE\"; expected one of: SDP_DONE0 SDP_DONE1 CDP_DONE0 CDP_DONE1 PDP_DONE0 PDP_DONE1 BDMA_DONE0 BDMA_DONE1 RUBIK_DONE0 RUBIK_DONE1 CDMA_DAT_DONE0 CDMA_DAT_DONE1 CDMA_WT_DONE0 CDMA_WT_DONE1 CACC_DONE0 CACC_DONE1 (or as SDP_DONE_STATUS0)"
run_exit 2 "misspelt interrupt" --batch -ex 'break intr PDP_DONE_STATSU1' sample:lenet
expect_grep "$out" "no interrupt \"PDP_DONE_STATSU1\" (did you mean \"PDP_DONE_STATUS1\"?)"

# diagnostic kinds (a kind that does not exist could never stop)
run_exit 2 "misspelt diagnostic kind" --batch -ex 'break diag csb-hol' sample:lenet
expect_line "$out" "error: -ex 1: break diag: no diagnostic kind \"csb-hol\" (did you mean \"csb-hole\"?); expected one of: csb-reserved, csb-unmapped, csb-hole, group-busy, feature-absent, memory, rule, cbuf, unsupported, hang"

# delete: counted in batch mode, nothing asked
run_exit 0 "delete all" --batch -ex 'break layer 1' -ex 'break layer 2' -ex 'tbreak layer 3' \
    -ex delete -ex 'info breakpoints' sample:lenet
expect_line "$out" "Deleted 3 breakpoints."
expect_line "$out" "No breakpoints or watchpoints."
printf '%s\n' "$out" | grep -q "Delete all breakpoints?" && fail "batch mode asked"
# a misspelt unit of "break unit": the nearest and the units there are
run_exit 2 "misspelt unit" --batch -ex 'break unit sdpp' sample:lenet
expect_line "$out" 'error: -ex 1: break unit: no unit "sdpp" (did you mean "sdp"?); expected conv, sdp, pdp, cdp, rubik or bdma'
# a misspelt decoder: the nearest and the decoders there are
run_exit 2 "misspelt decoder" --batch -ex 'export csv a.csv --decoder layer' sample:lenet
expect_grep "$out" '^error: -ex 1: export csv: no decoder named "layer" (did you mean "layers"?); decoders: .*, layers, .*regs'
# the plain console reading a pipe says it answered for the user, as gdb does
out=$(printf 'break layer 1\ndelete\n' | run_dladbg sample:lenet 2>&1)
expect_line "$out" "Delete all breakpoints? (y or n) [answered y: input is not a terminal]"
expect_line "$out" "Deleted 1 breakpoint."
echo ok
