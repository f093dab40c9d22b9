/* Convolution model speed: a 56x56x64 input, 192 kernels 3x3 (stride 1,
 * padding 1) on nv_full, int8, int16 and fp16, run through the whole convolution
 * core (CDMA fetch into CBUF, CSC sequencing, exact MAC, CACC), reported as
 * simulated MAC/s next to an OpenBLAS sgemm of the same im2col shape (M = 192
 * kernels, N = 56*56 positions, K = 3*3*64) run in this process.  A dgemm of
 * the shape is timed too: the exact fp16 cells are built on double FMAs.
 *
 * So that the figures cannot flatter the model:
 * - the BLAS kernel compared with is named (OpenBLAS's core and thread
 *   count, and OPENBLAS_CORETYPE when the environment forces one);
 * - the model and the references are timed interleaved: each round runs
 *   every one of them once, in an order reversed every other round, so a
 *   machine that speeds up or slows down moves both sides alike;
 * - every round is run twice, once on the default thread counts (wall
 *   clock) and once on one thread each (wall clock and the thread's CPU
 *   time, which other processes on the machine barely move), and each
 *   ratio is the median of the rounds' own ratios;
 * - after a BLAS job the next one waits, untimed, until OpenBLAS's workers
 *   stop spinning (blas_rest), so no job shares the CPUs with them;
 * - the fp16 target's PASS/FAIL rests on whichever of the two ratios, the
 *   wall-clock one on the default threads or the 1-thread CPU-time one,
 *   spread less over the rounds;
 * - every output of the layer is checked against the reference after the
 *   timed rounds (fp16: the bit-level reference, computed once, on every
 *   CPU; the check is not timed).
 *
 * A second fp16 layer, 28x28x64 -> 28x28x32 3x3, has values and weights
 * whose exponents spread over the whole fp16 range (issue 34: the fp16
 * convolution must stay exact, and within 2x of the bench layer's rate,
 * there too).  It is timed in the same rounds, its rate given as a ratio to
 * the bench layer's fp16 rate in the same round, and its every output
 * checked against the bit-level reference like the bench layer's.  It is
 * smaller so that its reference costs seconds, not a minute.
 *
 * A third, the bench layer with full mantissas, keeps the bench layer's
 * signs and exponents but draws every fraction bit at random.  The bench
 * layer's values are k/512 (weights) and k/64 (data) for |k| <= 1000, so
 * most of their low mantissa bits are clear, and an exact shortcut for
 * such values would speed up the bench layer and no trained network's.
 * Its rate is printed beside the bench layer's (not a target), so such a
 * shortcut shows.
 *
 * bench spread (opt-in: a plain make bench does not run it) sweeps the
 * spread layer's exponents from narrow to the whole range: for each width
 * its rate against the bench layer's, whether it is exact and how its
 * products align (bench_conv_spread, at the end of the file). */
#include <cblas.h>
#include <dirent.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../unit/conv_harness.h"
#include "bench.h"
#include "core/threads.h"
#include "util/textfile.h"

void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
char *openblas_get_corename(void);
char *openblas_get_config(void);

#define ROUNDS 9

/* The jobs of a round: the references, then the model in each precision,
 * then the fp16 layer of widely spread exponents. */
enum job { J_SGEMM, J_DGEMM, J_INT8, J_INT16, J_FP16, J_SPREAD, J_FULL, J_COUNT };
#define MODELS (J_COUNT - J_INT8)
/* A round's two passes: default thread counts, then one thread each. */
enum pass { P_THREADS, P_ONE, P_COUNT };

static const char *const job_name[J_COUNT] = {"openblas sgemm", "openblas dgemm", "model int8",
                                              "model int16",    "model fp16",     "fp16 spread",
                                              "fp16 full mant."};

struct sample {
    double wall, cpu; /* seconds; cpu: the calling thread's CPU time */
};

struct gemm {
    int m, n, k;
    float *fa, *fb, *fc;
    double *da, *db, *dc;
};

struct model {
    char cache_name[48]; /* fp16: the cached reference's file in the build folder */
    struct spec s;
    struct dla *d;
    struct layer_data ld;
    struct dla_cube out;
    uint32_t *want;     /* the reference's every output, [k][y][x] */
    uint64_t runs, bad; /* runs checked, outputs of them that differed */
    bool failed;
};

static struct spec layer(unsigned prec)
{
    struct spec s = spec_3x3_same("nv_full", prec, 56, 56, 64, 192);
    s.clip = prec == 1 ? 8 : 0;
    /* input: 28 (int8) or 56 (int16) entries per slice x 56 lines; weights
     * stream through the remaining banks kernel group by kernel group */
    s.data_banks = prec ? 13 : 7;
    s.weight_banks = 16 - s.data_banks;
    return s;
}

/* ---------------------------------------------------------------- references */

static bool gemm_init(struct gemm *g, int m, int n, int k)
{
    *g = (struct gemm){.m = m, .n = n, .k = k};
    size_t a = (size_t)m * k, b = (size_t)k * n, c = (size_t)m * n;
    g->fa = malloc(sizeof *g->fa * a), g->fb = malloc(sizeof *g->fb * b);
    g->fc = malloc(sizeof *g->fc * c);
    g->da = malloc(sizeof *g->da * a), g->db = malloc(sizeof *g->db * b);
    g->dc = malloc(sizeof *g->dc * c);
    if (!g->fa || !g->fb || !g->fc || !g->da || !g->db || !g->dc)
        return false;
    for (size_t i = 0; i < a; i++)
        g->da[i] = g->fa[i] = (float)((int)(i % 13) - 6);
    for (size_t i = 0; i < b; i++)
        g->db[i] = g->fb[i] = (float)((int)(i % 7) - 3);
    return true;
}

