/* The two-level LUT of SDP and CDP: access port, configuration, lookups and
 * statistics (see lut.h).  The arithmetic follows NVIDIA's C model: CDP's
 * lookup_lut / lookup_lut_int8 (cmod/cdp/NV_NVDLA_cdp.cpp) and SDP's Y stage
 * index and interpolation units (cmod/hls/sdp/sdp_y_idx.cpp, sdp_y_inp.cpp
 * with the glue in cmod/hls_wrapper/sdp_hls_wrapper.cpp). */
#include "lut.h"

#include <math.h>
#include <string.h>

#include "fpnum.h"

#define LE_LAST (DLA_LUT_LE_ENTRIES - 1) /* 64 */
#define LO_LAST (DLA_LUT_LO_ENTRIES - 1) /* 256 */

/* S_LUT_ACCESS_CFG fields (same in both maps). */
#define CFG_ADDR_MASK  0x3ffu
#define CFG_TABLE_BIT  16
#define CFG_ACCESS_BIT 17

/* ---------------------------------------------------------------- access port */

static unsigned last_entry(const struct dla_lut_ram *r)
{
    return r->table == LUT_LO ? LO_LAST : LE_LAST;
}

/* The address stops on the last entry of the table (the RTL compares for
 * equality, so an address programmed beyond the end keeps counting and
 * wraps at 10 bits). */
static void advance(struct dla_lut_ram *r)
{
    if (r->index != last_entry(r))
        r->index = (uint16_t)((r->index + 1u) & CFG_ADDR_MASK);
}

int16_t lut_entry(const struct dla_lut_ram *r, enum lut_table t, unsigned index)
{
    if (t == LUT_LO)
        return index < DLA_LUT_LO_ENTRIES ? (int16_t)r->lo[index] : 0;
    return index < DLA_LUT_LE_ENTRIES ? (int16_t)r->le[index] : 0;
}

void lut_port_write_cfg(struct dla_lut_ram *r, uint32_t value)
{
    r->index = (uint16_t)(value & CFG_ADDR_MASK);
    r->table = (uint8_t)((value >> CFG_TABLE_BIT) & 1u);
    r->write_mode = ((value >> CFG_ACCESS_BIT) & 1u) != 0;
}

uint32_t lut_port_read_cfg(const struct dla_lut_ram *r)
{
    return ((uint32_t)r->write_mode << CFG_ACCESS_BIT) | ((uint32_t)r->table << CFG_TABLE_BIT) |
           r->index;
}

void lut_port_write_data(struct dla_lut_ram *r, uint32_t value)
{
    if (!r->write_mode)
        return; /* a data write in read mode changes nothing */
    if (r->table == LUT_LO && r->index < DLA_LUT_LO_ENTRIES)
        r->lo[r->index] = (uint16_t)value;
    else if (r->table == LUT_LE && r->index < DLA_LUT_LE_ENTRIES)
        r->le[r->index] = (uint16_t)value;
    advance(r);
}

uint32_t lut_port_read_data(struct dla_lut_ram *r, bool peek)
{
    uint32_t v = (uint16_t)lut_entry(r, (enum lut_table)r->table, r->index);
    if (!r->write_mode && !peek)
        advance(r);
    return v;
}

static bool is_reg(const struct regdb_reg *reg, const char *name)
{
    return strcmp(reg->name, name) == 0;
}

bool lut_hook_write(struct dla_lut_ram *r, const struct regdb_reg *reg, uint32_t value)
{
    if (is_reg(reg, "S_LUT_ACCESS_CFG"))
        lut_port_write_cfg(r, value);
    else if (is_reg(reg, "S_LUT_ACCESS_DATA"))
        lut_port_write_data(r, value);
    return false;
}

bool lut_hook_read(struct dla_lut_ram *r, const struct regdb_reg *reg, uint32_t *value, bool peek)
{
    if (is_reg(reg, "S_LUT_ACCESS_CFG")) {
        *value = lut_port_read_cfg(r);
        return true;
    }
    if (is_reg(reg, "S_LUT_ACCESS_DATA")) {
        *value = lut_port_read_data(r, peek);
        return true;
    }
    return false;
}

/* ---------------------------------------------------------------- configuration */

/* CDP's 38-bit start/end: 32 low bits and a 6-bit high part. */
static int64_t reg38(const struct dla *d, enum dla_unit u, const char *low, const char *high)
{
    uint64_t v = ((uint64_t)(dla_reg(d, u, 0, high) & 0x3fu) << 32) | dla_reg(d, u, 0, low);
    return (int64_t)(v ^ (1ull << 37)) - (int64_t)(1ull << 37);
}

