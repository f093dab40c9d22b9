/* make bench: speed figures measured against a reference run in the same
 * process.  Each area of the project contributes one bench_* function. */
#ifndef DLADBG_BENCH_H
#define DLADBG_BENCH_H

#include <stdbool.h>

struct dbg_sink;
/* Monotonic wall-clock seconds. */
double bench_seconds(void);
/* The calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID): what
 * other processes on a shared machine move least. */
double bench_thread_cpu_seconds(void);

/* The median, least and greatest of repeated figures (at most 64). */
struct spread {
    double median, lo, hi;
};
struct spread bench_spread(const double *v, int n);
/* v[0..n) in ascending order. */
void bench_sort(double *v, int n);
/* How far a figure moved over its repetitions, relative to its median. */
double bench_relative_spread(struct spread s);
/* DIR/source.dat: n bytes in the .dat text format (32 a line), byte i being
 * (i * mul + add) & 0xff, for the traces the benches write; false when it
 * could not be written. */
bool bench_write_source(const char *dir, int n, int mul, int add);
/* A debugger output sink that drops everything. */
extern const struct dbg_sink bench_quiet_sink;

struct dbg;
/* A batch debugger on the file at path with the bench's plugins, on the
 * named configuration and input image (a PGM) when not NULL; NULL on
 * failure, said on a line that starts with `part`. */
struct dbg *bench_open_net(const char *part, const char *path, const char *config,
                           const char *input);

/* Convolution model vs. an OpenBLAS sgemm of the same im2col shape
 * (bench_conv.c); returns the sgemm's MAC/s on its default thread count. */
double bench_conv(void);
/* bench spread (opt-in): the conv bench's spread layer with its exponents
 * drawn from windows of several widths, each one's rate against the bench
 * layer's fp16 rate, its exactness and its products' alignments
 * (bench_conv.c). */
void bench_conv_spread(void);
/* SDP, PDP and CDP per element, fp16 against int16 (bench_units.c). */
void bench_units(void);
/* Whole networks and the debugger's costs on them (bench_net.c). */
void bench_nets(double sgemm_rate);
/* bench --net-child PATH CONFIG INPUT: one network's run in a fresh process
 * (bench_nets starts it); -1 when argv is not that. */
int bench_net_child(int argc, char **argv);
/* CSV export and back layer on a run of 100 layers or more (bench_net.c). */
void bench_debug(void);
/* Cost of the always-on event trace ring buffer (bench_trace.c). */
void bench_trace(void);
/* A million one-line BDMA layers run by dladbg, CPU time and peak RSS
 * (bench_scale.c). */
void bench_scale(void);
/* The timing model against NVIDIA's RTL cycle counts (bench_calibration.c). */
void bench_calibration(void);

#endif
