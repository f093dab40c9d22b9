/* The two-level LUT of SDP and CDP: the access port, the configuration and
 * its rules, and the statistics' histograms (see lut.h).  The lookups are in
 * lut_cdp.c and lut_sdp.c. */
#include "lut.h"

#include <stdio.h>
#include <string.h>

#include "lut_internal.h"

/* S_LUT_ACCESS_CFG fields (same in both maps). */
#define CFG_ADDR_MASK  0x3ffu
#define CFG_TABLE_BIT  16
#define CFG_ACCESS_BIT 17

/* ---------------------------------------------------------------- access port */

static unsigned last_entry(const struct dla_lut_ram *r)
{
    return r->table == LUT_LO ? LUT_LO_LAST : LUT_LE_LAST;
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

bool lut_hook_write(struct dla_lut_ram *r, const struct regdb_reg *reg, uint32_t value)
{
    if (regdb_reg_is(reg, "S_LUT_ACCESS_CFG"))
        lut_port_write_cfg(r, value);
    else if (regdb_reg_is(reg, "S_LUT_ACCESS_DATA"))
        lut_port_write_data(r, value);
    return false;
}

bool lut_hook_read(struct dla_lut_ram *r, const struct regdb_reg *reg, uint32_t *value, bool peek)
{
    if (regdb_reg_is(reg, "S_LUT_ACCESS_CFG")) {
        *value = lut_port_read_cfg(r);
        return true;
    }
    if (regdb_reg_is(reg, "S_LUT_ACCESS_DATA")) {
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

/* A slope field: register S_LUT_<table>_SLOPE_<what> (what = SCALE or
 * SHIFT), field LUT_<table>_SLOPE_<flow>_<what> (flow = UFLOW or OFLOW). */
static uint32_t slope_field(const struct dla *d, enum dla_unit u, const char *table,
                            const char *flow, const char *what)
{
    char reg[32], field[40];
    snprintf(reg, sizeof reg, "S_LUT_%s_SLOPE_%s", table, what);
    snprintf(field, sizeof field, "LUT_%s_SLOPE_%s_%s", table, flow, what);
    return dla_field(d, u, 0, reg, field);
}

/* The under- and overflow slopes of one table (LE or LO): the two tables'
 * registers are named alike, so one reader serves both. */
static void read_slopes(const struct dla *d, enum dla_unit u, const char *table,
                        int16_t *uflow_scale, int16_t *oflow_scale, uint8_t *uflow_shift,
                        uint8_t *oflow_shift)
{
    *uflow_scale = (int16_t)slope_field(d, u, table, "UFLOW", "SCALE");
    *oflow_scale = (int16_t)slope_field(d, u, table, "OFLOW", "SCALE");
    *uflow_shift = (uint8_t)slope_field(d, u, table, "UFLOW", "SHIFT");
    *oflow_shift = (uint8_t)slope_field(d, u, table, "OFLOW", "SHIFT");
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
    read_slopes(d, u, "LE", &c->le_uflow_scale, &c->le_oflow_scale, &c->le_uflow_shift,
                &c->le_oflow_shift);
    read_slopes(d, u, "LO", &c->lo_uflow_scale, &c->lo_oflow_scale, &c->lo_uflow_shift,
                &c->lo_oflow_shift);
}

/* A bound as a number: the integer, or the fp32 value of its low 32 bits. */
static double bound_value(const struct lut_cfg *c, int64_t v)
{
    return c->fp ? lut_f32((uint32_t)v) : (double)v;
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

void lut_stats_add(struct dla_lut_stats *dst, const struct dla_lut_stats *src)
{
    dst->lookups += src->lookups;
    dst->le_hit += src->le_hit;
    dst->lo_hit += src->lo_hit;
    dst->underflow += src->underflow;
    dst->overflow += src->overflow;
    dst->hybrid += src->hybrid;
    dst->le_underflow += src->le_underflow;
    dst->le_overflow += src->le_overflow;
    dst->lo_underflow += src->lo_underflow;
    dst->lo_overflow += src->lo_overflow;
    for (unsigned i = 0; i < DLA_LUT_HIST_BINS; i++)
        dst->hist[i] += src->hist[i];
    dst->hist_below += src->hist_below;
    dst->hist_above += src->hist_above;
}

void lut_stats_publish(struct dla *d, enum dla_unit u, int group, const struct dla_lut_stats *s)
{
    dla_reg_hw_set(d, u, group, "D_PERF_LUT_UFLOW", dla_sat32(s->underflow));
    dla_reg_hw_set(d, u, group, "D_PERF_LUT_OFLOW", dla_sat32(s->overflow));
    dla_reg_hw_set(d, u, group, "D_PERF_LUT_HYBRID", dla_sat32(s->hybrid));
    dla_reg_hw_set(d, u, group, "D_PERF_LUT_LE_HIT", dla_sat32(s->le_hit));
    dla_reg_hw_set(d, u, group, "D_PERF_LUT_LO_HIT", dla_sat32(s->lo_hit));
}

void lut_histogram_over_tables_int(struct dla_lut_stats *s, const struct lut_cfg *c, int64_t x,
                                   enum lut_range range)
{
    int64_t lo = lut_min64(c->le_start, c->lo_start), hi = lut_max64(c->le_end, c->lo_end);
    /* 38-bit operands: exact in 128 bits, the bin itself needs no more than a double */
    __int128 span = (__int128)hi - lo + 1;
    double bin = span > 0 ? (double)(((__int128)x - lo) * DLA_LUT_HIST_BINS / span) : 0;
    if (x < lo)
        bin = -1;
    lut_histogram_count(s, range, bin);
}

void lut_histogram_span_fp(const struct lut_cfg *c, double *lo, double *hi)
{
    float a = lut_f32((uint32_t)c->le_start), b = lut_f32((uint32_t)c->lo_start);
    float e = lut_f32((uint32_t)c->le_end), g = lut_f32((uint32_t)c->lo_end);
    *lo = a < b ? a : b;
    *hi = e > g ? e : g;
}

void lut_histogram_over_tables_fp(struct dla_lut_stats *s, const struct lut_cfg *c, uint32_t x,
                                  enum lut_range range)
{
    double lo, hi;
    lut_histogram_span_fp(c, &lo, &hi);
    lut_histogram_fp_in_span(s, lo, hi, x, range);
}
