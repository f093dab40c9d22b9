/* The two-level LUT that SDP (Y stage) and CDP (LRN) share: an LE table of 65
 * entries (linear or exponential index) and an LO table of 257 entries
 * (linear index), 16 bits each, programmed through the auto-incrementing
 * S_LUT_ACCESS_CFG / S_LUT_ACCESS_DATA port (LUT chapter of the programming
 * guide, seeds/002; v2 trace notes 6.4 item 10).
 *
 * Each unit owns one struct dla_lut_ram in the model state (d->lut_sdp,
 * d->lut_cdp).  This module (lut.c: port, configuration, statistics;
 * lut_cdp.c and lut_sdp.c: each unit's lookups) gives both units:
 *   - the access port, called from the unit's register hooks;
 *   - the table configuration decoded from the unit's S_LUT_* registers;
 *   - the lookup of one value with its hit/miss classification and the
 *     per-layer statistics, for CDP's 37-bit integer pipeline and SDP's
 *     32-bit pipeline (integer, or fp32 bit patterns in fp16 precision).
 *
 * The statistics follow each unit's hardware: CDP counts a sample once, in
 * exactly one of LE hit / LO hit / underflow / overflow / hybrid (priority);
 * SDP counts the LE and LO hits of every sample independently and the
 * under/overflow of the table the priorities selected.  Both also fill what
 * only the debugger shows (struct dla_lut_stats): each table's own under-
 * and overflows (whichever table the priorities chose), and the input
 * histogram, whose below/above are the samples under/overflowing both tables
 * (the LUT chapter's UnderflowNum/OverflowNum), so the figures add up. */
#ifndef DLA_LUT_H
#define DLA_LUT_H

#include "core/dla_priv.h"

enum lut_table { LUT_LE = 0, LUT_LO = 1 };

/* ---------------------------------------------------------------- access port */

/* S_LUT_ACCESS_CFG written: selects table, entry and direction. */
void lut_port_write_cfg(struct dla_lut_ram *r, uint32_t value);
/* S_LUT_ACCESS_CFG as read back: {ACCESS_TYPE, TABLE_ID, current LUT_ADDR}. */
uint32_t lut_port_read_cfg(const struct dla_lut_ram *r);
/* S_LUT_ACCESS_DATA written: in write mode stores the entry and advances. */
void lut_port_write_data(struct dla_lut_ram *r, uint32_t value);
/* S_LUT_ACCESS_DATA read: the entry at the current address; in read mode
 * the address then advances (not when peek: debugger views). */
uint32_t lut_port_read_data(struct dla_lut_ram *r, bool peek);

/* For a unit's hooks: handle the two port registers.  lut_hook_write
 * updates the port and returns false (the register file keeps the written
 * value for the debugger); lut_hook_read returns true with the port's value
 * for the two port registers, false for any other register. */
bool lut_hook_write(struct dla_lut_ram *r, const struct regdb_reg *reg, uint32_t value);
bool lut_hook_read(struct dla_lut_ram *r, const struct regdb_reg *reg, uint32_t *value, bool peek);

/* Entry of a table, 0 outside it. */
int16_t lut_entry(const struct dla_lut_ram *r, enum lut_table t, unsigned index);

/* ---------------------------------------------------------------- configuration */

/* The S_LUT_* registers of one unit, decoded.  Start/end are sign-extended
 * to 64 bits: 38-bit values on CDP (LOW/HIGH pairs), the 32-bit register on
 * SDP (an int32 or fp32 bit pattern, per the pipeline precision).  The
 * index fields stay raw because CDP's int8 and int16 paths sign-extend them
 * from different widths. */
struct lut_cfg {
    bool fp;                 /* fp16 pipeline: start/end are fp32 bits (the caller sets
                                it; lut_cfg_read leaves it false) */
    bool le_linear;          /* LUT_LE_FUNCTION = LINEAR (else EXPONENT) */
    bool uflow_lo;           /* both tables underflow: take LO (else LE) */
    bool oflow_lo;           /* both tables overflow: take LO */
    bool hybrid_lo;          /* both hit, or one under- and one overflows: take LO */
    uint8_t le_index_offset; /* raw LUT_LE_INDEX_OFFSET (signed 8 bits) */
    uint8_t le_index_select; /* raw LUT_LE_INDEX_SELECT */
    uint8_t lo_index_select; /* raw LUT_LO_INDEX_SELECT */
    int64_t le_start, le_end, lo_start, lo_end;
    int16_t le_uflow_scale, le_oflow_scale, lo_uflow_scale, lo_oflow_scale;
    uint8_t le_uflow_shift, le_oflow_shift, lo_uflow_shift, lo_oflow_shift; /* raw 5 bits */
};

/* Decode the S_LUT_* registers of DLA_U_SDP or DLA_U_CDP. */
void lut_cfg_read(const struct dla *d, enum dla_unit u, struct lut_cfg *c);

/* Programming-guide rules on the configuration: each table's end not below
 * its start (as fp32 numbers when c->fp).  Each violation is reported with
 * dla_rule(d, u, ...).  Returns the number of violations. */
int lut_cfg_check(struct dla *d, enum dla_unit u, const struct lut_cfg *c);

/* ---------------------------------------------------------------- statistics */

/* Start a layer's statistics.  The input histogram spans [min start, max
 * end] of the two tables as c gives them to each lookup. */
void lut_stats_begin(struct dla_lut_stats *s);

/* Add the counts of src to dst (the parts of a layer computed apart). */
void lut_stats_add(struct dla_lut_stats *dst, const struct dla_lut_stats *src);

/* A layer's statistics into unit u's D_PERF_LUT_UFLOW, _OFLOW, _HYBRID,
 * _LE_HIT and _LO_HIT of group (both units name them alike; each decides
 * whether they are written: CDP always, SDP when PERF_LUT_EN is set). */
