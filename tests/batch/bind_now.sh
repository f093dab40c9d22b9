#!/bin/sh
# dladbg binds its calls into libc and libm at start-up (-z now): forked
# children (plugin probes, export csv's decoder) would otherwise bind their
# first calls again in every child, a symbol lookup and page faults each.
set -eu
. "$(dirname "$0")/lib.inc"
command -v readelf >/dev/null || { echo "no readelf"; exit 77; }
flags=$(readelf -d "$DLADBG" | grep -E '\((FLAGS|FLAGS_1)\)' || true)
expect_grep "$flags" "BIND_NOW"
echo ok
