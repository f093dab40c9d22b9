/* The DMA streams of an NVDLA layer, from the registers it ran with, as
 * strided accesses (aie_tiling.h) that the aie plugin turns into AIE-ML
 * tiling parameters.  Each stream follows the order in which dladbg's model
 * walks the cube (sim/sdp/sdp_rdma.c, sdp.c, pdp.c, cdp.c, cdma.c, bdma.c,
 * rubik.c): that order is what the DMA events record, and what the aie
 * plugin checks the derived parameters against.  Header-only, part of the
 * aie plugin (not of the ABI). */
#ifndef DLADBG_AIE_STREAMS_H
#define DLADBG_AIE_STREAMS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "aie_tiling.h"
#include "dladbg/decoder.h"

#define AIE_MAX_PARTS   24 /* BDMA: up to 20 operations per group */
#define AIE_MAX_STREAMS 8  /* SDP: input, 3 operands, output */

struct aie_stream {
    const char *client; /* DMA client as the model's events name it: "sdp.mrdma" */
    bool write;
    const char *what; /* "input cube", "weights", ... */
    char shape[48];   /* "4x4x16 int8" */
    unsigned elem_bytes;
    const char *type; /* "int8" "int16" "fp16" */
    unsigned n_parts; /* accesses one after the other (PDP splits, BDMA operations) */
    struct aie_access part[AIE_MAX_PARTS];
    char why_not[96]; /* non-empty: the stream exists but is not derived */
};

/* A BDMA operation as CFG_OP staged it. */
struct aie_bdma_op {
    uint64_t src, dst, line_bytes, line_repeat, surf_repeat;
    uint64_t src_line, dst_line, src_surf, dst_surf;
};

/* Reading a layer's registers through the run; a missing register is
 * remembered, so one check at the end covers them all. */
struct aie_regs {
    const struct dladbg_run *run;
    uint32_t layer;
    bool missing;
    char first_missing[160];
};

static inline uint32_t aie_reg(struct aie_regs *r, const char *unit, const char *reg,
                               const char *field)
{
    uint32_t v = 0;
    if (r->run->layer_reg(r->run, r->layer, unit, reg, field, &v) != 0) {
        if (!r->missing)
            snprintf(r->first_missing, sizeof r->first_missing, "%s.%s%s%s", unit, reg,
                     field ? "." : "", field ? field : "");
        r->missing = true;
    }
    return v;
}

/* A size field: the register holds the value minus one. */
static inline uint64_t aie_reg1(struct aie_regs *r, const char *unit, const char *reg,
                                const char *field)
{
    return (uint64_t)aie_reg(r, unit, reg, field) + 1;
}

static inline uint64_t aie_addr64(struct aie_regs *r, const char *unit, const char *high,
                                  const char *low)
{
    return (uint64_t)aie_reg(r, unit, high, NULL) << 32 | aie_reg(r, unit, low, NULL);
}

static inline const char *aie_prec_type(uint32_t prec)
{
    return prec == 0 ? "int8" : prec == 1 ? "int16" : "fp16";
}

static inline unsigned aie_prec_bytes(uint32_t prec)
{
    return prec == 0 ? 1 : 2;
}

static inline struct aie_stream *aie_new_stream(struct aie_stream *s, unsigned *n,
                                                const char *client, bool write, const char *what,
                                                uint32_t prec)
{
    struct aie_stream *st = &s[(*n)++];
    memset(st, 0, sizeof *st);
    st->client = client;
    st->write = write;
    st->what = what;
    st->elem_bytes = aie_prec_bytes(prec);
    st->type = aie_prec_type(prec);
    return st;
}

/* A feature cube walked surface by surface, line by line (SDP, PDP and
 * RUBIK reads, SDP writes); lines inside surfaces. */
static inline void aie_cube_part(struct aie_access *a, uint64_t base, uint64_t w, uint64_t h,
                                 uint64_t surfaces, uint64_t line, uint64_t surf, unsigned atom)
{
    *a = (struct aie_access){.base = base, .run_bytes = w * atom, .n_loops = 2};
    a->loop[0].count = h;
    a->loop[0].stride = (int64_t)line;
    a->loop[1].count = surfaces;
    a->loop[1].stride = (int64_t)surf;
}