static void gemm_free(struct gemm *g)
{
    free(g->fa), free(g->fb), free(g->fc), free(g->da), free(g->db), free(g->dc);
}

static void gemm_run(const struct gemm *g, bool dbl)
{
    if (dbl)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g->m, g->n, g->k, 1.0, g->da, g->k,
                    g->db, g->n, 0.0, g->dc, g->n);
    else
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g->m, g->n, g->k, 1.0f, g->fa, g->k,
                    g->fb, g->n, 0.0f, g->fc, g->n);
}

/* The spread layer: the bench layer's shape family at a quarter of its
 * positions and a sixth of its kernels (25,088 outputs, 14.5 M MACs: a run
 * takes about the bench layer's fp16 time at 21x its cost per MAC, and
 * adds about a second to the bench).  Input: 28 entries per line x 28
 * lines in 4 banks. */
static struct spec spread_layer(void)
{
    struct spec s = spec_3x3_same("nv_full", 2, 28, 28, 64, 32);
    s.data_banks = 4;
    s.weight_banks = 16 - s.data_banks;
    s.seed = 34;
    return s;
}

/* The finite fp16 exponent fields, 0..30. */
#define FP16_EXPONENTS 31u

/* An fp16 value whose exponent field is drawn uniformly from a window of
 * width fields centred in the finite range 0..30 (the spread layer's: all
 * 31, 1 in 31 subnormal, the rest normal from 2^-14 to 2^15), random sign
 * and mantissa (a subnormal's never 0).  No infinities or NaNs: they would
 * make most outputs Inf or NaN, a layer that says nothing about the
 * arithmetic.  Products reach 2^32 and sums of 576 of them stay far below
 * fp32's range. */
static int32_t spread_value(int32_t old, uint32_t *st, unsigned width)
{
    (void)old;
    uint32_t r = lcg(st), sign = (r & 1u) << 15, frac = (r >> 1) & 0x3ffu;
    uint32_t exponent = (FP16_EXPONENTS - width) / 2 + (r >> 11) % width;
    if (exponent == 0)
        return (int32_t)(sign | (frac ? frac : 1));
    return (int32_t)(sign | exponent << 10 | frac);
}

/* v with its fraction drawn at random: the same sign and exponent, so the
 * same alignments as the bench layer, and 11 significant bits.  Zeros stay
 * zero, a subnormal's fraction is never 0. */
static int32_t full_mantissa(int32_t v, uint32_t *st, unsigned unused)
{
    (void)unused;
    uint32_t h = (uint32_t)v & 0xffffu, frac = lcg(st) >> 22;
    if ((h & 0x7fffu) == 0)
        return v;
    if ((h & 0x7c00u) == 0 && frac == 0)
        frac = 1;
    return (int32_t)((h & ~0x3ffu) | frac);
}

/* prepare() with every value of the layer data redrawn by redraw (from its
 * old value, the random state, seeded with seed, and the redraw's own
 * parameter arg) before anything is stored. */
static void prepare_redrawn(struct dla *d, const struct spec *s, struct layer_data *ld,
                            int32_t (*redraw)(int32_t old, uint32_t *st, unsigned arg),
                            unsigned arg, uint32_t seed)
{
    uint32_t st = seed;
    make_layer_data(s, ld);
    for (uint32_t i = 0; i < ld->n_in; i++)
        ld->in[i] = redraw(ld->in[i], &st, arg);
    for (uint32_t i = 0; i < ld->n_wt; i++)
        ld->wt[i] = redraw(ld->wt[i], &st, arg);
    store_feature(d, s, ld);
    uint64_t wt_bytes, wmb_bytes;
    store_weights(d, s, ld, &wt_bytes, &wmb_bytes);
    program_layer(d, s, wt_bytes, wmb_bytes);
}

/* ---------------------------------------------------------------- the model */

/* The spread layer's shape with exponent fields from a window of width
 * (spread_value); FP16_EXPONENTS is the spread layer itself. */
static void spread_model_init(struct model *md, unsigned width)
{
    *md = (struct model){.s = spread_layer()};
    if (width == FP16_EXPONENTS) /* the same data: the same cached reference */
        snprintf(md->cache_name, sizeof md->cache_name, "bench-fp16-spread-reference.bin");
    else
        snprintf(md->cache_name, sizeof md->cache_name, "bench-fp16-spread-w%u-reference.bin",
                 width);
    md->d = dla_create(dla_config_find(md->s.config), NULL);
    prepare_redrawn(md->d, &md->s, &md->ld, spread_value, width, md->s.seed);
}

/* Model m of the round: 0-2 the bench layer in int8, int16, fp16, 3 the
 * spread layer, 4 the fp16 bench layer with full mantissas. */
