/* Cost of the always-on event ring (src/debug/trace_ring.c): the same simulation
 * run with and without the ring listening, in alternating pairs, on a trace
 * written here (BDMA operations: register programming, DMA transfers,
 * interrupts -- every kind of event the ring records on a real run), plus the
 * raw cost of recording one event.  Each pair gives a ratio by wall clock
 * and one by the thread's CPU time (the simulation runs on this thread); the
 * target's PASS/FAIL rests on the median of whichever spread less over the
 * pairs.  Target: under 5% of simulation time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "debug/session.h"
#include "debug/trace_ring.h"

#define OPS  1024
#define RUNS 15

/* OPS BDMA copies of 16 lines of 4 KiB (64 KiB each) from one source. */
static int write_trace(const char *dir)
{
    if (!bench_write_source(dir, 65536, 31, 7))
        return -1;
    char path[512];
    snprintf(path, sizeof path, "%s/input.txn", dir);
    FILE *fp = fopen(path, "w");
    if (!fp)
        return -1;
    fprintf(fp, "load_mem 0x80000000 0x10000 source.dat\n");
    for (int i = 0; i < OPS; i++)
        fprintf(fp,
                "write_reg 0xffff1000 0x80000000\nwrite_reg 0xffff1002 0x%08x\n"
                "write_reg 0xffff1004 0x7f\nwrite_reg 0xffff1005 0x3\nwrite_reg 0xffff1006 0xf\n"
                "write_reg 0xffff1007 0x1000\nwrite_reg 0xffff1008 0x1000\n"
                "write_reg 0xffff1009 0x0\nwrite_reg 0xffff100a 0x10000\n"
                "write_reg 0xffff100b 0x10000\nwrite_reg 0xffff100c 0x1\n"
                "write_reg 0xffff%s 0x1\nwait\nread_reg 0xffff0003 0x0 0x0\n"
                "write_reg 0xffff0003 0xffffffff\n",
                0x81000000u + (unsigned)(i % 256) * 0x10000u, i % 2 ? "100e" : "100d");
    fclose(fp);
    return 0;
}

static void quiet(void *ctx, enum report_level level, const char *text)
{
    (void)ctx;
    (void)level;
    (void)text;
}

/* One whole run, recording into ring (NULL: none); returns wall seconds,
 * or -1, and the thread's CPU seconds in *cpu.
 * The ring lives across runs as it does in a debugger session (a restart
 * clears it, its memory stays), so what is measured is the steady cost. */
static double run_once(const char *dir, struct trace_ring *ring, uint64_t *events, double *cpu)
{
    struct report rep = {.print = quiet};
    char err[512];
    struct session *s = session_open(dir, NULL, &rep, err, sizeof err);
    if (!s) {
        printf("trace: cannot open the bench trace: %s\n", err);
        return -1;
    }
    if (ring) {
        trace_ring_clear(ring);
        trace_ring_attach(ring, session_dla(s));
    }
    double t0 = bench_seconds(), c0 = bench_thread_cpu_seconds();
    while (session_step(s, SESSION_RUN, 0) != SESSION_DONE)
        ;
    double t = bench_seconds() - t0;
    *cpu = bench_thread_cpu_seconds() - c0;
    if (ring && events)
        *events = trace_ring_next_seq(ring);
    if (ring)
        trace_ring_detach(ring);
    session_close(s);
    return t;
}

static double record_cost_ns(void)
{
    struct trace_ring *ring = trace_ring_create(1u << 16);
    struct dla_event ev = {.kind = DLA_EV_REG_WRITE, .layer = 3};
    const long n = 20 * 1000 * 1000;
    double t0 = bench_seconds();
    for (long i = 0; i < n; i++) {
        ev.cycle = (uint64_t)i;
        ev.u.reg.value = (uint32_t)i;
        trace_ring_record(ring, &ev);
    }
    double t = bench_seconds() - t0;
    trace_ring_destroy(ring);
    return t * 1e9 / (double)n;
}

void bench_trace(void)
{
    char dir[] = "/tmp/dladbg-bench-trace-XXXXXX";
    if (!mkdtemp(dir) || write_trace(dir) != 0) {
        printf("trace: cannot write the bench trace\n");
        return;
    }
    double best_off = 1e30, best_on = 1e30, wall_ratio[RUNS], cpu_ratio[RUNS];
    uint64_t events = 0;
    int pairs = 0;
    struct trace_ring *ring = trace_ring_create(0);
    for (int r = 0; r < RUNS; r++) { /* alternate, so drift hits both alike */
        double cpu_off, cpu_on;
        double off = run_once(dir, NULL, NULL, &cpu_off);
        double on = run_once(dir, ring, &events, &cpu_on);
        if (off <= 0 || on <= 0 || cpu_off <= 0)
            break;
        best_off = off < best_off ? off : best_off;
        best_on = on < best_on ? on : best_on;
        wall_ratio[pairs] = on / off;
        cpu_ratio[pairs++] = cpu_on / cpu_off;
    }
    trace_ring_destroy(ring);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("trace: could not remove %s\n", dir);
    if (pairs == 0)
        return;
    struct spread wall = bench_spread(wall_ratio, pairs), cpu = bench_spread(cpu_ratio, pairs);
    bool cpu_steadier = bench_relative_spread(cpu) <= bench_relative_spread(wall);
    struct spread on = cpu_steadier ? cpu : wall;
    double overhead = (on.median - 1) * 100.0;
    printf("trace: %d BDMA operations, %llu events: best %.2f ms without the ring, %.2f ms with "
           "it; %d pairs, cost by wall clock %+.1f%% [%+.1f%% to %+.1f%%], by CPU time %+.1f%% "
           "[%+.1f%% to %+.1f%%]\n",
           OPS, (unsigned long long)events, best_off * 1e3, best_on * 1e3, pairs,
           (wall.median - 1) * 100, (wall.lo - 1) * 100, (wall.hi - 1) * 100,
           (cpu.median - 1) * 100, (cpu.lo - 1) * 100, (cpu.hi - 1) * 100);
    printf("target: event ring cost < 5%%: %+.1f%% (median by %s, the steadier) %s\n", overhead,
           cpu_steadier ? "CPU time" : "wall clock", overhead < 5.0 ? "PASS" : "FAIL");
    /* the A/B figure is at the mercy of a busy machine; the cost of recording
     * times the events recorded, against the run, is the steadier estimate */
    double per_event = record_cost_ns();
    double share = per_event * 1e-9 * (double)events / best_off * 100.0;
    printf("trace: recording one event costs %.1f ns: %.1f%% of this run's simulation time\n",
           per_event, share);
}
