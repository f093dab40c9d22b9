/* PDP: every pooling mode against a plain reference written here (windows
 * over the padded input, maxima/minima over the real elements, averages as
 * (sum + padded taps * pad value) scaled twice by the programmed
 * reciprocals with round-half-away), run through the whole model: registers,
 * PDP_RDMA reads, the pooling datapath and the write DMA. */
#include "post_harness.h"

#include "core/dla_priv.h"
#include "num/fp16.h"
#include "num/fpnum.h"
#include "one_stage.h"
#include "pdp/pdp.h"
#include "pdp/pdp_pool.h"
#include "core/timing.h"

/* ---------------------------------------------------------------- reference */

struct pool_case {
    const char *config;
    int precision; /* 0 int8, 1 int16, 2 fp16 */
    int method;    /* 0 average, 1 max, 2 min */
    unsigned w, h, c;
    unsigned kw, kh, sw, sh;
    unsigned pl, pr, pt, pb;
    int pad; /* value of one padded tap (average) */
    unsigned splits;
};

static unsigned out_size(unsigned in, unsigned pa, unsigned pb, unsigned k, unsigned s)
{
    return (in + pa + pb - k) / s + 1;
}

/* n * r / 65536 rounded half away from zero, in integers. */
static int64_t ref_scale(int64_t n, uint32_t r)
{
    int64_t p = n * (int64_t)r;
    int64_t m = p < 0 ? -p : p;
    int64_t q = (m + 32768) / 65536;
    return p < 0 ? -q : q;
}

static uint32_t recip(unsigned k)
{
    return 0x10000u / k;
}

/* fp16 pooling takes its reciprocals and padding values as fp17 numbers. */
static uint32_t fp17_of(float v)
{
    return fpnum_fp32_to_fp17(f32_bits(v));
}

static uint32_t recip_reg(const struct pool_case *pc, unsigned k)
{
    return pc->precision == 2 ? fp17_of(1.0f / (float)k) : recip(k);
}

static uint32_t pad_reg(const struct pool_case *pc, unsigned n)
{
    return pc->precision == 2 ? fp17_of((float)(pc->pad * (int)n))
                              : (uint32_t)(pc->pad * (int)n) & 0x7ffffu;
}

/* fp16 reference: maxima/minima compare the numbers; average inputs are
 * small integers so that the sums are exact in any order, then scaled by
 * the fp17 reciprocals as the hardware scales them. */
static int32_t ref_fp16(const struct pool_case *pc, int64_t int_sum, float best)
{
    if (pc->method != 0)
        return (int16_t)fp16_from_float(best);
    uint32_t r = fpnum_fp32_to_fp17(f32_bits((float)int_sum));
    r = fp_mul(FP17, r, recip_reg(pc, pc->kw));
    r = fp_mul(FP17, r, recip_reg(pc, pc->kh));
    return (int16_t)fpnum_fp17_to_fp16(r);
}

/* One output element of one channel plane. */
static int32_t ref_window(const struct pool_case *pc, const int32_t *plane, unsigned ox,
                          unsigned oy)
{
    int64_t sum = 0;
    int32_t best = 0;
    float fbest = 0;
    unsigned real = 0;
    for (unsigned ty = 0; ty < pc->kh; ty++) {
        for (unsigned tx = 0; tx < pc->kw; tx++) {
            int y = (int)(oy * pc->sh + ty) - (int)pc->pt;
            int x = (int)(ox * pc->sw + tx) - (int)pc->pl;
            if (y < 0 || x < 0 || y >= (int)pc->h || x >= (int)pc->w)
                continue;
            int32_t v = plane[y * pc->w + x];
            if (pc->precision == 2) {
                float f = fp16_to_float((uint16_t)v);
                if (real == 0 || (pc->method == 1 && f > fbest) || (pc->method == 2 && f < fbest))
                    fbest = f;
                sum += (int64_t)f;
            } else if (real == 0 || (pc->method == 1 && v > best) ||
                       (pc->method == 2 && v < best)) {
                best = v;
            }
            if (pc->precision != 2)
                sum += v;
            real++;
        }
    }
    assert_true(real > 0);
    sum += (int64_t)(pc->kw * pc->kh - real) * pc->pad;
    if (pc->precision == 2)
        return ref_fp16(pc, sum, fbest);
    if (pc->method != 0)
        return best;
    int64_t r = ref_scale(ref_scale(sum, recip(pc->kw)), recip(pc->kh));
    return pc->precision == 0 ? (int8_t)r : (int16_t)r;
}

/* ---------------------------------------------------------------- layout */

struct layout {
    unsigned atom, bpe, cpa, surfaces;
    uint64_t line, surf;
};

static struct layout layout_of(struct harness *h, const struct pool_case *pc, unsigned w,
                               unsigned height)
{
    struct layout l;
    l.atom = dla_cfg(h->d)->mem_atom;
    l.bpe = pc->precision == 0 ? 1 : 2; /* int16 and fp16: two bytes */
    l.cpa = l.atom / l.bpe;
    l.surfaces = (pc->c + l.cpa - 1) / l.cpa;
    l.line = (uint64_t)(w + 1) * l.atom; /* one spare atom per line: strides are honoured */
    l.surf = l.line * (height + 1);
    return l;
}

static uint64_t offset_of(const struct layout *l, unsigned c, unsigned y, unsigned x)
{
    return feature_offset(c, y, x, l->line, l->surf, l->atom, l->bpe);
}

static int32_t get_elem(const uint8_t *mem, const struct layout *l, unsigned c, unsigned y,
                        unsigned x)
{
    const uint8_t *p = mem + offset_of(l, c, y, x);
    return l->bpe == 1 ? (int8_t)p[0] : (int16_t)(uint16_t)(p[0] | p[1] << 8);
}

/* ---------------------------------------------------------------- programming */

#define SRC 0x80000000ull
#define DST 0x81000000ull

