/* SDP's Y-stage lookups in the two-level LUT (see lut.h): the index unit
 * (cmod/hls/sdp/sdp_y_idx.cpp), the selection and statistics of
 * cmod/hls_wrapper/sdp_hls_wrapper.cpp, and the integer interpolation
 * (sdp_y_inp.cpp). */
#include <string.h>

#include "lut.h"
#include "lut_internal.h"

/* ---------------------------------------------------------------- SDP lookup */

#define SDP_FRAC_BITS 35
#define SDP_FRAC_MASK ((1ull << SDP_FRAC_BITS) - 1)
#define SDP_INDEX_MAX 511 /* the 9-bit index register of the index unit */

/* One table's outcome in SDP's index unit. */
struct sdp_side {
    bool uflow, oflow;
    uint16_t index;
    uint64_t fraction;
};

static void sdp_set_oflow(struct sdp_side *s, unsigned last)
{
    s->oflow = true;
    s->index = (uint16_t)last;
}

/* (x - start) shifted right by a signed select, truncated and saturated to
 * the 9-bit index (v > 0). */
static unsigned sdp_linear_index(uint32_t v, int select)
{
    uint64_t q;
    if (select >= 32)
        q = 0;
    else if (select >= 0)
        q = v >> select;
    else if (-select >= 9)
        q = SDP_INDEX_MAX; /* v >= 1 shifted left 9 bits is already out of range */
    else
        q = (uint64_t)v << -select;
    return q > SDP_INDEX_MAX ? SDP_INDEX_MAX : (unsigned)q;
}

/* The bits of v below the index, aligned to a 35-bit fraction. */
static uint64_t sdp_linear_fraction(uint32_t v, int select)
{
    uint64_t below = select >= 0 && select < 64 ? v & ((1ull << select) - 1) : v;
    int right = select - SDP_FRAC_BITS;
    if (right >= 64 || -right >= 64)
        return 0;
    return right >= 0 ? below >> right : (below << -right) & SDP_FRAC_MASK;
}

static void sdp_linear(int64_t start, int select, unsigned last, int32_t x, struct sdp_side *s)
{
    if (x <= start) {
        s->uflow = true;
        return;
    }
    uint32_t v = (uint32_t)((int64_t)x - start);
    unsigned index = sdp_linear_index(v, select);
    if (index >= last) {
        sdp_set_oflow(s, last);
        return;
    }
    s->index = (uint16_t)index;
    s->fraction = sdp_linear_fraction(v, select);
}

/* Exponential LE table: index = floor(log2(x - start)) - index_offset, the
 * fraction is the mantissa below the leading one. */
static void sdp_exponent(const struct lut_cfg *c, int32_t x, struct sdp_side *s)
{
    int offset = (int8_t)c->le_index_offset;
    if (x <= c->le_start) {
        s->uflow = true;
        return;
    }
    uint32_t v = (uint32_t)((int64_t)x - c->le_start);
    int log = lut_floor_log2(v);
    if (log < offset) {
        s->uflow = true;
        return;
    }
    if (log - offset >= LUT_LE_LAST) {
        sdp_set_oflow(s, LUT_LE_LAST);
        return;
    }
    uint64_t mant = v & ((1ull << log) - 1);
    s->index = (uint16_t)(log - offset);
    s->fraction = (mant << (SDP_FRAC_BITS - log)) & SDP_FRAC_MASK;
}

/* Which table's outcome becomes the pick (sdp_y_idx's index muxing). */
static void sdp_choose(const struct lut_cfg *c, const struct sdp_side *le,
                       const struct sdp_side *lo, struct lut_pick *p)
{
    bool le_miss = le->uflow || le->oflow, lo_miss = lo->uflow || lo->oflow;
    bool take_lo;
    if (le->uflow && lo->uflow)
        take_lo = c->uflow_lo;
    else if (le->oflow && lo->oflow)
        take_lo = c->oflow_lo;
    else if (le_miss == lo_miss)
        take_lo = c->hybrid_lo; /* both hit, or one under- and one overflow */
    else
        take_lo = le_miss;
    const struct sdp_side *s = take_lo ? lo : le;
    p->table = take_lo ? LUT_LO : LUT_LE;
    p->index = s->index;
    p->fraction = s->fraction;
    p->uflow = s->uflow;
    p->oflow = s->oflow;
    p->le_hit = !le_miss;
    p->lo_hit = !lo_miss;
    p->le_uflow = le->uflow;
    p->le_oflow = le->oflow;
    p->lo_uflow = lo->uflow;
    p->lo_oflow = lo->oflow;
}

