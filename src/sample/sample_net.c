/* Sample networks built with the loadable writer (see sample_net.h).
 *
 * Every sample targets nv_full with int8 feature data (32 channels per
 * 32-byte atom) and uses the current (0.12) descriptor layout.  A DLA task's
 * address list is the identity over the memories: position 0 is the network
 * descriptor, 1..4 the operation, surface, dependency and LUT lists, then the
 * data surfaces.  Data is generated from a fixed seed, so every build of a
 * sample is byte-identical. */
#include "sample_net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadable/fw_desc.h"
#include "loadable/loadable.h"
#include "loadable/loadable_writer.h"
#include "sample_net_priv.h"
#include "util/suggest.h"

#define ATOM         32u
#define ENTRY_BYTES  128u        /* nv_full CBUF entry */
#define BANK_BYTES   (32u << 10) /* nv_full CBUF bank */

static const struct ld_version dla_version = {0, 12, 0};
static const struct ld_version emu_version = {0, 0, 1}; /* NVIDIA's emu_version.h */
static const struct ld_version no_version = {0, 0, 0};

#define LCG_MUL 1664525u
#define LCG_ADD 1013904223u

static uint32_t lcg_next(uint32_t *seed)
{
    *seed = *seed * LCG_MUL + LCG_ADD;
    return *seed >> 8;
}

uint32_t next_random(struct net *n)
{
    return lcg_next(&n->seed);
}

/* The generator's state after `steps` draws, in log2(steps) squarings of
 * the step x -> mul x + add (its composition with itself is again such a
 * step): blobs whose values are written afterwards still draw one number
 * per byte, as they always did, so that every sample keeps its values. */
static void skip_random(struct net *n, uint64_t steps)
{
    uint32_t mul = LCG_MUL, add = LCG_ADD;
    for (; steps; steps >>= 1) {
        if (steps & 1u)
            n->seed = n->seed * mul + add;
        add = add * mul + add;
        mul *= mul;
    }
}

void net_init(struct net *n, uint32_t seed)
{
    memset(n, 0, sizeof *n);
    n->seed = seed;
    n->output = n->input = -1;
    n->last_op = -1;
    for (int i = 0; i < FW_OP_TYPES; i++)
        n->nd.op_head[i] = n->last_of_type[i] = -1;
    n->nd.roi_array_index = n->nd.surface_index = n->nd.stat_list_index = -1;
    n->nd.operation_desc_index = A_OPS;
    n->nd.surface_desc_index = A_SURFACES;
    n->nd.dependency_graph_index = A_DEPS;
    n->nd.lut_data_index = A_LUTS;
    n->nd.num_rois = 1;
    n->nd.input_layer = 0;
}

/* The next surface; past the limit, the last one again (the build then
 * fails on n->overflow). */
static struct surface *new_surface(struct net *n)
{
    if (n->n_surfaces >= MAX_SURFACES) {
        n->overflow = true;
        n->n_surfaces = MAX_SURFACES - 1;
        free(n->surf[n->n_surfaces].data);
    }
    struct surface *s = &n->surf[n->n_surfaces];
    memset(s, 0, sizeof *s);
    return s;
}

/* A feature surface c x h x w of int8 (atoms of 32 channels); values drawn
 * uniformly from [lo, hi] when fill is set.  Returns its address index. */
static int16_t add_feature(struct net *n, const char *name, uint16_t c, uint16_t h, uint16_t w,
                           bool fill, int lo, int hi)
{
    struct surface *s = new_surface(n);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->c = c;
    s->h = h;
    s->w = w;
    s->bpe = 1;
    s->size = (uint64_t)((c + ATOM - 1) / ATOM) * h * w * ATOM;
    s->flags = LD_MEM_ALLOC;
    if (fill) {
        s->data = calloc(s->size, 1);
        for (uint32_t ch = 0; s->data && ch < c; ch++)
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++) {
                    uint64_t off = (uint64_t)(ch / ATOM) * h * w * ATOM +
                                   ((uint64_t)y * w + x) * ATOM + ch % ATOM;
                    s->data[off] =
                        (uint8_t)(int8_t)(lo + (int)(next_random(n) % (unsigned)(hi - lo + 1)));
                }
        s->flags |= LD_MEM_SET;
    }
    return (int16_t)(A_DATA + n->n_surfaces++);
}

