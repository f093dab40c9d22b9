#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cmd/cmd.h"
#include "core/config.h"

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

struct dbg *bench_open_net(const char *part, const char *path, const char *config,
                           const char *input)
{
    struct dbg_options opt = {.batch = true};
    opt.session.cfg = config ? dla_config_find(config) : NULL;
    opt.session.input.image = input; /* the runtime converts it as --image does */
    struct dbg *d = dbg_create(&opt, &bench_quiet_sink);
    char err[512];
    if (d && !dbg_open(d, path, err, sizeof err)) {
        printf("%s: %s: %s\n", part, path, err);
        dbg_destroy(d);
        return NULL;
    }
    return d;
}

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
