/* Convolution pipeline programming (CDMA, CSC, CMAC_A/B, CACC): the
 * sub-units are configured downstream first and enabled downstream first,
 * so that nothing starts before its consumer is ready. */
#include "engine_priv.h"

static const enum eng_reg pointers[] = {R_CACC_S_POINTER, R_CMAC_A_S_POINTER, R_CMAC_B_S_POINTER,
                                        R_CSC_S_POINTER, R_CDMA_S_POINTER};
static const enum eng_reg statuses[] = {R_CACC_S_STATUS, R_CMAC_A_S_STATUS, R_CMAC_B_S_STATUS,
                                        R_CSC_S_STATUS, R_CDMA_S_STATUS};
static const enum eng_reg enables[] = {R_CACC_D_OP_ENABLE, R_CMAC_A_D_OP_ENABLE,
                                       R_CMAC_B_D_OP_ENABLE, R_CSC_D_OP_ENABLE, R_CDMA_D_OP_ENABLE};

static void conv_set_producer(struct engine *e, int group, int rdma_group)
{
    (void)rdma_group;
    for (size_t i = 0; i < sizeof pointers / sizeof pointers[0]; i++)
        eng_set_producer(e, pointers[i], group);
}

static void conv_enable(struct engine *e, struct eng_group *g)
{
    (void)g;
    eng_poll(e, R_CDMA_S_CBUF_FLUSH_STATUS,
             eng_field_mask(e, R_CDMA_S_CBUF_FLUSH_STATUS, "FLUSH_DONE"));
    for (size_t i = 0; i < sizeof enables / sizeof enables[0]; i++)
        eng_op_enable(e, enables[i]);
}

struct conv_addrs {
    uint64_t weight, wmb, wgs, input, output;
};

/* The firmware's CHECK_ALIGN of these addresses is a debug-build assert: a
 * release firmware programs them as given and the hardware drops the low bits
 * (the model's CSB does; its rule checker says so). */
static int conv_addresses(struct engine *e, const struct fw_conv_op *op,
                          const struct fw_conv_surface *s, struct conv_addrs *a)
{
    if (op->weight_format == 1) { /* compressed */
        if (!e->cfg->weight_compression)
            return eng_fail(e, "%s: compressed weights on %s", e->where, e->cfg->name);
        if (!eng_dma_address(e, s->wmb.address, s->wmb.offset, &a->wmb, NULL) ||
            !eng_dma_address(e, s->wgs.address, s->wgs.offset, &a->wgs, NULL))
            return -1;
    }
    if (s->weight.address != -1 &&
        !eng_dma_address(e, s->weight.address, s->weight.offset, &a->weight, NULL))
        return -1;
    if (s->dst.address != -1 &&
        !eng_dma_address(e, s->dst.address, s->dst.offset, &a->output, NULL))
        return -1;
    if (s->src.type != FW_MEM_HW &&
        !eng_dma_address(e, s->src.address, s->src.offset, &a->input, NULL))
        return -1;
    return 0;
}

/* The group must be idle in every sub-unit before it is reprogrammed: the
 * firmware reads S_STATUS of each, downstream first, and stops at the first
 * that is not. */
static int check_idle(struct engine *e, struct dla *d, int group)
{
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++) {
        uint32_t field = eng_field_mask(e, statuses[i], group ? "STATUS_1" : "STATUS_0");
        uint32_t st = (eng_read(e, d, statuses[i], field) >> (group ? 16 : 0)) & 3u;
        if (st != 0)
            return eng_fail(e, "%s: register group %d is not idle (S_STATUS %u)", e->where, group,
                            st);
    }
    return 0;
}

