/* CACC, integer modes: accumulation of the MAC partial sums in a 48-bit
 * assembly buffer, then clip/truncate and saturation to int32 for SDP
 * (nvdla/hw cmod NV_NVDLA_cacc.cpp).
 *
 * The hardware adds one partial sum per atomic operation (one channel block,
 * one kernel tap) and saturates the 48-bit sum after each addition.  When
 * the largest possible |sum| of a layer stays below 2^47 no addition can
 * saturate and the result is the exact dot product, which cmac.c computes
 * fast; otherwise the partial sums are added one by one in the hardware's
 * order (channel block, then tap) with saturation. */
#include <stdlib.h>

#include "conv.h"
#include "num/fixpt.h"
#include "core/threads.h"

#define ACC48_MAX     ((int64_t)0x7fffffffffff)
#define ACC48_MIN     (-ACC48_MAX - 1)
#define BLOCK_ROWS    64u
#define BLOCK_KERNELS 64u

int64_t cacc_sat48(int64_t v)
{
    return v > ACC48_MAX ? ACC48_MAX : v < ACC48_MIN ? ACC48_MIN : v;
}

int32_t cacc_truncate(int64_t acc, unsigned clip, bool *sat)
{
    int64_t v = fix_shr_round(acc, clip);
    *sat = fix_overflows(v, 32);
    return (int32_t)fix_sat(v, 32);
}

/* cacc_truncate over a run, written so that the compiler can vectorise it;
 * returns the number of saturated outputs. */
static uint32_t truncate_run(const int64_t *acc, uint32_t n, unsigned clip, int32_t *out)
{
    if (clip > 62)
        clip = 62;
    const int64_t half = clip ? (int64_t)1 << (clip - 1) : 0;
    uint32_t sat = 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t v = acc[i];
        int64_t neg = v >> 63;                          /* 0 or -1 */
        int64_t mag = ((v ^ neg) - neg + half) >> clip; /* |v| < 2^62: no overflow */
        v = (mag ^ neg) - neg;
        int64_t c = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
        sat += c != v;
        out[i] = (int32_t)c;
    }
    return sat;
}

static int32_t max_abs(const int16_t *v, size_t n)
{
    int32_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t a = v[i] < 0 ? -(int32_t)v[i] : v[i];
        if (a > m)
            m = a;
    }
    return m;
}

/* True when some 48-bit partial sum of the layer could saturate.  Any
 * int16 product is at most 2^30, so short dot products never do and the
 * operands need not be scanned. */
static bool may_saturate(const struct conv_operands *ops)
{
    if ((uint64_t)ops->depth << 30 < (1ull << 47))
        return false;
    uint64_t a = (uint64_t)max_abs(ops->data, (size_t)ops->rows * ops->depth);
    uint64_t w = (uint64_t)max_abs(ops->weight, (size_t)ops->kernels * ops->depth);
    return a * w * (uint64_t)ops->depth >= (1ull << 47);
}

/* The hardware's order: per channel block, per tap, one partial sum. */
static int64_t ordered_sum(const struct conv_operands *ops, const int16_t *a, const int16_t *w)
{
    int64_t acc = 0;
    bool first = true;
    for (uint32_t c0 = 0; c0 < ops->c; c0 += ops->seg_len) {
        uint32_t nj = ops->c - c0 < ops->seg_len ? ops->c - c0 : ops->seg_len;
        for (uint32_t t = 0; t < ops->taps; t++) {
            size_t off = (size_t)ops->taps * c0 + (size_t)t * nj;
            int64_t part = cmac_dot_i16(a + off, w + off, nj);
            acc = first ? part : cacc_sat48(acc + part);
            first = false;
        }
    }
    return acc;
}

/* Output positions [r0, r0 + n) of kernels [k0, k0 + kn) into the cube,
 * kernel by kernel so that consecutive positions are written in order. */
