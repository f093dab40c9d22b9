#!/bin/sh
# "info mem" says what the whole process holds beside the simulated memory:
# its peak RSS (VmHWM) and RSS now, the figures the bench's memory target is
# measured with (issue 34), and how much of it is the program's files.  Checked against what the kernel reports to
# /usr/bin/time for the same process, and for a peak that grows with the run.
set -eu
. "$(dirname "$0")/lib.inc"

rss_line='^process peak RSS [0-9][0-9]* KiB, [0-9][0-9]* KiB now (this dladbg: '
run_exit 0 "info mem before the run" --batch -q --nx -ex 'info mem' sample:resnet18
expect_grep "$out" "$rss_line"
before=$(printf '%s\n' "$out" | sed -n 's/^process peak RSS \([0-9]*\) KiB.*/\1/p')

run_exit 0 "info mem after the run" --batch -q --nx -ex run -ex 'info mem' sample:resnet18
expect_grep "$out" "$rss_line"
peak=$(printf '%s\n' "$out" | sed -n 's/^process peak RSS \([0-9]*\) KiB.*/\1/p')
now=$(printf '%s\n' "$out" | sed -n 's/^process peak RSS [0-9]* KiB, \([0-9]*\) KiB now.*/\1/p')
dram=$(printf '%s\n' "$out" | sed -n 's/^dram *\([0-9]*\) bytes resident.*/\1/p')
[ "$now" -le "$peak" ] || fail "RSS now $now KiB above the peak $peak KiB"
expect_grep "$out" '^model scratch [0-9][0-9]* bytes kept across layers ([0-9][0-9]* allocations, [0-9][0-9]* requests served by a kept buffer)'
# what of it is anonymous and what the program's files: together, about now
expect_grep "$out" '^process now: [0-9][0-9]* KiB anonymous (heap, stacks), [0-9][0-9]* KiB of files'
anon=$(printf '%s\n' "$out" | sed -n 's/^process now: \([0-9]*\) KiB anonymous.*/\1/p')
files=$(printf '%s\n' "$out" | sed -n 's/^process now: [0-9]* KiB anonymous (heap, stacks), \([0-9]*\) KiB.*/\1/p')
sum=$((anon + files))
[ $((sum * 10)) -ge $((now * 9)) ] && [ "$sum" -le $((now + 1024)) ] ||
    fail "anonymous $anon KiB and files $files KiB against $now KiB resident"
[ "$anon" -ge $((dram / 1024)) ] || fail "anonymous $anon KiB below the $dram bytes of DRAM resident"
# the run holds the network's 29 MB of simulated memory: the peak holds it too
[ "$peak" -ge $((dram / 1024)) ] || fail "peak $peak KiB below the $dram bytes of DRAM resident"
[ "$peak" -gt $((before + dram / 1024 / 2)) ] ||
    fail "peak $peak KiB after the run, $before KiB before: the run's memory is not in it"

if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' -o "${TMPDIR:-/tmp}/info_mem_rss.$$" \
        "$DLADBG" --batch -q --nx -ex run -ex 'info mem' sample:resnet18 >/dev/null 2>&1
    kernel=$(tail -n 1 "${TMPDIR:-/tmp}/info_mem_rss.$$")
    rm -f "${TMPDIR:-/tmp}/info_mem_rss.$$"
    # the same kind of run, the kernel's own maximum: within 10%
    [ $((peak * 10)) -ge $((kernel * 9)) ] && [ $((peak * 10)) -le $((kernel * 11)) ] ||
        fail "info mem's peak $peak KiB, the kernel's maximum RSS of such a run $kernel KiB"
fi
# What a small network costs beyond its 64 KiB: with dladbg linked as a PIE
# the dynamic loader wrote every page of its relocated tables at start-up
# (1,320 KiB anonymous at the end of this run; 1,140 KiB as a fixed-address
# executable; 816-820 KiB once tables are filled when first used, the event
# ring's diagnostic slots and the plugin table sized to what they hold, and
# freed scratch returned, issue 34).  The sanitizers' shadow memory makes the
# figure meaningless.
if [ "${SAN:-}" != 1 ]; then
    run_exit 0 "info mem of a small network" --batch -q --nx -ex run -ex 'info mem' sample:lenet
    small=$(printf '%s\n' "$out" | sed -n 's/^process now: \([0-9]*\) KiB anonymous.*/\1/p')
    [ -n "$small" ] && [ "$small" -le 840 ] ||
        fail "sample:lenet: ${small:-no} KiB anonymous at the end of its run, above 840 KiB"
    # readline, ncurses, libcsv and libjpeg linked in from their archives:
    # as shared objects they took 3,840-3,860 KiB of files (their symbol
    # tables and 64 KiB of code around each page touched); 3,350-3,450 now
    files=$(printf '%s\n' "$out" | sed -n 's/^process now: [0-9]* KiB anonymous (heap, stacks), \([0-9]*\) KiB.*/\1/p')
    [ -n "$files" ] && [ "$files" -le 3650 ] ||
        fail "sample:lenet: ${files:-no} KiB of files resident at the end of its run, above 3650 KiB"
    # two worker threads: each had a malloc arena of its own, its freed layer
    # scratch resident beside the main thread's (3,500 KiB anonymous at the
    # end of NN_L0_0, which holds 1,088 KiB; 3,240 KiB with one arena; 2,420-
    # 2,440 KiB with CBUF in 4 KiB chunks and freed scratch returned)
    top=$(cd "$(dirname "$0")/../.." && pwd)
    nn=${NVDLA_TESTDATA:-$top/../shared/testdata}/loadables/NN_L0_0/NN_L0_0.nvdla
    if [ -f "$nn" ]; then
        out=$(DLADBG_THREADS=2 run_dladbg --batch -q --nx -ex run -ex 'info mem' "$nn" 2>&1) ||
            fail "NN_L0_0 on two threads: exit $?"
        two=$(printf '%s\n' "$out" | sed -n 's/^process now: \([0-9]*\) KiB anonymous.*/\1/p')
        [ -n "$two" ] && [ "$two" -le 2700 ] ||
            fail "NN_L0_0 on two threads: ${two:-no} KiB anonymous at the end of its run, above 2700 KiB"
    fi
fi
# the model's scratch arena on a small network: a convolution's operand rows
# of 128 KiB and more (glibc would give them back to the kernel) serve the
# next layers; nothing held at the end of the run, where its peak is.  The
# sanitizers' allocator takes no mallopt: no threshold is fixed there, and
# the model keeps nothing.
top=$(cd "$(dirname "$0")/../.." && pwd)
cifar=${NVDLA_TESTDATA:-$top/../shared/testdata}/networks/resnet18-cifar10/basic.nvdla
if [ "${SAN:-}" != 1 ] && [ -f "$cifar" ]; then
    run_exit 0 "info mem of resnet18-cifar10" --batch -q --nx -ex run -ex 'info mem' "$cifar"
    reused=$(printf '%s\n' "$out" | sed -n 's/^model scratch .*, \([0-9]*\) requests served.*/\1/p')
    held=$(printf '%s\n' "$out" | sed -n 's/^model scratch \([0-9]*\) bytes.*/\1/p')
    [ -n "$reused" ] && [ "$reused" -ge 8 ] && [ "$held" = 0 ] ||
        fail "resnet18-cifar10: ${reused:-no} requests served by kept scratch, ${held:-?} bytes held"
fi
echo ok
