/* Convolution core entry point: CDMA fetches into CBUF, CSC sequences the
 * operands out of it, CMAC multiplies, CACC accumulates and hands the cube
 * to SDP on the fly.  Timing: one atomic operation per cycle (atomic_c
 * channels x one kernel group at one output position) in stripes no shorter
 * than their weight load, after the data fetch, Winograd 2.25 times faster;
 * see share/timing-model.md, "Convolution core". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"

static const char *mode_name(const struct conv_params *p)
{
    return p->winograd ? "winograd" : p->image ? "image" : "direct";
}

static void describe(struct dla_exec *x, const struct conv_params *p)
{
    char batch[16] = "";
    if (p->batches > 1)
        snprintf(batch, sizeof batch, " b%u", p->batches);
    char dil[24] = "";
    if (p->dil_x > 1 || p->dil_y > 1)
        snprintf(dil, sizeof dil, " d%ux%u", p->dil_x, p->dil_y);
    exec_desc(x, "conv %s %s %ux%ux%u -> %ux%ux%u k%ux%u s%u%s%s%s", mode_name(p),
              dla_precision_name(p->prec), p->in_w, p->in_h, p->in_c, p->out_w, p->out_h, p->out_k,
              p->k_w, p->k_h, p->stride_x, dil, batch, p->compressed ? " wcomp" : "");
}

/* CSC cuts a kernel group's output positions into stripes of 16 (the last
 * one 16 to 31, or all of them when there are fewer than 32: the
 * programming guide's calc_stripe_size).  At every kernel tap and channel
 * block a stripe lasts its atomic operations, but no less than loading its
 * weights into CMAC, one CBUF entry a cycle: NVIDIA's nv_small RTL
 * (tests/calibration) takes 8 cycles for a stripe of 2 atomic operations, its
 * kernel group's 64 weight bytes in 8-byte entries; nv_full's int8 group of
 * 32 kernels x 64 channels, 16 entries of 128 bytes, is the guide's minimum
 * stripe of 16.  Once accumulated, a stripe's outputs go to SDP at SDP's
 * throughput plus a cycle a position and 38 a stripe (nv_small: 182 cycles
 * a stripe of 16 positions x 8 kernels), overlapping the next stripe's
 * multiplies, so a layer with little to multiply per output is bound by
 * its deliveries: every stripe after the first lasts at least one delivery
 * (its own, as an approximation for stripes of different lengths), and the
 * last delivery is the drain every layer pays.  A stripe of one position
 * (a fully connected layer) cannot hide CSC's turn from one pass to the next
 * behind a second atomic operation: NVIDIA's nv_small RTL takes 12 cycles a
 * channel block for the classifiers of LeNet (1x1x500 -> 10) and ResNet-18
 * (1x1x64 -> 10) where a stripe of two takes 8 (tests/calibration/
 * rtl_networks.tsv); nv_full's 16-cycle load covers it (conv_8x8_fc_int16). */
struct stripe_costs {
    uint64_t passes;   /* kernel taps x channel blocks */
    uint64_t load;     /* weight load, cycles */
    uint64_t position; /* delivery, cycles a position */
};

#define STRIPE_DELIVERY_CYCLES 38
#define ONE_POSITION_PASS_CYCLES 12

static uint64_t stripe_mac(const struct stripe_costs *k, uint64_t len)
{
    uint64_t pass = len > k->load ? len : k->load;
    if (len == 1 && pass < ONE_POSITION_PASS_CYCLES)
        pass = ONE_POSITION_PASS_CYCLES;
    return k->passes * pass;
}

static uint64_t stripe_cost(const struct stripe_costs *k, uint64_t len)
{
    uint64_t mac = stripe_mac(k, len), out = len * k->position + STRIPE_DELIVERY_CYCLES;
    return mac > out ? mac : out;
}

