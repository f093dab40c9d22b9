/* CDP's lookups in the two-level LUT (see lut.h): the integer pipeline of
 * cmod/cdp/NV_NVDLA_cdp.cpp (lookup_lut, lookup_lut_int8), whose rounding is
 * done in double, and the fp16 pipeline of cmod/hls_wrapper/
 * cdp_hls_wrapper.cpp (HLS_CDP_lookup_lut) in the cmod's float arithmetic. */
#include <math.h>
#include <string.h>

#include "num/fixpt.h"
#include "num/fpnum_vec.h"
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
    t->index_select = index_select;
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

static inline __attribute__((always_inline)) struct prepared_place
prepared_locate(const struct lut_cdp_fp_table *t, uint32_t x, struct cdp_side *s)
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
static inline __attribute__((always_inline)) uint32_t
prepared_value(const struct lut_cdp_fp_table *t, uint32_t x, const struct prepared_place *p,
               const struct cdp_side *s)
{
    if (s->uflow) {
        uint32_t diff = t->exponent ? fp32_sub(x, t->uflow_origin) : p->diff;
        return fp17_add(fp17_mul(fp32_to_fp17(diff), t->uscale17), t->first17);
    }
    if (s->oflow)
        return fp17_add(fp17_mul(fp32_to_fp17(fp32_sub(x, t->end)), t->oscale17), t->last17);
    return fp17_add(fp17_mul(t->dy17[p->index], fp17_from_q16((uint16_t)p->offset16)),
                    t->y17[p->index]);
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
    return take_lo ? prepared_value(&p->lo, x, &at_lo, &lo)
                   : prepared_value(&p->le, x, &at_le, &le);
}

/* ---------------------------------------------------------------- CDP lookup, fp16, four at a time
 */

/* Where four values fall in a prepared table: each lane's class, and a
 * hit's index and offset (prepared_locate four lanes at a time).  A lane
 * whose arithmetic leaves the vector fast paths is set in *slow. */
struct vec_place {
    fpv_i32 uflow, oflow, hit;
    fpv_u32 index, offset16;
};

static inline __attribute__((always_inline)) struct vec_place
vec_locate(const struct lut_cdp_fp_table *t, fpv_u32 x, fpv_i32 *slow)
{
    struct vec_place p;
    fpv_i32 s;
    fpv_u32 diff = fpv_add32(x, fpv_splat(t->start ^ 0x80000000u), &s);
    fpv_i32 positive = (fpv_f32)diff > 0.0f; /* false for zero, negative and NaN */
    fpv_u32 e_diff = (diff >> 23) & 0xffu;
    if (t->exponent) {
        fpv_i32 e = (fpv_i32)e_diff - 127 - t->index_offset;
        p.uflow = ~positive | (e < 0);
        p.oflow = ~p.uflow & (e >= (int32_t)t->last);
        p.index = (fpv_u32)e;
        p.offset16 = (diff >> 7) & 0xffffu;
    } else {
        /* 2^-select scales a normal value exactly while the result stays
         * normal: what the double product then narrowed to float gives */
        int32_t select = t->index_select;
        fpv_i32 e_q = (fpv_i32)e_diff - select;
        s |= positive & ((e_diff == 0u) | (e_diff == 255u) | (e_q < 1) | (e_q > 254));
        fpv_u32 q = diff - ((fpv_u32){1, 1, 1, 1} * (uint32_t)select << 23);
        p.uflow = ~positive;
        p.oflow = positive & ((fpv_f32)q >= (float)t->last);
        /* only a hit's quotient is converted (the others may not fit) */
        q = fpv_select(positive & ~p.oflow, q, fpv_splat(0));
        fpv_i32 q_int = __builtin_convertvector((fpv_f32)q, fpv_i32);
        fpv_f32 frac = ((fpv_f32)q - __builtin_convertvector(q_int, fpv_f32)) * 65536.0f;
        p.index = (fpv_u32)q_int;
        p.offset16 = (fpv_u32) __builtin_convertvector(frac, fpv_i32) & 0xffffu;
    }
    p.hit = ~p.uflow & ~p.oflow;
    *slow |= s;
    return p;
}

