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
    int64_t v = acc;
    if (clip > 0) {
        if (clip > 62)
            clip = 62;
        uint64_t mag = acc < 0 ? (uint64_t)0 - (uint64_t)acc : (uint64_t)acc;
        mag = (mag + (1ull << (clip - 1))) >> clip; /* half away from zero */
        v = acc < 0 ? -(int64_t)mag : (int64_t)mag;
    }
    *sat = v > INT32_MAX || v < INT32_MIN;
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
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

/* True when some 48-bit partial sum of the layer could saturate. */
static bool may_saturate(const struct conv_operands *ops)
{
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

static void deliver(const struct conv_params *p, struct dla_cube *out, uint32_t row, uint32_t k,
                    int64_t acc, struct cacc_stats *st)
{
    uint32_t plane = p->out_w * p->out_h;
    uint32_t b = row / plane, pos = row % plane;
    bool sat;
    int32_t v = cacc_truncate(acc, p->clip_truncate, &sat);
    st->saturated += sat;
    out->v[cube_index(out, b, k, pos / p->out_w, pos % p->out_w)] = v;
}

void cmac_cacc_int(const struct conv_params *p, const struct conv_operands *ops,
                   struct dla_cube *out, struct cacc_stats *st)
{
    if (may_saturate(ops)) {
        for (uint32_t r = 0; r < ops->rows; r++)
            for (uint32_t k = 0; k < ops->kernels; k++)
                deliver(p, out, r, k,
                        ordered_sum(ops, ops->data + (size_t)r * ops->depth,
                                    ops->weight + (size_t)k * ops->depth),
                        st);
        return;
    }
    bool narrow = p->prec == CONV_INT8;
    int64_t *acc = malloc(sizeof *acc * BLOCK_ROWS * BLOCK_KERNELS);
    if (!acc)
        abort();
    for (uint32_t r0 = 0; r0 < ops->rows; r0 += BLOCK_ROWS) {
        uint32_t rn = ops->rows - r0 < BLOCK_ROWS ? ops->rows - r0 : BLOCK_ROWS;
        for (uint32_t k0 = 0; k0 < ops->kernels; k0 += BLOCK_KERNELS) {
            uint32_t kn = ops->kernels - k0 < BLOCK_KERNELS ? ops->kernels - k0 : BLOCK_KERNELS;
            cmac_block(ops, r0, rn, k0, kn, narrow, acc);
            for (uint32_t k = 0; k < kn; k++)
                for (uint32_t r = 0; r < rn; r++)
                    deliver(p, out, r0 + r, k0 + k, acc[(size_t)k * rn + r], st);
        }
    }
    free(acc);
}
