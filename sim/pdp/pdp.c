/* PDP and PDP_RDMA: planar pooling of a feature cube, offline from memory
 * (optionally in width splits) or on the fly from SDP.
 *
 * The layer is computed surface by surface and split by split, as the
 * hardware walks it: PDP_RDMA reads the split's input lines (the overlap of
 * kernel_w - stride_w elements is read again by the next split), every
 * channel plane of the surface is pooled (pdp_pool.c), and the output lines
 * go to memory through the write DMA.  Whole memory atoms are processed, so
 * the channels past the cube's last one in the last surface are pooled from
 * whatever memory holds there and written back, as the hardware does. */
#include <stdlib.h>
#include <string.h>

#include "num/fpnum.h"
#include "num/hot_clones.h"
#include "pdp.h"
#include "pdp_pool.h"

/* A plane or a block this large is a programming error, not a layer. */
#define PDP_MAX_PLANE_ELEMS (1u << 24)
#define PDP_MAX_BLOCK_BYTES (256u << 20)
#define PDP_MAX_SPLITS      256
/* Bytes a layer may move: the writes are held until it completes. */
#define PDP_MAX_LAYER_BYTES (1ull << 30)
/* Cost of one window tap in int8-MAC equivalents (exec_budget): integer taps
 * are a compare or an add, fp16 ones go through the fp17 helpers. */
#define PDP_COST_INT  4u
#define PDP_COST_FP16 32u

bool pdp_input_on_the_fly(const struct dla *d, int group)
{
    return dla_field_is(d, DLA_U_PDP, group, "D_OPERATION_MODE_CFG", "FLYING_MODE", "ON_FLYING");
}

/* Where one split of the width reads and writes. */
struct pdp_split {
    struct pdp_pool_split pool;
    int64_t in_x0;   /* first input element (may precede 0 by a bad overlap) */
    unsigned out_x0; /* first output element */
};

struct pdp_job {
    struct pdp_pool_cfg pool;
    unsigned bpe, cpa, atom; /* bytes per element, channels per atom, atom bytes */
    unsigned in_w, in_c, out_w, out_c, n_surf;
    unsigned n_splits;
    struct pdp_split split[PDP_MAX_SPLITS];
    bool on_the_fly, nan_to_zero;
    uint64_t src, src_line, src_surf, dst, dst_line, dst_surf;
    enum dla_space src_space, dst_space;
    uint64_t work; /* int8-MAC equivalents, for exec_budget */
};

/* ---------------------------------------------------------------- configuration */

/* The splits as one register set (PDP or PDP_RDMA) describes them. */
struct split_regs {
    unsigned n, first, mid, last, kernel, stride, in_w;
};

static struct split_regs read_split_regs(const struct dla *d, enum dla_unit u, int g)
{
    struct split_regs r;
    r.n = dla_field_plus1(d, u, g, "D_OPERATION_MODE_CFG", "SPLIT_NUM");
    r.first = dla_field_plus1(d, u, g, "D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_FIRST");
    r.mid = dla_field_plus1(d, u, g, "D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_MID");
    r.last = dla_field_plus1(d, u, g, "D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_LAST");
    r.kernel = dla_field_plus1(d, u, g, "D_POOLING_KERNEL_CFG", "KERNEL_WIDTH");
    r.stride = dla_field_plus1(d, u, g, "D_POOLING_KERNEL_CFG", "KERNEL_STRIDE_WIDTH");
    r.in_w = dla_field_plus1(d, u, g, "D_DATA_CUBE_IN_WIDTH", "CUBE_IN_WIDTH");
    return r;
}

/* Input start and width of split i: every split after the first re-reads
 * the kernel_w - stride_w elements the previous one ended with. */
static void split_input(const struct split_regs *r, unsigned i, int64_t *x0, int64_t *w)
{
    int64_t overlap = (int64_t)r->kernel - r->stride;
    if (r->n == 1) {
        *x0 = 0;
        *w = r->in_w;
    } else if (i == 0) {
        *x0 = 0;
        *w = r->first;
    } else {
        *x0 = r->first + (int64_t)(i - 1) * r->mid - overlap;
        *w = (i + 1 == r->n ? r->last : r->mid) + overlap;
    }
}