static void model_init(struct model *md, unsigned m)
{
    if (m == J_SPREAD - J_INT8) {
        spread_model_init(md, FP16_EXPONENTS);
        return;
    }
    bool full = m == J_FULL - J_INT8;
    *md = (struct model){.s = layer(full ? 2 : m)};
    snprintf(md->cache_name, sizeof md->cache_name, "%s",
             full ? "bench-fp16-full-reference.bin" : "bench-fp16-reference.bin");
    md->d = dla_create(dla_config_find(md->s.config), NULL);
    if (full)
        prepare_redrawn(md->d, &md->s, &md->ld, full_mantissa, 0, 0x5eed34u);
    else
        prepare(md->d, &md->s, &md->ld);
}

static double model_macs(const struct model *md)
{
    const struct spec *s = &md->s;
    return (double)s->k * spec_ow(s) * spec_oh(s) * s->kw * s->kh * s->c;
}

static void model_run(struct model *md)
{
    cube_free(&md->out);
    if (run_conv(md->d, &md->out) != 0)
        md->failed = true;
}

/* The last run's every output against the reference (after the timing). */
static void model_check(struct model *md)
{
    const struct spec *s = &md->s;
    uint32_t ow = spec_ow(s), oh = spec_oh(s);
    if (md->failed || !md->out.v || !md->want)
        return;
    md->runs++;
    for (uint32_t k = 0; k < s->k; k++)
        for (uint32_t y = 0; y < oh; y++)
            for (uint32_t x = 0; x < ow; x++)
                md->bad += (uint32_t)md->out.v[cube_index(&md->out, 0, k, y, x)] !=
                           md->want[((size_t)k * oh + y) * ow + x];
}

static void model_free(struct model *md)
{
    free(md->want);
    cube_free(&md->out);
    free_layer_data(&md->ld);
    dla_destroy(md->d);
}

/* ---------------------------------------------------------------- references */

/* An integer layer's every output, from the plain reference. */
static uint32_t *reference_int(const struct model *md)
{
    const struct spec *s = &md->s;
    int32_t *want = malloc(sizeof *want * (size_t)s->k * spec_ow(s) * spec_oh(s));
    if (want)
        ref_conv_int(s, &md->ld, want);
    return (uint32_t *)want;
}

struct fp16_reference {
    const struct model *md;
    uint32_t seg, n;
    const int16_t *wrows; /* every kernel's weight row, [k][n] */
    uint32_t *want;
    bool oom;
};

/* One worker's share of the output positions, every kernel at each. */
static void reference_fp16_part(void *ctx, unsigned worker, unsigned workers)
{
    struct fp16_reference *c = ctx;
    const struct spec *s = &c->md->s;
    uint32_t ow = spec_ow(s), oh = spec_oh(s);
    int16_t *a = malloc(sizeof *a * c->n), *unused = malloc(sizeof *unused * c->n);
    if (!a || !unused) {
        c->oom = true;
        free(a), free(unused);
        return;
    }
    uint64_t end = dla_share_start((uint64_t)ow * oh, worker + 1, workers);
    for (uint64_t p = dla_share_start((uint64_t)ow * oh, worker, workers); p < end; p++) {
        uint32_t y = (uint32_t)(p / ow), x = (uint32_t)(p % ow);
        ref_fp16_operands(s, &c->md->ld, c->seg, 0, 0, y, x, a, unused);
        for (uint32_t k = 0; k < s->k; k++)
            c->want[((size_t)k * oh + y) * ow + x] =
                ref_fp16_output_of(s, c->seg, a, c->wrows + (size_t)k * c->n);
    }
    free(a), free(unused);
}

/* ---------------------------------------------------------------- the cached fp16 reference */

/* The bit-level reference takes a minute of CPU for the layer's 602,112
 * outputs, so it is kept between runs in $DLADBG_BENCH_CACHE (make bench:
 * the build folder), under a key made of the layer's data and the text of
 * the reference's sources; a cached reference is used only after a sample
 * of it, recomputed, agrees. */
static const char *const reference_sources[] = {
    "sim/conv/cacc_fp16.c", "sim/conv/conv.h", "sim/num/fp16.h",
    "sim/num/fpnum.h",      "sim/num/fpnum.c", "tests/unit/conv_harness.h",
};
#define CACHE_MAGIC  "DLABREF1"
#define SAMPLE_EVERY 97u

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* 0 when a source cannot be read: no cache then. */
static uint64_t reference_key(const struct model *md, uint32_t seg)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv(h, md->ld.in, sizeof *md->ld.in * md->ld.n_in);
    h = fnv(h, md->ld.wt, sizeof *md->ld.wt * md->ld.n_wt);
    uint32_t shape[] = {md->s.w, md->s.h, md->s.c, md->s.k, md->s.kw, md->s.kh, md->s.pad, seg};
    h = fnv(h, shape, sizeof shape);
    for (size_t i = 0; i < sizeof reference_sources / sizeof reference_sources[0]; i++) {
        uint8_t *text;
        size_t len;
        char err[256];
        if (!file_read_all(reference_sources[i], 16u << 20, &text, &len, err, sizeof err))
            return 0;
        h = fnv(h, text, len);
        free(text);
    }
    return h ? h : 1;
}

static bool cache_path(const char *name, char *buf, size_t len)
{
    const char *dir = getenv("DLADBG_BENCH_CACHE");
    if (!dir || !*dir)
        return false;
    snprintf(buf, len, "%s/%s", dir, name);
    return true;
}

