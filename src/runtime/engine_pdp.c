/* PDP programming: pooling from memory (through PDP_RDMA) or on the fly
 * from SDP, with optional width splitting. */
#include "engine_priv.h"

/* Reciprocals of the kernel size 1..8: 16.16 fixed point for integer data,
 * fp16 codes for fp16 data (as the firmware programs them). */
static const uint32_t recip[2][8] = {
    {0x10000, 0x8000, 0x5555, 0x4000, 0x3333, 0x2aaa, 0x2492, 0x2000},
    {0x7c00, 0x7800, 0x7555, 0x7400, 0x7266, 0x7155, 0x7092, 0x7000},
};

static void pdp_set_producer(struct engine *e, int group, int rdma_group)
{
    eng_set_producer(e, R_PDP_S_POINTER, group);
    eng_set_producer(e, R_PDP_RDMA_S_POINTER, rdma_group);
}

static void pdp_enable(struct engine *e, struct eng_group *g)
{
    if (g->rdma_needed)
        eng_op_enable(e, R_PDP_RDMA_D_OP_ENABLE);
    eng_op_enable(e, R_PDP_D_OP_ENABLE);
}

static bool pdp_rdma_needed(const struct fw_op *op)
{
    return op->u.pdp.surface.src.type != FW_MEM_HW;
}

static uint32_t minus1(uint16_t v)
{
    return v ? v - 1u : 0u;
}

static int validate(struct engine *e, const struct fw_pdp_op *o, const struct fw_pdp_surface *s)
{
    if (s->dst.type == FW_MEM_HW)
        return eng_fail(e, "%s: PDP output must go to memory", e->where);
    if (s->src.type > FW_MEM_HW || o->precision > FW_PREC_FP16)
        return eng_fail(e, "%s: memory type %u or precision %u out of range", e->where, s->src.type,
                        o->precision);
    if (o->stride_x < 1 || o->stride_y < 1 || o->stride_x > 8 || o->stride_y > 8)
        return eng_fail(e, "%s: strides %ux%u, expected 1..8", e->where, o->stride_x, o->stride_y);
    if (o->split_num == 0 || o->split_num > 64)
        return eng_fail(e, "%s: split_num %u, expected 1..64", e->where, o->split_num);
    if (o->pool_width > 7 || o->pool_height > 7 || o->pool_mode > 2)
        return eng_fail(e, "%s: pool %ux%u mode %u out of range", e->where, o->pool_width + 1u,
                        o->pool_height + 1u, o->pool_mode);
    if (s->src.type == FW_MEM_HW && o->split_num != 1)
        return eng_fail(e, "%s: on-the-fly input cannot be split", e->where);
    if (o->precision == FW_PREC_FP16)
        for (int i = 0; i < 7; i++)
            if (o->padding_value[i])
                return eng_fail(e, "%s: fp16 pooling needs zero padding values", e->where);
    return 0;
}

static void program_rdma(struct engine *e, const struct fw_pdp_op *o,
                         const struct fw_pdp_surface *s, uint64_t in)
{
    eng_write(e, R_PDP_RDMA_D_DATA_CUBE_IN_WIDTH, s->src.width - 1u);
    eng_write(e, R_PDP_RDMA_D_DATA_CUBE_IN_HEIGHT, s->src.height - 1u);
    eng_write(e, R_PDP_RDMA_D_DATA_CUBE_IN_CHANNEL, s->src.channel - 1u);
    eng_write(e, R_PDP_RDMA_D_SRC_BASE_ADDR_HIGH, eng_hi32(in));
    eng_write(e, R_PDP_RDMA_D_SRC_BASE_ADDR_LOW, eng_lo32(in));
    eng_write(e, R_PDP_RDMA_D_SRC_LINE_STRIDE, s->src.line_stride);
    eng_write(e, R_PDP_RDMA_D_SRC_SURFACE_STRIDE, s->src.surf_stride);
    eng_write_field(e, R_PDP_RDMA_D_DATA_FORMAT, "INPUT_DATA", o->precision);
    eng_write_field(e, R_PDP_RDMA_D_SRC_RAM_CFG, "SRC_RAM_TYPE", eng_ram_type(s->src.type));
    eng_write_field(e, R_PDP_RDMA_D_OPERATION_MODE_CFG, "SPLIT_NUM", o->split_num - 1u);
    enum eng_reg r = R_PDP_RDMA_D_POOLING_KERNEL_CFG;
    eng_write(e, r,
              eng_field(e, r, "KERNEL_WIDTH", o->pool_width) |
                  eng_field(e, r, "KERNEL_STRIDE_WIDTH", o->stride_x - 1u));
    eng_write_field(e, R_PDP_RDMA_D_POOLING_PADDING_CFG, "PAD_WIDTH", o->pad_left);
    r = R_PDP_RDMA_D_PARTIAL_WIDTH_IN;
    eng_write(e, r,
              eng_field(e, r, "PARTIAL_WIDTH_IN_FIRST", minus1(o->partial_in_width_first)) |
                  eng_field(e, r, "PARTIAL_WIDTH_IN_MID", minus1(o->partial_in_width_mid)) |
                  eng_field(e, r, "PARTIAL_WIDTH_IN_LAST", minus1(o->partial_in_width_last)));
}

