/* Signed fixed-point helpers with the rounding and saturation NVDLA's integer
 * datapaths use (reference doc 7.2).  The hardware rounds right shifts half
 * away from zero and saturates to the width of the next stage; these helpers
 * do the same on int64_t values, which hold every intermediate width the
 * datapaths need (at most 64 bits: a 32 x 32-bit product). */
#ifndef DLA_FIXPT_H
#define DLA_FIXPT_H

#include <stdbool.h>
#include <stdint.h>

/* Clamp v to the range of a signed integer of bits bits (2..63). */
static inline int64_t fix_sat(int64_t v, unsigned bits)
{
    int64_t max = (int64_t)((1ull << (bits - 1)) - 1u);
    int64_t min = -max - 1;
    return v > max ? max : v < min ? min : v;
}

/* True when v does not fit a signed integer of bits bits. */
static inline bool fix_overflows(int64_t v, unsigned bits)
{
    return fix_sat(v, bits) != v;
}

/* Keep the low bits bits of v as a two's complement value (a plain
 * assignment to a narrower register: no saturation). */
static inline int64_t fix_wrap(int64_t v, unsigned bits)
{
    uint64_t m = 1ull << (bits - 1);
    uint64_t u = (uint64_t)v & ((m << 1) - 1u);
    return (int64_t)(u ^ m) - (int64_t)m;
}

/* v / 2^shift rounded to nearest, ties away from zero.  Any shift is
 * accepted (register fields allow up to 1023): the result is then 0. */
static inline int64_t fix_shr_round(int64_t v, unsigned shift)
{
    if (shift == 0)
        return v;
    bool neg = v < 0;
    uint64_t mag = neg ? 0u - (uint64_t)v : (uint64_t)v;
    uint64_t q;
    if (shift > 64)
        q = 0;
    else if (shift == 64)
        q = mag >> 63; /* only the half bit remains */
    else
        q = (mag >> shift) + ((mag >> (shift - 1)) & 1u);
    return neg ? -(int64_t)q : (int64_t)q;
}

/* v * 2^shift saturated to bits bits (a saturating left shifter). */
static inline int64_t fix_shl_sat(int64_t v, unsigned shift, unsigned bits)
{
    if (v == 0)
        return 0;
    if (shift >= bits)
        return fix_sat(v < 0 ? INT64_MIN : INT64_MAX, bits);
    int64_t limit = (int64_t)1 << (bits - 1 - shift);
    if (v >= limit || v < -limit)
        return fix_sat(v < 0 ? INT64_MIN : INT64_MAX, bits);
    return fix_sat((int64_t)((uint64_t)v << shift), bits);
}

/* v / 2^shift rounded toward minus infinity (an arithmetic shift). */
static inline int64_t fix_shr_floor(int64_t v, unsigned shift)
{
    if (shift >= 63)
        return v < 0 ? -1 : 0;
    return v >= 0 ? v >> shift : -(int64_t)(((uint64_t) - (v + 1) >> shift) + 1u);
}

#endif
