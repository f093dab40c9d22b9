/* SDP, PDP and CDP per element, fp16 against int16: the same one-op
 * network (built with the sample generator's layer builders) in both
 * precisions, run to the end through the debugger; nanoseconds per output
 * element, best of several runs.  Target: fp16 no slower than int16. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cmd.h"
#include "sample_net_priv.h"

#define C    64
#define H    128
#define W    128
#define RUNS 5

enum unit_kind { U_SDP, U_PDP, U_CDP };

static const char *const unit_names[] = {"SDP x + y, ReLU", "PDP max 3x3", "CDP LRN 5"};


/* The one-op network in a temporary file; false when it cannot be written. */
static bool write_net(enum unit_kind u, uint8_t prec, char *path)
{
    struct net *n = malloc(sizeof *n);
    if (!n)
        return false;
    net_init(n, 0xbe7c4u);
    int16_t x = layer_input(n, C, H, W, prec), out;
    if (u == U_SDP)
        out = layer_sdp_sum(n, x, layer_input(n, C, H, W, prec));
    else if (u == U_PDP)
        out = layer_pool(n, x, 3, 1, 1, true);
    else
        out = layer_lrn(n, x);
    n->output = out - A_DATA;
    uint8_t *buf = NULL;
    size_t len = 0;
    bool ok = net_serialise(n, &buf, &len);
    free(n);
    int fd = ok ? mkstemp(path) : -1;
    ok = fd >= 0 && write(fd, buf, len) == (ssize_t)len;
    if (fd >= 0)
        close(fd);
    free(buf);
    return ok;
}

/* Best wall time of "run" on the network, in seconds; < 0 on failure. */
static double time_net(const char *path)
{
    struct dbg_options opt = {.batch = true};
    struct dbg *d = dbg_create(&opt, &bench_quiet_sink);
    char err[512];
    double best = -1;
    if (d && dbg_open(d, path, err, sizeof err)) {
        for (int r = 0; r < RUNS; r++) {
            if (r > 0)
                dbg_exec(d, "restart", &bench_quiet_sink);
            double t0 = bench_seconds();
            enum cmd_status st = dbg_exec(d, "run", &bench_quiet_sink);
            double t = bench_seconds() - t0;
            if (st != CMD_OK || dbg_exit_status(d) != 0)
                break;
            best = best < 0 || t < best ? t : best;
        }
    } else {
        printf("units: %s\n", err);
    }
    dbg_destroy(d);
    return best;
}

/* BENCH_UNIT=SDP (or PDP, CDP) runs one unit only, for profiling. */
static bool unit_selected(int u)
{
    const char *only = getenv("BENCH_UNIT");
    return !only || !*only || strncasecmp(only, unit_names[u], 3) == 0;
}

void bench_units(void)
{
    const double elems = (double)C * H * W;
    for (int u = U_SDP; u <= U_CDP; u++) {
        if (!unit_selected(u))
            continue;
        double ns[2] = {-1, -1};
        const uint8_t precs[2] = {FW_PREC_INT16, FW_PREC_FP16};
        for (int p = 0; p < 2; p++) {
            char path[] = "/tmp/dladbg-bench-unit-XXXXXX";
            if (!write_net((enum unit_kind)u, precs[p], path)) {
                printf("units: cannot write the %s network\n", unit_names[u]);
                continue;
            }
            double t = time_net(path);
            unlink(path);
            ns[p] = t < 0 ? -1 : t / elems * 1e9;
        }
        if (ns[0] < 0 || ns[1] < 0) {
            printf("units: %-16s did not run (skipped)\n", unit_names[u]);
            continue;
        }
        printf("units: %-16s %dx%dx%d: int16 %.2f ns/element, fp16 %.2f ns/element\n",
               unit_names[u], C, H, W, ns[0], ns[1]);
        printf("target: %-16s fp16 no slower than int16 (5%% noise allowed): %.2fx %s\n",
               unit_names[u],
               ns[1] / ns[0], ns[1] <= ns[0] * 1.05 ? "PASS" : "FAIL");
    }
}
