#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cmd.h"

double bench_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void quiet(void *ctx, enum dbg_out_kind kind, const char *text)
{
    (void)ctx;
    (void)kind;
    (void)text;
}

const struct dbg_sink bench_quiet_sink = {quiet, NULL};

/* bench [conv|trace|units|nets|debug|calibration]: every part, or the ones named (nets needs
 * conv's sgemm figure and runs it too). */
static int wanted(int argc, char **argv, const char *part)
{
    if (argc < 2)
        return 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], part) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (bench_net_child(argc, argv) >= 0)
        return 0;
    printf(
        "dladbg bench (every figure measured in this process; cycle figures are model-derived, calibrated against RTL or estimated)\n");
    double sgemm = 0;
    if (wanted(argc, argv, "conv") || wanted(argc, argv, "nets"))
        sgemm = bench_conv();
    if (wanted(argc, argv, "trace"))
        bench_trace();
    if (wanted(argc, argv, "units"))
        bench_units();
    if (wanted(argc, argv, "nets"))
        bench_nets(sgemm);
    if (wanted(argc, argv, "debug"))
        bench_debug();
    if (wanted(argc, argv, "calibration"))
        bench_calibration();
    return 0;
}
