/* CDP and CDP_RDMA: cross-channel local response normalisation of a cube in
 * memory, through the CDP's own LUT.
 *
 * CDP_RDMA's registers give the cube (CDP has none for it); the cube is
 * processed a chunk of lines at a time: every surface of each line is read,
 * each spatial position's channel vector is normalised (cdp_lrn.c), and the
 * lines are written back surface by surface.  Whole memory atoms are
 * computed: the channels past the cube's last one count as the input offset
 * (zero after conversion) and their outputs are written too, as the
 * hardware does.
 *
 * The LUT statistics (D_PERF_LUT_*), the output saturation counter and the
 * fp16 NaN/Inf counters are written into the consumer group's registers at
 * completion of the datapath, and the statistics published on the layer. */
#include <stdlib.h>
#include <string.h>

#include "cdp.h"
#include "cdp_lrn.h"
#include "core/dla_priv.h"
#include "core/threads.h"
#include "core/timing.h"

/* A chunk holds at least one line of all surfaces: bound a line.  The work
 * of the whole layer is bounded by the model's budget (exec_budget), in
 * int8-MAC equivalents: one normalised element costs about as much as 64
 * vectorised MACs on the integer path, eight times that in fp16. */
#define CDP_MAX_LINE_BYTES (64u << 20)
#define CDP_COST_INT       64u
#define CDP_COST_FP16      512u

enum cdp_format { CDP_INT8 = 0, CDP_INT16 = 1, CDP_FP16 = 2 };

struct cdp_job {
    struct cdp_lrn_cfg lrn;
    struct lut_cdp_fp lut_fp; /* fp16: the LUT prepared for the layer */
    unsigned format, bpe, cpa, atom;
    unsigned w, h, c, n_surf, c_pad;
    uint64_t src, src_line, src_surf, dst, dst_line, dst_surf;
    enum dla_space src_space, dst_space;
    uint64_t work; /* int8-MAC equivalents, for exec_budget */
};

/* ---------------------------------------------------------------- configuration */

static void read_convertors(const struct dla *d, int g, struct cdp_lrn_cfg *l)
{
    l->half_window = dla_field_plus1(d, DLA_U_CDP, g, "D_LRN_CFG", "NORMALZ_LEN");
    l->sqsum_bypass = dla_field(d, DLA_U_CDP, g, "D_FUNC_BYPASS", "SQSUM_BYPASS") != 0;
    l->mul_bypass = dla_field(d, DLA_U_CDP, g, "D_FUNC_BYPASS", "MUL_BYPASS") != 0;
    l->in_offset = (int32_t)dla_field(d, DLA_U_CDP, g, "D_DATIN_OFFSET", "DATIN_OFFSET");
    l->in_scale = (int16_t)dla_field(d, DLA_U_CDP, g, "D_DATIN_SCALE", "DATIN_SCALE");
    l->in_shift = (uint8_t)dla_field(d, DLA_U_CDP, g, "D_DATIN_SHIFTER", "DATIN_SHIFTER");
    l->out_offset = (int32_t)dla_field(d, DLA_U_CDP, g, "D_DATOUT_OFFSET", "DATOUT_OFFSET");
    l->out_scale = (int16_t)dla_field(d, DLA_U_CDP, g, "D_DATOUT_SCALE", "DATOUT_SCALE");
    l->out_shift = (uint8_t)dla_field(d, DLA_U_CDP, g, "D_DATOUT_SHIFTER", "DATOUT_SHIFTER");
}

static void read_addresses(struct dla *d, int g, int rg, struct cdp_job *j)
{
    j->src = dla_reg_addr64(d, DLA_U_CDP_RDMA, rg, "D_SRC_BASE_ADDR_HIGH", "D_SRC_BASE_ADDR_LOW");
    j->src_line = dla_reg(d, DLA_U_CDP_RDMA, rg, "D_SRC_LINE_STRIDE");
    j->src_surf = dla_reg(d, DLA_U_CDP_RDMA, rg, "D_SRC_SURFACE_STRIDE");
    j->src_space = dla_ram_space(d, DLA_U_CDP_RDMA,
                                 dla_field(d, DLA_U_CDP_RDMA, rg, "D_SRC_DMA_CFG", "SRC_RAM_TYPE"));
    j->dst = dla_reg_addr64(d, DLA_U_CDP, g, "D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW");
    j->dst_line = dla_reg(d, DLA_U_CDP, g, "D_DST_LINE_STRIDE");
    j->dst_surf = dla_reg(d, DLA_U_CDP, g, "D_DST_SURFACE_STRIDE");
    j->dst_space =
        dla_ram_space(d, DLA_U_CDP, dla_field(d, DLA_U_CDP, g, "D_DST_DMA_CFG", "DST_RAM_TYPE"));
}

