/* CDP's normalisation datapath (see cdp_lrn.h). */
#include "cdp_lrn.h"

#include <pthread.h>
#include <string.h>

#include "num/fixpt.h"
#include "num/fpnum_vec.h"

int32_t cdp_in_convert(const struct cdp_lrn_cfg *c, int32_t raw)
{
    bool int8 = c->path == LUT_CDP_INT8;
    int64_t offset = fix_wrap(c->in_offset, int8 ? 8 : 16);
    int64_t product = ((int64_t)raw - offset) * c->in_scale;
    /* the convertors shift right rounding half away from zero, then saturate
     * (AC_RND_INF, AC_SAT) */
    return (int32_t)fix_sat(fix_shr_round(product, c->in_shift & 31u), int8 ? 9 : 17);
}

int32_t cdp_out_convert(const struct cdp_lrn_cfg *c, int64_t v, bool *saturated)
{
    bool int8 = c->path == LUT_CDP_INT8;
    int64_t offset = int8 ? fix_wrap(c->out_offset, 25) : c->out_offset;
    int64_t product = (v - offset) * c->out_scale;
    unsigned shift = c->out_shift & 63u;
    int64_t out = fix_sat(fix_shr_round(product, shift), int8 ? 8 : 16);
    /* the flag compares with the truncated shift: a value that rounds up
     * by one into the limit does not count */
    int64_t truncated = product >> shift;
    int64_t diff = truncated - out;
    *saturated = diff > 1 || diff < -1;
    return (int32_t)out;
}

static int64_t window_sum(const struct cdp_lrn_cfg *c, const int32_t *conv, unsigned n, unsigned ch)
{
    if (c->sqsum_bypass)
        return conv[ch];
    int64_t sum = 0;
    int hw = (int)c->half_window;
    for (int j = -hw; j <= hw; j++) {
        int k = (int)ch + j;
        if (k >= 0 && k < (int)n)
            sum += (int64_t)conv[k] * conv[k]; /* outside: the offset, converted to 0 */
    }
    return sum;
}

/* fp16: the fp32 form of each fp16 input (through fp17, as the convertors
 * widen it) and its square are functions of the 16 input bits alone.  A
 * normal input's fp32 form is exact and so is its square in binary32 (11
 * significant bits squared, exponents -28..31), which the cmod's multiply
 * then leaves as it is; the other inputs (zeros, subnormals, infinities,
 * NaNs) are tabulated at the first fp16 input, at fpi_fp16_odd_index (filled
 * when the program loaded, the 32 KiB were resident in every run, issue 34). */
static uint32_t odd_as_fp32[FPNUM_FP16_ODD_VALUES], odd_square_fp32[FPNUM_FP16_ODD_VALUES];
static pthread_once_t square_once = PTHREAD_ONCE_INIT;

/* The reference forms of any input, by the cmod's operations. */
static void reference_forms(uint16_t h, uint32_t *v32, uint32_t *square)
{
    *v32 = fpnum_fp17_to_fp32(fpnum_fp16_to_fp17(h));
    *square = (uint32_t)fp_mul(FP32, *v32, *v32);
}

static void fill_square_table(void)
{
    for (uint32_t h = 0; h < (1u << 16); h++)
        if (!fpi_fp16_normal((uint16_t)h)) {
            uint32_t at = fpi_fp16_odd_index((uint16_t)h);
            reference_forms((uint16_t)h, &odd_as_fp32[at], &odd_square_fp32[at]);
        }
}

struct fp_input {
    uint32_t v17, v32, square;
};

static inline struct fp_input fp_input_of(uint16_t h)
{
    if (!fpi_fp16_normal(h))
        return (struct fp_input){fp16_to_fp17(h), odd_as_fp32[fpi_fp16_odd_index(h)],
                                 odd_square_fp32[fpi_fp16_odd_index(h)]};
    struct fp_input in = {fp16_to_fp17(h), fp16_to_fp32(h), 0};
    float f;
    memcpy(&f, &in.v32, sizeof f);
    f *= f;
    memcpy(&in.square, &f, sizeof f);
    return in;
}

/* Every input's forms (fp_input_of), four at a time for normal inputs and
 * zeros; sq gets the squares, or the fp32 forms when the square sum is
 * bypassed. */