static uint32_t *cache_read(const char *name, uint64_t key, size_t count)
{
    char path[1024], magic[8];
    uint64_t file_key = 0, file_count = 0;
    FILE *fp = key && cache_path(name, path, sizeof path) ? fopen(path, "rb") : NULL;
    uint32_t *want = fp ? malloc(sizeof *want * count) : NULL;
    bool ok = want && fread(magic, 1, 8, fp) == 8 && memcmp(magic, CACHE_MAGIC, 8) == 0 &&
              fread(&file_key, 8, 1, fp) == 1 && fread(&file_count, 8, 1, fp) == 1 &&
              file_key == key && file_count == count &&
              fread(want, sizeof *want, count, fp) == count;
    if (fp)
        fclose(fp);
    if (!ok) {
        free(want);
        return NULL;
    }
    return want;
}

/* Written to a temporary name and renamed: a reader never sees half. */
static void cache_write(const char *name, uint64_t key, const uint32_t *want, size_t count)
{
    char path[1024], tmp[1100];
    if (!key || !cache_path(name, path, sizeof path))
        return;
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    FILE *fp = fopen(tmp, "wb");
    uint64_t n = count;
    bool ok = fp && fwrite(CACHE_MAGIC, 1, 8, fp) == 8 && fwrite(&key, 8, 1, fp) == 1 &&
              fwrite(&n, 8, 1, fp) == 1 && fwrite(want, sizeof *want, count, fp) == count;
    if (fp)
        ok = fclose(fp) == 0 && ok;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
}

/* Outputs of the cached reference recomputed: every SAMPLE_EVERY-th;
 * returns how many differ. */
static uint64_t sample_differs(const struct fp16_reference *c, const uint32_t *cached,
                               uint64_t *sampled)
{
    const struct spec *s = &c->md->s;
    uint32_t ow = spec_ow(s), oh = spec_oh(s);
    int16_t *a = malloc(sizeof *a * c->n), *unused = malloc(sizeof *unused * c->n);
    uint64_t bad = a && unused ? 0 : 1;
    *sampled = 0;
    for (size_t i = 0; !bad && i < (size_t)s->k * oh * ow; i += SAMPLE_EVERY, ++*sampled) {
        uint32_t k = (uint32_t)(i / ((size_t)oh * ow)), y = (uint32_t)(i / ow % oh);
        uint32_t x = (uint32_t)(i % ow);
        ref_fp16_operands(s, &c->md->ld, c->seg, 0, 0, y, x, a, unused);
        bad += cached[i] != ref_fp16_output_of(s, c->seg, a, c->wrows + (size_t)k * c->n);
    }
    free(a), free(unused);
    return bad;
}

/* Every kernel's weight row of an fp16 layer in the cells' order
 * (ref_fp16_operands, atomic operations of seg channels), [k][n]; NULL when
 * out of memory. */
static int16_t *weight_rows(const struct model *md, uint32_t seg, uint32_t n)
{
    const struct spec *s = &md->s;
    int16_t *w = malloc(sizeof *w * (size_t)s->k * n), *unused = malloc(sizeof *unused * n);
    bool ok = w && unused;
    for (uint32_t k = 0; ok && k < s->k; k++)
        ref_fp16_operands(s, &md->ld, seg, 0, k, 0, 0, unused, w + (size_t)k * n);
    free(unused);
    if (!ok) {
        free(w);
        return NULL;
    }
    return w;
}

/* The fp16 layer's every output from the bit-level reference
 * (cacc_fp16_output): from the cache when a sample of it agrees, else
 * computed on every CPU and cached.  how says which. */
static uint32_t *reference_fp16(const struct model *md, char *how, size_t howlen)
{
    const struct spec *s = &md->s;
    struct fp16_reference c = {
        .md = md, .seg = dla_config_find(s->config)->atomic_c, .n = s->kh * s->kw * s->c};
    size_t count = (size_t)s->k * spec_ow(s) * spec_oh(s);
    int16_t *w = weight_rows(md, c.seg, c.n);
    if (!w)
        return NULL;
    c.wrows = w;
    uint64_t key = reference_key(md, c.seg), sampled = 0;
    c.want = cache_read(md->cache_name, key, count);
    uint64_t bad = c.want ? sample_differs(&c, c.want, &sampled) : 0;
    if (c.want && !bad) {
        snprintf(how, howlen, "cached; %llu of its outputs recomputed agree",
                 (unsigned long long)sampled);
    } else {
        free(c.want);
        c.want = malloc(sizeof *c.want * count);
        if (c.want)
            dla_parallel(dla_workers_for((uint64_t)spec_ow(s) * spec_oh(s)), reference_fp16_part,
                         &c);
        if (c.want && !c.oom)
            cache_write(md->cache_name, key, c.want, count);
        snprintf(how, howlen, "computed%s", bad ? ": the cached one disagreed with a sample" : "");
    }
    free(w);
    if (c.oom) {
        free(c.want);
        return NULL;
    }
    return c.want;
}

/* ---------------------------------------------------------------- alignment classes */

/* How a cell aligns its products (cacc_fp16.c): each by 4 x the cell's
 * largest sum of the operands' high exponent parts (exponent field >> 2)
 * less 4 x its own.  Aligned by less than 8 bits a product needs no Booth
 * carry, by 8 to 28 it needs one (by 8 the carry8 table's, further the
 * exact array's work), by 32 or more it is past the array (only its sign
 * counts). */
