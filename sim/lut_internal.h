/* Helpers shared by the LUT's files (lut.c, lut_cdp.c, lut_sdp.c) only. */
#ifndef DLA_LUT_INTERNAL_H
#define DLA_LUT_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "dla_priv.h"
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

/* Count input x in the statistics' histogram (struct dla_lut_stats): below
 * and above are the samples under- or overflowing both tables, the bins span
 * the lower start to the higher end; the fp form takes fp32 bits. */
void lut_histogram_over_tables_int(struct dla_lut_stats *s, const struct lut_cfg *c, int64_t x,
                                   enum lut_range range);
void lut_histogram_over_tables_fp(struct dla_lut_stats *s, const struct lut_cfg *c, uint32_t x,
                                  enum lut_range range);

static inline float lut_f32(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

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