static bool format_ok(struct dla *d, int rg, const struct cdp_job *j)
{
    unsigned rdma_format = dla_field(d, DLA_U_CDP_RDMA, rg, "D_DATA_FORMAT", "INPUT_DATA");
    if (!dla_config_has_precision(d->cfg, j->format)) {
        dla_diag(d, DLA_DIAG_FEATURE_ABSENT, DLA_SEV_ERROR, DLA_U_CDP, 0, "cdp.precision",
                 "CDP input format %u is not supported by %s", j->format, d->cfg->name);
        return false;
    }
    if (rdma_format != j->format)
        dla_rule(d, DLA_U_CDP_RDMA, "cdp.rdma_format",
                 "CDP_RDMA reads format %u, CDP computes format %u", rdma_format, j->format);
    return true;
}

static bool decode(struct dla *d, int g, int rg, struct cdp_job *j)
{
    memset(j, 0, sizeof *j);
    if (rg == 0xff)
        return false;
    j->format = dla_field(d, DLA_U_CDP, g, "D_DATA_FORMAT", "INPUT_DATA_TYPE");
    if (!format_ok(d, rg, j))
        return false;
    j->w = dla_field_plus1(d, DLA_U_CDP_RDMA, rg, "D_DATA_CUBE_WIDTH", "WIDTH");
    j->h = dla_field_plus1(d, DLA_U_CDP_RDMA, rg, "D_DATA_CUBE_HEIGHT", "HEIGHT");
    j->c = dla_field_plus1(d, DLA_U_CDP_RDMA, rg, "D_DATA_CUBE_CHANNEL", "CHANNEL");
    j->atom = d->cfg->mem_atom;
    j->bpe = j->format == CDP_INT8 ? 1 : 2;
    j->cpa = j->atom / j->bpe;
    j->n_surf = (j->c + j->cpa - 1) / j->cpa;
    j->c_pad = j->n_surf * j->cpa;
    uint64_t line_bytes = (uint64_t)j->w * j->n_surf * j->atom;
    j->work =
        (uint64_t)j->w * j->h * j->c_pad * (j->format == CDP_FP16 ? CDP_COST_FP16 : CDP_COST_INT);
    if (line_bytes > CDP_MAX_LINE_BYTES) {
        dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_CDP, 0, NULL,
                 "CDP line of %ux%u elements is too large for the model (%llu bytes, limit %u)",
                 j->w, j->c, (unsigned long long)line_bytes, CDP_MAX_LINE_BYTES);
        return false;
    }
    j->lrn.path = j->format == CDP_INT8 ? LUT_CDP_INT8 : LUT_CDP_INT16;
    read_convertors(d, g, &j->lrn);
    j->lrn.fp16 = j->format == CDP_FP16;
    j->lrn.nan_to_zero = dla_field(d, DLA_U_CDP, g, "D_NAN_FLUSH_TO_ZERO", "NAN_TO_ZERO") != 0;
    j->lrn.lut = &d->lut_cdp;
    lut_cfg_read(d, DLA_U_CDP, &j->lrn.lut_cfg);
    j->lrn.lut_cfg.fp = j->lrn.fp16;
    lut_cfg_check(d, DLA_U_CDP, &j->lrn.lut_cfg);
    if (j->lrn.fp16) {
        lut_cdp_fp_prepare(j->lrn.lut, &j->lrn.lut_cfg, &j->lut_fp);
        j->lrn.lut_fp = &j->lut_fp;
    }
    read_addresses(d, g, rg, j);
    return true;
}

/* ---------------------------------------------------------------- data movement */

/* fp16 NaN and infinity counters: every element of every atom moved. */
struct cdp_fp_counts {
    uint64_t nan_in, inf_in, nan_out;
};

