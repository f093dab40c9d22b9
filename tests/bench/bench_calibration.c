/* The timing model against NVIDIA's RTL: every case of the calibration
 * tables (tests/calibration/rtl_*.tsv: cycle counts measured on the nvdlav1
 * nv_full RTL and on the master nv_small RTL) is run through the model and
 * the two figures are printed with the error.  Goal (issue 14): every case within 10%; a case worse
 * than 25% must carry a sentence saying why (the file's note column).
 *
 * Measures:
 *   layer   the first hardware layer, from its launch (the op enable that
 *           starts it) to its completion interrupt
 *   layerN  hardware layer N the same way (a fused SDP: layer1)
 *   intr:B  from the first layer's launch to the first time GLB status bit B
 *           is set (CDMA_DAT_DONE_STATUS0: the convolution's data is in)
 *   trace   the whole trace, from the first command to the last one done
 *   perf:UNIT.REG  a D_PERF_* counter (group 0) at the end of a copy of the
 *           trace that sets every unit's perf enable before its first op
 *           enable (the RTL's figure was read the same way)
 *
 * Whole networks (tests/calibration/rtl_networks.tsv, issue 38): a loadable
 * run on an input image (or none: "-"), its rows measured as tests/calibration/
 * rtl_network.py reads the RTL's log:
 *   network  the first layer's launch to the last layer's completion
 *   KIND#K   the K-th (from 0) hardware layer of a unit (CONV, SDP, PDP,
 *            CDP) in launch order, launch to completion
 * Goal: every network within 5%, at least 90% of its layers within 10%.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "core/dla_priv.h"
#include "cmd/format.h"
#include "core/config.h"
#include "debug/session.h"

/* The tables; the cycle figures' goal covers those marked cycles (the perf
 * counter table is printed for comparison only). */
static const struct cal_table {
    const char *path;
    bool cycles;
} tables[] = {
    {"tests/calibration/rtl_nv_full.tsv", true},
    {"tests/calibration/rtl_nv_small.tsv", true},
    {"tests/calibration/rtl_nv_full_perf.tsv", false},
};

struct cal_case {
    char name[64], trace[256], measure[48], source[128], note[256];
    long rtl;
};

static void quiet(void *ctx, enum report_level level, const char *text)
{
    (void)ctx;
    (void)level;
    (void)text;
}

/* "shared:PATH" is NVIDIA's data under $NVDLA_TESTDATA; anything else is a
 * path in the project. */
static void table_path(const char *spec, char *buf, size_t len)
{
    if (strncmp(spec, "shared:", 7) == 0) {
        const char *data = getenv("NVDLA_TESTDATA");
        snprintf(buf, len, "%s/%s", data && *data ? data : "../shared/testdata", spec + 7);
    } else {
        snprintf(buf, len, "%s", spec);
    }
}

static void trace_path(const struct cal_case *c, char *buf, size_t len)
{
    table_path(c->trace, buf, len);
}

/* The first cycle a named GLB status bit was set, for intr: measures. */
struct intr_watch {
    const char *bit;
    uint64_t cycle;
    bool seen;
};

static void watch_intr(void *ctx, const struct dla_event *ev)
{
    struct intr_watch *w = ctx;
    if (ev->kind == DLA_EV_INTR && !w->seen &&
        strcmp(dla_intr_bit_name(ev->u.intr.bit), w->bit) == 0) {
        w->seen = true;
        w->cycle = ev->cycle;
    }
}

/* The model's figure for a measure of a finished run, or -1 (why says why). */
static long measured(const struct cal_case *c, struct dla *d, const struct intr_watch *w, char *why,
                     size_t whylen)
{
    if (strcmp(c->measure, "trace") == 0)
        return (long)dla_now(d);
    size_t n = 0;
    if (strncmp(c->measure, "layer", 5) == 0)
        n = (size_t)strtoul(c->measure + 5, NULL, 10);
    if (dla_layer_count(d) <= n) {
        snprintf(why, whylen, "no hardware layer %zu ran", n);
        return -1;
    }
    const struct dla_layer *l = dla_layer_get(d, n);
    if (strncmp(c->measure, "intr:", 5) != 0)
        return (long)(l->end_cycle - l->start_cycle);
    if (!w->seen) {
        snprintf(why, whylen, "%s was never set", w->bit);
        return -1;
    }
    return (long)(w->cycle - dla_layer_get(d, 0)->start_cycle);
}