enum align_class { A_BELOW8, A_BY8, A_BY12_28, A_BEYOND, A_COUNT };

static unsigned high_parts(int16_t a, int16_t w)
{
    return ((uint16_t)a >> 10 & 0x1fu) / 4 + ((uint16_t)w >> 10 & 0x1fu) / 4;
}

/* A pair with a zero (+0 or -0) is no product: the cells mask it out. */
static bool is_product(int16_t a, int16_t w)
{
    return (a & 0x7fff) && (w & 0x7fff);
}

static void count_cell(const int16_t *a, const int16_t *w, uint32_t n, uint64_t count[A_COUNT])
{
    unsigned top = 0;
    for (uint32_t i = 0; i < n; i++)
        if (is_product(a[i], w[i]) && high_parts(a[i], w[i]) > top)
            top = high_parts(a[i], w[i]);
    for (uint32_t i = 0; i < n; i++)
        if (is_product(a[i], w[i])) {
            unsigned shift = 4 * (top - high_parts(a[i], w[i]));
            count[shift < 8 ? A_BELOW8 : shift == 8 ? A_BY8 : shift < 32 ? A_BY12_28 : A_BEYOND]++;
        }
}

/* The fp16 layer's every product by its alignment class, counted from its
 * data cell by cell (ref_fp16_operands' rows: channel blocks of seg, tap by
 * tap); false when out of memory. */
static bool count_alignments(const struct model *md, uint64_t count[A_COUNT])
{
    const struct spec *s = &md->s;
    uint32_t seg = dla_config_find(s->config)->atomic_c, taps = s->kh * s->kw, n = taps * s->c;
    int16_t *w = weight_rows(md, seg, n), *a = malloc(sizeof *a * n);
    int16_t *unused = malloc(sizeof *unused * n);
    bool ok = w && a && unused;
    for (uint32_t p = 0; ok && p < spec_ow(s) * spec_oh(s); p++) {
        ref_fp16_operands(s, &md->ld, seg, 0, 0, p / spec_ow(s), p % spec_ow(s), a, unused);
        for (uint32_t k = 0; k < s->k; k++)
            for (uint32_t c0 = 0, i = 0; c0 < s->c; c0 += seg)
                for (uint32_t t = 0, nj = s->c - c0 < seg ? s->c - c0 : seg; t < taps; t++, i += nj)
                    count_cell(a + i, w + (size_t)k * n + i, nj, count);
    }
    free(w), free(a), free(unused);
    return ok;
}

/* "< 8: x%, 8-28: y% (by 8: u%), >= 32: z%" of a layer's products. */
static void format_alignments(const struct model *md, char *buf, size_t len)
{
    uint64_t c[A_COUNT] = {0};
    double all =
        count_alignments(md, c) ? (double)(c[A_BELOW8] + c[A_BY8] + c[A_BY12_28] + c[A_BEYOND]) : 0;
    if (all > 0)
        snprintf(buf, len, "< 8: %.1f%%, 8-28: %.1f%% (by 8: %.1f%%), >= 32: %.1f%%",
                 100 * c[A_BELOW8] / all, 100 * (c[A_BY8] + c[A_BY12_28]) / all,
                 100 * c[A_BY8] / all, 100 * c[A_BEYOND] / all);
    else
        snprintf(buf, len, "not counted (out of memory)");
}

/* ---------------------------------------------------------------- rounds */

static void set_threads(enum pass pass, int blas_threads, const char *model_threads)
{
    openblas_set_num_threads(pass == P_ONE ? 1 : blas_threads);
    if (pass == P_ONE)
        setenv("DLADBG_THREADS", "1", 1);
    else if (model_threads)
        setenv("DLADBG_THREADS", model_threads, 1);
    else
        unsetenv("DLADBG_THREADS");
}

static struct sample now(void)
{
    return (struct sample){bench_seconds(), bench_thread_cpu_seconds()};
}

static struct sample since(struct sample start)
{
    return (struct sample){bench_seconds() - start.wall, bench_thread_cpu_seconds() - start.cpu};
}

/* One run of the model, timed, then checked (untimed). */
static struct sample time_model(struct model *md)
{
    struct sample start = now();
    model_run(md);
    struct sample took = since(start);
    model_check(md);
    return took;
}

static struct sample run_job(enum job j, const struct gemm *g, struct model *models)
{
    if (j >= J_INT8)
        return time_model(&models[j - J_INT8]);
    struct sample start = now();
    gemm_run(g, j == J_DGEMM);
    return since(start);
}

/* The i-th job of round r of n jobs: the order reversed every other round. */
static unsigned round_job(int r, unsigned i, unsigned n)
{
    return r % 2 ? n - 1 - i : i;
}

/* Each round's ratio of job j's rate to job base's, wall clock or CPU
 * time; macs: each job's MACs per run; t: the samples of every job (the
 * bench's J_COUNT, or the sweep's). */
static struct spread rate_ratio(struct sample t[][P_COUNT][ROUNDS], const double *macs, unsigned j,
                                unsigned base, enum pass p, bool cpu)
{
    double r[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        double ref = cpu ? t[base][p][i].cpu : t[base][p][i].wall;
        double mine = cpu ? t[j][p][i].cpu : t[j][p][i].wall;
        r[i] = mine > 0 && ref > 0 ? (macs[j] / mine) / (macs[base] / ref) : 0;
    }
    return bench_spread(r, ROUNDS);
}

