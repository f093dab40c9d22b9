/* CDP: local response normalisation through the whole model (LUT upload by
 * CSB, CDP_RDMA reads, datapath, write DMA, statistics registers) against a
 * plain reference written here: input convertor, sum of squares over the
 * local window, a two-table linear LUT with priorities, multiplier and
 * output convertor with the hardware's saturation flag. */
#include "post_harness.h"

#include "cdp/cdp_lrn.h"
#include "num/fp16.h"

/* ---------------------------------------------------------------- reference */

struct lrn_case {
    const char *config;
    int precision; /* 0 int8, 1 int16, 2 fp16 */
    unsigned w, h, c;
    unsigned local; /* 3, 5, 7, 9 */
    int in_offset, in_scale, in_shift;
    int out_offset, out_scale, out_shift;
    bool sqsum_bypass, mul_bypass;
    int le_sel, lo_sel; /* LUT index selects (linear tables from 0) */
};

struct lut_tables {
    int16_t le[65], lo[257];
};

static int64_t rha(int64_t a, int s)
{
    if (s == 0)
        return a;
    int64_t m = a < 0 ? -a : a;
    int64_t q = (m + ((int64_t)1 << (s - 1))) >> s;
    return a < 0 ? -q : q;
}

static int64_t clamp(int64_t v, int bits)
{
    int64_t max = ((int64_t)1 << (bits - 1)) - 1;
    return v > max ? max : v < -max - 1 ? -max - 1 : v;
}

static int64_t ref_in(const struct lrn_case *lc, int64_t raw)
{
    int bits = lc->precision == 0 ? 9 : 17;
    int64_t off = lc->precision == 0 ? (int8_t)lc->in_offset : (int16_t)lc->in_offset;
    return clamp(rha((raw - off) * lc->in_scale, lc->in_shift), bits);
}

/* One linear table from 0 with slopes 0: -1 below, 1 above, 0 inside. */
static int64_t ref_table(const int16_t *t, int n, int sel, int64_t x, int *cls)
{
    if (x <= 0) {
        *cls = -1;
        return t[0];
    }
    int64_t i = x >> sel;
    if (i >= n - 1) {
        *cls = 1;
        return t[n - 1];
    }
    *cls = 0;
    int64_t low = x & (((int64_t)1 << sel) - 1);
    int64_t frac16 = sel > 16 ? low >> (sel - 16) : low << (16 - sel);
    return clamp(t[i] + rha(((int64_t)t[i + 1] - t[i]) * frac16, 16), 16);
}

struct ref_stats {
    uint64_t uflow, oflow, hybrid, le_hit, lo_hit, saturated;
};

/* Priorities all LE (register 0). */
static int64_t ref_lut(const struct lrn_case *lc, const struct lut_tables *t, int64_t x,
                       struct ref_stats *st)
{
    int a, b;
    int64_t le = ref_table(t->le, 65, lc->le_sel, x, &a);
    int64_t lo = ref_table(t->lo, 257, lc->lo_sel, x, &b);
    if (a == -1 && b == -1) {
        st->uflow++;
        return le;
    }
    if (a == 1 && b == 1) {
        st->oflow++;
        return le;
    }
    if ((a == 0) != (b == 0)) {
        if (a == 0)
            st->le_hit++;
        else
            st->lo_hit++;
        return a == 0 ? le : lo;
    }
    st->hybrid++;
    return le;
}

static int64_t ref_out(const struct lrn_case *lc, int64_t y, struct ref_stats *st)
{
    int bits = lc->precision == 0 ? 8 : 16;
    /* int8 takes the offset's low 25 bits, sign-extended */
    int64_t low25 = (int64_t)((uint32_t)lc->out_offset & 0x1ffffffu);
    int64_t off =
        lc->precision == 0 ? (low25 >= (1 << 24) ? low25 - (1 << 25) : low25) : lc->out_offset;
    int64_t p = (y - off) * lc->out_scale;
    int64_t r = rha(p, lc->out_shift), out = clamp(r, bits);
    /* the hardware flags a saturation when the truncated quotient is more
     * than one away from the output */
    int64_t t = p >> lc->out_shift;
    if (t - out > 1 || out - t > 1)
        st->saturated++;
    return out;
}

/* Normalise channel vector raw[0..c) (whole atoms: n_pad channels). */
static void ref_vector(const struct lrn_case *lc, const struct lut_tables *t, const int64_t *raw,
                       unsigned n_pad, int64_t *out, struct ref_stats *st)
{
    int64_t conv[512];
    for (unsigned i = 0; i < n_pad; i++)
        conv[i] = i < lc->c ? ref_in(lc, raw[i]) : 0;
    int half = (int)lc->local / 2;
    for (unsigned ch = 0; ch < n_pad; ch++) {
        int64_t sum = 0;
        if (lc->sqsum_bypass)
            sum = conv[ch];
        else
            for (int j = -half; j <= half; j++)
                if ((int)ch + j >= 0 && (int)ch + j < (int)n_pad)
                    sum += conv[ch + j] * conv[ch + j];
        int64_t y = ref_lut(lc, t, sum, st);
        out[ch] = ref_out(lc, lc->mul_bypass ? y : y * conv[ch], st);
    }
}

