/* PDP pooling on one channel plane (see pdp_pool.h). */
#include "pdp_pool.h"

#include <string.h>

#include "core/cube.h"
#include "num/fpnum.h"
#include "num/hot_clones.h"

/* Partial results live in int16 (int8 input) or int32 (int16 input)
 * registers; sums wrap around as the hardware's do. */
static int32_t wrap(int64_t v, enum pdp_precision p)
{
    return p == PDP_INT8 ? (int16_t)(uint16_t)(uint64_t)v : (int32_t)(uint32_t)(uint64_t)v;
}

int32_t pdp_pad_value(uint32_t field, unsigned n, enum pdp_precision precision)
{
    static const uint8_t sign_int8[PDP_PAD_VALUES] = {7, 8, 9, 9, 10, 10, 10};
    static const uint8_t sign_int16[PDP_PAD_VALUES] = {15, 16, 17, 17, 18, 18, 18};
    if (n < 1 || n > PDP_PAD_VALUES)
        return 0;
    if (precision == PDP_FP16)
        return (int32_t)(field & 0x1ffffu); /* an fp17 value */
    unsigned bit = precision == PDP_INT8 ? sign_int8[n - 1] : sign_int16[n - 1];
    /* the bits above the sign bit are set from it and OR-ed with the field */
    uint32_t above = ((field >> bit) & 1u) ? ~((2u << bit) - 1u) : 0;
    return wrap((int32_t)(field | above), precision);
}

/* The sum of `taps` padding values, or 0 (+0.0 in fp17) when none. */
static int32_t pad_sum(const struct pdp_pool_cfg *c, unsigned taps)
{
    return taps >= 1 && taps <= PDP_PAD_VALUES ? c->pad_value[taps - 1] : 0;
}

static bool is_fp(const struct pdp_pool_cfg *c)
{
    return c->precision == PDP_FP16;
}

/* Max or min of two partial results (fp16 bits compared as the hardware
 * does, NaN first). */
static inline int32_t extreme(const struct pdp_pool_cfg *c, int32_t a, int32_t b)
{
    if (is_fp(c))
        return c->method == PDP_MAX ? fp16_max((uint16_t)a, (uint16_t)b)
                                    : fp16_min((uint16_t)a, (uint16_t)b);
    if (c->method == PDP_MAX)
        return a > b ? a : b;
    return a < b ? a : b;
}

/* Average partial sums: integers wrap, fp16 sums are kept in fp17. */
static int32_t add(const struct pdp_pool_cfg *c, int32_t a, int32_t b)
{
    if (is_fp(c))
        return (int32_t)fp_add(FP17, (uint32_t)a, (uint32_t)b);
    return wrap((int64_t)a + b, (enum pdp_precision)c->precision);
}

/* Fold input element w of a row into the row part of the window whose tap
 * kw it is (LineOperation).  Padding taps are added where the hardware adds
 * them: at the window's last tap when the window starts left of the row
 * (or at the row's last element when it is also cut on the right), or at
 * the row's last element for the taps right of it.  In fp16 the hardware
 * adds both padding terms always (zero when there is none). */
static int32_t row_fold(const struct pdp_pool_cfg *c, const struct pdp_pool_split *s, int32_t acc,
                        int32_t v, unsigned w, unsigned kw)
{
    unsigned k = c->kernel_w;
    bool first = w == 0 || kw == 0;
    if (c->method != PDP_AVERAGE)
        return first ? v : extreme(c, acc, v);
    bool last_in_row = w + 1 == s->in_w;
    bool left = w + 1 < k && (kw + 1 == k || (last_in_row && w < kw && s->pad_left));
    bool right = !left && w + k - kw > s->in_w && last_in_row;
    int32_t pad_l = left ? pad_sum(c, k - (w + 1)) : 0;
    int32_t pad_r = right ? pad_sum(c, k - (kw + 1)) : 0;
    if (is_fp(c)) {
        int32_t v17 = (int32_t)fpnum_fp16_to_fp17((uint16_t)v);
        int32_t r = first ? v17 : add(c, acc, v17);
        return add(c, add(c, r, pad_l), pad_r);
    }
    return add(c, first ? v : add(c, acc, v), pad_l + pad_r);
}