static bool build_splits(struct dla *d, int g, struct pdp_job *j)
{
    struct split_regs r = read_split_regs(d, DLA_U_PDP, g);
    unsigned out_first =
        dla_field_plus1(d, DLA_U_PDP, g, "D_PARTIAL_WIDTH_OUT", "PARTIAL_WIDTH_OUT_FIRST");
    unsigned out_mid =
        dla_field_plus1(d, DLA_U_PDP, g, "D_PARTIAL_WIDTH_OUT", "PARTIAL_WIDTH_OUT_MID");
    unsigned out_last =
        dla_field_plus1(d, DLA_U_PDP, g, "D_PARTIAL_WIDTH_OUT", "PARTIAL_WIDTH_OUT_LAST");
    unsigned pl = dla_field(d, DLA_U_PDP, g, "D_POOLING_PADDING_CFG", "PAD_LEFT");
    unsigned pr = dla_field(d, DLA_U_PDP, g, "D_POOLING_PADDING_CFG", "PAD_RIGHT");
    j->n_splits = r.n;
    for (unsigned i = 0; i < r.n; i++) {
        struct pdp_split *s = &j->split[i];
        int64_t x0, w;
        split_input(&r, i, &x0, &w);
        if (w <= 0) {
            dla_rule(d, DLA_U_PDP, "pdp.split_width",
                     "split %u of %u has no input (partial width plus overlap %lld)", i, r.n,
                     (long long)w);
            return false;
        }
        s->in_x0 = x0;
        s->pool.in_w = (unsigned)w;
        s->pool.pad_left = i == 0 ? pl : 0;
        s->pool.pad_right = i + 1 == r.n ? pr : 0;
        if (r.n == 1) {
            s->out_x0 = 0;
            s->pool.out_w = j->out_w;
        } else {
            s->out_x0 = i == 0 ? 0 : out_first + (i - 1) * out_mid;
            s->pool.out_w = i == 0 ? out_first : i + 1 == r.n ? out_last : out_mid;
        }
    }
    return true;
}

static void read_pool_cfg(const struct dla *d, int g, struct pdp_pool_cfg *c)
{
    static const char *const pad_reg[PDP_PAD_VALUES] = {
        "D_POOLING_PADDING_VALUE_1_CFG", "D_POOLING_PADDING_VALUE_2_CFG",
        "D_POOLING_PADDING_VALUE_3_CFG", "D_POOLING_PADDING_VALUE_4_CFG",
        "D_POOLING_PADDING_VALUE_5_CFG", "D_POOLING_PADDING_VALUE_6_CFG",
        "D_POOLING_PADDING_VALUE_7_CFG"};
    static const char *const pad_field[PDP_PAD_VALUES] = {
        "PAD_VALUE_1X", "PAD_VALUE_2X", "PAD_VALUE_3X", "PAD_VALUE_4X",
        "PAD_VALUE_5X", "PAD_VALUE_6X", "PAD_VALUE_7X"};
    memset(c, 0, sizeof *c);
    c->method = (uint8_t)dla_field(d, DLA_U_PDP, g, "D_OPERATION_MODE_CFG", "POOLING_METHOD");
    c->precision = (uint8_t)dla_field(d, DLA_U_PDP, g, "D_DATA_FORMAT", "INPUT_DATA");
    c->kernel_w = dla_field_plus1(d, DLA_U_PDP, g, "D_POOLING_KERNEL_CFG", "KERNEL_WIDTH");
    c->kernel_h = dla_field_plus1(d, DLA_U_PDP, g, "D_POOLING_KERNEL_CFG", "KERNEL_HEIGHT");
    c->stride_w = dla_field_plus1(d, DLA_U_PDP, g, "D_POOLING_KERNEL_CFG", "KERNEL_STRIDE_WIDTH");
    c->stride_h = dla_field_plus1(d, DLA_U_PDP, g, "D_POOLING_KERNEL_CFG", "KERNEL_STRIDE_HEIGHT");
    c->pad_top = dla_field(d, DLA_U_PDP, g, "D_POOLING_PADDING_CFG", "PAD_TOP");
    c->pad_bottom = dla_field(d, DLA_U_PDP, g, "D_POOLING_PADDING_CFG", "PAD_BOTTOM");
    for (unsigned n = 0; n < PDP_PAD_VALUES; n++)
        c->pad_value[n] = pdp_pad_value(dla_field(d, DLA_U_PDP, g, pad_reg[n], pad_field[n]), n + 1,
                                        (enum pdp_precision)c->precision);
    c->recip_w = dla_field(d, DLA_U_PDP, g, "D_RECIP_KERNEL_WIDTH", "RECIP_KERNEL_WIDTH");
    c->recip_h = dla_field(d, DLA_U_PDP, g, "D_RECIP_KERNEL_HEIGHT", "RECIP_KERNEL_HEIGHT");
    c->in_h = dla_field_plus1(d, DLA_U_PDP, g, "D_DATA_CUBE_IN_HEIGHT", "CUBE_IN_HEIGHT");
    c->out_h = dla_field_plus1(d, DLA_U_PDP, g, "D_DATA_CUBE_OUT_HEIGHT", "CUBE_OUT_HEIGHT");
}