void lut_sdp_index(const struct lut_cfg *c, int32_t x, struct lut_pick *p)
{
    struct sdp_side le = {0}, lo = {0};
    if (c->le_linear)
        sdp_linear(c->le_start, (int8_t)c->le_index_select, LUT_LE_LAST, x, &le);
    else
        sdp_exponent(c, x, &le);
    sdp_linear(c->lo_start, (int8_t)c->lo_index_select, LUT_LO_LAST, x, &lo);
    sdp_choose(c, &le, &lo, p);
}

/* fp32 difference x - start: negative, zero and NaN differences underflow. */
static bool fp_diff_underflows(uint32_t diff)
{
    uint32_t expo = (diff >> 23) & 0xffu, mant = diff & 0x7fffffu;
    return (diff >> 31) || (expo == 0 && mant == 0) || (expo == 0xffu && mant != 0);
}

/* The index unit's float-to-index conversion: diff * 2^-select split into a
 * 9-bit saturated integer part and a 35-bit fraction.  The exponent is
 * taken as a signed 8-bit value and the implied one is always present, as
 * the hardware does (denormals count as normals). */
static void fp_to_index(uint32_t diff, int select, unsigned *index, uint64_t *fraction)
{
    uint64_t mant = (diff & 0x7fffffu) | 0x800000u;
    int expo = (int8_t)(uint8_t)(((diff >> 23) & 0xffu) - 127u);
    int lshift = expo - select - 23;
    if (lshift >= 0)
        *index = SDP_INDEX_MAX; /* at least 2^23: saturated */
    else if (-lshift >= 64)
        *index = 0;
    else {
        uint64_t q = mant >> -lshift;
        *index = q > SDP_INDEX_MAX ? SDP_INDEX_MAX : (unsigned)q;
    }
    int fshift = SDP_FRAC_BITS + lshift;
    if (lshift >= 0 || fshift <= -64 || fshift >= 64)
        *fraction = 0;
    else
        *fraction = (fshift >= 0 ? mant << fshift : mant >> -fshift) & SDP_FRAC_MASK;
}

static void sdp_linear_fp(uint32_t diff, int select, unsigned last, struct sdp_side *s)
{
    if (fp_diff_underflows(diff)) {
        s->uflow = true;
        return;
    }
    unsigned index;
    uint64_t fraction;
    fp_to_index(diff, select, &index, &fraction);
    if (index >= last) {
        sdp_set_oflow(s, last);
        return;
    }
    s->index = (uint16_t)index;
    s->fraction = fraction;
}

static void sdp_exponent_fp(const struct lut_cfg *c, uint32_t diff, struct sdp_side *s)
{
    int offset = (int8_t)c->le_index_offset;
    int expo = (int)((diff >> 23) & 0xffu) - 127;
    if (fp_diff_underflows(diff) || expo < offset) {
        s->uflow = true;
        return;
    }
    if (expo - offset >= LUT_LE_LAST) {
        sdp_set_oflow(s, LUT_LE_LAST);
        return;
    }
    s->index = (uint16_t)(expo - offset);
    s->fraction = (uint64_t)(diff & 0x7fffffu) << (SDP_FRAC_BITS - 23);
}

void lut_sdp_index_fp(const struct lut_cfg *c, uint32_t le_diff, uint32_t lo_diff,
                      struct lut_pick *p)
{
    struct sdp_side le = {0}, lo = {0};
    if (c->le_linear)
        sdp_linear_fp(le_diff, (int8_t)c->le_index_select, LUT_LE_LAST, &le);
    else
        sdp_exponent_fp(c, le_diff, &le);
    sdp_linear_fp(lo_diff, (int8_t)c->lo_index_select, LUT_LO_LAST, &lo);
    sdp_choose(c, &le, &lo, p);
}

