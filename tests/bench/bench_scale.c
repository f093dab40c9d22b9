/* A trace of a million one-line BDMA layers, run as a user runs it
 * (`dladbg --batch -ex run TRACE`, step back on), against the same trace
 * of a tenth of the layers: CPU time and peak RSS from the child's own
 * rusage.  Issue 36's targets: a million layers in a few seconds (under
 * 8 s of CPU) and well under 1 GB, each layer costing at a million what it
 * costs at a hundred thousand (within 25%: the run is linear). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define LAYERS     1000000
#define REF_LAYERS 100000

/* The unit tests' fixture trace (tests/unit/dbg_fixture.h,
 * fixture_bdma_trace): one 256-byte BDMA copy per layer, fourteen commands. */
static bool write_trace(const char *dir, int n)
{
    if (!bench_write_source(dir, 256, 13, 5))
        return false;
    char path[512];
    snprintf(path, sizeof path, "%s/input.txn", dir);
    FILE *fp = fopen(path, "w");
    if (!fp)
        return false;
    fprintf(fp, "load_mem 0x80000000 0x100 source.dat\n");
    for (int i = 0; i < n; i++)
        fprintf(fp,
                "write_reg 0xffff1000 0x80000000\nwrite_reg 0xffff1002 0x%08x\n"
                "write_reg 0xffff1004 0x0\nwrite_reg 0xffff1005 0x3\nwrite_reg 0xffff1006 0x7\n"
                "write_reg 0xffff1007 0x20\nwrite_reg 0xffff1008 0x20\n"
                "write_reg 0xffff1009 0x0\nwrite_reg 0xffff100a 0x100\n"
                "write_reg 0xffff100b 0x100\nwrite_reg 0xffff100c 0x1\n"
                "write_reg 0xffff%s 0x1\nwait\nwrite_reg 0xffff0003 0xffffffff\n",
                0x80100000u + (unsigned)(i % 64) * 0x1000u, i % 2 ? "100e" : "100d");
    return fclose(fp) == 0;
}

struct cost {
    double cpu; /* seconds, user + system */
    double peak_mib;
};

/* $DLADBG --batch -ex run DIR in a child; false when it did not run to an
 * exit status of 0. */
static bool run_dladbg(const char *dir, struct cost *c)
{
    const char *prog = getenv("DLADBG");
    prog = prog && *prog ? prog : "build/dladbg";
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        execl(prog, prog, "--batch", "--nx", "-q", "-ex", "run", dir, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return false;
    c->cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
             (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
    c->peak_mib = (double)ru.ru_maxrss / 1024.0; /* KiB on Linux */
    return true;
}

static bool measure(int layers, struct cost *c)
{
    char dir[] = "/tmp/dladbg-bench-scale-XXXXXX";
    if (!mkdtemp(dir))
        return false;
    bool ok = write_trace(dir, layers) && run_dladbg(dir, c);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("scale: could not remove %s\n", dir);
    return ok;
}

void bench_scale(void)
{
    struct cost ref, big;
    if (!measure(REF_LAYERS, &ref) || !measure(LAYERS, &big)) {
        printf("scale: the one-line BDMA traces did not run to the end\n");
        return;
    }
    double per_ref = ref.cpu / REF_LAYERS * 1e6, per_big = big.cpu / LAYERS * 1e6;
    printf("scale: one-line BDMA layers, step back on: %dk %.2f s of CPU, peak RSS %.0f MiB; "
           "%dk %.2f s, %.0f MiB (%.2f / %.2f us and %.0f / %.0f bytes a layer)\n",
           REF_LAYERS / 1000, ref.cpu, ref.peak_mib, LAYERS / 1000, big.cpu, big.peak_mib,
           per_ref, per_big, ref.peak_mib * 1048576.0 / REF_LAYERS,
           big.peak_mib * 1048576.0 / LAYERS);
    printf("target: 1M one-line layers in under 8 s of CPU and 1 GiB: %.2f s, %.0f MiB %s\n",
           big.cpu, big.peak_mib, big.cpu < 8.0 && big.peak_mib < 1024.0 ? "PASS" : "FAIL");
    printf("target: a layer costs at 1M within 25%% of its cost at 100k: %.2fx %s\n",
           per_big / per_ref, per_big <= 1.25 * per_ref ? "PASS" : "FAIL");
}
