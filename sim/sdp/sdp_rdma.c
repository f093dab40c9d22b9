/* SDP_RDMA: reading the input cube and the BS/BN/EW operands from memory.
 *
 * Layouts (cmod/sdp/NV_NVDLA_sdp.cpp SdpRdmaCore, ExtractRdmaResponsePayload):
 * - the input is a feature cube in IN_PRECISION: atom / bpe channels per
 *   surface, one atom per pixel;
 * - per-element operands form a cube whose surfaces group the channels of
 *   one processing atom (atom / proc bpe channels); a pixel holds those
 *   channels' operands one after another, each operand being its ALU
 *   component then its MUL component when both are used;
 * - per-channel (PER_KERNEL) operands are one line of the same operands. */
#include <stdlib.h>
#include <string.h>

#include "sdp_dp.h"
#include "sdp_rdma.h"

struct operand_regs {
    const char *cfg, *disable, *use, *size, *mode, *ram;
    const char *addr_high, *addr_low, *line, *surf;
    enum dla_client client;
    const char *name;
};

static const struct operand_regs operand_regs[SDP_SRC_COUNT] = {
    [SDP_SRC_BS] = {"D_BRDMA_CFG", "BRDMA_DISABLE", "BRDMA_DATA_USE", "BRDMA_DATA_SIZE",
                    "BRDMA_DATA_MODE", "BRDMA_RAM_TYPE", "D_BS_BASE_ADDR_HIGH",
                    "D_BS_BASE_ADDR_LOW", "D_BS_LINE_STRIDE", "D_BS_SURFACE_STRIDE",
                    DLA_C_SDP_BRDMA, "BRDMA"},
    [SDP_SRC_BN] = {"D_NRDMA_CFG", "NRDMA_DISABLE", "NRDMA_DATA_USE", "NRDMA_DATA_SIZE",
                    "NRDMA_DATA_MODE", "NRDMA_RAM_TYPE", "D_BN_BASE_ADDR_HIGH",
                    "D_BN_BASE_ADDR_LOW", "D_BN_LINE_STRIDE", "D_BN_SURFACE_STRIDE",
                    DLA_C_SDP_NRDMA, "NRDMA"},
    [SDP_SRC_EW] = {"D_ERDMA_CFG", "ERDMA_DISABLE", "ERDMA_DATA_USE", "ERDMA_DATA_SIZE",
                    "ERDMA_DATA_MODE", "ERDMA_RAM_TYPE", "D_EW_BASE_ADDR_HIGH",
                    "D_EW_BASE_ADDR_LOW", "D_EW_LINE_STRIDE", "D_EW_SURFACE_STRIDE",
                    DLA_C_SDP_ERDMA, "ERDMA"},
};

enum data_use { USE_MUL = 0, USE_ALU = 1, USE_BOTH = 2 };

/* ---------------------------------------------------------------- input */

bool sdp_rdma_input(struct dla_exec *x, int rg, const struct sdp_shape *s, struct dla_cube *out)
{
    struct dla *d = x->d;
    unsigned prec = dla_field(d, DLA_U_SDP_RDMA, rg, "D_FEATURE_MODE_CFG", "IN_PRECISION");
    unsigned bpe = sdp_prec_bytes(prec);
    unsigned group = s->atom / bpe;
    uint64_t base =
        dla_reg_addr64(d, DLA_U_SDP_RDMA, rg, "D_SRC_BASE_ADDR_HIGH", "D_SRC_BASE_ADDR_LOW");
    uint64_t line_stride = dla_reg(d, DLA_U_SDP_RDMA, rg, "D_SRC_LINE_STRIDE");
    uint64_t surf_stride = dla_reg(d, DLA_U_SDP_RDMA, rg, "D_SRC_SURFACE_STRIDE");
    enum dla_space space = dla_ram_space(
        d, DLA_U_SDP_RDMA, dla_field(d, DLA_U_SDP_RDMA, rg, "D_SRC_DMA_CFG", "SRC_RAM_TYPE"));
    if (!exec_cube_alloc(x, DLA_U_SDP_RDMA, out, s->w, s->h, s->cw, 1,
                         prec == SDP_FP16 ? DLA_CUBE_FP16 : DLA_CUBE_INT, "the SDP input cube"))
        return false;
    size_t line_bytes = (size_t)s->w * s->atom;
    uint8_t *line = malloc(line_bytes);
    if (!line) {
        exec_cube_free(x, out);
        return false;
    }
    uint32_t surfaces = (s->cw + group - 1) / group;
    bool ok = true;
    for (uint32_t sf = 0; sf < surfaces && ok; sf++) {
        for (uint32_t y = 0; y < s->h && ok; y++) {
            ok = exec_read(x, DLA_C_SDP_MRDMA, space, base + sf * surf_stride + y * line_stride,
                           line, line_bytes);
            /* a channel's row at a time: the cube is planar */
            for (uint32_t k = 0; k < group && sf * group + k < s->cw && ok; k++)
                feature_load_strided(line + (size_t)k * bpe, s->atom, s->w, bpe, prec == SDP_FP16,
                                     out->v + cube_index(out, 0, sf * group + k, y, 0));
        }
    }
    free(line);
    if (!ok)
        exec_cube_free(x, out);
    return ok;
}

