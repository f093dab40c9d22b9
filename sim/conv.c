/* Convolution core entry point: CDMA fetches into CBUF, CSC sequences the
 * operands out of it, CMAC multiplies, CACC accumulates and hands the cube
 * to SDP on the fly.  Timing: one atomic operation per cycle (atomic_c
 * channels x one kernel group at one output position) in stripes no shorter
 * than their weight load, after the data fetch, Winograd 2.25 times faster;
 * see share/timing-model.md, "Convolution core". */
#include <stdio.h>

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
 * last delivery is the drain every layer pays. */
struct stripe_costs {
    uint64_t passes;   /* kernel taps x channel blocks */
    uint64_t load;     /* weight load, cycles */
    uint64_t position; /* delivery, cycles a position */
};

#define STRIPE_DELIVERY_CYCLES 38

static uint64_t stripe_mac(const struct stripe_costs *k, uint64_t len)
{
    return k->passes * (len > k->load ? len : k->load);
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

static bool load_weights(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                         const struct conv_cbuf_plan *plan, int32_t layer,
                         struct conv_operands *ops)
{
    struct conv_wt_stream ws;
    struct csc_decomp dec = {0};
    bool ok = cdma_weights_begin(d, x, p, plan, layer, &ws);
    for (uint32_t g = 0; ok && g < ws.groups; g++)
        ok = cdma_weight_group(d, x, p, plan, layer, &ws, g) &&
             (!conv_csc_uses_group(p, g) ||
              (p->image && p->y_extension ? csc_image_weight_group(d, p, &ws, g, ops)
                                          : csc_weight_group(d, p, plan, &ws, g, &dec, ops)));
    cdma_weights_end(d, p, plan, layer, &ws);
    return ok;
}

static bool compute(struct dla *d, const struct conv_params *p, const struct conv_operands *ops,
                    struct dla_cube *out, struct cacc_stats *st)
{
    enum dla_cube_kind kind = p->prec == CONV_FP16 ? DLA_CUBE_FP32 : DLA_CUBE_INT;
    if (!cube_alloc(out, p->out_w, p->out_h, p->out_k, p->batches, kind)) {
        dla_diag(d, DLA_DIAG_MEM, DLA_SEV_ERROR, DLA_U_CACC, 0, NULL,
                 "cannot allocate the %ux%ux%u x%u CACC output", p->out_w, p->out_h, p->out_k,
                 p->batches);
        return false;
    }
    if (p->prec == CONV_FP16)
        cmac_cacc_fp16(p, ops, out, st);
    else
        cmac_cacc_int(p, ops, out, st);
    return true;
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
    struct conv_operands ops = {0};
    struct cacc_stats st = {0};
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
              load_weights(d, x, &p, &plan, layer, &ops);
    cdma_finish(d, &p, &plan);
    if (ok) {
        account_compute(d, x, &p, ops.rows, ops.taps, ops.c);
        ok = out ? compute(d, &p, &ops, out, &st) : true;
    }
    conv_operands_free(&ops);
    dla_reg_hw_set(d, DLA_U_CACC, group, "D_OUT_SATURATION", (uint32_t)st.saturated);
    exec_counter(x, "CACC.D_OUT_SATURATION", st.saturated);
    return ok ? 0 : -1;
}
