#!/bin/sh
# A long run keeps the screen live (layer k/N and the cycle move while it
# runs) and Ctrl-C or Esc interrupts it without leaving the program; the
# run can then go on.
. "$(dirname "$0")/lib.inc"

make_long_trace "$TUI_TMP/long" 4000
tui_start "$TUI_TMP/long"
keys c
wait_for 'running: continue  (Ctrl-C interrupts)'
wait_for '^ dladbg | long | nv_full | layer [1-9]'
k1=$(layers_done)
k2=$k1
n=0
while [ "$k2" -le "$k1" ] && [ $n -lt $((TUI_WAIT * 10)) ]; do
    sleep 0.1
    k2=$(layers_done)
    n=$((n + 1))
done
[ "$k2" -gt "$k1" ] || fail "no progress shown while running ($k1 -> $k2)"
expect_screen 'Ctrl-C Interrupt'
keys C-c
wait_for '^│Interrupted\. '
wait_gone 'running: continue'
# that Ctrl-C was the run's: it does not count towards the two idle ones
# that quit, so another one soon after (gdb's habit) only says how to quit
# (the idle loop looks at a Ctrl-C every 250 ms: wait that out first)
sleep 0.6
expect_no_screen 'Ctrl-C again within 2 s quits'
keys C-c
wait_for 'Ctrl-C again within 2 s quits'
[ ! -f "$TUI_TMP/status" ] || fail "a Ctrl-C just after the one that interrupted the run quit"
k3=$(layers_done)
sleep 0.5
[ "$(layers_done)" = "$k3" ] || fail "still running after Ctrl-C"
expect_screen '1 Layers'

# again, interrupted with Esc this time
keys c
wait_for 'running: continue'
keys Escape
# a stop now takes three lines (what the hardware did, where the driver is):
# the first "Interrupted." may have scrolled away; the run must have stopped
wait_gone 'running: continue'
expect_screen '^│Interrupted\. '
[ "$(layers_done)" -lt 4000 ] || fail "the run finished instead of being interrupted"

quit_confirmed