static inline uint64_t aie_surfaces(uint64_t channels, unsigned atom, unsigned bpe)
{
    unsigned cpa = atom / bpe;
    return (channels + cpa - 1) / cpa;
}

static inline void aie_shape(struct aie_stream *st, uint64_t w, uint64_t h, uint64_t c)
{
    snprintf(st->shape, sizeof st->shape, "%llux%llux%llu %s", (unsigned long long)w,
             (unsigned long long)h, (unsigned long long)c, st->type);
}

/* ---------------------------------------------------------------- SDP */

/* The BS, BN and EW operands SDP_RDMA reads (its BRDMA, NRDMA and ERDMA):
 * one value (or an ALU/MUL pair) per channel, or per element laid out like
 * a feature cube whose atoms hold `group` channels. */
/* Whether SDP stage ("BS", "BN", "EW") takes an operand from memory: it
 * runs, and its ALU or multiplier runs with source MEM (as the model
 * decides, sim/sdp/sdp.c). */
static inline bool aie_sdp_stage_reads(struct aie_regs *r, const char *stage)
{
    char cfg[24], sub[24], f[32];
    snprintf(cfg, sizeof cfg, "D_DP_%s_CFG", stage);
    snprintf(f, sizeof f, "%s_BYPASS", stage);
    if (aie_reg(r, "SDP", cfg, f))
        return false;
    static const char *const parts[2] = {"ALU", "MUL"};
    for (int i = 0; i < 2; i++) {
        snprintf(f, sizeof f, "%s_%s_BYPASS", stage, parts[i]);
        bool bypassed = aie_reg(r, "SDP", cfg, f) != 0;
        snprintf(sub, sizeof sub, "D_DP_%s_%s_CFG", stage, parts[i]);
        snprintf(f, sizeof f, "%s_%s_SRC", stage, parts[i]);
        if (!bypassed && aie_reg(r, "SDP", sub, f))
            return true;
    }
    return false;
}

static inline void aie_sdp_operand(struct aie_regs *r, unsigned atom, uint64_t w, uint64_t h,
                                   uint64_t c, const char *name, struct aie_stream *s, unsigned *n)
{
    char cfg[24], f[32], lo[32], hi[32], line[32], surf[32];
    snprintf(cfg, sizeof cfg, "D_%sRDMA_CFG", name[1] == 'S' ? "B" : name[1] == 'N' ? "N" : "E");
    snprintf(f, sizeof f, "%cRDMA_DISABLE", cfg[2]);
    if (!aie_sdp_stage_reads(r, name) || aie_reg(r, "SDP_RDMA", cfg, f))
        return;
    static const char *const clients[3] = {"sdp.brdma", "sdp.nrdma", "sdp.erdma"};
    struct aie_stream *st = aie_new_stream(s, n,
                                           clients[cfg[2] == 'B'   ? 0
                                                   : cfg[2] == 'N' ? 1
                                                                   : 2],
                                           false, "operands", 0);
    snprintf(f, sizeof f, "%cRDMA_DATA_USE", cfg[2]);
    uint64_t comps = aie_reg(r, "SDP_RDMA", cfg, f) == 2 ? 2 : 1; /* BOTH: ALU and MUL */
    snprintf(f, sizeof f, "%cRDMA_DATA_SIZE", cfg[2]);
    unsigned bytes = aie_reg(r, "SDP_RDMA", cfg, f) ? 2 : 1;
    st->elem_bytes = bytes;
    st->type = bytes == 1 ? "int8" : "int16";
    snprintf(f, sizeof f, "%cRDMA_DATA_MODE", cfg[2]);
    snprintf(lo, sizeof lo, "D_%s_BASE_ADDR_LOW", name);
    snprintf(hi, sizeof hi, "D_%s_BASE_ADDR_HIGH", name);
    uint64_t base = aie_addr64(r, "SDP_RDMA", hi, lo);
    st->n_parts = 1;
    /* channels come in whole atoms' worth of the processing precision */
    uint32_t proc = aie_reg(r, "SDP_RDMA", "D_FEATURE_MODE_CFG", "PROC_PRECISION");
    uint64_t group = atom / aie_prec_bytes(proc);
    if (!aie_reg(r, "SDP_RDMA", cfg, f)) { /* per kernel: one run of every channel */
        uint64_t padded = (c + group - 1) / group * group;
        snprintf(st->shape, sizeof st->shape, "%llu channels (%llu read) x %llu %s",
                 (unsigned long long)c, (unsigned long long)padded, (unsigned long long)comps,
                 st->type);
        st->part[0] = (struct aie_access){.base = base, .run_bytes = padded * comps * bytes};
        return;
    }
    snprintf(line, sizeof line, "D_%s_LINE_STRIDE", name);
    snprintf(surf, sizeof surf, "D_%s_SURFACE_STRIDE", name);
    snprintf(st->shape, sizeof st->shape, "%llux%llux%llu x %llu %s", (unsigned long long)w,
             (unsigned long long)h, (unsigned long long)c, (unsigned long long)comps, st->type);
    aie_cube_part(&st->part[0], base, w, h, (c + group - 1) / group,
                  aie_reg(r, "SDP_RDMA", line, NULL), aie_reg(r, "SDP_RDMA", surf, NULL), 1);
    st->part[0].run_bytes = w * group * comps * bytes;
}