static void program_cacc(struct engine *e, const struct fw_conv_op *op,
                         const struct fw_conv_surface *s, const struct conv_addrs *a)
{
    eng_write(e, R_CACC_D_MISC_CFG,
              eng_field(e, R_CACC_D_MISC_CFG, "CONV_MODE", op->conv_mode) |
                  eng_field(e, R_CACC_D_MISC_CFG, "PROC_PRECISION", op->out_precision));
    eng_write(e, R_CACC_D_DATAOUT_SIZE_0,
              eng_field(e, R_CACC_D_DATAOUT_SIZE_0, "DATAOUT_WIDTH", s->dst.width - 1u) |
                  eng_field(e, R_CACC_D_DATAOUT_SIZE_0, "DATAOUT_HEIGHT", s->dst.height - 1u));
    eng_write_field(e, R_CACC_D_DATAOUT_SIZE_1, "DATAOUT_CHANNEL", s->dst.channel - 1u);
    eng_write(e, R_CACC_D_DATAOUT_ADDR, eng_lo32(a->output));
    eng_write(e, R_CACC_D_BATCH_NUMBER, op->batch - 1u);
    eng_write(e, R_CACC_D_LINE_STRIDE, s->dst.line_stride);
    eng_write(e, R_CACC_D_SURF_STRIDE, s->dst.surf_stride);
    bool packed = s->dst.width == 1 && s->dst.height == 1;
    if (packed && s->dst.line_stride != (uint32_t)s->dst.width * e->cfg->mem_atom)
        eng_fail(e, "%s: a 1x1 output needs line stride %u", e->where, e->cfg->mem_atom);
    eng_write(e, R_CACC_D_DATAOUT_MAP,
              eng_field(e, R_CACC_D_DATAOUT_MAP, "LINE_PACKED", packed) |
                  eng_field(e, R_CACC_D_DATAOUT_MAP, "SURF_PACKED", packed));
    eng_write(e, R_CACC_D_CLIP_CFG, op->out_cvt.truncate);
}

/* CSC and CDMA have the same D_MISC_CFG fields; only the input precision
 * each is given differs. */
static void write_misc_cfg(struct engine *e, enum eng_reg r, const struct fw_conv_op *op,
                           uint32_t in_precision)
{
    eng_write(e, r,
              eng_field(e, r, "CONV_MODE", op->conv_mode) |
                  eng_field(e, r, "IN_PRECISION", in_precision) |
                  eng_field(e, r, "PROC_PRECISION", op->out_precision) |
                  eng_field(e, r, "DATA_REUSE", op->data_reuse) |
                  eng_field(e, r, "WEIGHT_REUSE", op->weight_reuse) |
                  eng_field(e, r, "SKIP_DATA_RLS", op->skip_data_rls) |
                  eng_field(e, r, "SKIP_WEIGHT_RLS", op->skip_weight_rls));
}