struct split_plan {
    unsigned n, in_first, in_mid, in_last, out_first, out_mid, out_last;
};

/* Partial widths as a driver computes them from the output split. */
static struct split_plan plan_splits(const struct pool_case *pc, unsigned out_w)
{
    struct split_plan s = {.n = pc->splits};
    if (s.n <= 1)
        return s;
    s.out_mid = out_w / s.n;
    s.out_first = s.out_mid;
    s.out_last = out_w - s.out_first - s.out_mid * (s.n - 2);
    int overlap = (int)pc->kw - (int)pc->sw;
    s.in_first = (s.out_first - 1) * pc->sw + pc->kw - pc->pl;
    s.in_mid = (unsigned)((int)((s.out_mid - 1) * pc->sw + pc->kw) - overlap);
    s.in_last = (unsigned)((int)((s.out_last - 1) * pc->sw + pc->kw) - (int)pc->pr - overlap);
    return s;
}

static void program_rdma(struct harness *h, const struct pool_case *pc, const struct layout *l,
                         const struct split_plan *s)
{
    wr(h, "PDP_RDMA.D_DATA_CUBE_IN_WIDTH", pc->w - 1);
    wr(h, "PDP_RDMA.D_DATA_CUBE_IN_HEIGHT", pc->h - 1);
    wr(h, "PDP_RDMA.D_DATA_CUBE_IN_CHANNEL", pc->c - 1);
    wr(h, "PDP_RDMA.D_FLYING_MODE", 1);
    wr(h, "PDP_RDMA.D_SRC_BASE_ADDR_LOW", (uint32_t)SRC);
    wr(h, "PDP_RDMA.D_SRC_BASE_ADDR_HIGH", (uint32_t)(SRC >> 32));
    wr(h, "PDP_RDMA.D_SRC_LINE_STRIDE", (uint32_t)l->line);
    wr(h, "PDP_RDMA.D_SRC_SURFACE_STRIDE", (uint32_t)l->surf);
    wr(h, "PDP_RDMA.D_SRC_RAM_CFG", 1);
    wr(h, "PDP_RDMA.D_DATA_FORMAT", (uint32_t)pc->precision);
    wr(h, "PDP_RDMA.D_OPERATION_MODE_CFG", s->n > 1 ? s->n - 1 : 0);
    wr(h, "PDP_RDMA.D_POOLING_KERNEL_CFG.KERNEL_WIDTH", pc->kw - 1);
    wr(h, "PDP_RDMA.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_WIDTH", pc->sw - 1);
    wr(h, "PDP_RDMA.D_POOLING_PADDING_CFG", pc->pl);
    if (s->n > 1) {
        wr(h, "PDP_RDMA.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_FIRST", s->in_first - 1);
        wr(h, "PDP_RDMA.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_MID", s->in_mid - 1);
        wr(h, "PDP_RDMA.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_LAST", s->in_last - 1);
    }
}

static void program_pdp(struct harness *h, const struct pool_case *pc, const struct layout *in,
                        const struct layout *out, const struct split_plan *s, unsigned out_w,
                        unsigned out_h)
{
    static const char *const pads[7] = {
        "PDP.D_POOLING_PADDING_VALUE_1_CFG", "PDP.D_POOLING_PADDING_VALUE_2_CFG",
        "PDP.D_POOLING_PADDING_VALUE_3_CFG", "PDP.D_POOLING_PADDING_VALUE_4_CFG",
        "PDP.D_POOLING_PADDING_VALUE_5_CFG", "PDP.D_POOLING_PADDING_VALUE_6_CFG",
        "PDP.D_POOLING_PADDING_VALUE_7_CFG"};
    wr(h, "PDP.D_DATA_CUBE_IN_WIDTH", pc->w - 1);
    wr(h, "PDP.D_DATA_CUBE_IN_HEIGHT", pc->h - 1);
    wr(h, "PDP.D_DATA_CUBE_IN_CHANNEL", pc->c - 1);
    wr(h, "PDP.D_DATA_CUBE_OUT_WIDTH", out_w - 1);
    wr(h, "PDP.D_DATA_CUBE_OUT_HEIGHT", out_h - 1);
    wr(h, "PDP.D_DATA_CUBE_OUT_CHANNEL", pc->c - 1);
    wr(h, "PDP.D_OPERATION_MODE_CFG.POOLING_METHOD", (uint32_t)pc->method);
    wr(h, "PDP.D_OPERATION_MODE_CFG.FLYING_MODE", 1);
    wr(h, "PDP.D_OPERATION_MODE_CFG.SPLIT_NUM", s->n > 1 ? s->n - 1 : 0);
    if (s->n > 1) {
        wr(h, "PDP.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_FIRST", s->in_first - 1);
        wr(h, "PDP.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_MID", s->in_mid - 1);
        wr(h, "PDP.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_LAST", s->in_last - 1);
        wr(h, "PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_FIRST", s->out_first - 1);
        wr(h, "PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_MID", s->out_mid - 1);
        wr(h, "PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_LAST", s->out_last - 1);
    }
    wr(h, "PDP.D_POOLING_KERNEL_CFG.KERNEL_WIDTH", pc->kw - 1);
    wr(h, "PDP.D_POOLING_KERNEL_CFG.KERNEL_HEIGHT", pc->kh - 1);
    wr(h, "PDP.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_WIDTH", pc->sw - 1);
    wr(h, "PDP.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_HEIGHT", pc->sh - 1);
    wr(h, "PDP.D_RECIP_KERNEL_WIDTH", recip_reg(pc, pc->kw));
    wr(h, "PDP.D_RECIP_KERNEL_HEIGHT", recip_reg(pc, pc->kh));
    wr(h, "PDP.D_POOLING_PADDING_CFG.PAD_LEFT", pc->pl);
    wr(h, "PDP.D_POOLING_PADDING_CFG.PAD_RIGHT", pc->pr);
    wr(h, "PDP.D_POOLING_PADDING_CFG.PAD_TOP", pc->pt);
    wr(h, "PDP.D_POOLING_PADDING_CFG.PAD_BOTTOM", pc->pb);
    for (unsigned n = 1; n <= 7; n++)
        wr(h, pads[n - 1], pad_reg(pc, n));
    wr(h, "PDP.D_DST_BASE_ADDR_LOW", (uint32_t)DST);
    wr(h, "PDP.D_DST_BASE_ADDR_HIGH", (uint32_t)(DST >> 32));
    wr(h, "PDP.D_DST_LINE_STRIDE", (uint32_t)out->line);
    wr(h, "PDP.D_DST_SURFACE_STRIDE", (uint32_t)out->surf);
    wr(h, "PDP.D_DST_RAM_CFG", 1);
    wr(h, "PDP.D_DATA_FORMAT", (uint32_t)pc->precision);
    (void)in;
}