/* ------------------------------------------------ perf-enabled trace copy */

/* nv_full's perf enables as trace word addresses (CDMA, SDP_RDMA, SDP,
 * PDP_RDMA, PDP D_PERF_ENABLE), written before the first op enable. */
static const char *const perf_enables =
    "write_reg 0xffff1435 0x1\nwrite_reg 0xffff2820 0x1\nwrite_reg 0xffff2c37 0x1\n"
    "write_reg 0xffff3011 0x1\nwrite_reg 0xffff3425 0x1\n";

static bool copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[65536];
    size_t n;
    bool ok = in && out;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    if (in)
        fclose(in);
    if (out)
        ok = fclose(out) == 0 && ok;
    return ok;
}

/* The input.txn of dir with the perf enables inserted, into tmp. */
static bool write_perf_txn(const char *dir, const char *tmp)
{
    char from[600], to[600], line[4096];
    snprintf(from, sizeof from, "%s/input.txn", dir);
    snprintf(to, sizeof to, "%s/input.txn", tmp);
    FILE *in = fopen(from, "r"), *out = in ? fopen(to, "w") : NULL;
    bool ok = in && out, inserted = false;
    while (ok && fgets(line, sizeof line, in)) {
        if (!inserted && strncmp(line, "write_reg", 9) == 0 && strstr(line, "OP_ENABLE")) {
            fputs(perf_enables, out);
            inserted = true;
        }
        ok = fputs(line, out) >= 0;
    }
    if (in)
        fclose(in);
    if (out)
        ok = fclose(out) == 0 && ok;
    return ok && inserted;
}

/* A copy of trace folder dir with the perf enables, in a new temporary
 * folder (tmp, removed by remove_copy); false when it cannot be made. */
static bool perf_copy(const char *dir, char *tmp, size_t len)
{
    snprintf(tmp, len, "/tmp/dladbg-cal-XXXXXX");
    if (!mkdtemp(tmp))
        return false;
    DIR *dp = opendir(dir);
    bool ok = dp != NULL;
    for (struct dirent *e; ok && (e = readdir(dp));) {
        char from[800], to[800];
        if (e->d_name[0] == '.' || strcmp(e->d_name, "input.txn") == 0)
            continue;
        snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
        snprintf(to, sizeof to, "%s/%s", tmp, e->d_name);
        ok = copy_file(from, to);
    }
    if (dp)
        closedir(dp);
    return ok && write_perf_txn(dir, tmp);
}

static void remove_copy(const char *tmp)
{
    DIR *dp = opendir(tmp);
    for (struct dirent *e; dp && (e = readdir(dp));) {
        char path[800];
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", tmp, e->d_name);
        unlink(path);
    }
    if (dp)
        closedir(dp);
    rmdir(tmp);
}

/* The value of "UNIT.REG" in register group 0, or -1. */
static long perf_value(struct dla *d, const char *name, char *why, size_t whylen)
{
    const char *dot = strchr(name, '.');
    for (int u = 0; dot && u < DLA_U_COUNT; u++) {
        const char *un = dla_unit_name((enum dla_unit)u);
        if (strlen(un) == (size_t)(dot - name) && strncmp(un, name, (size_t)(dot - name)) == 0)
            return (long)dla_reg(d, (enum dla_unit)u, 0, dot + 1);
    }
    snprintf(why, whylen, "no register %s", name);
    return -1;
}