static inline void aie_sdp_streams(struct aie_regs *r, unsigned atom, struct aie_stream *s,
                                   unsigned *n)
{
    uint64_t w = aie_reg1(r, "SDP", "D_DATA_CUBE_WIDTH", "WIDTH");
    uint64_t h = aie_reg1(r, "SDP", "D_DATA_CUBE_HEIGHT", "HEIGHT");
    uint64_t c = aie_reg1(r, "SDP", "D_DATA_CUBE_CHANNEL", "CHANNEL");
    if (!aie_reg(r, "SDP", "D_FEATURE_MODE_CFG", "FLYING_MODE")) {
        uint32_t prec = aie_reg(r, "SDP_RDMA", "D_FEATURE_MODE_CFG", "IN_PRECISION");
        struct aie_stream *st = aie_new_stream(s, n, "sdp.mrdma", false, "input cube", prec);
        uint64_t rw = aie_reg1(r, "SDP_RDMA", "D_DATA_CUBE_WIDTH", "WIDTH");
        uint64_t rh = aie_reg1(r, "SDP_RDMA", "D_DATA_CUBE_HEIGHT", "HEIGHT");
        uint64_t rc = aie_reg1(r, "SDP_RDMA", "D_DATA_CUBE_CHANNEL", "CHANNEL");
        aie_shape(st, rw, rh, rc);
        st->n_parts = 1;
        aie_cube_part(&st->part[0],
                      aie_addr64(r, "SDP_RDMA", "D_SRC_BASE_ADDR_HIGH", "D_SRC_BASE_ADDR_LOW"), rw,
                      rh, aie_surfaces(rc, atom, st->elem_bytes),
                      aie_reg(r, "SDP_RDMA", "D_SRC_LINE_STRIDE", NULL),
                      aie_reg(r, "SDP_RDMA", "D_SRC_SURFACE_STRIDE", NULL), atom);
    }
    static const char *const operands[3] = {"BS", "BN", "EW"};
    for (int i = 0; i < 3; i++)
        aie_sdp_operand(r, atom, w, h, c, operands[i], s, n);
    if (!aie_reg(r, "SDP", "D_FEATURE_MODE_CFG", "OUTPUT_DST")) {
        uint32_t prec = aie_reg(r, "SDP", "D_DATA_FORMAT", "OUT_PRECISION");
        struct aie_stream *st = aie_new_stream(s, n, "sdp.wdma", true, "output cube", prec);
        aie_shape(st, w, h, c);
        st->n_parts = 1;
        struct aie_access *a = &st->part[0];
        aie_cube_part(a, aie_addr64(r, "SDP", "D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW"), w, h,
                      aie_surfaces(c, atom, st->elem_bytes),
                      aie_reg(r, "SDP", "D_DST_LINE_STRIDE", NULL),
                      aie_reg(r, "SDP", "D_DST_SURFACE_STRIDE", NULL), atom);
        a->loop[2].count = aie_reg1(r, "SDP", "D_FEATURE_MODE_CFG", "BATCH_NUMBER");
        a->loop[2].stride = aie_reg(r, "SDP", "D_DST_BATCH_STRIDE", NULL);
        a->n_loops = 3;
    }
}

