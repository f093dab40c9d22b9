/* SDP's Y LUT: the EW stage's last step.  The LUT module (lut.c) decodes
 * the tables' configuration, picks the table and entry for a value, counts
 * the statistics and interpolates in the integer precisions; this file runs
 * it for the SDP pipeline and does the fp16 precision's own arithmetic
 * (cmod/hls/sdp/sdp_y_idx.cpp and sdp_y_inp.cpp): the distance to each
 * table's start in binary32, then interpolation between neighbouring
 * entries, or extrapolation past a table's ends, in fp17. */
#include "num/fpnum.h"
#include "sdp_lut.h"

void sdp_lut_begin(struct dla *d, struct sdp_lut *l, bool fp16)
{
    l->ram = &d->lut_sdp;
    lut_cfg_read(d, DLA_U_SDP, &l->cfg);
    l->cfg.fp = fp16; /* start/end are fp32 bits: the range check compares them as numbers */
    lut_cfg_check(d, DLA_U_SDP, &l->cfg);
    lut_stats_begin(&l->stats);
}

int32_t sdp_lut_int(const struct sdp_lut *l, int32_t x, struct dla_lut_stats *s)
{
    struct lut_pick p;
    lut_sdp_index(&l->cfg, x, &p);
    lut_sdp_count(&l->cfg, &p, x, false, s);
    return lut_sdp_interp_int(l->ram, &l->cfg, x, &p);
}

static uint32_t fp16_entry_as_fp17(const struct sdp_lut *l, const struct lut_pick *p,
                                   unsigned index)
{
    return fpnum_fp16_to_fp17((uint16_t)lut_entry(l->ram, (enum lut_table)p->table, index));
}

/* Past a table's end: y0 + (x - (origin + bias)) * scale, in fp32 then fp17. */
static uint32_t extrapolate_fp(const struct sdp_lut *l, const struct lut_pick *p, uint32_t x)
{
    struct lut_extrap e;
    lut_sdp_extrap(&l->cfg, p, true, &e);
    uint32_t origin = (uint32_t)fp_add(FP32, (uint32_t)e.origin, (uint32_t)e.bias);
    uint32_t dist = fpnum_fp32_to_fp17((uint32_t)fp_sub(FP32, x, origin));
    uint32_t slope = (uint32_t)fp_mul(FP17, dist, fpnum_fp16_to_fp17((uint16_t)e.scale));
    uint32_t y = (uint32_t)fp_add(FP17, fp16_entry_as_fp17(l, p, p->index), slope);
    return fpnum_fp17_to_fp32(y);
}

/* Inside a table: y0 * (1 - f) + y1 * f with the weights in fp17. */
static uint32_t interpolate_fp(const struct sdp_lut *l, const struct lut_pick *p)
{
    const unsigned frac_bits = 35;
    uint32_t w0 = p->fraction == 0
                      ? (uint32_t)(31u << 10) /* 1.0 */
                      : fpnum_fraction_to_fp17((1ull << frac_bits) - p->fraction, frac_bits);
    uint32_t w1 = fpnum_fraction_to_fp17(p->fraction, frac_bits);
    uint32_t b0 = (uint32_t)fp_mul(FP17, w0, fp16_entry_as_fp17(l, p, p->index));
    uint32_t b1 = (uint32_t)fp_mul(FP17, w1, fp16_entry_as_fp17(l, p, p->index + 1u));
    return fpnum_fp17_to_fp32((uint32_t)fp_add(FP17, b0, b1));
}

uint32_t sdp_lut_fp(const struct sdp_lut *l, uint32_t x, struct dla_lut_stats *s)
{
    struct lut_pick p;
    uint32_t le_diff = (uint32_t)fp_sub(FP32, x, (uint32_t)l->cfg.le_start);
    uint32_t lo_diff = (uint32_t)fp_sub(FP32, x, (uint32_t)l->cfg.lo_start);
    lut_sdp_index_fp(&l->cfg, le_diff, lo_diff, &p);
    lut_sdp_count(&l->cfg, &p, (int32_t)x, true, s);
    return p.uflow || p.oflow ? extrapolate_fp(l, &p, x) : interpolate_fp(l, &p);
}
