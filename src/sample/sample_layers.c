/* Layers of any size for the sample networks (sample_net_priv.h): int8 or
 * fp16 features, convolutions split into bands of output rows when their
 * input does not fit the convolution buffer, SDP after each band (ReLU,
 * element-wise sum), pooling.  Every op joins one serial chain: it waits for
 * the op added before it and for the previous op of its own type (the
 * firmware walks each type's ops in that order). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num/fp16.h"
#include "loadable/loadable.h"
#include "sample_net_priv.h"

#define BANK_ENTRIES    (BANK_BYTES / ENTRY_BYTES)
#define MIN_WEIGHT_BANK 5u /* room for a kernel group of 3x3x512 weights */

static unsigned bpe_of(uint8_t prec)
{
    return prec == FW_PREC_INT8 ? 1u : 2u;
}

static uint8_t prec_of(const struct net *n, int16_t index)
{
    return n->surf[index - A_DATA].prec;
}

/* fp16 bits of a value drawn uniformly from [-a, a). */
static uint16_t random_half(struct net *n, float a)
{
    float u = (float)(next_random(n) & 0xffffu) / 65536.0f;
    return fp16_from_float((2.0f * u - 1.0f) * a);
}

int16_t layer_feature(struct net *n, const char *name, uint16_t c, uint16_t h, uint16_t w,
                      uint8_t prec)
{
    unsigned per_atom = ATOM / bpe_of(prec);
    int16_t index = add_raw(n, name, 0, 0, 0);
    struct surface *s = &n->surf[index - A_DATA];
    free(s->data);
    s->data = NULL;
    s->c = c;
    s->h = h;
    s->w = w;
    s->bpe = (uint8_t)bpe_of(prec);
    s->prec = prec;
    s->size = (uint64_t)((c + per_atom - 1) / per_atom) * h * w * ATOM;
    s->flags = LD_MEM_ALLOC;
    return index;
}

int16_t layer_input(struct net *n, uint16_t c, uint16_t h, uint16_t w, uint8_t prec)
{
    int16_t index = layer_feature(n, "input", c, h, w, prec);
    struct surface *s = &n->surf[index - A_DATA];
    s->data = calloc(s->size ? s->size : 1, 1);
    unsigned per_atom = ATOM / s->bpe;
    for (uint32_t ch = 0; s->data && ch < c; ch++)
        for (uint64_t p = 0; p < (uint64_t)h * w; p++) {
            uint64_t off = ((uint64_t)(ch / per_atom) * h * w + p) * ATOM + ch % per_atom * s->bpe;
            if (s->bpe == 2) {
                uint16_t v = prec == FW_PREC_FP16 ? random_half(n, 1.0f)
                                                  : (uint16_t)((next_random(n) % 8192u) - 4096u);
                s->data[off] = (uint8_t)v;
                s->data[off + 1] = (uint8_t)(v >> 8);
            } else {
                s->data[off] = (uint8_t)(int8_t)((int)(next_random(n) % 128u) - 64);
            }
        }
    s->flags |= LD_MEM_SET;
    n->input = index - A_DATA;
    return index;
}

/* The weights of kernels x k x k x c: He-uniform fp16 or int8 in [-8, 8]. */
static int16_t weights(struct net *n, uint8_t prec, uint32_t kernels, uint8_t k, uint16_t c)
{
    uint64_t count = (uint64_t)kernels * k * k * c, bytes = count * bpe_of(prec);
    char name[32];
    snprintf(name, sizeof name, "weights%u", n->n_ops);
    if (prec != FW_PREC_FP16)
        return add_raw(n, name, (bytes + 127u) & ~127ull, -8, 8);
    int16_t index = add_raw(n, name, (bytes + 127u) & ~127ull, 0, 0);
    uint8_t *d = n->surf[index - A_DATA].data;
    float a = sqrtf(6.0f / (float)((uint32_t)k * k * c));
    for (uint64_t i = 0; d && i < count; i++) {
        uint16_t v = random_half(n, a);
        d[2 * i] = (uint8_t)v;
        d[2 * i + 1] = (uint8_t)(v >> 8);
    }
    return index;
}