/* ---------------------------------------------------------------- PDP */

/* PDP's width splits: split i covers [x0, x0 + w) of the input and
 * [ox0, ox0 + ow) of the output; every split after the first re-reads the
 * kernel - stride columns the previous one ended with.  Parts: the first
 * split, the middle ones as one traversal (tiles that overlap), the last. */
struct aie_pdp_split {
    int64_t x0, w, ox0, ow;
};

static inline unsigned aie_pdp_splits(struct aie_regs *r, struct aie_pdp_split *sp)
{
    uint64_t n = aie_reg1(r, "PDP", "D_OPERATION_MODE_CFG", "SPLIT_NUM");
    if (n == 1) {
        sp[0] = (struct aie_pdp_split){
            0, (int64_t)aie_reg1(r, "PDP", "D_DATA_CUBE_IN_WIDTH", "CUBE_IN_WIDTH"), 0,
            (int64_t)aie_reg1(r, "PDP", "D_DATA_CUBE_OUT_WIDTH", "CUBE_OUT_WIDTH")};
        return 1;
    }
    int64_t first = (int64_t)aie_reg1(r, "PDP", "D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_FIRST");
    int64_t mid = (int64_t)aie_reg1(r, "PDP", "D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_MID");
    int64_t last = (int64_t)aie_reg1(r, "PDP", "D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_LAST");
    int64_t ofirst = (int64_t)aie_reg1(r, "PDP", "D_PARTIAL_WIDTH_OUT", "PARTIAL_WIDTH_OUT_FIRST");
    int64_t omid = (int64_t)aie_reg1(r, "PDP", "D_PARTIAL_WIDTH_OUT", "PARTIAL_WIDTH_OUT_MID");
    int64_t olast = (int64_t)aie_reg1(r, "PDP", "D_PARTIAL_WIDTH_OUT", "PARTIAL_WIDTH_OUT_LAST");
    int64_t overlap = (int64_t)aie_reg1(r, "PDP", "D_POOLING_KERNEL_CFG", "KERNEL_WIDTH") -
                      (int64_t)aie_reg1(r, "PDP", "D_POOLING_KERNEL_CFG", "KERNEL_STRIDE_WIDTH");
    for (uint64_t i = 0; i < n; i++) {
        bool is_last = i + 1 == n;
        if (i == 0)
            sp[i] = (struct aie_pdp_split){0, first, 0, ofirst};
        else
            sp[i] = (struct aie_pdp_split){
                first + (int64_t)(i - 1) * mid - overlap, (is_last ? last : mid) + overlap,
                ofirst + (int64_t)(i - 1) * omid, is_last ? olast : omid};
    }
    return (unsigned)n;
}

/* Split accesses of one side (input or output) grouped into parts. */
static inline void aie_pdp_parts(struct aie_stream *st, const struct aie_pdp_split *sp, unsigned n,
                                 bool out, uint64_t base, uint64_t h, uint64_t surfaces,
                                 uint64_t line, uint64_t surf, unsigned atom)
{
    for (unsigned i = 0; i < n;) {
        int64_t x0 = out ? sp[i].ox0 : sp[i].x0, w = out ? sp[i].ow : sp[i].w;
        /* the middle splits share a width and a step: one part with a split loop */
        unsigned k = i + 1;
        if (i > 0) {
            while (k + 1 < n && (out ? sp[k].ow : sp[k].w) == w)
                k++;
        }
        struct aie_access *a = &st->part[st->n_parts++];
        aie_cube_part(a, base, (uint64_t)w, h, surfaces, line, surf, atom);
        a->offset_bytes = x0 * (int64_t)atom;
        if (k - i > 1) {
            int64_t step = (out ? sp[i + 1].ox0 - sp[i].ox0 : sp[i + 1].x0 - sp[i].x0);
            a->loop[2].count = k - i;
            a->loop[2].stride = step * (int64_t)atom;
            a->n_loops = 3;
        }
        i = k;
    }
}