/* size bytes drawn uniformly from [lo, hi], lo < hi.  The generator's state
 * is kept in a local while the bytes are stored (they could alias it). */
static void fill_uniform(uint8_t *out, uint64_t size, int lo, int hi, uint32_t *state)
{
    uint32_t seed = *state, range = (uint32_t)(hi - lo + 1);
    for (uint64_t i = 0; i < size; i++)
        out[i] = (uint8_t)(int8_t)(lo + (int)(lcg_next(&seed) % range));
    *state = seed;
}

/* Raw bytes (weights), values in [lo, hi]. */
int16_t add_raw(struct net *n, const char *name, uint64_t size, int lo, int hi)
{
    struct surface *s = new_surface(n);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->size = size;
    s->data = calloc(size ? size : 1, 1);
    if (s->data && lo == hi) {
        memset(s->data, (uint8_t)(int8_t)lo, size);
        skip_random(n, size);
    } else if (s->data) {
        fill_uniform(s->data, size, lo, hi, &n->seed);
    }
    s->flags = LD_MEM_ALLOC | LD_MEM_SET;
    return (int16_t)(A_DATA + n->n_surfaces++);
}

struct fw_cube cube_of(const struct net *n, int16_t index)
{
    const struct surface *s = &n->surf[index - A_DATA];
    struct fw_cube c = {.type = FW_MEM_MC,
                        .address = index,
                        .size = (uint32_t)s->size,
                        .width = s->w,
                        .height = s->h,
                        .channel = s->c,
                        .line_stride = s->w * ATOM,
                        .surf_stride = (uint32_t)s->w * s->h * ATOM};
    return c;
}

/* The network's input: a feature filled with values from [lo, hi]. */
static int16_t add_input(struct net *n, const char *name, uint16_t c, uint16_t h, uint16_t w,
                         int lo, int hi)
{
    int16_t in = add_feature(n, name, c, h, w, true, lo, hi);
    n->input = in - A_DATA;
    return in;
}

/* The network's output: a feature the DLA writes. */
static int16_t add_output(struct net *n, const char *name, uint16_t c, uint16_t h, uint16_t w)
{
    int16_t out = add_feature(n, name, c, h, w, false, 0, 0);
    n->output = out - A_DATA;
    return out;
}

/* PDP, CDP and RUBIK read and write whole features in memory. */
static void memory_cubes(const struct net *n, struct fw_pdp_surface *s, int16_t in, int16_t out)
{
    s->src = cube_of(n, in);
    s->dst = cube_of(n, out);
}

/* An on-the-fly cube between two units: shape only, no address. */
struct fw_cube flying(uint16_t c, uint16_t h, uint16_t w)
{
    struct fw_cube q = {.type = FW_MEM_HW,
                        .address = -1,
                        .width = w,
                        .height = h,
                        .channel = c,
                        .line_stride = w * ATOM,
                        .surf_stride = (uint32_t)w * h * ATOM};
    q.size = q.surf_stride * ((c + ATOM - 1) / ATOM);
    return q;
}

int add_op(struct net *n, uint8_t type)
{
    if (n->n_ops >= MAX_OPS) {
        n->overflow = true;
        n->n_ops = MAX_OPS - 1;
    }
    int i = (int)n->n_ops++;
    struct fw_common_op *d = &n->deps[i];
    memset(d, 0, sizeof *d);
    d->index = (int16_t)i;
    d->op_type = type;
    for (int k = 0; k < FW_OP_TYPES; k++)
        d->consumers[k].index = -1;
    d->fused_parent.index = -1;
    n->ops[i].type = type;
    if (n->nd.op_head[type] == -1)
        n->nd.op_head[type] = (int16_t)i;
    return i;
}

