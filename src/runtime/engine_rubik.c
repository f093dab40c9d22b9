/* RUBIK programming: contract, split and merge reshapes, memory to memory. */
#include "engine_priv.h"

static void rubik_set_producer(struct engine *e, int group, int rdma_group)
{
    (void)rdma_group;
    eng_set_producer(e, R_RBK_S_POINTER, group);
}

static void rubik_enable(struct engine *e, struct eng_group *g)
{
    (void)g;
    eng_op_enable(e, R_RBK_D_OP_ENABLE);
}

static void program_strides(struct engine *e, const struct fw_rubik_op *o,
                            const struct fw_pdp_surface *s)
{
    eng_write(e, R_RBK_D_DAOUT_LINE_STRIDE, s->dst.line_stride);
    if (o->mode == FW_RUBIK_SPLIT) {
        eng_write(e, R_RBK_D_DAOUT_PLANAR_STRIDE, s->dst.plane_stride);
        return;
    }
    eng_write(e, R_RBK_D_DAOUT_SURF_STRIDE, s->dst.surf_stride);
    if (o->mode != FW_RUBIK_CONTRACT)
        return;
    unsigned bpe = o->precision == FW_PREC_INT8 ? 1u : 2u;
    /* output channels in 32-byte atoms, times the input surface stride */
    eng_write(e, R_RBK_D_CONTRACT_STRIDE_0,
              ((s->dst.channel * bpe + 31u) >> 5) * s->src.surf_stride);
    eng_write(e, R_RBK_D_CONTRACT_STRIDE_1, o->stride_y * s->dst.line_stride);
    eng_write(e, R_RBK_D_DECONV_STRIDE,
              eng_field(e, R_RBK_D_DECONV_STRIDE, "DECONV_X_STRIDE", o->stride_x - 1u) |
                  eng_field(e, R_RBK_D_DECONV_STRIDE, "DECONV_Y_STRIDE", o->stride_y - 1u));
}

static int rubik_program(struct engine *e, struct dla *d, struct eng_group *g)
{
    (void)d;
    const struct fw_rubik_op *o = &g->desc.u.rubik.op;
    const struct fw_pdp_surface *s = &g->desc.u.rubik.surface;
    uint64_t in, out;
    if (!e->cfg->rubik)
        return eng_fail(e, "%s: the %s configuration has no RUBIK", e->where, e->cfg->name);
    eng_enable_intr(e, (1u << 8) | (1u << 9)); /* RUBIK_DONE_MASK0/1 */
    if (s->src.type == FW_MEM_HW || s->dst.type == FW_MEM_HW)
        return eng_fail(e, "%s: RUBIK reads and writes memory", e->where);
    if (o->mode > FW_RUBIK_MERGE || o->precision > FW_PREC_FP16)
        return eng_fail(e, "%s: mode %u or precision %u out of range", e->where, o->mode,
                        o->precision);
    if (!eng_dma_address(e, s->src.address, s->src.offset, &in, NULL) ||
        !eng_dma_address(e, s->dst.address, s->dst.offset, &out, NULL))
        return -1;
    enum eng_reg r = R_RBK_D_MISC_CFG;
    eng_write(e, r,
              eng_field(e, r, "RUBIK_MODE", o->mode) |
                  eng_field(e, r, "IN_PRECISION", o->precision));
    eng_write_field(e, R_RBK_D_DAIN_RAM_TYPE, "DATAIN_RAM_TYPE", eng_ram_type(s->src.type));
    eng_write(e, R_RBK_D_DATAIN_SIZE_0,
              eng_field(e, R_RBK_D_DATAIN_SIZE_0, "DATAIN_WIDTH", s->src.width - 1u) |
                  eng_field(e, R_RBK_D_DATAIN_SIZE_0, "DATAIN_HEIGHT", s->src.height - 1u));
    eng_write_field(e, R_RBK_D_DATAIN_SIZE_1, "DATAIN_CHANNEL", s->src.channel - 1u);
    eng_write(e, R_RBK_D_DAIN_ADDR_LOW, eng_lo32(in));
    eng_write(e, R_RBK_D_DAIN_ADDR_HIGH, eng_hi32(in));
    if (o->mode == FW_RUBIK_MERGE) {
        if (s->src.plane_stride == 0 || (s->src.plane_stride & 0x1f))
            return eng_fail(e, "%s: merge needs a non-zero, 32-byte aligned plane stride",
                            e->where);
        eng_write(e, R_RBK_D_DAIN_PLANAR_STRIDE, s->src.plane_stride);
    } else {
        eng_write(e, R_RBK_D_DAIN_SURF_STRIDE, s->src.surf_stride);
    }
    eng_write(e, R_RBK_D_DAIN_LINE_STRIDE, s->src.line_stride);
    eng_write_field(e, R_RBK_D_DAOUT_RAM_TYPE, "DATAOUT_RAM_TYPE", eng_ram_type(s->dst.type));
    eng_write_field(e, R_RBK_D_DATAOUT_SIZE_1, "DATAOUT_CHANNEL", s->dst.channel - 1u);
    eng_write(e, R_RBK_D_DAOUT_ADDR_LOW, eng_lo32(out));
    eng_write(e, R_RBK_D_DAOUT_ADDR_HIGH, eng_hi32(out));
    program_strides(e, o, s);
    return e->failed ? -1 : 0;
}

const struct eng_unit eng_rubik_unit = {
    .name = "RUBIK",
    .set_producer = rubik_set_producer,
    .program = rubik_program,
    .enable = rubik_enable,
    .rdma_needed = eng_no_rdma,
    .is_ready = eng_always_ready,
};
