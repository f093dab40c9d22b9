/* SDP: the single-point data processor.  Reads its input on the fly from
 * CACC or from memory through SDP_RDMA (sdp_rdma.c), runs every element
 * through BS (X1), BN (X2), EW (Y, with its LUT: sdp_lut.c) and the output
 * converter (sdp_x.c, sdp_y.c, sdp_cvt.c), and writes the result to
 * memory, hands it to PDP on the fly, or, in EQL mode, only compares
 * (D_STATUS).
 *
 * The element order and the padding follow the hardware: channels are
 * processed in whole atoms, so the padding channels of the last surface are
 * computed (from the padding bytes of the input and operands) and written
 * like the others, and they count in the saturation counter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num/fpnum.h"
#include "num/fpnum_vec.h"
#include "sdp.h"
#include "sdp_dp_fp.h"
#include "sdp_lut.h"
#include "sdp_rdma.h"
#include "core/threads.h"

/* Cost of one element in int8-MAC equivalents (exec_budget): the integer
 * datapath runs X1, X2, Y and the output converter per element; fp16 goes
 * through the bit-level float helpers. */
#define SDP_COST_INT  16u
#define SDP_COST_FP16 128u

struct sdp_layer {
    uint32_t w, h, c, n;
    uint32_t cw; /* channels computed and written: whole processing and output atoms */
    uint8_t proc_prec, out_prec;
    bool offline, eql, to_pdp;
    bool nan_to_zero;
    struct sdp_x_cfg x1, x2;
    struct sdp_y_cfg y;
    struct sdp_cvt_cfg cvt;
    struct sdp_shape shape;
    struct sdp_operands ops[SDP_SRC_COUNT];
    bool use_lut;
    struct sdp_lut lut;
};

struct sdp_stats {
    uint64_t elements;
    uint64_t saturated;
    uint64_t nan_in, inf_in, nan_out;
    bool unequal;
    struct dla_lut_stats *lut; /* where the Y LUT's lookups count */
};

/* ---------------------------------------------------------------- pipeline shape */

bool sdp_input_on_the_fly(const struct dla *d, int group)
{
    return dla_field_is(d, DLA_U_SDP, group, "D_FEATURE_MODE_CFG", "FLYING_MODE", "ON");
}

bool sdp_output_to_pdp(const struct dla *d, int group)
{
    return dla_field_is(d, DLA_U_SDP, group, "D_FEATURE_MODE_CFG", "OUTPUT_DST", "PDP");
}

/* A stage takes an operand from memory when the stage runs, the ALU or
 * multiplier using it is not bypassed, and its source is MEM (the cmod's
 * is_bs_has_rdma and friends). */
static bool stage_reads_memory(const struct dla *d, int group, const char *stage)
{
    char cfg[24], alu_cfg[24], mul_cfg[24], f[24], g[24];
    snprintf(cfg, sizeof cfg, "D_DP_%s_CFG", stage);
    snprintf(f, sizeof f, "%s_BYPASS", stage);
    if (dla_field(d, DLA_U_SDP, group, cfg, f))
        return false;
    snprintf(alu_cfg, sizeof alu_cfg, "D_DP_%s_ALU_CFG", stage);
    snprintf(mul_cfg, sizeof mul_cfg, "D_DP_%s_MUL_CFG", stage);
    snprintf(f, sizeof f, "%s_ALU_BYPASS", stage);
    snprintf(g, sizeof g, "%s_ALU_SRC", stage);
    if (!dla_field(d, DLA_U_SDP, group, cfg, f) && dla_field(d, DLA_U_SDP, group, alu_cfg, g))
        return true;
    snprintf(f, sizeof f, "%s_MUL_BYPASS", stage);
    snprintf(g, sizeof g, "%s_MUL_SRC", stage);
    return !dla_field(d, DLA_U_SDP, group, cfg, f) && dla_field(d, DLA_U_SDP, group, mul_cfg, g);
}

/* SDP_RDMA must run when the input comes from memory or an enabled stage
 * takes operands from memory; EW counts only where the configuration has
 * it (elsewhere the hardware forces EW off). */
bool sdp_needs_rdma(const struct dla *d, int group)
{
    if (!sdp_input_on_the_fly(d, group))
        return true;
    if (stage_reads_memory(d, group, "BS") || stage_reads_memory(d, group, "BN"))
        return true;
    return d->cfg->sdp_ew && stage_reads_memory(d, group, "EW");
}

/* ---------------------------------------------------------------- configuration */

static uint32_t sdp_field(const struct dla *d, int group, const char *reg, const char *stage,
                          const char *field_suffix)
{
    char r[32], f[32];
    snprintf(r, sizeof r, reg, stage);
    snprintf(f, sizeof f, "%s_%s", stage, field_suffix);
    return dla_field(d, DLA_U_SDP, group, r, f);
}

static void read_x_cfg(const struct dla *d, int group, const char *stage, struct sdp_x_cfg *x)
{
    x->bypass = sdp_field(d, group, "D_DP_%s_CFG", stage, "BYPASS");
    x->alu_bypass = sdp_field(d, group, "D_DP_%s_CFG", stage, "ALU_BYPASS");
    x->alu_algo = (uint8_t)sdp_field(d, group, "D_DP_%s_CFG", stage, "ALU_ALGO");
    x->mul_bypass = sdp_field(d, group, "D_DP_%s_CFG", stage, "MUL_BYPASS");
    x->prelu = sdp_field(d, group, "D_DP_%s_CFG", stage, "MUL_PRELU");
    x->relu_bypass = sdp_field(d, group, "D_DP_%s_CFG", stage, "RELU_BYPASS");
    x->alu_from_mem = sdp_field(d, group, "D_DP_%s_ALU_CFG", stage, "ALU_SRC");
    x->alu_shift = (uint8_t)sdp_field(d, group, "D_DP_%s_ALU_CFG", stage, "ALU_SHIFT_VALUE");
    x->alu_operand = (int16_t)sdp_field(d, group, "D_DP_%s_ALU_SRC_VALUE", stage, "ALU_OPERAND");
    x->mul_from_mem = sdp_field(d, group, "D_DP_%s_MUL_CFG", stage, "MUL_SRC");
    x->mul_shift = (uint8_t)sdp_field(d, group, "D_DP_%s_MUL_CFG", stage, "MUL_SHIFT_VALUE");
    x->mul_operand = (int16_t)sdp_field(d, group, "D_DP_%s_MUL_SRC_VALUE", stage, "MUL_OPERAND");
}