/* ---------------------------------------------------------------- running a case */

/* The case in words, for failure messages. */
static const char *case_name(const struct pool_case *pc, char *buf, size_t n)
{
    static const char *const methods[] = {"average", "max", "min"};
    static const char *const precisions[] = {"int8", "int16", "fp16"};
    snprintf(buf, n, "%s %s %s %ux%ux%u kernel %ux%u stride %ux%u pad %u,%u,%u,%u (%d) splits %u",
             pc->config, precisions[pc->precision], methods[pc->method], pc->w, pc->h, pc->c,
             pc->kw, pc->kh, pc->sw, pc->sh, pc->pl, pc->pr, pc->pt, pc->pb, pc->pad, pc->splits);
    return buf;
}

/* Launch-to-interrupt cycles of the last case check_case() ran. */
static uint64_t last_case_cycles;

static void check_case(const struct pool_case *pc)
{
    char name[160];
    /* cases cover their padded input exactly, as the guide requires */
    assert_int_equal((pc->w + pc->pl + pc->pr - pc->kw) % pc->sw, 0);
    assert_int_equal((pc->h + pc->pt + pc->pb - pc->kh) % pc->sh, 0);
    struct harness *h = harness_new(pc->config);
    unsigned out_w = out_size(pc->w, pc->pl, pc->pr, pc->kw, pc->sw);
    unsigned out_h = out_size(pc->h, pc->pt, pc->pb, pc->kh, pc->sh);
    struct layout in = layout_of(h, pc, pc->w, pc->h), out = layout_of(h, pc, out_w, out_h);
    struct split_plan s = plan_splits(pc, out_w);
    size_t in_bytes = in.surf * in.surfaces, out_bytes = out.surf * out.surfaces;
    uint8_t *src = malloc(in_bytes), *dst = malloc(out_bytes);
    int32_t *plane = malloc(sizeof *plane * pc->w * pc->h);
    assert_non_null(src);
    assert_non_null(dst);
    assert_non_null(plane);
    uint32_t seed = pc->w * 131u + pc->kw * 7u + (unsigned)pc->method;
    for (size_t i = 0; i < in_bytes; i++)
        src[i] = (uint8_t)harness_rand(&seed);
    /* fp16: non-zero numbers; averages of small integers of one sign (the
     * sign of the pad value), so that no sum cancels to a signed zero */
    if (pc->precision == 2)
        for (size_t i = 0; i + 1 < in_bytes; i += 2) {
            int n = (int)(harness_rand(&seed) % 31) - 15;
            int a = (int)(harness_rand(&seed) % 15) + 1;
            float f = pc->method == 0 ? (float)(pc->pad < 0 ? -a : a)
                                      : (float)(n ? n : 16) * (1.0f + (float)(i % 97) / 128.0f);
            uint16_t hb = fp16_from_float(f);
            src[i] = (uint8_t)hb;
            src[i + 1] = (uint8_t)(hb >> 8);
        }
    memset(dst, 0xee, out_bytes);
    mem_put(h, SRC, src, in_bytes);
    mem_put(h, DST, dst, out_bytes);

    program_rdma(h, pc, &in, &s);
    program_pdp(h, pc, &in, &out, &s, out_w, out_h);
    harness_enable_and_run(h, "PDP");
    harness_expect_clean_layer(h);

    mem_get(h, DST, dst, out_bytes);
    /* every channel of every surface, the ones past C included: the
     * hardware pools whole atoms */
    for (unsigned c = 0; c < in.surfaces * in.cpa; c++) {
        for (unsigned y = 0; y < pc->h; y++)
            for (unsigned x = 0; x < pc->w; x++)
                plane[y * pc->w + x] = get_elem(src, &in, c, y, x);
        for (unsigned oy = 0; oy < out_h; oy++)
            for (unsigned ox = 0; ox < out_w; ox++) {
                int32_t want = ref_window(pc, plane, ox, oy);
                int32_t got = get_elem(dst, &out, c, oy, ox);
                if (want != got)
                    fail_msg("%s: c%u y%u x%u: want %d got %d", case_name(pc, name, sizeof name), c,
                             oy, ox, want, got);
            }
    }
    /* the spare atom at the end of each line is not written */
    for (unsigned surf = 0; surf < out.surfaces; surf++)
        for (unsigned y = 0; y < out_h; y++)
            for (unsigned b = 0; b < out.atom; b++)
                if (dst[surf * out.surf + y * out.line + out_w * out.atom + b] != 0xee)
                    fail_msg("%s: surface %u line %u: spare byte %u written",
                             case_name(pc, name, sizeof name), surf, y, b);
    const struct dla_layer *l = dla_layer_get(h->d, dla_layer_count(h->d) - 1);
    last_case_cycles = l->end_cycle - l->start_cycle;
    free(src);
    free(dst);
    free(plane);
    harness_free(h);
}

/* ---------------------------------------------------------------- tests */

static void check_cases(const struct pool_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        check_case(&cases[i]);
}