static inline void aie_pdp_streams(struct aie_regs *r, unsigned atom, struct aie_stream *s,
                                   unsigned *n)
{
    struct aie_pdp_split sp[256];
    unsigned n_sp = aie_pdp_splits(r, sp);
    uint32_t prec = aie_reg(r, "PDP", "D_DATA_FORMAT", "INPUT_DATA");
    uint64_t c = aie_reg1(r, "PDP", "D_DATA_CUBE_IN_CHANNEL", "CUBE_IN_CHANNEL");
    uint64_t surfaces = aie_surfaces(c, atom, aie_prec_bytes(prec));
    if (aie_reg(r, "PDP", "D_OPERATION_MODE_CFG", "FLYING_MODE") == 1) { /* OFF_FLYING */
        struct aie_stream *st = aie_new_stream(s, n, "pdp.rdma", false, "input cube", prec);
        uint64_t h = aie_reg1(r, "PDP_RDMA", "D_DATA_CUBE_IN_HEIGHT", "CUBE_IN_HEIGHT");
        aie_shape(st, aie_reg1(r, "PDP_RDMA", "D_DATA_CUBE_IN_WIDTH", "CUBE_IN_WIDTH"), h, c);
        aie_pdp_parts(st, sp, n_sp, false,
                      aie_addr64(r, "PDP_RDMA", "D_SRC_BASE_ADDR_HIGH", "D_SRC_BASE_ADDR_LOW"), h,
                      surfaces, aie_reg(r, "PDP_RDMA", "D_SRC_LINE_STRIDE", NULL),
                      aie_reg(r, "PDP_RDMA", "D_SRC_SURFACE_STRIDE", NULL), atom);
    }
    struct aie_stream *st = aie_new_stream(s, n, "pdp.wdma", true, "output cube", prec);
    uint64_t oh = aie_reg1(r, "PDP", "D_DATA_CUBE_OUT_HEIGHT", "CUBE_OUT_HEIGHT");
    aie_shape(st, aie_reg1(r, "PDP", "D_DATA_CUBE_OUT_WIDTH", "CUBE_OUT_WIDTH"), oh, c);
    aie_pdp_parts(st, sp, n_sp, true,
                  aie_addr64(r, "PDP", "D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW"), oh, surfaces,
                  aie_reg(r, "PDP", "D_DST_LINE_STRIDE", NULL),
                  aie_reg(r, "PDP", "D_DST_SURFACE_STRIDE", NULL), atom);
}

/* ---------------------------------------------------------------- CDP */

/* CDP walks line by line, every surface of a line before the next line. */
static inline void aie_cdp_streams(struct aie_regs *r, unsigned atom, struct aie_stream *s,
                                   unsigned *n)
{
    uint64_t w = aie_reg1(r, "CDP_RDMA", "D_DATA_CUBE_WIDTH", "WIDTH");
    uint64_t h = aie_reg1(r, "CDP_RDMA", "D_DATA_CUBE_HEIGHT", "HEIGHT");
    uint64_t c = aie_reg1(r, "CDP_RDMA", "D_DATA_CUBE_CHANNEL", "CHANNEL");
    uint32_t prec = aie_reg(r, "CDP_RDMA", "D_DATA_FORMAT", "INPUT_DATA");
    uint64_t surfaces = aie_surfaces(c, atom, aie_prec_bytes(prec));
    static const char *const unit[2] = {"CDP_RDMA", "CDP"};
    static const char *const regs[2][4] = {{"D_SRC_BASE_ADDR_HIGH", "D_SRC_BASE_ADDR_LOW",
                                            "D_SRC_LINE_STRIDE", "D_SRC_SURFACE_STRIDE"},
                                           {"D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW",
                                            "D_DST_LINE_STRIDE", "D_DST_SURFACE_STRIDE"}};
    for (int wr = 0; wr < 2; wr++) {
        struct aie_stream *st = aie_new_stream(s, n, wr ? "cdp.wdma" : "cdp.rdma", wr,
                                               wr ? "output cube" : "input cube", prec);
        aie_shape(st, w, h, c);
        st->n_parts = 1;
        struct aie_access *a = &st->part[0];
        *a = (struct aie_access){.base = aie_addr64(r, unit[wr], regs[wr][0], regs[wr][1]),
                                 .run_bytes = w * atom,
                                 .n_loops = 2};
        a->loop[0].count = surfaces;
        a->loop[0].stride = aie_reg(r, unit[wr], regs[wr][3], NULL);
        a->loop[1].count = h;
        a->loop[1].stride = aie_reg(r, unit[wr], regs[wr][2], NULL);
    }
}