static void read_y_cvt(const struct dla *d, int group, const char *which, struct sdp_y_cvt_cfg *c)
{
    char reg[40], f[32];
    snprintf(reg, sizeof reg, "D_DP_EW_%s_CFG", which);
    snprintf(f, sizeof f, "EW_%s_CVT_BYPASS", which);
    c->bypass = dla_field(d, DLA_U_SDP, group, reg, f);
    snprintf(reg, sizeof reg, "D_DP_EW_%s_CVT_OFFSET_VALUE", which);
    c->offset = (int32_t)dla_reg(d, DLA_U_SDP, group, reg);
    snprintf(reg, sizeof reg, "D_DP_EW_%s_CVT_SCALE_VALUE", which);
    snprintf(f, sizeof f, "EW_%s_CVT_SCALE", which);
    c->scale = (int16_t)dla_field(d, DLA_U_SDP, group, reg, f);
    snprintf(reg, sizeof reg, "D_DP_EW_%s_CVT_TRUNCATE_VALUE", which);
    snprintf(f, sizeof f, "EW_%s_CVT_TRUNCATE", which);
    c->truncate = (uint8_t)dla_field(d, DLA_U_SDP, group, reg, f);
}

static void read_y_cfg(const struct dla *d, int group, struct sdp_y_cfg *y)
{
    y->bypass = sdp_field(d, group, "D_DP_%s_CFG", "EW", "BYPASS");
    y->alu_bypass = sdp_field(d, group, "D_DP_%s_CFG", "EW", "ALU_BYPASS");
    y->alu_algo = (uint8_t)sdp_field(d, group, "D_DP_%s_CFG", "EW", "ALU_ALGO");
    y->mul_bypass = sdp_field(d, group, "D_DP_%s_CFG", "EW", "MUL_BYPASS");
    y->prelu = sdp_field(d, group, "D_DP_%s_CFG", "EW", "MUL_PRELU");
    y->lut_bypass = sdp_field(d, group, "D_DP_%s_CFG", "EW", "LUT_BYPASS");
    y->alu_from_mem = sdp_field(d, group, "D_DP_%s_ALU_CFG", "EW", "ALU_SRC");
    y->mul_from_mem = sdp_field(d, group, "D_DP_%s_MUL_CFG", "EW", "MUL_SRC");
    y->alu_operand = (int32_t)dla_reg(d, DLA_U_SDP, group, "D_DP_EW_ALU_SRC_VALUE");
    y->mul_operand = (int32_t)dla_reg(d, DLA_U_SDP, group, "D_DP_EW_MUL_SRC_VALUE");
    y->truncate = (uint16_t)sdp_field(d, group, "D_DP_%s_TRUNCATE_VALUE", "EW", "TRUNCATE");
    read_y_cvt(d, group, "ALU", &y->alu_cvt);
    read_y_cvt(d, group, "MUL", &y->mul_cvt);
}

/* Features the configuration lacks are ignored, as the RTL ignores them. */
static void apply_config_features(struct dla *d, struct sdp_layer *L)
{
    const struct dla_config *cfg = d->cfg;
    if (!cfg->sdp_ew && !L->y.bypass) {
        dla_diag(d, DLA_DIAG_FEATURE_ABSENT, DLA_SEV_INFO, DLA_U_SDP, 0, NULL,
                 "EW stage programmed but %s has no SDP EW: the hardware bypasses it", cfg->name);
        L->y.bypass = true;
    }
    if (!cfg->sdp_lut && !L->y.bypass && !L->y.lut_bypass) {
        dla_diag(d, DLA_DIAG_FEATURE_ABSENT, DLA_SEV_INFO, DLA_U_SDP, 0, NULL,
                 "EW LUT programmed but %s has no SDP LUT: the hardware bypasses it", cfg->name);
        L->y.lut_bypass = true;
    }
    if (!cfg->sdp_bs && !L->x1.bypass) {
        dla_diag(d, DLA_DIAG_FEATURE_ABSENT, DLA_SEV_INFO, DLA_U_SDP, 0, NULL,
                 "BS stage programmed but %s has no SDP BS: the hardware bypasses it", cfg->name);
        L->x1.bypass = true;
    }
    if (!cfg->sdp_bn && !L->x2.bypass) {
        dla_diag(d, DLA_DIAG_FEATURE_ABSENT, DLA_SEV_INFO, DLA_U_SDP, 0, NULL,
                 "BN stage programmed but %s has no SDP BN: the hardware bypasses it", cfg->name);
        L->x2.bypass = true;
    }
}

static uint32_t round_up(uint32_t v, uint32_t to)
{
    return (v + to - 1) / to * to;
}

static bool precision_ok(struct dla *d, unsigned prec, const char *what)
{
    if (prec > SDP_FP16) {
        dla_rule(d, DLA_U_SDP, "sdp.precision", "%s = %u is not a precision (INT8/INT16/FP16)",
                 what, prec);
        return false;
    }
    if (!dla_config_has_precision(d->cfg, prec))
        dla_rule(d, DLA_U_SDP, "sdp.precision_absent", "%s selects %s, which %s does not support",
                 what,
                 prec == SDP_INT8    ? "INT8"
                 : prec == SDP_INT16 ? "INT16"
                                     : "FP16",
                 d->cfg->name);
    return true;
}

/* Cube dimensions, precisions and batch; false when the layer cannot run. */
static bool read_geometry(struct dla *d, int group, int rg, struct sdp_layer *L)
{
    L->w = dla_field_plus1(d, DLA_U_SDP, group, "D_DATA_CUBE_WIDTH", "WIDTH");
    L->h = dla_field_plus1(d, DLA_U_SDP, group, "D_DATA_CUBE_HEIGHT", "HEIGHT");
    L->c = dla_field_plus1(d, DLA_U_SDP, group, "D_DATA_CUBE_CHANNEL", "CHANNEL");
    L->n = dla_field_plus1(d, DLA_U_SDP, group, "D_FEATURE_MODE_CFG", "BATCH_NUMBER");
    L->proc_prec = (uint8_t)dla_field(d, DLA_U_SDP, group, "D_DATA_FORMAT", "PROC_PRECISION");
    L->out_prec = (uint8_t)dla_field(d, DLA_U_SDP, group, "D_DATA_FORMAT", "OUT_PRECISION");
    if (!precision_ok(d, L->proc_prec, "SDP.D_DATA_FORMAT.PROC_PRECISION") ||
        !precision_ok(d, L->out_prec, "SDP.D_DATA_FORMAT.OUT_PRECISION"))
        return false;
    if (L->n > 1 && (!d->cfg->batch || L->n > d->cfg->max_batch)) {
        dla_rule(d, DLA_U_SDP, "sdp.batch", "BATCH_NUMBER %u: %s supports %s", L->n - 1,
                 d->cfg->name, d->cfg->batch ? "at most MAX_BATCH batches" : "no batching");
        return false;
    }
    if (L->offline && L->n > 1) {
        dla_rule(d, DLA_U_SDP, "sdp.offline_batch",
                 "batch mode needs the input on the fly from CACC; processing one batch");
        L->n = 1;
    }
    if (rg != 0xff) {
        static const char *const dim_reg[3] = {"D_DATA_CUBE_WIDTH", "D_DATA_CUBE_HEIGHT",
                                               "D_DATA_CUBE_CHANNEL"};
        static const char *const dim_field[3] = {"WIDTH", "HEIGHT", "CHANNEL"};
        const uint32_t mine[3] = {L->w, L->h, L->c};
        for (int i = 0; i < 3; i++) {
            unsigned theirs = dla_field_plus1(d, DLA_U_SDP_RDMA, rg, dim_reg[i], dim_field[i]);
            if (theirs != mine[i])
                dla_rule(d, DLA_U_SDP_RDMA, "sdp_rdma.cube_mismatch",
                         "SDP_RDMA.%s (%u) differs from SDP's (%u)", dim_reg[i], theirs, mine[i]);
        }
        unsigned rp = dla_field(d, DLA_U_SDP_RDMA, rg, "D_FEATURE_MODE_CFG", "PROC_PRECISION");
        if (rp != L->proc_prec)
            dla_rule(d, DLA_U_SDP_RDMA, "sdp_rdma.precision_mismatch",
                     "SDP_RDMA PROC_PRECISION %u differs from SDP's %u", rp, L->proc_prec);
        if (L->offline &&
            !precision_ok(d, dla_field(d, DLA_U_SDP_RDMA, rg, "D_FEATURE_MODE_CFG", "IN_PRECISION"),
                          "SDP_RDMA.D_FEATURE_MODE_CFG.IN_PRECISION"))
            return false;
    }
    unsigned atom = d->cfg->mem_atom;
    uint32_t proc_group = atom / sdp_prec_bytes(L->proc_prec);
    uint32_t out_group = atom / sdp_prec_bytes(L->out_prec);
    L->cw = round_up(round_up(L->c, proc_group), out_group);
    L->shape = (struct sdp_shape){
        .w = L->w, .h = L->h, .cw = L->cw, .proc_prec = L->proc_prec, .atom = atom};
    return true;
}

