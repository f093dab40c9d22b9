/* SDP programming: the RDMA (memory input and the X1/X2/Y operand streams),
 * the LUT, then the datapath stages BS (X1), BN (X2), EW (Y) and the output
 * converter.  The RDMA runs only when the input comes from memory or an
 * enabled stage takes its operand per kernel or per element. */
#include <stdio.h>

#include "engine_priv.h"

static void sdp_set_producer(struct engine *e, int group, int rdma_group)
{
    eng_set_producer(e, R_SDP_S_POINTER, group);
    eng_set_producer(e, R_SDP_RDMA_S_POINTER, rdma_group);
}

static void sdp_enable(struct engine *e, struct eng_group *g)
{
    if (g->rdma_needed)
        eng_op_enable(e, R_SDP_RDMA_D_OP_ENABLE);
    eng_op_enable(e, R_SDP_D_OP_ENABLE);
}

static bool stage_streams(const struct fw_sdp_stage *s)
{
    return s->enable && s->mode != FW_SDP_PER_LAYER;
}

static bool sdp_rdma_needed(const struct fw_op *op)
{
    const struct fw_sdp_op *o = &op->u.sdp.op;
    return op->u.sdp.surface.src.type != FW_MEM_HW || stage_streams(&o->x1) ||
           stage_streams(&o->x2) || stage_streams(&o->y);
}

static bool sdp_is_ready(const struct eng_proc *p, const struct eng_group *g)
{
    return eng_lut_ready(p, g, g->desc.u.sdp.op.lut_index);
}

/* The processing precision the firmware derives from output and input. */
static uint32_t proc_precision(uint8_t dst, uint8_t src)
{
    if (src == FW_PREC_FP16)
        return FW_PREC_FP16;
    if (dst == FW_PREC_INT8)
        return FW_PREC_INT8;
    return src;
}

/* Operand stream configuration of one RDMA channel (BRDMA, NRDMA, ERDMA). */
static uint32_t stream_cfg(struct engine *e, enum eng_reg r, const char *prefix,
                           const struct fw_sdp_stage *s, const struct fw_cube *c, bool streams)
{
    static const uint32_t data_use[] = {0, 0, 1, 2}; /* NONE/MUL -> MUL, ADD -> ALU, BOTH */
    char f[40];
    uint32_t v = 0;
    snprintf(f, sizeof f, "%s_DISABLE", prefix);
    v |= eng_field(e, r, f, !streams);
    snprintf(f, sizeof f, "%s_DATA_USE", prefix);
    v |= eng_field(e, r, f, data_use[s->type & 3]);
    snprintf(f, sizeof f, "%s_DATA_SIZE", prefix);
    v |= eng_field(e, r, f, s->precision != FW_PREC_INT8);
    snprintf(f, sizeof f, "%s_DATA_MODE", prefix);
    v |= eng_field(e, r, f, s->mode == FW_SDP_PER_KERNEL ? 0u : 1u);
    snprintf(f, sizeof f, "%s_RAM_TYPE", prefix);
    v |= eng_field(e, r, f, eng_ram_type(c->type));
    return v;
}

struct sdp_stream_regs {
    enum eng_reg cfg, lo, hi, line, surf;
    const char *prefix;
};

static const struct sdp_stream_regs stream_regs[3] = {
    {R_SDP_RDMA_D_BRDMA_CFG, R_SDP_RDMA_D_BS_BASE_ADDR_LOW, R_SDP_RDMA_D_BS_BASE_ADDR_HIGH,
     R_SDP_RDMA_D_BS_LINE_STRIDE, R_SDP_RDMA_D_BS_SURFACE_STRIDE, "BRDMA"},
    {R_SDP_RDMA_D_NRDMA_CFG, R_SDP_RDMA_D_BN_BASE_ADDR_LOW, R_SDP_RDMA_D_BN_BASE_ADDR_HIGH,
     R_SDP_RDMA_D_BN_LINE_STRIDE, R_SDP_RDMA_D_BN_SURFACE_STRIDE, "NRDMA"},
    {R_SDP_RDMA_D_ERDMA_CFG, R_SDP_RDMA_D_EW_BASE_ADDR_LOW, R_SDP_RDMA_D_EW_BASE_ADDR_HIGH,
     R_SDP_RDMA_D_EW_LINE_STRIDE, R_SDP_RDMA_D_EW_SURFACE_STRIDE, "ERDMA"},
};

