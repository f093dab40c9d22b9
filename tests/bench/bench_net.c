/* Whole networks through the debugger as a user runs them ("run" to the
 * end): wall time, effective GMAC/s (the convolution MACs of the run over
 * its wall time) next to the OpenBLAS sgemm of bench_conv in this process,
 * timed in a fresh process (this program executed again with --net-child).
 * Memory: the network run to the end by the dladbg program itself, whose
 * "info mem" gives its working set and its own peak RSS; the target is peak
 * RSS <= 2 x working set + 4 MiB, where the working set is the simulated
 * DRAM and CVSRAM resident at the end of the run (issue 12's definition:
 * the 64 KiB pages the network's weights, input, activations and
 * descriptors occupy) and the 4 MiB stand for the program's fixed costs
 * (code, libraries, the tables every process fills).
 *
 * Also the debugger's own costs on a real run: CSV export through the
 * `regs` and `dma` decoders (rows per second) and `back layer` on a run of
 * at least 100 layers.  Targets are printed as PASS/FAIL lines. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "debug/checkpoint.h"
#include "cmd/cmd.h"
#include "debug/session.h"
#include "core/threads.h"
#include "debug/trace_ring.h"

#define MAX_NETS 32

struct net_figures {
    int ok;
    double seconds;
    unsigned long long macs, layers, checkpoint_bytes, checkpoints_stored, events;
};

static void count_macs(struct dla *dla, struct net_figures *f)
{
    f->layers = dla_layer_count(dla);
    for (size_t i = 0; i < f->layers; i++) {
        const struct dla_layer *l = dla_layer_get(dla, i);
        if (l->proc == DLA_P_CONV)
            f->macs += l->macs;
    }
}

/* In the child: open, run to the end, report through fd. */
static void child_run(int fd, const char *path, const char *config, const char *input)
{
    config = config && *config ? config : NULL;
    input = input && *input ? input : NULL;
    struct net_figures f = {0};
    struct dbg *d = bench_open_net("net", path, config, input);
    if (d) {
        double t0 = bench_seconds();
        dbg_exec(d, "run", &bench_quiet_sink);
        f.seconds = bench_seconds() - t0;
        f.ok = session_finished(d->session);
        count_macs(session_dla(d->session), &f);
        f.checkpoint_bytes = cps_bytes(d->cps);
        f.checkpoints_stored = cps_stored(d->cps);
        f.events = trace_ring_count(d->ring);
        dbg_destroy(d);
    }
    if (write(fd, &f, sizeof f) != (ssize_t)sizeof f)
        _exit(1);
    _exit(0);
}

/* One network: best of `runs` child runs; returns false when it failed. */
static bool measure(const char *path, const char *config, const char *input, int runs,
                    struct net_figures *best)
{
    *best = (struct net_figures){.seconds = 1e30};
    for (int r = 0; r < runs; r++) {
        int fds[2];
        if (pipe(fds) != 0)
            return false;
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) { /* a fresh image; the figures come back on fd 3 */
            close(fds[0]);
            if (dup2(fds[1], 3) < 0)
                _exit(1);
            /* OpenBLAS, linked into this program, would start its thread pool
             * and touch its buffers while the network runs */
            setenv("OPENBLAS_NUM_THREADS", "1", 1);
            execl("/proc/self/exe", "bench", "--net-child", path, config ? config : "",
                  input ? input : "", (char *)NULL);
            _exit(1);
        }
        close(fds[1]);
        struct net_figures f = {0};
        ssize_t got = pid > 0 ? read(fds[0], &f, sizeof f) : -1;
        close(fds[0]);
        int status = 0;
        if (pid > 0)
            waitpid(pid, &status, 0);
        if (got != (ssize_t)sizeof f || !f.ok)
            return false;
        if (f.seconds < best->seconds)
            *best = f;
    }
    return true;
}

/* The network run as a user runs it, by the dladbg program itself ($DLADBG,
 * make bench: the build's), to the end, then "info mem": its working set
 * (the simulated memory resident, the sum of the "bytes resident" lines)
 * and its own peak RSS (VmHWM, which it reads itself: the figure holds
 * nothing of the bench's image).  false when it did not say both. */
