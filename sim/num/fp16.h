/* IEEE 754 binary16 <-> binary32 conversions at the bit level, with
 * round-to-nearest-even, subnormals, infinities and NaNs handled exactly.
 * Units with their own float formats (fp17, fp48 accumulators...) build on
 * these in their own files. */
#ifndef DLA_FP16_H
#define DLA_FP16_H

#include <stdint.h>
#include <string.h>

uint16_t fp16_from_f32_bits(uint32_t f);
/* Round to nearest with ties away from zero: the half_float library's
 * default, which NVIDIA's runtime converts host values to fp16 with. */
uint16_t fp16_from_f32_bits_ties_away(uint32_t f);
uint32_t fp16_to_f32_bits(uint16_t h);

static inline float f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Round a truncated half up?  rem is what was cut off, mid half a unit of
 * the last place, lsb_odd the parity of the truncated result. */
static inline int fp16_rounds_up(uint32_t rem, uint32_t mid, uint32_t lsb_odd, int ties_away)
{
    return rem > mid || (rem == mid && (ties_away || lsb_odd));
}

/* binary32 bits f whose half is normal (exponent 113..142) as a half:
 * the exponent moves, the significand rounds to nearest, ties to even or
 * away from zero (a carry out of the significand bumps the exponent, to
 * infinity from 142). */
static inline uint16_t fp16_normal_from_f32_bits(uint32_t f, int ties_away)
{
    uint32_t half = (((f >> 23) & 0xffu) - 112u) << 10 | ((f >> 13) & 0x3ffu), rem = f & 0x1fffu;
    half += (uint32_t)fp16_rounds_up(rem, 0x1000u, half & 1u, ties_away);
    return (uint16_t)(((f >> 16) & 0x8000u) | half);
}

/* A float whose half is normal (the common case, and every weight of the
 * sample networks) converts without a call. */
static inline uint16_t fp16_from_float(float f)
{
    uint32_t u = f32_bits(f);
    if (((u >> 23) & 0xffu) - 113u < 30u)
        return fp16_normal_from_f32_bits(u, 0);
    return fp16_from_f32_bits(u);
}

static inline float fp16_to_float(uint16_t h)
{
    return f32_from_bits(fp16_to_f32_bits(h));
}

static inline int fp16_is_nan(uint16_t h)
{
    return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0;
}

static inline int fp16_is_inf(uint16_t h)
{
    return (h & 0x7fffu) == 0x7c00u;
}

#endif
