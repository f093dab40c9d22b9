/* A hardware layer's input and output surfaces from its registers
 * (layer_surface.h). */
#include "layer_surface.h"

#include <stdio.h>
#include <string.h>

#include "reg_history.h"

/* ---------------------------------------------------------------- registers */

void layer_regs_live(struct layer_regs *r, struct dla *d, int group)
{
    memset(r, 0, sizeof *r);
    r->dla = d;
    r->group = (uint8_t)(group & 1);
}

bool layer_regs_of_layer(struct layer_regs *r, struct dla *d, struct reg_history *h, uint32_t layer,
                         char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->dla = d;
    const struct dla_layer *l = dla_layer_get(d, layer);
    if (!l) {
        snprintf(err, errlen, "no hardware layer %u (the run has %zu so far)", layer,
                 dla_layer_count(d));
        return false;
    }
    if (l->group > 1) {
        snprintf(err, errlen, "layer %u (BDMA) has not been launched yet: it has no group", layer);
        return false;
    }
    r->group = l->group;
    if (l->state == DLA_LAYER_PROGRAMMING || l->state == DLA_LAYER_ENABLED)
        return true; /* not started: its group holds what it will run with */
    size_t at;
    if (!h || !reg_history_layer_start(h, layer, &at)) {
        snprintf(err, errlen,
                 "layer %u started before the oldest record of the event ring: its programming "
                 "is no longer known",
                 layer);
        return false;
    }
    r->history = h;
    r->at = at;
    return true;
}

uint32_t layer_reg(struct layer_regs *r, const char *unit, const char *reg, const char *field)
{
    const struct regdb_unit *ru = regdb_unit_named(dla_regmap(r->dla), unit);
    const struct regdb_reg *rr = ru ? regdb_reg_named(ru, reg) : NULL;
    const struct regdb_field *rf = rr && field ? regdb_field_named(rr, field) : NULL;
    if (!rr || (field && !rf)) {
        if (!r->missing[0])
            snprintf(r->missing, sizeof r->missing, "%s.%s%s%s", unit, reg, field ? "." : "",
                     field ? field : "");
        return 0;
    }
    int group = rr->dual ? r->group : 0;
    uint32_t v = dla_reg_value(r->dla, dla_unit_of(r->dla, ru), group, rr->offset);
    if (r->history)
        v = reg_history_value_at(r->history, r->at, regdb_addr(ru, rr),
                                 rr->dual ? (uint8_t)group : 0xff, v);
    return rf ? regdb_field_get(rf, v) : v;
}

/* A size field: the register holds the value minus one. */
static uint32_t reg1(struct layer_regs *r, const char *unit, const char *reg, const char *field)
{
    return layer_reg(r, unit, reg, field) + 1;
}

static uint64_t addr64(struct layer_regs *r, const char *unit, const char *high, const char *low)
{
    return (uint64_t)layer_reg(r, unit, high, NULL) << 32 | layer_reg(r, unit, low, NULL);
}

/* RAM_TYPE 1: DRAM (MC); 0: CV-SRAM, or DRAM where there is none (the model
 * does the same after a diagnostic). */
static uint8_t ram_space(struct layer_regs *r, uint32_t ram_type)
{
    return ram_type == 0 && dla_cfg(r->dla)->cvsram ? DLA_CVSRAM : DLA_DRAM;
}

static uint8_t prec_elem(uint32_t prec)
{
    return prec == 0 ? TENSOR_INT8 : prec == 1 ? TENSOR_INT16 : TENSOR_FP16;
}

/* A feature cube of NVDLA atoms. */
static void feature(struct layer_regs *r, struct tensor_info *t, uint8_t space, uint64_t addr,
                    uint32_t w, uint32_t h, uint32_t c, uint32_t prec, uint64_t line, uint64_t surf)
{
    t->space = space;
    t->addr = addr;
    t->n = 1;
    t->c = c;
    t->h = h;
    t->w = w;
    t->elem = prec_elem(prec);
    t->pitch = false;
    t->elem_stride = dla_cfg(r->dla)->mem_atom;
    t->line_stride = line;
    t->surf_stride = surf;
}