/* kernel_w as an fp17 number (the hardware's table of 1.0 .. 7.0; its
 * entry for 8 lies past the table's end, 8.0 is used). */
static uint32_t kernel_fp17(unsigned k)
{
    static const uint32_t value[9] = {0x0000, 0x7c00, 0x8000, 0x8200, 0x8400,
                                      0x8500, 0x8600, 0x8700, 0x8800};
    return k <= 8 ? value[k] : 0;
}

/* Fold a completed window row into the output element (PoolingStage0Calc);
 * padded rows count kernel_w pad values each. */
static int32_t column_fold(const struct pdp_pool_cfg *c, int32_t acc, int32_t row, unsigned h,
                           unsigned kh)
{
    unsigned k = c->kernel_h;
    bool first = h == 0 || kh == 0;
    if (c->method != PDP_AVERAGE)
        return first ? row : extreme(c, row, acc);
    bool last_row = h + 1 == c->in_h;
    bool top = h + 1 < k && (kh + 1 == k || (last_row && h < kh));
    bool bottom = !top && h + k - kh > c->in_h && last_row;
    int32_t pad_t = top ? pad_sum(c, k - (h + 1)) : 0;
    int32_t pad_b = bottom ? pad_sum(c, k - (kh + 1)) : 0;
    if (is_fp(c)) {
        uint32_t kw = kernel_fp17(c->kernel_w);
        pad_t = (int32_t)fp_mul(FP17, (uint32_t)pad_t, kw);
        pad_b = (int32_t)fp_mul(FP17, (uint32_t)pad_b, kw);
        int32_t r = first ? row : add(c, row, acc);
        return add(c, add(c, r, pad_t), pad_b);
    }
    enum pdp_precision p = (enum pdp_precision)c->precision;
    int32_t pad = wrap((int64_t)(pad_t + pad_b) * c->kernel_w, p);
    return add(c, first ? row : add(c, acc, row), pad);
}

/* Does tap t of a window cover position pos (in padded coordinates) of a
 * dimension with `size` elements and `pads` padding in total? */
static bool tap_valid(unsigned pos, unsigned t, unsigned k, unsigned stride, unsigned size,
                      unsigned pads)
{
    return pos >= t && pos + (k - t) <= size + pads && (pos - t) % stride == 0;
}

static unsigned row_slots(const struct pdp_pool_cfg *c)
{
    return (c->kernel_w + c->stride_w - 1) / c->stride_w;
}

size_t pdp_pool_scratch(const struct pdp_pool_cfg *c, const struct pdp_pool_split *s)
{
    return row_slots(c) + 2 * (size_t)s->out_w * c->out_h;
}

/* Every window row that input row h completes, folded into its outputs. */
static void fold_rows(const struct pdp_pool_cfg *c, const struct pdp_pool_split *s, unsigned h,
                      unsigned ox, int32_t row, int32_t *acc, int32_t *reached)
{
    for (unsigned kh = 0; kh < c->kernel_h; kh++) {
        unsigned pos = c->pad_top + h;
        if (!tap_valid(pos, kh, c->kernel_h, c->stride_h, c->in_h, c->pad_top + c->pad_bottom))
            continue;
        unsigned oy = (pos - kh) / c->stride_h;
        if (oy >= c->out_h || ox >= s->out_w)
            continue; /* beyond the programmed output: nobody reads it */
        size_t i = (size_t)oy * s->out_w + ox;
        acc[i] = column_fold(c, acc[i], row, h, kh);
        reached[i] = 1;
    }
}

static void stage0_row(const struct pdp_pool_cfg *c, const struct pdp_pool_split *s,
                       const int32_t *in_row, unsigned h, int32_t *slots, int32_t *acc,
                       int32_t *reached)
{
    unsigned k = c->kernel_w, n_slots = row_slots(c);
    for (unsigned w = 0; w < s->in_w; w++) {
        for (unsigned kw = 0; kw < k; kw++) {
            unsigned pos = s->pad_left + w;
            if (!tap_valid(pos, kw, k, c->stride_w, s->in_w, s->pad_left + s->pad_right))
                continue;
            unsigned ox = (pos - kw) / c->stride_w;
            int32_t *slot = &slots[ox % n_slots];
            *slot = row_fold(c, s, *slot, in_row[w], w, kw);
            bool row_done = kw + 1 == k || (w + k - kw > s->in_w && w + 1 == s->in_w);
            if (row_done)
                fold_rows(c, s, h, ox, *slot, acc, reached);
        }
    }
}