static bool measure_dladbg(const char *path, const char *config, const char *input,
                           unsigned long long *peak_kib, unsigned long long *ws_bytes,
                           unsigned long long *files_kib, unsigned long long *faults)
{
    const char *prog = getenv("DLADBG");
    prog = prog && *prog ? prog : "build/dladbg";
    const char *argv[16];
    int n = 0;
    argv[n++] = prog;
    argv[n++] = "--batch";
    argv[n++] = "--nx";
    if (config) {
        argv[n++] = "--config";
        argv[n++] = config;
    }
    if (input) {
        argv[n++] = "--image";
        argv[n++] = input;
    }
    argv[n++] = "-ex";
    argv[n++] = "run";
    argv[n++] = "-ex";
    argv[n++] = "info mem";
    argv[n++] = path;
    argv[n] = NULL;
    int fds[2];
    if (pipe(fds) != 0)
        return false;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], 1) < 0)
            _exit(127);
        execv(prog, (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    FILE *fp = pid > 0 ? fdopen(fds[0], "r") : NULL;
    char line[512];
    unsigned long long bytes;
    bool said_peak = false;
    *ws_bytes = 0;
    while (fp && fgets(line, sizeof line, fp)) {
        char space[32];
        unsigned long long anon;
        if (sscanf(line, "%31s %llu bytes resident", space, &bytes) == 2)
            *ws_bytes += bytes;
        else if (sscanf(line, "process peak RSS %llu KiB", peak_kib) == 1)
            said_peak = true;
        else /* how much of the RSS is the program's files, for the report */
            (void)sscanf(line, "process now: %llu KiB anonymous (heap, stacks), %llu KiB", &anon,
                         files_kib);
    }
    if (fp)
        fclose(fp);
    else
        close(fds[0]);
    int status = 0;
    struct rusage ru = {0};
    if (pid > 0)
        wait4(pid, &status, 0, &ru);
    *faults = (unsigned long long)ru.ru_minflt; /* the whole run's, start-up included */
    if (pid > 0 && (!WIFEXITED(status) || WEXITSTATUS(status) == 127))
        printf("net: %s could not run (DLADBG)\n", prog);
    return said_peak && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static const char *verdict(bool pass)
{
    return pass ? "PASS" : "FAIL";
}

/* One line of figures, and the time and memory targets. */
static void report_net(const char *label, const char *path, const char *config, const char *input,
                       double target_s, double sgemm_rate)
{
    struct net_figures f;
    if (!measure(path, config, input, 3, &f)) {
        printf("net: %-28s did not run to the end (skipped)\n", label);
        return;
    }
    double rate = f.seconds > 0 ? (double)f.macs / f.seconds : 0;
    printf("net: %-28s %8.1f ms %6llu layers %9.1f MMAC %7.2f GMAC/s (%.3f x sgemm)\n", label,
           f.seconds * 1e3, f.layers, (double)f.macs * 1e-6, rate * 1e-9,
           sgemm_rate > 0 ? rate / sgemm_rate : 0);
    if (target_s > 0)
        printf("target: %-26s < %g ms: %.1f ms %s\n", label, target_s * 1e3, f.seconds * 1e3,
               verdict(f.seconds < target_s));
    printf("net: %-28s %llu saved states hold %llu KiB; %llu events in the ring\n", label,
           f.checkpoints_stored, (f.checkpoint_bytes + 1023) / 1024, f.events);
    unsigned long long peak_kib = 0, ws = 0, files_kib = 0, faults = 0;
    if (!measure_dladbg(path, config, input, &peak_kib, &ws, &files_kib, &faults)) {
        printf("target: %-26s peak RSS: dladbg did not report it: FAIL\n", label);
        return;
    }
    unsigned long long ws_kib = (ws + 1023) / 1024, limit = 2 * ws_kib + 4096;
    printf("target: %-26s peak RSS <= 2 x working set + 4 MiB: %llu KiB for %llu KiB, limit "
           "%llu KiB (%.2f x the limit; %llu KiB of it the program's files at the end) %s\n",
           label, peak_kib, ws_kib, limit, (double)peak_kib / (double)limit, files_kib,
           verdict(peak_kib <= limit));
    /* page faults: the churn issue 34 asks to keep down (scratch mapped and
     * faulted in again layer after layer) */
    printf("net: %-28s %llu minor page faults in that run\n", label, faults);
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .nvdla below dir (one level of folders), sorted. */
static size_t find_loadables(const char *dir, char **out, size_t max)
{
    size_t n = 0;
    DIR *top = opendir(dir);
    struct dirent *e;
    while (top && (e = readdir(top)) && n < max) {
        if (e->d_name[0] == '.')
            continue;
        char sub[1024];
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        DIR *in = opendir(sub);
        struct dirent *f;
        while (in && (f = readdir(in)) && n < max) {
            size_t len = strlen(f->d_name);
            if (len > 6 && strcmp(f->d_name + len - 6, ".nvdla") == 0) {
                char path[2048];
                snprintf(path, sizeof path, "%s/%s", sub, f->d_name);
                out[n++] = strdup(path);
            }
        }
        if (in)
            closedir(in);
    }
    if (top)
        closedir(top);
    qsort(out, n, sizeof *out, by_name);
    return n;
}

/* A seeded 28x28 grey image (PGM) for NN_L0_0, which the runtime converts
 * to the input tensor (NVIDIA's regression used zeros, which the MAC cell
 * skips; raw random bytes would fill the tensor's padding channels too). */
static bool write_nn_input(const char *path)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return false;
    fprintf(fp, "P5\n28 28\n255\n");
    uint32_t st = 12345;
    for (int i = 0; i < 28 * 28; i++) {
        st = st * 1664525u + 1013904223u;
        fputc((int)(st >> 24), fp);
    }
    return fclose(fp) == 0;
}

/* ---------------------------------------------------------------- debugger costs */

static unsigned long long count_lines(const char *path)
{
    FILE *fp = fopen(path, "r");
    unsigned long long n = 0;
    int c;
    while (fp && (c = getc(fp)) != EOF)
        n += c == '\n';
    if (fp)
        fclose(fp);
    return n;
}

static void bench_export(struct dbg *d, const char *decoder)
{
    char file[] = "/tmp/dladbg-bench-csv-XXXXXX", cmd[128];
    int fd = mkstemp(file);
    if (fd < 0)
        return;
    close(fd);
    snprintf(cmd, sizeof cmd, "export csv %s --decoder %s", file, decoder);
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = bench_seconds();
        enum cmd_status st = dbg_exec(d, cmd, &bench_quiet_sink);
        double t = bench_seconds() - t0;
        if (st != CMD_OK) {
            printf("debug: export through %s failed (is the plugin built?)\n", decoder);
            unlink(file);
            return;
        }
        best = t < best ? t : best;
    }
    unsigned long long rows = count_lines(file);
    rows -= rows > 0; /* the header */
    unlink(file);
    double rate = (double)rows / best;
    printf("target: export csv --decoder %-6s >= 1M rows/s: %llu rows in %.1f ms, %.2f M rows/s "
           "%s\n",
           decoder, rows, best * 1e3, rate * 1e-6, verdict(rate >= 1e6));
}

static void bench_back(struct dbg *d, const char *label)
{
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        dbg_exec(d, "run", &bench_quiet_sink);
        double t0 = bench_seconds();
        enum cmd_status st = dbg_exec(d, "back layer", &bench_quiet_sink);
        double t = bench_seconds() - t0;
        if (st != CMD_OK) {
            printf("debug: back layer failed on %s\n", label);
            return;
        }
        best = t < best ? t : best;
    }
    printf("target: back layer on %-22s < 50 ms: %.1f ms %s\n", label, best * 1e3,
           verdict(best < 0.05));
}