/* Bytes the surface spans, for t->size. */
static void set_size(struct tensor_info *t)
{
    unsigned bpe = t->elem == TENSOR_INT16 || t->elem == TENSOR_FP16 ? 2 : 1;
    uint64_t per = t->pitch ? t->c : t->elem_stride / bpe;
    if (!per)
        per = 1;
    uint64_t groups = t->pitch ? 1 : (t->c + per - 1) / per;
    uint64_t last_group = t->pitch ? (uint64_t)t->c * bpe : t->elem_stride;
    t->size = (t->n - 1) * t->batch_stride + (groups - 1) * t->surf_stride +
              (uint64_t)(t->h - 1) * t->line_stride + (uint64_t)(t->w - 1) * t->elem_stride +
              last_group;
}

/* ---------------------------------------------------------------- units */

static bool sdp_surface(struct layer_regs *r, enum layer_side side, struct tensor_info *t,
                        char *why, size_t len)
{
    if (side == LAYER_OUT) {
        if (layer_reg(r, "SDP", "D_FEATURE_MODE_CFG", "OUTPUT_DST") == 1) {
            snprintf(why, len, "SDP's output goes to PDP on the fly; it never reaches memory");
            return false;
        }
        feature(r, t, ram_space(r, layer_reg(r, "SDP", "D_DST_DMA_CFG", "DST_RAM_TYPE")),
                addr64(r, "SDP", "D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW"),
                reg1(r, "SDP", "D_DATA_CUBE_WIDTH", "WIDTH"),
                reg1(r, "SDP", "D_DATA_CUBE_HEIGHT", "HEIGHT"),
                reg1(r, "SDP", "D_DATA_CUBE_CHANNEL", "CHANNEL"),
                layer_reg(r, "SDP", "D_DATA_FORMAT", "OUT_PRECISION"),
                layer_reg(r, "SDP", "D_DST_LINE_STRIDE", NULL),
                layer_reg(r, "SDP", "D_DST_SURFACE_STRIDE", NULL));
        t->n = reg1(r, "SDP", "D_FEATURE_MODE_CFG", "BATCH_NUMBER");
        if (t->n > 1)
            t->batch_stride = layer_reg(r, "SDP", "D_DST_BATCH_STRIDE", NULL);
        return true;
    }
    if (layer_reg(r, "SDP", "D_FEATURE_MODE_CFG", "FLYING_MODE") == 1) {
        snprintf(why, len, "SDP takes its input on the fly from CONV; it is not read from memory");
        return false;
    }
    feature(r, t, ram_space(r, layer_reg(r, "SDP_RDMA", "D_SRC_DMA_CFG", "SRC_RAM_TYPE")),
            addr64(r, "SDP_RDMA", "D_SRC_BASE_ADDR_HIGH", "D_SRC_BASE_ADDR_LOW"),
            reg1(r, "SDP_RDMA", "D_DATA_CUBE_WIDTH", "WIDTH"),
            reg1(r, "SDP_RDMA", "D_DATA_CUBE_HEIGHT", "HEIGHT"),
            reg1(r, "SDP_RDMA", "D_DATA_CUBE_CHANNEL", "CHANNEL"),
            layer_reg(r, "SDP_RDMA", "D_FEATURE_MODE_CFG", "IN_PRECISION"),
            layer_reg(r, "SDP_RDMA", "D_SRC_LINE_STRIDE", NULL),
            layer_reg(r, "SDP_RDMA", "D_SRC_SURFACE_STRIDE", NULL));
    return true;
}