struct sdp_addrs {
    uint64_t src, dst, stream[3];
    bool streams[3];
};

/* The firmware does not check SDP alignment: an address with low bits set is
 * programmed as given and the hardware drops them (the CSB model does). */
static int sdp_addresses(struct engine *e, const struct fw_sdp_op *o,
                         const struct fw_sdp_surface *s, struct sdp_addrs *a)
{
    const struct fw_sdp_stage *stages[3] = {&o->x1, &o->x2, &o->y};
    const struct fw_cube *cubes[3] = {&s->x1, &s->x2, &s->y};
    if (s->src.type != FW_MEM_HW &&
        !eng_dma_address(e, s->src.address, s->src.offset, &a->src, NULL))
        return -1;
    if (s->dst.type != FW_MEM_HW &&
        !eng_dma_address(e, s->dst.address, s->dst.offset, &a->dst, NULL))
        return -1;
    for (int i = 0; i < 3; i++) {
        a->streams[i] = stages[i]->enable && stages[i]->type != FW_SDP_NONE &&
                        stages[i]->mode != FW_SDP_PER_LAYER;
        if (a->streams[i] &&
            !eng_dma_address(e, cubes[i]->address, cubes[i]->offset, &a->stream[i], NULL))
            return -1;
    }
    return 0;
}

static void program_rdma(struct engine *e, const struct eng_group *g, const struct fw_sdp_op *o,
                         const struct fw_sdp_surface *s, const struct sdp_addrs *a)
{
    const struct fw_sdp_stage *stages[3] = {&o->x1, &o->x2, &o->y};
    const struct fw_cube *cubes[3] = {&s->x1, &s->x2, &s->y};
    bool fly = s->src.type == FW_MEM_HW;
    enum eng_reg fm = R_SDP_RDMA_D_FEATURE_MODE_CFG;
    /* the firmware first resets the mode and writes the three stream
     * configurations with DISABLE=NO (its map_ena[1]): all 0, streams not
     * disabled.  Without an RDMA the group keeps that state. */
    eng_write_field(e, fm, "FLYING_MODE", 0);
    eng_write(e, R_SDP_RDMA_D_BRDMA_CFG,
              eng_enum(e, R_SDP_RDMA_D_BRDMA_CFG, "BRDMA_DISABLE", "NO"));
    eng_write(e, R_SDP_RDMA_D_NRDMA_CFG,
              eng_enum(e, R_SDP_RDMA_D_NRDMA_CFG, "NRDMA_DISABLE", "NO"));
    eng_write(e, R_SDP_RDMA_D_ERDMA_CFG,
              eng_enum(e, R_SDP_RDMA_D_ERDMA_CFG, "ERDMA_DISABLE", "NO"));
    eng_write(
        e, fm,
        eng_field(e, fm, "FLYING_MODE", fly) | eng_field(e, fm, "WINOGRAD", o->conv_mode == 1) |
            eng_field(e, fm, "IN_PRECISION", o->src_precision) |
            eng_field(e, fm, "OUT_PRECISION", o->dst_precision) |
            eng_field(e, fm, "PROC_PRECISION", proc_precision(o->dst_precision, o->src_precision)) |
            eng_field(e, fm, "BATCH_NUMBER", o->batch_num - 1u));
    if (!g->rdma_needed)
        return;
    eng_write(e, R_SDP_RDMA_D_DATA_CUBE_WIDTH, s->src.width - 1u);
    eng_write(e, R_SDP_RDMA_D_DATA_CUBE_HEIGHT, s->src.height - 1u);
    eng_write(e, R_SDP_RDMA_D_DATA_CUBE_CHANNEL, s->src.channel - 1u);
    if (!fly) {
        eng_write(e, R_SDP_RDMA_D_SRC_BASE_ADDR_LOW, eng_lo32(a->src));
        eng_write(e, R_SDP_RDMA_D_SRC_BASE_ADDR_HIGH, eng_hi32(a->src));
        eng_write(e, R_SDP_RDMA_D_SRC_LINE_STRIDE, s->src.line_stride);
        eng_write(e, R_SDP_RDMA_D_SRC_SURFACE_STRIDE, s->src.surf_stride);
        eng_write(e, R_SDP_RDMA_D_SRC_DMA_CFG, eng_ram_type(s->src.type));
    }
    for (int i = 0; i < 3; i++) {
        const struct sdp_stream_regs *r = &stream_regs[i];
        eng_write(e, r->cfg, stream_cfg(e, r->cfg, r->prefix, stages[i], cubes[i], a->streams[i]));
        if (!a->streams[i])
            continue;
        eng_write(e, r->lo, eng_lo32(a->stream[i]));
        eng_write(e, r->hi, eng_hi32(a->stream[i]));
        eng_write(e, r->line, cubes[i]->line_stride);
        eng_write(e, r->surf, cubes[i]->surf_stride);
    }
}