/* The value of each lane from its chosen table (prepared_value four lanes
 * at a time): y = A * B + C in fp17 with A the distance to the table's
 * edge or the entries' difference, B the slope or the weight, C the edge
 * entry or the entry. */
static inline __attribute__((always_inline)) fpv_u32
vec_value(const struct lut_cdp_fp *p, fpv_i32 take_lo, fpv_u32 x, const struct vec_place *le,
          const struct vec_place *lo, fpv_i32 *slow)
{
    const struct lut_cdp_fp_table *L = &p->le, *O = &p->lo;
    fpv_i32 uflow = (take_lo & lo->uflow) | (~take_lo & le->uflow);
    fpv_i32 hit = (take_lo & lo->hit) | (~take_lo & le->hit);
    fpv_u32 index = fpv_select(take_lo, lo->index, le->index);
    fpv_u32 offset16 = fpv_select(take_lo, lo->offset16, le->offset16);
    uint32_t le_uorigin = L->exponent ? L->uflow_origin : L->start;
    uint32_t lo_uorigin = O->exponent ? O->uflow_origin : O->start;
    fpv_u32 slope =
        fpv_select(take_lo, fpv_select(uflow, fpv_splat(O->uscale17), fpv_splat(O->oscale17)),
                   fpv_select(uflow, fpv_splat(L->uscale17), fpv_splat(L->oscale17)));
    fpv_u32 edge =
        fpv_select(take_lo, fpv_select(uflow, fpv_splat(O->first17), fpv_splat(O->last17)),
                   fpv_select(uflow, fpv_splat(L->first17), fpv_splat(L->last17)));
    fpv_u32 a = edge, b = slope, c = edge;
    /* neighbouring values mostly land alike: the distance only for lanes
     * past an edge, the entries and weight only for hits */
    if (!fpv_all(hit)) {
        fpv_u32 origin =
            fpv_select(take_lo, fpv_select(uflow, fpv_splat(lo_uorigin), fpv_splat(O->end)),
                       fpv_select(uflow, fpv_splat(le_uorigin), fpv_splat(L->end)));
        fpv_i32 s1, s2;
        a = fpv_fp32_to_fp17(fpv_add32(x, origin ^ 0x80000000u, &s1), &s2);
        *slow |= ~hit & (s1 | s2);
    }
    if (fpv_any(hit)) {
        /* a hit's entries (a slow lane's index may be anything: it is redone) */
        fpv_u32 dy = edge, y0 = edge;
        for (unsigned l = 0; l < FPV_LANES; l++) {
            const struct lut_cdp_fp_table *t = take_lo[l] ? O : L;
            if (hit[l] && index[l] < t->last) {
                dy[l] = t->dy17[index[l]];
                y0[l] = t->y17[index[l]];
            }
        }
        fpv_u32 weight = fpv_float_to_fp17_rounded(
            (fpv_u32)(__builtin_convertvector(offset16, fpv_f32) * (1.0f / 65536.0f)),
            fpv_splat(0));
        weight &= (fpv_u32)(offset16 != 0u);
        a = fpv_select(hit, dy, a);
        b = fpv_select(hit, weight, b);
        c = fpv_select(hit, y0, c);
    }
    fpv_i32 s3, s4;
    fpv_u32 y = fpv_add17(fpv_mul17(a, b, &s3), c, &s4);
    *slow |= s3 | s4;
    return y;
}

/* cdp_classes and the histogram's below/above for the lanes in ok, as
 * lane counts added to c (their order does not matter); the lanes in range
 * of one table go to the histogram's bins one by one. */
struct vec_counts {
    fpv_u32 lookups, le_underflow, le_overflow, lo_underflow, lo_overflow;
    fpv_u32 underflow, overflow, le_hit, lo_hit, hybrid;
};