static bool pdp_surface(struct layer_regs *r, enum layer_side side, struct tensor_info *t,
                        char *why, size_t len)
{
    uint32_t prec = layer_reg(r, "PDP", "D_DATA_FORMAT", "INPUT_DATA");
    if (side == LAYER_OUT) {
        feature(r, t, ram_space(r, layer_reg(r, "PDP", "D_DST_RAM_CFG", "DST_RAM_TYPE")),
                addr64(r, "PDP", "D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW"),
                reg1(r, "PDP", "D_DATA_CUBE_OUT_WIDTH", "CUBE_OUT_WIDTH"),
                reg1(r, "PDP", "D_DATA_CUBE_OUT_HEIGHT", "CUBE_OUT_HEIGHT"),
                reg1(r, "PDP", "D_DATA_CUBE_OUT_CHANNEL", "CUBE_OUT_CHANNEL"), prec,
                layer_reg(r, "PDP", "D_DST_LINE_STRIDE", NULL),
                layer_reg(r, "PDP", "D_DST_SURFACE_STRIDE", NULL));
        return true;
    }
    if (layer_reg(r, "PDP", "D_OPERATION_MODE_CFG", "FLYING_MODE") == 0) {
        snprintf(why, len, "PDP takes its input on the fly from SDP; it is not read from memory");
        return false;
    }
    feature(r, t, ram_space(r, layer_reg(r, "PDP_RDMA", "D_SRC_RAM_CFG", "SRC_RAM_TYPE")),
            addr64(r, "PDP_RDMA", "D_SRC_BASE_ADDR_HIGH", "D_SRC_BASE_ADDR_LOW"),
            reg1(r, "PDP_RDMA", "D_DATA_CUBE_IN_WIDTH", "CUBE_IN_WIDTH"),
            reg1(r, "PDP_RDMA", "D_DATA_CUBE_IN_HEIGHT", "CUBE_IN_HEIGHT"),
            reg1(r, "PDP_RDMA", "D_DATA_CUBE_IN_CHANNEL", "CUBE_IN_CHANNEL"),
            layer_reg(r, "PDP_RDMA", "D_DATA_FORMAT", "INPUT_DATA"),
            layer_reg(r, "PDP_RDMA", "D_SRC_LINE_STRIDE", NULL),
            layer_reg(r, "PDP_RDMA", "D_SRC_SURFACE_STRIDE", NULL));
    return true;
}

static bool cdp_surface(struct layer_regs *r, enum layer_side side, struct tensor_info *t)
{
    uint32_t w = reg1(r, "CDP_RDMA", "D_DATA_CUBE_WIDTH", "WIDTH");
    uint32_t h = reg1(r, "CDP_RDMA", "D_DATA_CUBE_HEIGHT", "HEIGHT");
    uint32_t c = reg1(r, "CDP_RDMA", "D_DATA_CUBE_CHANNEL", "CHANNEL");
    uint32_t prec = layer_reg(r, "CDP_RDMA", "D_DATA_FORMAT", "INPUT_DATA");
    if (side == LAYER_OUT)
        feature(r, t, ram_space(r, layer_reg(r, "CDP", "D_DST_DMA_CFG", "DST_RAM_TYPE")),
                addr64(r, "CDP", "D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW"), w, h, c,
                layer_reg(r, "CDP", "D_DATA_FORMAT", "INPUT_DATA_TYPE"),
                layer_reg(r, "CDP", "D_DST_LINE_STRIDE", NULL),
                layer_reg(r, "CDP", "D_DST_SURFACE_STRIDE", NULL));
    else
        feature(r, t, ram_space(r, layer_reg(r, "CDP_RDMA", "D_SRC_DMA_CFG", "SRC_RAM_TYPE")),
                addr64(r, "CDP_RDMA", "D_SRC_BASE_ADDR_HIGH", "D_SRC_BASE_ADDR_LOW"), w, h, c, prec,
                layer_reg(r, "CDP_RDMA", "D_SRC_LINE_STRIDE", NULL),
                layer_reg(r, "CDP_RDMA", "D_SRC_SURFACE_STRIDE", NULL));
    return true;
}