/* consumer waits for `event` of producer (one consumer per type and producer). */
void depend(struct net *n, int producer, int consumer, uint8_t event)
{
    n->deps[producer].consumers[n->ops[consumer].type] =
        (struct fw_consumer){.index = (int16_t)consumer, .event = event};
    n->deps[consumer].dependency_count++;
}

/* SDP fed on the fly by CONV: programmed conv lets SDP go, enabled SDP lets
 * the convolution go (so the consumer is ready first). */
void fuse(struct net *n, int conv, int sdp)
{
    depend(n, conv, sdp, FW_EV_OP_PROGRAMMED);
    n->deps[sdp].fused_parent =
        (struct fw_consumer){.index = (int16_t)conv, .event = FW_EV_OP_ENABLED};
    n->deps[conv].dependency_count++;
}

uint16_t ceil_div(uint32_t a, uint32_t b)
{
    return (uint16_t)((a + b - 1) / b);
}

/* Direct int8 convolution: input surface -> on-the-fly output to SDP. */
static int add_conv(struct net *n, int16_t in, uint16_t kernels, uint8_t kw, uint8_t kh, int wlo,
                    int whi)
{
    const struct surface *s = &n->surf[in - A_DATA];
    uint16_t ow = (uint16_t)(s->w - kw + 1), oh = (uint16_t)(s->h - kh + 1);
    uint32_t bytes_per_kernel = (uint32_t)kw * kh * s->c;
    uint32_t wbytes = bytes_per_kernel * kernels;
    uint32_t wsize = (wbytes + 127u) & ~127u;
    char name[32];
    snprintf(name, sizeof name, "weights%u", n->n_ops);
    int16_t wt = add_raw(n, name, wsize, wlo, whi);
    int i = add_op(n, FW_OP_CONV);
    struct fw_conv_op *o = &n->ops[i].u.conv.op;
    struct fw_conv_surface *cs = &n->ops[i].u.conv.surface;
    o->conv_mode = 0;
    o->data_format = 36; /* feature */
    o->batch = 1;
    o->in_precision = o->out_precision = FW_PREC_INT8;
    o->input_width_csc = s->w;
    o->input_height_csc = s->h;
    o->input_channel_csc = s->c;
    o->kernel_width_csc = kw;
    o->kernel_height_csc = kh;
    o->kernel_channel_csc = s->c;
    o->input_width_cmac = ow;
    o->input_height_cmac = oh;
    o->bytes_per_kernel = bytes_per_kernel;
    o->entry_per_slice = ceil_div((uint32_t)s->w * ceil_div(s->c, ATOM) * ATOM, ENTRY_BYTES);
    o->data_bank = (uint8_t)ceil_div((uint32_t)o->entry_per_slice * s->h * ENTRY_BYTES, BANK_BYTES);
    o->weight_bank = (uint8_t)ceil_div(wsize, BANK_BYTES);
    o->fetch_grain = 1;
    o->release = s->h;
    o->conv_stride_x = o->conv_stride_y = 1;
    o->dilation_x = o->dilation_y = 1;
    o->out_cvt.scale = 1;
    cs->weight = cube_of(n, wt);
    cs->weight.width = kw;
    cs->weight.height = kh;
    cs->weight.channel = s->c;
    cs->weight.size = wsize;
    cs->wmb.address = cs->wgs.address = -1;
    cs->wmb.type = cs->wgs.type = FW_MEM_HW;
    cs->src = cube_of(n, in);
    cs->dst = flying(kernels, oh, ow);
    return i;
}

/* SDP: X1 ReLU, output converter shift; input on the fly (src_op conv) or
 * from memory; output to memory. */