static int32_t to_output(int32_t v, enum pdp_precision p)
{
    if (p == PDP_FP16)
        return (uint16_t)v; /* fp16 bits */
    return p == PDP_INT8 ? (int8_t)(uint8_t)v : (int16_t)(uint16_t)v;
}

/* One rounding step of the average: v * recip / 65536 in double, rounded
 * half away from zero by adding +-0.5 and truncating to int32 (on x86 an
 * out-of-range conversion gives INT32_MIN, as the reference machine did). */
static int32_t scale_round(int32_t v, uint32_t recip)
{
    double f = (double)v * recip / 65536;
    double r = f > 0 ? f + 0.5 : f - 0.5;
    if (!(r > -2147483649.0 && r < 2147483648.0))
        return INT32_MIN;
    return (int32_t)r;
}

int32_t pdp_average(int32_t sum, uint32_t recip_w, uint32_t recip_h, enum pdp_precision precision)
{
    if (precision == PDP_FP16) {
        /* fp17 sum times the fp17 reciprocals, to fp16 */
        uint32_t r = fp_mul(FP17, (uint32_t)sum & 0x1ffffu, recip_w & 0x1ffffu);
        r = fp_mul(FP17, r, recip_h & 0x1ffffu);
        return fpnum_fp17_to_fp16(r);
    }
    return to_output(scale_round(scale_round(sum, recip_w), recip_h), precision);
}

/* ------------------------------------------------- max and min, separable
 *
 * The walk above follows the hardware tap by tap, one channel plane at a
 * time.  For max and min without a NaN the order of the taps cannot change
 * the result (integers; fp16 through its order key, where equal keys are
 * equal bits), so a window's extreme is the extreme of its real rows'
 * extremes: one pass along each input row for every output column, one
 * down the rows for every output row.  Every channel of an atom goes
 * through both passes together, straight from the atoms, so a tap's fold is
 * one run of (outputs x channels) values, and the rows of one window live
 * in a ring of kernel_h rows. */

/* The outputs [*lo, *hi) of one dimension whose window holds tap t on a real
 * element: window o covers padded positions o * stride + t, real when in
 * [pad, pad + size); windows that do not end inside the padded extent, or
 * lie beyond the `outs` programmed, are not computed by the hardware. */
static inline void tap_outputs(unsigned t, unsigned k, unsigned stride, unsigned size, unsigned pad,
                               unsigned pads, unsigned outs, unsigned *lo, unsigned *hi)
{
    unsigned whole = size + pads >= k ? (size + pads - k) / stride + 1 : 0;
    unsigned end = whole < outs ? whole : outs;
    /* real: pad <= o * stride + t < pad + size */
    unsigned first = t >= pad ? 0 : (pad - t + stride - 1) / stride;
    unsigned last = pad + size > t ? (pad + size - t - 1) / stride + 1 : 0;
    *lo = first;
    *hi = last < end ? last : end;
    if (*lo > *hi)
        *lo = *hi;
}

/* fp16 specials of a row (n elements): its infinities added to *inf; false
 * on a NaN.  Only rows whose largest magnitude says they hold one come here. */
static bool count_specials(const uint8_t *p, size_t n, uint64_t *inf)
{
    uint64_t nans = 0;
    feature_count_fp16_specials(p, 2 * n, &nans, inf);
    return nans == 0;
}

/* A row of atoms' elements (n of them) as int32: int8 and int16 values
 * sign-extended, fp16 as order keys (fp16_order_key), its infinities added
 * to *inf; false when an fp16 element is a NaN.  The fp16 loop keeps only
 * the largest magnitude, which is cheaper than counting: a row of finite
 * values, nearly every row, is never counted. */
