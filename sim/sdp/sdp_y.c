/* SDP Y stage (EW), integer arithmetic: the memory-operand converters, the
 * multiplier (right shift with rounding by a 10-bit truncate value) and the
 * ALU (MAX/MIN/SUM and the EQL compare), as cmod/hls/sdp/sdp_y_cvt.cpp and
 * sdp_y_core.cpp compute them, and the same in binary32 for fp16 processing
 * (no converters or shifts there: operands are widened fp16 values).  The
 * LUT that follows is the LUT module's. */
#include "num/fixpt.h"
#include "sdp_dp.h"

int32_t sdp_y_operand_int(const struct sdp_y_cvt_cfg *c, int16_t raw)
{
    if (c->bypass)
        return raw;
    int64_t product = ((int64_t)raw - c->offset) * c->scale; /* 33 x 16 bits */
    return (int32_t)fix_sat(fix_shr_round(product, c->truncate & 63u), 32);
}

static int64_t y_mul(const struct sdp_y_cfg *c, int32_t in, int32_t op)
{
    if (c->mul_bypass || (c->prelu && in >= 0))
        return in;
    return fix_sat(fix_shr_round((int64_t)in * op, c->truncate & 1023u), 32);
}

static int64_t y_alu(const struct sdp_y_cfg *c, int64_t a, int32_t b)
{
    if (c->alu_bypass)
        return a;
    switch (c->alu_algo) {
    case SDP_ALU_MAX:
        return a > b ? a : b;
    case SDP_ALU_MIN:
        return a < b ? a : b;
    case SDP_ALU_EQL:
        return a == b ? 0 : 1;
    default:
        return fix_sat(a + b, 32);
    }
}

int32_t sdp_y_int(const struct sdp_y_cfg *c, int32_t in, int32_t alu_op, int32_t mul_op)
{
    if (c->bypass)
        return in;
    return (int32_t)y_alu(c, y_mul(c, in, mul_op), alu_op);
}