/* The programming guide's SDP limitations (its "limitations" list and the
 * compare-mode notes); violations are reported, the layer still runs. */
static void check_prelu(struct dla *d, const char *stage, bool on, bool prelu, bool mul_bypass,
                        bool alu_bypass)
{
    if (on && prelu && !mul_bypass && !alu_bypass)
        dla_rule(d, DLA_U_SDP, "sdp.prelu_alu",
                 "%s: PReLU is enabled, so the %s ALU must be bypassed", stage, stage);
}

static void check_rules(struct dla *d, int group, const struct sdp_layer *L)
{
    check_prelu(d, "BS", !L->x1.bypass, L->x1.prelu, L->x1.mul_bypass, L->x1.alu_bypass);
    check_prelu(d, "BN", !L->x2.bypass, L->x2.prelu, L->x2.mul_bypass, L->x2.alu_bypass);
    check_prelu(d, "EW", !L->y.bypass, L->y.prelu, L->y.mul_bypass, L->y.alu_bypass);
    if (L->proc_prec == SDP_FP16 && L->out_prec == SDP_INT8)
        dla_rule(d, DLA_U_SDP, "sdp.fp16_to_int8",
                 "fp16 processing converts to fp16 or int16 only; INT8 output is undefined");
    if ((L->to_pdp || L->eql) && L->proc_prec != L->out_prec)
        dla_rule(d, DLA_U_SDP, "sdp.precision_conversion",
                 "precision conversion (%u -> %u) is not allowed %s", L->proc_prec, L->out_prec,
                 L->eql ? "in EQL mode" : "when the output goes to PDP");
    if (!L->eql)
        return;
    if (L->cvt.offset != 0 || L->cvt.scale != 1 || L->cvt.shift != 0)
        dla_rule(d, DLA_U_SDP, "sdp.eql_cvt",
                 "EQL mode expects the output converter to be identity (offset 0, scale 1, "
                 "shift 0)");
    if (L->proc_prec != SDP_FP16 && L->y.alu_from_mem && !L->y.alu_cvt.bypass)
        dla_rule(d, DLA_U_SDP, "sdp.eql_alu_cvt",
                 "EQL mode: the EW ALU converter must be bypassed");
    if (!L->y.lut_bypass)
        dla_rule(d, DLA_U_SDP, "sdp.eql_after_alu",
                 "EQL mode: every operation after the EW ALU (the LUT) must be bypassed");
    if (L->n > 1 || dla_field(d, DLA_U_SDP, group, "D_FEATURE_MODE_CFG", "WINOGRAD"))
        dla_rule(d, DLA_U_SDP, "sdp.eql_mode", "EQL mode needs WINOGRAD off and BATCH_NUMBER 0");
}

static bool read_layer(struct dla *d, int group, int rg, bool on_the_fly, struct sdp_layer *L)
{
    L->offline = !on_the_fly;
    L->to_pdp = sdp_output_to_pdp(d, group);
    L->nan_to_zero = dla_field(d, DLA_U_SDP, group, "D_FEATURE_MODE_CFG", "NAN_TO_ZERO");
    read_x_cfg(d, group, "BS", &L->x1);
    read_x_cfg(d, group, "BN", &L->x2);
    read_y_cfg(d, group, &L->y);
    apply_config_features(d, L);
    L->cvt.offset = (int32_t)dla_reg(d, DLA_U_SDP, group, "D_CVT_OFFSET");
    L->cvt.scale = (int16_t)dla_field(d, DLA_U_SDP, group, "D_CVT_SCALE", "CVT_SCALE");
    L->cvt.shift = (uint8_t)dla_field(d, DLA_U_SDP, group, "D_CVT_SHIFT", "CVT_SHIFT");
    if (!read_geometry(d, group, rg, L))
        return false;
    L->cvt.out_prec = L->out_prec;
    L->eql = !L->y.bypass && !L->y.alu_bypass && L->y.alu_algo == SDP_ALU_EQL;
    check_rules(d, group, L);
    L->use_lut = !L->y.bypass && !L->y.lut_bypass;
    if (L->use_lut)
        sdp_lut_begin(d, &L->lut, L->proc_prec == SDP_FP16);
    return true;
}

/* ---------------------------------------------------------------- operands */

