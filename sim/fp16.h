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

static inline uint16_t fp16_from_float(float f)
{
    return fp16_from_f32_bits(f32_bits(f));
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