static void fp_inputs(const struct cdp_lrn_cfg *c, const int32_t *raw, unsigned n, unsigned valid,
                      uint32_t *conv17, uint32_t *conv32, uint32_t *sq)
{
    pthread_once(&square_once, fill_square_table);
    unsigned i = 0;
    for (; i + FPV_LANES <= n && i + FPV_LANES <= valid; i += FPV_LANES) {
        fpv_u32 h;
        memcpy(&h, raw + i, sizeof h);
        h &= 0xffffu;
        if (c->nan_to_zero)
            h &= ~(fpv_u32)((h & 0x7fffu) > 0x7c00u);
        fpv_i32 slow;
        fpv_u32 v32 = fpv_fp16_to_fp32(h, &slow);
        fpv_u32 v17 = (h & 0x8000u) << 1 |
                      (((h & 0x7fffu) + (16u << 10)) & (fpv_u32)(((h >> 10) & 31u) - 1u < 30u));
        fpv_u32 square = (fpv_u32)((fpv_f32)v32 * (fpv_f32)v32);
        fpv_store(conv17 + i, v17);
        fpv_store(conv32 + i, v32);
        fpv_store(sq + i, c->sqsum_bypass ? v32 : square);
        if (fpv_any(slow))
            for (unsigned l = 0; l < FPV_LANES; l++)
                if (slow[l]) {
                    struct fp_input in = fp_input_of((uint16_t)h[l]);
                    conv17[i + l] = in.v17;
                    conv32[i + l] = in.v32;
                    sq[i + l] = c->sqsum_bypass ? in.v32 : in.square;
                }
    }
    for (; i < n; i++) {
        uint16_t h = i < valid ? (uint16_t)raw[i] : 0;
        if (c->nan_to_zero && fp_is_nan(FP16, h))
            h = 0;
        struct fp_input in = fp_input_of(h);
        conv17[i] = in.v17;
        conv32[i] = in.v32;
        sq[i] = c->sqsum_bypass ? in.v32 : in.square;
    }
}

/* One input through fp_inputs' four lanes (the lanes agree). */
void cdp_fp_input(uint16_t h, uint32_t *v17, uint32_t *v32, uint32_t *square)
{
    const struct cdp_lrn_cfg c = {.fp16 = true};
    const int32_t raw[FPV_LANES] = {h, h, h, h};
    uint32_t conv17[FPV_LANES], conv32[FPV_LANES], sq[FPV_LANES];
    fp_inputs(&c, raw, FPV_LANES, FPV_LANES, conv17, conv32, sq);
    *v17 = conv17[FPV_LANES - 1];
    *v32 = conv32[FPV_LANES - 1];
    *square = sq[FPV_LANES - 1];
}

/* The per-input forms as the reference computes them (the unit test's
 * check of fp_input_of). */
void cdp_fp_input_reference(uint16_t h, uint32_t *v17, uint32_t *v32, uint32_t *square)
{
    *v17 = fpnum_fp16_to_fp17(h);
    reference_forms(h, v32, square);
}

/* fp32_add four lanes at a time, the lanes outside the fast path redone. */
static inline __attribute__((always_inline)) fpv_u32 add4(fpv_u32 a, fpv_u32 b)
{
    fpv_i32 slow;
    fpv_u32 r = fpv_add32(a, b, &slow);
    if (fpv_any(slow))
        for (unsigned l = 0; l < FPV_LANES; l++)
            if (slow[l])
                r[l] = fp32_add(a[l], b[l]);
    return r;
}

/* One channel's window sum (scalar): at[k] is channel ch + k. */
static uint32_t window_sum_at(const uint32_t *at, unsigned half)
{
    uint32_t sum = fp32_add(fp32_add(at[-1], at[1]), at[0]);
    for (unsigned j = 2; j <= half; j++)
        sum = fp32_add(sum, fp32_add(*(at - j), at[j]));
    return sum;
}

/* fp16: the window sums of every channel.  sq holds the squares (or the
 * bypassed values) with CDP_LRN_MAX_HALF_WINDOW zeros on either side (the
 * channels outside the cube: +0); neighbours are added in pairs outwards,
 * as the hardware's adder tree does: ((c-1 + c+1) + c) + (c-2 + c+2) + ...,
 * four channels at a time. */
static void fp_window_sums(const struct cdp_lrn_cfg *c, const uint32_t *sq, unsigned n,
                           uint32_t *sum)
{
    if (c->sqsum_bypass) {
        memcpy(sum, sq, n * sizeof *sum);
        return;
    }
    /* NORMALZ_LEN is two bits: at most the padding */
    unsigned half =
        c->half_window < CDP_LRN_MAX_HALF_WINDOW ? c->half_window : CDP_LRN_MAX_HALF_WINDOW;
    unsigned ch = 0;
    for (; ch + FPV_LANES <= n; ch += FPV_LANES) {
        fpv_u32 s = add4(add4(fpv_load(sq + ch - 1), fpv_load(sq + ch + 1)), fpv_load(sq + ch));
        for (unsigned j = 2; j <= half; j++)
            s = add4(s, add4(fpv_load(sq + ch - j), fpv_load(sq + ch + j)));
        fpv_store(sum + ch, s);
    }
    for (; ch < n; ch++)
        sum[ch] = window_sum_at(sq + ch, half);
}