/* Cycles of one kernel group over all its output positions. */
static uint64_t group_cycles(const struct stripe_costs *k, uint64_t positions)
{
    if (positions < 32)
        return stripe_cost(k, positions);
    uint64_t full = (positions - 16) / 16;
    return full * stripe_cost(k, 16) + stripe_cost(k, positions - 16 * full);
}

static struct stripe_costs stripe_costs_of(const struct dla *d, const struct conv_params *p,
                                           uint64_t taps, uint64_t blocks)
{
    uint64_t bytes = (uint64_t)p->kernel_group * p->atomic_c * p->bpe;
    unsigned entry = d->cfg->cbuf_entry_bytes ? d->cfg->cbuf_entry_bytes : 1;
    unsigned sdp = d->cfg->sdp_bs_throughput ? d->cfg->sdp_bs_throughput : 1;
    return (struct stripe_costs){.passes = taps * blocks,
                                 .load = (bytes + entry - 1) / entry,
                                 .position = (p->kernel_group + sdp - 1) / sdp + 1};
}

/* A direct convolution's groups of kernels one after another, in stripes;
 * the first stripe has no delivery before it to wait for. */
static uint64_t direct_cycles(const struct dla *d, const struct conv_params *p, uint64_t rows,
                              uint64_t taps, uint64_t blocks, uint64_t groups)
{
    if (!groups)
        return 0;
    struct stripe_costs k = stripe_costs_of(d, p, taps, blocks);
    uint64_t first = rows < 32 ? rows : 16;
    return groups * group_cycles(&k, rows) - stripe_cost(&k, first) + stripe_mac(&k, first);
}

/* Datapath cycles: every output position (of rows) needs, per kernel group,
 * one atomic operation per channel block (of c channels) and kernel tap, in
 * stripes as above; Winograd does the equivalent 3x3 direct convolution's
 * 2.25 times faster.  CSC starts once the data is in CBUF, and the last
 * kernel group also waits for its weights (exec_conv_schedule). */
static void account_compute(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                            uint64_t rows, uint64_t taps, uint64_t c)
{
    uint64_t blocks = (c + p->atomic_c - 1) / p->atomic_c;
    uint64_t groups = (p->kernels + p->kernel_group - 1) / p->kernel_group;
    uint64_t atomic_ops = rows * taps * blocks * groups;
    uint64_t cycles =
        p->winograd ? atomic_ops * 4 / 9 : direct_cycles(d, p, rows, taps, blocks, groups);
    exec_compute(x, cycles ? cycles : 1, rows * taps * c * p->kernels);
    exec_conv_schedule(x, groups ? cycles / groups : cycles);
    exec_counter(x, "CSC.atomic_ops", atomic_ops);
}

/* Weight values CSC holds as MAC operands at once.  The operands take two
 * bytes a weight and the MAC cells' layouts a few more, so a layer holding
 * all its kernels at once would need several times its weight set beside
 * the weights in simulated memory (an AlexNet fc6 layer's 75 MB of fp16
 * weights, some 300 MB more).  Passes of whole kernel groups compute the
 * same outputs, since each output channel is its own kernel's dot products.
 * A pass holds as many weights as the layer has data operands (at least
 * WEIGHT_PASS_MIN_VALUES): the scratch stays within twice what the layer
 * needs anyway, and a pass, which re-reads the data operands, makes at
 * least as many kernels' worth of MACs per value re-read as there are
 * output positions.  The fp16 cells split a pass further so that their
 * kernel layouts stay within 4 MB (cmac_fp16.c), which bounds a layer of
 * many output rows, whose passes here are large. */
#define WEIGHT_PASS_MIN_VALUES (64u << 10)

static size_t forced_pass_values; /* 0: the rule above */

void conv_set_weight_pass_values(size_t values)
{
    forced_pass_values = values;
}

