/* Convolution layer description: the CDMA, CSC and CACC registers of one
 * group turned into struct conv_params, and the programming guide's rules
 * that can be checked before anything runs.  A broken rule that the hardware
 * would survive (with garbage results) is a dla_rule diagnostic; one that
 * would make the model compute nonsense or allocate absurd buffers stops the
 * layer. */
#include <stdio.h>

#include "conv.h"

/* Far beyond any real layer: refusing more turns hostile sizes into a
 * diagnostic instead of a huge allocation (operands are int16, outputs
 * int32).  The time a layer may take is the model's work budget
 * (exec_budget, see conv_work()). */
#define CONV_MAX_OPERAND_VALUES (1ull << 27)
#define CONV_MAX_OUTPUTS        (1ull << 27)
/* Cost of one MAC relative to the vectorised integer kernel: the fp16 and
 * Winograd datapaths are bit-level scalar models. */
#define CONV_COST_FP16     64u
#define CONV_COST_WINOGRAD 8u

static uint32_t f(const struct dla *d, enum dla_unit u, int g, const char *reg, const char *fld)
{
    return dla_field(d, u, g, reg, fld);
}

static uint64_t addr(const struct dla *d, int g, const char *high, const char *low)
{
    uint64_t a = dla_reg_addr64(d, DLA_U_CDMA, g, high, low);
    unsigned bits = d->cfg->addr_bits;
    return bits >= 64 ? a : a & ((1ull << bits) - 1);
}