/* out = fp17_to_fp16(fp17_mul(conv17, y)) over n words, four at a time. */
static void multiply_out(const uint32_t *conv17, const uint32_t *y, unsigned n, int32_t *out)
{
    unsigned i = 0;
    for (; i + FPV_LANES <= n; i += FPV_LANES) {
        fpv_i32 slow_mul, slow_narrow;
        fpv_u32 v = fpv_mul17(fpv_load(conv17 + i), fpv_load(y + i), &slow_mul);
        if (fpv_any(slow_mul))
            for (unsigned l = 0; l < FPV_LANES; l++)
                if (slow_mul[l])
                    v[l] = fp17_mul(conv17[i + l], y[i + l]);
        fpv_u32 h = fpv_fp17_to_fp16(v, &slow_narrow);
        if (fpv_any(slow_narrow))
            for (unsigned l = 0; l < FPV_LANES; l++)
                if (slow_narrow[l])
                    h[l] = fp17_to_fp16(v[l]);
        memcpy(out + i, &h, sizeof h);
    }
    for (; i < n; i++)
        out[i] = fp17_to_fp16(fp17_mul(conv17[i], y[i]));
}

/* The fp16 pipeline after the inputs element by element, on the scalar
 * arithmetic and the reference LUT lookup (the unit test's reference for
 * the four-lane pipeline below). */
static void reference_fp(const struct cdp_lrn_cfg *c, const uint32_t *conv17,
                         const uint32_t *conv32, const uint32_t *sq, unsigned n, int32_t *out,
                         struct dla_lut_stats *s)
{
    unsigned half =
        c->half_window < CDP_LRN_MAX_HALF_WINDOW ? c->half_window : CDP_LRN_MAX_HALF_WINDOW;
    for (unsigned ch = 0; ch < n; ch++) {
        uint32_t sum = c->sqsum_bypass ? sq[ch] : window_sum_at(sq + ch, half);
        uint32_t y = lut_cdp_lookup_fp(c->lut, &c->lut_cfg, sum, s);
        if (c->mul_bypass) /* a NaN input passes through */
            out[ch] = fp17_to_fp16(fp_is_nan(FP32, conv32[ch]) ? conv17[ch] : y);
        else
            out[ch] = fp17_to_fp16(fp17_mul(conv17[ch], y));
    }
}

/* fp16 pipeline; scratch holds CDP_LRN_SCRATCH(n) words: the fp17 and fp32
 * forms, the padded squares, and the sums (then the LUT's results). */
static void lrn_vector_fp(const struct cdp_lrn_cfg *c, const int32_t *raw, unsigned n,
                          unsigned valid, int32_t *out, int32_t *scratch, struct dla_lut_stats *s)
{
    const unsigned pad = CDP_LRN_MAX_HALF_WINDOW;
    uint32_t *conv17 = (uint32_t *)scratch, *conv32 = conv17 + n, *padded = conv32 + n;
    uint32_t *sq = padded + pad, *sum = sq + n + pad;
    memset(padded, 0, pad * sizeof *padded);
    memset(sq + n, 0, pad * sizeof *sq);
    fp_inputs(c, raw, n, valid, conv17, conv32, sq);
    if (!c->lut_fp) {
        reference_fp(c, conv17, conv32, sq, n, out, s);
        return;
    }
    fp_window_sums(c, sq, n, sum);
    lut_cdp_fp_lookup_all(c->lut_fp, sum, n, s);
    if (!c->mul_bypass) {
        multiply_out(conv17, sum, n, out);
        return;
    }
    for (unsigned ch = 0; ch < n; ch++) /* a NaN input passes through */
        out[ch] = fp17_to_fp16(fp_is_nan(FP32, conv32[ch]) ? conv17[ch] : sum[ch]);
}

uint64_t cdp_lrn_vector(const struct cdp_lrn_cfg *c, const int32_t *raw, unsigned n, unsigned valid,
                        int32_t *out, int32_t *scratch, struct dla_lut_stats *s)
{
    if (c->fp16) {
        lrn_vector_fp(c, raw, n, valid, out, scratch, s);
        return 0; /* the fp16 output convertor does not saturate */
    }
    int32_t *conv = scratch;
    for (unsigned i = 0; i < n; i++)
        conv[i] = i < valid ? cdp_in_convert(c, raw[i]) : 0;
    uint64_t saturated = 0;
    for (unsigned ch = 0; ch < n; ch++) {
        int64_t sum = window_sum(c, conv, n, ch);
        int16_t y = lut_cdp_lookup(c->lut, &c->lut_cfg, c->path, sum, s);
        int64_t product = c->mul_bypass ? y : (int64_t)y * conv[ch];
        bool sat;
        out[ch] = cdp_out_convert(c, product, &sat);
        saturated += sat;
    }
    return saturated;
}