static void test_methods_int8_small(void **state)
{
    (void)state;
    for (int m = 0; m < 3; m++) {
        struct pool_case pc = {"nv_small", 0, m, 9, 7, 19, 3, 3, 2, 2, 1, 1, 1, 1, -5, 1};
        check_case(&pc);
    }
}

/* Kernels 1..8 in both directions, stride 1 and the kernel size. */
static void test_kernel_sizes(void **state)
{
    (void)state;
    for (unsigned k = 1; k <= 8; k++) {
        for (int m = 0; m < 3; m++) {
            struct pool_case pc = {"nv_small", 0, m, 16, 9, 8, k, k, 1, 1, 0, 0, 0, 0, 0, 1};
            check_case(&pc);
            struct pool_case st = {"nv_small", 0, m, 2 * k, 2 * k, 8, k, k, k, k, 0, 0, 0, 0, 0, 1};
            check_case(&st);
        }
    }
}

static void test_strides_and_padding(void **state)
{
    (void)state;
    static const struct pool_case cases[] = {
        {"nv_small", 0, 0, 13, 11, 8, 4, 3, 3, 2, 2, 1, 2, 0, 7, 1},
        {"nv_small", 0, 0, 12, 9, 19, 8, 3, 2, 2, 6, 4, 1, 1, -3, 1},
        {"nv_small", 0, 1, 13, 11, 8, 4, 3, 3, 2, 2, 1, 2, 0, 0, 1},
        {"nv_small", 0, 2, 10, 10, 8, 5, 5, 1, 4, 2, 2, 4, 3, 0, 1},
        {"nv_small", 0, 0, 6, 7, 16, 2, 5, 5, 1, 1, 0, 2, 2, 100, 1},
        {"nv_small", 0, 0, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 2, 1},
    };
    check_cases(cases, sizeof cases / sizeof cases[0]);
}

static void test_int16_and_wide_atoms(void **state)
{
    (void)state;
    static const struct pool_case cases[] = {
        {"nv_full", 1, 0, 9, 6, 20, 3, 2, 2, 2, 1, 1, 1, 1, -1000, 1},
        {"nv_full", 1, 1, 8, 8, 16, 2, 2, 2, 2, 0, 0, 0, 0, 0, 1},
        {"nv_full", 1, 2, 11, 5, 40, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1},
        {"nv_full", 0, 0, 9, 6, 70, 3, 2, 2, 2, 1, 1, 1, 1, 9, 1},
        {"nv_medium_1024_full", 0, 1, 6, 6, 33, 2, 2, 2, 2, 0, 0, 0, 0, 0, 1},
    };
    check_cases(cases, sizeof cases / sizeof cases[0]);
}

/* Every input element passes the pooling datapath once, whatever the
 * window (NVIDIA's RTL, tests/calibration): nv_small pools an 8x8x64 int8
 * cube in 4096 cycles plus its memory latency and fill, and the rows that
 * wait for bottom padding; nv_full moves 8 bytes a cycle, so int16 takes
 * twice int8's cycles. */
static void test_pooling_cycles(void **state)
{
    (void)state;
    static const struct pool_case small[] = {
        {"nv_small", 0, 1, 8, 8, 64, 2, 2, 1, 1, 0, 1, 0, 1, 0, 1},
        {"nv_small", 0, 1, 8, 8, 64, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1},
    };
    /* 4096 elements, and the 2x2 window's last output row (8 x 8) after them */
    check_case(&small[0]);
    assert_int_equal(last_case_cycles, 4096 + 64 + 80 + TIMING_STAGE_OVERHEAD);
    check_case(&small[1]);
    assert_int_equal(last_case_cycles, 4096 + 80 + TIMING_STAGE_OVERHEAD);
    /* padding: a line costs the wider of its input and output rows, and the
     * output rows that wait for the bottom padding come after the input:
     * 4x4 3x3/1 padded all round, one row flushed (4 x 4 + 4 elements of an
     * atom); 2x2 padded to 4 outputs a row, its one row flushed (2 x 4 + 4) */
    static const struct pool_case padded[] = {
        {"nv_small", 0, 1, 4, 4, 8, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1},
        {"nv_small", 0, 0, 2, 2, 8, 3, 3, 1, 1, 2, 2, 0, 1, 0, 1},
    };
    check_case(&padded[0]);
    assert_int_equal(last_case_cycles, (4 * 4 + 4) * 8 + 80 + TIMING_STAGE_OVERHEAD);
    check_case(&padded[1]);
    assert_int_equal(last_case_cycles, (2 * 4 + 4) * 8 + 80 + TIMING_STAGE_OVERHEAD);
    struct pool_case full = {"nv_full", 0, 1, 8, 8, 64, 2, 2, 1, 1, 0, 1, 0, 1, 0, 1};
    check_case(&full);
    uint64_t int8 = last_case_cycles;
    full.precision = 1;
    check_case(&full);
    assert_int_equal(last_case_cycles - int8, 4096 / 8);
}

/* Split width gives the same cube as pooling the whole width. */
static void test_split_width(void **state)
{
    (void)state;
    static const struct pool_case cases[] = {
        {"nv_small", 0, 1, 16, 6, 16, 4, 2, 4, 2, 0, 0, 0, 0, 0, 2},
        {"nv_small", 0, 0, 23, 5, 8, 3, 3, 2, 1, 1, 1, 1, 1, 4, 3},
        {"nv_small", 0, 2, 29, 4, 8, 2, 2, 3, 2, 0, 0, 0, 0, 0, 4},
        {"nv_full", 1, 0, 21, 4, 16, 5, 2, 2, 2, 2, 2, 0, 0, -7, 3},
    };
    check_cases(cases, sizeof cases / sizeof cases[0]);
}

/* ---------------------------------------------------------------- datapath pieces */