static void read_addresses(struct dla *d, int g, int rg, struct pdp_job *j)
{
    if (!j->on_the_fly) {
        j->src =
            dla_reg_addr64(d, DLA_U_PDP_RDMA, rg, "D_SRC_BASE_ADDR_HIGH", "D_SRC_BASE_ADDR_LOW");
        j->src_line = dla_reg(d, DLA_U_PDP_RDMA, rg, "D_SRC_LINE_STRIDE");
        j->src_surf = dla_reg(d, DLA_U_PDP_RDMA, rg, "D_SRC_SURFACE_STRIDE");
        j->src_space = dla_ram_space(
            d, DLA_U_PDP_RDMA, dla_field(d, DLA_U_PDP_RDMA, rg, "D_SRC_RAM_CFG", "SRC_RAM_TYPE"));
    }
    j->dst = dla_reg_addr64(d, DLA_U_PDP, g, "D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW");
    j->dst_line = dla_reg(d, DLA_U_PDP, g, "D_DST_LINE_STRIDE");
    j->dst_surf = dla_reg(d, DLA_U_PDP, g, "D_DST_SURFACE_STRIDE");
    j->dst_space =
        dla_ram_space(d, DLA_U_PDP, dla_field(d, DLA_U_PDP, g, "D_DST_RAM_CFG", "DST_RAM_TYPE"));
}

/* ---------------------------------------------------------------- rules */

/* PDP_RDMA fetches what PDP consumes: the two register sets must agree. */
static bool rdma_agrees(struct dla *d, int g, int rg, const struct pdp_job *j)
{
    struct split_regs p = read_split_regs(d, DLA_U_PDP, g),
                      r = read_split_regs(d, DLA_U_PDP_RDMA, rg);
    unsigned r_h =
        dla_field_plus1(d, DLA_U_PDP_RDMA, rg, "D_DATA_CUBE_IN_HEIGHT", "CUBE_IN_HEIGHT");
    unsigned r_c =
        dla_field_plus1(d, DLA_U_PDP_RDMA, rg, "D_DATA_CUBE_IN_CHANNEL", "CUBE_IN_CHANNEL");
    unsigned r_fmt = dla_field(d, DLA_U_PDP_RDMA, rg, "D_DATA_FORMAT", "INPUT_DATA");
    bool same = p.n == r.n && r_h == j->pool.in_h && r_c == j->in_c && r_fmt == j->pool.precision &&
                p.kernel == r.kernel && p.stride == r.stride;
    for (unsigned i = 0; same && i < p.n; i++) {
        int64_t px, pw, rx, rw;
        split_input(&p, i, &px, &pw);
        split_input(&r, i, &rx, &rw);
        same = px == rx && pw == rw;
    }
    if (!same)
        dla_rule(d, DLA_U_PDP_RDMA, "pdp.rdma_mismatch",
                 "PDP_RDMA's cube, format, kernel or split registers disagree with PDP's");
    return same;
}

/* Split mode: the overlap a split re-reads must fit in the partial widths
 * (kernel >= stride), or the gap it skips must be shorter than them. */
static void check_split_overlap(struct dla *d, int g)
{
    struct split_regs r = read_split_regs(d, DLA_U_PDP, g);
    if (r.n < 2)
        return;
    int overlap = (int)r.kernel - (int)r.stride;
    bool mid = r.n > 2;
    bool ok = overlap >= 0 ? (int)r.first >= overlap && (!mid || (int)r.mid >= overlap)
                           : -overlap < (int)r.last && (!mid || -overlap < (int)r.mid);
    if (!ok)
        dla_rule(d, DLA_U_PDP, "pdp.split_overlap",
                 "kernel %u, stride %u: partial input widths %u/%u/%u cannot hold the split "
                 "overlap",
                 r.kernel, r.stride, r.first, mid ? r.mid : 0, r.last);
}