static void read_bounds(const struct dla *d, enum dla_unit u, struct lut_cfg *c)
{
    if (u == DLA_U_CDP) {
        c->le_start = reg38(d, u, "S_LUT_LE_START_LOW", "S_LUT_LE_START_HIGH");
        c->le_end = reg38(d, u, "S_LUT_LE_END_LOW", "S_LUT_LE_END_HIGH");
        c->lo_start = reg38(d, u, "S_LUT_LO_START_LOW", "S_LUT_LO_START_HIGH");
        c->lo_end = reg38(d, u, "S_LUT_LO_END_LOW", "S_LUT_LO_END_HIGH");
    } else {
        c->le_start = (int32_t)dla_reg(d, u, 0, "S_LUT_LE_START");
        c->le_end = (int32_t)dla_reg(d, u, 0, "S_LUT_LE_END");
        c->lo_start = (int32_t)dla_reg(d, u, 0, "S_LUT_LO_START");
        c->lo_end = (int32_t)dla_reg(d, u, 0, "S_LUT_LO_END");
    }
}

void lut_cfg_read(const struct dla *d, enum dla_unit u, struct lut_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->le_linear = dla_field_is(d, u, 0, "S_LUT_CFG", "LUT_LE_FUNCTION", "LINEAR");
    c->uflow_lo = dla_field(d, u, 0, "S_LUT_CFG", "LUT_UFLOW_PRIORITY") != 0;
    c->oflow_lo = dla_field(d, u, 0, "S_LUT_CFG", "LUT_OFLOW_PRIORITY") != 0;
    c->hybrid_lo = dla_field(d, u, 0, "S_LUT_CFG", "LUT_HYBRID_PRIORITY") != 0;
    c->le_index_offset = (uint8_t)dla_field(d, u, 0, "S_LUT_INFO", "LUT_LE_INDEX_OFFSET");
    c->le_index_select = (uint8_t)dla_field(d, u, 0, "S_LUT_INFO", "LUT_LE_INDEX_SELECT");
    c->lo_index_select = (uint8_t)dla_field(d, u, 0, "S_LUT_INFO", "LUT_LO_INDEX_SELECT");
    read_bounds(d, u, c);
    c->le_uflow_scale =
        (int16_t)dla_field(d, u, 0, "S_LUT_LE_SLOPE_SCALE", "LUT_LE_SLOPE_UFLOW_SCALE");
    c->le_oflow_scale =
        (int16_t)dla_field(d, u, 0, "S_LUT_LE_SLOPE_SCALE", "LUT_LE_SLOPE_OFLOW_SCALE");
    c->lo_uflow_scale =
        (int16_t)dla_field(d, u, 0, "S_LUT_LO_SLOPE_SCALE", "LUT_LO_SLOPE_UFLOW_SCALE");
    c->lo_oflow_scale =
        (int16_t)dla_field(d, u, 0, "S_LUT_LO_SLOPE_SCALE", "LUT_LO_SLOPE_OFLOW_SCALE");
    c->le_uflow_shift =
        (uint8_t)dla_field(d, u, 0, "S_LUT_LE_SLOPE_SHIFT", "LUT_LE_SLOPE_UFLOW_SHIFT");
    c->le_oflow_shift =
        (uint8_t)dla_field(d, u, 0, "S_LUT_LE_SLOPE_SHIFT", "LUT_LE_SLOPE_OFLOW_SHIFT");
    c->lo_uflow_shift =
        (uint8_t)dla_field(d, u, 0, "S_LUT_LO_SLOPE_SHIFT", "LUT_LO_SLOPE_UFLOW_SHIFT");
    c->lo_oflow_shift =
        (uint8_t)dla_field(d, u, 0, "S_LUT_LO_SLOPE_SHIFT", "LUT_LO_SLOPE_OFLOW_SHIFT");
}