/* RUBIK's modes (sim/rubik/rubik.c): contract, split, merge. */
static bool rubik_surface(struct layer_regs *r, enum layer_side side, struct tensor_info *t,
                          char *why, size_t len)
{
    uint32_t mode = layer_reg(r, "RBK", "D_MISC_CFG", "RUBIK_MODE");
    uint32_t prec = layer_reg(r, "RBK", "D_MISC_CFG", "IN_PRECISION");
    uint32_t w = reg1(r, "RBK", "D_DATAIN_SIZE_0", "DATAIN_WIDTH");
    uint32_t h = reg1(r, "RBK", "D_DATAIN_SIZE_0", "DATAIN_HEIGHT");
    uint32_t c_in = reg1(r, "RBK", "D_DATAIN_SIZE_1", "DATAIN_CHANNEL");
    uint32_t c_out = reg1(r, "RBK", "D_DATAOUT_SIZE_1", "DATAOUT_CHANNEL");
    if (mode > 2) {
        snprintf(why, len, "RUBIK_MODE 3 is reserved: the layer moves nothing");
        return false;
    }
    bool out = side == LAYER_OUT;
    const char *u = "RBK";
    uint8_t space = ram_space(r, out ? layer_reg(r, u, "D_DAOUT_RAM_TYPE", "DATAOUT_RAM_TYPE")
                                     : layer_reg(r, u, "D_DAIN_RAM_TYPE", "DATAIN_RAM_TYPE"));
    uint64_t base = out ? addr64(r, u, "D_DAOUT_ADDR_HIGH", "D_DAOUT_ADDR_LOW")
                        : addr64(r, u, "D_DAIN_ADDR_HIGH", "D_DAIN_ADDR_LOW");
    uint64_t line = layer_reg(r, u, out ? "D_DAOUT_LINE_STRIDE" : "D_DAIN_LINE_STRIDE", NULL);
    uint64_t surf = layer_reg(r, u, out ? "D_DAOUT_SURF_STRIDE" : "D_DAIN_SURF_STRIDE", NULL);
    uint64_t planar = layer_reg(r, u, out ? "D_DAOUT_PLANAR_STRIDE" : "D_DAIN_PLANAR_STRIDE", NULL);
    bool planar_side = (mode == 1 && out) || (mode == 2 && !out);
    if (planar_side) {
        /* one plane per channel: element x of line y of plane c */
        feature(r, t, space, base, w, h, out ? c_out : c_in, prec, line, planar);
        t->elem_stride = prec == 0 ? 1 : 2;
        return true;
    }
    if (mode == 0 && out) {
        uint32_t sx = reg1(r, u, "D_DECONV_STRIDE", "DECONV_X_STRIDE");
        uint32_t sy = reg1(r, u, "D_DECONV_STRIDE", "DECONV_Y_STRIDE");
        uint64_t super_line = layer_reg(r, u, "D_CONTRACT_STRIDE_1", NULL);
        if (super_line != (uint64_t)sy * line) {
            snprintf(why, len,
                     "RUBIK contract writes super-lines %llu bytes apart, not %u lines of %llu: "
                     "its output is no evenly strided cube",
                     (unsigned long long)super_line, sy, (unsigned long long)line);
            return false;
        }
        feature(r, t, space, base, w * sx, h * sy, c_out, prec, line, surf);
        return true;
    }
    feature(r, t, space, base, w, h, mode == 0 ? c_in : out ? c_out : c_in, prec, line, surf);
    return true;
}