static void count_fp(const struct cdp_job *j, const uint8_t *atoms, size_t bytes, uint64_t *nan,
                     uint64_t *inf)
{
    if (j->format == CDP_FP16)
        feature_count_fp16_specials(atoms, bytes, nan, inf);
}

/* Byte of element (surface-relative layout of one line: surface, x, channel). */
static size_t line_offset(const struct cdp_job *j, unsigned x, unsigned ch)
{
    return ((size_t)(ch / j->cpa) * j->w + x) * j->atom + (ch % j->cpa) * j->bpe;
}

static bool read_line(struct dla_exec *x, const struct cdp_job *j, unsigned y, uint8_t *line)
{
    size_t bytes = (size_t)j->w * j->atom;
    for (unsigned s = 0; s < j->n_surf; s++) {
        uint64_t addr = j->src + (uint64_t)y * j->src_line + (uint64_t)s * j->src_surf;
        if (!exec_read(x, DLA_C_CDP_RDMA, j->src_space, addr, line + s * bytes, bytes))
            return false;
    }
    return true;
}

static bool write_line(struct dla_exec *x, const struct cdp_job *j, unsigned y, const uint8_t *line)
{
    size_t bytes = (size_t)j->w * j->atom;
    for (unsigned s = 0; s < j->n_surf; s++) {
        uint64_t addr = j->dst + (uint64_t)y * j->dst_line + (uint64_t)s * j->dst_surf;
        if (!exec_write(x, DLA_C_CDP_WDMA, j->dst_space, addr, line + s * bytes, bytes))
            return false;
    }
    return true;
}

/* ---------------------------------------------------------------- datapath
 *
 * Lines go through in chunks: a chunk's lines are read in order, normalised
 * by dla_threads() workers (each its own run of lines, its own buffers and
 * statistics, summed afterwards), then written in order.  A chunk's size
 * depends on the line's bytes only, never on the worker count, so memory
 * traffic, results and statistics are the same for any DLADBG_THREADS. */

#define CHUNK_BYTES       (256u << 10) /* input lines of one chunk, at least one line */
#define PARALLEL_ELEMENTS 8192u        /* a chunk this small runs on the calling thread */

struct cdp_worker {
    int32_t *raw, *res, *scratch;
    struct dla_lut_stats stats;
    uint64_t saturated;
};

struct cdp_chunk {
    const struct cdp_job *j;
    size_t line_bytes;
    unsigned lines_max; /* lines a chunk holds */
    uint8_t *in, *out;  /* lines_max lines each */
    unsigned lines;     /* lines in the current chunk */
    unsigned workers;
    struct cdp_worker w[DLA_MAX_THREADS];
};

static void free_chunk(struct cdp_chunk *k)
{
    free(k->in);
    free(k->out);
    for (unsigned i = 0; i < DLA_MAX_THREADS; i++) {
        free(k->w[i].raw);
        free(k->w[i].res);
        free(k->w[i].scratch);
    }
}

static bool alloc_chunk(const struct cdp_job *j, struct cdp_chunk *k)
{
    memset(k, 0, sizeof *k);
    k->j = j;
    k->line_bytes = (size_t)j->w * j->n_surf * j->atom;
    size_t fit = CHUNK_BYTES / k->line_bytes;
    k->lines_max = fit < 1 ? 1 : fit < j->h ? (unsigned)fit : j->h;
    size_t elems_per_line = (size_t)j->w * j->c_pad;
    k->workers =
        dla_workers_for(elems_per_line * k->lines_max < PARALLEL_ELEMENTS ? 1 : k->lines_max);
    k->in = malloc(k->line_bytes * k->lines_max);
    k->out = malloc(k->line_bytes * k->lines_max);
    bool ok = k->in && k->out;
    for (unsigned i = 0; i < k->workers && ok; i++) {
        struct cdp_worker *w = &k->w[i];
        w->raw = malloc(j->c_pad * sizeof *w->raw);
        w->res = malloc(j->c_pad * sizeof *w->res);
        w->scratch = malloc(CDP_LRN_SCRATCH(j->c_pad) * sizeof *w->scratch);
        ok = w->raw && w->res && w->scratch;
        lut_stats_begin(&w->stats);
    }
    if (!ok)
        free_chunk(k);
    return ok;
}