static int add_sdp(struct net *n, const struct fw_cube *src, int16_t out, uint8_t shift,
                   uint8_t src_precision)
{
    int i = add_op(n, FW_OP_SDP);
    struct fw_sdp_op *o = &n->ops[i].u.sdp.op;
    struct fw_sdp_surface *s = &n->ops[i].u.sdp.surface;
    o->src_precision = src_precision;
    o->dst_precision = FW_PREC_INT8;
    o->lut_index = -1;
    o->batch_num = 1;
    o->out_cvt.scale = 1;
    o->out_cvt.truncate = shift;
    o->x1 = (struct fw_sdp_stage){.enable = 1,
                                  .type = FW_SDP_NONE,
                                  .act = FW_ACT_RELU,
                                  .mode = FW_SDP_PER_LAYER,
                                  .precision = FW_PREC_INT8};
    o->x2.mode = o->y.mode = FW_SDP_PER_LAYER;
    s->src = *src;
    s->x1.address = s->x2.address = s->y.address = -1;
    s->dst = cube_of(n, out);
    return i;
}

static int add_pdp(struct net *n, int16_t in, int16_t out, uint8_t k, uint8_t stride)
{
    int i = add_op(n, FW_OP_PDP);
    struct fw_pdp_op *o = &n->ops[i].u.pdp.op;
    struct fw_pdp_surface *s = &n->ops[i].u.pdp.surface;
    memory_cubes(n, s, in, out);
    o->split_num = 1;
    o->pool_mode = 1; /* max */
    o->pool_width = o->pool_height = (uint8_t)(k - 1);
    o->stride_x = o->stride_y = stride;
    o->precision = FW_PREC_INT8;
    o->partial_in_width_first = s->src.width;
    o->partial_width_first = s->dst.width;
    return i;
}

/* ---------------------------------------------------------------- serialise */

static bool add_blob_memory(struct lw *w, const char *name, uint32_t iface, uint32_t sub,
                            struct ld_version v, const void *data, size_t len, uint16_t flags)
{
    return lw_blob(w, name, iface, sub, v, data, len) >= 0 &&
           lw_memory(w, LD_DOMAIN_SYSTEM, flags, len, 4096, name, 0, 0) >= 0;
}

static bool write_descriptors(struct net *n, struct lw *w)
{
    n->nd.num_operations = (uint16_t)n->n_ops;
    n->nd.num_luts = n->has_lut ? 1 : 0;
    n->nd.num_addresses = (uint16_t)(A_DATA + n->n_surfaces);
    uint8_t nd[FW_NETWORK_SIZE], ops[MAX_OPS][FW_OP_SIZE], surfs[MAX_OPS][FW_SURFACE_SIZE];
    uint8_t deps[MAX_OPS][FW_COMMON_OP_SIZE], lut[FW_LUT_SIZE] = {0};
    fw_encode_network(&n->nd, nd);
    for (unsigned i = 0; i < n->n_ops; i++) {
        fw_encode_op(FW_LAYOUT_CURRENT, &n->ops[i], ops[i], surfs[i]);
        fw_encode_common_op(&n->deps[i], deps[i]);
    }
    if (n->has_lut)
        fw_encode_lut(&n->lut, lut);
    uint16_t set = LD_MEM_ALLOC | LD_MEM_SET;
    return add_blob_memory(w, "network", LD_IF_DLA1, 1, dla_version, nd, sizeof nd, set) &&
           add_blob_memory(w, "op_list", LD_IF_DLA1, 3, dla_version, ops, FW_OP_SIZE * n->n_ops,
                           set) &&
           add_blob_memory(w, "surf_list", LD_IF_DLA1, 4, dla_version, surfs,
                           FW_SURFACE_SIZE * n->n_ops, set) &&
           add_blob_memory(w, "dep_graph", LD_IF_DLA1, 2, dla_version, deps,
                           FW_COMMON_OP_SIZE * n->n_ops, set) &&
           add_blob_memory(w, "lut_list", LD_IF_DLA1, 5, dla_version, lut, sizeof lut, set);
}