static bool load_operands(struct dla_exec *x, int rg, struct sdp_layer *L)
{
    const struct {
        bool stage_on, alu_mem, mul_mem, alu_on, mul_on;
    } want[SDP_SRC_COUNT] = {
        [SDP_SRC_BS] = {!L->x1.bypass, L->x1.alu_from_mem, L->x1.mul_from_mem, !L->x1.alu_bypass,
                        !L->x1.mul_bypass},
        [SDP_SRC_BN] = {!L->x2.bypass, L->x2.alu_from_mem, L->x2.mul_from_mem, !L->x2.alu_bypass,
                        !L->x2.mul_bypass},
        [SDP_SRC_EW] = {!L->y.bypass, L->y.alu_from_mem, L->y.mul_from_mem, !L->y.alu_bypass,
                        !L->y.mul_bypass},
    };
    for (int s = 0; s < SDP_SRC_COUNT; s++) {
        struct sdp_operands *o = &L->ops[s];
        o->want_alu = want[s].stage_on && want[s].alu_on && want[s].alu_mem;
        o->want_mul = want[s].stage_on && want[s].mul_on && want[s].mul_mem;
        if (!o->want_alu && !o->want_mul)
            sdp_rdma_check_unused(x, rg, (enum sdp_operand_source)s);
        if (!sdp_rdma_operands(x, rg, (enum sdp_operand_source)s, &L->shape, o))
            return false;
    }
    return true;
}

static void free_operands(struct sdp_layer *L)
{
    for (int s = 0; s < SDP_SRC_COUNT; s++)
        sdp_operands_free(&L->ops[s]);
}

/* ---------------------------------------------------------------- the datapath */

/* The per-element functions are inlined into the row loops. */
#define SDP_ELEMENT static inline __attribute__((always_inline))

/* A stage's memory operands along one row (channel c, line y): where
 * element x's ALU and MUL operands are, or NULL for the register value.
 * Per-element operands step by one along the row, per-channel ones stay. */
struct operand_row {
    const int16_t *alu, *mul;
    uint32_t step;
};

static struct operand_row operand_row_at(const struct sdp_layer *L, const struct sdp_operands *o,
                                         uint32_t c, uint32_t y)
{
    size_t at = sdp_operand_index(o, &L->shape, c, y, 0);
    return (struct operand_row){.alu = o->want_alu ? o->alu + at : NULL,
                                .mul = o->want_mul ? o->mul + at : NULL,
                                .step = o->per_element ? 1 : 0};
}

/* The operands of every stage along one row. */
struct row_operands {
    struct operand_row x1, x2, y;
};

SDP_ELEMENT int16_t alu_operand(const struct operand_row *r, int16_t reg, uint32_t x)
{
    return r->alu ? r->alu[(size_t)x * r->step] : reg;
}

SDP_ELEMENT int16_t mul_operand(const struct operand_row *r, int16_t reg, uint32_t x)
{
    return r->mul ? r->mul[(size_t)x * r->step] : reg;
}

SDP_ELEMENT int32_t x_stage_int(const struct sdp_x_cfg *cfg, const struct operand_row *r, int32_t v,
                                uint32_t x)
{
    if (cfg->bypass)
        return v;
    return sdp_x_int(cfg, v, alu_operand(r, cfg->alu_operand, x),
                     mul_operand(r, cfg->mul_operand, x));
}

SDP_ELEMENT int32_t y_stage_int(const struct sdp_layer *L, const struct operand_row *r, int32_t v,
                                uint32_t x)
{
    const struct sdp_y_cfg *cfg = &L->y;
    if (cfg->bypass)
        return v;
    int32_t alu =
        r->alu ? sdp_y_operand_int(&cfg->alu_cvt, r->alu[(size_t)x * r->step]) : cfg->alu_operand;
    int32_t mul =
        r->mul ? sdp_y_operand_int(&cfg->mul_cvt, r->mul[(size_t)x * r->step]) : cfg->mul_operand;
    return sdp_y_int(cfg, v, alu, mul);
}

/* The converter's output of one element, with its counts. */
SDP_ELEMENT int32_t finish_element(const struct sdp_layer *L, int32_t v, struct sdp_stats *st)
{
    st->elements++;
    if (L->eql) {
        /* The converter passes the compare result through. */
        if (v != 0)
            st->unequal = true;
        return v;
    }
    bool sat = false;
    int32_t out = L->proc_prec == SDP_FP16 ? sdp_cvt_fp(&L->cvt, (uint32_t)v, &sat)
                                           : sdp_cvt_int(&L->cvt, v, &sat);
    st->saturated += sat;
    if (L->out_prec == SDP_FP16 && fp_is_nan(FP16, (uint16_t)out))
        st->nan_out++;
    return out;
}

/* One element from the stage input (an integer, or binary32 bits for fp16
 * processing) to the converter output. */
SDP_ELEMENT int32_t process_int(const struct sdp_layer *L, const struct row_operands *r, int32_t in,
                                uint32_t x, struct sdp_stats *st)
{
    int32_t v = x_stage_int(&L->x1, &r->x1, in, x);
    v = x_stage_int(&L->x2, &r->x2, v, x);
    v = y_stage_int(L, &r->y, v, x);
    if (L->use_lut)
        v = sdp_lut_int(&L->lut, v, st->lut);
    return finish_element(L, v, st);
}

/* The stage input of an element from the input row (NULL, or x past its
 * width: padding the producer did not deliver, 0): CACC's value as it
 * comes, or a value read from memory as the processing precision takes it
 * (an fp16 pattern widened to binary32, an integer sign-extended). */
SDP_ELEMENT int32_t input_at(const struct sdp_layer *L, const int32_t *row, uint32_t row_w,
                             uint32_t x, struct sdp_stats *st)
{
    if (!row || x >= row_w)
        return 0;
    int32_t v = row[x];
    if (!L->offline)
        return v;
    if (L->proc_prec != SDP_FP16)
        return (int16_t)v;
    uint16_t h = (uint16_t)v;
    st->nan_in += fp_is_nan(FP16, h);
    st->inf_in += fp_is_inf(FP16, h);
    return (int32_t)fpnum_fp16_to_fp32(h);
}

/* ---------------------------------------------------------------- fp16 rows */

/* fp16 processing goes a stage at a time over a chunk of a row, four
 * elements at a time where the vector fast paths (fpnum_vec.h) apply and
 * element by element where they do not; every element sees the same
 * operations in the same order as one taken alone. */
#define SDP_CHUNK 64

struct fp_chunk {
    uint32_t x0, n; /* the chunk's first element along the row, and its length */
    uint32_t v[SDP_CHUNK];
};

/* The stage input (binary32 bits) of the chunk's elements, with the fp16
 * NaN and infinity counts of an input read from memory. */
static void fp_chunk_input(const struct sdp_layer *L, const int32_t *row, uint32_t row_w,
                           struct fp_chunk *k, struct sdp_stats *st)
{
    uint32_t i = 0;
    if (row && L->offline && k->x0 + k->n <= row_w) {
        fpv_u32 nan = {0}, inf = {0};
        for (; i + FPV_LANES <= k->n; i += FPV_LANES) {
            fpv_u32 h;
            memcpy(&h, row + k->x0 + i, sizeof h);
            h &= 0xffffu;
            fpv_u32 abs = h & 0x7fffu;
            nan -= (fpv_u32)(abs > 0x7c00u);
            inf -= (fpv_u32)(abs == 0x7c00u);
            fpv_i32 slow;
            fpv_u32 f = fpv_fp16_to_fp32(h, &slow);
            fpv_store(k->v + i, f);
            for (unsigned l = 0; l < FPV_LANES; l++)
                if (slow[l])
                    k->v[i + l] = fp16_to_fp32((uint16_t)h[l]);
        }
        st->nan_in += nan[0] + nan[1] + nan[2] + nan[3];
        st->inf_in += inf[0] + inf[1] + inf[2] + inf[3];
    }
    for (; i < k->n; i++)
        k->v[i] = (uint32_t)input_at(L, row, row_w, k->x0 + i, st);
    if (L->nan_to_zero)
        for (i = 0; i < k->n; i++)
            if (fp_is_nan(FP32, k->v[i]))
                k->v[i] = 0;
}