/* ---------------------------------------------------------------- operands */

void sdp_operands_free(struct sdp_operands *o)
{
    free(o->alu);
    free(o->mul);
    o->alu = o->mul = NULL;
}

/* Which component of the stream feeds ALU and MUL (-1: none), or false when
 * the stream cannot feed what the SDP stage takes from memory. */
static bool assign_components(struct dla *d, const struct operand_regs *r, unsigned use,
                              const struct sdp_operands *o, int *alu_comp, int *mul_comp)
{
    *alu_comp = *mul_comp = -1;
    if (use == USE_BOTH) {
        *alu_comp = o->want_alu ? 0 : -1;
        *mul_comp = o->want_mul ? 1 : -1;
        return true;
    }
    if (use == USE_ALU && !o->want_mul) {
        *alu_comp = 0;
        return true;
    }
    if (use == USE_MUL && !o->want_alu) {
        *mul_comp = 0;
        return true;
    }
    dla_rule(d, DLA_U_SDP_RDMA, "sdp_rdma.data_use",
             "%s.%s = %u does not deliver the operands the SDP stage takes from memory "
             "(ALU %s, MUL %s)",
             r->cfg, r->use, use, o->want_alu ? "yes" : "no", o->want_mul ? "yes" : "no");
    return false;
}

struct operand_stream {
    unsigned comp_bytes, comps, group;
    int alu_comp, mul_comp;
};

/* One operand component along a run of n operands, `step` bytes apart. */
static void component_row(const uint8_t *p, size_t step, uint32_t n, unsigned bytes, int16_t *out)
{
    if (bytes == 1)
        for (uint32_t i = 0; i < n; i++)
            out[i] = (int16_t)feature_load(p + i * step, 1, false);
    else
        for (uint32_t i = 0; i < n; i++)
            out[i] = (int16_t)feature_load(p + i * step, 2, false);
}

/* The ALU and MUL components of n operands `step` bytes apart from p, into
 * the planes they feed from index i on: a component at a time, along a run
 * that is contiguous in the planes (a line of one channel, or the
 * per-channel operands). */
static void store_components(const struct operand_stream *st, const uint8_t *p, size_t step,
                             uint32_t n, struct sdp_operands *o, size_t i)
{
    if (st->alu_comp >= 0)
        component_row(p + (size_t)st->alu_comp * st->comp_bytes, step, n, st->comp_bytes,
                      o->alu + i);
    if (st->mul_comp >= 0)
        component_row(p + (size_t)st->mul_comp * st->comp_bytes, step, n, st->comp_bytes,
                      o->mul + i);
}

static bool read_per_channel(struct dla_exec *x, const struct operand_regs *r,
                             const struct operand_stream *st, enum dla_space space, uint64_t base,
                             const struct sdp_shape *s, struct sdp_operands *o)
{
    size_t bytes = (size_t)s->cw * st->comps * st->comp_bytes;
    uint8_t *buf = malloc(bytes);
    if (!buf)
        return false;
    bool ok = exec_read(x, r->client, space, base, buf, bytes);
    if (ok)
        store_components(st, buf, (size_t)st->comps * st->comp_bytes, s->cw, o, 0);
    free(buf);
    return ok;
}

