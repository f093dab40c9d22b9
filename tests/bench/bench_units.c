/* SDP, PDP and CDP per element, fp16 against int16: the same one-op
 * network (built with the sample generator's layer builders) in both
 * precisions, run to the end through the debugger; nanoseconds per output
 * element, best of several runs taken alternately.  Target: fp16 no slower
 * than int16. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cmd/cmd.h"
#include "sample/sample_net_priv.h"

#define C    64
#define H    128
#define W    128
#define RUNS 15 /* best of: a run of PDP is 3 ms, where the VM's noise is some 10% */

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

/* Wall time of one "run" to the end from the start, in seconds; < 0 on failure. */
static double time_run(struct dbg *d)
{
    dbg_exec(d, "restart", &bench_quiet_sink);
    double t0 = bench_seconds();
    enum cmd_status st = dbg_exec(d, "run", &bench_quiet_sink);
    double t = bench_seconds() - t0;
    return st == CMD_OK && dbg_exit_status(d) == 0 ? t : -1;
}

/* Best wall times of the networks (int16 and fp16), their runs taken
 * alternately so that a slow spell of the machine falls on both alike;
 * best[p] < 0 on failure. */
static void time_pair(struct dbg *const d[2], double best[2])
{
    best[0] = best[1] = -1;
    for (int r = 0; r < RUNS; r++)
        for (int p = 0; p < 2; p++) {
            double t = d[p] ? time_run(d[p]) : -1;
            if (t < 0) {
                best[0] = best[1] = -1;
                return;
            }
            best[p] = best[p] < 0 || t < best[p] ? t : best[p];
        }
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
        double ns[2] = {-1, -1}, best[2] = {-1, -1};
        const uint8_t precs[2] = {FW_PREC_INT16, FW_PREC_FP16};
        struct dbg *d[2] = {NULL, NULL};
        char paths[2][32] = {"/tmp/dladbg-bench-unit-XXXXXX", "/tmp/dladbg-bench-unit-XXXXXX"};
        bool written[2] = {false, false};
        for (int p = 0; p < 2; p++) {
            written[p] = write_net((enum unit_kind)u, precs[p], paths[p]);
            if (!written[p])
                printf("units: cannot write the %s network\n", unit_names[u]);
            else
                d[p] = bench_open_net("units", paths[p], NULL, NULL);
        }
        time_pair(d, best);
        for (int p = 0; p < 2; p++) {
            ns[p] = best[p] < 0 ? -1 : best[p] / elems * 1e9;
            dbg_destroy(d[p]);
            if (written[p])
                unlink(paths[p]);
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