/* Wait for the op added before and for the previous op of this type. */
static void chain(struct net *n, int op, bool fused)
{
    uint8_t type = n->ops[op].type;
    int prev = n->last_op, same = n->last_of_type[type];
    if (same >= 0)
        depend(n, same, op, FW_EV_OP_COMPLETED);
    if (prev >= 0 && prev != same && !fused)
        depend(n, prev, op, FW_EV_OP_COMPLETED);
    n->last_op = op;
    n->last_of_type[type] = op;
}

/* A cube of feature `index` restricted to rows [y0, y0 + rows). */
static struct fw_cube rows_of(const struct net *n, int16_t index, uint16_t y0, uint16_t rows)
{
    struct fw_cube c = cube_of(n, index);
    c.offset = (uint32_t)y0 * c.line_stride;
    c.height = rows;
    return c;
}

struct band {
    uint16_t oy0, oh;        /* output rows */
    uint16_t iy0, ih;        /* input rows fetched */
    uint8_t pad_top, pad_bot; /* padding rows inside the band */
};

static struct band band_rows(uint16_t in_h, uint8_t k, uint8_t stride, uint8_t pad, uint16_t oy0,
                             uint16_t oh)
{
    int first = (int)oy0 * stride - pad, last = (int)(oy0 + oh - 1) * stride - pad + k - 1;
    struct band b = {.oy0 = oy0, .oh = oh};
    b.pad_top = (uint8_t)(first < 0 ? -first : 0);
    b.pad_bot = (uint8_t)(last >= in_h ? last - in_h + 1 : 0);
    b.iy0 = (uint16_t)(first < 0 ? 0 : first);
    b.ih = (uint16_t)((last >= in_h ? in_h - 1 : last) - b.iy0 + 1);
    return b;
}

static int band_conv(struct net *n, int16_t in, int16_t wt, uint16_t kernels, uint8_t k,
                     uint8_t stride, uint8_t pad, const struct band *b, uint16_t ow)
{
    const struct surface *s = &n->surf[in - A_DATA];
    uint8_t prec = prec_of(n, in);
    const struct surface *ws = &n->surf[wt - A_DATA];
    unsigned per_atom = ATOM / s->bpe;
    int i = add_op(n, FW_OP_CONV);
    struct fw_conv_op *o = &n->ops[i].u.conv.op;
    struct fw_conv_surface *cs = &n->ops[i].u.conv.surface;
    o->data_format = 36; /* feature */
    o->batch = 1;
    o->in_precision = o->out_precision = prec;
    o->input_width_csc = s->w;
    o->input_height_csc = b->ih;
    o->input_channel_csc = s->c;
    o->kernel_width_csc = o->kernel_height_csc = k;
    o->kernel_channel_csc = s->c;
    o->input_width_cmac = ow;
    o->input_height_cmac = b->oh;
    o->bytes_per_kernel = (uint32_t)k * k * s->c * s->bpe;
    o->entry_per_slice = ceil_div((uint32_t)s->w * ceil_div(s->c, per_atom) * ATOM, ENTRY_BYTES);
    o->data_bank = (uint8_t)ceil_div((uint32_t)o->entry_per_slice * b->ih, BANK_ENTRIES);
    uint32_t wbanks = ceil_div((uint32_t)(ws->size > 0xffffffffu ? 0xffffffffu : ws->size),
                               BANK_BYTES);
    o->weight_bank = (uint8_t)(wbanks < CBUF_BANKS - o->data_bank ? wbanks
                                                                  : CBUF_BANKS - o->data_bank);
    o->fetch_grain = 1;
    o->release = b->ih;
    o->conv_stride_x = o->conv_stride_y = stride;
    o->pad_x_left = o->pad_x_right = pad;
    o->pad_y_top = b->pad_top;
    o->pad_y_bottom = b->pad_bot;
    o->dilation_x = o->dilation_y = 1;
    o->out_cvt.scale = 1;
    cs->weight = cube_of(n, wt);
    cs->weight.width = cs->weight.height = k;
    cs->weight.channel = s->c;
    cs->wmb.address = cs->wgs.address = -1;
    cs->wmb.type = cs->wgs.type = FW_MEM_HW;
    cs->src = rows_of(n, in, b->iy0, b->ih);
    cs->dst = flying(kernels, b->oh, ow);
    chain(n, i, false);
    return i;
}

