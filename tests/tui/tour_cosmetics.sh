#!/bin/sh
# What a new user's tour of the screen found: the help overlay at 80x24
# cuts no line at its border (its first line was cut, long entries too:
# they wrap under the description column), the timeline says "1 cycle/column"
# in the singular, its axis ticks fall on round cycles (1, 2 or 5 times a
# power of ten apart, 100k not 141248) and its scale is never "5.89e+03",
# and the memory pane writes an address with as many hex
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
    'quit (asks while a *│' '^[^a-z]* *run is in progress); at the ">" of "commands": end *│' \
    '^[^a-z]* *the list *│'; do
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
# the whole run's axis: ticks at multiples of one round step, in k/M past
# a step of a thousand; the title's scale a plain number
keys c
wait_for 'Run finished'
wait_for 'Timeline (whole run) [0-9.]* cycles/column;'
expect_no_screen 'cycles*/column.*e+0'
axis=$(screen | sed -n 's/^│cycle *\(|.*\)│.*$/\1/p' | head -n 1)
[ -n "$axis" ] || fail "no timeline axis on screen"
printf '%s\n' "$axis" | tr '|' '\n' | awk '
    NF == 0 { next }
    { v = $1; m = 1
      if (v ~ /k$/) m = 1e3; else if (v ~ /M$/) m = 1e6; else if (v ~ /G$/) m = 1e9
      sub(/[kMG]$/, "", v)
      if (v !~ /^[0-9]+$/) { print "tick " $1 " is not a whole number"; bad = 1 }
      t[n++] = v * m }
    END {
      if (n < 3) { print "fewer than 3 ticks"; exit 1 }
      step = t[1] - t[0]; s = step
      while (s >= 10 && s % 10 == 0) s /= 10
      if (s != 1 && s != 2 && s != 5) { print "step " step " is not 1, 2 or 5 times a power of ten"; bad = 1 }
      for (i = 1; i < n; i++) if (t[i] - t[i - 1] != step) { print "ticks " t[i - 1] ", " t[i] " are not " step " apart"; bad = 1 }
      exit bad }' || fail "timeline axis not on round cycles: $axis"

quit_now
echo ok