static void program_cmac_csc(struct engine *e, const struct fw_conv_op *op,
                             const struct fw_conv_surface *s, uint32_t in_format)
{
    uint32_t misc = eng_field(e, R_CMAC_A_D_MISC_CFG, "CONV_MODE", op->conv_mode) |
                    eng_field(e, R_CMAC_A_D_MISC_CFG, "PROC_PRECISION", op->out_precision);
    eng_write(e, R_CMAC_A_D_MISC_CFG, misc);
    eng_write(e, R_CMAC_B_D_MISC_CFG, misc);
    write_misc_cfg(e, R_CSC_D_MISC_CFG, op, op->out_precision);
    eng_write_field(e, R_CSC_D_DATAIN_FORMAT, "DATAIN_FORMAT", in_format);
    eng_write(
        e, R_CSC_D_DATAIN_SIZE_EXT_0,
        eng_field(e, R_CSC_D_DATAIN_SIZE_EXT_0, "DATAIN_WIDTH_EXT", op->input_width_csc - 1u) |
            eng_field(e, R_CSC_D_DATAIN_SIZE_EXT_0, "DATAIN_HEIGHT_EXT",
                      op->input_height_csc - 1u));
    eng_write_field(e, R_CSC_D_DATAIN_SIZE_EXT_1, "DATAIN_CHANNEL_EXT", op->input_channel_csc - 1u);
    eng_write_field(e, R_CSC_D_BATCH_NUMBER, "BATCHES", op->batch - 1u);
    eng_write_field(e, R_CSC_D_POST_Y_EXTENSION, "Y_EXTENSION", op->post_extension);
    eng_write_field(e, R_CSC_D_ENTRY_PER_SLICE, "ENTRIES", op->entry_per_slice - 1u);
    eng_write_field(e, R_CSC_D_WEIGHT_FORMAT, "WEIGHT_FORMAT", op->weight_format);
    eng_write(
        e, R_CSC_D_WEIGHT_SIZE_EXT_0,
        eng_field(e, R_CSC_D_WEIGHT_SIZE_EXT_0, "WEIGHT_WIDTH_EXT", op->kernel_width_csc - 1u) |
            eng_field(e, R_CSC_D_WEIGHT_SIZE_EXT_0, "WEIGHT_HEIGHT_EXT",
                      op->kernel_height_csc - 1u));
    eng_write(
        e, R_CSC_D_WEIGHT_SIZE_EXT_1,
        eng_field(e, R_CSC_D_WEIGHT_SIZE_EXT_1, "WEIGHT_CHANNEL_EXT", op->kernel_channel_csc - 1u) |
            eng_field(e, R_CSC_D_WEIGHT_SIZE_EXT_1, "WEIGHT_KERNEL", s->dst.channel - 1u));
    eng_write(e, R_CSC_D_WEIGHT_BYTES, s->weight.size);
    eng_write(e, R_CSC_D_WMB_BYTES, s->wmb.size);
    eng_write(
        e, R_CSC_D_DATAOUT_SIZE_0,
        eng_field(e, R_CSC_D_DATAOUT_SIZE_0, "DATAOUT_WIDTH", op->input_width_cmac - 1u) |
            eng_field(e, R_CSC_D_DATAOUT_SIZE_0, "DATAOUT_HEIGHT", op->input_height_cmac - 1u));
    eng_write_field(e, R_CSC_D_DATAOUT_SIZE_1, "DATAOUT_CHANNEL", s->dst.channel - 1u);
    eng_write_field(e, R_CSC_D_ATOMICS, "ATOMICS", (uint32_t)s->dst.width * s->dst.height - 1u);
    eng_write_field(e, R_CSC_D_RELEASE, "RLS_SLICES", op->release - 1u);
    bool direct = op->conv_mode == 0;
    eng_write(e, R_CSC_D_CONV_STRIDE_EXT,
              eng_field(e, R_CSC_D_CONV_STRIDE_EXT, "CONV_X_STRIDE_EXT",
                        direct ? op->conv_stride_x - 1u : 0) |
                  eng_field(e, R_CSC_D_CONV_STRIDE_EXT, "CONV_Y_STRIDE_EXT",
                            direct ? op->conv_stride_y - 1u : 0));
    eng_write(e, R_CSC_D_DILATION_EXT,
              eng_field(e, R_CSC_D_DILATION_EXT, "X_DILATION_EXT", op->dilation_x - 1u) |
                  eng_field(e, R_CSC_D_DILATION_EXT, "Y_DILATION_EXT", op->dilation_y - 1u));
    eng_write(e, R_CSC_D_ZERO_PADDING,
              eng_field(e, R_CSC_D_ZERO_PADDING, "PAD_LEFT", direct ? op->pad_x_left : 0) |
                  eng_field(e, R_CSC_D_ZERO_PADDING, "PAD_TOP", direct ? op->pad_y_top : 0));
    eng_write_field(e, R_CSC_D_ZERO_PADDING_VALUE, "PAD_VALUE", (uint16_t)op->pad_val);
    eng_write(e, R_CSC_D_BANK,
              eng_field(e, R_CSC_D_BANK, "DATA_BANK", op->data_bank - 1u) |
                  eng_field(e, R_CSC_D_BANK, "WEIGHT_BANK", op->weight_bank - 1u));
    eng_write(e, R_CSC_D_PRA_CFG, op->pra_truncate);
}