static void test_pad_value_sign_extension(void **state)
{
    (void)state;
    /* int8: the 1x value's sign is bit 7, the 7x value's bit 10 */
    assert_int_equal(pdp_pad_value(0x80, 1, PDP_INT8), -128);
    assert_int_equal(pdp_pad_value(0x7f, 1, PDP_INT8), 127);
    assert_int_equal(pdp_pad_value(0x7ffff, 1, PDP_INT8), -1);
    assert_int_equal(pdp_pad_value(0x400, 7, PDP_INT8), -1024);
    assert_int_equal(pdp_pad_value(0x3ff, 7, PDP_INT8), 1023);
    /* int16: bit 15 for 1x, bit 18 for 7x, held in 32 bits */
    assert_int_equal(pdp_pad_value(0x8000, 1, PDP_INT16), -32768);
    assert_int_equal(pdp_pad_value(0x40000, 7, PDP_INT16), -262144);
    assert_int_equal(pdp_pad_value(0x3ffff, 5, PDP_INT16), 262143);
}

static void test_average_rounding(void **state)
{
    (void)state;
    static const unsigned kernels[] = {1, 2, 3, 5, 7, 8};
    for (int sum = -2000; sum <= 2000; sum += 7) {
        for (size_t a = 0; a < 6; a++) {
            for (size_t b = 0; b < 6; b++) {
                uint32_t rw = recip(kernels[a]), rh = recip(kernels[b]);
                int64_t want = ref_scale(ref_scale(sum, rw), rh);
                assert_int_equal(pdp_average(sum, rw, rh, PDP_INT16), (int16_t)want);
                assert_int_equal(pdp_average(sum, rw, rh, PDP_INT8), (int8_t)want);
            }
        }
    }
    /* exact halves round away from zero */
    assert_int_equal(pdp_average(3, 0x8000, 0x10000, PDP_INT16), 2);
    assert_int_equal(pdp_average(-3, 0x8000, 0x10000, PDP_INT16), -2);
}

/* ---------------------------------------------------------------- diagnostics */

static void program_min_layer(struct harness *h)
{
    wr(h, "PDP_RDMA.D_FLYING_MODE", 1);
    wr(h, "PDP_RDMA.D_SRC_RAM_CFG", 1);
    wr(h, "PDP_RDMA.D_SRC_BASE_ADDR_LOW", (uint32_t)SRC);
    wr(h, "PDP.D_OPERATION_MODE_CFG.FLYING_MODE", 1);
    wr(h, "PDP.D_DST_RAM_CFG", 1);
    wr(h, "PDP.D_DST_BASE_ADDR_LOW", (uint32_t)DST);
    wr(h, "PDP.D_RECIP_KERNEL_WIDTH", 0x10000);
    wr(h, "PDP.D_RECIP_KERNEL_HEIGHT", 0x10000);
}

static void test_rdma_mismatch(void **state)
{
    (void)state;
    struct harness *h = harness_new("nv_small");
    program_min_layer(h);
    wr(h, "PDP.D_DATA_CUBE_IN_WIDTH", 3);
    wr(h, "PDP.D_DATA_CUBE_OUT_WIDTH", 3);
    wr(h, "PDP_RDMA.D_DATA_CUBE_IN_HEIGHT", 5); /* PDP's is 0 */
    wr(h, "PDP_RDMA.D_DATA_CUBE_IN_WIDTH", 3);
    harness_enable_and_run(h, "PDP");
    harness_expect_diag_and_done(h, "pdp.rdma_mismatch", 0); /* the layer still completes */
    harness_free(h);
}

static void test_fp16(void **state)
{
    (void)state;
    static const struct pool_case cases[] = {
        {"nv_full", 2, 1, 9, 7, 20, 3, 3, 2, 2, 1, 1, 1, 1, 0, 1},
        {"nv_full", 2, 2, 8, 8, 16, 2, 2, 2, 2, 0, 0, 0, 0, 0, 1},
        {"nv_full", 2, 0, 8, 6, 16, 2, 2, 2, 2, 0, 0, 0, 0, 0, 1},
        {"nv_full", 2, 0, 9, 7, 20, 3, 3, 2, 2, 1, 1, 1, 1, -3, 1},
        {"nv_full", 2, 0, 13, 5, 16, 4, 3, 3, 1, 2, 1, 1, 1, 5, 2},
        {"nv_full", 2, 1, 21, 4, 16, 5, 2, 2, 2, 2, 2, 0, 0, 0, 3},
    };
    check_cases(cases, sizeof cases / sizeof cases[0]);
}

/* fp16 NaN/Inf counters, and NaN inputs flushed to zero on request. */
static void test_fp16_nan_inf(void **state)
{
    (void)state;
    struct harness *h = harness_new("nv_full");
    struct pool_case pc = {"nv_full", 2, 1, 2, 1, 16, 2, 1, 2, 1, 0, 0, 0, 0, 0, 1};
    struct layout in = layout_of(h, &pc, 2, 1), out = layout_of(h, &pc, 1, 1);
    struct split_plan s = {.n = 1};
    uint16_t src[32];
    for (int i = 0; i < 32; i++)
        src[i] = 0x3c00; /* 1.0 */
    src[0] = 0x7e00;     /* NaN in channel 0 of x = 0 */
    src[17] = 0x7c00;    /* +Inf in channel 1 of x = 1 */
    src[3] = 0xfc00;     /* -Inf */
    mem_put(h, SRC, src, sizeof src);
    program_rdma(h, &pc, &in, &s);
    program_pdp(h, &pc, &in, &out, &s, 1, 1);
    wr(h, "PDP.D_NAN_FLUSH_TO_ZERO", 1);
    harness_enable_and_run(h, "PDP");
    assert_int_equal(h->n_diags, 0);
    assert_int_equal(rd(h, "PDP.D_NAN_INPUT_NUM"), 1);
    assert_int_equal(rd(h, "PDP.D_INF_INPUT_NUM"), 2);
    assert_int_equal(rd(h, "PDP.D_NAN_OUTPUT_NUM"), 0);
    uint16_t o[16];
    mem_get(h, DST, o, sizeof o);
    assert_int_equal(o[0], 0x3c00); /* max(flushed NaN = 0, 1.0) */
    assert_int_equal(o[1], 0x7c00);
    assert_int_equal(o[3], 0x3c00);
    harness_free(h);

    /* without the flush the NaN propagates and is counted on the way out */
    h = harness_new("nv_full");
    mem_put(h, SRC, src, sizeof src);
    program_rdma(h, &pc, &in, &s);
    program_pdp(h, &pc, &in, &out, &s, 1, 1);
    harness_enable_and_run(h, "PDP");
    assert_int_equal(rd(h, "PDP.D_NAN_OUTPUT_NUM"), 1);
    harness_free(h);
}