/* ---------------------------------------------------------------- CONV (CDMA) */

static inline void aie_conv_streams(struct aie_regs *r, unsigned atom, struct aie_stream *s,
                                    unsigned *n)
{
    uint32_t prec = aie_reg(r, "CDMA", "D_MISC_CFG", "IN_PRECISION");
    struct aie_stream *st = aie_new_stream(s, n, "cdma.dat", false, "input cube", prec);
    uint64_t w = aie_reg1(r, "CDMA", "D_DATAIN_SIZE_0", "DATAIN_WIDTH");
    uint64_t h = aie_reg1(r, "CDMA", "D_DATAIN_SIZE_0", "DATAIN_HEIGHT");
    uint64_t c = aie_reg1(r, "CDMA", "D_DATAIN_SIZE_1", "DATAIN_CHANNEL");
    aie_shape(st, w, h, c);
    if (aie_reg(r, "CDMA", "D_MISC_CFG", "CONV_MODE"))
        snprintf(st->why_not, sizeof st->why_not, "Winograd input is fetched in tiles");
    else if (aie_reg(r, "CDMA", "D_DATAIN_FORMAT", "DATAIN_FORMAT"))
        snprintf(st->why_not, sizeof st->why_not, "pixel (image) input has its own layouts");
    else {
        /* CDMA takes line y of every batch, surface by surface, then y + 1 */
        st->n_parts = 1;
        struct aie_access *a = &st->part[0];
        *a = (struct aie_access){
            .base = aie_addr64(r, "CDMA", "D_DAIN_ADDR_HIGH_0", "D_DAIN_ADDR_LOW_0"),
            .run_bytes = w * atom,
            .n_loops = 3};
        a->loop[0].count = aie_surfaces(c, atom, st->elem_bytes);
        a->loop[0].stride = aie_reg(r, "CDMA", "D_SURF_STRIDE", NULL);
        a->loop[1].count = aie_reg1(r, "CDMA", "D_BATCH_NUMBER", "BATCHES");
        a->loop[1].stride = aie_reg(r, "CDMA", "D_BATCH_STRIDE", NULL);
        a->loop[2].count = h;
        a->loop[2].stride = aie_reg(r, "CDMA", "D_LINE_STRIDE", NULL);
    }
    st = aie_new_stream(s, n, "cdma.wt", false, "weights", prec);
    /* uncompressed, CDMA reads kernels x BYTE_PER_KERNEL bytes and the
     * padding D_WEIGHT_BYTES adds after them, when under 128 bytes (compilers
     * round up to 128; NVIDIA's VP reads those lines) */
    uint64_t kernels = aie_reg1(r, "CDMA", "D_WEIGHT_SIZE_1", "WEIGHT_KERNEL");
    uint64_t bytes = kernels * aie_reg1(r, "CDMA", "D_WEIGHT_SIZE_0", "BYTE_PER_KERNEL");
    uint64_t programmed = aie_reg(r, "CDMA", "D_WEIGHT_BYTES", NULL);
    if (programmed > bytes && programmed - bytes < 128)
        bytes = programmed;
    snprintf(st->shape, sizeof st->shape, "%llu kernels, %llu bytes %s",
             (unsigned long long)kernels, (unsigned long long)bytes, st->type);
    if (aie_reg(r, "CDMA", "D_WEIGHT_FORMAT", "WEIGHT_FORMAT"))
        snprintf(st->why_not, sizeof st->why_not, "compressed weights (WMB/WGS) are not derived");
    else {
        st->n_parts = 1;
        st->part[0] = (struct aie_access){
            .base = aie_addr64(r, "CDMA", "D_WEIGHT_ADDR_HIGH", "D_WEIGHT_ADDR_LOW"),
            .run_bytes = bytes};
    }
}