/* v = alu(v, operand) over the chunk: SUM four at a time. */
static void fp_chunk_alu(unsigned algo, uint32_t *v, const uint32_t *operand, uint32_t n)
{
    uint32_t i = 0;
    if (algo == SDP_ALU_SUM)
        for (; i + FPV_LANES <= n; i += FPV_LANES) {
            fpv_i32 slow;
            fpv_u32 sum = fpv_add32(fpv_load(v + i), fpv_load(operand + i), &slow);
            if (fpv_any(slow))
                for (unsigned l = 0; l < FPV_LANES; l++)
                    if (slow[l])
                        sum[l] = fp32_add(v[i + l], operand[i + l]);
            fpv_store(v + i, sum);
        }
    for (; i < n; i++)
        v[i] = sdp_fp_alu(algo, v[i], operand[i]);
}

/* A memory or register fp16 operand of each element, widened (X's
 * register operands are fp16 too). */
static void fp_chunk_operands(const struct sdp_layer *L, const int16_t *mem, uint32_t step,
                              int16_t reg, const struct fp_chunk *k, uint32_t *out)
{
    for (uint32_t i = 0; i < k->n; i++)
        out[i] =
            sdp_fp_operand((uint16_t)(mem ? mem[(size_t)(k->x0 + i) * step] : reg), L->nan_to_zero);
}

/* sdp_x_fp over the chunk. */
static void fp_chunk_x(const struct sdp_layer *L, const struct sdp_x_cfg *cfg,
                       const struct operand_row *r, struct fp_chunk *k)
{
    if (cfg->bypass)
        return;
    uint32_t operand[SDP_CHUNK];
    if (!cfg->alu_bypass) {
        fp_chunk_operands(L, r->alu, r->step, cfg->alu_operand, k, operand);
        fp_chunk_alu(cfg->alu_algo, k->v, operand, k->n);
    }
    if (!cfg->mul_bypass) {
        fp_chunk_operands(L, r->mul, r->step, cfg->mul_operand, k, operand);
        for (uint32_t i = 0; i < k->n; i++)
            if (!(cfg->prelu && !(k->v[i] >> 31)))
                k->v[i] = fp32_mul(k->v[i], operand[i]);
    }
    if (!cfg->relu_bypass) {
        uint32_t i = 0;
        for (; i + FPV_LANES <= k->n; i += FPV_LANES)
            fpv_store(k->v + i, fpv_relu32(fpv_load(k->v + i)));
        for (; i < k->n; i++)
            k->v[i] = fp32_relu(k->v[i]);
    }
}

/* sdp_y_fp over the chunk: Y's register operands are binary32 bits as
 * programmed. */
static void fp_chunk_y(const struct sdp_layer *L, const struct operand_row *r, struct fp_chunk *k)
{
    const struct sdp_y_cfg *cfg = &L->y;
    if (cfg->bypass)
        return;
    uint32_t operand[SDP_CHUNK];
    if (!cfg->mul_bypass) {
        for (uint32_t i = 0; i < k->n; i++) {
            uint32_t in = k->v[i];
            if (cfg->prelu && !(in >> 31))
                continue;
            uint32_t mul = r->mul ? sdp_fp_operand((uint16_t)r->mul[(size_t)(k->x0 + i) * r->step],
                                                   L->nan_to_zero)
                                  : (uint32_t)cfg->mul_operand;
            k->v[i] = fp32_mul(in, mul);
        }
    }
    if (!cfg->alu_bypass) {
        for (uint32_t i = 0; i < k->n; i++)
            operand[i] = r->alu ? sdp_fp_operand((uint16_t)r->alu[(size_t)(k->x0 + i) * r->step],
                                                 L->nan_to_zero)
                                : (uint32_t)cfg->alu_operand;
        fp_chunk_alu(cfg->alu_algo, k->v, operand, k->n);
    }
}

/* The converter over the chunk into dst: an fp16 output four at a time,
 * with its saturation and NaN counts. */
static void fp_chunk_output(const struct sdp_layer *L, const struct fp_chunk *k, int32_t *dst,
                            struct sdp_stats *st)
{
    uint32_t i = 0;
    if (!L->eql && L->out_prec == SDP_FP16) {
        fpv_u32 sat = {0}, nan = {0};
        for (; i + FPV_LANES <= k->n; i += FPV_LANES) {
            fpv_i32 slow;
            fpv_u32 h = fpv_fp32_to_fp16(fpv_load(k->v + i), &slow);
            if (fpv_any(slow))
                for (unsigned l = 0; l < FPV_LANES; l++)
                    if (slow[l])
                        h[l] = fp32_to_fp16(k->v[i + l]);
            fpv_u32 abs = h & 0x7fffu;
            sat -= (fpv_u32)(abs == 0x7bffu);
            nan -= (fpv_u32)(abs > 0x7c00u);
            memcpy(dst + i, &h, sizeof h);
        }
        st->elements += i;
        st->saturated += sat[0] + sat[1] + sat[2] + sat[3];
        st->nan_out += nan[0] + nan[1] + nan[2] + nan[3];
    }
    for (; i < k->n; i++)
        dst[i] = finish_element(L, (int32_t)k->v[i], st);
}

static void fp_row(const struct sdp_layer *L, const struct row_operands *r, const int32_t *row,
                   uint32_t row_w, int32_t *dst, struct sdp_stats *st)
{
    struct fp_chunk k;
    for (k.x0 = 0; k.x0 < L->w; k.x0 += SDP_CHUNK) {
        k.n = L->w - k.x0 < SDP_CHUNK ? L->w - k.x0 : SDP_CHUNK;
        fp_chunk_input(L, row, row_w, &k, st);
        fp_chunk_x(L, &L->x1, &r->x1, &k);
        fp_chunk_x(L, &L->x2, &r->x2, &k);
        fp_chunk_y(L, &r->y, &k);
        if (L->use_lut)
            for (uint32_t i = 0; i < k.n; i++)
                k.v[i] = sdp_lut_fp(&L->lut, k.v[i], st->lut);
        fp_chunk_output(L, &k, dst + k.x0, st);
    }
}

