#include "fp16.h"

/* binary32 -> binary16, round to nearest, ties to even (or away from zero).
 * NaNs keep their top payload bits and stay NaN (quiet bit forced). */
static uint16_t from_f32_bits(uint32_t f, int ties_away)
{
    uint32_t sign = (f >> 16) & 0x8000u;
    uint32_t exp = (f >> 23) & 0xffu;
    uint32_t man = f & 0x7fffffu;
    if (exp == 0xff) {
        if (man == 0)
            return (uint16_t)(sign | 0x7c00u);
        return (uint16_t)(sign | 0x7e00u | (man >> 13));
    }
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u); /* overflow to infinity */
    if (e <= 0) {
        /* subnormal or zero: shift the full significand right */
        if (e < -10)
            return (uint16_t)sign;
        uint32_t sig = man | 0x800000u;
        unsigned shift = (unsigned)(14 - e); /* 13 + (1 - e) */
        uint32_t half = sig >> shift;
        uint32_t rem = sig & ((1u << shift) - 1u);
        uint32_t mid = 1u << (shift - 1);
        if (fp16_rounds_up(rem, mid, half & 1u, ties_away))
            half++;
        return (uint16_t)(sign | half);
    }
    return fp16_normal_from_f32_bits(f, ties_away);
}

uint16_t fp16_from_f32_bits(uint32_t f)
{
    return from_f32_bits(f, 0);
}

uint16_t fp16_from_f32_bits_ties_away(uint32_t f)
{
    return from_f32_bits(f, 1);
}

uint32_t fp16_to_f32_bits(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f)
        return sign | 0x7f800000u | (man << 13);
    if (exp == 0) {
        if (man == 0)
            return sign;
        /* normalise the subnormal */
        int e = -1;
        do {
            man <<= 1;
            e++;
        } while (!(man & 0x400u));
        return sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
    }
    return sign | ((exp - 15 + 127) << 23) | (man << 13);
}
