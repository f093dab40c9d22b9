/* SDP datapath arithmetic, one element at a time, as NVIDIA's cmod computes
 * it (reference doc 7.2; cmod/hls/sdp): the X stages (BS = X1, BN = X2: ALU,
 * multiplier, truncation, ReLU), the Y stage (EW: operand converters,
 * multiplier, ALU; its LUT lives in the LUT module) and the output converter.
 *
 * Integer processing (int8/int16 layers) carries signed 32-bit values between
 * stages; fp16 processing carries binary32 bit patterns.  Register and memory
 * operands are selected by the caller: each function receives the operand
 * that applies to the element. */
#ifndef DLA_SDP_DP_H
#define DLA_SDP_DP_H

#include <stdbool.h>
#include <stdint.h>

/* Data precisions (PROC_PRECISION / OUT_PRECISION / IN_PRECISION values). */
enum sdp_prec { SDP_INT8 = 0, SDP_INT16 = 1, SDP_FP16 = 2 };

/* ALU algorithms (BS/BN use the first three, EW also EQL). */
enum sdp_alu_algo { SDP_ALU_MAX = 0, SDP_ALU_MIN = 1, SDP_ALU_SUM = 2, SDP_ALU_EQL = 3 };

/* One X stage (BS or BN). */
struct sdp_x_cfg {
    bool bypass; /* the whole stage */
    bool alu_bypass, mul_bypass, relu_bypass, prelu;
    uint8_t alu_algo;  /* enum sdp_alu_algo; EQL is not an X algorithm and sums */
    uint8_t alu_shift; /* operand left shift (6 bits), integer only */
    uint8_t mul_shift; /* product right shift (6 bits), integer only */
    bool alu_from_mem, mul_from_mem;
    int16_t alu_operand, mul_operand; /* register operands */
};

/* The converter a Y (EW) memory operand goes through. */
struct sdp_y_cvt_cfg {
    bool bypass;
    int32_t offset;
    int16_t scale;
    uint8_t truncate; /* 6 bits */
};

/* The Y (EW) stage: multiplier first, then ALU, then the LUT. */
struct sdp_y_cfg {
    bool bypass;
    bool alu_bypass, mul_bypass, prelu, lut_bypass;
    uint8_t alu_algo;  /* enum sdp_alu_algo */
    uint16_t truncate; /* product right shift (10 bits), integer only */
    bool alu_from_mem, mul_from_mem;
    int32_t alu_operand, mul_operand; /* register operands (not converted) */
    struct sdp_y_cvt_cfg alu_cvt, mul_cvt;
};

/* The output converter. */
struct sdp_cvt_cfg {
    int32_t offset;
    int16_t scale;
    uint8_t shift;    /* 6 bits */
    uint8_t out_prec; /* enum sdp_prec */
};

/* ---------------------------------------------------------------- integer */
int32_t sdp_x_int(const struct sdp_x_cfg *c, int32_t in, int16_t alu_op, int16_t mul_op);
/* A 16-bit memory operand through the Y operand converter. */
int32_t sdp_y_operand_int(const struct sdp_y_cvt_cfg *c, int16_t raw);
/* Y multiplier and ALU (LUT excluded). */
int32_t sdp_y_int(const struct sdp_y_cfg *c, int32_t in, int32_t alu_op, int32_t mul_op);
/* Output converter: int8/int16 value, or fp16 bits for an fp16 output.
 * *saturated reports the converter's saturation flag (the one
 * D_PERF_OUT_SATURATION counts). */
int32_t sdp_cvt_int(const struct sdp_cvt_cfg *c, int32_t in, bool *saturated);

/* fp16 processing (binary32 values between the stages, fp16 operands)
 * is in sdp_dp_fp.h, inline. */

#endif
