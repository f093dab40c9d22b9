#!/bin/sh
# What a new user's tour of the screen found: the help overlay at 80x24
# cuts no line at its border (its first line was cut, long entries too:
# they wrap under the description column), the timeline says "1 cycle/column"
# in the singular, and the memory pane writes an address with as many hex
# digits in its dump as in its region list.
. "$(dirname "$0")/lib.inc"

TUI_COLS=80 TUI_ROWS=24 tui_start sample:lenet
keys '?'
wait_for 'Keys (\[...\]: the console command a key executes) '
# every page of the overlay, top to bottom
help_page_until 'lines [0-9]*-\([0-9]*\) of \1:'
# entries longer than the overlay go on under their description, whole
for text in 'breakpoint on the selected layer (again: delete it) *│' \
    '^[^a-z]* *\[break layer N / delete N\] *│' \
    'quit (asks while a *│' '^[^a-z]* *run is in progress) *│'; do
    printf '%s\n' "$help_seen" | grep -q -- "$text" || fail "the overlay at 80x24 lacks: $text"
done
keys Escape
wait_gone 'Keys (\[...\]'
quit_now

# before anything ran the timeline is at one cycle a column: singular
TUI_COLS=120 TUI_ROWS=40 tui_restart sample:lenet
wait_for '7 Timeline (whole run) 1 cycle/column;'
keys n
wait_for 'Timeline (whole run) [0-9.]* cycles/column;'

# the memory pane: the region list's and the dump's addresses alike
keys 6
wait_for 'cdma.dat *R *dram'
list=$(screen | sed -n 's/.*cdma\.dat *R *dram *\(0x[0-9a-f]*\) .*/\1/p' | head -n 1)
dump=$(screen | sed -n 's/^.*││\(0x[0-9a-f]*\): .*/\1/p' | head -n 1)
[ -n "$list" ] && [ -n "$dump" ] || fail "no region list or no dump in the memory pane"
[ ${#list} -eq ${#dump} ] || fail "region list $list and dump $dump differ in width"
[ $((list)) -eq $((dump)) ] || fail "the dump starts at $dump, not at the region's $list"
quit_confirmed
echo ok
