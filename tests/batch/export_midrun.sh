#!/bin/sh
# A layers CSV exported mid-run leaves start_cycle empty for layers not yet
# launched and end_cycle and cycles empty for layers not done, instead of
# zeros that a spreadsheet would sum (issue 35, item 7).
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

run_exit 0 "mid-run export" --batch -q -ex next -ex 'export csv layers.csv --decoder layers' sample:lenet
# columns: index,unit,op,group,start_cycle,end_cycle,cycles,...,state (12th)
tr -d '\r"' <layers.csv | awk -F, 'NR > 1 {
    if ($12 == "done" && ($5 == "" || $6 == "" || $7 == "")) { print "done without cycles: " $0; bad = 1 }
    if ($12 == "running" && ($5 == "" || $6 != "" || $7 != "")) { print "running: " $0; bad = 1 }
    if (($12 == "programming" || $12 == "enabled") && ($5 != "" || $6 != "" || $7 != "")) {
        print "not launched: " $0; bad = 1 }
    n[$12]++
} END {
    if (!n["done"] || !n["programming"]) { print "expected done and programming layers"; bad = 1 }
    exit bad
}' || fail "$(cat layers.csv)"
echo ok
