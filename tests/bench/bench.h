/* make bench: speed figures measured against a reference run in the same
 * process.  Each area of the project contributes one bench_* function. */
#ifndef DLADBG_BENCH_H
#define DLADBG_BENCH_H

/* Convolution model vs. an OpenBLAS sgemm of the same im2col shape (bench_conv.c). */
void bench_conv(void);
/* Cost of the always-on event trace ring buffer (bench_trace.c). */
void bench_trace(void);
/* The timing model against NVIDIA's RTL cycle counts (bench_calibration.c). */
void bench_calibration(void);

#endif