/* ---------------------------------------------------------------- programming */

#define SRC 0x80000000ull
#define DST 0x82000000ull

static void upload(struct harness *h, const struct lrn_case *lc, const struct lut_tables *t)
{
    wr(h, "CDP.S_LUT_ACCESS_CFG", 0x20000);
    for (int i = 0; i < 65; i++)
        wr(h, "CDP.S_LUT_ACCESS_DATA", (uint16_t)t->le[i]);
    wr(h, "CDP.S_LUT_ACCESS_CFG", 0x30000);
    for (int i = 0; i < 257; i++)
        wr(h, "CDP.S_LUT_ACCESS_DATA", (uint16_t)t->lo[i]);
    wr(h, "CDP.S_LUT_CFG", 1); /* LE linear, every priority LE */
    wr(h, "CDP.S_LUT_INFO.LUT_LE_INDEX_SELECT", (uint32_t)lc->le_sel);
    wr(h, "CDP.S_LUT_INFO.LUT_LO_INDEX_SELECT", (uint32_t)lc->lo_sel);
    uint64_t le_end = (uint64_t)64 << lc->le_sel, lo_end = (uint64_t)256 << lc->lo_sel;
    wr(h, "CDP.S_LUT_LE_END_LOW", (uint32_t)le_end);
    wr(h, "CDP.S_LUT_LE_END_HIGH", (uint32_t)(le_end >> 32));
    wr(h, "CDP.S_LUT_LO_END_LOW", (uint32_t)lo_end);
    wr(h, "CDP.S_LUT_LO_END_HIGH", (uint32_t)(lo_end >> 32));
}

struct geometry {
    unsigned atom, bpe, cpa, surfaces;
    uint64_t line, surf;
};

static struct geometry geometry_of(struct harness *h, const struct lrn_case *lc)
{
    struct geometry g;
    g.atom = dla_cfg(h->d)->mem_atom;
    g.bpe = lc->precision == 0 ? 1 : 2;
    g.cpa = g.atom / g.bpe;
    g.surfaces = (lc->c + g.cpa - 1) / g.cpa;
    g.line = (uint64_t)(lc->w + 2) * g.atom;
    g.surf = g.line * (lc->h + 1);
    return g;
}

static void program(struct harness *h, const struct lrn_case *lc, const struct geometry *g)
{
    wr(h, "CDP_RDMA.D_DATA_CUBE_WIDTH", lc->w - 1);
    wr(h, "CDP_RDMA.D_DATA_CUBE_HEIGHT", lc->h - 1);
    wr(h, "CDP_RDMA.D_DATA_CUBE_CHANNEL", lc->c - 1);
    wr(h, "CDP_RDMA.D_SRC_BASE_ADDR_LOW", (uint32_t)SRC);
    wr(h, "CDP_RDMA.D_SRC_LINE_STRIDE", (uint32_t)g->line);
    wr(h, "CDP_RDMA.D_SRC_SURFACE_STRIDE", (uint32_t)g->surf);
    wr(h, "CDP_RDMA.D_SRC_DMA_CFG", 1);
    wr(h, "CDP_RDMA.D_DATA_FORMAT", (uint32_t)lc->precision);
    wr(h, "CDP.D_FUNC_BYPASS.SQSUM_BYPASS", lc->sqsum_bypass);
    wr(h, "CDP.D_FUNC_BYPASS.MUL_BYPASS", lc->mul_bypass);
    wr(h, "CDP.D_DST_BASE_ADDR_LOW", (uint32_t)DST);
    wr(h, "CDP.D_DST_LINE_STRIDE", (uint32_t)g->line);
    wr(h, "CDP.D_DST_SURFACE_STRIDE", (uint32_t)g->surf);
    wr(h, "CDP.D_DST_DMA_CFG", 1);
    wr(h, "CDP.D_DATA_FORMAT", (uint32_t)lc->precision);
    wr(h, "CDP.D_LRN_CFG", (lc->local - 3) / 2);
    wr(h, "CDP.D_DATIN_OFFSET", (uint32_t)lc->in_offset & 0xffff);
    wr(h, "CDP.D_DATIN_SCALE", (uint32_t)lc->in_scale & 0xffff);
    wr(h, "CDP.D_DATIN_SHIFTER", (uint32_t)lc->in_shift);
    wr(h, "CDP.D_DATOUT_OFFSET", (uint32_t)lc->out_offset);
    wr(h, "CDP.D_DATOUT_SCALE", (uint32_t)lc->out_scale & 0xffff);
    wr(h, "CDP.D_DATOUT_SHIFTER", (uint32_t)lc->out_shift);
}