static struct ld_tensor feature_tensor(const struct surface *s, const char *name, uint16_t mem)
{
    struct ld_tensor t = {.name = name,
                          .mem_id = mem,
                          .size = s->size,
                          .data_format = 3,
                          .data_type = s->bpe == 2 ? LD_TYPE_HALF : LD_TYPE_INT8,
                          .data_category = 2,
                          .pixel_format = 36,
                          .n = 1,
                          .c = s->c,
                          .h = s->h,
                          .w = s->w};
    t.stride[0] = 1;
    t.stride[1] = (uint32_t)s->w * ATOM;
    t.stride[2] = (uint32_t)s->w * s->h * ATOM;
    return t;
}

/* Memories of the data surfaces, the input/output tensors, and the tasks. */
static bool write_surfaces(struct net *n, struct lw *w, int *out_mem)
{
    for (unsigned i = 0; i < n->n_surfaces; i++) {
        struct surface *s = &n->surf[i];
        uint16_t flags = s->flags;
        uint16_t tensor = 0;
        if ((int)i == n->input)
            flags |= LD_MEM_INPUT;
        if ((int)i == n->output && !n->emu_softmax)
            flags |= LD_MEM_OUTPUT;
        if ((int)i == n->input || ((int)i == n->output && !n->emu_softmax)) {
            struct ld_tensor t = feature_tensor(s, s->name, (uint16_t)(A_DATA + i));
            tensor = (uint16_t)lw_tensor(w, &t);
        }
        bool set = s->data != NULL;
        /* the writer takes the bytes over (the ResNet samples carry tens
         * of MB of weights: never two copies) */
        uint8_t *bytes = s->data;
        s->data = NULL;
        if (set && lw_blob_take(w, s->name, LD_IF_NONE, 0, no_version, bytes, s->size) < 0)
            return false;
        if (lw_memory(w, LD_DOMAIN_SYSTEM, flags, s->size, 4096, set ? s->name : NULL, 0,
                      tensor) < 0)
            return false;
        if ((int)i == n->output)
            *out_mem = (int)(A_DATA + i);
    }
    return true;
}

/* EMU softmax over the 1x1xC int8 output: its own descriptors and output. */
static bool write_softmax(struct net *n, struct lw *w, int in_mem, uint16_t *emu_addr, int *sm_out)
{
    const struct surface *s = &n->surf[n->output];
    uint8_t nd[256] = {0}, op[24] = {0}, bufs[512] = {0};
    /* network: op list at address 1, buffers at 2, one operation */
    nd[0] = 1;
    nd[2] = 2;
    nd[4] = 1;
    op[0] = 1; /* softmax */
    float in_scale = 1.0f / 16.0f, out_scale = 1.0f / 127.0f;
    memcpy(op + 4, &in_scale, 4);
    memcpy(op + 8, &out_scale, 4);
    op[12] = 1; /* axis: channels */
    for (int k = 0; k < 2; k++) {
        uint8_t *b = bufs + 256 * k;
        b[0] = (uint8_t)(3 + k); /* address 3: input, 4: output */
        uint32_t size = (uint32_t)s->size, line = s->w * ATOM, surf = line * s->h;
        memcpy(b + 6, &size, 4);
        b[10] = 0; /* INT8 */
        memcpy(b + 12, &s->w, 2);
        memcpy(b + 14, &s->h, 2);
        memcpy(b + 16, &s->c, 2);
        memcpy(b + 18, &line, 4);
        memcpy(b + 22, &surf, 4);
    }
    int base = A_DATA + (int)n->n_surfaces;
    struct surface out = *s;
    snprintf(out.name, sizeof out.name, "probabilities");
    struct ld_tensor t = feature_tensor(&out, "probabilities", (uint16_t)(base + 3));
    int tensor = lw_tensor(w, &t);
    uint16_t set = LD_MEM_ALLOC | LD_MEM_SET;
    if (tensor < 0 ||
        !add_blob_memory(w, "emu_network", LD_IF_EMU1, 1, emu_version, nd, sizeof nd, set) ||
        !add_blob_memory(w, "emu_op_list", LD_IF_EMU1, 3, emu_version, op, sizeof op, set) ||
        !add_blob_memory(w, "emu_buf_list", LD_IF_EMU1, 4, emu_version, bufs, sizeof bufs, set) ||
        lw_memory(w, LD_DOMAIN_SYSTEM, LD_MEM_ALLOC | LD_MEM_OUTPUT, s->size, 4096, NULL, 0,
                  (uint16_t)tensor) < 0)
        return false;
    emu_addr[0] = (uint16_t)base;
    emu_addr[1] = (uint16_t)(base + 1);
    emu_addr[2] = (uint16_t)(base + 2);
    emu_addr[3] = (uint16_t)in_mem;
    emu_addr[4] = (uint16_t)(base + 3);
    *sm_out = base + 3;
    return true;
}