/* The datapath runs a row (one channel's line) at a time: the operands' and
 * the input's place along a row is worked out once per row, not per
 * element, and the row's counts are kept in registers.  Rows are split
 * across dla_threads() workers, each with its own counts and LUT
 * statistics, summed in worker order afterwards: the results are the same
 * for any DLADBG_THREADS. */
#define PARALLEL_ELEMENTS 16384u /* a layer this small runs on the calling thread */

struct datapath_job {
    const struct sdp_layer *L;
    const struct dla_cube *in;
    struct dla_cube *out;
    uint64_t rows; /* n x channels x height */
    struct sdp_stats st[DLA_MAX_THREADS];
    struct dla_lut_stats lut[DLA_MAX_THREADS];
};

static void add_stats(struct sdp_stats *to, const struct sdp_stats *from)
{
    to->elements += from->elements;
    to->saturated += from->saturated;
    to->nan_in += from->nan_in;
    to->inf_in += from->inf_in;
    to->nan_out += from->nan_out;
    to->unequal |= from->unequal;
}

static void run_row(const struct sdp_layer *L, const struct dla_cube *in, struct dla_cube *out,
                    uint64_t row_index, struct sdp_stats *st)
{
    uint32_t y = (uint32_t)(row_index % L->h), c = (uint32_t)(row_index / L->h % L->cw);
    uint32_t b = (uint32_t)(row_index / L->h / L->cw);
    struct row_operands r = {operand_row_at(L, &L->ops[SDP_SRC_BS], c, y),
                             operand_row_at(L, &L->ops[SDP_SRC_BN], c, y),
                             operand_row_at(L, &L->ops[SDP_SRC_EW], c, y)};
    bool delivered = b < in->n && c < in->c && y < in->h;
    const int32_t *row = delivered ? in->v + cube_index(in, b, c, y, 0) : NULL;
    int32_t *dst = out->v + cube_index(out, b, c, y, 0);
    struct sdp_stats rs = {.lut = st->lut};
    if (L->proc_prec == SDP_FP16)
        fp_row(L, &r, row, in->w, dst, &rs);
    else
        for (uint32_t x = 0; x < L->w; x++)
            dst[x] = process_int(L, &r, input_at(L, row, in->w, x, &rs), x, &rs);
    add_stats(st, &rs);
}

static void datapath_worker(void *ctx, unsigned worker, unsigned workers)
{
    struct datapath_job *j = ctx;
    uint64_t from = dla_share_start(j->rows, worker, workers);
    uint64_t to = dla_share_start(j->rows, worker + 1, workers);
    j->st[worker].lut = &j->lut[worker];
    lut_stats_begin(&j->lut[worker]);
    for (uint64_t r = from; r < to; r++)
        run_row(j->L, j->in, j->out, r, &j->st[worker]);
}

static void run_datapath(struct sdp_layer *L, const struct dla_cube *in, struct dla_cube *out,
                         struct sdp_stats *st)
{
    struct datapath_job job = {.L = L, .in = in, .out = out, .rows = (uint64_t)L->n * L->cw * L->h};
    unsigned workers = dla_workers_for(job.rows * L->w < PARALLEL_ELEMENTS ? 1 : job.rows);
    dla_parallel(workers, datapath_worker, &job);
    for (unsigned w = 0; w < workers; w++) {
        add_stats(st, &job.st[w]);
        lut_stats_add(&L->lut.stats, &job.lut[w]);
    }
}

/* ---------------------------------------------------------------- output */

static bool write_memory(struct dla *d, struct dla_exec *x, int group, const struct sdp_layer *L,
                         const struct dla_cube *res)
{
    unsigned atom = L->shape.atom;
    unsigned bpe = sdp_prec_bytes(L->out_prec);
    unsigned per_atom = atom / bpe;
    uint64_t base =
        dla_reg_addr64(d, DLA_U_SDP, group, "D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW");
    uint64_t line_stride = dla_reg(d, DLA_U_SDP, group, "D_DST_LINE_STRIDE");
    uint64_t surf_stride = dla_reg(d, DLA_U_SDP, group, "D_DST_SURFACE_STRIDE");
    uint64_t batch_stride = dla_reg(d, DLA_U_SDP, group, "D_DST_BATCH_STRIDE");
    enum dla_space space = dla_ram_space(
        d, DLA_U_SDP, dla_field(d, DLA_U_SDP, group, "D_DST_DMA_CFG", "DST_RAM_TYPE"));
    size_t line_bytes = (size_t)L->w * atom;
    uint8_t *line = malloc(line_bytes);
    if (!line)
        return false;
    /* a batch's lines, held in one buffer when packed, sized at its first
     * line: grown line by line it moved some 400-650 times in a ResNet run */
    const struct exec_surfaces written = {.line_bytes = line_bytes,
                                          .line_stride = line_stride,
                                          .surf_stride = surf_stride,
                                          .lines = L->h,
                                          .surfs = L->cw / per_atom};
    bool ok = true;
    for (uint32_t b = 0; b < L->n && ok; b++) {
        for (uint32_t sf = 0; sf < L->cw / per_atom && ok; sf++) {
            exec_write_expect_surface(x, &written, sf);
            for (uint32_t y = 0; y < L->h && ok; y++) {
                /* a channel's row at a time: the cube is planar */
                for (uint32_t k = 0; k < per_atom; k++)
                    feature_store_strided(line + (size_t)k * bpe, atom, L->w, bpe,
                                          res->v + cube_index(res, b, sf * per_atom + k, y, 0));
                ok = exec_write(x, DLA_C_SDP_WDMA, space,
                                base + b * batch_stride + sf * surf_stride + y * line_stride, line,
                                line_bytes);
            }
        }
    }
    free(line);
    return ok;
}

/* PDP on the fly takes whole atoms, like memory: the padding channels of the
 * last surface carry what SDP computed from the input's padding bytes, and
 * PDP pools and writes them (NVIDIA's nv_large pdp_3x3x33_2x2_ave_int8_0 CRC
 * covers them).  The result cube already has exactly that shape, so it is
 * handed over rather than copied; res is left empty. */
static void hand_to_pdp(const struct sdp_layer *L, struct dla_cube *res, struct dla_cube *to_pdp)
{
    *to_pdp = *res;
    to_pdp->kind = L->out_prec == SDP_FP16 ? DLA_CUBE_FP16 : DLA_CUBE_INT;
    *res = (struct dla_cube){0};
}

/* ---------------------------------------------------------------- status and timing */