/* ---------------------------------------------- max and min, separable */

/* An input element: int8 or int16 values, or fp16 of every kind (signed
 * zeros, subnormals, infinities, equal values) with NaNs only when asked. */
static int32_t random_element(int precision, bool nans, uint32_t *st)
{
    uint32_t r = harness_rand(st);
    if (precision == 0)
        return (int8_t)r;
    if (precision == 1)
        return (int16_t)r;
    uint32_t sign = (r & 1u) << 15, pick = (r >> 1) % 16;
    if (pick == 0)
        return (int32_t)sign; /* +0 or -0 */
    if (pick == 1)
        return (int32_t)(sign | 0x7c00u);
    if (pick == 2 && nans)
        return (int32_t)(sign | 0x7c00u | (1u + (r >> 5) % 0x3ffu));
    if (pick == 3)
        return (int32_t)(sign | (r >> 5) % 0x400u); /* subnormal */
    if (pick < 8)
        return (int32_t)(sign | 0x3c00u); /* +-1.0, ties */
    return (int32_t)(sign | ((r >> 5) % 0x7c00u));
}

/* pdp_pool_extreme (every channel of the atoms at once, separable, fp16 by
 * order key) gives the bits and unreached counts of pdp_pool_plane's walk
 * on each channel, on random geometries: every kernel and stride, padding
 * beyond the kernel, programmed output sizes cut short or past the end,
 * 1 to 32 channels an atom; fp16 atoms with a NaN are refused, and the
 * infinities of every row counted. */
static void test_extreme_matches_walk(void **state)
{
    (void)state;
    uint32_t st = 0x5eed;
    for (int round = 0; round < 2000; round++) {
        struct pdp_pool_cfg c = {0};
        struct pdp_pool_split s = {0};
        c.precision = (uint8_t)(round % 3);
        c.method = (uint8_t)(1 + (round / 3) % 2);
        c.kernel_w = 1 + harness_rand(&st) % PDP_KERNEL_MAX;
        c.kernel_h = 1 + harness_rand(&st) % PDP_KERNEL_MAX;
        c.stride_w = 1 + harness_rand(&st) % (round % 5 ? 3 : 16);
        c.stride_h = 1 + harness_rand(&st) % (round % 7 ? 3 : 16);
        c.pad_top = harness_rand(&st) % 9;
        c.pad_bottom = harness_rand(&st) % 9;
        s.pad_left = harness_rand(&st) % 9;
        s.pad_right = harness_rand(&st) % 9;
        c.in_h = 1 + harness_rand(&st) % 20;
        s.in_w = 1 + harness_rand(&st) % 40;
        unsigned lanes = 1 + harness_rand(&st) % 32, bpe = c.precision == PDP_INT8 ? 1 : 2;
        unsigned full_w = s.in_w + s.pad_left + s.pad_right,
                 full_h = c.in_h + c.pad_top + c.pad_bottom;
        unsigned ow = full_w >= c.kernel_w ? (full_w - c.kernel_w) / c.stride_w + 1 : 1;
        unsigned oh = full_h >= c.kernel_h ? (full_h - c.kernel_h) / c.stride_h + 1 : 1;
        s.out_w = ow + harness_rand(&st) % 3 - (ow > 1 ? harness_rand(&st) % 2 : 0);
        c.out_h = oh + harness_rand(&st) % 3 - (oh > 1 ? harness_rand(&st) % 2 : 0);
        bool nans = c.precision == PDP_FP16 && round % 4 == 0;
        size_t n_in = (size_t)s.in_w * c.in_h, n_out = (size_t)s.out_w * c.out_h;
        uint8_t *atoms = malloc(n_in * lanes * bpe), *fast = malloc(n_out * lanes * bpe);
        int32_t *plane = malloc(n_in * sizeof *plane), *walk = malloc(n_out * sizeof *walk);
        size_t walk_scratch = pdp_pool_scratch(&c, &s);
        size_t fast_scratch = pdp_pool_extreme_scratch(&c, &s, lanes);
        int32_t *scratch =
            malloc((walk_scratch > fast_scratch ? walk_scratch : fast_scratch) * sizeof *scratch);
        assert_true(atoms && fast && plane && walk && scratch);
        bool has_nan = false;
        uint64_t infinities = 0;
        for (size_t i = 0; i < n_in * lanes; i++) {
            int32_t v = random_element(c.precision, nans, &st);
            has_nan |= c.precision == PDP_FP16 && fp_is_nan(FP16, (uint16_t)v);
            infinities += c.precision == PDP_FP16 && fp_is_inf(FP16, (uint16_t)v);
            atoms[i * bpe] = (uint8_t)v;
            if (bpe == 2)
                atoms[i * bpe + 1] = (uint8_t)((uint32_t)v >> 8);
        }
        unsigned missing_walk = 0;
        struct pdp_extreme_tally tally = {0};
        bool done = pdp_pool_extreme(&c, &s, atoms, lanes, fast, scratch, &tally);
        if (done == has_nan)
            fail_msg("round %d: pdp_pool_extreme %s atoms %s a NaN", round,
                     done ? "pooled" : "refused", has_nan ? "with" : "without");
        for (unsigned k = 0; done && k < lanes; k++) {
            for (size_t i = 0; i < n_in; i++)
                plane[i] =
                    feature_load(atoms + (i * lanes + k) * bpe, bpe, c.precision == PDP_FP16);
            missing_walk += pdp_pool_plane(&c, &s, plane, walk, scratch);
            for (size_t i = 0; i < n_out; i++)
                if (feature_load(fast + (i * lanes + k) * bpe, bpe, c.precision == PDP_FP16) !=
                    walk[i])
                    fail_msg("round %d: %s %s %ux%u in, %u channels, kernel %ux%u stride %ux%u "
                             "pads %u/%u/%u/%u, out %ux%u: channel %u output %zu differs",
                             round,
                             c.precision == 2 ? "fp16"
                             : c.precision    ? "int16"
                                              : "int8",
                             c.method == PDP_MAX ? "max" : "min", s.in_w, c.in_h, lanes, c.kernel_w,
                             c.kernel_h, c.stride_w, c.stride_h, s.pad_left, s.pad_right, c.pad_top,
                             c.pad_bottom, s.out_w, c.out_h, k, i);
        }
        if (done) {
            assert_int_equal(tally.missing, missing_walk);
            assert_int_equal(tally.infinities, infinities); /* every row's, read or not */
        }
        free(atoms);
        free(fast);
        free(plane);
        free(walk);
        free(scratch);
    }
}

