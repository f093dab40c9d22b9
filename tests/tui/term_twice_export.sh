#!/bin/sh
# A second SIGTERM while an export runs (issue 36 item 11): the TUI leaves at
# once, as before, but removes the export's temporary folder first.  The two
# signals come from strace's fault injection at the export's first two
# links of a file into the temporary folder: no timing.
. "$(dirname "$0")/lib.inc"
command -v strace >/dev/null 2>&1 || { echo "skip: strace is not installed"; exit 77; }
strace -f -o /dev/null -e inject=linkat:error=EPERM:when=999 true 2>/dev/null ||
    { echo "skip: strace cannot inject faults here"; exit 77; }
work="$TUI_TMP/work"
mkdir -p "$work"
real=$DLADBG
cat >"$TUI_TMP/traced" <<WRAP
#!/bin/sh
cd "$work"
ASAN_OPTIONS="\${ASAN_OPTIONS:-}:detect_leaks=0" exec strace -f -o /dev/null \\
    -e trace=linkat -e inject=linkat:signal=TERM:when=1..2 "$real" "\$@"
WRAP
chmod +x "$TUI_TMP/traced"
DLADBG="$TUI_TMP/traced"
tui_start sample:lenet
keys c
wait_for 'Run finished'
keys :
type_text "export txn tx"
keys Enter
wait_exit
[ "$status" = 143 ] || fail "exit status $status, expected 143 (128 + SIGTERM)"
set -- "$work"/tx.dladbg-* "$work"/tx/*.tmp*
for f in "$@"; do
    [ -e "$f" ] && fail "the second SIGTERM left $f"
done
echo ok
