#!/bin/sh
# The source tree's shape (issue 37): the simulator's core reaches the units
# only through the unit table (sim/core/unit_table.h, listed in sim/units.c),
# so no file of sim/core includes a header of a unit's folder; no folder grows
# past 30 sources (split it by what its files do); sim/ and src/ keep their
# files in folders, a handful at most at the top.
set -eu
. "$(dirname "$0")/lib.inc"
[ -d sim/core ] && [ -d src ] && [ -d ui ] || fail "run from the top of the tree"

# (a) core includes no unit: "conv/conv.h", "sdp/sdp.h", "../pdp/pdp.h", ...
units='conv|sdp|pdp|cdp|lut|bdma|rubik'
bad=$(grep -En "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]([^\">]*/)?($units)/" \
    sim/core/*.c sim/core/*.h || true)
[ -z "$bad" ] || fail "sim/core includes a unit's header (use the unit table):
$bad"
# nor declares or calls a unit's functions itself (bdma_execute, cbuf_clone,
# sdp_needs_rdma, ...): those are reached through the units' entries
fns='bdma|conv|cdma|csc|cmac|cacc|cbuf|sdp|pdp|cdp|rubik|rbk|lut'
bad=$(grep -En "\b($fns)_[a-z0-9_]*[[:space:]]*\(" sim/core/*.c sim/core/*.h || true)
[ -z "$bad" ] || fail "sim/core names a unit's function (use the unit table):
$bad"

# (b) no source folder holds more than 30 .c/.h files
max=30
for dir in $(find sim src ui -type d | sort); do
    n=$(find "$dir" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' \) | wc -l)
    [ "$n" -le "$max" ] || fail "$dir holds $n .c/.h files (at most $max)"
done

# (c) sim/ and src/ hold their files in folders: at most 5 at the top
for dir in sim src; do
    n=$(find "$dir" -maxdepth 1 -type f | wc -l)
    [ "$n" -le 5 ] || fail "$dir/ holds $n files at its top level (at most 5): $(find "$dir" \
        -maxdepth 1 -type f | sort | tr '\n' ' ')"
done
echo ok