static uint64_t normalise_line(const struct cdp_job *j, const uint8_t *in, uint8_t *out,
                               struct cdp_worker *w)
{
    uint64_t saturated = 0;
    for (unsigned x = 0; x < j->w; x++) {
        for (unsigned ch = 0; ch < j->c_pad; ch++)
            w->raw[ch] = feature_load(in + line_offset(j, x, ch), j->bpe, j->format == CDP_FP16);
        saturated += cdp_lrn_vector(&j->lrn, w->raw, j->c_pad, j->c, w->res, w->scratch, &w->stats);
        for (unsigned ch = 0; ch < j->c_pad; ch++)
            feature_store(out + line_offset(j, x, ch), j->bpe, w->res[ch]);
    }
    return saturated;
}

/* Worker `worker` of `workers`: its share of the chunk's lines. */
static void normalise_lines(void *ctx, unsigned worker, unsigned workers)
{
    struct cdp_chunk *k = ctx;
    unsigned from = (unsigned)dla_share_start(k->lines, worker, workers);
    unsigned to = (unsigned)dla_share_start(k->lines, worker + 1, workers);
    for (unsigned l = from; l < to; l++) {
        size_t at = (size_t)l * k->line_bytes;
        k->w[worker].saturated += normalise_line(k->j, k->in + at, k->out + at, &k->w[worker]);
    }
}

/* One chunk of lines from y: read, normalise, write; false on a memory error. */
static bool run_chunk(struct dla_exec *x, struct cdp_chunk *k, unsigned y, struct cdp_fp_counts *fc)
{
    const struct cdp_job *j = k->j;
    k->lines = j->h - y < k->lines_max ? j->h - y : k->lines_max;
    for (unsigned l = 0; l < k->lines; l++)
        if (!read_line(x, j, y + l, k->in + (size_t)l * k->line_bytes))
            return false;
    size_t bytes = (size_t)k->lines * k->line_bytes;
    count_fp(j, k->in, bytes, &fc->nan_in, &fc->inf_in);
    /* the last chunk may hold fewer lines than workers */
    dla_parallel(k->workers < k->lines ? k->workers : k->lines, normalise_lines, k);
    count_fp(j, k->out, bytes, &fc->nan_out, NULL);
    for (unsigned l = 0; l < k->lines; l++)
        if (!write_line(x, j, y + l, k->out + (size_t)l * k->line_bytes))
            return false;
    return true;
}

/* ---------------------------------------------------------------- results */

static void publish(struct dla *d, struct dla_exec *x, int g, const struct dla_lut_stats *s,
                    uint64_t saturated, const struct cdp_fp_counts *fc)
{
    lut_stats_publish(d, DLA_U_CDP, g, s);
    dla_reg_hw_set(d, DLA_U_CDP, g, "D_OUT_SATURATION", dla_sat32(saturated));
    /* NaN and Inf are counted on fp16 data only */
    dla_reg_hw_set(d, DLA_U_CDP, g, "D_NAN_INPUT_NUM", dla_sat32(fc->nan_in));
    dla_reg_hw_set(d, DLA_U_CDP, g, "D_INF_INPUT_NUM", dla_sat32(fc->inf_in));
    dla_reg_hw_set(d, DLA_U_CDP, g, "D_NAN_OUTPUT_NUM", dla_sat32(fc->nan_out));
    exec_lut_stats(x, s);
    exec_counter(x, "CDP.D_OUT_SATURATION", saturated);
}