/* Whichever of the wall-clock ratio on the default threads and the
 * 1-thread CPU-time ratio spread less over the rounds: what PASS/FAIL rests
 * on.  Says which, and both spreads, after "(". */
static struct spread steadier_ratio(struct sample t[J_COUNT][P_COUNT][ROUNDS], const double *macs,
                                    enum job j, enum job base, char *why, size_t whylen)
{
    struct spread rw = rate_ratio(t, macs, j, base, P_THREADS, false);
    struct spread rc1 = rate_ratio(t, macs, j, base, P_ONE, true);
    bool cpu_steadier = bench_relative_spread(rc1) <= bench_relative_spread(rw);
    struct spread on = cpu_steadier ? rc1 : rw;
    snprintf(why, whylen, "%s, the steadier: spread %.0f%% against %.0f%% for %s",
             cpu_steadier ? "1-thread CPU time" : "wall clock on the default threads",
             100 * bench_relative_spread(on), 100 * bench_relative_spread(cpu_steadier ? rw : rc1),
             cpu_steadier ? "wall clock on the default threads" : "1-thread CPU time");
    return on;
}

static struct spread times(struct sample t[][P_COUNT][ROUNDS], unsigned j, enum pass p, bool cpu)
{
    double v[ROUNDS];
    for (int i = 0; i < ROUNDS; i++)
        v[i] = cpu ? t[j][p][i].cpu : t[j][p][i].wall;
    return bench_spread(v, ROUNDS);
}

static void print_blas(int threads)
{
    const char *forced = getenv("OPENBLAS_CORETYPE"), *picked = getenv("DLADBG_BENCH_BLAS_PICKED");
    char *config = openblas_get_config();
    printf("conv: BLAS: OpenBLAS, core %s, %d threads (%s)\n", openblas_get_corename(), threads,
           config ? config : "?");
    if (picked)
        printf("conv: BLAS: OPENBLAS_CORETYPE=%s set by the bench: OpenBLAS picked %s, which has "
               "no FMA, on this AVX2 CPU\n",
               forced, picked);
    else if (forced)
        printf("conv: BLAS: OPENBLAS_CORETYPE=%s from the environment\n", forced);
    if (__builtin_cpu_supports("avx512f"))
        printf("conv: BLAS: the CPU has AVX-512; OPENBLAS_CORETYPE=SkylakeX would give "
               "OpenBLAS's AVX-512 kernels\n");
}

/* ---------------------------------------------------------------- BLAS threads at rest */

/* Whether another thread of this process is running (state R in
 * /proc/self/task/TID/stat).  OpenBLAS's workers spin, calling sched_yield,
 * for about 2^28 cycles after each call before they sleep: a job timed
 * right after a 2-thread gemm would share the two CPUs with them. */
static bool other_thread_running(void)
{
    DIR *dir = opendir("/proc/self/task");
    char self[32], path[300], stat[512];
    snprintf(self, sizeof self, "%ld", (long)syscall(SYS_gettid));
    bool running = false;
    for (struct dirent *e; dir && !running && (e = readdir(dir));) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, self) == 0)
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        FILE *fp = fopen(path, "r");
        size_t n = fp ? fread(stat, 1, sizeof stat - 1, fp) : 0;
        if (fp)
            fclose(fp);
        stat[n] = 0;
        const char *state = strrchr(stat, ')'); /* the name may hold spaces */
        running = state && state[1] == ' ' && state[2] == 'R';
    }
    if (dir)
        closedir(dir);
    return running;
}

/* After a BLAS job, waits (untimed, up to a second) until OpenBLAS's
 * workers sleep, so that the next job has the CPUs the gemm had; returns
 * the seconds waited. */
static double blas_rest(void)
{
    double t0 = bench_seconds();
    const struct timespec tick = {0, 2 * 1000 * 1000};
    while (other_thread_running() && bench_seconds() - t0 < 1.0)
        nanosleep(&tick, NULL);
    return bench_seconds() - t0;
}

/* Job j's ratios to job base (x sgemm, x fp16) on the three timings. */
static void print_ratios(struct sample t[J_COUNT][P_COUNT][ROUNDS], const double *macs, enum job j,
                         enum job base, const char *against, unsigned threads, int blas_threads)
{
    struct spread rw = rate_ratio(t, macs, j, base, P_THREADS, false);
    struct spread rw1 = rate_ratio(t, macs, j, base, P_ONE, false);
    struct spread rc1 = rate_ratio(t, macs, j, base, P_ONE, true);
    printf("conv: %-15s x %s: %.3f wall on %u/%d threads [%.3f-%.3f], %.3f wall on 1 "
           "[%.3f-%.3f], %.3f CPU time on 1 [%.3f-%.3f]\n",
           job_name[j], against, rw.median, threads, blas_threads, rw.lo, rw.hi, rw1.median, rw1.lo,
           rw1.hi, rc1.median, rc1.lo, rc1.hi);
}