static int64_t load(const uint8_t *p, unsigned bpe)
{
    return bpe == 1 ? (int8_t)p[0] : (int16_t)(uint16_t)(p[0] | p[1] << 8);
}

/* ---------------------------------------------------------------- running a case */

/* Runs the case; returns the saturations the reference counted. */
static uint64_t check_case(const struct lrn_case *lc)
{
    struct harness *h = harness_new(lc->config);
    struct geometry g = geometry_of(h, lc);
    size_t bytes = g.surf * g.surfaces;
    uint8_t *src = malloc(bytes), *dst = malloc(bytes);
    assert_non_null(src);
    assert_non_null(dst);
    uint32_t seed = lc->w * 7u + lc->c * 131u + lc->local;
    for (size_t i = 0; i < bytes; i++)
        src[i] = (uint8_t)harness_rand(&seed);
    memset(dst, 0xee, bytes);
    mem_put(h, SRC, src, bytes);
    mem_put(h, DST, dst, bytes);
    struct lut_tables t;
    for (int i = 0; i < 65; i++)
        t.le[i] = (int16_t)(harness_rand(&seed) & 0x3fff);
    for (int i = 0; i < 257; i++)
        t.lo[i] = (int16_t)((int)(harness_rand(&seed) & 0x7fff) - 0x4000);
    upload(h, lc, &t);
    program(h, lc, &g);
    harness_enable_and_run(h, "CDP");
    harness_expect_clean_layer(h);
    mem_get(h, DST, dst, bytes);

    unsigned n_pad = g.surfaces * g.cpa;
    int64_t raw[512], want[512];
    assert_true(n_pad <= 512);
    struct ref_stats st = {0};
    for (unsigned y = 0; y < lc->h; y++) {
        for (unsigned x = 0; x < lc->w; x++) {
            for (unsigned ch = 0; ch < n_pad; ch++)
                raw[ch] =
                    load(src + feature_offset(ch, y, x, g.line, g.surf, g.atom, g.bpe), g.bpe);
            ref_vector(lc, &t, raw, n_pad, want, &st);
            for (unsigned ch = 0; ch < n_pad; ch++) {
                int64_t got =
                    load(dst + feature_offset(ch, y, x, g.line, g.surf, g.atom, g.bpe), g.bpe);
                if (got != want[ch])
                    fail_msg("x%u y%u c%u: want %lld got %lld", x, y, ch, (long long)want[ch],
                             (long long)got);
            }
        }
        /* the gap atoms after each line stay untouched */
        for (unsigned s = 0; s < g.surfaces; s++)
            assert_int_equal(dst[s * g.surf + y * g.line + lc->w * g.atom], 0xee);
    }
    /* statistics registers of the group, and the published layer figures */
    assert_int_equal(rd(h, "CDP.D_PERF_LUT_UFLOW"), st.uflow);
    assert_int_equal(rd(h, "CDP.D_PERF_LUT_OFLOW"), st.oflow);
    assert_int_equal(rd(h, "CDP.D_PERF_LUT_HYBRID"), st.hybrid);
    assert_int_equal(rd(h, "CDP.D_PERF_LUT_LE_HIT"), st.le_hit);
    assert_int_equal(rd(h, "CDP.D_PERF_LUT_LO_HIT"), st.lo_hit);
    assert_int_equal(rd(h, "CDP.D_OUT_SATURATION"), st.saturated);
    assert_int_equal(h->n_lut, 1);
    assert_int_equal(h->lut.lookups, (uint64_t)lc->w * lc->h * n_pad);
    assert_int_equal(h->lut.le_hit, st.le_hit);
    assert_int_equal(h->lut.underflow, st.uflow);
    free(src);
    free(dst);
    harness_free(h);
    return st.saturated;
}

/* ---------------------------------------------------------------- tests */

static void test_local_sizes_int8(void **state)
{
    (void)state;
    for (unsigned local = 3; local <= 9; local += 2) {
        struct lrn_case small = {"nv_small", 0,   5, 3, 19,    local, 3, 5,
                                 2,          -20, 3, 6, false, false, 6, 4};
        check_case(&small);
        struct lrn_case full = {"nv_full", 0,    4, 3, 70,    local, -2, 1,
                                0,         1000, 1, 9, false, false, 8,  6};
        check_case(&full);
    }
}