static void read_cdma(struct dla *d, int g, struct conv_params *p)
{
    const enum dla_unit u = DLA_U_CDMA;
    p->winograd = f(d, u, g, "D_MISC_CFG", "CONV_MODE") == 1;
    p->in_prec = (uint8_t)f(d, u, g, "D_MISC_CFG", "IN_PRECISION");
    p->prec = (uint8_t)f(d, u, g, "D_MISC_CFG", "PROC_PRECISION");
    p->data_reuse = f(d, u, g, "D_MISC_CFG", "DATA_REUSE");
    p->weight_reuse = f(d, u, g, "D_MISC_CFG", "WEIGHT_REUSE");
    p->skip_data_rls = f(d, u, g, "D_MISC_CFG", "SKIP_DATA_RLS");
    p->skip_weight_rls = f(d, u, g, "D_MISC_CFG", "SKIP_WEIGHT_RLS");
    p->image = f(d, u, g, "D_DATAIN_FORMAT", "DATAIN_FORMAT") == 1;
    p->pixel_format = (uint8_t)f(d, u, g, "D_DATAIN_FORMAT", "PIXEL_FORMAT");
    p->pixel_signed = f(d, u, g, "D_DATAIN_FORMAT", "PIXEL_SIGN_OVERRIDE");
    p->in_w = f(d, u, g, "D_DATAIN_SIZE_0", "DATAIN_WIDTH") + 1;
    p->in_h = f(d, u, g, "D_DATAIN_SIZE_0", "DATAIN_HEIGHT") + 1;
    p->in_c = f(d, u, g, "D_DATAIN_SIZE_1", "DATAIN_CHANNEL") + 1;
    p->pixel_x_offset = (uint8_t)f(d, u, g, "D_PIXEL_OFFSET", "PIXEL_X_OFFSET");
    p->pixel_y_offset = (uint8_t)f(d, u, g, "D_PIXEL_OFFSET", "PIXEL_Y_OFFSET");
    p->dat_space = dla_ram_space(d, u, f(d, u, g, "D_DAIN_RAM_TYPE", "DATAIN_RAM_TYPE"));
    p->dat_addr = addr(d, g, "D_DAIN_ADDR_HIGH_0", "D_DAIN_ADDR_LOW_0");
    p->dat_addr_uv = addr(d, g, "D_DAIN_ADDR_HIGH_1", "D_DAIN_ADDR_LOW_1");
    p->line_stride = dla_reg(d, u, g, "D_LINE_STRIDE");
    p->uv_line_stride = dla_reg(d, u, g, "D_LINE_UV_STRIDE");
    p->surf_stride = dla_reg(d, u, g, "D_SURF_STRIDE");
    p->line_packed = f(d, u, g, "D_DAIN_MAP", "LINE_PACKED");
    p->surf_packed = f(d, u, g, "D_DAIN_MAP", "SURF_PACKED");
    p->batches = f(d, u, g, "D_BATCH_NUMBER", "BATCHES") + 1;
    p->batch_stride = dla_reg(d, u, g, "D_BATCH_STRIDE");
    p->entry_per_slice = f(d, u, g, "D_ENTRY_PER_SLICE", "ENTRIES") + 1;
    p->compressed = f(d, u, g, "D_WEIGHT_FORMAT", "WEIGHT_FORMAT") == 1;
    p->byte_per_kernel = f(d, u, g, "D_WEIGHT_SIZE_0", "BYTE_PER_KERNEL") + 1;
    p->cdma_kernels = f(d, u, g, "D_WEIGHT_SIZE_1", "WEIGHT_KERNEL") + 1;
    p->wt_space = dla_ram_space(d, u, f(d, u, g, "D_WEIGHT_RAM_TYPE", "WEIGHT_RAM_TYPE"));
    p->wt_addr = addr(d, g, "D_WEIGHT_ADDR_HIGH", "D_WEIGHT_ADDR_LOW");
    p->wt_bytes = dla_reg(d, u, g, "D_WEIGHT_BYTES");
    p->wgs_addr = addr(d, g, "D_WGS_ADDR_HIGH", "D_WGS_ADDR_LOW");
    p->wmb_addr = addr(d, g, "D_WMB_ADDR_HIGH", "D_WMB_ADDR_LOW");
    p->wmb_bytes = dla_reg(d, u, g, "D_WMB_BYTES");
    p->mean_en = f(d, u, g, "D_MEAN_FORMAT", "MEAN_FORMAT");
    p->mean[0] = (uint16_t)f(d, u, g, "D_MEAN_GLOBAL_0", "MEAN_RY");
    p->mean[1] = (uint16_t)f(d, u, g, "D_MEAN_GLOBAL_0", "MEAN_GU");
    p->mean[2] = (uint16_t)f(d, u, g, "D_MEAN_GLOBAL_1", "MEAN_BV");
    p->mean[3] = (uint16_t)f(d, u, g, "D_MEAN_GLOBAL_1", "MEAN_AX");
    p->cvt_en = f(d, u, g, "D_CVT_CFG", "CVT_EN");
    p->cvt_truncate = (uint8_t)f(d, u, g, "D_CVT_CFG", "CVT_TRUNCATE");
    p->cvt_offset = (int16_t)f(d, u, g, "D_CVT_OFFSET", "CVT_OFFSET");
    p->cvt_scale = (int16_t)f(d, u, g, "D_CVT_SCALE", "CVT_SCALE");
    p->cdma_stride_x = f(d, u, g, "D_CONV_STRIDE", "CONV_X_STRIDE") + 1;
    p->cdma_stride_y = f(d, u, g, "D_CONV_STRIDE", "CONV_Y_STRIDE") + 1;
    p->pad_l = f(d, u, g, "D_ZERO_PADDING", "PAD_LEFT");
    p->pad_r = f(d, u, g, "D_ZERO_PADDING", "PAD_RIGHT");
    p->pad_t = f(d, u, g, "D_ZERO_PADDING", "PAD_TOP");
    p->pad_b = f(d, u, g, "D_ZERO_PADDING", "PAD_BOTTOM");
    p->cdma_pad_value = (uint16_t)f(d, u, g, "D_ZERO_PADDING_VALUE", "PAD_VALUE");
    p->data_banks = f(d, u, g, "D_BANK", "DATA_BANK") + 1;
    p->weight_banks = f(d, u, g, "D_BANK", "WEIGHT_BANK") + 1;
    p->nan_to_zero = f(d, u, g, "D_NAN_FLUSH_TO_ZERO", "NAN_TO_ZERO");
}

