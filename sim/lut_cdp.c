/* CDP's lookups in the two-level LUT (see lut.h): the integer pipeline of
 * cmod/cdp/NV_NVDLA_cdp.cpp (lookup_lut, lookup_lut_int8), whose rounding is
 * done in double, and the fp16 pipeline of cmod/hls_wrapper/
 * cdp_hls_wrapper.cpp (HLS_CDP_lookup_lut) in the cmod's float arithmetic. */
#include <math.h>
#include <string.h>

#include "fixpt.h"
#include "fpnum_inline.h"
#include "lut.h"
#include "lut_internal.h"

/* ---------------------------------------------------------------- C-model arithmetic */

/* The C model's CDP rounding helper: value / 2^shift computed in double,
 * rounded half away from zero by adding +-0.5 and truncating, then clamped
 * to a signed range of `bits` bits.  Doing it in double (not exactly) is
 * what makes the results bit-exact with NVIDIA's golden data. */
static int64_t cmod_convert(int64_t value, int shift, unsigned bits)
{
    bool positive = value > 0;
    double f = (double)value;
    f = shift >= 0 ? f / (double)(1ull << shift) : f * (double)(1ull << -shift);
    int64_t out;
    double mag = f < 0 ? -f : f;
    if (mag >= 9223372036854775808.0) /* the model's exponent > 62 case */
        out = positive ? INT64_MAX : INT64_MIN;
    else
        out = positive ? (int64_t)(f + 0.5) : (int64_t)(f - 0.5);
    return fix_sat(out, bits);
}

/* Two's-complement wrap-around products: hostile register values must not
 * become undefined behaviour. */
static int64_t wrap_mul(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a * (uint64_t)b);
}

