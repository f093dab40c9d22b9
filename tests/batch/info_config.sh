#!/bin/sh
# The configuration a file fits besides the one chosen is said once, by
# "info config", not on every open (issue 35, item 9).
set -eu
. "$(dirname "$0")/lib.inc"

run_exit 0 "open" --batch sample:lenet
expect_grep "$out" '^sample:lenet: compiled for nv_full (atom 32 bytes'
case $out in *"also fits"*) fail "the open line names the other fits: $out" ;; esac

run_exit 0 "info config" --batch -q -ex 'info config' sample:lenet
expect_grep "$out" '^Configuration nv_full: '
expect_grep "$out" '^sample:lenet: compiled for nv_full (.*); also fits nv_small_256, nv_small_256_full$'
run_exit 0 "info config, --config" --batch -q --config nv_small_256 -ex 'info config' sample:lenet
expect_grep "$out" '^Configuration nv_small_256 (--config): '
run_exit 0 "info config of a trace" --batch -q -ex 'info config' traces/bdma_copy
expect_grep "$out" '^Configuration nv_full'
echo ok