static inline bool widen_row(const uint8_t *p, size_t n, enum pdp_precision prec, int32_t *out,
                             uint64_t *inf)
{
    if (prec != PDP_FP16) {
        unsigned bpe = prec == PDP_INT8 ? 1 : 2;
        feature_load_strided(p, bpe, n, bpe, false, out);
        return true;
    }
    int32_t largest = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t v = feature_load(p + 2 * i, 2, false), mag = v & 0x7fff;
        largest = mag > largest ? mag : largest;
        out[i] = fp16_order_key((uint16_t)v);
    }
    return largest < 0x7c00 || count_specials(p, n, inf);
}

/* fp16 rows no window reads still count their infinities; false on a NaN
 * (which changes no output, but the caller recounts the block then). */
static bool count_rows(const uint8_t *in, size_t row_elems, unsigned from, unsigned to,
                       uint64_t *inf)
{
    for (unsigned h = from; h < to; h++)
        if (!count_specials(in + (size_t)h * row_elems * 2, row_elems, inf))
            return false;
    return true;
}

/* An output row back to atoms' bytes (fp16: order key to bits). */
static inline void narrow_row(const int32_t *v, size_t n, enum pdp_precision prec, uint8_t *p)
{
    unsigned bpe = prec == PDP_INT8 ? 1 : 2;
    if (prec == PDP_FP16)
        for (size_t i = 0; i < n; i++)
            feature_store(p + 2 * i, 2, fp16_from_order_key(v[i]));
    else
        feature_store_strided(p, bpe, n, bpe, v);
}

/* dst[i] = extreme(dst[i], src[i]) for i < n. */
static inline void fold_run(int32_t *dst, const int32_t *src, size_t n, bool max)
{
    if (max)
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i] > dst[i] ? src[i] : dst[i];
    else
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i] < dst[i] ? src[i] : dst[i];
}

/* What the separable passes share. */
struct extreme_pass {
    const struct pdp_pool_cfg *c;
    const struct pdp_pool_split *s;
    unsigned lanes;
    bool max;
    int32_t none; /* no window tap: neither an int16 value nor an fp16 key */
    int32_t *wide, *ring;
    long *ring_row;    /* the input row each ring slot holds, -1 none */
    unsigned next_row; /* rows below it are widened or counted */
    uint64_t inf;      /* fp16 infinities in those rows */
};

/* Input row h's extremes for every output column and lane, in its ring
 * slot (computed once: windows move down); NULL on an fp16 NaN. */
static inline __attribute__((always_inline)) const int32_t *
row_extremes(struct extreme_pass *x, const uint8_t *in, unsigned h)
{
    const struct pdp_pool_cfg *c = x->c;
    const struct pdp_pool_split *s = x->s;
    size_t L = x->lanes, ow = s->out_w, in_w = s->in_w; /* locals: r may alias *c, *s */
    unsigned slot = h % c->kernel_h;
    int32_t *r = x->ring + slot * ow * L;
    if (x->ring_row[slot] == (long)h)
        return r;
    size_t bpe = c->precision == PDP_INT8 ? 1 : 2;
    bool fp = c->precision == PDP_FP16;
    if (fp && !count_rows(in, in_w * L, x->next_row, h, &x->inf))
        return NULL;
    if (!widen_row(in + (size_t)h * in_w * L * bpe, in_w * L, (enum pdp_precision)c->precision,
                   x->wide, &x->inf))
        return NULL;
    x->next_row = h + 1;
    for (size_t i = 0; i < ow * L; i++)
        r[i] = x->none;
    for (unsigned t = 0; t < c->kernel_w; t++) {
        unsigned lo, hi;
        tap_outputs(t, c->kernel_w, c->stride_w, s->in_w, s->pad_left, s->pad_left + s->pad_right,
                    s->out_w, &lo, &hi);
        size_t at = (size_t)lo * c->stride_w + t - s->pad_left; /* output lo's tap t */
        if (lo >= hi)
            continue;
        if (c->stride_w == 1)
            fold_run(r + lo * L, x->wide + at * L, (hi - lo) * L, x->max);
        else
            for (unsigned o = lo; o < hi; o++, at += c->stride_w)
                fold_run(r + o * L, x->wide + at * L, L, x->max);
    }
    x->ring_row[slot] = (long)h;
    return r;
}

