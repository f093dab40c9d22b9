/* Convolution core entry point: CDMA fetches into CBUF, CSC sequences the
 * operands out of it, CMAC multiplies, CACC accumulates and hands the cube
 * to SDP on the fly.  Timing: one atomic operation per cycle (atomic_c
 * channels x one kernel group at one output position), Winograd 2.25 times
 * faster; see share/timing-model.md, "Convolution core". */
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

/* Datapath cycles: every output position (of rows) needs, per kernel group,
 * one atomic operation per channel block (of c channels) and kernel tap;
 * Winograd does the equivalent 3x3 direct convolution's 2.25 times faster. */
static void account_compute(struct dla_exec *x, const struct conv_params *p, uint64_t rows,
                            uint64_t taps, uint64_t c)
{
    uint64_t blocks = (c + p->atomic_c - 1) / p->atomic_c;
    uint64_t groups = (p->kernels + p->kernel_group - 1) / p->kernel_group;
    uint64_t atomic_ops = rows * taps * blocks * groups;
    uint64_t cycles = p->winograd ? atomic_ops * 4 / 9 : atomic_ops;
    exec_compute(x, cycles ? cycles : 1, rows * taps * c * p->kernels);
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
            account_compute(x, &p, (uint64_t)p.out_w * p.out_h, 9, p.ext_c);
        dla_reg_hw_set(d, DLA_U_CACC, group, "D_OUT_SATURATION", (uint32_t)st.saturated);
        exec_counter(x, "CACC.D_OUT_SATURATION", st.saturated);
        return ok ? 0 : -1;
    }
    bool ok = cdma_load_data(d, x, &p, &plan, layer) && csc_prepare_data(d, &p, &plan, &ops) &&
              load_weights(d, x, &p, &plan, layer, &ops);
    cdma_finish(d, &p, &plan);
    if (ok) {
        account_compute(x, &p, ops.rows, ops.taps, ops.c);
        ok = out ? compute(d, &p, &ops, out, &st) : true;
    }
    conv_operands_free(&ops);
    dla_reg_hw_set(d, DLA_U_CACC, group, "D_OUT_SATURATION", (uint32_t)st.saturated);
    exec_counter(x, "CACC.D_OUT_SATURATION", st.saturated);
    return ok ? 0 : -1;
}
