#!/bin/sh
# Stepping from the keyboard: n (a layer) moves the current layer and the
# registers marked as changed, s (a register write) shows the written value,
# B steps back, b sets and clears a breakpoint that R (run) then stops at.
. "$(dirname "$0")/lib.inc"

# Registers marked changed ('*') in the registers pane (the right-hand pane).
changed_regs() {
    screen | sed -n 's/.*││\* \([A-Z][A-Z0-9_]*\) .*/\1/p' | tr '\n' ' '
}

tui_start
expect_screen '1 Layers (0)'
[ -z "$(changed_regs)" ] || fail "registers marked changed before anything ran"

# n: layer 0 completes; it is selected (the registers pane shows its unit and
# group, changes marked) and layer 2, the SDP still running, is marked as the
# one the run is at (session_layer_at), not layer 1, merely programmed
keys n
wait_for '^ dladbg | sample:lenet | nv_full | layer 1/'
expect_screen '(dladbg) step layer'
expect_screen '^│ *0 done  *CONV  0'
expect_screen '2 Registers CDMA group 0 (layer 0;'
screen | grep -q '^│.[>▶]  *2 running ' || fail "layer 2 is not marked as the one the run is at"
first=$(changed_regs)
[ -n "$first" ] || fail "no register marked changed after stepping a layer"

# another layer: the selection and the marked registers move on
keys n
wait_for '^ dladbg | sample:lenet | nv_full | layer 2/'
wait_for '2 Registers SDP group 0 (layer 2;'
expect_screen '^│ *2 done  *SDP   0'
second=$(changed_regs)
[ -n "$second" ] || fail "no register marked changed after the second step"
[ "$first" != "$second" ] || fail "the marked registers did not change: $second"

# s: one register write at a time; the console says which, and once it is a
# unit's D_ register the registers pane (found with /) shows the written value
last_write() {
    screen | sed -n 's/.*(write \([A-Z_0-9]*\)\.\([A-Z_0-9]*\) = \(0x[0-9a-f]*\)).*/\1 \2 \3/p' | tail -n 1
}
n=0
while :; do
    keys s
    sync_ui
    set -- $(last_write)
    case $2 in D_*) break ;; esac
    n=$((n + 1))
    [ $n -lt 60 ] || fail "no D_ register written in 60 steps"
done
keys /
wait_for 'search registers'
type_text "$1.$2"
keys Enter
wait_for "2 Registers $1"
producer=$(screen | sed -n "s/.*2 Registers $1 group [01] (.*producer \([01]\),.*/\1/p")
screen | grep -q "2 Registers $1 group $producer" || keys g # the group CSB writes reach
wait_for "2 Registers $1 group $producer"
wait_for "││. $2 *$3 "

# S: back one register write, to where the s before the last one stopped
keys S
wait_for '(dladbg) back write'
wait_for 'Back after register write [0-9]*, cycle'

# B: back to the previous layer boundary
keys B
wait_for 'Back at layer boundary 2'
keys B
wait_for 'Back at layer boundary 1'
wait_for '^ dladbg | sample:lenet | nv_full | layer 1/'

# b on layer 3 (selected in the layers pane), then R runs from the start to it
keys 1 Home j j j
keys b
wait_for '(dladbg) break layer 3'
wait_for 'Breakpoint 1: layer 3 programmed'
screen | grep -q '^│[*●] *3 ' || fail "no breakpoint mark on layer 3"
keys R
wait_for 'Breakpoint 1, layer 3 (SDP, group 1) programmed'
expect_screen '^ dladbg | sample:lenet .* Breakpoint 1, layer 3'
# b again on the same layer deletes it
keys 1 Home j j j b
wait_for '(dladbg) delete 1'
screen | grep -q '^│[*●] *3 ' && fail "breakpoint mark still on layer 3"

keys c
wait_for 'Run finished'
keys q
wait_exit
[ "$status" = 0 ] || fail "exit status $status"
expect_restored