static inline __attribute__((always_inline)) void
vec_count(const struct lut_cdp_fp *p, fpv_i32 ok, fpv_u32 x, const struct vec_place *le,
          const struct vec_place *lo, struct vec_counts *c, struct dla_lut_stats *s)
{
    fpv_i32 under = ok & le->uflow & lo->uflow, over = ok & ~under & le->oflow & lo->oflow;
    fpv_i32 rest = ok & ~under & ~over;
    c->lookups -= (fpv_u32)ok;
    c->le_underflow -= (fpv_u32)(ok & le->uflow);
    c->le_overflow -= (fpv_u32)(ok & le->oflow);
    c->lo_underflow -= (fpv_u32)(ok & lo->uflow);
    c->lo_overflow -= (fpv_u32)(ok & lo->oflow);
    c->underflow -= (fpv_u32)under;
    c->overflow -= (fpv_u32)over;
    c->le_hit -= (fpv_u32)(rest & le->hit & ~lo->hit);
    c->lo_hit -= (fpv_u32)(rest & lo->hit & ~le->hit);
    c->hybrid -= (fpv_u32)(rest & ~(le->hit ^ lo->hit));
    if (fpv_any(rest))
        for (unsigned l = 0; l < FPV_LANES; l++)
            if (rest[l])
                lut_histogram_fp_in_span(s, p->hist_lo, p->hist_hi, x[l], LUT_IN_RANGE);
}

static uint64_t lane_sum(fpv_u32 v)
{
    return (uint64_t)v[0] + v[1] + v[2] + v[3];
}

static void add_counts(const struct vec_counts *c, struct dla_lut_stats *s)
{
    s->lookups += lane_sum(c->lookups);
    s->le_underflow += lane_sum(c->le_underflow);
    s->le_overflow += lane_sum(c->le_overflow);
    s->lo_underflow += lane_sum(c->lo_underflow);
    s->lo_overflow += lane_sum(c->lo_overflow);
    s->underflow += lane_sum(c->underflow);
    s->overflow += lane_sum(c->overflow);
    s->le_hit += lane_sum(c->le_hit);
    s->lo_hit += lane_sum(c->lo_hit);
    s->hybrid += lane_sum(c->hybrid);
    s->hist_below += lane_sum(c->underflow);
    s->hist_above += lane_sum(c->overflow);
}

void lut_cdp_fp_lookup_all(const struct lut_cdp_fp *p, uint32_t *x, unsigned n,
                           struct dla_lut_stats *s)
{
    unsigned i = 0;
    struct vec_counts counts;
    memset(&counts, 0, sizeof counts);
    for (; i + FPV_LANES <= n; i += FPV_LANES) {
        fpv_u32 xs = fpv_load(x + i);
        fpv_i32 slow = {0};
        struct vec_place le = vec_locate(&p->le, xs, &slow);
        struct vec_place lo = vec_locate(&p->lo, xs, &slow);
        fpv_i32 under = le.uflow & lo.uflow, over = le.oflow & lo.oflow;
        fpv_i32 one_hit = le.hit ^ lo.hit;
        fpv_i32 take_lo =
            (under & -(fpv_i32){p->uflow_lo, p->uflow_lo, p->uflow_lo, p->uflow_lo}) |
            (~under & over & -(fpv_i32){p->oflow_lo, p->oflow_lo, p->oflow_lo, p->oflow_lo}) |
            (~under & ~over & one_hit & lo.hit) |
            (~under & ~over & ~one_hit &
             -(fpv_i32){p->hybrid_lo, p->hybrid_lo, p->hybrid_lo, p->hybrid_lo});
        fpv_u32 y = vec_value(p, take_lo, xs, &le, &lo, &slow);
        if (s)
            vec_count(p, ~slow, xs, &le, &lo, &counts, s);
        if (fpv_any(slow))
            for (unsigned l = 0; l < FPV_LANES; l++)
                if (slow[l])
                    y[l] = lut_cdp_fp_lookup(p, xs[l], s);
        fpv_store(x + i, y);
    }
    if (s)
        add_counts(&counts, s);
    for (; i < n; i++)
        x[i] = lut_cdp_fp_lookup(p, x[i], s);
}