static void test_int16(void **state)
{
    (void)state;
    for (unsigned local = 3; local <= 9; local += 2) {
        struct lrn_case lc = {"nv_full", 1,     3, 2,  37,    local, 100, 3,
                              6,         -5000, 7, 17, false, false, 22,  20};
        check_case(&lc);
    }
}

/* Input and output convertors, including heavy output saturation. */
static void test_convertors_and_saturation(void **state)
{
    (void)state;
    static const struct lrn_case cases[] = {
        {"nv_small", 0, 6, 2, 16, 5, -128, -7, 3, 0, 1, 0, false, false, 5, 3},
        {"nv_small", 0, 6, 2, 16, 3, 127, 300, 0, 0x1ffffff, 1000, 2, false, false, 10, 8},
        {"nv_small", 0, 3, 3, 8, 9, 0, 1, 0, -3000000, 30000, 20, false, false, 12, 10},
        {"nv_full", 1, 3, 2, 20, 5, -32768, 2, 1, 7, -3, 3, false, false, 28, 26},
    };
    uint64_t saturated = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        saturated += check_case(&cases[i]);
    assert_true(saturated > 100); /* the counter was exercised */
}

static void test_bypasses(void **state)
{
    (void)state;
    static const struct lrn_case cases[] = {
        {"nv_small", 0, 4, 2, 12, 3, 1, 1, 0, 0, 1, 4, true, false, 1, 0},
        {"nv_small", 0, 4, 2, 12, 7, 1, 1, 0, 0, 1, 4, false, true, 8, 7},
        {"nv_small", 0, 4, 2, 12, 9, 1, 1, 0, 0, 1, 4, true, true, 2, 0},
        {"nv_full", 1, 2, 2, 16, 5, 0, 1, 0, 0, 1, 8, true, false, 4, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i]);
}

/* Diagnostics: formats the configuration lacks, fp16, mismatched formats,
 * absurd sizes; the layer always completes. */
static void test_diagnostics(void **state)
{
    (void)state;
    struct harness *h = harness_new("nv_small");
    wr(h, "CDP.D_DATA_FORMAT", 1); /* int16 on an int8-only config */
    harness_enable_and_run(h, "CDP");
    harness_expect_diag_and_done(h, "cdp.precision", 0);
    harness_free(h);

    h = harness_new("nv_full");
    wr(h, "CDP.D_DATA_FORMAT", 2);
    wr(h, "CDP_RDMA.D_DATA_FORMAT", 0);
    harness_enable_and_run(h, "CDP");
    harness_expect_diag_and_done(h, "cdp.rdma_format", 0);
    harness_free(h);

    h = harness_new("nv_full");
    wr(h, "CDP.D_DATA_FORMAT", 0);
    wr(h, "CDP_RDMA.D_DATA_FORMAT", 0);
    wr(h, "CDP_RDMA.D_DATA_CUBE_WIDTH", 0x1fff);
    wr(h, "CDP_RDMA.D_DATA_CUBE_HEIGHT", 0x1fff);
    wr(h, "CDP_RDMA.D_DATA_CUBE_CHANNEL", 0x1fff);
    harness_enable_and_run(h, "CDP");
    harness_expect_diag_and_done(h, NULL, DLA_DIAG_UNSUPPORTED);
    harness_free(h);

    /* reading outside memory: a memory diagnostic, no crash */
    h = harness_new("nv_small");
    wr(h, "CDP.D_DATA_FORMAT", 0);
    wr(h, "CDP_RDMA.D_SRC_BASE_ADDR_LOW", 0xfffffff0u);
    wr(h, "CDP_RDMA.D_SRC_DMA_CFG", 1);
    wr(h, "CDP_RDMA.D_DATA_CUBE_WIDTH", 100);
    wr(h, "CDP.D_DST_DMA_CFG", 1);
    harness_enable_and_run(h, "CDP");
    assert_true(harness_count(h, NULL, DLA_DIAG_MEM) >= 1);
    assert_int_equal(h->n_done, 1);
    harness_free(h);
}

/* ---------------------------------------------------------------- fp16 */

/* fp16 LRN with data chosen so that every step is exact in the hardware's
 * float formats: inputs are small integers, the LE table underflows for
 * every non-zero sum (start 10000), the LO table covers (0, 512) in steps
 * of two with integer entries, so a sum s gives lo[s/2] or the mean of two
 * neighbours; a zero sum underflows both tables and gives le[0]. */