static void read_csc(struct dla *d, int g, struct conv_params *p)
{
    const enum dla_unit u = DLA_U_CSC;
    p->ext_w = f(d, u, g, "D_DATAIN_SIZE_EXT_0", "DATAIN_WIDTH_EXT") + 1;
    p->ext_h = f(d, u, g, "D_DATAIN_SIZE_EXT_0", "DATAIN_HEIGHT_EXT") + 1;
    p->ext_c = f(d, u, g, "D_DATAIN_SIZE_EXT_1", "DATAIN_CHANNEL_EXT") + 1;
    p->y_extension = f(d, u, g, "D_POST_Y_EXTENSION", "Y_EXTENSION");
    p->k_w = f(d, u, g, "D_WEIGHT_SIZE_EXT_0", "WEIGHT_WIDTH_EXT") + 1;
    p->k_h = f(d, u, g, "D_WEIGHT_SIZE_EXT_0", "WEIGHT_HEIGHT_EXT") + 1;
    p->k_c = f(d, u, g, "D_WEIGHT_SIZE_EXT_1", "WEIGHT_CHANNEL_EXT") + 1;
    p->kernels = f(d, u, g, "D_WEIGHT_SIZE_EXT_1", "WEIGHT_KERNEL") + 1;
    p->out_w = f(d, u, g, "D_DATAOUT_SIZE_0", "DATAOUT_WIDTH") + 1;
    p->out_h = f(d, u, g, "D_DATAOUT_SIZE_0", "DATAOUT_HEIGHT") + 1;
    p->out_k = f(d, u, g, "D_DATAOUT_SIZE_1", "DATAOUT_CHANNEL") + 1;
    p->atomics = f(d, u, g, "D_ATOMICS", "ATOMICS") + 1;
    p->rls_slices = f(d, u, g, "D_RELEASE", "RLS_SLICES") + 1;
    p->stride_x = f(d, u, g, "D_CONV_STRIDE_EXT", "CONV_X_STRIDE_EXT") + 1;
    p->stride_y = f(d, u, g, "D_CONV_STRIDE_EXT", "CONV_Y_STRIDE_EXT") + 1;
    p->dil_x = f(d, u, g, "D_DILATION_EXT", "X_DILATION_EXT") + 1;
    p->dil_y = f(d, u, g, "D_DILATION_EXT", "Y_DILATION_EXT") + 1;
    p->csc_pad_l = f(d, u, g, "D_ZERO_PADDING", "PAD_LEFT");
    p->csc_pad_t = f(d, u, g, "D_ZERO_PADDING", "PAD_TOP");
    p->csc_pad_value = (uint16_t)f(d, u, g, "D_ZERO_PADDING_VALUE", "PAD_VALUE");
    p->pra_truncate = (uint8_t)f(d, u, g, "D_PRA_CFG", "PRA_TRUNCATE");
}

static void read_cacc(struct dla *d, int g, struct conv_params *p)
{
    const enum dla_unit u = DLA_U_CACC;
    p->clip_truncate = (uint8_t)f(d, u, g, "D_CLIP_CFG", "CLIP_TRUNCATE");
    p->cacc_w = f(d, u, g, "D_DATAOUT_SIZE_0", "DATAOUT_WIDTH") + 1;
    p->cacc_h = f(d, u, g, "D_DATAOUT_SIZE_0", "DATAOUT_HEIGHT") + 1;
    p->cacc_k = f(d, u, g, "D_DATAOUT_SIZE_1", "DATAOUT_CHANNEL") + 1;
}