static void check_geometry(struct dla *d, const struct pdp_job *j)
{
    const struct pdp_pool_cfg *c = &j->pool;
    const struct pdp_pool_split *first = &j->split[0].pool, *last = &j->split[j->n_splits - 1].pool;
    unsigned pl = first->pad_left, pr = last->pad_right;
    if (pl >= c->kernel_w || pr >= c->kernel_w || c->pad_top >= c->kernel_h ||
        c->pad_bottom >= c->kernel_h)
        dla_rule(d, DLA_U_PDP, "pdp.pad_below_kernel",
                 "padding (l%u r%u t%u b%u) must be less than the kernel (%ux%u)", pl, pr,
                 c->pad_top, c->pad_bottom, c->kernel_w, c->kernel_h);
    /* each split's input, with its padding, must be exactly what its outputs'
     * windows cover (the guide states it per mode; this is the common form) */
    for (unsigned i = 0; i < j->n_splits; i++) {
        const struct pdp_pool_split *s = &j->split[i].pool;
        unsigned span = s->in_w + s->pad_left + s->pad_right;
        unsigned need = (s->out_w - 1) * c->stride_w + c->kernel_w;
        if (span != need)
            dla_rule(d, DLA_U_PDP, "pdp.width_in_out",
                     "split %u: input width + padding is %u, its %u outputs cover %u", i, span,
                     s->out_w, need);
    }
    if (j->n_splits > 1) {
        unsigned sum = 0;
        for (unsigned i = 0; i < j->n_splits; i++)
            sum += j->split[i].pool.out_w;
        if (sum != j->out_w)
            dla_rule(d, DLA_U_PDP, "pdp.split_out_sum",
                     "split output widths add up to %u, CUBE_OUT_WIDTH is %u", sum, j->out_w);
    }
    if (j->out_c != j->in_c)
        dla_rule(d, DLA_U_PDP, "pdp.channels",
                 "CUBE_OUT_CHANNEL (%u) differs from CUBE_IN_CHANNEL (%u)", j->out_c, j->in_c);
}

static bool precision_ok(struct dla *d, const struct pdp_job *j)
{
    unsigned p = j->pool.precision;
    if (!dla_config_has_precision(d->cfg, p)) {
        dla_diag(d, DLA_DIAG_FEATURE_ABSENT, DLA_SEV_ERROR, DLA_U_PDP, 0, "pdp.precision",
                 "PDP input format %u is not supported by %s", p, d->cfg->name);
        return false;
    }
    return true;
}

static bool sizes_ok(struct dla *d, struct pdp_job *j)
{
    uint64_t total = 0, work = 0;
    for (unsigned i = 0; i < j->n_splits; i++) {
        const struct pdp_pool_split *s = &j->split[i].pool;
        uint64_t in = (uint64_t)s->in_w * j->pool.in_h, out = (uint64_t)s->out_w * j->pool.out_h;
        total += (in + out) * j->n_surf * j->atom;
        work += (in * j->pool.kernel_w + out * j->pool.kernel_h) * j->n_surf * j->cpa;
    }
    j->work = work * (j->pool.precision == PDP_FP16 ? PDP_COST_FP16 : PDP_COST_INT);
    if (total > PDP_MAX_LAYER_BYTES) {
        dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_PDP, 0, NULL,
                 "PDP layer would move %llu bytes, too large to model (limit %llu)",
                 (unsigned long long)total, (unsigned long long)PDP_MAX_LAYER_BYTES);
        return false;
    }
    for (unsigned i = 0; i < j->n_splits; i++) {
        const struct pdp_pool_split *s = &j->split[i].pool;
        uint64_t in = (uint64_t)s->in_w * j->pool.in_h, out = (uint64_t)s->out_w * j->pool.out_h;
        if (in > PDP_MAX_PLANE_ELEMS || out > PDP_MAX_PLANE_ELEMS ||
            in * j->atom > PDP_MAX_BLOCK_BYTES || out * j->atom > PDP_MAX_BLOCK_BYTES) {
            dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_PDP, 0, NULL,
                     "PDP split %u is too large to model (%ux%u in, %ux%u out)", i, s->in_w,
                     j->pool.in_h, s->out_w, j->pool.out_h);
            return false;
        }
    }
    return true;
}