bool net_serialise(struct net *n, uint8_t **buf, size_t *len)
{
    struct lw *w = lw_create();
    bool ok = w != NULL;
    int out_mem = -1, sm_out = -1;
    uint16_t emu_addr[5];
    ok = ok && write_descriptors(n, w) && write_surfaces(n, w, &out_mem);
    if (ok && n->emu_softmax)
        ok = write_softmax(n, w, out_mem, emu_addr, &sm_out);
    uint16_t nmem = (uint16_t)(A_DATA + n->n_surfaces + (n->emu_softmax ? 4 : 0));
    for (uint16_t i = 0; ok && i < nmem; i++)
        ok = lw_address(w, i, 0, 0) >= 0;
    uint16_t dla_addr[A_DATA + MAX_SURFACES];
    for (uint16_t i = 0; i < A_DATA + n->n_surfaces; i++)
        dla_addr[i] = i;
    if (ok && n->emu_softmax) {
        int sig1 = lw_event(w, 0, 0, 1, LD_EVENT_SIGNAL),
            wait1 = lw_event(w, 0, 0, 1, LD_EVENT_WAIT);
        int sig2 = lw_event(w, 0, 0, 2, LD_EVENT_SIGNAL);
        uint16_t s1 = (uint16_t)sig1, w1 = (uint16_t)wait1, s2 = (uint16_t)sig2;
        uint16_t tasks[2] = {0, 1};
        ok = sig1 >= 0 && wait1 >= 0 && sig2 >= 0 &&
             lw_task(w, LD_IF_DLA1, dla_addr, A_DATA + n->n_surfaces, NULL, 0, &s1, 1) >= 0 &&
             lw_task(w, LD_IF_EMU1, emu_addr, 5, &w1, 1, &s2, 1) >= 0 &&
             lw_submit(w, &tasks[0], 1) >= 0 && lw_submit(w, &tasks[1], 1) >= 0;
    } else if (ok) {
        uint16_t task = 0;
        ok = lw_task(w, LD_IF_DLA1, dla_addr, A_DATA + n->n_surfaces, NULL, 0, NULL, 0) >= 0 &&
             lw_submit(w, &task, 1) >= 0;
    }
    ok = ok && lw_finish_consume(w, (struct ld_version){0, 7, 0}, buf, len);
    lw_destroy(w);
    for (unsigned i = 0; i < n->n_surfaces; i++)
        free(n->surf[i].data);
    return ok;
}

/* ---------------------------------------------------------------- samples */

/* LeNet-shaped: 12x12x1 input, conv 5x5 x8 + ReLU (SDP), max pool 2x2/2,
 * fully connected 4x4x8 -> 10 (a convolution) + ReLU, softmax on the CPU. */