/* The model's figure for a case, or -1 (with a reason in why). */
static long model_cycles(const struct cal_case *c, char *why, size_t whylen)
{
    char path[512], tmp[64] = "";
    trace_path(c, path, sizeof path);
    bool perf = strncmp(c->measure, "perf:", 5) == 0;
    if (perf) {
        if (!perf_copy(path, tmp, sizeof tmp)) {
            snprintf(why, whylen, "cannot copy %.200s with perf enables", path);
            if (tmp[0])
                remove_copy(tmp);
            return -1;
        }
        snprintf(path, sizeof path, "%s", tmp);
    }
    struct report rep = {.print = quiet};
    struct session *s = session_open(path, NULL, &rep, why, whylen);
    if (!s) {
        if (perf)
            remove_copy(tmp);
        return -1;
    }
    struct intr_watch watch = {.bit = strncmp(c->measure, "intr:", 5) == 0 ? c->measure + 5 : ""};
    dla_listen(session_dla(s), watch_intr, &watch);
    while (session_step(s, SESSION_RUN, 0) != SESSION_DONE)
        ;
    long cycles = perf ? perf_value(session_dla(s), c->measure + 5, why, whylen)
                       : measured(c, session_dla(s), &watch, why, whylen);
    session_close(s);
    if (perf)
        remove_copy(tmp);
    return cycles;
}

static bool parse_line(char *line, struct cal_case *c)
{
    char *f[6] = {0};
    int n = 0;
    for (char *tok = strtok(line, "\t\n"); tok && n < 6; tok = strtok(NULL, "\t\n"))
        f[n++] = tok;
    if (n < 4 || f[0][0] == '#')
        return false;
    snprintf(c->name, sizeof c->name, "%s", f[0]);
    snprintf(c->trace, sizeof c->trace, "%s", f[1]);
    snprintf(c->measure, sizeof c->measure, "%s", f[2]);
    c->rtl = strtol(f[3], NULL, 10);
    snprintf(c->source, sizeof c->source, "%s", n > 4 ? f[4] : "");
    snprintf(c->note, sizeof c->note, "%s", n > 5 ? f[5] : "");
    return c->rtl > 0;
}

struct cal_tally {
    int within10, within25, worse, skipped, unexplained;
    double sum_abs;
};

static void run_case(struct cal_case *c, struct cal_tally *t)
{
    char why[256] = "";
    long model = model_cycles(c, why, sizeof why);
    if (model < 0) {
        t->skipped++;
        printf("  SKIP   %-36s %s\n", c->name, why);
        return;
    }
    double err = 100.0 * (double)(model - c->rtl) / (double)c->rtl;
    double mag = err < 0 ? -err : err;
    t->sum_abs += mag;
    const char *verdict = mag <= 10.0   ? "PASS"
                          : mag <= 25.0 ? "OVER10"
                          : c->note[0]  ? "KNOWN"
                                        : "FAIL";
    t->within10 += mag <= 10.0;
    t->within25 += mag > 10.0 && mag <= 25.0;
    t->worse += mag > 25.0;
    t->unexplained += mag > 25.0 && !c->note[0];
    printf("  %-6s %-36s %-5s model %7ld  RTL %7ld  %+6.1f%%%s%s\n", verdict, c->name, c->measure,
           model, c->rtl, err, mag > 10.0 && c->note[0] ? "  " : "", mag > 10.0 ? c->note : "");
}

/* One table's cases and summary line, added to *all unless all is NULL;
 * false when the table is missing. */
static bool run_table(const char *table, struct cal_tally *all)
{
    FILE *fp = fopen(table, "r");
    if (!fp) {
        printf("calibration: %s not found\n", table);
        return false;
    }
    printf("calibration: model vs NVIDIA RTL (%s)\n", table);
    struct cal_tally t = {0};
    char line[1024];
    while (fgets(line, sizeof line, fp)) {
        struct cal_case c;
        if (parse_line(line, &c))
            run_case(&c, &t);
    }
    fclose(fp);
    int n = t.within10 + t.within25 + t.worse;
    printf("calibration: %d cases, %d within 10%%, %d within 25%%, %d worse (%d without a "
           "reason), %d skipped; mean |error| %.1f%%\n",
           n, t.within10, t.within25, t.worse, t.unexplained, t.skipped, n ? t.sum_abs / n : 0.0);
    if (!all)
        return true;
    all->within10 += t.within10;
    all->within25 += t.within25;
    all->worse += t.worse;
    all->unexplained += t.unexplained;
    all->skipped += t.skipped;
    all->sum_abs += t.sum_abs;
    return true;
}