static void publish_status(struct dla *d, struct dla_exec *x, int group, int rg,
                           const struct sdp_layer *L, const struct sdp_stats *st)
{
    if (L->offline && rg != 0xff &&
        dla_field(d, DLA_U_SDP_RDMA, rg, "D_PERF_ENABLE", "PERF_NAN_INF_COUNT_EN") &&
        dla_field(d, DLA_U_SDP_RDMA, rg, "D_FEATURE_MODE_CFG", "IN_PRECISION") == SDP_FP16) {
        dla_reg_hw_set(d, DLA_U_SDP_RDMA, rg, "D_STATUS_NAN_INPUT_NUM", dla_sat32(st->nan_in));
        dla_reg_hw_set(d, DLA_U_SDP_RDMA, rg, "D_STATUS_INF_INPUT_NUM", dla_sat32(st->inf_in));
    }
    if (L->eql)
        dla_field_hw_set(d, DLA_U_SDP, group, "D_STATUS", "STATUS_UNEQUAL", st->unequal);
    exec_counter(x, "SDP.D_PERF_OUT_SATURATION", st->saturated);
    if (dla_field(d, DLA_U_SDP, group, "D_PERF_ENABLE", "PERF_SAT_EN"))
        dla_reg_hw_set(d, DLA_U_SDP, group, "D_PERF_OUT_SATURATION", dla_sat32(st->saturated));
    if (L->use_lut) {
        const struct dla_lut_stats *s = &L->lut.stats;
        exec_lut_stats(x, s);
        if (dla_field(d, DLA_U_SDP, group, "D_PERF_ENABLE", "PERF_LUT_EN"))
            lut_stats_publish(d, DLA_U_SDP, group, s);
    }
    if (L->out_prec == SDP_FP16 &&
        dla_field(d, DLA_U_SDP, group, "D_PERF_ENABLE", "PERF_NAN_INF_COUNT_EN"))
        dla_reg_hw_set(d, DLA_U_SDP, group, "D_STATUS_NAN_OUTPUT_NUM", dla_sat32(st->nan_out));
}

/* Elements per cycle: the narrowest enabled stage sets the pace. */
static unsigned throughput(const struct dla_config *cfg, const struct sdp_layer *L)
{
    unsigned tp = cfg->sdp_bs_throughput ? cfg->sdp_bs_throughput : 1;
    if (!L->x2.bypass && cfg->sdp_bn_throughput && cfg->sdp_bn_throughput < tp)
        tp = cfg->sdp_bn_throughput;
    if (!L->y.bypass && cfg->sdp_ew_throughput && cfg->sdp_ew_throughput < tp)
        tp = cfg->sdp_ew_throughput;
    return tp;
}

static void describe(struct dla_exec *x, const struct sdp_layer *L)
{
    exec_desc(x, "sdp %s %ux%ux%u%s%s%s%s%s -> %s %s", dla_precision_name(L->proc_prec), L->w, L->h,
              L->c, L->n > 1 ? " batch" : "", L->x1.bypass ? "" : " bs", L->x2.bypass ? "" : " bn",
              L->y.bypass ? ""
              : L->eql    ? " eql"
                          : " ew",
              L->offline ? " (mem)" : " (cacc)",
              L->eql      ? "compare"
              : L->to_pdp ? "pdp"
                          : "mem",
              dla_precision_name(L->out_prec));
}

/* ---------------------------------------------------------------- execute */

static bool load_input(struct dla *d, struct dla_exec *x, int rg, struct sdp_layer *L,
                       const struct dla_cube *in, struct dla_cube *owned,
                       const struct dla_cube **use)
{
    if (L->offline) {
        if (!sdp_rdma_input(x, rg, &L->shape, owned))
            return false;
        *use = owned;
        return true;
    }
    if (in->w != L->w || in->h != L->h || in->c > L->cw || in->n != L->n)
        dla_rule(d, DLA_U_SDP, "sdp.flying_cube_mismatch",
                 "CACC delivers %ux%ux%u x%u but SDP is programmed for %ux%ux%u x%u", in->w, in->h,
                 in->c, in->n, L->w, L->h, L->c, L->n);
    bool fp = L->proc_prec == SDP_FP16;
    if (fp != (in->kind == DLA_CUBE_FP32)) {
        dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_SDP, 0, NULL,
                 "SDP processes %s but CACC delivers %s values", dla_precision_name(L->proc_prec),
                 in->kind == DLA_CUBE_FP32 ? "floating-point" : "integer");
        return false;
    }
    *use = in;
    return true;
}

/* What the layer holds while it computes: the input cube when SDP_RDMA
 * reads it, the result cube and the output held until completion (at most
 * two bytes an element); a tiny loadable can declare a surface of
 * gigabytes, refused here before anything is read. */
static uint64_t sdp_working_bytes(const struct sdp_layer *L)
{
    uint64_t elems = (uint64_t)L->w * L->h * L->cw * L->n;
    return elems * (L->offline ? 4 : 0) + elems * 4 + (L->eql || L->to_pdp ? 0 : elems * 2);
}

static uint64_t sdp_work(const struct sdp_layer *L)
{
    uint64_t elems = (uint64_t)L->w * L->h * L->cw * L->n;
    return elems * (L->proc_prec == SDP_FP16 ? SDP_COST_FP16 : SDP_COST_INT);
}

int sdp_execute(struct dla *d, struct dla_exec *x, int group, int rdma_group,
                const struct dla_cube *in, struct dla_cube *to_pdp)
{
    struct sdp_layer L = {0};
    struct dla_cube owned = {0}, res = {0};
    const struct dla_cube *input = NULL;
    struct sdp_stats st = {0};
    int rc = -1;
    if (!read_layer(d, group, rdma_group, in != NULL, &L) ||
        !exec_budget(x, DLA_U_SDP, sdp_work(&L), "SDP") ||
        !exec_working(x, DLA_U_SDP, sdp_working_bytes(&L), "SDP's cubes and output")) {
        exec_desc(x, "sdp (not computed: see diagnostics)");
        return -1;
    }
    describe(x, &L);
    if (!in && rdma_group == 0xff) {
        dla_rule(d, DLA_U_SDP, "sdp.rdma_needed", "offline SDP without SDP_RDMA enabled");
        return -1;
    }
    if (!load_input(d, x, rdma_group, &L, in, &owned, &input) || !load_operands(x, rdma_group, &L))
        goto out;
    if (!exec_cube_alloc(x, DLA_U_SDP, &res, L.w, L.h, L.cw, L.n, DLA_CUBE_INT,
                         "the SDP result cube"))
        goto out;
    run_datapath(&L, input, &res, &st);
    publish_status(d, x, group, rdma_group, &L, &st);
    unsigned tp = throughput(d->cfg, &L);
    exec_compute(x, (st.elements + tp - 1) / tp, st.elements);
    if (L.eql)
        rc = 0;
    else if (to_pdp) {
        hand_to_pdp(&L, &res, to_pdp);
        rc = 0;
    } else
        rc = write_memory(d, x, group, &L, &res) ? 0 : -1;
out:
    exec_cube_free(x, &res);
    exec_cube_free(x, &owned);
    free_operands(&L);
    return rc;
}

/* ---------------------------------------------------------------- LUT access port */