/* ---------------------------------------------------------------- RUBIK */

static inline void aie_rubik_streams(struct aie_regs *r, unsigned atom, struct aie_stream *s,
                                     unsigned *n)
{
    uint32_t mode = aie_reg(r, "RBK", "D_MISC_CFG", "RUBIK_MODE");
    uint32_t prec = aie_reg(r, "RBK", "D_MISC_CFG", "IN_PRECISION");
    uint64_t w = aie_reg1(r, "RBK", "D_DATAIN_SIZE_0", "DATAIN_WIDTH");
    uint64_t h = aie_reg1(r, "RBK", "D_DATAIN_SIZE_0", "DATAIN_HEIGHT");
    uint64_t c_in = aie_reg1(r, "RBK", "D_DATAIN_SIZE_1", "DATAIN_CHANNEL");
    uint64_t c_out = aie_reg1(r, "RBK", "D_DATAOUT_SIZE_1", "DATAOUT_CHANNEL");
    uint64_t src = aie_addr64(r, "RBK", "D_DAIN_ADDR_HIGH", "D_DAIN_ADDR_LOW");
    uint64_t dst = aie_addr64(r, "RBK", "D_DAOUT_ADDR_HIGH", "D_DAOUT_ADDR_LOW");
    uint64_t src_line = aie_reg(r, "RBK", "D_DAIN_LINE_STRIDE", NULL);
    uint64_t src_surf = aie_reg(r, "RBK", "D_DAIN_SURF_STRIDE", NULL);
    uint64_t dst_line = aie_reg(r, "RBK", "D_DAOUT_LINE_STRIDE", NULL);
    uint64_t dst_surf = aie_reg(r, "RBK", "D_DAOUT_SURF_STRIDE", NULL);
    unsigned bpe = aie_prec_bytes(prec);
    struct aie_stream *rd = aie_new_stream(s, n, "rbk.rdma", false, "input cube", prec);
    struct aie_stream *wr = aie_new_stream(s, n, "rbk.wdma", true, "output", prec);
    aie_shape(rd, w, h, c_in);
    if (mode == 0) { /* contract: deconvolution's sx*sy output phases into place */
        uint64_t sx = aie_reg1(r, "RBK", "D_DECONV_STRIDE", "DECONV_X_STRIDE");
        uint64_t sy = aie_reg1(r, "RBK", "D_DECONV_STRIDE", "DECONV_Y_STRIDE");
        uint64_t s_out = aie_surfaces(c_out, atom, bpe);
        aie_shape(wr, w * sx, h * sy, c_out);
        rd->n_parts = wr->n_parts = 1;
        struct aie_access *a = &rd->part[0];
        *a = (struct aie_access){.base = src, .run_bytes = w * atom, .n_loops = 4};
        a->loop[0].count = sx;
        a->loop[0].stride = (int64_t)(s_out * src_surf);
        a->loop[1].count = sy;
        a->loop[1].stride = (int64_t)(sx * s_out * src_surf);
        a->loop[2].count = h;
        a->loop[2].stride = (int64_t)src_line;
        a->loop[3].count = s_out;
        a->loop[3].stride = (int64_t)src_surf;
        a = &wr->part[0];
        *a = (struct aie_access){.base = dst, .run_bytes = w * sx * atom, .n_loops = 3};
        a->loop[0].count = sy;
        a->loop[0].stride = (int64_t)dst_line;
        a->loop[1].count = h;
        a->loop[1].stride = aie_reg(r, "RBK", "D_CONTRACT_STRIDE_1", NULL);
        a->loop[2].count = s_out;
        a->loop[2].stride = (int64_t)dst_surf;
    } else if (mode == 1) { /* split: feature cube in, planes out */
        uint64_t ch = c_in < c_out ? c_in : c_out;
        rd->n_parts = 1;
        aie_cube_part(&rd->part[0], src, w, h, aie_surfaces(ch, atom, bpe), src_line, src_surf,
                      atom);
        wr->what = "output planes";
        aie_shape(wr, w, h, c_out);
        snprintf(wr->why_not, sizeof wr->why_not,
                 "planar output is written in reorder-buffer chunks of whole atoms");
    } else { /* merge: planes in, feature cube out */
        rd->what = "input planes";
        snprintf(rd->why_not, sizeof rd->why_not,
                 "planar input is read in reorder-buffer chunks of whole atoms");
        aie_shape(wr, w, h, c_in);
        wr->n_parts = 1;
        aie_cube_part(&wr->part[0], dst, w, h, aie_surfaces(c_in, atom, bpe), dst_line, dst_surf,
                      atom);
    }
}

