#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cmd/cmd.h"
#include "core/config.h"

double bench_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_sort(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
}

bool bench_write_source(const char *dir, int n, int mul, int add)
{
    char path[512];
    snprintf(path, sizeof path, "%s/source.dat", dir);
    FILE *fp = fopen(path, "w");
    if (!fp)
        return false;
    for (int i = 0; i < n; i++)
        fprintf(fp, "0x%02x%s", (i * mul + add) & 0xff, i % 32 == 31 ? "\n" : " ");
    return fclose(fp) == 0;
}

struct spread bench_spread(const double *v, int n)
{
    double s[64];
    n = n < 64 ? n : 64;
    if (n < 1)
        return (struct spread){0, 0, 0};
    memcpy(s, v, sizeof *s * (size_t)n);
    bench_sort(s, n);
    return (struct spread){n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2, s[0], s[n - 1]};
}

double bench_relative_spread(struct spread s)
{
    return s.median > 0 ? (s.hi - s.lo) / s.median : 1e30;
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

/* bench [conv|trace|scale|units|nets|debug|calibration|spread]: every part but the opt-in ones,
 * or the ones named (nets needs conv's sgemm figure and runs it too). */
static int named(int argc, char **argv, const char *part)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], part) == 0)
            return 1;
    return 0;
}

static int wanted(int argc, char **argv, const char *part)
{
    return argc < 2 || named(argc, argv, part);
}

char *openblas_get_corename(void);

/* OpenBLAS cores whose sgemm uses AVX2 FMAs or wider. */
static bool blas_core_uses_fma(const char *core)
{
    static const char *const fma_cores[] = {"Haswell",        "SkylakeX", "CooperLake",
                                            "SapphireRapids", "Zen",      "Excavator"};
    for (size_t i = 0; i < sizeof fma_cores / sizeof fma_cores[0]; i++)
        if (strcasecmp(core, fma_cores[i]) == 0)
            return true;
    return false;
}

/* OpenBLAS picks its kernels when it is loaded, from the CPU it recognises:
 * on a CPU newer than the library (0.3.21 on Zen 5 or a VM's unnamed Xeon)
 * that is Prescott's SSE3 code, which runs sgemm at a fifth of an AVX2
 * kernel and would flatter every ratio.  Unless OPENBLAS_CORETYPE asks for a
 * core, such a pick on an AVX2 CPU runs the bench again on Haswell's
 * kernels (the ones the README's figures have always been against). */
static void pick_blas_core(char **argv)
{
    const char *core = openblas_get_corename();
    if (getenv("OPENBLAS_CORETYPE") || !core || blas_core_uses_fma(core) ||
        !__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
        return;
    setenv("OPENBLAS_CORETYPE", "Haswell", 1);
    setenv("DLADBG_BENCH_BLAS_PICKED", core, 1);
    fflush(stdout);
    execv("/proc/self/exe", argv);
    printf("bench: OpenBLAS picked %s (no FMA) and the bench could not run again with "
           "OPENBLAS_CORETYPE=Haswell: its ratios are against a slow sgemm\n",
           core);
}

/* The machine the figures were taken on, as /proc/cpuinfo and the kernel
 * name it: the CPU's vendor, model name, family and model, the CPUs online
 * and the load when the bench started. */
static void print_machine(void)
{
    char line[512], name[256] = "?", vendor[64] = "?";
    int family = -1, model = -1;
    FILE *fp = fopen("/proc/cpuinfo", "r");
    while (fp && fgets(line, sizeof line, fp)) {
        if (strncmp(line, "processor", 9) == 0 && name[0] != '?')
            break; /* the first CPU says it for all */
        sscanf(line, "vendor_id : %63[^\n]", vendor);
        sscanf(line, "model name : %255[^\n]", name);
        sscanf(line, "cpu family : %d", &family);
        sscanf(line, "model : %d", &model);
    }
    if (fp)
        fclose(fp);
    double load[3] = {-1, -1, -1};
    fp = fopen("/proc/loadavg", "r");
    if (fp && fscanf(fp, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3)
        load[0] = -1;
    if (fp)
        fclose(fp);
    printf("machine: %s, %s family %d model %d, %ld CPUs online%s%s; load average %.2f %.2f %.2f "
           "at the start\n",
           name, vendor, family, model, sysconf(_SC_NPROCESSORS_ONLN),
           __builtin_cpu_supports("avx512f") ? ", AVX-512" : "",
           __builtin_cpu_supports("avx2") ? ", AVX2" : "", load[0], load[1], load[2]);
}

int main(int argc, char **argv)
{
    if (bench_net_child(argc, argv) >= 0)
        return 0;
    pick_blas_core(argv);
    printf("dladbg bench (every figure measured in this process; cycle figures are model-derived, "
           "calibrated against RTL or estimated)\n");
    print_machine();
    double sgemm = 0;
    if (wanted(argc, argv, "conv") || wanted(argc, argv, "nets"))
        sgemm = bench_conv();
    if (wanted(argc, argv, "trace"))
        bench_trace();
    if (wanted(argc, argv, "scale"))
        bench_scale();
    if (wanted(argc, argv, "units"))
        bench_units();
    if (wanted(argc, argv, "nets"))
        bench_nets(sgemm);
    if (wanted(argc, argv, "debug"))
        bench_debug();
    if (wanted(argc, argv, "calibration"))
        bench_calibration();
    if (named(argc, argv, "spread")) /* opt-in: a sweep for the record, no target */
        bench_conv_spread();
    return 0;
}