static void check_fp16_cube(unsigned local, bool sqsum_bypass, bool mul_bypass, unsigned c,
                            unsigned w, unsigned hgt)
{
    struct harness *h = harness_new("nv_full");
    struct lrn_case lc = {"nv_full", 2, w, hgt,          c,          local, 0, 1, 0,
                          0,         1, 0, sqsum_bypass, mul_bypass, 0,     1};
    struct geometry g = geometry_of(h, &lc);
    size_t bytes = g.surf * g.surfaces;
    uint8_t *src = malloc(bytes), *dst = malloc(bytes);
    assert_non_null(src);
    assert_non_null(dst);
    uint32_t seed = local * 3u + c;
    for (size_t i = 0; i + 1 < bytes; i += 2) {
        int v = (int)(harness_rand(&seed) % 15) - 7;
        uint16_t hb = fp16_from_float(sqsum_bypass ? (float)(v < 0 ? -v : v) : (float)v);
        src[i] = (uint8_t)hb;
        src[i + 1] = (uint8_t)(hb >> 8);
    }
    memset(dst, 0xee, bytes);
    mem_put(h, SRC, src, bytes);
    mem_put(h, DST, dst, bytes);
    int16_t lo[257];
    for (int i = 0; i < 257; i++)
        lo[i] = (int16_t)((int)(harness_rand(&seed) % 201) - 100);
    wr(h, "CDP.S_LUT_ACCESS_CFG", 0x20000);
    for (int i = 0; i < 65; i++)
        wr(h, "CDP.S_LUT_ACCESS_DATA", fp16_from_float(i == 0 ? 3.0f : 1000.0f));
    wr(h, "CDP.S_LUT_ACCESS_CFG", 0x30000);
    for (int i = 0; i < 257; i++)
        wr(h, "CDP.S_LUT_ACCESS_DATA", fp16_from_float((float)lo[i]));
    wr(h, "CDP.S_LUT_CFG", 1);
    wr(h, "CDP.S_LUT_INFO.LUT_LO_INDEX_SELECT", 1);
    wr(h, "CDP.S_LUT_LE_START_LOW", f32_bits(10000.0f));
    wr(h, "CDP.S_LUT_LE_END_LOW", f32_bits(20000.0f));
    wr(h, "CDP.S_LUT_LO_START_LOW", f32_bits(0.0f));
    wr(h, "CDP.S_LUT_LO_END_LOW", f32_bits(512.0f));
    program(h, &lc, &g);
    harness_enable_and_run(h, "CDP");
    harness_expect_no_diags(h);
    mem_get(h, DST, dst, bytes);

    unsigned n_pad = g.surfaces * g.cpa;
    int half = (int)local / 2;
    uint64_t uflow = 0, lo_hit = 0;
    for (unsigned y = 0; y < lc.h; y++)
        for (unsigned x = 0; x < lc.w; x++) {
            float v[64];
            for (unsigned ch = 0; ch < n_pad; ch++) {
                uint64_t o = feature_offset(ch, y, x, g.line, g.surf, g.atom, 2);
                v[ch] = ch < c ? fp16_to_float((uint16_t)(src[o] | src[o + 1] << 8)) : 0.0f;
            }
            for (unsigned ch = 0; ch < n_pad; ch++) {
                float sum = 0;
                if (sqsum_bypass)
                    sum = v[ch];
                else
                    for (int j = -half; j <= half; j++)
                        if ((int)ch + j >= 0 && (int)ch + j < (int)n_pad)
                            sum += v[ch + j] * v[ch + j];
                float l;
                if (sum <= 0) {
                    l = 3.0f;
                    uflow++;
                } else {
                    int i = (int)sum / 2;
                    l = (int)sum % 2 ? (lo[i] + lo[i + 1]) / 2.0f : (float)lo[i];
                    lo_hit++;
                }
                float want = mul_bypass ? l : l * v[ch];
                uint64_t o = feature_offset(ch, y, x, g.line, g.surf, g.atom, 2);
                uint16_t got = (uint16_t)(dst[o] | dst[o + 1] << 8);
                if (fp16_to_float(got) != want)
                    fail_msg("x%u y%u c%u: want %g got %g", x, y, ch, (double)want,
                             (double)fp16_to_float(got));
            }
        }
    assert_int_equal(rd(h, "CDP.D_PERF_LUT_UFLOW"), uflow);
    assert_int_equal(rd(h, "CDP.D_PERF_LUT_LO_HIT"), lo_hit);
    assert_int_equal(rd(h, "CDP.D_OUT_SATURATION"), 0);
    free(src);
    free(dst);
    harness_free(h);
}

static void check_fp16(unsigned local, bool sqsum_bypass, bool mul_bypass, unsigned c)
{
    check_fp16_cube(local, sqsum_bypass, mul_bypass, c, 3, 2);
}

static void test_fp16(void **state)
{
    (void)state;
    for (unsigned local = 3; local <= 9; local += 2)
        check_fp16(local, false, false, 20);
    check_fp16(5, false, true, 16);
    check_fp16(3, true, false, 9);
}