static bool check_types(struct dla *d, struct conv_params *p)
{
    if (p->prec > CONV_FP16 || p->in_prec > CONV_FP16) {
        dla_rule(d, DLA_U_CDMA, "cdma.precision", "reserved precision (in %u, proc %u)", p->in_prec,
                 p->prec);
        return false;
    }
    if (!dla_config_has_precision(d->cfg, p->prec)) {
        dla_diag(d, DLA_DIAG_FEATURE_ABSENT, DLA_SEV_ERROR, DLA_U_CDMA, 0, NULL,
                 "%s convolution on %s, which supports only %s%s%s", dla_precision_name(p->prec),
                 d->cfg->name, d->cfg->dtypes & DLA_DT_INT8 ? "int8 " : "",
                 d->cfg->dtypes & DLA_DT_INT16 ? "int16 " : "",
                 d->cfg->dtypes & DLA_DT_FP16 ? "fp16" : "");
        return false;
    }
    if (!p->cvt_en && p->in_prec != p->prec)
        dla_rule(d, DLA_U_CDMA, "cdma.precision_convert",
                 "IN_PRECISION %s differs from PROC_PRECISION %s without the convertor",
                 dla_precision_name(p->in_prec), dla_precision_name(p->prec));
    if (p->cvt_en && p->in_prec == CONV_FP16 && p->prec != CONV_FP16)
        dla_rule(d, DLA_U_CDMA, "cdma.precision_convert",
                 "the convertor cannot turn fp16 input into %s", dla_precision_name(p->prec));
    p->bpe = p->prec == CONV_INT8 ? 1 : 2;
    p->atomic_c = d->cfg->atomic_c;
    p->kernel_group = p->prec == CONV_INT8 ? d->cfg->atomic_k : d->cfg->atomic_k / 2;
    if (p->kernel_group == 0)
        p->kernel_group = 1;
    return true;
}

static bool check_modes(struct dla *d, const struct conv_params *p)
{
    if (p->winograd && !d->cfg->winograd) {
        dla_diag(d, DLA_DIAG_FEATURE_ABSENT, DLA_SEV_ERROR, DLA_U_CSC, 0, NULL,
                 "Winograd convolution on %s, which has no Winograd support", d->cfg->name);
        return false;
    }
    if (p->compressed && !d->cfg->weight_compression) {
        dla_diag(d, DLA_DIAG_FEATURE_ABSENT, DLA_SEV_ERROR, DLA_U_CDMA, 0, NULL,
                 "compressed weights on %s, which has no weight decompression", d->cfg->name);
        return false;
    }
    if (p->batches > 1 && p->batches > (d->cfg->max_batch ? d->cfg->max_batch : 1)) {
        dla_rule(d, DLA_U_CDMA, "cdma.batch", "%u batches; %s supports at most %u", p->batches,
                 d->cfg->name, d->cfg->max_batch ? d->cfg->max_batch : 1);
        return false;
    }
    if (p->image && (p->dil_x > 1 || p->dil_y > 1))
        dla_rule(d, DLA_U_CSC, "csc.image_dilation", "dilation is not supported with image input");
    if (p->winograd && p->image) {
        dla_rule(d, DLA_U_CSC, "csc.winograd_image", "Winograd cannot take image input");
        return false;
    }
    return true;
}

static bool check_banks(struct dla *d, const struct conv_params *p)
{
    unsigned banks = d->cfg->cbuf_banks;
    if (p->data_banks + p->weight_banks > banks) {
        dla_diag(d, DLA_DIAG_CBUF, DLA_SEV_ERROR, DLA_U_CDMA, 0, NULL,
                 "DATA_BANK %u + WEIGHT_BANK %u banks exceed the %u banks of CBUF", p->data_banks,
                 p->weight_banks, banks);
        return false;
    }
    if (p->compressed && p->data_banks + p->weight_banks > banks - 1) {
        dla_diag(d, DLA_DIAG_CBUF, DLA_SEV_ERROR, DLA_U_CDMA, 0, NULL,
                 "compressed weights need bank %u for WMB, but data %u + weight %u banks "
                 "reach it",
                 banks - 1, p->data_banks, p->weight_banks);
        return false;
    }
    return true;
}