static int64_t wrap_sub(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* The C model shifts 64-bit integers by register-derived counts; on the
 * x86 machines that produced the goldens the count is taken modulo 64. */
static int64_t shl64(int64_t v, int n)
{
    return (int64_t)((uint64_t)v << (n & 63));
}

static int64_t shr64(int64_t v, int n)
{
    return v >> (n & 63);
}

/* (1 << bits) computed in 32-bit int as the C model does, for the modulo
 * that extracts an interpolation offset; an x86 count is taken modulo 32
 * and 1 << 31 is INT_MIN, whose modulo keeps the low 31 bits. */
static int64_t low_bits_mod(int64_t v, int bits)
{
    int n = bits & 31;
    if (n == 31)
        return v % INT32_MIN;
    return v % ((int64_t)1 << n);
}

/* ---------------------------------------------------------------- CDP lookup */

/* Per-table outcome of one CDP lookup. */
struct cdp_side {
    int16_t y;
    bool uflow, oflow, hit;
};

static int64_t cdp_extrapolate(int16_t y_edge, int64_t dist, int16_t scale, uint8_t shift)
{
    int64_t r = y_edge + cmod_convert(wrap_mul(dist, scale), lut_shift5(shift), 56);
    return fix_sat(r, 16);
}

/* Interpolate between two entries with a 16-bit fraction offset. */
static int16_t cdp_interpolate(int16_t y0, int16_t y1, int64_t off16)
{
    return (int16_t)fix_sat(y0 + cmod_convert(wrap_mul((int64_t)y1 - y0, off16), 16, 56), 16);
}

/* 16-bit interpolation offset from `bits` fractional bits. */
static int64_t to_q16(int64_t off, int bits)
{
    return bits > 16 ? shr64(off, bits - 16) : shl64(off, 16 - bits);
}

static void cdp_le_exponent(const struct dla_lut_ram *r, const struct lut_cfg *c, int64_t x,
                            struct cdp_side *s)
{
    int offset = (int8_t)c->le_index_offset;
    int64_t rel = wrap_sub(x, c->le_start);
    int log = rel > 0 ? lut_floor_log2((uint64_t)rel) : 0;
    int index = log - offset;
    if (index < 0 || rel <= 0) {
        int64_t bias = offset < 0 ? 0 : shl64(1, offset);
        s->uflow = true;
        s->y = (int16_t)cdp_extrapolate((int16_t)r->le[0], wrap_sub(rel, bias), c->le_uflow_scale,
                                        c->le_uflow_shift);
    } else if (index >= LUT_LE_LAST) {
        s->oflow = true;
        s->y = (int16_t)cdp_extrapolate((int16_t)r->le[LUT_LE_LAST], wrap_sub(x, c->le_end),
                                        c->le_oflow_scale, c->le_oflow_shift);
    } else {
        int64_t off = rel - ((int64_t)1 << log);
        s->hit = true;
        s->y = cdp_interpolate((int16_t)r->le[index], (int16_t)r->le[index + 1], to_q16(off, log));
    }
}

/* A linear table (LE in linear mode, or LO): index = (x - start) >> select. */
static void cdp_linear(const uint16_t *table, int last, int64_t start, int64_t end, int select,
                       int16_t uscale, uint8_t ushift, int16_t oscale, uint8_t oshift, int64_t x,
                       struct cdp_side *s)
{
    int64_t rel = wrap_sub(x, start);
    int64_t index = select < 0 ? shl64(rel, -select) : shr64(rel, select);
    if (index < 0 || rel <= 0) {
        s->uflow = true;
        s->y = (int16_t)cdp_extrapolate((int16_t)table[0], rel, uscale, ushift);
    } else if (index >= last) {
        s->oflow = true;
        s->y = (int16_t)cdp_extrapolate((int16_t)table[last], wrap_sub(x, end), oscale, oshift);
    } else {
        int64_t off = select < 0 ? 0 : to_q16(low_bits_mod(rel, select), select);
        s->hit = true;
        s->y = cdp_interpolate((int16_t)table[index], (int16_t)table[index + 1], off);
    }
}

/* Index select fields: the int8 path sign-extends 6 bits, int16 7 bits. */
static int cdp_select(uint8_t raw, enum lut_cdp_path path)
{
    return dla_sext(raw, path == LUT_CDP_INT8 ? 6 : 7);
}

/* Hit/miss classes of one CDP sample (the histogram is the caller's). */
static void cdp_classes(const struct cdp_side *le, const struct cdp_side *lo,
                        struct dla_lut_stats *s)
{
    s->lookups++;
    s->le_underflow += le->uflow;
    s->le_overflow += le->oflow;
    s->lo_underflow += lo->uflow;
    s->lo_overflow += lo->oflow;
    if (le->uflow && lo->uflow)
        s->underflow++;
    else if (le->oflow && lo->oflow)
        s->overflow++;
    else if (le->hit && !lo->hit)
        s->le_hit++;
    else if (lo->hit && !le->hit)
        s->lo_hit++;
    else
        s->hybrid++;
}

int16_t lut_cdp_lookup(const struct dla_lut_ram *r, const struct lut_cfg *c, enum lut_cdp_path path,
                       int64_t x, struct dla_lut_stats *s)
{
    struct cdp_side le = {0}, lo = {0};
    if (c->le_linear)
        cdp_linear(r->le, LUT_LE_LAST, c->le_start, c->le_end, cdp_select(c->le_index_select, path),
                   c->le_uflow_scale, c->le_uflow_shift, c->le_oflow_scale, c->le_oflow_shift, x,
                   &le);
    else
        cdp_le_exponent(r, c, x, &le);
    cdp_linear(r->lo, LUT_LO_LAST, c->lo_start, c->lo_end, cdp_select(c->lo_index_select, path),
               c->lo_uflow_scale, c->lo_uflow_shift, c->lo_oflow_scale, c->lo_oflow_shift, x, &lo);
    if (s) {
        cdp_classes(&le, &lo, s);
        lut_histogram_over_tables_int(s, c, x,
                                      lut_range_of(le.uflow, le.oflow, lo.uflow, lo.oflow));
    }
    if (le.uflow && lo.uflow)
        return c->uflow_lo ? lo.y : le.y;
    if (le.oflow && lo.oflow)
        return c->oflow_lo ? lo.y : le.y;
    if (le.hit != lo.hit)
        return le.hit ? le.y : lo.y;
    return c->hybrid_lo ? lo.y : le.y; /* both hit, or one under- and one overflow */
}

/* ---------------------------------------------------------------- CDP lookup, fp16 */

static uint32_t bits32(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* One table of the fp16 pipeline. */
struct cdp_fp_table {
    const uint16_t *entries;
    unsigned last;          /* 64 or 256 */
    bool exponent;          /* the LE table in exponential mode */
    uint32_t start, end;    /* fp32 bits */
    int16_t uscale, oscale; /* fp16 bits */
    int index_offset;       /* exponential mode */
    int index_select;       /* linear mode, signed 8 bits */
};

/* Where x - start falls: index and 16-bit offset, or under/overflow. */
static void fp_locate(const struct cdp_fp_table *t, uint32_t diff, struct cdp_side *s,
                      int32_t *index, uint16_t *offset16)
{
    float f = lut_f32(diff);
    *index = 0;
    *offset16 = 0;
    if (f <= 0 || isnan(f)) {
        s->uflow = true;
        return;
    }
    if (t->exponent) {
        int e = (int)((diff >> 23) & 0xffu) - 127 - t->index_offset;
        uint16_t off = (uint16_t)((diff >> 7) & 0xffffu);
        if (e < 0) {
            *offset16 = -e >= 16 ? 0 : (uint16_t)(off >> -e);
            s->uflow = true;
        } else if (e >= (int)t->last) {
            s->oflow = true;
        } else {
            *index = e;
            *offset16 = off;
        }
        return;
    }
    /* the quotient is taken in double and kept as a float */
    float q = (float)ldexp((double)f, -t->index_select);
    if (q >= (float)t->last) {
        s->oflow = true;
        return;
    }
    *index = (int32_t)q;
    *offset16 = (uint16_t)((q - (float)*index) * 65536.0f);
}

static uint32_t fp_extrapolate(uint16_t edge, int16_t scale, uint32_t diff)
{
    uint32_t slope = fpnum_fp16_to_fp17((uint16_t)scale);
    uint32_t d = fpnum_fp32_to_fp17(diff);
    return (uint32_t)fp_add(FP17, fp_mul(FP17, d, slope), fpnum_fp16_to_fp17(edge));
}

static uint32_t fp_table_lookup(const struct cdp_fp_table *t, uint32_t x, struct cdp_side *s)
{
    uint32_t diff = (uint32_t)fp_sub(FP32, x, t->start);
    int32_t index;
    uint16_t offset16;
    fp_locate(t, diff, s, &index, &offset16);
    if (s->uflow) {
        if (t->exponent) {
            /* the first entry sits at start + 2^index_offset */
            float step = t->index_offset <= -127 ? 0.0f : (float)ldexp(1.0, t->index_offset);
            uint32_t origin = (uint32_t)fp_add(FP32, t->start, bits32(step));
            diff = (uint32_t)fp_sub(FP32, x, origin);
        }
        return fp_extrapolate(t->entries[0], t->uscale, diff);
    }
    if (s->oflow)
        return fp_extrapolate(t->entries[t->last], t->oscale, (uint32_t)fp_sub(FP32, x, t->end));
    s->hit = true;
    uint16_t y0 = t->entries[index], y1 = t->entries[index + 1];
    uint32_t dy = (uint32_t)fp_sub(FP32, fpnum_fp16_to_fp32(y1), fpnum_fp16_to_fp32(y0));
    uint32_t w = fpnum_fraction_to_fp17(offset16, 16);
    return (uint32_t)fp_add(FP17, fp_mul(FP17, fpnum_fp32_to_fp17(dy), w), fpnum_fp16_to_fp17(y0));
}

uint32_t lut_cdp_lookup_fp(const struct dla_lut_ram *r, const struct lut_cfg *c, uint32_t x,
                           struct dla_lut_stats *s)
{
    struct cdp_fp_table le_t = {r->le,
                                LUT_LE_LAST,
                                !c->le_linear,
                                (uint32_t)c->le_start,
                                (uint32_t)c->le_end,
                                c->le_uflow_scale,
                                c->le_oflow_scale,
                                (int8_t)c->le_index_offset,
                                (int8_t)c->le_index_select};
    struct cdp_fp_table lo_t = {r->lo,
                                LUT_LO_LAST,
                                false,
                                (uint32_t)c->lo_start,
                                (uint32_t)c->lo_end,
                                c->lo_uflow_scale,
                                c->lo_oflow_scale,
                                0,
                                (int8_t)c->lo_index_select};
    struct cdp_side le = {0}, lo = {0};
    uint32_t y_le = fp_table_lookup(&le_t, x, &le);
    uint32_t y_lo = fp_table_lookup(&lo_t, x, &lo);
    if (s) {
        cdp_classes(&le, &lo, s);
        lut_histogram_over_tables_fp(s, c, x, lut_range_of(le.uflow, le.oflow, lo.uflow, lo.oflow));
    }
    if (le.uflow && lo.uflow)
        return c->uflow_lo ? y_lo : y_le;
    if (le.oflow && lo.oflow)
        return c->oflow_lo ? y_lo : y_le;
    if (le.hit != lo.hit)
        return le.hit ? y_le : y_lo;
    return c->hybrid_lo ? y_lo : y_le;
}

/* ---------------------------------------------------------------- CDP lookup, fp16, prepared */

static void prepare_table(const uint16_t *entries, unsigned last, bool exponent, uint32_t start,
                          uint32_t end, int16_t uscale, int16_t oscale, int index_offset,
                          int index_select, struct lut_cdp_fp_table *t)
{
    t->start = start;
    t->end = end;
    t->exponent = exponent;
    t->last = last;
    t->index_offset = index_offset;
    /* 2^-select is a normal double for every signed 8-bit select, and so is
     * its product with any positive float: the product is ldexp's result */
    t->select_scale = ldexp(1.0, -index_select);
    float step = index_offset <= -127 ? 0.0f : (float)ldexp(1.0, index_offset);
    t->uflow_origin = fp32_add(start, bits32(step));
    t->uscale17 = fp16_to_fp17((uint16_t)uscale);
    t->oscale17 = fp16_to_fp17((uint16_t)oscale);
    t->first17 = fp16_to_fp17(entries[0]);
    t->last17 = fp16_to_fp17(entries[last]);
    for (unsigned i = 0; i <= last; i++) {
        t->y17[i] = fp16_to_fp17(entries[i]);
        uint32_t next = i < last ? entries[i + 1] : entries[i];
        t->dy17[i] = fp32_to_fp17(fp32_sub(fp16_to_fp32((uint16_t)next), fp16_to_fp32(entries[i])));
    }
}

void lut_cdp_fp_prepare(const struct dla_lut_ram *r, const struct lut_cfg *c, struct lut_cdp_fp *p)
{
    prepare_table(r->le, LUT_LE_LAST, !c->le_linear, (uint32_t)c->le_start, (uint32_t)c->le_end,
                  c->le_uflow_scale, c->le_oflow_scale, (int8_t)c->le_index_offset,
                  (int8_t)c->le_index_select, &p->le);
    prepare_table(r->lo, LUT_LO_LAST, false, (uint32_t)c->lo_start, (uint32_t)c->lo_end,
                  c->lo_uflow_scale, c->lo_oflow_scale, 0, (int8_t)c->lo_index_select, &p->lo);
    p->uflow_lo = c->uflow_lo;
    p->oflow_lo = c->oflow_lo;
    p->hybrid_lo = c->hybrid_lo;
    lut_histogram_span_fp(c, &p->hist_lo, &p->hist_hi);
}

/* Where x falls in a prepared table (fp_locate after x - start): the side's
 * class, and a hit's index and 16-bit offset. */
struct prepared_place {
    uint32_t diff, index, offset16;
};

static inline __attribute__((always_inline)) struct prepared_place prepared_locate(const struct lut_cdp_fp_table *t, uint32_t x,
                                                    struct cdp_side *s)
{
    struct prepared_place p = {fp32_sub(x, t->start), 0, 0};
    float f = lut_f32(p.diff);
    if (!(f > 0)) { /* zero, negative or NaN */
        s->uflow = true;
        return p;
    }
    if (t->exponent) {
        int e = (int)((p.diff >> 23) & 0xffu) - 127 - t->index_offset;
        if (e < 0)
            s->uflow = true;
        else if (e >= (int)t->last)
            s->oflow = true;
        else
            s->hit = true;
        p.index = (uint32_t)e;
        p.offset16 = (p.diff >> 7) & 0xffffu;
        return p;
    }
    float q = (float)((double)f * t->select_scale);
    if (q >= (float)t->last) {
        s->oflow = true;
        return p;
    }
    s->hit = true;
    p.index = (uint32_t)(int32_t)q;
    p.offset16 = (uint16_t)((q - (float)(int32_t)q) * 65536.0f);
    return p;
}

/* The value fp_table_lookup gives for a located x. */
static inline __attribute__((always_inline)) uint32_t prepared_value(const struct lut_cdp_fp_table *t, uint32_t x,
                                      const struct prepared_place *p, const struct cdp_side *s)
{
    if (s->uflow) {
        uint32_t diff = t->exponent ? fp32_sub(x, t->uflow_origin) : p->diff;
        return fp17_add(fp17_mul(fp32_to_fp17(diff), t->uscale17), t->first17);
    }
    if (s->oflow)
        return fp17_add(fp17_mul(fp32_to_fp17(fp32_sub(x, t->end)), t->oscale17), t->last17);
    return fp17_add(fp17_mul(t->dy17[p->index], fp17_from_q16((uint16_t)p->offset16)), t->y17[p->index]);
}

/* Both tables are located (the statistics count both), but only the value
 * the priorities pick is computed. */
uint32_t lut_cdp_fp_lookup(const struct lut_cdp_fp *p, uint32_t x, struct dla_lut_stats *s)
{
    struct cdp_side le = {0}, lo = {0};
    struct prepared_place at_le = prepared_locate(&p->le, x, &le);
    struct prepared_place at_lo = prepared_locate(&p->lo, x, &lo);
    if (s) {
        cdp_classes(&le, &lo, s);
        lut_histogram_fp_in_span(s, p->hist_lo, p->hist_hi, x,
                                 lut_range_of(le.uflow, le.oflow, lo.uflow, lo.oflow));
    }
    bool take_lo;
    if (le.uflow && lo.uflow)
        take_lo = p->uflow_lo;
    else if (le.oflow && lo.oflow)
        take_lo = p->oflow_lo;
    else if (le.hit != lo.hit)
        take_lo = lo.hit;
    else
        take_lo = p->hybrid_lo;
    return take_lo ? prepared_value(&p->lo, x, &at_lo, &lo) : prepared_value(&p->le, x, &at_le, &le);
}
