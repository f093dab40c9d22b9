#!/bin/sh
# An installed tree (PREFIX/bin/dladbg + PREFIX/lib/dladbg/plugins, as `make install`
# lays it out) finds its decoder plugins relative to the executable, whatever PREFIX
# or DESTDIR the install used.
set -eu
. "$(dirname "$0")/lib.inc"
plugins="$(dirname "$DLADBG")/plugins"
[ -d "$plugins" ] || fail "no plugins built at $plugins"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/some/prefix/bin" "$tmp/some/prefix/lib/dladbg/plugins"
cp "$DLADBG" "$tmp/some/prefix/bin/dladbg"
cp "$plugins"/*.so "$tmp/some/prefix/lib/dladbg/plugins/"
trace="$(pwd)/traces/bdma_copy"
out=$(cd "$tmp" && env -u DLADBG_PLUGIN_PATH "$tmp/some/prefix/bin/dladbg" --batch -ex plugins \
    "$trace" 2>&1) || fail "exit $?: $out"
expect_grep "$out" "from $tmp/some/prefix/bin/../lib/dladbg/plugins/layers.so"
echo ok