static void print_job(struct sample t[J_COUNT][P_COUNT][ROUNDS], enum job j, const double *macs,
                      int blas_threads, unsigned model_threads)
{
    struct spread w = times(t, j, P_THREADS, false), w1 = times(t, j, P_ONE, false);
    struct spread c1 = times(t, j, P_ONE, true);
    unsigned threads = j <= J_DGEMM ? (unsigned)blas_threads : model_threads;
    printf("conv: %-15s %7.2f GMAC/s on %u threads (%.1f ms), %7.2f on 1 (%.1f ms wall, %.1f ms "
           "CPU)\n",
           job_name[j], macs[j] / w.median * 1e-9, threads, w.median * 1e3,
           macs[j] / c1.median * 1e-9, w1.median * 1e3, c1.median * 1e3);
    if (j != J_SGEMM)
        print_ratios(t, macs, j, J_SGEMM, "sgemm", threads, blas_threads);
    if (j == J_SPREAD || j == J_FULL)
        print_ratios(t, macs, j, J_FP16, "fp16 ", threads, blas_threads);
}

static bool print_check(const struct model *md, const char *name, const char *how,
                        double ref_seconds)
{
    uint64_t outputs = (uint64_t)md->s.k * spec_ow(&md->s) * spec_oh(&md->s);
    if (!md->want)
        printf("conv: %-15s no reference (out of memory): NOT CHECKED\n", name);
    else if (md->failed)
        printf("conv: %-15s the model failed on the layer\n", name);
    else
        printf("conv: %-15s every output of every run checked against the reference: %llu of "
               "%llu x %llu runs differ (reference %s, %.1f s, not timed)\n",
               name, (unsigned long long)md->bad, (unsigned long long)outputs,
               (unsigned long long)md->runs, how, ref_seconds);
    return md->want && !md->failed && md->bad == 0 && md->runs > 0;
}

double bench_conv(void)
{
    const int m = 192, n = 56 * 56, k = 3 * 3 * 64;
    double macs = (double)m * n * k;
    int blas_threads = openblas_get_num_threads();
    const char *env = getenv("DLADBG_THREADS");
    char *model_env = env ? strdup(env) : NULL;
    unsigned model_threads = dla_threads();
    printf("conv: 56x56x64 -> 56x56x192, 3x3, nv_full; sgemm M=%d N=%d K=%d\n", m, n, k);
    print_blas(blas_threads);
    struct gemm g;
    struct model models[MODELS];
    if (!gemm_init(&g, m, n, k)) {
        printf("conv: out of memory\n");
        gemm_free(&g);
        free(model_env);
        return 0;
    }
    double ref_seconds[MODELS], jobs_macs[J_COUNT] = {macs, macs};
    char ref_how[MODELS][128];
    for (unsigned m = 0; m < MODELS; m++) {
        model_init(&models[m], m);
        jobs_macs[J_INT8 + m] = model_macs(&models[m]);
        double t0 = bench_seconds();
        snprintf(ref_how[m], sizeof ref_how[m], "computed");
        models[m].want = models[m].s.prec == 2
                             ? reference_fp16(&models[m], ref_how[m], sizeof ref_how[m])
                             : reference_int(&models[m]);
        ref_seconds[m] = bench_seconds() - t0;
    }
    const struct spec *sp = &models[J_SPREAD - J_INT8].s;
    printf("conv: fp16 spread: %ux%ux%u -> %ux%ux%u, %ux%u, values and weights of every finite "
           "exponent (1 in 31 subnormal)\n",
           sp->w, sp->h, sp->c, spec_ow(sp), spec_oh(sp), sp->k, sp->kw, sp->kh);
    static struct sample t[J_COUNT][P_COUNT][ROUNDS];
    double rested = 0;
    for (int j = 0; j < J_COUNT; j++) { /* a warm-up run of each, not counted */
        run_job((enum job)j, &g, models);
        rested += j <= J_DGEMM ? blas_rest() : 0;
    }
    for (int r = 0; r < ROUNDS; r++)
        for (int p = 0; p < P_COUNT; p++) {
            set_threads((enum pass)p, blas_threads, model_env);
            for (int i = 0; i < J_COUNT; i++) {
                enum job j = (enum job)round_job(r, (unsigned)i, J_COUNT);
                t[j][p][r] = run_job(j, &g, models);
                rested += j <= J_DGEMM ? blas_rest() : 0;
            }
        }
    set_threads(P_THREADS, blas_threads, model_env);
    printf("conv: %d rounds, each running every job once on %u model / %d BLAS threads and "
           "once on 1 thread, in alternating order; medians [min-max] of the rounds, each "
           "ratio paired within its round\n",
           ROUNDS, model_threads, blas_threads);
    printf("conv: after each BLAS job the next waited, untimed, until OpenBLAS's workers slept: "
           "%.0f ms a job on average\n",
           rested * 1e3 / ((ROUNDS * P_COUNT + 1) * 2));
    for (int j = 0; j < J_COUNT; j++)
        print_job(t, (enum job)j, jobs_macs, blas_threads, model_threads);

    bool exact[MODELS];
    for (unsigned m = 0; m < MODELS; m++)
        exact[m] = print_check(&models[m], job_name[J_INT8 + m], ref_how[m], ref_seconds[m]);

    /* the fp16 targets on the steadier of the two ratios */
    char why[160];
    struct spread on = steadier_ratio(t, jobs_macs, J_FP16, J_SGEMM, why, sizeof why);
    printf("target: fp16 convolution >= 0.25 x sgemm, bit-exact: %.3f x (%s) %s\n", on.median, why,
           on.median >= 0.25 && exact[J_FP16 - J_INT8] ? "PASS" : "FAIL");
    bool spread_exact = exact[J_SPREAD - J_INT8];
    printf("target: fp16 spread layer bit-exact: %s\n", spread_exact ? "PASS" : "FAIL");
    on = steadier_ratio(t, jobs_macs, J_SPREAD, J_FP16, why, sizeof why);
    printf("target: fp16 spread layer >= 0.5 x the bench layer's fp16 rate: %.3f x, %.1fx "
           "slower (%s) %s\n",
           on.median, on.median > 0 ? 1 / on.median : 0, why, on.median >= 0.5 ? "PASS" : "FAIL");
    on = steadier_ratio(t, jobs_macs, J_FULL, J_SGEMM, why, sizeof why);
    printf("target: fp16 bench layer with full mantissas bit-exact: %s\n",
           exact[J_FULL - J_INT8] ? "PASS" : "FAIL");
    printf("info: fp16 bench layer with full mantissas (the bench layer's values are k/512 and "
           "k/64, low bits mostly clear): %.3f x sgemm (%s); not a target\n",
           on.median, why);

    for (unsigned m = 0; m < MODELS; m++)
        model_free(&models[m]);
    gemm_free(&g);
    free(model_env);
    return macs / times(t, J_SGEMM, P_THREADS, false).median;
}

