/* SDP X stages (BS = X1, BN = X2), integer arithmetic: ALU, multiplier,
 * truncation and ReLU as cmod/hls/sdp/sdp_x.cpp computes them.
 *
 * Widths: the input is 32 bits; the ALU operand is a 16-bit value shifted
 * left with saturation to 32 bits, and the ALU result is 33 bits; the
 * multiplier makes a 49-bit product that the truncation shifts right with
 * rounding and saturates to 32 bits.
 *
 * fp16 processing carries binary32 values and uses the cmod's float
 * arithmetic (fpnum.c); shifts do not apply there. */
#include "fixpt.h"
#include "fpnum.h"
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

/* ---------------------------------------------------------------- fp16 processing */

uint32_t sdp_fp_operand(uint16_t op, bool nan_to_zero)
{
    if (nan_to_zero && fp_is_nan(FP16, op))
        op = 0;
    return fpnum_fp16_to_fp32(op);
}

/* The floating-point ALU shared by X and Y; algorithm 3 is the EQL compare,
 * whose result is the integer 0 (equal) or 1. */
uint32_t sdp_fp_alu(unsigned algo, uint32_t a, uint32_t b)
{
    switch (algo) {
    case SDP_ALU_SUM:
        return (uint32_t)fp_add(FP32, a, b);
    case SDP_ALU_MAX:
        return (uint32_t)fp_max(FP32, a, b);
    case SDP_ALU_EQL:
        return a != b;
    default:
        return (uint32_t)fp_min(FP32, a, b);
    }
}

uint32_t sdp_x_fp(const struct sdp_x_cfg *c, uint32_t in, uint16_t alu_op, uint16_t mul_op,
                  bool nan_to_zero)
{
    if (c->bypass)
        return in;
    uint32_t v = in;
    if (!c->alu_bypass)
        v = sdp_fp_alu(c->alu_algo, v, sdp_fp_operand(alu_op, nan_to_zero));
    if (!c->mul_bypass && !(c->prelu && !(v >> 31)))
        v = (uint32_t)fp_mul(FP32, v, sdp_fp_operand(mul_op, nan_to_zero));
    if (!c->relu_bypass)
        v = (uint32_t)fp_relu(FP32, v);
    return v;
}