/* ------------------------------------------------------- whole networks */

static const char *const networks_table = "tests/calibration/rtl_networks.tsv";

struct net_row {
    char name[64], loadable[256], image[256], config[32], measure[32], note[256];
    long rtl;
};

/* case, loadable, image, configuration, measure, RTL cycles, source, note */
static bool parse_net_row(char *line, struct net_row *r)
{
    char *f[8] = {0};
    int n = 0;
    for (char *tok = strtok(line, "\t\n"); tok && n < 8; tok = strtok(NULL, "\t\n"))
        f[n++] = tok;
    if (n < 6 || f[0][0] == '#')
        return false;
    snprintf(r->name, sizeof r->name, "%s", f[0]);
    snprintf(r->loadable, sizeof r->loadable, "%s", f[1]);
    snprintf(r->image, sizeof r->image, "%s", f[2]);
    snprintf(r->config, sizeof r->config, "%s", f[3]);
    snprintf(r->measure, sizeof r->measure, "%s", f[4]);
    r->rtl = strtol(f[5], NULL, 10);
    snprintf(r->note, sizeof r->note, "%s", n > 7 ? f[7] : "");
    return r->rtl > 0;
}

/* One network run in the model, kept while its rows are compared. */
struct net_run {
    char key[600];
    struct session *s;
};

static struct dla *net_model(struct net_run *run, const struct net_row *r, char *why,
                             size_t whylen)
{
    char key[600];
    snprintf(key, sizeof key, "%s|%s|%s", r->loadable, r->image, r->config);
    if (run->s && strcmp(run->key, key) == 0)
        return session_dla(run->s);
    if (run->s)
        session_close(run->s);
    run->s = NULL;
    snprintf(run->key, sizeof run->key, "%s", key);
    char loadable[512], image[512];
    table_path(r->loadable, loadable, sizeof loadable);
    table_path(r->image, image, sizeof image);
    /* "-": the loadable runs without an input image, as NVIDIA's regression ran NN_L0_0 */
    bool no_image = strcmp(r->image, "-") == 0;
    struct session_opts opt = {.cfg = dla_config_find(r->config),
                               .input = {.image = no_image ? NULL : image}};
    if (!opt.cfg) {
        snprintf(why, whylen, "no configuration %s", r->config);
        return NULL;
    }
    struct report rep = {.print = quiet};
    run->s = session_open(loadable, &opt, &rep, why, whylen);
    if (!run->s)
        return NULL;
    enum session_stop st;
    while ((st = session_step(run->s, SESSION_RUN, 0)) != SESSION_DONE && st != SESSION_HANG)
        ;
    if (st == SESSION_HANG) {
        snprintf(why, whylen, "the model's run of %.200s hung", loadable);
        session_close(run->s);
        run->s = NULL;
        run->key[0] = 0;
        return NULL;
    }
    return session_dla(run->s);
}

struct span {
    uint64_t start, end;
};