/* The last BDMA transfer staged, as bytes. */
static bool bdma_surface(struct layer_regs *r, enum layer_side side, struct tensor_info *t)
{
    bool out = side == LAYER_OUT;
    const char *u = "BDMA";
    t->space = ram_space(r, layer_reg(r, u, "CFG_CMD", out ? "DST_RAM_TYPE" : "SRC_RAM_TYPE"));
    t->addr = out ? addr64(r, u, "CFG_DST_ADDR_HIGH", "CFG_DST_ADDR_LOW")
                  : addr64(r, u, "CFG_SRC_ADDR_HIGH", "CFG_SRC_ADDR_LOW");
    t->n = 1;
    t->w = reg1(r, u, "CFG_LINE", "SIZE") * 32u;
    t->h = reg1(r, u, "CFG_LINE_REPEAT", "NUMBER");
    t->c = reg1(r, u, "CFG_SURF_REPEAT", "NUMBER");
    t->elem = TENSOR_UINT8;
    t->pitch = false;
    t->elem_stride = 1; /* one byte per "channel group": c counts surfaces */
    t->line_stride = layer_reg(r, u, out ? "CFG_DST_LINE" : "CFG_SRC_LINE", NULL);
    t->surf_stride = layer_reg(r, u, out ? "CFG_DST_SURF" : "CFG_SRC_SURF", NULL);
    return true;
}

/* Pixel formats CDMA reads as rows of whole pixels: components per pixel
 * and bytes per component (0: packed 10-bit or planar YUV, not a tensor). */
static void pixel_format(uint32_t fmt, unsigned *comps, unsigned *bytes, bool *fp)
{
    *fp = fmt == 5 || fmt == 8 || fmt == 11; /* R16_F, A16B16G16R16_F, A16Y16U16V16_F */
    if (fmt == 0) {
        *comps = 1, *bytes = 1;
    } else if (fmt <= 5) {
        *comps = 1, *bytes = 2;
    } else if (fmt <= 11) {
        *comps = 4, *bytes = 2;
    } else if (fmt <= 19 || fmt == 26 || fmt == 27) {
        *comps = 4, *bytes = 1;
    } else {
        *comps = 0, *bytes = 0;
    }
}

static bool conv_surface(struct layer_regs *r, enum layer_side side, struct tensor_info *t,
                         char *why, size_t len)
{
    if (side == LAYER_OUT) {
        snprintf(why, len,
                 "CONV's output goes to SDP on the fly (CACC -> SDP); it never reaches memory");
        return false;
    }
    const char *u = "CDMA";
    uint64_t base = addr64(r, u, "D_DAIN_ADDR_HIGH_0", "D_DAIN_ADDR_LOW_0");
    unsigned bits = dla_cfg(r->dla)->addr_bits;
    if (bits < 64)
        base &= (1ull << bits) - 1;
    uint32_t prec = layer_reg(r, u, "D_MISC_CFG", "IN_PRECISION");
    feature(r, t, ram_space(r, layer_reg(r, u, "D_DAIN_RAM_TYPE", "DATAIN_RAM_TYPE")), base,
            reg1(r, u, "D_DATAIN_SIZE_0", "DATAIN_WIDTH"),
            reg1(r, u, "D_DATAIN_SIZE_0", "DATAIN_HEIGHT"),
            reg1(r, u, "D_DATAIN_SIZE_1", "DATAIN_CHANNEL"), prec,
            layer_reg(r, u, "D_LINE_STRIDE", NULL), layer_reg(r, u, "D_SURF_STRIDE", NULL));
    if (layer_reg(r, u, "D_DATAIN_FORMAT", "DATAIN_FORMAT") == 0) {
        t->n = reg1(r, u, "D_BATCH_NUMBER", "BATCHES");
        if (t->n > 1)
            t->batch_stride = layer_reg(r, u, "D_BATCH_STRIDE", NULL);
        return true;
    }
    /* an image: pitch-linear rows of pixels */
    uint32_t fmt = layer_reg(r, u, "D_DATAIN_FORMAT", "PIXEL_FORMAT");
    unsigned comps, bytes;
    bool fp;
    pixel_format(fmt, &comps, &bytes, &fp);
    if (!comps) {
        snprintf(why, len,
                 "CONV reads an image of pixel format %u (packed 10-bit or planar YUV): not a "
                 "tensor of whole pixels",
                 fmt);
        memset(t, 0, sizeof *t);
        return false;
    }
    if (t->c > comps) {
        snprintf(why, len,
                 "CONV reads %u channels from pixels of %u components (pixel format %u): the "
                 "programming is inconsistent",
                 t->c, comps, fmt);
        memset(t, 0, sizeof *t);
        return false;
    }
    t->pitch = true;
    t->elem_stride = (uint64_t)comps * bytes;
    t->addr += (uint64_t)layer_reg(r, u, "D_PIXEL_OFFSET", "PIXEL_X_OFFSET") * t->elem_stride;
    t->surf_stride = 0;
    bool sign = layer_reg(r, u, "D_DATAIN_FORMAT", "PIXEL_SIGN_OVERRIDE") != 0;
    t->elem = bytes == 1 ? (sign ? TENSOR_INT8 : TENSOR_UINT8) : fp ? TENSOR_FP16 : TENSOR_INT16;
    return true;
}