/* fp16 NaN/Inf counters; a NaN input flushed to zero on request, or
 * passed through the bypassed multiplier. */
static void test_fp16_nan_inf(void **state)
{
    (void)state;
    for (int flush = 0; flush < 2; flush++) {
        struct harness *h = harness_new("nv_full");
        struct lrn_case lc = {"nv_full", 2, 1, 1, 16, 3, 0, 1, 0, 0, 1, 0, false, true, 0, 0};
        struct geometry g = geometry_of(h, &lc);
        uint16_t src[16];
        for (int i = 0; i < 16; i++)
            src[i] = 0x3c00;
        src[2] = 0x7e00;  /* NaN */
        src[5] = 0xfc00;  /* -Inf */
        src[9] = 0x7c00;  /* +Inf */
        src[11] = 0x7d00; /* NaN */
        mem_put(h, SRC, src, sizeof src);
        program(h, &lc, &g);
        wr(h, "CDP.D_NAN_FLUSH_TO_ZERO", (uint32_t)flush);
        harness_enable_and_run(h, "CDP");
        assert_int_equal(rd(h, "CDP.D_NAN_INPUT_NUM"), 2);
        assert_int_equal(rd(h, "CDP.D_INF_INPUT_NUM"), 2);
        uint16_t out[16];
        mem_get(h, DST, out, sizeof out);
        /* multiplier bypassed: a NaN input comes out as a NaN unless flushed */
        assert_int_equal(fp16_is_nan(out[2]), !flush);
        /* each NaN makes the sums of its local window (3 channels) NaN, and the
         * LUT passes NaN through its extrapolation: 2 x 3 NaN outputs */
        assert_int_equal(rd(h, "CDP.D_NAN_OUTPUT_NUM"), flush ? 0 : 6);
        harness_free(h);
    }
}

/* ---------------------------------------------------------------- fp16 fast paths */

static uint32_t fast_rng = 0x2545f491u;

static uint32_t rand32(void)
{
    fast_rng ^= fast_rng << 13;
    fast_rng ^= fast_rng >> 17;
    fast_rng ^= fast_rng << 5;
    return fast_rng;
}

/* fp16 data: mostly values near 1 (sums that land in the tables), any
 * pattern, and zeros, subnormals, infinities and NaNs. */
static uint16_t random_fp16_input(void)
{
    static const uint16_t special[] = {0x0000, 0x8000, 0x0001, 0x03ff, 0x7bff, 0xfbff,
                                       0x7c00, 0xfc00, 0x7e00, 0xfd01, 0x3c00, 0x0400};
    uint32_t r = rand32();
    if (r % 16 == 0)
        return special[(r >> 8) % (sizeof special / sizeof special[0])];
    if (r % 3 == 0)
        return (uint16_t)(r >> 16);
    return (uint16_t)((r >> 16) & 0x83ffu) | (uint16_t)((10u + (r >> 4) % 10u) << 10);
}

/* Every fp16 input's fp17 and fp32 forms and square as the datapath takes
 * them (field moves and a binary32 square for normal inputs) equal the
 * reference tables. */
static void test_fp16_inputs_match_reference(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x10000; h++) {
        uint32_t a[3], b[3];
        cdp_fp_input((uint16_t)h, &a[0], &a[1], &a[2]);
        cdp_fp_input_reference((uint16_t)h, &b[0], &b[1], &b[2]);
        if (memcmp(a, b, sizeof a) != 0)
            fail_msg("fp16 0x%04x: 0x%05x 0x%08x 0x%08x, reference 0x%05x 0x%08x 0x%08x", h, a[0],
                     a[1], a[2], b[0], b[1], b[2]);
    }
}

/* A whole fp16 channel vector through the four-lane pipeline (window sums,
 * the LUT prepared for the layer, product and narrowing) against the
 * reference pipeline (element by element, the reference lookup): the
 * outputs and every statistic, for random LUTs (both LE modes, linear
 * tables over the sums' range), windows, bypasses and NaN flushing. */