/* A bound as a number: the integer, or the fp32 value of its low 32 bits. */
static double bound_value(const struct lut_cfg *c, int64_t v)
{
    if (!c->fp)
        return (double)v;
    uint32_t bits = (uint32_t)v;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static int check_range(struct dla *d, enum dla_unit u, const struct lut_cfg *c, bool le)
{
    double start = bound_value(c, le ? c->le_start : c->lo_start);
    double end = bound_value(c, le ? c->le_end : c->lo_end);
    if (!(end < start))
        return 0;
    dla_rule(d, u,
             u == DLA_U_CDP ? (le ? "cdp.lut_le_range" : "cdp.lut_lo_range")
                            : (le ? "sdp.lut_le_range" : "sdp.lut_lo_range"),
             "%s LUT: %s end %g is below its start %g", u == DLA_U_CDP ? "CDP" : "SDP",
             le ? "LE" : "LO", end, start);
    return 1;
}

int lut_cfg_check(struct dla *d, enum dla_unit u, const struct lut_cfg *c)
{
    /* The guide also bounds the index selects and a linear table's
     * coverage, but its table of limits did not survive in the seed text and
     * NVIDIA's own CDP loadable programs LE_END = LE_START: only the
     * unambiguous rule is checked. */
    return check_range(d, u, c, true) + check_range(d, u, c, false);
}

/* ---------------------------------------------------------------- statistics */

void lut_stats_begin(struct dla_lut_stats *s)
{
    memset(s, 0, sizeof *s);
}

/* Histogram of integer inputs over [lo, hi]. */
static void histogram_int(struct dla_lut_stats *s, int64_t lo, int64_t hi, int64_t x)
{
    if (x < lo) {
        s->hist_below++;
    } else if (x > hi) {
        s->hist_above++;
    } else {
        /* 38-bit operands: the products stay far inside 128 bits */
        __int128 span = (__int128)hi - lo + 1;
        __int128 bin = ((__int128)x - lo) * DLA_LUT_HIST_BINS / span;
        s->hist[(int)bin]++;
    }
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* ---------------------------------------------------------------- C-model arithmetic */

/* The C model's CDP rounding helper: value / 2^shift computed in double,
 * rounded half away from zero by adding +-0.5 and truncating, then clamped
 * to a signed range of `bits` bits.  Doing it in double (not exactly) is
 * what makes the results bit-exact with NVIDIA's golden data. */
static int64_t cmod_convert(int64_t value, int shift, int bits)
{
    const int64_t max = (int64_t)((1ull << (bits - 1)) - 1);
    const int64_t min = -max - 1;
    bool positive = value > 0;
    double f = (double)value;
    f = shift >= 0 ? f / (double)(1ull << shift) : f * (double)(1ull << -shift);
    int64_t out;
    double mag = f < 0 ? -f : f;
    if (mag >= 9223372036854775808.0) /* the model's exponent > 62 case */
        out = positive ? INT64_MAX : INT64_MIN;
    else
        out = positive ? (int64_t)(f + 0.5) : (int64_t)(f - 0.5);
    return out > max ? max : out < min ? min : out;
}

static int16_t sat16(int64_t v)
{
    return (int16_t)(v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : v);
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

/* Signed 5-bit slope shift field. */
static int shift5(uint8_t raw)
{
    return dla_sext(raw, 5);
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
    int64_t r = y_edge + cmod_convert(wrap_mul(dist, scale), shift5(shift), 56);
    return sat16(r);
}

/* Interpolate between two entries with a 16-bit fraction offset. */
static int16_t cdp_interpolate(int16_t y0, int16_t y1, int64_t off16)
{
    return sat16(y0 + cmod_convert(wrap_mul((int64_t)y1 - y0, off16), 16, 56));
}

/* 16-bit interpolation offset from `bits` fractional bits. */
static int64_t to_q16(int64_t off, int bits)
{
    return bits > 16 ? shr64(off, bits - 16) : shl64(off, 16 - bits);
}

static int floor_log2(uint64_t v)
{
    return 63 - __builtin_clzll(v);
}

static void cdp_le_exponent(const struct dla_lut_ram *r, const struct lut_cfg *c, int64_t x,
                            struct cdp_side *s)
{
    int offset = (int8_t)c->le_index_offset;
    int64_t rel = wrap_sub(x, c->le_start);
    int log = rel > 0 ? floor_log2((uint64_t)rel) : 0;
    int index = log - offset;
    if (index < 0 || rel <= 0) {
        int64_t bias = offset < 0 ? 0 : shl64(1, offset);
        s->uflow = true;
        s->y = (int16_t)cdp_extrapolate((int16_t)r->le[0], wrap_sub(rel, bias), c->le_uflow_scale,
                                        c->le_uflow_shift);
    } else if (index >= LE_LAST) {
        s->oflow = true;
        s->y = (int16_t)cdp_extrapolate((int16_t)r->le[LE_LAST], wrap_sub(x, c->le_end),
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
        cdp_linear(r->le, LE_LAST, c->le_start, c->le_end, cdp_select(c->le_index_select, path),
                   c->le_uflow_scale, c->le_uflow_shift, c->le_oflow_scale, c->le_oflow_shift, x,
                   &le);
    else
        cdp_le_exponent(r, c, x, &le);
    cdp_linear(r->lo, LO_LAST, c->lo_start, c->lo_end, cdp_select(c->lo_index_select, path),
               c->lo_uflow_scale, c->lo_uflow_shift, c->lo_oflow_scale, c->lo_oflow_shift, x, &lo);
    if (s) {
        cdp_classes(&le, &lo, s);
        histogram_int(s, min64(c->le_start, c->lo_start), max64(c->le_end, c->lo_end), x);
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

static float f32(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

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
    float f = f32(diff);
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

static void histogram_float(struct dla_lut_stats *s, float lo, float hi, float v)
{
    if (!(v >= lo)) {
        s->hist_below++;
    } else if (!(v <= hi) || !(hi > lo)) {
        s->hist_above++;
    } else {
        double bin = ((double)v - lo) * DLA_LUT_HIST_BINS / ((double)hi - lo);
        s->hist[bin >= DLA_LUT_HIST_BINS ? DLA_LUT_HIST_BINS - 1 : (int)bin]++;
    }
}

uint32_t lut_cdp_lookup_fp(const struct dla_lut_ram *r, const struct lut_cfg *c, uint32_t x,
                           struct dla_lut_stats *s)
{
    struct cdp_fp_table le_t = {r->le,
                                LE_LAST,
                                !c->le_linear,
                                (uint32_t)c->le_start,
                                (uint32_t)c->le_end,
                                c->le_uflow_scale,
                                c->le_oflow_scale,
                                (int8_t)c->le_index_offset,
                                (int8_t)c->le_index_select};
    struct cdp_fp_table lo_t = {r->lo,
                                LO_LAST,
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
        float a = f32(le_t.start), b = f32(lo_t.start), e = f32(le_t.end), g = f32(lo_t.end);
        histogram_float(s, a < b ? a : b, e > g ? e : g, f32(x));
    }
    if (le.uflow && lo.uflow)
        return c->uflow_lo ? y_lo : y_le;
    if (le.oflow && lo.oflow)
        return c->oflow_lo ? y_lo : y_le;
    if (le.hit != lo.hit)
        return le.hit ? y_le : y_lo;
    return c->hybrid_lo ? y_lo : y_le;
}

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
    int log = floor_log2(v);
    if (log < offset) {
        s->uflow = true;
        return;
    }
    if (log - offset >= LE_LAST) {
        sdp_set_oflow(s, LE_LAST);
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
}

void lut_sdp_index(const struct lut_cfg *c, int32_t x, struct lut_pick *p)
{
    struct sdp_side le = {0}, lo = {0};
    if (c->le_linear)
        sdp_linear(c->le_start, (int8_t)c->le_index_select, LE_LAST, x, &le);
    else
        sdp_exponent(c, x, &le);
    sdp_linear(c->lo_start, (int8_t)c->lo_index_select, LO_LAST, x, &lo);
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
    if (expo - offset >= LE_LAST) {
        sdp_set_oflow(s, LE_LAST);
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
        sdp_linear_fp(le_diff, (int8_t)c->le_index_select, LE_LAST, &le);
    else
        sdp_exponent_fp(c, le_diff, &le);
    sdp_linear_fp(lo_diff, (int8_t)c->lo_index_select, LO_LAST, &lo);
    sdp_choose(c, &le, &lo, p);
}

static void histogram_fp(struct dla_lut_stats *s, const struct lut_cfg *c, uint32_t x)
{
    float a = f32((uint32_t)c->le_start), b = f32((uint32_t)c->lo_start);
    float e = f32((uint32_t)c->le_end), g = f32((uint32_t)c->lo_end);
    histogram_float(s, a < b ? a : b, e > g ? e : g, f32(x));
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
    /* the per-table flags of the tables the pick did not choose are not
     * kept by the hardware; record the chosen table's */
    if (p->table == LUT_LE) {
        s->le_underflow += p->uflow;
        s->le_overflow += p->oflow;
    } else {
        s->lo_underflow += p->uflow;
        s->lo_overflow += p->oflow;
    }
    if (fp)
        histogram_fp(s, c, (uint32_t)x);
    else
        histogram_int(s, min64(c->le_start, c->lo_start), max64(c->le_end, c->lo_end), x);
}

void lut_sdp_extrap(const struct lut_cfg *c, const struct lut_pick *p, bool fp,
                    struct lut_extrap *e)
{
    bool le = p->table == LUT_LE;
    memset(e, 0, sizeof *e);
    if (p->oflow) {
        e->origin = le ? c->le_end : c->lo_end;
        e->scale = le ? c->le_oflow_scale : c->lo_oflow_scale;
        e->shift = (int8_t)shift5(le ? c->le_oflow_shift : c->lo_oflow_shift);
    } else {
        e->origin = le ? c->le_start : c->lo_start;
        e->scale = le ? c->le_uflow_scale : c->lo_uflow_scale;
        e->shift = (int8_t)shift5(le ? c->le_uflow_shift : c->lo_uflow_shift);
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
