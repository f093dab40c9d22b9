/* Helpers shared by the LUT's files (lut.c, lut_cdp.c, lut_sdp.c) only. */
#ifndef DLA_LUT_INTERNAL_H
#define DLA_LUT_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "core/dla_priv.h"
#include "lut.h"

#define LUT_LE_LAST (DLA_LUT_LE_ENTRIES - 1) /* 64 */
#define LUT_LO_LAST (DLA_LUT_LO_ENTRIES - 1) /* 256 */

/* Where a sample fell relative to the two tables. */
enum lut_range {
    LUT_IN_RANGE,   /* hit in at least one table, or under one and over the other */
    LUT_BOTH_UNDER, /* underflows both tables (the chapter's UnderflowNum) */
    LUT_BOTH_OVER,  /* overflows both tables (OverflowNum) */
};

static inline enum lut_range lut_range_of(bool le_uflow, bool le_oflow, bool lo_uflow,
                                          bool lo_oflow)
{
    return le_uflow && lo_uflow   ? LUT_BOTH_UNDER
           : le_oflow && lo_oflow ? LUT_BOTH_OVER
                                  : LUT_IN_RANGE;
}

static inline float lut_f32(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* The histogram's "below" and "above" are the samples that under- or
 * overflow both tables, so they equal the LUT chapter's UnderflowNum and
 * OverflowNum; every other sample goes into a bin by where it lies between
 * the lower start and the higher end (clamped: a value at a table's start
 * underflows that table but is in range of the other). */
static inline void lut_histogram_count(struct dla_lut_stats *s, enum lut_range range, double bin)
{
    if (range == LUT_BOTH_UNDER) {
        s->hist_below++;
    } else if (range == LUT_BOTH_OVER) {
        s->hist_above++;
    } else {
        int b = !(bin >= 0) ? 0 : bin >= DLA_LUT_HIST_BINS ? DLA_LUT_HIST_BINS - 1 : (int)bin;
        s->hist[b]++;
    }
}

/* The fp histogram's span: the lower start and the higher end as fp32
 * numbers (floats held in doubles), and the count of x within it; the
 * per-element loops work the span out once. */
void lut_histogram_span_fp(const struct lut_cfg *c, double *lo, double *hi);

static inline void lut_histogram_fp_in_span(struct dla_lut_stats *s, double lo, double hi,
                                            uint32_t x, enum lut_range range)
{
    double v = lut_f32(x);
    lut_histogram_count(s, range, hi > lo ? (v - lo) * DLA_LUT_HIST_BINS / (hi - lo) : 0);
}

/* Count input x in the statistics' histogram (struct dla_lut_stats): below
 * and above are the samples under- or overflowing both tables, the bins span
 * the lower start to the higher end; the fp form takes fp32 bits. */
void lut_histogram_over_tables_int(struct dla_lut_stats *s, const struct lut_cfg *c, int64_t x,
                                   enum lut_range range);
void lut_histogram_over_tables_fp(struct dla_lut_stats *s, const struct lut_cfg *c, uint32_t x,
                                  enum lut_range range);

/* v > 0 */
static inline int lut_floor_log2(uint64_t v)
{
    return 63 - __builtin_clzll(v);
}

/* Signed 5-bit slope shift field. */
static inline int lut_shift5(uint8_t raw)
{
    return dla_sext(raw, 5);
}

static inline int64_t lut_min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static inline int64_t lut_max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

#endif