/* An SDP op of precision prec: X1 with ReLU when relu and, when sum, the
 * per-point sum with a memory operand (whose cube the caller sets). */
static int sdp_op(struct net *n, uint8_t prec, bool relu, bool sum)
{
    int i = add_op(n, FW_OP_SDP);
    struct fw_sdp_op *o = &n->ops[i].u.sdp.op;
    struct fw_sdp_surface *s = &n->ops[i].u.sdp.surface;
    o->src_precision = o->dst_precision = prec;
    o->lut_index = -1;
    o->batch_num = 1;
    o->out_cvt.scale = 1;
    o->x1 = (struct fw_sdp_stage){.enable = 1,
                                  .type = FW_SDP_NONE,
                                  .act = relu ? FW_ACT_RELU : FW_ACT_NONE,
                                  .mode = FW_SDP_PER_LAYER,
                                  .precision = prec};
    if (sum) {
        o->x1.type = FW_SDP_ADD;
        o->x1.alu_type = 2; /* sum */
        o->x1.mode = FW_SDP_PER_POINT;
        o->x1.alu_cvt.scale = 1;
        o->x1.alu_cvt.enable = prec != FW_PREC_FP16;
    }
    o->x2.mode = o->y.mode = FW_SDP_PER_LAYER;
    s->x1.address = s->x2.address = s->y.address = -1;
    return i;
}

static void band_sdp(struct net *n, int conv, int16_t out, int16_t residual, const struct band *b,
                     bool relu, uint8_t shift)
{
    uint8_t prec = prec_of(n, out);
    int i = sdp_op(n, prec, relu, residual >= 0);
    struct fw_sdp_surface *s = &n->ops[i].u.sdp.surface;
    n->ops[i].u.sdp.op.out_cvt.truncate = prec == FW_PREC_FP16 ? 0 : shift;
    if (residual >= 0)
        s->x1 = rows_of(n, residual, b->oy0, b->oh);
    s->src = n->ops[conv].u.conv.surface.dst;
    s->dst = rows_of(n, out, b->oy0, b->oh);
    fuse(n, conv, i);
    chain(n, i, true);
}

/* Output rows per band: as many as fit the data banks left beside the
 * weights' minimum. */
static uint16_t rows_per_band(const struct surface *s, uint8_t k, uint8_t stride, uint16_t oh)
{
    unsigned per_atom = ATOM / s->bpe;
    uint32_t eps = ceil_div((uint32_t)s->w * ceil_div(s->c, per_atom) * ATOM, ENTRY_BYTES);
    uint32_t max_rows = (CBUF_BANKS - MIN_WEIGHT_BANK) * BANK_ENTRIES / eps;
    uint32_t rows = max_rows >= k ? (max_rows - k) / stride + 1 : 1;
    return (uint16_t)(rows < oh ? rows : oh);
}