uint32_t conv_kernels_per_pass(const struct conv_params *p, uint64_t rows, uint32_t depth)
{
    uint64_t values = rows * depth;
    values = values > WEIGHT_PASS_MIN_VALUES ? values : WEIGHT_PASS_MIN_VALUES;
    if (forced_pass_values)
        values = forced_pass_values;
    uint64_t group_values = (uint64_t)p->kernel_group * depth;
    uint64_t groups = group_values ? values / group_values : 1;
    uint64_t all = ((uint64_t)p->kernels + p->kernel_group - 1) / p->kernel_group;
    groups = groups < 1 ? 1 : groups > all ? all : groups;
    return (uint32_t)(groups * p->kernel_group);
}

/* The pass of kernels [k_first, k_first + kernels): every CSC kernel row of
 * the layer, or the part of them that fits one pass. */
struct weight_pass {
    const struct conv_params *p;
    struct conv_operands *ops;
    struct dla_cube *out; /* the layer's CACC cube; NULL when nothing is computed */
    struct cacc_stats *st;
    uint32_t per_pass; /* kernels */
};

/* The pass's kernels into the layer's cube: a cube of their own channels
 * (a view of the layer's when there is one batch), copied across after. */
static bool compute_pass(struct weight_pass *w)
{
    const struct conv_params *p = w->p;
    struct conv_operands *ops = w->ops;
    struct dla_cube *out = w->out;
    if (!out || ops->k_first >= out->c)
        return true; /* CACC delivers its output channels only */
    uint32_t kn = out->c - ops->k_first < ops->kernels ? out->c - ops->k_first : ops->kernels;
    size_t plane = (size_t)out->w * out->h;
    struct dla_cube part = {out->w, out->h, kn, out->n, out->kind, out->v + ops->k_first * plane};
    if (out->n > 1 && !cube_alloc(&part, out->w, out->h, kn, out->n, (enum dla_cube_kind)out->kind))
        return false;
    if (p->prec == CONV_FP16)
        cmac_cacc_fp16(p, ops, &part, w->st);
    else
        cmac_cacc_int(p, ops, &part, w->st);
    if (out->n > 1) {
        for (uint32_t b = 0; b < out->n; b++)
            memcpy(out->v + cube_index(out, b, ops->k_first, 0, 0),
                   part.v + cube_index(&part, b, 0, 0, 0), kn * plane * sizeof *out->v);
        cube_free(&part);
    }
    return true;
}

/* Kernel group g's rows into the pass (starting the pass at its first
 * group), and the pass computed once its last group is in. */
static bool csc_group(struct dla *d, const struct conv_cbuf_plan *plan,
                      const struct conv_wt_stream *ws, uint32_t g, struct csc_decomp *dec,
                      struct weight_pass *w)
{
    const struct conv_params *p = w->p;
    struct conv_operands *ops = w->ops;
    uint32_t k0 = g * p->kernel_group;
    if (!ops->weight) { /* rows of the kernels of one pass, the padding zeros from here on */
        uint32_t rows = p->kernels < w->per_pass ? p->kernels : w->per_pass;
        ops->weight = dla_scratch_zeroed(d, SCRATCH_CSC_WEIGHT,
                                         (size_t)rows * ops->depth * sizeof *ops->weight);
        if (!ops->weight)
            return false;
    }
    if (k0 % w->per_pass == 0) {
        ops->k_first = k0;
        ops->kernels = p->kernels - k0 < w->per_pass ? p->kernels - k0 : w->per_pass;
    }
    bool ok = p->image && p->y_extension ? csc_image_weight_group(d, p, ws, g, ops)
                                         : csc_weight_group(d, p, plan, ws, g, dec, ops);
    return ok && (!conv_group_ends_pass(p, g, w->per_pass) || compute_pass(w));
}

/* CDMA fetches every kernel group into CBUF; CSC reads those of the
 * layer's kernels into passes, and CMAC and CACC compute each pass. */
