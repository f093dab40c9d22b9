/* CDP programming: local response normalisation from memory to memory,
 * with the LUT loaded through the shared S_LUT_ACCESS port. */
#include "engine_priv.h"

static void cdp_set_producer(struct engine *e, int group, int rdma_group)
{
    /* the firmware points the RDMA at the unit's own group */
    (void)rdma_group;
    eng_set_producer(e, R_CDP_S_POINTER, group);
    eng_set_producer(e, R_CDP_RDMA_S_POINTER, group);
}

static void cdp_enable(struct engine *e, struct eng_group *g)
{
    (void)g;
    eng_op_enable(e, R_CDP_RDMA_D_OP_ENABLE);
    eng_op_enable(e, R_CDP_D_OP_ENABLE);
}

static bool cdp_rdma_needed(const struct fw_op *op)
{
    (void)op;
    return true;
}

static bool cdp_is_ready(const struct eng_proc *p, const struct eng_group *g)
{
    return eng_lut_ready(p, g, g->desc.u.cdp.op.lut_index);
}

static int cdp_program(struct engine *e, struct dla *d, struct eng_group *g)
{
    const struct fw_cdp_op *o = &g->desc.u.cdp.op;
    const struct fw_pdp_surface *s = &g->desc.u.cdp.surface;
    uint64_t in, out;
    struct fw_lut lut;
    eng_enable_intr(e, (1u << 2) | (1u << 3)); /* CDP_DONE_MASK0/1 */
    if (s->src.type == FW_MEM_HW || s->dst.type == FW_MEM_HW)
        return eng_fail(e, "%s: CDP reads and writes memory, not on-the-fly data", e->where);
    if (o->in_precision != o->out_precision || o->in_precision > FW_PREC_FP16)
        return eng_fail(e, "%s: CDP cannot convert precision %u to %u", e->where, o->in_precision,
                        o->out_precision);
    if (o->local_size != 3 && o->local_size != 5 && o->local_size != 7 && o->local_size != 9)
        return eng_fail(e, "%s: local size %u, expected 3, 5, 7 or 9", e->where, o->local_size);
    if (!eng_dma_address(e, s->src.address, s->src.offset, &in, NULL) ||
        !eng_dma_address(e, s->dst.address, s->dst.offset, &out, NULL))
        return -1;
    if (o->lut_index >= 0) {
        g->lut_index = o->lut_index;
        if (!eng_read_lut(e, d, o->lut_index, &lut))
            return -1;
    }
    eng_write_field(e, R_CDP_RDMA_D_DATA_CUBE_WIDTH, "WIDTH", s->src.width - 1u);
    eng_write_field(e, R_CDP_RDMA_D_DATA_CUBE_HEIGHT, "HEIGHT", s->src.height - 1u);
    eng_write_field(e, R_CDP_RDMA_D_DATA_CUBE_CHANNEL, "CHANNEL", s->src.channel - 1u);
    eng_write(e, R_CDP_RDMA_D_SRC_BASE_ADDR_LOW, eng_lo32(in));
    eng_write(e, R_CDP_RDMA_D_SRC_BASE_ADDR_HIGH, eng_hi32(in));
    eng_write(e, R_CDP_RDMA_D_SRC_LINE_STRIDE, s->src.line_stride);
    eng_write(e, R_CDP_RDMA_D_SRC_SURFACE_STRIDE, s->src.surf_stride);
    eng_write_field(e, R_CDP_RDMA_D_SRC_DMA_CFG, "SRC_RAM_TYPE", eng_ram_type(s->src.type));
    eng_write_field(e, R_CDP_RDMA_D_DATA_FORMAT, "INPUT_DATA", o->in_precision);
    if (o->lut_index >= 0)
        eng_program_lut(e, false, &lut, o->in_precision);
    eng_write(e, R_CDP_D_DST_BASE_ADDR_LOW, eng_lo32(out));
    eng_write(e, R_CDP_D_DST_BASE_ADDR_HIGH, eng_hi32(out));
    eng_write(e, R_CDP_D_DST_LINE_STRIDE, s->dst.line_stride);
    eng_write(e, R_CDP_D_DST_SURFACE_STRIDE, s->dst.surf_stride);
    eng_write_field(e, R_CDP_D_DST_DMA_CFG, "DST_RAM_TYPE", eng_ram_type(s->dst.type));
    eng_write_field(e, R_CDP_D_DATA_FORMAT, "INPUT_DATA_TYPE", o->in_precision);
    eng_write_field(e, R_CDP_D_LRN_CFG, "NORMALZ_LEN", (o->local_size - 1u) / 2u - 1u);
    eng_write_field(e, R_CDP_D_DATIN_OFFSET, "DATIN_OFFSET", (uint32_t)o->in_cvt.offset);
    eng_write_field(e, R_CDP_D_DATIN_SCALE, "DATIN_SCALE", (uint16_t)o->in_cvt.scale);
    eng_write_field(e, R_CDP_D_DATIN_SHIFTER, "DATIN_SHIFTER", o->in_cvt.truncate);
    eng_write_field(e, R_CDP_D_DATOUT_OFFSET, "DATOUT_OFFSET", (uint32_t)o->out_cvt.offset);
    eng_write_field(e, R_CDP_D_DATOUT_SCALE, "DATOUT_SCALE", (uint16_t)o->out_cvt.scale);
    eng_write_field(e, R_CDP_D_DATOUT_SHIFTER, "DATOUT_SHIFTER", o->out_cvt.truncate);
    eng_write(e, R_CDP_D_FUNC_BYPASS,
              eng_field(e, R_CDP_D_FUNC_BYPASS, "SQSUM_BYPASS", o->bypass_sqsum != 0) |
                  eng_field(e, R_CDP_D_FUNC_BYPASS, "MUL_BYPASS", o->bypass_out_mul != 0));
    return e->failed ? -1 : 0;
}

const struct eng_unit eng_cdp_unit = {
    .name = "CDP",
    .set_producer = cdp_set_producer,
    .program = cdp_program,
    .enable = cdp_enable,
    .rdma_needed = cdp_rdma_needed,
    .is_ready = cdp_is_ready,
};