/* Output size the programming guide's formula gives, against the registers. */
static void check_geometry(struct dla *d, const struct conv_params *p)
{
    if (p->winograd || p->image)
        return;
    uint64_t eff_w = (uint64_t)(p->k_w - 1) * p->dil_x + 1;
    uint64_t eff_h = (uint64_t)(p->k_h - 1) * p->dil_y + 1;
    uint64_t span_w = (uint64_t)p->pad_l + p->in_w + p->pad_r;
    /* CSC's height: with data reuse it counts the lines kept from the
     * previous layer as well as those CDMA fetches */
    uint64_t span_h = (uint64_t)p->pad_t + p->ext_h + p->pad_b;
    if (span_w < eff_w || (span_w - eff_w) / p->stride_x + 1 != p->out_w || span_h < eff_h ||
        (span_h - eff_h) / p->stride_y + 1 != p->out_h)
        dla_rule(d, DLA_U_CSC, "csc.output_size",
                 "output %ux%u does not match input %ux%u, padding %u/%u/%u/%u, kernel %ux%u "
                 "(dilated %llux%llu), stride %ux%u",
                 p->out_w, p->out_h, p->in_w, p->ext_h, p->pad_l, p->pad_r, p->pad_t, p->pad_b,
                 p->k_w, p->k_h, (unsigned long long)eff_w, (unsigned long long)eff_h, p->stride_x,
                 p->stride_y);
    if (p->pad_l >= eff_w || p->pad_r >= eff_w || p->pad_t >= eff_h || p->pad_b >= eff_h)
        dla_rule(d, DLA_U_CDMA, "cdma.padding_size",
                 "padding %u/%u/%u/%u must be smaller than the kernel %llux%llu", p->pad_l,
                 p->pad_r, p->pad_t, p->pad_b, (unsigned long long)eff_w,
                 (unsigned long long)eff_h);
}

/* The guide asks for WEIGHT_BYTES = R*S*C*BPE*K.  NVIDIA's compiler pads the
 * weight surface to a CBUF entry (8 bytes on nv_small) and nv_full's field
 * only holds multiples of 128 ([31:7]); the CDMA then fetches a few padding
 * bytes into the bank, which is harmless.  Fewer bytes than the kernels
 * need (stale CBUF weights) or more than one granule of padding are not. */
static void check_weight_bytes(struct dla *d, const struct conv_params *p)
{
    if (p->winograd || p->image)
        return;
    uint64_t want = (uint64_t)p->k_w * p->k_h * p->k_c * p->bpe * p->cdma_kernels;
    uint64_t granule = d->cfg->cbuf_entry_bytes > 128 ? d->cfg->cbuf_entry_bytes : 128;
    uint64_t most = (want + granule - 1) / granule * granule;
    if (p->wt_bytes < want || p->wt_bytes > most)
        dla_rule(d, DLA_U_CDMA, "cdma.weight_bytes",
                 "WEIGHT_BYTES %llu, expected R*S*C*BPE*K = %llu (padded at most to %llu)",
                 (unsigned long long)p->wt_bytes, (unsigned long long)want,
                 (unsigned long long)most);
}