static void deliver_block(const struct conv_params *p, struct dla_cube *out, uint32_t r0,
                          uint32_t n, uint32_t k0, uint32_t kn, const int64_t *acc,
                          uint64_t *saturated)
{
    uint32_t plane = p->out_w * p->out_h;
    size_t pos[BLOCK_ROWS];
    for (uint32_t r = 0; r < n; r++) {
        uint32_t row = r0 + r, b = row / plane, xy = row % plane;
        pos[r] = cube_index(out, b, k0, xy / p->out_w, xy % p->out_w);
    }
    uint64_t sat_count = 0;
    /* CACC delivers the output cube's channels only: kernels CSC computed
     * beyond them are dropped */
    if (k0 >= out->c)
        return;
    if (kn > out->c - k0)
        kn = out->c - k0;
    /* a block within one batch is a run of consecutive positions */
    bool run = pos[n - 1] - pos[0] == n - 1;
    for (uint32_t k = 0; k < kn; k++) {
        const int64_t *a = acc + (size_t)k * n;
        int32_t *dst = out->v + (size_t)k * plane;
        if (run) {
            sat_count += truncate_run(a, n, p->clip_truncate, dst + pos[0]);
            continue;
        }
        for (uint32_t r = 0; r < n; r++) {
            bool sat;
            dst[pos[r]] = cacc_truncate(a[r], p->clip_truncate, &sat);
            sat_count += sat;
        }
    }
    *saturated += sat_count;
}

struct cacc_job {
    const struct conv_params *p;
    const struct conv_operands *ops;
    const struct cmac_weights *cw;
    struct dla_cube *out;
    struct dla_parts row_blocks; /* taken by whichever worker is free */
    uint64_t saturated[DLA_MAX_THREADS];
};

/* Row blocks as the worker takes them: each block writes its own outputs
 * and adds to its taker's saturation count (summed after the job), so
 * neither depends on which worker takes it. */
static void run_blocks(void *arg, unsigned worker, unsigned workers)
{
    struct cacc_job *j = arg;
    const struct conv_operands *ops = j->ops;
    int64_t acc[BLOCK_ROWS * BLOCK_KERNELS];
    (void)workers;
    for (uint64_t b; dla_parts_take(&j->row_blocks, &b);) {
        uint32_t r0 = (uint32_t)b * BLOCK_ROWS;
        uint32_t rn = ops->rows - r0 < BLOCK_ROWS ? ops->rows - r0 : BLOCK_ROWS;
        for (uint32_t k0 = 0; k0 < ops->kernels; k0 += BLOCK_KERNELS) {
            uint32_t kn = ops->kernels - k0 < BLOCK_KERNELS ? ops->kernels - k0 : BLOCK_KERNELS;
            cmac_block(ops, j->cw, r0, rn, k0, kn, acc);
            deliver_block(j->p, j->out, r0, rn, k0, kn, acc, &j->saturated[worker]);
        }
    }
}

static void ordered_path(const struct conv_params *p, const struct conv_operands *ops,
                         struct dla_cube *out, struct cacc_stats *st)
{
    int64_t acc[1];
    for (uint32_t r = 0; r < ops->rows; r++)
        for (uint32_t k = 0; k < ops->kernels; k++) {
            acc[0] = ordered_sum(ops, ops->data + (size_t)r * ops->depth,
                                 ops->weight + (size_t)k * ops->depth);
            deliver_block(p, out, r, 1, k, 1, acc, &st->saturated);
        }
}

void cmac_cacc_int(const struct conv_params *p, const struct conv_operands *ops,
                   struct dla_cube *out, struct cacc_stats *st)
{
    struct cmac_weights cw;
    if (!may_saturate(ops))
        cmac_split_weights(ops, p->prec == CONV_INT8, &cw);
    else
        cw.parts = 0;
    if (cw.parts == 0) {
        ordered_path(p, ops, out, st);
        return;
    }
    uint32_t blocks = (ops->rows + BLOCK_ROWS - 1) / BLOCK_ROWS;
    struct cacc_job job = {.p = p, .ops = ops, .cw = &cw, .out = out};
    dla_parts_init(&job.row_blocks, blocks);
    dla_parallel(dla_workers_for(blocks), run_blocks, &job);
    for (unsigned t = 0; t < DLA_MAX_THREADS; t++)
        st->saturated += job.saturated[t];
    cmac_weights_free(&cw);
}
