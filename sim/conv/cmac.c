/* CMAC, integer modes: exact dot products of int16 operand rows.
 *
 * The hardware's MAC cells produce exact partial sums (22 bits for int8, 38
 * for int16) that CACC adds up, so an integer convolution is an exact dot
 * product as long as no 48-bit accumulator saturates (cacc.c checks that).
 * The work here is to do it fast with portable code the compiler can
 * vectorise: products are accumulated in int32 lanes, which is exact while a
 * chunk of the dot product cannot overflow them, and chunks are summed in
 * int64.
 *
 * Narrow operands (int8 values on both sides) give products below 2^14, so
 * chunks of 2^16 values are safe.  Full int16 weights are split once into a
 * signed high byte and an unsigned low byte (w = 256 * hi + lo); int16 data
 * times either half stays below 2^23, so chunks of 256 values are safe. */
#include <stdlib.h>

#include "conv.h"
#include "num/hot_clones.h"

#define NARROW_CHUNK 65536u
#define WIDE_CHUNK   256u

int64_t cmac_dot_i16(const int16_t *a, const int16_t *b, uint32_t n)
{
    int64_t s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += (int32_t)a[i] * b[i];
    return s;
}

/* Four rows against four kernels over n values; every product and int32
 * partial sum must fit (the caller chunks accordingly). */
static inline void dot_4x4(const int16_t *restrict a, uint32_t lda, const int16_t *restrict w,
                           uint32_t ldw, uint32_t n, int32_t s[16])
{
    int32_t acc[16] = {0};
    const int16_t *a0 = a, *a1 = a + lda, *a2 = a + 2 * (size_t)lda, *a3 = a + 3 * (size_t)lda;
    const int16_t *w0 = w, *w1 = w + ldw, *w2 = w + 2 * (size_t)ldw, *w3 = w + 3 * (size_t)ldw;
    for (uint32_t i = 0; i < n; i++) {
        int32_t x0 = a0[i], x1 = a1[i], x2 = a2[i], x3 = a3[i];
        int32_t y0 = w0[i], y1 = w1[i], y2 = w2[i], y3 = w3[i];
        acc[0] += x0 * y0, acc[1] += x0 * y1, acc[2] += x0 * y2, acc[3] += x0 * y3;
        acc[4] += x1 * y0, acc[5] += x1 * y1, acc[6] += x1 * y2, acc[7] += x1 * y3;
        acc[8] += x2 * y0, acc[9] += x2 * y1, acc[10] += x2 * y2, acc[11] += x2 * y3;
        acc[12] += x3 * y0, acc[13] += x3 * y1, acc[14] += x3 * y2, acc[15] += x3 * y3;
    }
    for (int q = 0; q < 16; q++)
        s[q] = acc[q];
}

static inline void dot_1x1(const int16_t *restrict a, const int16_t *restrict w, uint32_t n,
                           int32_t *s)
{
    int32_t acc = 0;
    for (uint32_t i = 0; i < n; i++)
        acc += (int32_t)a[i] * w[i];
    *s = acc;
}

/* acc[k * rows_n + r] += scale * (row r0+r . kernel k0+k) over the whole
 * depth, in chunks of at most chunk values.  Compiled for the x86-64
 * baseline and for x86-64-v3 (AVX2) and v4 (AVX-512) where the compiler
 * supports it, chosen at run time: the same binary runs anywhere. */