static void program_core(struct engine *e, const struct fw_pdp_op *o,
                         const struct fw_pdp_surface *s, uint64_t out)
{
    eng_write(e, R_PDP_D_DATA_CUBE_IN_WIDTH, s->src.width - 1u);
    eng_write(e, R_PDP_D_DATA_CUBE_IN_HEIGHT, s->src.height - 1u);
    eng_write(e, R_PDP_D_DATA_CUBE_IN_CHANNEL, s->src.channel - 1u);
    eng_write(e, R_PDP_D_DATA_CUBE_OUT_WIDTH, s->dst.width - 1u);
    eng_write(e, R_PDP_D_DATA_CUBE_OUT_HEIGHT, s->dst.height - 1u);
    eng_write(e, R_PDP_D_DATA_CUBE_OUT_CHANNEL, s->dst.channel - 1u);
    enum eng_reg r = R_PDP_D_OPERATION_MODE_CFG;
    eng_write(
        e, r,
        eng_field(e, r, "POOLING_METHOD", o->pool_mode) |
            eng_enum(e, r, "FLYING_MODE", s->src.type == FW_MEM_HW ? "ON_FLYING" : "OFF_FLYING") |
            eng_field(e, r, "SPLIT_NUM", o->split_num - 1u));
    r = R_PDP_D_PARTIAL_WIDTH_IN;
    eng_write(e, r,
              eng_field(e, r, "PARTIAL_WIDTH_IN_FIRST", minus1(o->partial_in_width_first)) |
                  eng_field(e, r, "PARTIAL_WIDTH_IN_MID", minus1(o->partial_in_width_mid)) |
                  eng_field(e, r, "PARTIAL_WIDTH_IN_LAST", minus1(o->partial_in_width_last)));
    r = R_PDP_D_PARTIAL_WIDTH_OUT;
    eng_write(e, r,
              eng_field(e, r, "PARTIAL_WIDTH_OUT_FIRST", minus1(o->partial_width_first)) |
                  eng_field(e, r, "PARTIAL_WIDTH_OUT_MID", minus1(o->partial_width_mid)) |
                  eng_field(e, r, "PARTIAL_WIDTH_OUT_LAST", minus1(o->partial_width_last)));
    r = R_PDP_D_POOLING_KERNEL_CFG;
    eng_write(e, r,
              eng_field(e, r, "KERNEL_WIDTH", o->pool_width) |
                  eng_field(e, r, "KERNEL_HEIGHT", o->pool_height) |
                  eng_field(e, r, "KERNEL_STRIDE_WIDTH", o->stride_x - 1u) |
                  eng_field(e, r, "KERNEL_STRIDE_HEIGHT", o->stride_y - 1u));
    bool fp16 = o->precision == FW_PREC_FP16;
    eng_write(e, R_PDP_D_RECIP_KERNEL_WIDTH, recip[fp16][o->pool_width]);
    eng_write(e, R_PDP_D_RECIP_KERNEL_HEIGHT, recip[fp16][o->pool_height]);
    r = R_PDP_D_POOLING_PADDING_CFG;
    eng_write(
        e, r,
        eng_field(e, r, "PAD_LEFT", o->pad_left) | eng_field(e, r, "PAD_RIGHT", o->pad_right) |
            eng_field(e, r, "PAD_TOP", o->pad_top) | eng_field(e, r, "PAD_BOTTOM", o->pad_bottom));
    static const enum eng_reg pads[7] = {
        R_PDP_D_POOLING_PADDING_VALUE_1_CFG, R_PDP_D_POOLING_PADDING_VALUE_2_CFG,
        R_PDP_D_POOLING_PADDING_VALUE_3_CFG, R_PDP_D_POOLING_PADDING_VALUE_4_CFG,
        R_PDP_D_POOLING_PADDING_VALUE_5_CFG, R_PDP_D_POOLING_PADDING_VALUE_6_CFG,
        R_PDP_D_POOLING_PADDING_VALUE_7_CFG,
    };
    for (int i = 0; i < 7; i++)
        eng_write(e, pads[i], (uint32_t)o->padding_value[i]);
    if (s->src.type != FW_MEM_HW) {
        eng_write(e, R_PDP_D_SRC_LINE_STRIDE, s->src.line_stride);
        eng_write(e, R_PDP_D_SRC_SURFACE_STRIDE, s->src.surf_stride);
    }
    eng_write(e, R_PDP_D_DST_BASE_ADDR_LOW, eng_lo32(out));
    eng_write(e, R_PDP_D_DST_BASE_ADDR_HIGH, eng_hi32(out));
    eng_write(e, R_PDP_D_DST_LINE_STRIDE, s->dst.line_stride);
    eng_write(e, R_PDP_D_DST_SURFACE_STRIDE, s->dst.surf_stride);
    eng_write_field(e, R_PDP_D_DST_RAM_CFG, "DST_RAM_TYPE", eng_ram_type(s->dst.type));
    eng_write_field(e, R_PDP_D_DATA_FORMAT, "INPUT_DATA", o->precision);
}

static int pdp_program(struct engine *e, struct dla *d, struct eng_group *g)
{
    (void)d;
    const struct fw_pdp_op *o = &g->desc.u.pdp.op;
    const struct fw_pdp_surface *s = &g->desc.u.pdp.surface;
    uint64_t in = 0, out = 0;
    eng_enable_intr(e, (1u << 4) | (1u << 5)); /* PDP_DONE_MASK0/1 */
    if (validate(e, o, s))
        return -1;
    if (s->src.type != FW_MEM_HW && !eng_dma_address(e, s->src.address, s->src.offset, &in, NULL))
        return -1;
    if (s->dst.address != -1 && !eng_dma_address(e, s->dst.address, s->dst.offset, &out, NULL))
        return -1;
    if (s->src.type != FW_MEM_HW)
        program_rdma(e, o, s, in);
    program_core(e, o, s, out);
    return e->failed ? -1 : 0;
}

const struct eng_unit eng_pdp_unit = {
    .name = "PDP",
    .set_producer = pdp_set_producer,
    .program = pdp_program,
    .enable = pdp_enable,
    .rdma_needed = pdp_rdma_needed,
    .is_ready = eng_always_ready,
};