static bool sdp_write(struct dla *d, const struct regdb_reg *reg, int group, uint32_t value)
{
    (void)group;
    return lut_hook_write(&d->lut_sdp, reg, value);
}

static bool sdp_read(struct dla *d, const struct regdb_reg *reg, int group, uint32_t *value,
                     bool peek)
{
    (void)group;
    return lut_hook_read(&d->lut_sdp, reg, value, peek);
}

/* SDP's LUT RAM lives in struct dla (plain data for checkpoints); a reset empties it. */
static void sdp_reset(struct dla *d)
{
    memset(&d->lut_sdp, 0, sizeof d->lut_sdp);
}

static const struct dla_unit_hooks sdp_hooks = {
    .reset = sdp_reset,
    .write = sdp_write,
    .read = sdp_read,
};

static int sdp_run(struct dla *d, struct dla_exec *x, const struct dla_stage *st,
                   const struct dla_cube *in, struct dla_cube *out)
{
    return sdp_execute(d, x, st->group, st->rdma_group, in, out);
}

/* The programming-guide rules this unit checks: one row per id it passes to
 * dla_rule() (core/rules.c lists every entry's rows for "info rules"). */
static const struct dla_rule_info sdp_rules[] = {
    {"sdp.precision", DLA_U_SDP, "SDP programming", "precision fields select INT8, INT16 or FP16"},
    {"sdp.precision_absent", DLA_U_SDP, "SDP programming",
     "a precision the configuration supports"},
    {"sdp.batch", DLA_U_SDP, "SDP programming (batch mode)",
     "BATCH_NUMBER within the configuration's batch support"},
    {"sdp.offline_batch", DLA_U_SDP, "SDP programming (batch mode)",
     "batch mode takes its input on the fly from CACC"},
    {"sdp.prelu_alu", DLA_U_SDP, "SDP programming",
     "with PReLU enabled the stage's ALU is bypassed"},
    {"sdp.fp16_to_int8", DLA_U_SDP, "SDP programming (precision conversion)",
     "fp16 processing outputs fp16 or int16, not int8"},
    {"sdp.precision_conversion", DLA_U_SDP, "SDP programming (precision conversion)",
     "no precision conversion in EQL mode or when the output goes to PDP"},
    {"sdp.eql_cvt", DLA_U_SDP, "SDP programming (compare mode)",
     "EQL mode: output converter is identity (offset 0, scale 1, shift 0)"},
    {"sdp.eql_alu_cvt", DLA_U_SDP, "SDP programming (compare mode)",
     "EQL mode: the EW ALU converter is bypassed"},
    {"sdp.eql_after_alu", DLA_U_SDP, "SDP programming (compare mode)",
     "EQL mode: everything after the EW ALU (the LUT) is bypassed"},
    {"sdp.eql_mode", DLA_U_SDP, "SDP programming (compare mode)",
     "EQL mode needs WINOGRAD off and BATCH_NUMBER 0"},
    {"sdp.flying_cube_mismatch", DLA_U_SDP, "SDP programming",
     "on the fly, SDP's cube equals the cube CACC delivers"},
    {"sdp.rdma_needed", DLA_U_SDP, "SDP programming",
     "offline SDP reads its input through SDP_RDMA, which must be enabled"},
    {"sdp_rdma.cube_mismatch", DLA_U_SDP_RDMA, "SDP programming", "SDP_RDMA's cube equals SDP's"},
    {"sdp_rdma.precision_mismatch", DLA_U_SDP_RDMA, "SDP programming",
     "SDP_RDMA PROC_PRECISION equals SDP's"},
    {"sdp_rdma.data_use", DLA_U_SDP_RDMA, "SDP programming (BRDMA/NRDMA/ERDMA data mode)",
     "each operand stream delivers the ALU/MUL operands its SDP stage takes from memory"},
    {"sdp_rdma.operand_disabled", DLA_U_SDP_RDMA, "SDP programming",
     "an SDP stage that takes operands from memory has its SDP_RDMA stream enabled"},
    {"sdp_rdma.unused_stream", DLA_U_SDP_RDMA, "SDP programming",
     "an SDP_RDMA stream is enabled only when its stage takes operands from memory"},
    {"sdp.lut_le_range", DLA_U_SDP, "LUT programming", "LE table end above its start"},
    {"sdp.lut_lo_range", DLA_U_SDP, "LUT programming", "LO table end above its start"},
};

static const struct dla_perf_reg sdp_perf_regs[] = {
    {DLA_U_SDP_RDMA, true, "D_PERF_ENABLE", "PERF_DMA_EN", "D_PERF_MRDMA_READ_STALL",
     "SDP_RDMA.D_PERF_MRDMA_READ_STALL", DLA_PERF_STALL, DLA_C_SDP_MRDMA},
    {DLA_U_SDP_RDMA, true, "D_PERF_ENABLE", "PERF_DMA_EN", "D_PERF_BRDMA_READ_STALL",
     "SDP_RDMA.D_PERF_BRDMA_READ_STALL", DLA_PERF_STALL, DLA_C_SDP_BRDMA},
    {DLA_U_SDP_RDMA, true, "D_PERF_ENABLE", "PERF_DMA_EN", "D_PERF_NRDMA_READ_STALL",
     "SDP_RDMA.D_PERF_NRDMA_READ_STALL", DLA_PERF_STALL, DLA_C_SDP_NRDMA},
    {DLA_U_SDP_RDMA, true, "D_PERF_ENABLE", "PERF_DMA_EN", "D_PERF_ERDMA_READ_STALL",
     "SDP_RDMA.D_PERF_ERDMA_READ_STALL", DLA_PERF_STALL, DLA_C_SDP_ERDMA},
    {DLA_U_SDP, false, "D_PERF_ENABLE", "PERF_DMA_EN", "D_PERF_WDMA_WRITE_STALL",
     "SDP.D_PERF_WDMA_WRITE_STALL", DLA_PERF_STALL, DLA_C_SDP_WDMA},
};

const struct dla_unit_entry sdp_unit = {
    .name = "SDP",
    .proc = DLA_P_SDP,
    .n_ports = 2,
    .ports = {{DLA_U_SDP, &sdp_hooks}, {DLA_U_SDP_RDMA, NULL}},
    .main = DLA_U_SDP,
    .rdma = DLA_U_SDP_RDMA,
    .execute = sdp_run,
    .perf_regs = sdp_perf_regs,
    .n_perf_regs = sizeof sdp_perf_regs / sizeof sdp_perf_regs[0],
    .feeds = DLA_P_PDP,
    .output_on_the_fly = sdp_output_to_pdp,
    .input_on_the_fly = sdp_input_on_the_fly,
    .needs_rdma = sdp_needs_rdma,
    .reads_from_rdma_enable = true,
    .rules = sdp_rules,
    .n_rules = sizeof sdp_rules / sizeof sdp_rules[0],
};