/* Registers that several units hold must agree (the guide: "same name, same value"). */
static void check_consistency(struct dla *d, const struct conv_params *p)
{
    if (!p->winograd && (p->ext_c != p->in_c || p->ext_w != p->in_w))
        dla_rule(d, DLA_U_CSC, "csc.datain_size",
                 "CSC DATAIN_SIZE_EXT %ux%ux%u differs from CDMA DATAIN_SIZE %ux%ux%u", p->ext_w,
                 p->ext_h, p->ext_c, p->in_w, p->in_h, p->in_c);
    if (p->cacc_w != p->out_w || p->cacc_h != p->out_h || p->cacc_k != p->out_k)
        dla_rule(d, DLA_U_CACC, "cacc.dataout_size",
                 "CACC DATAOUT_SIZE %ux%ux%u differs from CSC's %ux%ux%u", p->cacc_w, p->cacc_h,
                 p->cacc_k, p->out_w, p->out_h, p->out_k);
    /* CACC delivers its DATAOUT_CHANNEL channels whatever CSC computed: kernels
     * beyond them are dropped, channels beyond the kernels are zero */
    if (p->out_k != p->kernels)
        dla_rule(d, DLA_U_CSC, "csc.kernels", "%u output channels but %u kernels", p->out_k,
                 p->kernels);
    if (p->cdma_kernels > p->kernels)
        dla_rule(d, DLA_U_CSC, "csc.weight_kernel",
                 "CDMA fetches %u kernels but CSC WEIGHT_KERNEL uses %u (the rest stay unused in "
                 "CBUF)",
                 p->cdma_kernels, p->kernels);
    if (!p->winograd && p->atomics != p->out_w * p->out_h)
        dla_rule(d, DLA_U_CSC, "csc.atomics", "D_ATOMICS %u, expected out_w*out_h = %u", p->atomics,
                 p->out_w * p->out_h);
    if (p->clip_truncate > 16)
        dla_rule(d, DLA_U_CACC, "cacc.clip_truncate",
                 "CLIP_TRUNCATE %u exceeds 16 (48-bit accumulator, 32-bit output)",
                 p->clip_truncate);
    check_weight_bytes(d, p);
}

/* CSC waits until CBUF holds the kernels it computes; CDMA fetching fewer
 * would stop the hardware for good.  Not modelled: the layer is refused. */
static bool check_kernels_fetched(struct dla *d, const struct conv_params *p)
{
    if (p->kernels <= p->cdma_kernels || p->skip_weight_rls || p->weight_reuse)
        return true;
    dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_CSC, 0, NULL,
             "CSC WEIGHT_KERNEL asks for %u kernels but CDMA fetches %u: the hardware waits for "
             "kernels that never come",
             p->kernels, p->cdma_kernels);
    return false;
}

static bool check_size(struct dla *d, const struct conv_params *p)
{
    uint64_t rows = (uint64_t)p->out_w * p->out_h * p->batches;
    uint64_t depth = (uint64_t)p->k_w * p->k_h * p->k_c;
    uint64_t values = rows * depth + (uint64_t)p->kernels * depth; /* < 2^55 */
    if (values > CONV_MAX_OPERAND_VALUES || (uint64_t)p->out_k * rows > CONV_MAX_OUTPUTS) {
        dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_CSC, 0, NULL,
                 "convolution of %llu outputs x %u kernels x %llu values per kernel is beyond "
                 "what the model holds",
                 (unsigned long long)rows, p->kernels, (unsigned long long)depth);
        return false;
    }
    return true;
}

uint64_t conv_work(const struct conv_params *p)
{
    /* within the operand bound: rows * depth < 2^27, kernels < 2^13 */
    uint64_t macs =
        (uint64_t)p->out_w * p->out_h * p->batches * p->k_w * p->k_h * p->k_c * p->kernels;
    unsigned cost = p->prec == CONV_FP16 ? CONV_COST_FP16 : 1;
    if (p->winograd)
        cost *= CONV_COST_WINOGRAD;
    return macs * cost;
}

bool conv_params_read(struct dla *d, int group, struct conv_params *p)
{
    *p = (struct conv_params){.group = group};
    read_cdma(d, group, p);
    read_csc(d, group, p);
    read_cacc(d, group, p);
    if (!check_types(d, p) || !check_modes(d, p) || !check_banks(d, p))
        return false;
    check_geometry(d, p);
    check_consistency(d, p);
    return check_kernels_fetched(d, p) && check_size(d, p);
}