/* How many of v[0..n) no window reached (none), each made 0 (for fp16 the
 * key of +0.0 is 0 too).  Counting and replacing are separate loops, which
 * vectorise. */
static inline unsigned unreached_outputs(int32_t *v, size_t n, int32_t none)
{
    unsigned count = 0;
    for (size_t i = 0; i < n; i++)
        count += v[i] == none;
    for (size_t i = 0; count && i < n; i++)
        v[i] = v[i] == none ? 0 : v[i];
    return count;
}

size_t pdp_pool_extreme_scratch(const struct pdp_pool_cfg *c, const struct pdp_pool_split *s,
                                unsigned lanes)
{
    size_t ring = (size_t)c->kernel_h * s->out_w * lanes;
    return (size_t)s->in_w * lanes + ring + (size_t)s->out_w * lanes; /* wide, ring, acc */
}

DLA_HOT_CLONES bool pdp_pool_extreme(const struct pdp_pool_cfg *c, const struct pdp_pool_split *s,
                                     const uint8_t *in, unsigned lanes, uint8_t *out,
                                     int32_t *scratch, struct pdp_extreme_tally *tally)
{
    size_t L = lanes, ow = s->out_w;
    struct extreme_pass x = {c, s, lanes, c->method == PDP_MAX, 0, NULL, NULL, NULL, 0, 0};
    x.none = x.max ? INT32_MIN : INT32_MAX;
    x.wide = scratch;
    x.ring = x.wide + (size_t)s->in_w * L;
    int32_t *acc = x.ring + (size_t)c->kernel_h * ow * L;
    long ring_row[PDP_KERNEL_MAX];
    for (unsigned i = 0; i < PDP_KERNEL_MAX; i++)
        ring_row[i] = -1;
    x.ring_row = ring_row;
    size_t bpe = c->precision == PDP_INT8 ? 1 : 2;
    unsigned out_h = c->out_h, unreached = 0;
    for (unsigned oy = 0; oy < out_h; oy++) {
        for (size_t i = 0; i < ow * L; i++)
            acc[i] = x.none;
        for (unsigned t = 0; t < c->kernel_h; t++) {
            unsigned lo, hi;
            tap_outputs(t, c->kernel_h, c->stride_h, c->in_h, c->pad_top,
                        c->pad_top + c->pad_bottom, c->out_h, &lo, &hi);
            if (oy < lo || oy >= hi)
                continue;
            const int32_t *r = row_extremes(&x, in, oy * c->stride_h + t - c->pad_top);
            if (!r)
                return false;
            fold_run(acc, r, ow * L, x.max);
        }
        unreached += unreached_outputs(acc, ow * L, x.none);
        narrow_row(acc, ow * L, (enum pdp_precision)c->precision, out + (size_t)oy * ow * L * bpe);
    }
    if (c->precision == PDP_FP16 &&
        !count_rows(in, (size_t)s->in_w * L, x.next_row, c->in_h, &x.inf))
        return false;
    tally->missing = unreached;
    tally->infinities = x.inf;
    return true;
}

unsigned pdp_pool_plane(const struct pdp_pool_cfg *c, const struct pdp_pool_split *s,
                        const int32_t *in, int32_t *out, int32_t *scratch)
{
    size_t n_out = (size_t)s->out_w * c->out_h;
    int32_t *slots = scratch, *acc = scratch + row_slots(c), *reached = acc + n_out;
    memset(scratch, 0, pdp_pool_scratch(c, s) * sizeof *scratch);
    for (unsigned h = 0; h < c->in_h; h++)
        stage0_row(c, s, in + (size_t)h * s->in_w, h, slots, acc, reached);
    unsigned missing = 0;
    enum pdp_precision p = (enum pdp_precision)c->precision;
    for (size_t i = 0; i < n_out; i++) {
        if (!reached[i]) {
            missing++;
            out[i] = 0;
        } else if (c->method == PDP_AVERAGE) {
            out[i] = pdp_average(acc[i], c->recip_w, c->recip_h, p);
        } else {
            out[i] = to_output(acc[i], p);
        }
    }
    return missing;
}