DLA_HOT_CLONES static void block_pass(const int16_t *a, uint32_t depth, uint32_t rows_n,
                                      const int16_t *w, uint32_t kern_n, uint32_t chunk,
                                      int64_t scale, int64_t *acc)
{
    uint32_t r4 = rows_n & ~3u, k4 = kern_n & ~3u;
    for (uint32_t r = 0; r < r4; r += 4)
        for (uint32_t k = 0; k < k4; k += 4)
            for (uint32_t i = 0; i < depth; i += chunk) {
                uint32_t n = depth - i < chunk ? depth - i : chunk;
                int32_t s[16];
                dot_4x4(a + (size_t)r * depth + i, depth, w + (size_t)k * depth + i, depth, n, s);
                for (uint32_t q = 0; q < 16; q++)
                    acc[(size_t)(k + q % 4) * rows_n + r + q / 4] += scale * s[q];
            }
    for (uint32_t r = 0; r < rows_n; r++)
        for (uint32_t k = (r < r4 ? k4 : 0); k < kern_n; k++)
            for (uint32_t i = 0; i < depth; i += chunk) {
                uint32_t n = depth - i < chunk ? depth - i : chunk;
                int32_t s;
                dot_1x1(a + (size_t)r * depth + i, w + (size_t)k * depth + i, n, &s);
                acc[(size_t)k * rows_n + r] += scale * s;
            }
}

/* Pack each part for the SIMD kernel when the host has one. */
static void pack_parts(const struct conv_operands *ops, struct cmac_weights *cw)
{
    unsigned lanes = cmac_simd_lanes();
    if (!lanes)
        return;
    for (int p = 0; p < cw->parts; p++) {
        cw->packed[p] = cmac_simd_pack(cw->w[p], ops->kernels, ops->depth, lanes);
        if (!cw->packed[p]) { /* fall back on the portable kernel */
            free(cw->packed[0]);
            cw->packed[0] = cw->packed[1] = NULL;
            return;
        }
    }
    cw->lanes = lanes;
}

void cmac_split_weights(const struct conv_operands *ops, bool narrow, struct cmac_weights *cw)
{
    *cw = (struct cmac_weights){.parts = 1, .chunk = NARROW_CHUNK};
    cw->w[0] = ops->weight;
    cw->scale[0] = 1;
    if (narrow) {
        pack_parts(ops, cw);
        return;
    }
    size_t n = (size_t)ops->kernels * ops->depth;
    int16_t *hi = malloc(n * sizeof *hi), *lo = malloc(n * sizeof *lo);
    if (!hi || !lo) { /* fall back on the order-preserving scalar path */
        free(hi);
        free(lo);
        cw->parts = 0;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        hi[i] = (int16_t)(ops->weight[i] >> 8); /* signed high byte */
        lo[i] = (int16_t)(ops->weight[i] & 0xff);
    }
    cw->owned[0] = hi;
    cw->owned[1] = lo;
    cw->w[0] = hi;
    cw->w[1] = lo;
    cw->scale[0] = 256;
    cw->scale[1] = 1;
    cw->parts = 2;
    cw->chunk = WIDE_CHUNK;
    pack_parts(ops, cw);
}

void cmac_weights_free(struct cmac_weights *cw)
{
    free(cw->owned[0]);
    free(cw->owned[1]);
    free(cw->packed[0]);
    free(cw->packed[1]);
    cw->owned[0] = cw->owned[1] = cw->packed[0] = cw->packed[1] = NULL;
}

void cmac_block(const struct conv_operands *ops, const struct cmac_weights *cw, uint32_t r0,
                uint32_t rows_n, uint32_t k0, uint32_t kern_n, int64_t *acc)
{
    for (size_t i = 0; i < (size_t)rows_n * kern_n; i++)
        acc[i] = 0;
    const int16_t *a = ops->data + (size_t)r0 * ops->depth;
    if (cw->lanes) {
        for (int p = 0; p < cw->parts; p++)
            cmac_simd_block(a, ops->depth, rows_n, cw->packed[p], k0, kern_n, cw->lanes, cw->chunk,
                            cw->scale[p], acc);
        return;
    }
    for (int p = 0; p < cw->parts; p++)
        block_pass(a, ops->depth, rows_n, cw->w[p] + (size_t)k0 * ops->depth, kern_n, cw->chunk,
                   cw->scale[p], acc);
}
