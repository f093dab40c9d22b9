/* SDP output converter (cmod/hls/sdp/sdp_c.cpp): subtract the offset,
 * multiply by the scale, shift right with rounding and saturate to 17 bits,
 * then saturate to int8/int16 or convert to fp16. */
#include "num/fixpt.h"
#include "num/fpnum.h"
#include "sdp_dp.h"

int32_t sdp_cvt_int(const struct sdp_cvt_cfg *c, int32_t in, bool *saturated)
{
    unsigned shift = c->shift & 63u;
    int64_t product = ((int64_t)in - c->offset) * c->scale; /* 33 x 16 bits */
    int64_t t = fix_sat(fix_shr_round(product, shift), 17);
    /* The hardware flags saturation when the rounded 17-bit value strays
     * more than one from the plain shifted product: rounding alone never
     * does, clamping to 17 bits does.  The int8/int16 clamp is not
     * counted. */
    int64_t plain = fix_shr_floor(product, shift);
    bool sat = !(plain == t || plain == t + 1 || plain == t - 1);
    int32_t out;
    switch (c->out_prec) {
    case SDP_FP16:
        out = fpnum_int_to_fp16(t);
        sat = (out & 0x7fff) == 0x7bff; /* fp16 outputs count the largest finite value */
        break;
    case SDP_INT16:
        out = (int32_t)fix_sat(t, 16);
        break;
    default:
        out = (int32_t)fix_sat(t, 8);
        break;
    }
    if (saturated)
        *saturated = sat;
    return out;
}