int16_t layer_conv(struct net *n, int16_t in, uint16_t kernels, uint8_t k, uint8_t stride,
                   uint8_t pad, bool relu, int16_t residual, uint8_t shift)
{
    const struct surface *s = &n->surf[in - A_DATA];
    uint16_t in_h = s->h, in_w = s->w, c = s->c;
    uint16_t oh = (uint16_t)((in_h + 2 * pad - k) / stride + 1);
    uint16_t ow = (uint16_t)((in_w + 2 * pad - k) / stride + 1);
    uint8_t prec = prec_of(n, in);
    char name[32];
    snprintf(name, sizeof name, "conv%u", n->n_ops);
    int16_t out = layer_feature(n, name, kernels, oh, ow, prec);
    int16_t wt = weights(n, prec, kernels, k, c);
    uint16_t step = rows_per_band(&n->surf[in - A_DATA], k, stride, oh);
    for (uint16_t oy = 0; oy < oh; oy = (uint16_t)(oy + step)) {
        uint16_t rows = (uint16_t)(oh - oy < step ? oh - oy : step);
        struct band b = band_rows(in_h, k, stride, pad, oy, rows);
        int conv = band_conv(n, in, wt, kernels, k, stride, pad, &b, ow);
        band_sdp(n, conv, out, residual, &b, relu, shift);
    }
    return out;
}

int16_t layer_pool(struct net *n, int16_t in, uint8_t k, uint8_t stride, uint8_t pad, bool max)
{
    const struct surface *s = &n->surf[in - A_DATA];
    uint16_t oh = (uint16_t)((s->h + 2 * pad - k) / stride + 1);
    uint16_t ow = (uint16_t)((s->w + 2 * pad - k) / stride + 1);
    uint8_t prec = prec_of(n, in);
    char name[32];
    snprintf(name, sizeof name, "pool%u", n->n_ops);
    int16_t out = layer_feature(n, name, s->c, oh, ow, prec);
    int i = add_op(n, FW_OP_PDP);
    struct fw_pdp_op *o = &n->ops[i].u.pdp.op;
    struct fw_pdp_surface *ps = &n->ops[i].u.pdp.surface;
    ps->src = cube_of(n, in);
    ps->dst = cube_of(n, out);
    o->split_num = 1;
    o->pool_mode = max ? 1 : 0;
    o->pool_width = o->pool_height = (uint8_t)(k - 1);
    o->stride_x = o->stride_y = stride;
    /* the right and bottom padding the outputs actually cover */
    o->pad_left = o->pad_top = pad;
    o->pad_right = (uint8_t)((ow - 1) * stride + k - s->w - pad);
    o->pad_bottom = (uint8_t)((oh - 1) * stride + k - s->h - pad);
    o->precision = prec;
    o->partial_in_width_first = ps->src.width;
    o->partial_width_first = ps->dst.width;
    chain(n, i, false);
    return out;
}

static struct fw_cube whole(const struct net *n, int16_t index)
{
    return cube_of(n, index);
}

int16_t layer_sdp_sum(struct net *n, int16_t in, int16_t other)
{
    const struct surface *s = &n->surf[in - A_DATA];
    uint8_t prec = prec_of(n, in);
    int16_t out = layer_feature(n, "sum", s->c, s->h, s->w, prec);
    int i = sdp_op(n, prec, true, true);
    struct fw_sdp_surface *ss = &n->ops[i].u.sdp.surface;
    ss->src = whole(n, in);
    ss->x1 = whole(n, other);
    ss->dst = whole(n, out);
    chain(n, i, false);
    return out;
}

int16_t layer_lrn(struct net *n, int16_t in)
{
    const struct surface *s = &n->surf[in - A_DATA];
    uint8_t prec = prec_of(n, in);
    int16_t out = layer_feature(n, "lrn", s->c, s->h, s->w, prec);
    int i = add_op(n, FW_OP_CDP);
    struct fw_cdp_op *o = &n->ops[i].u.cdp.op;
    n->ops[i].u.cdp.surface.src = whole(n, in);
    n->ops[i].u.cdp.surface.dst = whole(n, out);
    o->in_precision = o->out_precision = prec;
    o->lut_index = 0;
    o->local_size = 5;
    o->in_cvt.scale = o->out_cvt.scale = 1;
    lrn_lut(n);
    chain(n, i, false);
    return out;
}