static void build_lenet(struct net *n)
{
    net_init(n, 0x1e7e7u);
    int16_t in = add_input(n, "image", 1, 12, 12, 0, 127);
    int16_t c1 = add_feature(n, "conv1", 8, 8, 8, false, 0, 0);
    int16_t p1 = add_feature(n, "pool1", 8, 4, 4, false, 0, 0);
    int16_t fc = add_output(n, "fc", 10, 1, 1);
    int conv1 = add_conv(n, in, 8, 5, 5, -8, 8);
    struct fw_cube f1 = n->ops[conv1].u.conv.surface.dst;
    int sdp1 = add_sdp(n, &f1, c1, 8, FW_PREC_INT8);
    int pool = add_pdp(n, c1, p1, 2, 2);
    int conv2 = add_conv(n, p1, 10, 4, 4, -8, 8);
    struct fw_cube f2 = n->ops[conv2].u.conv.surface.dst;
    int sdp2 = add_sdp(n, &f2, fc, 6, FW_PREC_INT8);
    fuse(n, conv1, sdp1);
    depend(n, sdp1, pool, FW_EV_OP_COMPLETED);
    depend(n, pool, conv2, FW_EV_OP_COMPLETED);
    depend(n, conv1, conv2, FW_EV_OP_COMPLETED); /* the CONV chain */
    fuse(n, conv2, sdp2);
    depend(n, sdp1, sdp2, FW_EV_OP_COMPLETED); /* the SDP chain */
    n->emu_softmax = true;
}

static void build_bdma(struct net *n)
{
    net_init(n, 0xbd3au);
    int16_t src = add_feature(n, "source", 32, 4, 8, true, -128, 127);
    int16_t dst = add_output(n, "copy", 32, 4, 8);
    int i = add_op(n, FW_OP_BDMA);
    struct fw_bdma_surface *s = &n->ops[i].u.bdma.surface;
    n->ops[i].u.bdma.num_transfers = 1;
    s->num_transfers = 1;
    s->transfers[0] = (struct fw_bdma_transfer){.source_address = src,
                                                .destination_address = dst,
                                                .line_size = 8 * ATOM,
                                                .line_repeat = 4,
                                                .source_line = 8 * ATOM,
                                                .destination_line = 8 * ATOM,
                                                .surface_repeat = 1,
                                                .source_surface = 32 * ATOM,
                                                .destination_surface = 32 * ATOM};
}

static void build_conv(struct net *n)
{
    net_init(n, 0xc0a7u);
    int16_t in = add_input(n, "input", 16, 6, 6, -16, 16);
    int16_t out = add_output(n, "output", 8, 4, 4);
    int conv = add_conv(n, in, 8, 3, 3, -4, 4);
    struct fw_cube f = n->ops[conv].u.conv.surface.dst;
    int sdp = add_sdp(n, &f, out, 4, FW_PREC_INT8);
    fuse(n, conv, sdp);
}

static void build_sdp(struct net *n)
{
    net_init(n, 0x5d9u);
    int16_t in = add_input(n, "input", 16, 4, 4, -128, 127);
    int16_t out = add_output(n, "output", 16, 4, 4);
    struct fw_cube src = cube_of(n, in);
    add_sdp(n, &src, out, 0, FW_PREC_INT8);
}

static void build_pdp(struct net *n)
{
    net_init(n, 0x9d9u);
    int16_t in = add_input(n, "input", 16, 8, 8, -128, 127);
    int16_t out = add_output(n, "output", 16, 4, 4);
    add_pdp(n, in, out, 2, 2);
}

/* A linear LO table 0..256 over [0, 4096) and an exponent LE table of ones,
 * as the CDP samples' LUT. */
void lrn_lut(struct net *n)
{
    n->has_lut = true;
    /* linear LO table 0..256 over [0, 4096), exponent LE table of ones */
    for (int k = 0; k < 65; k++)
        n->lut.le_table[k] = 1;
    for (int k = 0; k < 257; k++)
        n->lut.lo_table[k] = (int16_t)k;
    n->lut.method = 1;
    n->lut.lo_offset_frac = 4;
    n->lut.lo_start = 0;
    n->lut.lo_end = 4096;
    n->lut.le_uflow_scale = n->lut.le_oflow_scale = 1;
    n->lut.lo_uflow_scale = n->lut.lo_oflow_scale = 1;
    n->lut.hybrid_priority = n->lut.underflow_priority = n->lut.overflow_priority = 1;
}