static bool read_per_element(struct dla_exec *x, int rg, const struct operand_regs *r,
                             const struct operand_stream *st, enum dla_space space, uint64_t base,
                             const struct sdp_shape *s, struct sdp_operands *o)
{
    struct dla *d = x->d;
    uint64_t line_stride = dla_reg(d, DLA_U_SDP_RDMA, rg, r->line);
    uint64_t surf_stride = dla_reg(d, DLA_U_SDP_RDMA, rg, r->surf);
    size_t pixel_bytes = (size_t)st->group * st->comps * st->comp_bytes;
    size_t line_bytes = (size_t)s->w * pixel_bytes;
    uint8_t *line = malloc(line_bytes);
    if (!line)
        return false;
    uint32_t surfaces = (s->cw + st->group - 1) / st->group;
    bool ok = true;
    for (uint32_t sf = 0; sf < surfaces && ok; sf++) {
        uint32_t first = sf * st->group;
        uint32_t n_c = s->cw - first < st->group ? s->cw - first : st->group;
        for (uint32_t y = 0; y < s->h && ok; y++) {
            ok = exec_read(x, r->client, space, base + sf * surf_stride + y * line_stride, line,
                           line_bytes);
            for (uint32_t k = 0; k < n_c && ok; k++)
                store_components(st, line + (size_t)k * st->comps * st->comp_bytes, pixel_bytes,
                                 s->w, o, sdp_operand_index(o, s, first + k, y, 0));
        }
    }
    free(line);
    return ok;
}

static bool alloc_planes(struct sdp_operands *o, size_t n, int alu_comp, int mul_comp)
{
    if (alu_comp >= 0 && !(o->alu = calloc(n, sizeof *o->alu)))
        return false;
    if (mul_comp >= 0 && !(o->mul = calloc(n, sizeof *o->mul)))
        return false;
    return true;
}

void sdp_rdma_check_unused(struct dla_exec *x, int rg, enum sdp_operand_source src)
{
    const struct operand_regs *r = &operand_regs[src];
    if (rg != 0xff && !dla_field(x->d, DLA_U_SDP_RDMA, rg, r->cfg, r->disable))
        dla_rule(x->d, DLA_U_SDP_RDMA, "sdp_rdma.unused_stream",
                 "SDP_RDMA %s is enabled but the SDP takes no operand of that stage from memory",
                 r->name);
}

bool sdp_rdma_operands(struct dla_exec *x, int rg, enum sdp_operand_source src,
                       const struct sdp_shape *s, struct sdp_operands *o)
{
    struct dla *d = x->d;
    const struct operand_regs *r = &operand_regs[src];
    o->alu = o->mul = NULL;
    if (!o->want_alu && !o->want_mul)
        return true;
    if (rg == 0xff || dla_field(d, DLA_U_SDP_RDMA, rg, r->cfg, r->disable)) {
        dla_rule(d, DLA_U_SDP_RDMA, "sdp_rdma.operand_disabled",
                 "the SDP takes %s operands from memory but SDP_RDMA %s is %s",
                 src == SDP_SRC_BS   ? "BS"
                 : src == SDP_SRC_BN ? "BN"
                                     : "EW",
                 r->name, rg == 0xff ? "not enabled" : "disabled");
        return false;
    }
    struct operand_stream st;
    unsigned use = dla_field(d, DLA_U_SDP_RDMA, rg, r->cfg, r->use);
    if (!assign_components(d, r, use, o, &st.alu_comp, &st.mul_comp))
        return false;
    st.comps = use == USE_BOTH ? 2 : 1;
    st.comp_bytes = dla_field(d, DLA_U_SDP_RDMA, rg, r->cfg, r->size) ? 2 : 1;
    st.group = s->atom / sdp_prec_bytes(s->proc_prec);
    o->per_element = dla_field(d, DLA_U_SDP_RDMA, rg, r->cfg, r->mode) != 0;
    uint64_t base = dla_reg_addr64(d, DLA_U_SDP_RDMA, rg, r->addr_high, r->addr_low);
    enum dla_space space =
        dla_ram_space(d, DLA_U_SDP_RDMA, dla_field(d, DLA_U_SDP_RDMA, rg, r->cfg, r->ram));
    size_t n = o->per_element ? (size_t)s->cw * s->h * s->w : s->cw;
    bool ok = alloc_planes(o, n, st.alu_comp, st.mul_comp);
    if (ok)
        ok = o->per_element ? read_per_element(x, rg, r, &st, space, base, s, o)
                            : read_per_channel(x, r, &st, space, base, s, o);
    if (!ok)
        sdp_operands_free(o);
    return ok;
}
