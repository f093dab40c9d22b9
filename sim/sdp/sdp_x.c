/* SDP X stages (BS = X1, BN = X2), integer arithmetic: ALU, multiplier,
 * truncation and ReLU as cmod/hls/sdp/sdp_x.cpp computes them.
 *
 * Widths: the input is 32 bits; the ALU operand is a 16-bit value shifted
 * left with saturation to 32 bits, and the ALU result is 33 bits; the
 * multiplier makes a 49-bit product that the truncation shifts right with
 * rounding and saturates to 32 bits.
 *
 * fp16 processing (sdp_dp_fp.h) carries binary32 values and uses the
 * cmod's float arithmetic; shifts do not apply there. */
#include "num/fixpt.h"
#include "sdp_dp.h"

static int64_t x_alu(const struct sdp_x_cfg *c, int32_t in, int16_t op)
{
    if (c->alu_bypass)
        return in;
    int64_t operand = fix_shl_sat(op, c->alu_shift & 63u, 32);
    switch (c->alu_algo) {
    case SDP_ALU_MAX:
        return in > operand ? in : operand;
    case SDP_ALU_MIN:
        return in < operand ? in : operand;
    default:
        return (int64_t)in + operand;
    }
}

int32_t sdp_x_int(const struct sdp_x_cfg *c, int32_t in, int16_t alu_op, int16_t mul_op)
{
    if (c->bypass)
        return in;
    int64_t v = x_alu(c, in, alu_op);
    int64_t out;
    if (!c->mul_bypass && c->prelu && v >= 0) {
        /* PReLU keeps a non-negative value as it is and skips the
         * truncation: the 33-bit value lands in the 32-bit stage output
         * without saturation. */
        out = fix_wrap(v, 32);
    } else {
        if (!c->mul_bypass)
            v *= mul_op;
        /* The truncation applies even with the multiplier bypassed. */
        out = fix_sat(fix_shr_round(v, c->mul_shift & 63u), 32);
    }
    if (!c->relu_bypass && out < 0)
        out = 0;
    return (int32_t)out;
}