static bool weights_and_compute(struct dla *d, struct dla_exec *x,
                                const struct conv_cbuf_plan *plan, int32_t layer,
                                struct weight_pass *w)
{
    const struct conv_params *p = w->p;
    struct conv_wt_stream ws;
    struct csc_decomp dec = {0};
    bool ok = cdma_weights_begin(d, x, p, plan, layer, &ws);
    for (uint32_t g = 0; ok && g < ws.groups; g++)
        ok = cdma_weight_group(d, x, p, plan, layer, &ws, g) &&
             (!conv_csc_uses_group(p, g) || csc_group(d, plan, &ws, g, &dec, w));
    cdma_weights_end(d, p, plan, layer, &ws);
    return ok;
}

static bool alloc_out(struct dla_exec *x, const struct conv_params *p, struct dla_cube *out)
{
    enum dla_cube_kind kind = p->prec == CONV_FP16 ? DLA_CUBE_FP32 : DLA_CUBE_INT;
    return exec_cube_alloc(x, DLA_U_CACC, out, p->out_w, p->out_h, p->out_k, p->batches, kind,
                           "the CACC output cube");
}

int conv_execute(struct dla *d, struct dla_exec *x, int group, struct dla_cube *out)
{
    struct conv_params p;
    if (!conv_params_read(d, group, &p)) {
        exec_desc(x, "conv (invalid programming)");
        return -1;
    }
    describe(x, &p);
    if (!exec_budget(x, DLA_U_CSC, conv_work(&p), "convolution"))
        return -1;
    int32_t layer = (int32_t)exec_layer(x)->index;
    struct conv_cbuf_plan plan;
    cdma_plan(d, &p, &plan);
    struct conv_operands ops = {.model = d};
    struct cacc_stats st = {0};
    /* the fp16 FMA cells' layout is kept only from one of their layers to the next */
    if (p.winograd || p.prec != CONV_FP16)
        dla_scratch_drop(d, SCRATCH_CMAC_FP16);
    if (p.winograd) {
        bool ok = conv_wino_run(d, x, &p, &plan, layer, out, &st);
        cdma_finish(d, &p, &plan);
        if (ok)
            account_compute(d, x, &p, (uint64_t)p.out_w * p.out_h, 9, p.ext_c);
        dla_reg_hw_set(d, DLA_U_CACC, group, "D_OUT_SATURATION", (uint32_t)st.saturated);
        exec_counter(x, "CACC.D_OUT_SATURATION", st.saturated);
        return ok ? 0 : -1;
    }
    bool ok = cdma_load_data(d, x, &p, &plan, layer) && csc_prepare_data(d, &p, &plan, &ops) &&
              (!out || alloc_out(x, &p, out));
    if (ok) {
        struct weight_pass w = {&p, &ops, out, &st, conv_kernels_per_pass(&p, ops.rows, ops.depth)};
        ok = weights_and_compute(d, x, &plan, layer, &w);
    }
    cdma_finish(d, &p, &plan);
    if (ok)
        account_compute(d, x, &p, ops.rows, ops.taps, ops.c);
    else if (out)
        exec_cube_free(x, out);
    /* ops's rows are the model's scratch (csc_prepare_data) */
    dla_scratch_done(d, SCRATCH_CSC_DATA);
    dla_scratch_done(d, SCRATCH_CSC_WEIGHT);
    dla_reg_hw_set(d, DLA_U_CACC, group, "D_OUT_SATURATION", (uint32_t)st.saturated);
    exec_counter(x, "CACC.D_OUT_SATURATION", st.saturated);
    return ok ? 0 : -1;
}

static int conv_run(struct dla *d, struct dla_exec *x, const struct dla_stage *st,
                    const struct dla_cube *in, struct dla_cube *out)
{
    (void)in;
    return conv_execute(d, x, st->group, out);
}

/* The programming-guide rules this unit checks: one row per id it passes to
 * dla_rule() (core/rules.c lists every entry's rows for "info rules"). */