struct sdp_stage_regs {
    enum eng_reg cfg, alu_cfg, alu_value, mul_value, mul_cfg;
    const char *p; /* field prefix: BS or BN */
};

/* BS (X1) and BN (X2) share a shape. */
static void program_bs_bn(struct engine *e, const struct sdp_stage_regs *r,
                          const struct fw_sdp_stage *s)
{
    char f[40];
    uint32_t v = 0;
#define FIELD(name, value)                                                                         \
    (snprintf(f, sizeof f, "%s_" name, r->p), eng_field(e, r->cfg, f, (value)))
    v |= FIELD("BYPASS", !s->enable);
    v |= FIELD("ALU_BYPASS", !(s->type != FW_SDP_MUL && s->type != FW_SDP_NONE));
    v |= FIELD("ALU_ALGO", s->alu_type);
    v |= FIELD("MUL_BYPASS", !(s->type != FW_SDP_ADD && s->type != FW_SDP_NONE));
    v |= FIELD("MUL_PRELU", s->act == FW_ACT_PRELU);
    v |= FIELD("RELU_BYPASS", s->act != FW_ACT_RELU);
#undef FIELD
    eng_write(e, r->cfg, v);
    if (!s->enable)
        return;
    bool per_layer = s->mode == FW_SDP_PER_LAYER;
    char src[40], shift[40];
    if (s->type == FW_SDP_ADD || s->type == FW_SDP_BOTH) {
        snprintf(src, sizeof src, "%s_ALU_SRC", r->p);
        snprintf(shift, sizeof shift, "%s_ALU_SHIFT_VALUE", r->p);
        eng_write(e, r->alu_cfg,
                  eng_field(e, r->alu_cfg, src, !per_layer) |
                      eng_field(e, r->alu_cfg, shift, s->shift_value));
    }
    if (per_layer) {
        eng_write(e, r->alu_value, (uint32_t)s->alu_operand);
        eng_write(e, r->mul_value, (uint32_t)s->mul_operand);
    }
    snprintf(src, sizeof src, "%s_MUL_SRC", r->p);
    snprintf(shift, sizeof shift, "%s_MUL_SHIFT_VALUE", r->p);
    eng_write(e, r->mul_cfg,
              eng_field(e, r->mul_cfg, src, !per_layer) |
                  eng_field(e, r->mul_cfg, shift, s->truncate));
}

struct sdp_ew_operand_regs {
    enum eng_reg cfg, src_value, cvt_offset, cvt_scale, cvt_truncate;
    const char *src, *cvt_bypass; /* fields of cfg */
};