/* ---------------------------------------------------------------- the spread sweep */

/* bench spread: the spread layer's rate against how widely its exponents
 * spread (issue 34 asks for half the bench layer's rate on "widely spread"
 * exponents; the bench's spread layer draws them from the whole range).
 * Each width W is the spread layer's shape with exponent fields drawn from
 * W fields centred in 0..30 (31: the spread layer itself).  Information
 * only: the target line of bench conv alone judges. */
static const unsigned sweep_widths[] = {2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, FP16_EXPONENTS};
#define SWEEP_JOBS (1 + sizeof sweep_widths / sizeof sweep_widths[0]) /* 0: the bench layer */

/* What the checks of a layer's runs found, in a word or two. */
static const char *check_verdict(const struct model *md)
{
    if (!md->want)
        return "NOT CHECKED (no reference)";
    if (md->failed)
        return "the model FAILED on the layer";
    return md->bad ? "NOT bit-exact" : "bit-exact";
}

void bench_conv_spread(void)
{
    const char *env = getenv("DLADBG_THREADS");
    char *model_env = env ? strdup(env) : NULL, how[128], classes[128];
    int blas_threads = openblas_get_num_threads();
    struct model models[SWEEP_JOBS];
    double macs[SWEEP_JOBS];
    static struct sample t[SWEEP_JOBS][P_COUNT][ROUNDS];
    model_init(&models[0], J_FP16 - J_INT8); /* timed as the base, not checked */
    for (unsigned j = 1; j < SWEEP_JOBS; j++) {
        spread_model_init(&models[j], sweep_widths[j - 1]);
        models[j].want = reference_fp16(&models[j], how, sizeof how);
    }
    for (unsigned j = 0; j < SWEEP_JOBS; j++)
        macs[j] = model_macs(&models[j]);
    set_threads(P_ONE, blas_threads, model_env);
    for (unsigned j = 0; j < SWEEP_JOBS; j++) /* a warm-up run of each, not counted */
        time_model(&models[j]);
    for (int r = 0; r < ROUNDS; r++)
        for (unsigned i = 0; i < SWEEP_JOBS; i++) {
            unsigned j = round_job(r, i, SWEEP_JOBS);
            t[j][P_ONE][r] = time_model(&models[j]);
        }
    set_threads(P_THREADS, blas_threads, model_env);

    const struct spec *sp = &models[1].s;
    format_alignments(&models[0], classes, sizeof classes);
    printf("spread: %ux%ux%u -> %ux%ux%u, %ux%u, nv_full, exponent fields drawn from W fields "
           "centred in 0..30; %d rounds on 1 thread, alternating order; each W's rate as a ratio "
           "to the bench layer's fp16 rate by CPU time, paired within its round; information, "
           "not a target\n",
           sp->w, sp->h, sp->c, spec_ow(sp), spec_oh(sp), sp->k, sp->kw, sp->kh, ROUNDS);
    printf("spread: the bench layer, %.1f ms CPU; products aligned %s\n",
           times(t, 0, P_ONE, true).median * 1e3, classes);
    for (unsigned j = 1; j < SWEEP_JOBS; j++) {
        const struct model *md = &models[j];
        unsigned width = sweep_widths[j - 1], lo = (FP16_EXPONENTS - width) / 2;
        struct spread ratio = rate_ratio(t, macs, j, 0, P_ONE, true);
        format_alignments(md, classes, sizeof classes);
        printf("spread: W %2u (fields %2u..%2u): %.3f x the bench layer's fp16 rate [%.3f-%.3f], "
               "%.2f ms CPU; %s: %llu of %u outputs x %llu runs differ; products aligned %s\n",
               width, lo, lo + width - 1, ratio.median, ratio.lo, ratio.hi,
               times(t, j, P_ONE, true).median * 1e3, check_verdict(md),
               (unsigned long long)md->bad, md->s.k * spec_ow(&md->s) * spec_oh(&md->s),
               (unsigned long long)md->runs, classes);
    }
    for (unsigned j = 0; j < SWEEP_JOBS; j++)
        model_free(&models[j]);
    free(model_env);
}