void lut_stats_publish(struct dla *d, enum dla_unit u, int group, const struct dla_lut_stats *s);

/* ---------------------------------------------------------------- CDP pipeline */

enum lut_cdp_path {
    LUT_CDP_INT8,  /* 9-bit converted inputs, sums in 22 bits */
    LUT_CDP_INT16, /* 17-bit converted inputs, sums in 38 bits */
};

/* Look up one sum of squares (or the bypassed input) of CDP's integer
 * pipeline.  Returns the 16-bit LUT output after interpolation or
 * extrapolation and the LE/LO choice, and counts the sample into s. */
int16_t lut_cdp_lookup(const struct dla_lut_ram *r, const struct lut_cfg *c, enum lut_cdp_path path,
                       int64_t x, struct dla_lut_stats *s);

/* The same in fp16 precision: x is the fp32 sum of squares (or bypassed
 * input) as bits; the tables hold fp16 values, start/end are the fp32 bits
 * of the LOW registers, slopes fp16.  Returns the fp17 result.  Arithmetic
 * is the cmod's float arithmetic (fpnum.c) as cmod/hls_wrapper/
 * cdp_hls_wrapper.cpp (HLS_CDP_lookup_lut) orders it. */
uint32_t lut_cdp_lookup_fp(const struct dla_lut_ram *r, const struct lut_cfg *c, uint32_t x,
                           struct dla_lut_stats *s);

/* lut_cdp_lookup_fp for a whole layer: what depends only on the tables and
 * the registers (each entry's fp17 form and its difference to the next,
 * the slopes, the exponent table's underflow origin, the histogram's span)
 * is worked out once by lut_cdp_fp_prepare; lut_cdp_fp_lookup then gives
 * bit for bit what lut_cdp_lookup_fp gives (that stays the reference; a
 * unit test compares the two) and counts the same statistics. */
struct lut_cdp_fp_table {
    uint32_t start, end, uflow_origin; /* fp32 bits; origin: start + 2^offset */
    uint32_t uscale17, oscale17, first17, last17;
    double select_scale; /* linear: 2^-index_select */
    int index_select;    /* linear */
    int index_offset;    /* exponential */
    unsigned last;       /* 64 or 256 */
    bool exponent;
    uint32_t y17[DLA_LUT_LO_ENTRIES];  /* entry i in fp17 */
    uint32_t dy17[DLA_LUT_LO_ENTRIES]; /* entry i + 1 - entry i: fp32, then fp17 */
};

struct lut_cdp_fp {
    struct lut_cdp_fp_table le, lo;
    bool uflow_lo, oflow_lo, hybrid_lo;
    double hist_lo, hist_hi; /* the histogram's span (fp32 values) */
};

void lut_cdp_fp_prepare(const struct dla_lut_ram *r, const struct lut_cfg *c, struct lut_cdp_fp *p);
uint32_t lut_cdp_fp_lookup(const struct lut_cdp_fp *p, uint32_t x, struct dla_lut_stats *s);
/* lut_cdp_fp_lookup of n values in place, four at a time where the
 * arithmetic allows (the statistics are counted alike). */
void lut_cdp_fp_lookup_all(const struct lut_cdp_fp *p, uint32_t *x, unsigned n,
                           struct dla_lut_stats *s);

/* ---------------------------------------------------------------- SDP pipeline */

/* Where a value of SDP's Y LUT lands: the table and entry the priorities
 * chose, the interpolation fraction (35 bits), and whether that table is
 * out of range (then y = entry + (x - start/end) * scale >> shift). */
struct lut_pick {
    uint8_t table; /* enum lut_table */
    uint16_t index;
    uint64_t fraction;
    bool uflow, oflow; /* of the chosen table */
    bool le_hit, lo_hit;
    bool le_uflow, le_oflow, lo_uflow, lo_oflow; /* each table's own range */
};

/* Index stage of SDP's Y LUT for one value of the integer precisions. */
void lut_sdp_index(const struct lut_cfg *c, int32_t x, struct lut_pick *p);

/* Index stage in fp16 precision.  The hardware first subtracts each table's
 * start from x in its own fp32 arithmetic; the caller does that with the
 * pipeline's fp32 subtraction and passes the two differences (fp32 bits). */
void lut_sdp_index_fp(const struct lut_cfg *c, uint32_t le_diff, uint32_t lo_diff,
                      struct lut_pick *p);

/* Count one picked value into SDP's statistics. */
void lut_sdp_count(const struct lut_cfg *c, const struct lut_pick *p, int32_t x, bool fp,
                   struct dla_lut_stats *s);

/* Interpolation stage of SDP's Y LUT, integer precisions: returns the int32
 * result (saturated to 32 bits).  The fp16 precision interpolates in fp17
 * in SDP's own code, from the same pick. */
int32_t lut_sdp_interp_int(const struct dla_lut_ram *r, const struct lut_cfg *c, int32_t x,
                           const struct lut_pick *p);

/* Operands of the out-of-range extrapolation for a pick (both precisions):
 * the start or end the distance is measured from (plus, for the
 * exponential LE table's underflow, 2^index_offset as the hardware adds),
 * and the slope scale and shift. */
struct lut_extrap {
    int64_t origin; /* start or end (int32 or fp32 bits sign-extended) */
    int64_t bias;   /* 0, or 2^le_index_offset (int) / fp32 bits of 2^offset (fp) */
    int16_t scale;  /* fp16 bits in fp16 precision */
    int8_t shift;   /* signed 5-bit value, integer precisions only */
};
void lut_sdp_extrap(const struct lut_cfg *c, const struct lut_pick *p, bool fp,
                    struct lut_extrap *e);

#endif
