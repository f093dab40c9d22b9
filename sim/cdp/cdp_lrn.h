/* CDP's local response normalisation datapath on one channel vector,
 * bit-exact with NVIDIA's C model (cmod/hls/cdp_libs cdp_icvt / cdp_ocvt,
 * cmod/cdp/NV_NVDLA_cdp.cpp lookup_lut and lookup_lut_int8):
 *
 *   x'   = round_half_away((x - datin_offset) * datin_scale >> datin_shifter),
 *          saturated to 9 bits (int8) or 17 bits (int16)
 *   sum  = x'[c-n]^2 + ... + x'[c+n]^2   (local size 2n+1 = 3, 5, 7, 9; the
 *          channels outside the cube count as datin_offset, i.e. 0), or x'[c]
 *          when the square sum is bypassed
 *   y    = LUT(sum) (lut.c), times x'[c] unless the multiplier is bypassed
 *   out  = round_half_away((y - datout_offset) * datout_scale >> datout_shifter),
 *          saturated to int8/int16 (the saturation counter counts these)
 *
 * In fp16 the convertors only change format (fp16 -> fp17 -> fp32 and back),
 * the squares and the sum (pairs of neighbours added outwards from the
 * centre) are fp32, the LUT's result and the product fp17, all in the
 * cmod's float arithmetic (cmod/hls_wrapper/cdp_hls_wrapper.cpp).
 *
 * sim/cdp/cdp.c reads the registers and memory; the unit tests drive this. */
#ifndef DLA_CDP_LRN_H
#define DLA_CDP_LRN_H

#include "lut/lut.h"

struct cdp_lrn_cfg {
    enum lut_cdp_path path; /* int8 or int16 pipeline (ignored in fp16) */
    bool fp16;              /* fp16 pipeline: no convertor arithmetic, fp32 sums */
    bool nan_to_zero;       /* fp16: NaN inputs become +0 */
    unsigned half_window;   /* n: NORMALZ_LEN + 1 (1..4) */
    bool sqsum_bypass, mul_bypass;
    int32_t in_offset;  /* D_DATIN_OFFSET (16 bits; int8 uses the low 8) */
    int16_t in_scale;   /* D_DATIN_SCALE */
    uint8_t in_shift;   /* D_DATIN_SHIFTER (5 bits) */
    int32_t out_offset; /* D_DATOUT_OFFSET (int8 uses the low 25 bits) */
    int16_t out_scale;  /* D_DATOUT_SCALE */
    uint8_t out_shift;  /* D_DATOUT_SHIFTER (6 bits) */
    const struct dla_lut_ram *lut;
    struct lut_cfg lut_cfg;
    /* fp16: lut and lut_cfg prepared for the layer (lut_cdp_fp_prepare), for
     * the four-lane pipeline; or NULL for the reference pipeline, element
     * by element through lut_cdp_lookup_fp */
    const struct lut_cdp_fp *lut_fp;
};

/* Input convertor on one raw element. */
int32_t cdp_in_convert(const struct cdp_lrn_cfg *c, int32_t raw);

/* Output convertor on one product; *saturated tells whether the hardware's
 * saturation flag is raised for it. */
int32_t cdp_out_convert(const struct cdp_lrn_cfg *c, int64_t v, bool *saturated);

/* Normalise one channel vector of n elements (whole memory atoms): raw
 * values of channels >= valid are replaced by the input offset as the
 * hardware does (+0 in fp16; raw and out hold fp16 bits there).  scratch holds
 * CDP_LRN_SCRATCH(n) int32.  Counts
 * LUT statistics into s (may be NULL) and returns the number of saturated outputs. */
#define CDP_LRN_SCRATCH(n)      (4 * (size_t)(n) + 2 * CDP_LRN_MAX_HALF_WINDOW)
#define CDP_LRN_MAX_HALF_WINDOW 4
uint64_t cdp_lrn_vector(const struct cdp_lrn_cfg *c, const int32_t *raw, unsigned n, unsigned valid,
                        int32_t *out, int32_t *scratch, struct dla_lut_stats *s);

/* fp16: an input's fp17 and fp32 forms and its fp32 square as the
 * datapath computes them (normal inputs and zeros by field moves and a
 * binary32 multiply, four lanes at a time), and as the reference tables
 * hold them (for the unit test). */
void cdp_fp_input(uint16_t h, uint32_t *v17, uint32_t *v32, uint32_t *square);
void cdp_fp_input_reference(uint16_t h, uint32_t *v17, uint32_t *v32, uint32_t *square);

#endif
