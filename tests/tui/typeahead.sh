#!/bin/sh
# A line typed into the console while a command runs is kept and runs once
# the command returns, as a terminal gdb reads typed-ahead lines; the
# command line being typed ahead is not lost either.  (Keys of the other
# panes typed during a run are still dropped: a step's n pressed again while
# it works must not queue steps.)
. "$(dirname "$0")/lib.inc"

tui_start sample:resnet18
keys :
type_text 'run'
keys Enter
wait_for 'Ctrl-C interrupts'
type_text 'echo typed-ahead-ok'
keys Enter
type_text 'echo second'
keys Enter
type_text 'print 6*7'
wait_for 'Run finished'
wait_for '^│typed-ahead-ok'
wait_for '^│second'
# in order: the run's end, then the lines typed during it
screen | grep -n -e '^│Run finished' -e '^│typed-ahead-ok' -e '^│second' | cut -d: -f1 | tr '\n' ' ' |
    awk '{ exit !($1 < $2 && $2 < $3) }' || fail "typed-ahead lines out of order: $(screen)"
# the third line, typed but not entered, waits on the command line
keys Enter
wait_for '^│= 42 (0x2a)'
keys Escape
quit_now