static bool decode(struct dla *d, int g, int rg, struct pdp_job *j)
{
    memset(j, 0, sizeof *j);
    read_pool_cfg(d, g, &j->pool);
    j->on_the_fly = pdp_input_on_the_fly(d, g);
    j->nan_to_zero = dla_field(d, DLA_U_PDP, g, "D_NAN_FLUSH_TO_ZERO", "NAN_TO_ZERO") != 0;
    j->in_w = dla_field_plus1(d, DLA_U_PDP, g, "D_DATA_CUBE_IN_WIDTH", "CUBE_IN_WIDTH");
    j->in_c = dla_field_plus1(d, DLA_U_PDP, g, "D_DATA_CUBE_IN_CHANNEL", "CUBE_IN_CHANNEL");
    j->out_w = dla_field_plus1(d, DLA_U_PDP, g, "D_DATA_CUBE_OUT_WIDTH", "CUBE_OUT_WIDTH");
    j->out_c = dla_field_plus1(d, DLA_U_PDP, g, "D_DATA_CUBE_OUT_CHANNEL", "CUBE_OUT_CHANNEL");
    j->atom = d->cfg->mem_atom;
    j->bpe = j->pool.precision == PDP_INT8 ? 1 : 2;
    j->cpa = j->atom / j->bpe;
    j->n_surf = (j->in_c + j->cpa - 1) / j->cpa;
    if (!precision_ok(d, j))
        return false;
    if (j->pool.method > PDP_MIN) {
        dla_rule(d, DLA_U_PDP, "pdp.method", "POOLING_METHOD %u is reserved", j->pool.method);
        return false;
    }
    if (!build_splits(d, g, j) || !sizes_ok(d, j))
        return false;
    if (j->on_the_fly && j->n_splits > 1)
        dla_rule(d, DLA_U_PDP, "pdp.split_on_the_fly",
                 "split width is for offline pooling; PDP takes SDP's output on the fly");
    if (!j->on_the_fly && (rg == 0xff || !rdma_agrees(d, g, rg, j)))
        return false;
    check_geometry(d, j);
    check_split_overlap(d, g);
    read_addresses(d, g, rg, j);
    return true;
}

/* ---------------------------------------------------------------- data movement */

/* fp16 NaN and infinity counters (D_NAN_INPUT_NUM, D_INF_INPUT_NUM,
 * D_NAN_OUTPUT_NUM): every element of every atom moved counts. */
struct pdp_fp_counts {
    uint64_t nan_in, inf_in, nan_out;
};

DLA_HOT_CLONES static void count_fp(const struct pdp_job *j, const uint8_t *atoms, size_t bytes,
                                    uint64_t *nan, uint64_t *inf)
{
    if (j->pool.precision == PDP_FP16)
        feature_count_fp16_specials(atoms, bytes, nan, inf);
}

/* Read the split's input lines of one surface from memory (atoms
 * line by line, as PDP_RDMA requests them). */
static bool fetch_block(struct dla_exec *x, const struct pdp_job *j, const struct pdp_split *s,
                        unsigned surf, uint8_t *block)
{
    size_t line_bytes = (size_t)s->pool.in_w * j->atom;
    for (unsigned h = 0; h < j->pool.in_h; h++) {
        uint64_t addr = j->src + (uint64_t)surf * j->src_surf + (uint64_t)h * j->src_line +
                        (uint64_t)(s->in_x0 * (int64_t)j->atom);
        if (!exec_read(x, DLA_C_PDP_RDMA, j->src_space, addr, block + h * line_bytes, line_bytes))
            return false;
    }
    return true;
}

/* The same block taken from SDP's on-the-fly output cube. */
static void flying_block(const struct pdp_job *j, const struct dla_cube *in,
                         const struct pdp_split *s, unsigned surf, uint8_t *block)
{
    for (unsigned h = 0; h < j->pool.in_h; h++) {
        for (unsigned w = 0; w < s->pool.in_w; w++) {
            int64_t xw = s->in_x0 + w;
            for (unsigned k = 0; k < j->cpa; k++) {
                unsigned ch = surf * j->cpa + k;
                int32_t v = 0;
                if (in && xw >= 0 && (uint64_t)xw < in->w && h < in->h && ch < in->c)
                    v = in->v[cube_index(in, 0, ch, h, (uint32_t)xw)];
                uint8_t *p = block + (((size_t)h * s->pool.in_w + w) * j->cpa + k) * j->bpe;
                feature_store(p, j->bpe, v);
            }
        }
    }
}

static bool write_block(struct dla_exec *x, const struct pdp_job *j, const struct pdp_split *s,
                        unsigned surf, const uint8_t *block)
{
    size_t line_bytes = (size_t)s->pool.out_w * j->atom;
    /* an unsplit layer's packed lines are held in one buffer sized at the
     * first, not grown (and moved) line by line; a split's lines have gaps */
    const struct exec_surfaces written = {.line_bytes = line_bytes,
                                          .line_stride = j->dst_line,
                                          .surf_stride = j->dst_surf,
                                          .lines = j->pool.out_h,
                                          .surfs = j->n_surf};
    exec_write_expect_surface(x, &written, surf);
    for (unsigned y = 0; y < j->pool.out_h; y++) {
        uint64_t addr = j->dst + (uint64_t)surf * j->dst_surf + (uint64_t)y * j->dst_line +
                        (uint64_t)s->out_x0 * j->atom;
        if (!exec_write(x, DLA_C_PDP_WDMA, j->dst_space, addr, block + y * line_bytes, line_bytes))
            return false;
    }
    return true;
}

