/* CDMA input convertor (nvdla/hw cmod cdma_cvt): y = (x - offset) * scale,
 * shifted right by truncate bits with rounding half away from zero,
 * saturated to 17 bits, then saturated to int8/int16 or converted to fp16
 * (round to nearest even, overflow to infinity).  x is the input widened to
 * 17 bits, so (x - offset) needs 18 bits and the product 34: int64 holds
 * every step exactly. */
#include "conv.h"
#include "fp16.h"

static int64_t shift_round_half_away(int64_t v, unsigned shift)
{
    if (shift == 0)
        return v;
    if (shift >= 40) /* |v| < 2^34: everything rounds to zero */
        return 0;
    int64_t half = (int64_t)1 << (shift - 1);
    int64_t mag = v < 0 ? -v : v;
    int64_t r = (mag + half) >> shift;
    return v < 0 ? -r : r;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi, bool *sat)
{
    if (v > hi) {
        *sat = true;
        return hi;
    }
    if (v < lo) {
        *sat = true;
        return lo;
    }
    return v;
}

uint16_t conv_cvt(int32_t in, int16_t offset, int16_t scale, unsigned truncate, enum conv_prec out,
                  bool *sat)
{
    bool s = false;
    int64_t v = ((int64_t)in - offset) * scale;
    v = shift_round_half_away(v, truncate & 63u);
    v = clamp(v, -65536, 65535, &s);
    uint16_t r;
    if (out == CONV_INT8)
        r = (uint16_t)(uint8_t)(int8_t)clamp(v, -128, 127, &s);
    else if (out == CONV_INT16)
        r = (uint16_t)(int16_t)clamp(v, -32768, 32767, &s);
    else
        r = fp16_from_float((float)v); /* exact in binary32, one rounding to fp16 */
    if (sat)
        *sat = s;
    return r;
}