static void test_absent_precisions(void **state)
{
    (void)state;
    struct harness *h = harness_new("nv_small"); /* int8 only */
    program_min_layer(h);
    wr(h, "PDP.D_DATA_FORMAT", 1);
    wr(h, "PDP_RDMA.D_DATA_FORMAT", 1);
    harness_enable_and_run(h, "PDP");
    harness_expect_diag_and_done(h, "pdp.precision", 0);
    harness_free(h);
}

static void test_hostile_sizes(void **state)
{
    (void)state;
    struct harness *h = harness_new("nv_full");
    program_min_layer(h);
    wr(h, "PDP.D_DATA_CUBE_IN_WIDTH", 0x1fff);
    wr(h, "PDP.D_DATA_CUBE_IN_HEIGHT", 0x1fff);
    wr(h, "PDP.D_DATA_CUBE_IN_CHANNEL", 0x1fff);
    wr(h, "PDP.D_DATA_CUBE_OUT_WIDTH", 0x1fff);
    wr(h, "PDP.D_DATA_CUBE_OUT_HEIGHT", 0x1fff);
    wr(h, "PDP_RDMA.D_DATA_CUBE_IN_WIDTH", 0x1fff);
    wr(h, "PDP_RDMA.D_DATA_CUBE_IN_HEIGHT", 0x1fff);
    wr(h, "PDP_RDMA.D_DATA_CUBE_IN_CHANNEL", 0x1fff);
    harness_enable_and_run(h, "PDP");
    harness_expect_diag_and_done(h, NULL, DLA_DIAG_UNSUPPORTED);
    harness_free(h);

    /* a split whose overlap leaves no input */
    h = harness_new("nv_small");
    program_min_layer(h);
    wr(h, "PDP.D_OPERATION_MODE_CFG.SPLIT_NUM", 1);
    wr(h, "PDP.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_WIDTH", 7); /* stride 8, kernel 1 */
    wr(h, "PDP_RDMA.D_OPERATION_MODE_CFG", 1);
    wr(h, "PDP_RDMA.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_WIDTH", 7);
    harness_enable_and_run(h, "PDP");
    harness_expect_diag_once(h, "pdp.split_width", 0);
    harness_free(h);
}

/* Guide rules on the geometry are reported (the layer still runs). */
static void test_geometry_rules(void **state)
{
    (void)state;
    struct harness *h = harness_new("nv_small");
    program_min_layer(h);
    wr(h, "PDP.D_DATA_CUBE_IN_WIDTH", 7);
    wr(h, "PDP_RDMA.D_DATA_CUBE_IN_WIDTH", 7);
    wr(h, "PDP.D_DATA_CUBE_OUT_WIDTH", 2);          /* 8 inputs, kernel 1 stride 1: 8 outputs */
    wr(h, "PDP.D_POOLING_PADDING_CFG.PAD_LEFT", 2); /* >= kernel 1 */
    harness_enable_and_run(h, "PDP");
    harness_expect_diag_once(h, "pdp.pad_below_kernel", 0);
    harness_expect_diag_once(h, "pdp.width_in_out", 0);
    harness_free(h);

    /* two splits, kernel 4 stride 1: the 3-element overlap needs a first
     * split at least that wide */
    h = harness_new("nv_small");
    program_min_layer(h);
    wr(h, "PDP.D_OPERATION_MODE_CFG.SPLIT_NUM", 1);
    wr(h, "PDP.D_POOLING_KERNEL_CFG.KERNEL_WIDTH", 3);
    wr(h, "PDP.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_FIRST", 1);
    wr(h, "PDP.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_LAST", 4);
    wr(h, "PDP_RDMA.D_OPERATION_MODE_CFG", 1);
    wr(h, "PDP_RDMA.D_POOLING_KERNEL_CFG.KERNEL_WIDTH", 3);
    wr(h, "PDP_RDMA.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_FIRST", 1);
    wr(h, "PDP_RDMA.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_LAST", 4);
    harness_enable_and_run(h, "PDP");
    harness_expect_diag_and_done(h, "pdp.split_overlap", 0);
    harness_free(h);
}

/* ---------------------------------------------------------------- on the fly */

/* The int8 output a one-stage PDP run holds back, pooled from an
 * on-the-fly cube of pc's shape, against the reference windows. */