/* Buffers for one split of one surface. */
struct pdp_buffers {
    uint8_t *in_block, *out_block;
    int32_t *plane_in, *plane_out, *scratch;
};

static void free_buffers(struct pdp_buffers *b)
{
    free(b->in_block);
    free(b->out_block);
    free(b->plane_in);
    free(b->plane_out);
    free(b->scratch);
    memset(b, 0, sizeof *b);
}

static bool alloc_buffers(const struct pdp_job *j, const struct pdp_split *s, struct pdp_buffers *b)
{
    size_t n_in = (size_t)s->pool.in_w * j->pool.in_h,
           n_out = (size_t)s->pool.out_w * j->pool.out_h;
    b->in_block = malloc(n_in * j->atom);
    b->out_block = malloc(n_out * j->atom);
    b->plane_in = malloc(n_in * sizeof *b->plane_in);
    b->plane_out = malloc(n_out * sizeof *b->plane_out);
    size_t walk = pdp_pool_scratch(&j->pool, &s->pool);
    size_t separable = pdp_pool_extreme_scratch(&j->pool, &s->pool, j->cpa);
    b->scratch = malloc((walk > separable ? walk : separable) * sizeof *b->scratch);
    if (b->in_block && b->out_block && b->plane_in && b->plane_out && b->scratch)
        return true;
    free_buffers(b);
    return false;
}

/* Pool every channel of a block; returns outputs no window reached.  Max
 * and min take every channel at once, counting the read's infinities as
 * they go, unless an fp16 NaN was read; then, and for averages, the read's
 * NaNs and infinities are counted and each channel walks the hardware's
 * way.  (An on-the-fly block was not read: nothing is counted.) */
static unsigned pool_block(const struct pdp_job *j, const struct pdp_split *s,
                           struct pdp_buffers *b, struct pdp_fp_counts *fc)
{
    size_t n_in = (size_t)s->pool.in_w * j->pool.in_h,
           n_out = (size_t)s->pool.out_w * j->pool.out_h;
    struct pdp_extreme_tally tally;
    if (j->pool.method != PDP_AVERAGE && pdp_pool_extreme(&j->pool, &s->pool, b->in_block, j->cpa,
                                                          b->out_block, b->scratch, &tally)) {
        if (!j->on_the_fly)
            fc->inf_in += tally.infinities;
        return tally.missing; /* no NaN went in, so none came out: D_NAN_OUTPUT_NUM stays */
    }
    if (!j->on_the_fly)
        count_fp(j, b->in_block, n_in * j->atom, &fc->nan_in, &fc->inf_in);
    unsigned missing = 0;
    for (unsigned k = 0; k < j->cpa; k++) {
        feature_load_strided(b->in_block + k * j->bpe, j->atom, n_in, j->bpe,
                             j->pool.precision == PDP_FP16, b->plane_in);
        if (j->pool.precision == PDP_FP16 && j->nan_to_zero && !j->on_the_fly)
            for (size_t i = 0; i < n_in; i++)
                if (fp_is_nan(FP16, (uint32_t)b->plane_in[i]))
                    b->plane_in[i] = 0; /* flushed as it leaves the read DMA */
        missing += pdp_pool_plane(&j->pool, &s->pool, b->plane_in, b->plane_out, b->scratch);
        feature_store_strided(b->out_block + k * j->bpe, j->atom, n_out, j->bpe, b->plane_out);
    }
    count_fp(j, b->out_block, n_out * j->atom, &fc->nan_out, NULL);
    return missing;
}

static int run_split(struct dla *d, struct dla_exec *x, const struct pdp_job *j,
                     const struct pdp_split *s, const struct dla_cube *in, uint64_t *missing,
                     struct pdp_fp_counts *fc)
{
    struct pdp_buffers b;
    if (!alloc_buffers(j, s, &b)) {
        dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_PDP, 0, NULL,
                 "PDP: out of memory for a %ux%u split", s->pool.in_w, j->pool.in_h);
        return -1;
    }
    int rc = 0;
    for (unsigned surf = 0; surf < j->n_surf && rc == 0; surf++) {
        if (j->on_the_fly)
            flying_block(j, in, s, surf, b.in_block);
        else if (!fetch_block(x, j, s, surf, b.in_block))
            rc = -1;
        if (rc == 0) {
            *missing += pool_block(j, s, &b, fc);
            if (!write_block(x, j, s, surf, b.out_block))
                rc = -1;
        }
    }
    free_buffers(&b);
    return rc;
}

