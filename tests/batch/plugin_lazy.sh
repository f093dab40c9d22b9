#!/bin/sh
# Decoder plugins are read at start by a probe child and mapped into dladbg
# only when used (issue 34: the eight shipped ones cost 0.2 MiB of every
# run's peak RSS): a batch run that uses none runs no plugin's code and maps
# none, "plugins" says so; an export through a decoder maps that one only,
# and writes what it wrote when every plugin was mapped at start.  The
# dynamic loader's own log (LD_DEBUG) tells which process ran which
# plugin's initialisation: the probes' children do, dladbg itself only for
# the decoder it used.
set -eu
. "$(dirname "$0")/lib.inc"
in_scratch_dir

# run_traced ARGS...: dladbg ARGS, its output in $out, the loader's log of
# dladbg's own process (not its children's) in $inits
run_traced() {
    LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/ld" sh -c 'echo $$ >"$0"; exec "$@"' "$tmp/pid" \
        "$DLADBG" "$@" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "dladbg $*: exit $?"; }
    out=$(cat "$tmp/out")
    pid=$(cat "$tmp/pid")
    # one log file, the children's lines in it with their own pids
    inits=$(cat "$tmp"/ld.* | sed -n "s|^ *$pid:[[:space:]]*calling init: \(.*/\([a-z]*\)\.so\)\$|\2|p")
    rm -f "$tmp"/ld.*
}

run_traced --batch -q --nx -ex run -ex plugins sample:lenet
probes=$(printf "%s\n" "$out" | grep -c '^ *from .*\.so (ABI ' || true)
[ "$probes" -ge 8 ] || fail "\"plugins\" listed $probes plugins, expected the 8 shipped ones"
n=$(printf '%s\n' "$out" | grep -c '(ABI 1, not mapped until first used)$' || true)
[ "$n" = "$probes" ] || fail "$n of $probes plugins not mapped after a run that used none:
$out"
for name in layers regs dma lut perf cbuf aie sophon; do
    printf '%s\n' "$inits" | grep -qx "$name" && fail "dladbg ran $name.so's initialisation, unused"
done

run_traced --batch -q --nx -ex run -ex 'export csv dma.csv --decoder dma' -ex plugins sample:lenet
[ "$(printf '%s\n' "$inits" | grep -cx 'layers\|regs\|dma\|lut\|perf\|cbuf\|aie\|sophon')" = 1 ] &&
    printf '%s\n' "$inits" | grep -qx dma ||
    fail "an export through dma mapped, of the shipped plugins: $(echo $inits)"
expect_grep "$out" "/dma\.so (ABI 1, mapped)$"
n=$(printf '%s\n' "$out" | grep -c '(ABI 1, not mapped until first used)$' || true)
[ "$n" = $((probes - 1)) ] || fail "$n plugins left unmapped after an export through one"

# the first use's rows are those of a plugin already mapped (a second export)
run_dladbg --batch -q --nx -ex run -ex 'export csv again.csv --decoder dma' \
    -ex 'export csv dma2.csv --decoder dma' sample:lenet >/dev/null
cmp -s dma.csv dma2.csv || fail "the first export through dma differs from the second"
[ "$(wc -l <dma.csv)" -ge 2 ] || fail "dma.csv holds $(wc -l <dma.csv) lines"
echo ok