static void expect_pooled_writes(const struct one_stage *f, const struct pool_case *pc,
                                 const struct dla_cube *cube, const struct layout *out,
                                 unsigned out_w, unsigned out_h)
{
    int32_t *plane = malloc(sizeof *plane * pc->w * pc->h);
    assert_non_null(plane);
    for (unsigned c = 0; c < pc->c; c++) {
        for (unsigned i = 0; i < pc->w * pc->h; i++)
            plane[i] = cube->v[(size_t)c * pc->w * pc->h + i];
        for (unsigned oy = 0; oy < out_h; oy++)
            for (unsigned ox = 0; ox < out_w; ox++) {
                uint8_t byte = 0;
                assert_true(one_stage_written_byte(f, DST + offset_of(out, c, oy, ox), &byte));
                assert_int_equal((int8_t)byte, ref_window(pc, plane, ox, oy));
            }
    }
    free(plane);
}

/* PDP fed by SDP: the cube SDP hands over is pooled without PDP_RDMA. */
static void test_on_the_fly_cube(void **state)
{
    (void)state;
    struct harness *h = harness_new("nv_small");
    struct dla *d = h->d;
    struct pool_case pc = {"nv_small", 0, 1, 6, 4, 10, 2, 2, 2, 2, 0, 0, 0, 0, 0, 1};
    unsigned out_w = 3, out_h = 2;
    struct layout out = layout_of(h, &pc, out_w, out_h);
    struct split_plan s = {.n = 1};
    program_pdp(h, &pc, &out, &out, &s, out_w, out_h);
    wr(h, "PDP.D_OPERATION_MODE_CFG.FLYING_MODE", 0);

    struct dla_cube cube;
    assert_true(cube_alloc(&cube, pc.w, pc.h, pc.c, 1, DLA_CUBE_INT));
    uint32_t seed = 5;
    for (size_t i = 0; i < cube_elems(&cube); i++)
        cube.v[i] = (int32_t)(harness_rand(&seed) & 0xff) - 128;

    struct one_stage f;
    one_stage_open(&f, d, DLA_P_PDP, layer_begin(d, DLA_P_PDP, 0), 0);
    assert_int_equal(pdp_execute(d, &f.x, 0, 0xff, &cube), 0);
    assert_int_equal(h->n_diags, 0);

    /* the held writes are the output lines */
    expect_pooled_writes(&f, &pc, &cube, &out, out_w, out_h);
    one_stage_close(&f);
    cube_free(&cube);
    harness_free(h);
}

/* An unsplit layer's output lines, written one after another, are held in
 * one buffer sized for all of them at the first line: grown line by line
 * (doubling) it had room for 384 bytes of 216 here and moved whenever the
 * heap held something just after it (share/performance-history.md).
 * Surfaces with gaps between them get a buffer each, their bytes the same. */
static void test_output_held_whole(void **state)
{
    (void)state;
    struct pool_case pc = {"nv_small", 0, 1, 6, 6, 20, 2, 2, 2, 2, 0, 0, 0, 0, 0, 1};
    enum { OUT_W = 3, OUT_H = 3 };
    struct dla_cube cube;
    assert_true(cube_alloc(&cube, pc.w, pc.h, pc.c, 1, DLA_CUBE_INT));
    uint32_t seed = 11;
    for (size_t i = 0; i < cube_elems(&cube); i++)
        cube.v[i] = (int32_t)(harness_rand(&seed) & 0xff) - 128;
    for (unsigned gap = 0; gap <= 8; gap += 8) {
        struct harness *h = harness_new("nv_small");
        struct layout out = layout_of(h, &pc, OUT_W, OUT_H);
        out.line = (uint64_t)OUT_W * out.atom;
        out.surf = out.line * OUT_H + gap;
        assert_int_equal(out.surfaces, 3);
        struct split_plan s = {.n = 1};
        program_pdp(h, &pc, &out, &out, &s, OUT_W, OUT_H);
        wr(h, "PDP.D_OPERATION_MODE_CFG.FLYING_MODE", 0);
        struct one_stage f;
        one_stage_open(&f, h->d, DLA_P_PDP, layer_begin(h->d, DLA_P_PDP, 0), 0);
        assert_int_equal(pdp_execute(h->d, &f.x, 0, 0xff, &cube), 0);
        assert_int_equal(h->n_diags, 0);
        size_t surf_bytes = out.line * OUT_H, runs = gap ? out.surfaces : 1;
        assert_int_equal(f.pipe.n_writes, runs);
        for (size_t r = 0; r < runs; r++) {
            assert_int_equal(f.pipe.writes[r].len, surf_bytes * out.surfaces / runs);
            assert_int_equal(f.pipe.writes[r].cap, f.pipe.writes[r].len);
        }
        expect_pooled_writes(&f, &pc, &cube, &out, OUT_W, OUT_H);
        one_stage_close(&f);
        harness_free(h);
    }
    cube_free(&cube);
}

/* Every configuration pools (int8, the type all of them have). */
static void test_all_configurations(void **state)
{
    (void)state;
    size_t n;
    const struct dla_config *all = dla_config_all(&n);
    for (size_t i = 0; i < n; i++) {
        struct pool_case pc = {all[i].name, 0, 0, 9, 6, 40, 3, 2, 2, 2, 1, 1, 1, 1, 3, 2};
        check_case(&pc);
        pc.method = 1;
        pc.splits = 1;
        check_case(&pc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_methods_int8_small),
        cmocka_unit_test(test_kernel_sizes),
        cmocka_unit_test(test_strides_and_padding),
        cmocka_unit_test(test_int16_and_wide_atoms),
        cmocka_unit_test(test_split_width),
        cmocka_unit_test(test_pooling_cycles),
        cmocka_unit_test(test_all_configurations),
        cmocka_unit_test(test_pad_value_sign_extension),
        cmocka_unit_test(test_average_rounding),
        cmocka_unit_test(test_rdma_mismatch),
        cmocka_unit_test(test_fp16),
        cmocka_unit_test(test_fp16_nan_inf),
        cmocka_unit_test(test_extreme_matches_walk),
        cmocka_unit_test(test_absent_precisions),
        cmocka_unit_test(test_hostile_sizes),
        cmocka_unit_test(test_geometry_rules),
        cmocka_unit_test(test_on_the_fly_cube),
        cmocka_unit_test(test_output_held_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