static void test_fp16_prepared_lut_matches_reference(void **state)
{
    (void)state;
    enum { N = 64 };
    int32_t raw[N], out_fast[N], out_ref[N], scratch[CDP_LRN_SCRATCH(N)];
    uint64_t hits = 0, under = 0, over = 0;
    for (int layer = 0; layer < 300; layer++) {
        struct dla_lut_ram ram;
        memset(&ram, 0, sizeof ram);
        for (int i = 0; i < 65; i++)
            ram.le[i] = random_fp16_input();
        for (int i = 0; i < 257; i++)
            ram.lo[i] = random_fp16_input();
        struct cdp_lrn_cfg c;
        memset(&c, 0, sizeof c);
        uint32_t bits = rand32();
        c.fp16 = true;
        c.nan_to_zero = bits & 1;
        c.half_window = 1 + (bits >> 1) % 4;
        c.sqsum_bypass = (bits >> 3) % 8 == 0;
        c.mul_bypass = (bits >> 6) % 8 == 0;
        c.lut = &ram;
        c.lut_cfg.fp = true;
        c.lut_cfg.le_linear = bits & 512;
        c.lut_cfg.uflow_lo = bits & 1024;
        c.lut_cfg.oflow_lo = bits & 2048;
        c.lut_cfg.hybrid_lo = bits & 4096;
        c.lut_cfg.le_index_offset = (uint8_t)(rand32() % 16 - 8);
        c.lut_cfg.le_index_select = (uint8_t)(rand32() % 12 - 4);
        c.lut_cfg.lo_index_select = (uint8_t)(rand32() % 12 - 4);
        c.lut_cfg.le_start = f32_bits((float)(rand32() % 8) - 2.0f);
        c.lut_cfg.le_end = f32_bits(64.0f);
        c.lut_cfg.lo_start = f32_bits((float)(rand32() % 4) * 0.5f);
        c.lut_cfg.lo_end = f32_bits(32.0f);
        c.lut_cfg.le_uflow_scale = (int16_t)random_fp16_input();
        c.lut_cfg.le_oflow_scale = (int16_t)random_fp16_input();
        c.lut_cfg.lo_uflow_scale = (int16_t)random_fp16_input();
        c.lut_cfg.lo_oflow_scale = (int16_t)random_fp16_input();
        struct lut_cdp_fp prepared;
        lut_cdp_fp_prepare(&ram, &c.lut_cfg, &prepared);
        struct cdp_lrn_cfg fast = c;
        fast.lut_fp = &prepared;
        struct dla_lut_stats s_fast, s_ref;
        lut_stats_begin(&s_fast);
        lut_stats_begin(&s_ref);
        for (int v = 0; v < 40; v++) {
            unsigned valid = N - rand32() % 8;
            for (int i = 0; i < N; i++)
                raw[i] = random_fp16_input();
            cdp_lrn_vector(&fast, raw, N, valid, out_fast, scratch, &s_fast);
            cdp_lrn_vector(&c, raw, N, valid, out_ref, scratch, &s_ref);
            assert_memory_equal(out_fast, out_ref, sizeof out_ref);
        }
        assert_memory_equal(&s_fast, &s_ref, sizeof s_ref);
        hits += s_ref.le_hit + s_ref.lo_hit + s_ref.hybrid;
        under += s_ref.le_underflow + s_ref.lo_underflow;
        over += s_ref.le_overflow + s_ref.lo_overflow;
    }
    /* the sums reached every part of the tables */
    assert_true(hits > 50000 && under > 50000 && over > 50000);
}

/* The eight-at-a-time fp16 NaN/Inf count against the element-by-element
 * one, on buffers of every length up to a few blocks (odd ones included),
 * specials at random places, with and without an infinity counter. */
static void test_fp16_special_count_matches_scalar(void **state)
{
    (void)state;
    enum { MAX = 1200 };
    uint8_t buf[MAX];
    for (size_t len = 0; len <= MAX; len += 1 + len / 16) {
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)rand32();
        for (size_t i = 0; i + 1 < len; i += 2)
            if (rand32() % 4 == 0) {
                uint16_t h = rand32() % 2 ? 0x7c00 : (uint16_t)(0x7c00 | (rand32() & 0x83ffu));
                buf[i] = (uint8_t)h;
                buf[i + 1] = (uint8_t)(h >> 8);
            }
        for (size_t off = 0; off < 3 && off <= len; off++) {
            uint64_t nan = 5, inf = 7, nan_ref = 5, inf_ref = 7, nan_only = 0, nan_only_ref = 0;
            feature_count_fp16_specials(buf + off, len - off, &nan, &inf);
            feature_count_fp16_specials_scalar(buf + off, len - off, &nan_ref, &inf_ref);
            feature_count_fp16_specials(buf + off, len - off, &nan_only, NULL);
            feature_count_fp16_specials_scalar(buf + off, len - off, &nan_only_ref, NULL);
            assert_int_equal(nan, nan_ref);
            assert_int_equal(inf, inf_ref);
            assert_int_equal(nan_only, nan_only_ref);
        }
    }
    /* a buffer long enough for the lane counts to be summed mid-way */
    size_t big = (size_t)16 * 0xffff * 2 + 10;
    uint8_t *b = malloc(big);
    assert_non_null(b);
    for (size_t i = 0; i < big; i += 2) {
        b[i] = 0x00;
        b[i + 1] = (i / 2) % 3 == 0 ? 0x7c : (i / 2) % 3 == 1 ? 0xfe : 0x3c;
    }
    uint64_t nan = 0, inf = 0, nan_ref = 0, inf_ref = 0;
    feature_count_fp16_specials(b, big, &nan, &inf);
    feature_count_fp16_specials_scalar(b, big, &nan_ref, &inf_ref);
    assert_int_equal(nan, nan_ref);
    assert_int_equal(inf, inf_ref);
    free(b);
}