static void program_cdma_input(struct engine *e, const struct fw_conv_op *op,
                               const struct fw_conv_surface *s, const struct conv_addrs *a,
                               uint32_t in_format, uint32_t pixel_format)
{
    write_misc_cfg(e, R_CDMA_D_MISC_CFG, op, op->in_precision);
    enum eng_reg r = R_CDMA_D_DATAIN_FORMAT;
    eng_write(e, r,
              eng_field(e, r, "DATAIN_FORMAT", in_format) |
                  eng_field(e, r, "PIXEL_FORMAT", pixel_format) |
                  eng_field(e, r, "PIXEL_MAPPING", op->pixel_mapping) |
                  eng_field(e, r, "PIXEL_SIGN_OVERRIDE", op->pixel_override));
    eng_write(e, R_CDMA_D_DATAIN_SIZE_0,
              eng_field(e, R_CDMA_D_DATAIN_SIZE_0, "DATAIN_WIDTH", s->src.width - 1u) |
                  eng_field(e, R_CDMA_D_DATAIN_SIZE_0, "DATAIN_HEIGHT", s->src.height - 1u));
    eng_write_field(e, R_CDMA_D_DATAIN_SIZE_1, "DATAIN_CHANNEL", s->src.channel - 1u);
    eng_write(
        e, R_CDMA_D_DATAIN_SIZE_EXT_0,
        eng_field(e, R_CDMA_D_DATAIN_SIZE_EXT_0, "DATAIN_WIDTH_EXT", op->input_width_csc - 1u) |
            eng_field(e, R_CDMA_D_DATAIN_SIZE_EXT_0, "DATAIN_HEIGHT_EXT",
                      op->input_height_csc - 1u));
    eng_write_field(e, R_CDMA_D_DAIN_RAM_TYPE, "DATAIN_RAM_TYPE", eng_ram_type(s->src.type));
    eng_write(e, R_CDMA_D_DAIN_ADDR_HIGH_0, eng_hi32(a->input));
    eng_write(e, R_CDMA_D_DAIN_ADDR_LOW_0, eng_lo32(a->input));
    uint64_t uv = a->input + (uint64_t)s->offset_u;
    eng_write(e, R_CDMA_D_DAIN_ADDR_HIGH_1, eng_hi32(uv));
    eng_write(e, R_CDMA_D_DAIN_ADDR_LOW_1, eng_lo32(uv));
    eng_write(e, R_CDMA_D_LINE_STRIDE, s->src.line_stride);
    eng_write(e, R_CDMA_D_SURF_STRIDE, s->src.surf_stride);
    eng_write(e, R_CDMA_D_LINE_UV_STRIDE, s->in_line_uv_stride);
    uint32_t atom = e->cfg->mem_atom;
    eng_write(e, R_CDMA_D_DAIN_MAP,
              eng_field(e, R_CDMA_D_DAIN_MAP, "LINE_PACKED",
                        s->src.line_stride == (uint32_t)s->src.width * atom) |
                  eng_field(e, R_CDMA_D_DAIN_MAP, "SURF_PACKED",
                            s->src.surf_stride == (uint32_t)s->src.width * s->src.height * atom));
    eng_write_field(e, R_CDMA_D_BATCH_NUMBER, "BATCHES", op->batch - 1u);
    eng_write(e, R_CDMA_D_BATCH_STRIDE, op->batch_stride);
    eng_write_field(e, R_CDMA_D_ENTRY_PER_SLICE, "ENTRIES", op->entry_per_slice - 1u);
    eng_write_field(e, R_CDMA_D_FETCH_GRAIN, "GRAINS", op->fetch_grain - 1u);
}

