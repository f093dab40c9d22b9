/* SDP's fp16 processing, element by element, as NVIDIA's cmod computes it
 * (see sdp_dp.h for the stages): binary32 values between the stages, fp16
 * operands widened to binary32, the cmod's float arithmetic
 * (fpnum_inline.h).  Inline, so that SDP's element loop (sdp.c) runs it
 * without a call per stage and operation. */
#ifndef DLA_SDP_DP_FP_H
#define DLA_SDP_DP_FP_H

#include "num/fixpt.h"
#include "num/fpnum_inline.h"
#include "sdp_dp.h"

#define SDP_FP_INLINE static inline __attribute__((always_inline))

/* An fp16 operand as X and Y take it (X's register and memory operands,
 * Y's memory ones): NaN flushed to zero on request, widened to binary32. */
SDP_FP_INLINE uint32_t sdp_fp_operand(uint16_t op, bool nan_to_zero)
{
    if (nan_to_zero && fp_is_nan(FP16, op))
        op = 0;
    return fp16_to_fp32(op);
}

/* The binary32 ALU shared by X and Y: MAX/MIN/SUM, and EQL (algorithm 3)
 * giving the integer 0 (equal) or 1. */
SDP_FP_INLINE uint32_t sdp_fp_alu(unsigned algo, uint32_t a, uint32_t b)
{
    switch (algo) {
    case SDP_ALU_SUM:
        return fp32_add(a, b);
    case SDP_ALU_MAX:
        return fp32_max(a, b);
    case SDP_ALU_EQL:
        return a != b;
    default:
        return fp32_min(a, b);
    }
}

SDP_FP_INLINE uint32_t sdp_x_fp(const struct sdp_x_cfg *c, uint32_t in, uint16_t alu_op,
                                uint16_t mul_op, bool nan_to_zero)
{
    if (c->bypass)
        return in;
    uint32_t v = in;
    if (!c->alu_bypass)
        v = sdp_fp_alu(c->alu_algo, v, sdp_fp_operand(alu_op, nan_to_zero));
    if (!c->mul_bypass && !(c->prelu && !(v >> 31)))
        v = fp32_mul(v, sdp_fp_operand(mul_op, nan_to_zero));
    if (!c->relu_bypass)
        v = fp32_relu(v);
    return v;
}

/* Y's multiplier and ALU (the LUT excluded). */
SDP_FP_INLINE uint32_t sdp_y_fp(const struct sdp_y_cfg *c, uint32_t in, uint32_t alu_op,
                                uint32_t mul_op)
{
    if (c->bypass)
        return in;
    uint32_t v = in;
    if (!c->mul_bypass && !(c->prelu && !(in >> 31)))
        v = fp32_mul(in, mul_op);
    if (!c->alu_bypass)
        v = sdp_fp_alu(c->alu_algo, v, alu_op);
    return v;
}

/* The output converter: fp16 bits for an fp16 output, the int16 value for
 * an int16 output (an int8 output, which the hardware does not define for
 * fp16 processing, gets that value saturated to int8).  *saturated: fp16
 * outputs equal to the largest finite value, as the hardware counts them. */
SDP_FP_INLINE int32_t sdp_cvt_fp(const struct sdp_cvt_cfg *c, uint32_t in, bool *saturated)
{
    uint16_t h = fp32_to_fp16(in);
    bool sat = false;
    int32_t out;
    if (c->out_prec == SDP_FP16) {
        out = h;
        sat = (h & 0x7fff) == 0x7bff;
    } else {
        out = fpnum_fp16_to_int16(h);
        if (c->out_prec == SDP_INT8)
            out = (int32_t)fix_sat(out, 8);
    }
    if (saturated)
        *saturated = sat;
    return out;
}

#endif