static const struct dla_rule_info conv_rules[] = {
    {"conv.op_en_order", DLA_U_CDMA, "Convolution pipeline programming",
     "enable the pipeline downstream first: CACC, CMAC, CSC, then CDMA"},
    {"cdma.data_reuse", DLA_U_CDMA, "Convolution pipeline programming",
     "DATA_REUSE only when the previous layer left its input data in CBUF"},
    {"cdma.weight_reuse", DLA_U_CDMA, "Convolution pipeline programming",
     "WEIGHT_REUSE only when the previous layer kept all its weights in CBUF "
     "(SKIP_WEIGHT_RLS, same mode and banks)"},
    {"cdma.pixel_format", DLA_U_CDMA, "Convolution pipeline programming",
     "image input uses one of the defined PIXEL_FORMAT values"},
    {"cdma.image_batch", DLA_U_CDMA, "Convolution pipeline programming (feature crossing)",
     "image input cannot be combined with multi-batch"},
    {"cdma.pixel_y_offset", DLA_U_CDMA, "Convolution pipeline programming",
     "PIXEL_Y_OFFSET is 0 for pitch-linear image input"},
    {"cdma.entry_per_slice", DLA_U_CDMA, "Convolution pipeline programming",
     "ENTRY_PER_SLICE covers one padded input line (CBUF entries per slice)"},
    {"cdma.precision", DLA_U_CDMA, "Convolution pipeline programming",
     "IN_PRECISION and PROC_PRECISION are INT8, INT16 or FP16"},
    {"cdma.precision_convert", DLA_U_CDMA, "Convolution pipeline programming",
     "input and processing precision differ only through the CDMA convertor, which cannot "
     "turn fp16 into an integer format"},
    {"cdma.batch", DLA_U_CDMA, "Convolution pipeline programming",
     "BATCHES within the configuration's maximum batch size"},
    {"cdma.padding_size", DLA_U_CDMA, "Convolution pipeline programming",
     "each padding size smaller than the (dilated) kernel"},
    {"cdma.weight_bytes", DLA_U_CDMA, "Convolution pipeline programming",
     "WEIGHT_BYTES = R*S*C*BPE*K (kernel bytes times kernels, 128-byte aligned)"},
    {"cdma.winograd_size", DLA_U_CDMA, "Convolution pipeline programming (Winograd)",
     "the padded Winograd input is a multiple of 4 x stride in width and height"},
    {"csc.post_extension", DLA_U_CSC, "Convolution pipeline programming (image input)",
     "Y_EXTENSION keeps kernel channels x lines within one atomic operation"},
    {"csc.image_dilation", DLA_U_CSC, "Convolution pipeline programming (feature crossing)",
     "dilation is not available with image input"},
    {"csc.winograd_image", DLA_U_CSC, "Convolution pipeline programming (feature crossing)",
     "Winograd is not available with image input"},
    {"csc.winograd_crossing", DLA_U_CSC, "Convolution pipeline programming (feature crossing)",
     "Winograd cannot be combined with multi-batch or dilation"},
    {"csc.winograd_ext", DLA_U_CSC, "Convolution pipeline programming (Winograd)",
     "DATAIN_SIZE_EXT is the extended (transformed) input cube"},
    {"csc.winograd_output", DLA_U_CSC, "Convolution pipeline programming (Winograd)",
     "Winograd output width and height are multiples of 4 and at least 8"},
    {"csc.winograd_kernel", DLA_U_CSC, "Convolution pipeline programming (Winograd)",
     "Winograd takes 4x4 pre-transformed kernels; output = input - 2"},
    {"csc.output_size", DLA_U_CSC, "Convolution pipeline programming (output size)",
     "output = (pad_left + W + pad_right - S') / stride_x + 1, S' = (S-1)*dilation + 1, "
     "likewise for the height"},
    {"csc.datain_size", DLA_U_CSC, "Convolution pipeline programming (register definition)",
     "CSC DATAIN_SIZE_EXT equals CDMA DATAIN_SIZE for direct convolution"},
    {"csc.kernels", DLA_U_CSC, "Convolution pipeline programming (register definition)",
     "output channels equal the number of kernels"},
    {"csc.weight_kernel", DLA_U_CSC, "Convolution pipeline programming (register definition)",
     "CSC WEIGHT_KERNEL equals CDMA WEIGHT_KERNEL (CSC computes its own count)"},
    {"csc.atomics", DLA_U_CSC, "Convolution pipeline programming (register definition)",
     "D_ATOMICS = output width x output height (direct convolution)"},
    {"cacc.dataout_size", DLA_U_CACC, "Convolution pipeline programming (register definition)",
     "CACC DATAOUT_SIZE equals the CSC output cube"},
    {"cacc.clip_truncate", DLA_U_CACC, "Convolution pipeline programming",
     "CLIP_TRUNCATE at most 16 (48-bit accumulator to 32-bit output)"},
};