static void build_cdp(struct net *n)
{
    net_init(n, 0xcd9u);
    int16_t in = add_input(n, "input", 32, 4, 4, -64, 64);
    int16_t out = add_output(n, "output", 32, 4, 4);
    int i = add_op(n, FW_OP_CDP);
    struct fw_cdp_op *o = &n->ops[i].u.cdp.op;
    memory_cubes(n, &n->ops[i].u.cdp.surface, in, out);
    o->in_precision = o->out_precision = FW_PREC_INT8;
    o->lut_index = 0;
    o->local_size = 3;
    o->in_cvt.scale = o->out_cvt.scale = 1;
    lrn_lut(n);
}

static void build_rubik(struct net *n)
{
    net_init(n, 0x7b1u);
    /* contract 2x2: each output pixel phase takes whole 32-byte atoms of
     * input channels, so 32 int8 output channels need 4 x 32 input channels */
    int16_t in = add_input(n, "input", 128, 4, 4, -128, 127);
    int16_t out = add_output(n, "output", 32, 8, 8);
    int i = add_op(n, FW_OP_RUBIK);
    struct fw_rubik_op *o = &n->ops[i].u.rubik.op;
    memory_cubes(n, &n->ops[i].u.rubik.surface, in, out);
    o->mode = FW_RUBIK_CONTRACT;
    o->precision = FW_PREC_INT8;
    o->stride_x = o->stride_y = 2;
}

struct sample {
    const char *name;
    void (*build)(struct net *n);
};

static const struct sample samples[] = {
    {"lenet", build_lenet},       {"bdma", build_bdma},        {"conv", build_conv},
    {"sdp", build_sdp},           {"pdp", build_pdp},          {"cdp", build_cdp},
    {"rubik", build_rubik},       {"resnet18", build_resnet18}, {"resnet50", build_resnet50},
};

/* "no such sample", with the nearest name when the word looks like a typo
 * of one ("lenett") and the list of every sample. */
static void unknown_sample(const char *name, char *err, size_t errlen)
{
    struct suggest s;
    suggest_init(&s, name);
    char list[160] = "";
    size_t n = 0;
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        suggest_consider(&s, samples[i].name);
        n += (size_t)snprintf(list + n, n < sizeof list ? sizeof list - n : 0, "%s%s",
                              i ? ", " : "", samples[i].name);
    }
    char hint[96] = "";
    if (suggest_best(&s))
        snprintf(hint, sizeof hint, "; did you mean \"sample:%s\"?", suggest_best(&s));
    snprintf(err, errlen, "sample:%s: no such sample%s (the samples: %s)", name, hint, list);
}

bool sample_net_build(const char *name, uint8_t **buf, size_t *len, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        if (strcmp(name, samples[i].name) != 0)
            continue;
        struct net *n = malloc(sizeof *n);
        if (!n) {
            snprintf(err, errlen, "sample:%s: out of memory", name);
            return false;
        }
        samples[i].build(n);
        bool too_big = n->overflow;
        bool ok = net_serialise(n, buf, len);
        if (ok && too_big) {
            free(*buf);
            ok = false;
        }
        free(n);
        if (!ok)
            snprintf(err, errlen, "sample:%s: %s", name,
                     too_big ? "more operations or surfaces than the builder holds"
                             : "out of memory");
        return ok;
    }
    unknown_sample(name, err, errlen);
    return false;
}

const char *const *sample_net_names(void)
{
    static const char *const names[] = {"lenet", "bdma",  "conv",     "sdp",      "pdp",
                                        "cdp",   "rubik", "resnet18", "resnet50", NULL};
    return names;
}

struct loadable *sample_net_load(const char *path, char *err, size_t errlen)
{
    if (strncmp(path, "sample:", 7) != 0)
        return loadable_read_file(path, err, errlen);
    uint8_t *buf;
    size_t len;
    if (!sample_net_build(path + 7, &buf, &len, err, errlen))
        return NULL;
    return loadable_parse_owned(buf, len, path, err, errlen);
}
