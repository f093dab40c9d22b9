/* CDMA input convertor (nvdla/hw cmod cdma_cvt): y = (x - offset) * scale,
 * shifted right by truncate bits with rounding half away from zero,
 * saturated to 17 bits, then saturated to int8/int16 or converted to fp16
 * (round to nearest even, overflow to infinity).  x is the input widened to
 * 17 bits, so (x - offset) needs 18 bits and the product 34: int64 holds
 * every step exactly. */
#include "conv.h"
#include "num/fixpt.h"
#include "num/fp16.h"

uint16_t conv_cvt(int32_t in, int16_t offset, int16_t scale, unsigned truncate, enum conv_prec out,
                  bool *sat)
{
    int64_t v = fix_shr_round(((int64_t)in - offset) * scale, truncate & 63u);
    /* the 17-bit stage, then int8/int16: the narrower width decides */
    unsigned bits = out == CONV_INT8 ? 8 : out == CONV_INT16 ? 16 : 17;
    *sat = fix_overflows(v, bits);
    v = fix_sat(v, bits);
    if (out == CONV_FP16)
        return fp16_from_float((float)v); /* exact in binary32, one rounding to fp16 */
    return out == CONV_INT8 ? (uint8_t)v : (uint16_t)v;
}