/* ---------------------------------------------------------------- BDMA */

static inline void aie_bdma_streams(const struct aie_bdma_op *ops, unsigned n_ops,
                                    struct aie_stream *s, unsigned *n)
{
    struct aie_stream *rd = aie_new_stream(s, n, "bdma.rd", false, "source", 0);
    struct aie_stream *wr = aie_new_stream(s, n, "bdma.wr", true, "destination", 0);
    uint64_t total = 0;
    for (unsigned i = 0; i < n_ops && i < AIE_MAX_PARTS; i++) {
        const struct aie_bdma_op *o = &ops[i];
        struct aie_access *a = &rd->part[rd->n_parts++];
        *a = (struct aie_access){.base = o->src, .run_bytes = o->line_bytes, .n_loops = 2};
        a->loop[0].count = o->line_repeat;
        a->loop[0].stride = (int64_t)o->src_line;
        a->loop[1].count = o->surf_repeat;
        a->loop[1].stride = (int64_t)o->src_surf;
        a = &wr->part[wr->n_parts++];
        *a = (struct aie_access){.base = o->dst, .run_bytes = o->line_bytes, .n_loops = 2};
        a->loop[0].count = o->line_repeat;
        a->loop[0].stride = (int64_t)o->dst_line;
        a->loop[1].count = o->surf_repeat;
        a->loop[1].stride = (int64_t)o->dst_surf;
        total += o->line_bytes * o->line_repeat * o->surf_repeat;
    }
    snprintf(rd->shape, sizeof rd->shape, "%u operation%s, %llu bytes", n_ops,
             n_ops == 1 ? "" : "s", (unsigned long long)total);
    memcpy(wr->shape, rd->shape, sizeof wr->shape);
    if (!n_ops)
        snprintf(rd->why_not, sizeof rd->why_not, "the event ring holds no CFG_OP of this layer");
    if (!n_ops)
        memcpy(wr->why_not, rd->why_not, sizeof wr->why_not);
}

/* The streams of layer (unit "SDP" ...); BDMA's come from its operations. */
static inline unsigned aie_layer_streams(struct aie_regs *r, const char *unit, unsigned atom,
                                         const struct aie_bdma_op *ops, unsigned n_ops,
                                         struct aie_stream *s)
{
    unsigned n = 0;
    if (!strcmp(unit, "SDP"))
        aie_sdp_streams(r, atom, s, &n);
    else if (!strcmp(unit, "PDP"))
        aie_pdp_streams(r, atom, s, &n);
    else if (!strcmp(unit, "CDP"))
        aie_cdp_streams(r, atom, s, &n);
    else if (!strcmp(unit, "CONV"))
        aie_conv_streams(r, atom, s, &n);
    else if (!strcmp(unit, "RUBIK"))
        aie_rubik_streams(r, atom, s, &n);
    else if (!strcmp(unit, "BDMA"))
        aie_bdma_streams(ops, n_ops, s, &n);
    return n;
}

#endif