static int cdp_execute(struct dla *d, struct dla_exec *x, int group, int rdma_group)
{
    struct cdp_job j;
    if (!decode(d, group, rdma_group, &j) || !exec_budget(x, DLA_U_CDP, j.work, "CDP LRN")) {
        exec_desc(x, "cdp: not computed (see diagnostics)");
        return -1;
    }
    exec_desc(x, "cdp lrn%u %s %ux%ux%u%s%s", 2 * j.lrn.half_window + 1,
              j.format == CDP_INT8    ? "int8"
              : j.format == CDP_INT16 ? "int16"
                                      : "fp16",
              j.w, j.h, j.c, j.lrn.sqsum_bypass ? " sqsum-bypass" : "",
              j.lrn.mul_bypass ? " mul-bypass" : "");
    struct cdp_chunk k;
    if (!alloc_chunk(&j, &k)) {
        dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_CDP, 0, NULL,
                 "CDP: out of memory for %u lines of %ux%u", k.lines_max, j.w, j.c);
        return -1;
    }
    struct cdp_fp_counts fc = {0};
    int rc = 0;
    for (unsigned y = 0; y < j.h && rc == 0; y += k.lines_max)
        if (!run_chunk(x, &k, y, &fc))
            rc = -1;
    struct dla_lut_stats stats;
    lut_stats_begin(&stats);
    uint64_t saturated = 0;
    for (unsigned i = 0; i < k.workers; i++) {
        lut_stats_add(&stats, &k.w[i].stats);
        saturated += k.w[i].saturated;
    }
    free_chunk(&k);
    publish(d, x, group, &stats, saturated, &fc);
    uint64_t elems = (uint64_t)j.w * j.h * j.c_pad;
    unsigned tp = d->cfg->cdp_throughput ? d->cfg->cdp_throughput : 1;
    exec_compute(x, (elems + tp - 1) / tp, elems * (2 * j.lrn.half_window + 1));
    return rc;
}

/* ---------------------------------------------------------------- LUT port */

/* The LUT access port lives behind CDP's S_LUT_ACCESS_CFG/DATA. */
static bool cdp_write(struct dla *d, const struct regdb_reg *reg, int group, uint32_t value)
{
    (void)group;
    return lut_hook_write(&d->lut_cdp, reg, value);
}

static bool cdp_read(struct dla *d, const struct regdb_reg *reg, int group, uint32_t *value,
                     bool peek)
{
    (void)group;
    return lut_hook_read(&d->lut_cdp, reg, value, peek);
}

/* CDP's LUT RAM lives in struct dla (plain data for checkpoints); a reset empties it. */
static void cdp_reset(struct dla *d)
{
    memset(&d->lut_cdp, 0, sizeof d->lut_cdp);
}

static const struct dla_unit_hooks cdp_hooks = {
    .reset = cdp_reset,
    .write = cdp_write,
    .read = cdp_read,
};

static int cdp_run(struct dla *d, struct dla_exec *x, const struct dla_stage *st,
                   const struct dla_cube *in, struct dla_cube *out)
{
    (void)in;
    (void)out;
    return cdp_execute(d, x, st->group, st->rdma_group);
}

/* The programming-guide rules this unit checks: one row per id it passes to
 * dla_rule() (core/rules.c lists every entry's rows for "info rules"). */
static const struct dla_rule_info cdp_rules[] = {
    {"cdp.rdma_format", DLA_U_CDP_RDMA, "CDP programming", "CDP_RDMA's input format equals CDP's"},
    {"cdp.lut_le_range", DLA_U_CDP, "LUT programming", "LE table end above its start"},
    {"cdp.lut_lo_range", DLA_U_CDP, "LUT programming", "LO table end above its start"},
};

static const struct dla_perf_reg cdp_perf_regs[] = {
    {DLA_U_CDP_RDMA, true, "D_PERF_ENABLE", "DMA_EN", "D_PERF_READ_STALL",
     "CDP_RDMA.D_PERF_READ_STALL", DLA_PERF_STALL, DLA_C_CDP_RDMA},
    {DLA_U_CDP, false, "D_PERF_ENABLE", "DMA_EN", "D_PERF_WRITE_STALL", "CDP.D_PERF_WRITE_STALL",
     DLA_PERF_STALL, DLA_C_CDP_WDMA},
};

const struct dla_unit_entry cdp_unit = {
    .name = "CDP",
    .proc = DLA_P_CDP,
    .n_ports = 2,
    .ports = {{DLA_U_CDP, &cdp_hooks}, {DLA_U_CDP_RDMA, NULL}},
    .main = DLA_U_CDP,
    .rdma = DLA_U_CDP_RDMA,
    .execute = cdp_run,
    .fill_cycles = TIMING_CDP_FILL,
    .perf_regs = cdp_perf_regs,
    .n_perf_regs = sizeof cdp_perf_regs / sizeof cdp_perf_regs[0],
    .feeds = DLA_P_NONE,
    .rules = cdp_rules,
    .n_rules = sizeof cdp_rules / sizeof cdp_rules[0],
};