/* ---------------------------------------------------------------- the unit */

static const char *method_name(unsigned m)
{
    return m == PDP_MAX ? "max" : m == PDP_MIN ? "min" : "ave";
}

static void describe(struct dla_exec *x, const struct pdp_job *j)
{
    const struct pdp_pool_cfg *c = &j->pool;
    exec_desc(x, "pdp %s %s %ux%ux%u -> %ux%u k%ux%u s%ux%u%s%s", method_name(c->method),
              c->precision == PDP_INT8    ? "int8"
              : c->precision == PDP_INT16 ? "int16"
                                          : "fp16",
              j->in_w, c->in_h, j->in_c, j->out_w, c->out_h, c->kernel_w, c->kernel_h, c->stride_w,
              c->stride_h, j->on_the_fly ? " fly" : "", j->n_splits > 1 ? " split" : "");
}

/* Output rows whose window reaches past the last input line into the bottom
 * padding: the datapath writes them after the input has ended. */
static uint64_t flushed_rows(const struct pdp_pool_cfg *pc)
{
    if (pc->pad_top + pc->in_h < pc->kernel_h)
        return pc->out_h;
    uint64_t inside = (pc->pad_top + pc->in_h - pc->kernel_h) / pc->stride_h + 1;
    return inside < pc->out_h ? pc->out_h - inside : 0;
}

/* Elements through the pooling datapath: every input line once, at the
 * width of its input or of its output row when padding makes that wider,
 * then each split's output rows that wait for the bottom padding, once
 * (those of the other surfaces overlap the next surface's input).  NVIDIA's
 * nv_small RTL: 8x8x64 2x2/1 with one row and column of padding takes 4096
 * elements and 64 more (tests/calibration); an 8x8 window over a 24x16
 * plane with 28 outputs a row, 224 elements a line and 3 rows flushed. */
static uint64_t datapath_elements(const struct pdp_job *j)
{
    uint64_t n = 0, flush = flushed_rows(&j->pool);
    for (unsigned i = 0; i < j->n_splits; i++) {
        const struct pdp_pool_split *sp = &j->split[i].pool;
        uint64_t line = sp->in_w > sp->out_w ? sp->in_w : sp->out_w;
        n += (line * j->pool.in_h * j->n_surf + flush * sp->out_w) * j->cpa;
    }
    return n;
}

int pdp_execute(struct dla *d, struct dla_exec *x, int group, int rdma_group,
                const struct dla_cube *in)
{
    struct pdp_job job;
    struct pdp_job *j = &job;
    if (!decode(d, group, rdma_group, j) || !exec_budget(x, DLA_U_PDP, j->work, "PDP pooling")) {
        exec_desc(x, "pdp: not computed (see diagnostics)");
        return -1;
    }
    describe(x, j);
    uint8_t want_kind = j->pool.precision == PDP_FP16 ? DLA_CUBE_FP16 : DLA_CUBE_INT;
    if (j->on_the_fly && (!in || in->kind != want_kind))
        dla_rule(d, DLA_U_PDP, "pdp.flying_input",
                 "PDP on the fly without an SDP output cube of its format; pooling zeros");
    uint64_t missing = 0;
    struct pdp_fp_counts fc = {0};
    int rc = 0;
    for (unsigned i = 0; i < j->n_splits && rc == 0; i++)
        rc = run_split(d, x, j, &j->split[i],
                       j->on_the_fly && in && in->kind == want_kind ? in : NULL, &missing, &fc);
    dla_reg_hw_set(d, DLA_U_PDP, group, "D_INF_INPUT_NUM", dla_sat32(fc.inf_in));
    dla_reg_hw_set(d, DLA_U_PDP, group, "D_NAN_INPUT_NUM", dla_sat32(fc.nan_in));
    dla_reg_hw_set(d, DLA_U_PDP, group, "D_NAN_OUTPUT_NUM", dla_sat32(fc.nan_out));
    if (rc != 0)
        return -1;
    if (missing)
        dla_rule(d, DLA_U_PDP, "pdp.unreached_output",
                 "%llu output elements are covered by no input window (the hardware would "
                 "wait for them); written as 0",
                 (unsigned long long)missing);
    /* the pooling datapath moves pdp_throughput bytes a cycle (int16/fp16
     * elements at half the int8 rate): NVIDIA's RTL takes 4263 cycles for
     * nv_small's 8x8x64 int8 2x2/1 pooling (4160 elements, one a cycle) and
     * 1109 for nv_full's 8x8x64 int16 one (4096 elements, four a cycle),
     * latency included (tests/calibration) */
    uint64_t elems = datapath_elements(j) * j->bpe;
    unsigned tp = d->cfg->pdp_throughput ? d->cfg->pdp_throughput : 1;
    exec_compute(x, (elems + tp - 1) / tp,
                 (uint64_t)j->out_w * j->pool.out_h * j->n_surf * j->cpa * j->pool.kernel_w *
                     j->pool.kernel_h);
    return 0;
}