/* The ALU and MUL operand registers differ only in that word of their names. */
#define EW_OPERAND_REGS(op)                                                                        \
    {                                                                                              \
        .cfg = R_SDP_D_DP_EW_##op##_CFG, .src_value = R_SDP_D_DP_EW_##op##_SRC_VALUE,              \
        .cvt_offset = R_SDP_D_DP_EW_##op##_CVT_OFFSET_VALUE,                                       \
        .cvt_scale = R_SDP_D_DP_EW_##op##_CVT_SCALE_VALUE,                                         \
        .cvt_truncate = R_SDP_D_DP_EW_##op##_CVT_TRUNCATE_VALUE, .src = "EW_" #op "_SRC",          \
        .cvt_bypass = "EW_" #op "_CVT_BYPASS",                                                     \
    }
static const struct sdp_ew_operand_regs ew_alu_regs = EW_OPERAND_REGS(ALU);
static const struct sdp_ew_operand_regs ew_mul_regs = EW_OPERAND_REGS(MUL);
#undef EW_OPERAND_REGS

/* The EW stage's ALU and MUL operands are programmed alike: a per-layer
 * value, or a converter for the operand streamed from memory. */
static void program_ew_operand(struct engine *e, const struct sdp_ew_operand_regs *r,
                               bool per_layer, int32_t operand, const struct fw_cvt *cvt)
{
    eng_write(e, r->cfg,
              eng_field(e, r->cfg, r->src, !per_layer) |
                  eng_field(e, r->cfg, r->cvt_bypass, !cvt->enable));
    if (per_layer) {
        eng_write(e, r->src_value, (uint32_t)operand);
        return;
    }
    eng_write(e, r->cvt_offset, (uint32_t)cvt->offset);
    eng_write(e, r->cvt_scale, (uint16_t)cvt->scale);
    eng_write(e, r->cvt_truncate, cvt->truncate);
}

static void program_ew(struct engine *e, const struct fw_sdp_stage *s)
{
    enum eng_reg r = R_SDP_D_DP_EW_CFG;
    eng_write(
        e, r,
        eng_field(e, r, "EW_BYPASS", !s->enable) |
            eng_field(e, r, "EW_ALU_BYPASS", !(s->type != FW_SDP_MUL && s->type != FW_SDP_NONE)) |
            eng_field(e, r, "EW_ALU_ALGO", s->alu_type) |
            eng_field(e, r, "EW_MUL_BYPASS", !(s->type != FW_SDP_ADD && s->type != FW_SDP_NONE)) |
            eng_field(e, r, "EW_MUL_PRELU", s->act == FW_ACT_PRELU) |
            eng_field(e, r, "EW_LUT_BYPASS", s->act != FW_ACT_LUT));
    if (!s->enable)
        return;
    bool per_layer = s->mode == FW_SDP_PER_LAYER;
    if (s->type == FW_SDP_ADD || s->type == FW_SDP_BOTH)
        program_ew_operand(e, &ew_alu_regs, per_layer, s->alu_operand, &s->alu_cvt);
    if (s->type == FW_SDP_MUL || s->type == FW_SDP_BOTH)
        program_ew_operand(e, &ew_mul_regs, per_layer, s->mul_operand, &s->mul_cvt);
    eng_write(e, R_SDP_D_DP_EW_TRUNCATE_VALUE, s->truncate);
}

static const struct sdp_stage_regs bs_regs = {
    R_SDP_D_DP_BS_CFG,           R_SDP_D_DP_BS_ALU_CFG, R_SDP_D_DP_BS_ALU_SRC_VALUE,
    R_SDP_D_DP_BS_MUL_SRC_VALUE, R_SDP_D_DP_BS_MUL_CFG, "BS"};
static const struct sdp_stage_regs bn_regs = {
    R_SDP_D_DP_BN_CFG,           R_SDP_D_DP_BN_ALU_CFG, R_SDP_D_DP_BN_ALU_SRC_VALUE,
    R_SDP_D_DP_BN_MUL_SRC_VALUE, R_SDP_D_DP_BN_MUL_CFG, "BN"};