/* Every configuration normalises (int8); CV-SRAM where there is one. */
static void test_all_configurations(void **state)
{
    (void)state;
    size_t n;
    const struct dla_config *all = dla_config_all(&n);
    for (size_t i = 0; i < n; i++) {
        struct lrn_case lc = {all[i].name, 0, 3, 2, 21, 5, 1, 3, 1, -7, 5, 8, false, false, 7, 5};
        check_case(&lc);
    }
}

/* Source and destination in CV-SRAM give the same cube as in DRAM. */
static void test_cvsram(void **state)
{
    (void)state;
    uint8_t out[2][8 * 32];
    for (int cv = 0; cv < 2; cv++) {
        struct harness *h = harness_new("nv_full");
        struct lrn_case lc = {"nv_full", 0, 8, 1, 32, 3, 0, 1, 0, 0, 1, 7, false, false, 8, 6};
        struct geometry g = geometry_of(h, &lc);
        g.line = 8 * 32;
        g.surf = g.line;
        uint8_t src[8 * 32];
        uint32_t seed = 77;
        for (size_t i = 0; i < sizeof src; i++)
            src[i] = (uint8_t)harness_rand(&seed);
        enum dla_space sp = cv ? DLA_CVSRAM : DLA_DRAM;
        assert_int_equal(dla_mem_write(h->d, sp, SRC, src, sizeof src), MEM_OK);
        program(h, &lc, &g);
        wr(h, "CDP_RDMA.D_SRC_DMA_CFG", cv ? 0 : 1);
        wr(h, "CDP.D_DST_DMA_CFG", cv ? 0 : 1);
        harness_enable_and_run(h, "CDP");
        assert_int_equal(h->n_diags, 0);
        assert_int_equal(dla_mem_read(h->d, sp, DST, out[cv], sizeof out[cv]), MEM_OK);
        harness_free(h);
    }
    assert_memory_equal(out[0], out[1], sizeof out[0]);

    /* nv_small has no CV-SRAM: selecting it is reported (DRAM is used) */
    struct harness *h = harness_new("nv_small");
    struct lrn_case lc = {"nv_small", 0, 2, 1, 8, 3, 0, 1, 0, 0, 1, 7, false, false, 8, 6};
    struct geometry g = geometry_of(h, &lc);
    program(h, &lc, &g);
    wr(h, "CDP_RDMA.D_SRC_DMA_CFG", 0);
    harness_enable_and_run(h, "CDP");
    harness_expect_diag_and_done(h, NULL, DLA_DIAG_FEATURE_ABSENT);
    harness_free(h);
}

/* Lines go through in chunks split across workers: with three workers,
 * cubes of several chunks (the last one short, down to two lines) give the
 * reference's outputs and statistics in every precision, and one worker
 * gives the same saturation count. */
static void test_threads(void **state)
{
    (void)state;
    setenv("DLADBG_THREADS", "3", 1);
    /* int8: 4 KB lines, 64 to a chunk; int16 and fp16: 3840-byte lines, 68 */
    struct lrn_case i8 = {"nv_full", 0, 64, 150, 64, 5, 1, 3, 1, -7, 5, 8, false, false, 7, 5};
    struct lrn_case i16 = {"nv_full", 1,     40, 70, 37,    5,     100, 3,
                           6,         -5000, 7,  17, false, false, 22,  20};
    uint64_t saturated = check_case(&i8);
    assert_true(saturated > 0);
    check_case(&i16);
    check_fp16_cube(5, false, false, 48, 40, 70);
    setenv("DLADBG_THREADS", "1", 1);
    assert_int_equal(check_case(&i8), saturated);
    unsetenv("DLADBG_THREADS");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_local_sizes_int8),
        cmocka_unit_test(test_int16),
        cmocka_unit_test(test_convertors_and_saturation),
        cmocka_unit_test(test_bypasses),
        cmocka_unit_test(test_all_configurations),
        cmocka_unit_test(test_cvsram),
        cmocka_unit_test(test_fp16),
        cmocka_unit_test(test_fp16_nan_inf),
        cmocka_unit_test(test_fp16_inputs_match_reference),
        cmocka_unit_test(test_fp16_special_count_matches_scalar),
        cmocka_unit_test(test_fp16_prepared_lut_matches_reference),
        cmocka_unit_test(test_diagnostics),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