void lut_sdp_count(const struct lut_cfg *c, const struct lut_pick *p, int32_t x, bool fp,
                   struct dla_lut_stats *s)
{
    s->lookups++;
    s->le_hit += p->le_hit;
    s->lo_hit += p->lo_hit;
    s->underflow += p->uflow;
    s->overflow += p->oflow;
    s->hybrid += !(p->uflow || p->oflow);
    /* each table's own range, whichever table the priorities chose: with
     * LO chosen on a double underflow, LE underflowed as well */
    s->le_underflow += p->le_uflow;
    s->le_overflow += p->le_oflow;
    s->lo_underflow += p->lo_uflow;
    s->lo_overflow += p->lo_oflow;
    enum lut_range range = lut_range_of(p->le_uflow, p->le_oflow, p->lo_uflow, p->lo_oflow);
    if (fp)
        lut_histogram_over_tables_fp(s, c, (uint32_t)x, range);
    else
        lut_histogram_over_tables_int(s, c, x, range);
}

void lut_sdp_extrap(const struct lut_cfg *c, const struct lut_pick *p, bool fp,
                    struct lut_extrap *e)
{
    bool le = p->table == LUT_LE;
    memset(e, 0, sizeof *e);
    if (p->oflow) {
        e->origin = le ? c->le_end : c->lo_end;
        e->scale = le ? c->le_oflow_scale : c->lo_oflow_scale;
        e->shift = (int8_t)lut_shift5(le ? c->le_oflow_shift : c->lo_oflow_shift);
    } else {
        e->origin = le ? c->le_start : c->lo_start;
        e->scale = le ? c->le_uflow_scale : c->lo_uflow_scale;
        e->shift = (int8_t)lut_shift5(le ? c->le_uflow_shift : c->lo_uflow_shift);
    }
    int offset = (int8_t)c->le_index_offset;
    if (!(p->uflow && le && !c->le_linear))
        return;
    /* the exponential table's first entry sits at start + 2^index_offset */
    if (fp) {
        /* 2^offset for offset in [-128, 127] is an exact float (denormal
         * below 2^-126) */
        e->bias = offset >= -126 ? (int64_t)((uint32_t)(offset + 127) << 23)
                                 : (int64_t)(1u << (offset + 149));
    } else if (offset > 0) {
        e->bias = (int64_t)(1u << (offset & 31)); /* the x86 shift the model relies on */
    }
}

/* v / 2^shift (shift may be negative: a left shift) rounded half away from
 * zero, saturated to int32: the hardware's AC_RND_INF / AC_SAT conversion. */
static int32_t round_shift_sat32(__int128 v, int shift)
{
    __int128 q;
    if (shift <= 0) {
        q = v * ((__int128)1 << -shift);
    } else {
        __int128 mag = v < 0 ? -v : v;
        q = (mag + ((__int128)1 << (shift - 1))) >> shift;
        if (v < 0)
            q = -q;
    }
    return (int32_t)(q > INT32_MAX ? INT32_MAX : q < INT32_MIN ? INT32_MIN : q);
}

int32_t lut_sdp_interp_int(const struct dla_lut_ram *r, const struct lut_cfg *c, int32_t x,
                           const struct lut_pick *p)
{
    enum lut_table t = (enum lut_table)p->table;
    int64_t y0 = lut_entry(r, t, p->index);
    if (p->uflow || p->oflow) {
        struct lut_extrap e;
        lut_sdp_extrap(c, p, false, &e);
        int64_t origin = (uint32_t)e.bias + (int64_t)(int32_t)e.origin;
        __int128 slope = (__int128)((int64_t)x - origin) * e.scale;
        __int128 sum = y0 + (__int128)round_shift_sat32(slope, e.shift);
        return (int32_t)(sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : sum);
    }
    int64_t y1 = lut_entry(r, t, p->index + 1u);
    __int128 mix = (__int128)y0 * (int64_t)((1ull << SDP_FRAC_BITS) - p->fraction) +
                   (__int128)y1 * (int64_t)p->fraction;
    return round_shift_sat32(mix, SDP_FRAC_BITS);
}