static int pdp_run(struct dla *d, struct dla_exec *x, const struct dla_stage *st,
                   const struct dla_cube *in, struct dla_cube *out)
{
    (void)out;
    return pdp_execute(d, x, st->group, st->rdma_group, in);
}

/* The programming-guide rules this unit checks: one row per id it passes to
 * dla_rule() (core/rules.c lists every entry's rows for "info rules"). */
static const struct dla_rule_info pdp_rules[] = {
    {"pdp.split_width", DLA_U_PDP, "PDP programming (offline with split width)",
     "every split has input: partial width plus overlap above zero"},
    {"pdp.rdma_mismatch", DLA_U_PDP_RDMA, "PDP programming",
     "PDP_RDMA's cube, format, kernel and split registers equal PDP's"},
    {"pdp.split_overlap", DLA_U_PDP, "PDP programming (offline with split width)",
     "partial input widths hold the overlap the kernel and stride need"},
    {"pdp.pad_below_kernel", DLA_U_PDP, "PDP programming", "each padding smaller than the kernel"},
    {"pdp.width_in_out", DLA_U_PDP, "PDP programming",
     "input width + padding = (output width - 1) * stride + kernel, per split"},
    {"pdp.split_out_sum", DLA_U_PDP, "PDP programming (offline with split width)",
     "the splits' output widths add up to CUBE_OUT_WIDTH"},
    {"pdp.channels", DLA_U_PDP, "PDP programming", "CUBE_OUT_CHANNEL equals CUBE_IN_CHANNEL"},
    {"pdp.method", DLA_U_PDP, "PDP programming", "POOLING_METHOD is average, max or min"},
    {"pdp.split_on_the_fly", DLA_U_PDP, "PDP programming (on-the-fly processing)",
     "split width is for offline pooling only"},
    {"pdp.flying_input", DLA_U_PDP, "PDP programming (on-the-fly processing)",
     "on the fly, PDP takes SDP's output cube in its own format"},
    {"pdp.unreached_output", DLA_U_PDP, "PDP programming",
     "every output element is covered by an input window"},
};

static const struct dla_perf_reg pdp_perf_regs[] = {
    {DLA_U_PDP_RDMA, true, "D_PERF_ENABLE", "DMA_EN", "D_PERF_READ_STALL",
     "PDP_RDMA.D_PERF_READ_STALL", DLA_PERF_STALL, DLA_C_PDP_RDMA},
    {DLA_U_PDP, false, "D_PERF_ENABLE", "DMA_EN", "D_PERF_WRITE_STALL", "PDP.D_PERF_WRITE_STALL",
     DLA_PERF_STALL, DLA_C_PDP_WDMA},
};

/* PDP takes SDP's output on the fly or reads memory through PDP_RDMA; on
 * the fly it reads nothing else, so it takes no RDMA group then. */
const struct dla_unit_entry pdp_unit = {
    .name = "PDP",
    .proc = DLA_P_PDP,
    .n_ports = 2,
    .ports = {{DLA_U_PDP, NULL}, {DLA_U_PDP_RDMA, NULL}},
    .main = DLA_U_PDP,
    .rdma = DLA_U_PDP_RDMA,
    .execute = pdp_run,
    .perf_regs = pdp_perf_regs,
    .n_perf_regs = sizeof pdp_perf_regs / sizeof pdp_perf_regs[0],
    .feeds = DLA_P_NONE,
    .input_on_the_fly = pdp_input_on_the_fly,
    .rules = pdp_rules,
    .n_rules = sizeof pdp_rules / sizeof pdp_rules[0],
};
