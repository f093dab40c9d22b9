/* The floating-point arithmetic of NVIDIA's cmod (cmod/hls/include/
 * nvdla_float.h, cmod/hls/vlibs), re-expressed on plain integers so that the
 * model's fp16 paths are bit-exact with it.  It is close to IEEE 754 but not
 * equal:
 * - results past the largest finite value saturate to it (the cmod's
 *   "infinity" is the largest finite number), and an infinite input is
 *   treated as an ordinary number with the top exponent (fp16 -> fp32 turns
 *   it into the largest finite binary32);
 * - add and multiply flush results below the normal range to zero; a
 *   subnormal operand keeps an implied leading one;
 * - add keeps two guard bits beyond the mantissa and drops what a larger
 *   exponent difference shifts out (no sticky bit);
 * - a NaN operand is returned unchanged (the first one when both are NaN).
 * Conversions round to nearest even.  Formats are given by exponent and
 * mantissa widths: fp16 (5, 10), fp17 (6, 10), fp32 (8, 23). */
#ifndef DLA_FPNUM_H
#define DLA_FPNUM_H

#include <stdbool.h>
#include <stdint.h>

struct fp_format {
    unsigned expo, mant;
};

static const struct fp_format FP16 = {5, 10}, FP17 = {6, 10}, FP32 = {8, 23};

/* Inline: called per element, and a constant format folds away. */
static inline bool fp_is_nan(struct fp_format f, uint64_t bits)
{
    uint64_t top = (1ull << f.expo) - 1u;
    return ((bits >> f.mant) & top) == top && (bits & ((1ull << f.mant) - 1u)) != 0;
}

static inline bool fp_is_inf(struct fp_format f, uint64_t bits)
{
    uint64_t top = (1ull << f.expo) - 1u;
    return ((bits >> f.mant) & top) == top && (bits & ((1ull << f.mant) - 1u)) == 0;
}

/* fp16 max and min as fp_max(FP16, ...) and fp_min(FP16, ...) compute them,
 * inline for the per-element pooling loops: a NaN operand wins (a first);
 * otherwise sign-magnitude bits map to an ordered key (-0 below +0), and on
 * equal keys the bits are equal, so which operand is returned is moot. */
static inline int32_t fp16_order_key(uint16_t h)
{
    /* The bits as an int16; a negative value's magnitude bits flipped, so
     * -m becomes -1 - m: an xor, its own inverse, -0 at -1 below +0 at 0. */
    int32_t s = (int16_t)h;
    return s ^ ((s >> 15) & 0x7fff);
}

/* The fp16 bits of an order key (-0x8000 .. 0x7fff). */
static inline uint16_t fp16_from_order_key(int32_t key)
{
    return (uint16_t)(key ^ ((key >> 15) & 0x7fff));
}

static inline uint16_t fp16_pick(uint16_t a, uint16_t b, bool want_max)
{
    if (fp_is_nan(FP16, a))
        return a;
    if (fp_is_nan(FP16, b))
        return b;
    bool a_greater = fp16_order_key(a) > fp16_order_key(b);
    return want_max == a_greater ? a : b;
}

static inline uint16_t fp16_max(uint16_t a, uint16_t b)
{
    return fp16_pick(a, b, true);
}

static inline uint16_t fp16_min(uint16_t a, uint16_t b)
{
    return fp16_pick(a, b, false);
}

uint64_t fp_add(struct fp_format f, uint64_t a, uint64_t b);
/* fp_add without its fast paths (the tests' reference for them). */
uint64_t fp_add_reference(struct fp_format f, uint64_t a, uint64_t b);
uint64_t fp_sub(struct fp_format f, uint64_t a, uint64_t b);
uint64_t fp_mul(struct fp_format f, uint64_t a, uint64_t b);
/* fp_mul without its fast paths (the tests' reference for them). */
uint64_t fp_mul_reference(struct fp_format f, uint64_t a, uint64_t b);
uint64_t fp_max(struct fp_format f, uint64_t a, uint64_t b);
uint64_t fp_min(struct fp_format f, uint64_t a, uint64_t b);
/* Negative values (not NaN) become +0. */
uint64_t fp_relu(struct fp_format f, uint64_t a);

/* Format conversions.  The fp16 widenings are tables filled by a load-time
 * constructor of this priority; a constructor elsewhere that calls them
 * must use a larger number (or none). */
#define FPNUM_TABLES_PRIORITY 101
uint32_t fpnum_fp16_to_fp32(uint16_t h);
uint16_t fpnum_fp32_to_fp16(uint32_t f);
uint32_t fpnum_fp17_to_fp32(uint32_t h);
uint32_t fpnum_fp32_to_fp17(uint32_t f);
uint32_t fpnum_fp16_to_fp17(uint16_t h);
uint16_t fpnum_fp17_to_fp16(uint32_t h);
/* fp16 to int16: nearest (ties away from zero), saturating; NaN -> -32768. */
int16_t fpnum_fp16_to_int16(uint16_t h);
/* frac / 2^width (10 < width < 64) as a non-negative fp17, nearest even
 * (interpolation weights of the fp16 LUT). */
uint32_t fpnum_fraction_to_fp17(uint64_t frac, unsigned width);
/* A signed integer to fp16, nearest even, saturating to the largest finite
 * value (the output converter's Int17ToFp16). */
uint16_t fpnum_int_to_fp16(int64_t v);

#endif