/* The debugger's costs on the first network at hand of 100 layers or more,
 * each network opened on the configuration it was compiled for (the fp16
 * LeNet is nv_full's: forced onto nv_small it only printed an error). */
static void bench_debugger(char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct dbg *d = bench_open_net("debug", paths[i], NULL, NULL);
        if (!d)
            continue;
        dbg_exec(d, "run", &bench_quiet_sink);
        size_t layers = dla_layer_count(session_dla(d->session));
        if (layers < 100) {
            dbg_destroy(d);
            continue;
        }
        const char *label = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];
        printf("debug: %s, %zu layers\n", paths[i], layers);
        bench_export(d, "regs");
        bench_export(d, "dma");
        bench_back(d, label);
        dbg_destroy(d);
        return;
    }
    printf("debug: no network of 100 layers or more at hand: CSV export and back layer "
           "skipped\n");
}

int bench_net_child(int argc, char **argv)
{
    if (argc != 5 || strcmp(argv[1], "--net-child") != 0)
        return -1;
    child_run(3, argv[2], argv[3], argv[4]);
    return 0;
}

void bench_nets(double sgemm_rate)
{
    const char *data = getenv("NVDLA_TESTDATA");
    if (!data || !*data)
        data = "../shared/testdata";
    char path[2048], input[] = "/tmp/dladbg-bench-nn-XXXXXX";
    printf("net: wall time of \"run\" to the end, best of 3; GMAC/s = convolution MACs / wall "
           "time; %u model threads\n",
           dla_threads());
    snprintf(path, sizeof path, "%s/loadables/NN_L0_0/NN_L0_0.nvdla", data);
    int fd = mkstemp(input);
    if (fd >= 0)
        close(fd);
    printf("net: working set = the simulated DRAM and CVSRAM resident at the end of the run (the "
           "64 KiB pages the network's weights, input, activations and descriptors occupy); peak "
           "RSS = VmHWM of a dladbg process (%s) running the network to the end as a user does "
           "(--batch -ex run), everything it holds: simulated memory, the parsed loadable, CBUF, "
           "layer records, checkpoints, event ring, programming log, model scratch, code\n",
           getenv("DLADBG") && *getenv("DLADBG") ? getenv("DLADBG") : "build/dladbg");
    if (!is_file(path))
        printf("net: %s absent: NN_L0_0 skipped (NVDLA_TESTDATA)\n", path);
    else if (fd >= 0 && write_nn_input(input))
        report_net("NN_L0_0 (seeded image)", path, NULL, input, 0.020, sgemm_rate);
    if (fd >= 0)
        unlink(input);

    report_net("sample:lenet (int8)", "sample:lenet", NULL, NULL, 0, sgemm_rate);
    report_net("sample:resnet18 (fp16)", "sample:resnet18", NULL, NULL, 0.5, sgemm_rate);
    report_net("sample:resnet50 (int8)", "sample:resnet50", NULL, NULL, 1.0, sgemm_rate);

    char dir[2048], *nets[MAX_NETS];
    snprintf(dir, sizeof dir, "%s/networks", data);
    size_t n = find_loadables(dir, nets, MAX_NETS);
    if (n == 0)
        printf("net: no loadables under %s: networks skipped (NVDLA_TESTDATA)\n", dir);
    for (size_t i = 0; i < n; i++) {
        const char *label = nets[i] + strlen(dir) + 1;
        /* the configuration each was compiled for, as dladbg tells it (the
         * int8 ones are nv_small's, the fp16 AlexNet slice nv_full's) */
        report_net(label, nets[i], NULL, NULL, 0, sgemm_rate);
    }
    for (size_t i = 0; i < n; i++)
        free(nets[i]);
}

void bench_debug(void)
{
    const char *data = getenv("NVDLA_TESTDATA");
    if (!data || !*data)
        data = "../shared/testdata";
    char dir[2048], *nets[MAX_NETS];
    snprintf(dir, sizeof dir, "%s/networks", data);
    size_t n = find_loadables(dir, nets, MAX_NETS);
    bench_debugger(nets, n);
    for (size_t i = 0; i < n; i++)
        free(nets[i]);
}