static void program_cdma_weights(struct engine *e, const struct fw_conv_op *op,
                                 const struct fw_conv_surface *s, const struct conv_addrs *a)
{
    eng_write_field(e, R_CDMA_D_WEIGHT_FORMAT, "WEIGHT_FORMAT", op->weight_format);
    eng_write_field(e, R_CDMA_D_WEIGHT_SIZE_0, "BYTE_PER_KERNEL", op->bytes_per_kernel - 1u);
    eng_write_field(e, R_CDMA_D_WEIGHT_SIZE_1, "WEIGHT_KERNEL", s->dst.channel - 1u);
    eng_write_field(e, R_CDMA_D_WEIGHT_RAM_TYPE, "WEIGHT_RAM_TYPE", eng_ram_type(s->weight.type));
    eng_write(e, R_CDMA_D_WEIGHT_ADDR_HIGH, eng_hi32(a->weight));
    eng_write(e, R_CDMA_D_WEIGHT_ADDR_LOW, eng_lo32(a->weight));
    eng_write(e, R_CDMA_D_WEIGHT_BYTES, s->weight.size);
    if (op->weight_format == 1) {
        eng_write(e, R_CDMA_D_WGS_ADDR_HIGH, eng_hi32(a->wgs));
        eng_write(e, R_CDMA_D_WGS_ADDR_LOW, eng_lo32(a->wgs));
        eng_write(e, R_CDMA_D_WMB_ADDR_HIGH, eng_hi32(a->wmb));
        eng_write(e, R_CDMA_D_WMB_ADDR_LOW, eng_lo32(a->wmb));
        eng_write(e, R_CDMA_D_WMB_BYTES, s->wmb.size);
    }
    eng_write_field(e, R_CDMA_D_MEAN_FORMAT, "MEAN_FORMAT", op->mean_format);
    if (op->mean_format) {
        eng_write(e, R_CDMA_D_MEAN_GLOBAL_0,
                  eng_field(e, R_CDMA_D_MEAN_GLOBAL_0, "MEAN_RY", (uint16_t)op->mean_ry) |
                      eng_field(e, R_CDMA_D_MEAN_GLOBAL_0, "MEAN_GU", (uint16_t)op->mean_gu));
        eng_write(e, R_CDMA_D_MEAN_GLOBAL_1,
                  eng_field(e, R_CDMA_D_MEAN_GLOBAL_1, "MEAN_BV", (uint16_t)op->mean_bv) |
                      eng_field(e, R_CDMA_D_MEAN_GLOBAL_1, "MEAN_AX", (uint16_t)op->mean_ax));
    }
    if (op->in_cvt.enable) {
        eng_write(e, R_CDMA_D_CVT_CFG,
                  eng_field(e, R_CDMA_D_CVT_CFG, "CVT_EN", 1) |
                      eng_field(e, R_CDMA_D_CVT_CFG, "CVT_TRUNCATE", op->in_cvt.truncate));
        eng_write(e, R_CDMA_D_CVT_OFFSET, (uint32_t)op->in_cvt.offset);
        eng_write(e, R_CDMA_D_CVT_SCALE, (uint16_t)op->in_cvt.scale);
    } else {
        eng_write_field(e, R_CDMA_D_CVT_CFG, "CVT_EN", 0);
    }
    eng_write(e, R_CDMA_D_CONV_STRIDE,
              eng_field(e, R_CDMA_D_CONV_STRIDE, "CONV_X_STRIDE", op->conv_stride_x - 1u) |
                  eng_field(e, R_CDMA_D_CONV_STRIDE, "CONV_Y_STRIDE", op->conv_stride_y - 1u));
    enum eng_reg r = R_CDMA_D_ZERO_PADDING;
    eng_write(e, r,
              eng_field(e, r, "PAD_LEFT", op->pad_x_left) |
                  eng_field(e, r, "PAD_RIGHT", op->pad_x_right) |
                  eng_field(e, r, "PAD_TOP", op->pad_y_top) |
                  eng_field(e, r, "PAD_BOTTOM", op->pad_y_bottom));
    eng_write_field(e, R_CDMA_D_ZERO_PADDING_VALUE, "PAD_VALUE", (uint16_t)op->pad_val);
    eng_write(e, R_CDMA_D_BANK,
              eng_field(e, R_CDMA_D_BANK, "WEIGHT_BANK", op->weight_bank - 1u) |
                  eng_field(e, R_CDMA_D_BANK, "DATA_BANK", op->data_bank - 1u));
}

static int conv_program(struct engine *e, struct dla *d, struct eng_group *g)
{
    const struct fw_conv_op *op = &g->desc.u.conv.op;
    const struct fw_conv_surface *s = &g->desc.u.conv.surface;
    struct conv_addrs a = {0};
    if (op->data_format > 37 || op->conv_mode > 1 || op->in_precision > FW_PREC_FP16 ||
        op->out_precision > FW_PREC_FP16 || op->weight_format > 1)
        return eng_fail(e, "%s: data format %u, mode %u or precision %u/%u out of range", e->where,
                        op->data_format, op->conv_mode, op->in_precision, op->out_precision);
    if (conv_addresses(e, op, s, &a))
        return -1;
    if (op->out_cvt.scale != 1 || op->out_cvt.offset != 0)
        return eng_fail(e, "%s: the convolution output converter must have scale 1, offset 0",
                        e->where);
    if (check_idle(e, d, g->id))
        return -1;
    /* feature data: DATAIN_FORMAT FEATURE, pixel formats: PIXEL with the
     * format's number (the firmware's table maps the two extra entries) */
    uint32_t in_format = op->data_format == 36 ? 0u : 1u;
    uint32_t pixel_format = op->data_format < 36 ? op->data_format : op->data_format == 37;
    program_cacc(e, op, s, &a);
    program_cmac_csc(e, op, s, in_format);
    program_cdma_input(e, op, s, &a, in_format, pixel_format);
    program_cdma_weights(e, op, s, &a);
    return e->failed ? -1 : 0;
}

const struct eng_unit eng_conv_unit = {
    .name = "CONV",
    .set_producer = conv_set_producer,
    .program = conv_program,
    .enable = conv_enable,
    .rdma_needed = eng_no_rdma,
    .is_ready = eng_always_ready,
};