static const struct dla_perf_reg conv_perf_regs[] = {
    {DLA_U_CDMA, false, "D_PERF_ENABLE", "DMA_EN", "D_PERF_DAT_READ_STALL",
     "CDMA.D_PERF_DAT_READ_STALL", DLA_PERF_STALL, DLA_C_CDMA_DAT},
    {DLA_U_CDMA, false, "D_PERF_ENABLE", "DMA_EN", "D_PERF_WT_READ_STALL",
     "CDMA.D_PERF_WT_READ_STALL", DLA_PERF_STALL, DLA_C_CDMA_WT},
    {DLA_U_CDMA, false, "D_PERF_ENABLE", "DMA_EN", "D_PERF_DAT_READ_LATENCY",
     "CDMA.D_PERF_DAT_READ_LATENCY", DLA_PERF_LATENCY, DLA_C_CDMA_DAT},
    {DLA_U_CDMA, false, "D_PERF_ENABLE", "DMA_EN", "D_PERF_WT_READ_LATENCY",
     "CDMA.D_PERF_WT_READ_LATENCY", DLA_PERF_LATENCY, DLA_C_CDMA_WT},
};

/* The ports in the order the programming guide's pipeline names them, which
 * is also the order a finished layer clears their OP_EN. */
const struct dla_unit_entry conv_unit = {
    .name = "CONV",
    .proc = DLA_P_CONV,
    .n_ports = 5,
    .ports = {{DLA_U_CDMA, &cdma_hooks},
              {DLA_U_CSC, &csc_hooks},
              {DLA_U_CMAC_A, &cmac_a_hooks},
              {DLA_U_CMAC_B, &cmac_b_hooks},
              {DLA_U_CACC, NULL}},
    .main = DLA_U_CACC,
    .rdma = DLA_U_NONE,
    .execute = conv_run,
    .feeds = DLA_P_SDP, /* always: CACC has no write DMA */
    /* CDMA_DAT_DONE and CDMA_WT_DONE (GLB bits 16/17 and 18/19) */
    .n_client_intrs = 2,
    .client_intrs = {{DLA_C_CDMA_DAT, 16}, {DLA_C_CDMA_WT, 18}},
    .perf_regs = conv_perf_regs,
    .n_perf_regs = sizeof conv_perf_regs / sizeof conv_perf_regs[0],
    .timer = cbuf_flush_done,
    .state_create = cbuf_state_create,
    .state_destroy = cbuf_state_destroy,
    .state_reset = cbuf_state_reset,
    .state_clone = cbuf_state_clone,
    .state_of = cbuf_state_of,
    .state_bytes_apart = cbuf_state_bytes_apart,
    .rules = conv_rules,
    .n_rules = sizeof conv_rules / sizeof conv_rules[0],
};
