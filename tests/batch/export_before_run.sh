#!/bin/sh
# Exports write what the run did: one made before anything ran is written
# (empty) and says that nothing has run yet, as a user may expect an export
# to run the network; after a run, no such note.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

for kind in 'csv a.csv --decoder regs' 'chrome a.json' 'vcd a.vcd'; do
    run_exit 0 "export $kind before a run" --batch -ex "export $kind" sample:lenet
    expect_line "$out" 'note: nothing has run yet ("run" first, then export what it did)'
    run_exit 0 "export $kind after a run" --batch -ex run -ex "export $kind" sample:lenet
    printf '%s\n' "$out" | grep -q 'nothing has run yet' && fail "export $kind after run: $out"
done
echo ok