bool layer_surface(struct layer_regs *r, enum dla_proc proc, enum layer_side side,
                   struct tensor_info *t, char *why, size_t whylen)
{
    memset(t, 0, sizeof *t);
    t->id = -1;
    r->missing[0] = 0;
    bool ok;
    switch (proc) {
    case DLA_P_SDP:
        ok = sdp_surface(r, side, t, why, whylen);
        break;
    case DLA_P_PDP:
        ok = pdp_surface(r, side, t, why, whylen);
        break;
    case DLA_P_CDP:
        ok = cdp_surface(r, side, t);
        break;
    case DLA_P_RUBIK:
        ok = rubik_surface(r, side, t, why, whylen);
        break;
    case DLA_P_BDMA:
        ok = bdma_surface(r, side, t);
        break;
    case DLA_P_CONV:
        ok = conv_surface(r, side, t, why, whylen);
        break;
    default:
        snprintf(why, whylen, "processor %d has no surfaces", (int)proc);
        ok = false;
        break;
    }
    if (ok && r->missing[0]) {
        snprintf(why, whylen, "the %s register map has no %s", dla_regmap(r->dla)->name,
                 r->missing);
        ok = false;
    }
    if (!ok) {
        memset(t, 0, sizeof *t);
        t->id = -1;
        return false;
    }
    set_size(t);
    return true;
}

bool layer_surface_live(struct dla *d, enum dla_proc proc, int group, enum layer_side side,
                        struct tensor_info *t, char *why, size_t whylen)
{
    struct layer_regs r;
    layer_regs_live(&r, d, group);
    return layer_surface(&r, proc, side, t, why, whylen);
}

/* The layer fed on the fly by `layer`, or -1. */
static long fed_layer(const struct dla *d, uint32_t layer)
{
    for (size_t i = layer + 1; i < dla_layer_count(d); i++)
        if (dla_layer_get(d, i)->fed_by == (int32_t)layer)
            return (long)i;
    return -1;
}

bool layer_surface_of_layer(struct dla *d, struct reg_history *h, uint32_t layer,
                            enum layer_side side, struct tensor_info *t, char *why, size_t whylen)
{
    memset(t, 0, sizeof *t);
    t->id = -1;
    struct layer_regs r;
    if (!layer_regs_of_layer(&r, d, h, layer, why, whylen))
        return false;
    const struct dla_layer *l = dla_layer_get(d, layer);
    if (!layer_surface(&r, (enum dla_proc)l->proc, side, t, why, whylen)) {
        long next = side == LAYER_OUT ? fed_layer(d, layer) : -1;
        if (next >= 0) {
            size_t n = strlen(why);
            snprintf(why + n, whylen - n, " (layer %ld's input; see its output)", next);
        } else if (side == LAYER_IN && l->fed_by >= 0) {
            size_t n = strlen(why);
            snprintf(why + n, whylen - n, " (layer %d's output)", l->fed_by);
        }
        return false;
    }
    snprintf(t->name, sizeof t->name, "layer %u %s", layer, side == LAYER_OUT ? "output" : "input");
    return true;
}