static void program_core(struct engine *e, const struct fw_sdp_op *o,
                         const struct fw_sdp_surface *s, const struct sdp_addrs *a)
{
    eng_write(e, R_SDP_D_DATA_CUBE_WIDTH, s->src.width - 1u);
    eng_write(e, R_SDP_D_DATA_CUBE_HEIGHT, s->src.height - 1u);
    eng_write(e, R_SDP_D_DATA_CUBE_CHANNEL, s->src.channel - 1u);
    if (s->dst.type != FW_MEM_HW) {
        eng_write(e, R_SDP_D_DST_BASE_ADDR_HIGH, eng_hi32(a->dst));
        eng_write(e, R_SDP_D_DST_BASE_ADDR_LOW, eng_lo32(a->dst));
        eng_write(e, R_SDP_D_DST_LINE_STRIDE, s->dst.line_stride);
        eng_write(e, R_SDP_D_DST_SURFACE_STRIDE, s->dst.surf_stride);
    }
    program_bs_bn(e, &bs_regs, &o->x1);
    program_bs_bn(e, &bn_regs, &o->x2);
    program_ew(e, &o->y);
    enum eng_reg r = R_SDP_D_FEATURE_MODE_CFG;
    eng_write(e, r,
              eng_field(e, r, "FLYING_MODE", s->src.type == FW_MEM_HW) |
                  eng_field(e, r, "OUTPUT_DST", s->dst.type == FW_MEM_HW) |
                  eng_field(e, r, "WINOGRAD", o->conv_mode == 1) |
                  eng_field(e, r, "BATCH_NUMBER", o->batch_num - 1u));
    eng_write(e, R_SDP_D_DST_DMA_CFG, eng_ram_type(s->dst.type));
    if (o->batch_num > 1)
        eng_write(e, R_SDP_D_DST_BATCH_STRIDE, o->batch_stride);
    r = R_SDP_D_DATA_FORMAT;
    eng_write(
        e, r,
        eng_field(e, r, "PROC_PRECISION", proc_precision(o->dst_precision, o->src_precision)) |
            eng_field(e, r, "OUT_PRECISION", o->dst_precision));
    eng_write(e, R_SDP_D_CVT_OFFSET, (uint32_t)o->out_cvt.offset);
    eng_write(e, R_SDP_D_CVT_SCALE, (uint16_t)o->out_cvt.scale);
    eng_write(e, R_SDP_D_CVT_SHIFT, o->out_cvt.truncate);
}

static int sdp_program(struct engine *e, struct dla *d, struct eng_group *g)
{
    const struct fw_sdp_op *o = &g->desc.u.sdp.op;
    const struct fw_sdp_surface *s = &g->desc.u.sdp.surface;
    struct sdp_addrs a = {0};
    struct fw_lut lut;
    if (o->src_precision > FW_PREC_FP16 || o->dst_precision > FW_PREC_FP16 || o->batch_num == 0)
        return eng_fail(e, "%s: precision %u/%u or batch count %u out of range", e->where,
                        o->src_precision, o->dst_precision, o->batch_num);
    eng_enable_intr(e, (1u << 0) | (1u << 1)); /* SDP_DONE_MASK0/1 */
    if (sdp_addresses(e, o, s, &a))
        return -1;
    if (o->lut_index >= 0) {
        g->lut_index = o->lut_index;
        if (!eng_read_lut(e, d, o->lut_index, &lut))
            return -1;
    }
    program_rdma(e, g, o, s, &a);
    if (o->lut_index >= 0)
        eng_program_lut(e, true, &lut, o->src_precision);
    program_core(e, o, s, &a);
    return e->failed ? -1 : 0;
}

const struct eng_unit eng_sdp_unit = {
    .name = "SDP",
    .set_producer = sdp_set_producer,
    .program = sdp_program,
    .enable = sdp_enable,
    .rdma_needed = sdp_rdma_needed,
    .is_ready = sdp_is_ready,
};