static int by_start(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* A row's figure in a finished run, or -1 (why says why): the whole run as
 * "Run finished" and "info perf" give it, or a unit's K-th layer by launch. */
static long net_measure(struct dla *d, const char *measure, char *why, size_t whylen)
{
    uint64_t run;
    if (strcmp(measure, "network") == 0)
        return format_run_cycles(d, &run) ? (long)run : -1;
    const char *hash = strchr(measure, '#');
    size_t kind_len = hash ? (size_t)(hash - measure) : 0;
    struct span *mine = calloc(dla_layer_count(d) + 1, sizeof *mine);
    size_t n = 0;
    for (size_t i = 0; mine && hash && i < dla_layer_count(d); i++) {
        const struct dla_layer *l = dla_layer_get(d, i);
        const char *kind = dla_proc_name((enum dla_proc)l->proc);
        if (l->state == DLA_LAYER_DONE && strlen(kind) == kind_len &&
            strncmp(kind, measure, kind_len) == 0)
            mine[n++] = (struct span){l->start_cycle, l->end_cycle};
    }
    long want = hash ? strtol(hash + 1, NULL, 10) : -1, cycles = -1;
    if (mine)
        qsort(mine, n, sizeof *mine, by_start); /* launch order */
    if (mine && want >= 0 && (size_t)want < n)
        cycles = (long)(mine[want].end - mine[want].start);
    if (cycles < 0)
        snprintf(why, whylen, "no layer %s in the model's run", measure);
    free(mine);
    return cycles;
}

struct net_tally {
    int nets, nets_within5, layers, layers_within10, skipped;
};

static void net_row_run(struct net_run *run, const struct net_row *r, struct net_tally *t)
{
    char why[256] = "";
    struct dla *d = net_model(run, r, why, sizeof why);
    long model = d ? net_measure(d, r->measure, why, sizeof why) : -1;
    if (model < 0) {
        t->skipped++;
        printf("  SKIP   %-20s %-8s %s\n", r->name, r->measure, why);
        return;
    }
    double err = 100.0 * (double)(model - r->rtl) / (double)r->rtl;
    double mag = err < 0 ? -err : err;
    bool whole = strcmp(r->measure, "network") == 0;
    double goal = whole ? 5.0 : 10.0;
    if (whole) {
        t->nets++;
        t->nets_within5 += mag <= goal;
    } else {
        t->layers++;
        t->layers_within10 += mag <= goal;
    }
    printf("  %-6s %-20s %-8s model %8ld  RTL %8ld  %+6.1f%%%s%s\n",
           mag <= goal ? "PASS" : r->note[0] ? "KNOWN" : "OFF", r->name, r->measure, model,
           r->rtl, err, mag > goal && r->note[0] ? "  " : "", mag > goal ? r->note : "");
}

/* The whole-network table: every row, then the goal's verdict. */
static void run_networks(void)
{
    FILE *fp = fopen(networks_table, "r");
    if (!fp) {
        printf("calibration: %s not found\n", networks_table);
        return;
    }
    printf("calibration: whole networks, model vs NVIDIA RTL (%s)\n", networks_table);
    struct net_tally t = {0};
    struct net_run run = {0};
    char line[1024];
    while (fgets(line, sizeof line, fp)) {
        struct net_row r;
        if (parse_net_row(line, &r))
            net_row_run(&run, &r, &t);
    }
    fclose(fp);
    if (run.s)
        session_close(run.s);
    bool pass = t.nets > 0 && t.nets_within5 == t.nets && t.layers_within10 * 10 >= t.layers * 9;
    printf("calibration: networks %d of %d within 5%%; layers %d of %d within 10%% (goal 90%%); "
           "%d skipped %s\n",
           t.nets_within5, t.nets, t.layers_within10, t.layers, t.skipped, pass ? "PASS" : "FAIL");
}

void bench_calibration(void)
{
    struct cal_tally all = {0};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        run_table(tables[i].path, tables[i].cycles ? &all : NULL);
    run_networks();
    int n = all.within10 + all.within25 + all.worse;
    /* the goal: every case within 10%; worse than 25% only with a sentence */
    printf(
        "calibration: cycles, both tables: %d cases, %d within 10%%, %d within 25%%, %d worse (%d "
        "without a reason); mean |error| %.1f%% %s\n",
        n, all.within10, all.within25, all.worse, all.unexplained, n ? all.sum_abs / n : 0.0,
        all.unexplained == 0 && n > 0 ? "PASS" : "FAIL");
}
