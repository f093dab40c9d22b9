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
 * chunks of 2^16 values are safe.  Full int16 data is split into a signed
 * high byte and an unsigned low byte (x = 256 * hi + lo); each half times an
 * int16 weight stays below 2^23, so chunks of 256 values are safe. */
#include <stdlib.h>

#include "conv.h"

#define NARROW_CHUNK 65536u
#define WIDE_CHUNK   256u

int64_t cmac_dot_i16(const int16_t *a, const int16_t *b, uint32_t n)
{
    int64_t s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += (int32_t)a[i] * b[i];
    return s;
}

/* Two rows against four kernels over n values; every partial product and
 * int32 sum must fit (the caller chunks accordingly). */
static void dot_2x4(const int16_t *restrict a0, const int16_t *restrict a1,
                    const int16_t *restrict w0, const int16_t *restrict w1,
                    const int16_t *restrict w2, const int16_t *restrict w3, uint32_t n,
                    int32_t s[8])
{
    int32_t s00 = 0, s01 = 0, s02 = 0, s03 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0;
    for (uint32_t i = 0; i < n; i++) {
        int32_t x0 = a0[i], x1 = a1[i];
        s00 += x0 * w0[i];
        s01 += x0 * w1[i];
        s02 += x0 * w2[i];
        s03 += x0 * w3[i];
        s10 += x1 * w0[i];
        s11 += x1 * w1[i];
        s12 += x1 * w2[i];
        s13 += x1 * w3[i];
    }
    s[0] = s00, s[1] = s01, s[2] = s02, s[3] = s03;
    s[4] = s10, s[5] = s11, s[6] = s12, s[7] = s13;
}

static void dot_1x1(const int16_t *restrict a, const int16_t *restrict w, uint32_t n, int32_t *s)
{
    int32_t acc = 0;
    for (uint32_t i = 0; i < n; i++)
        acc += (int32_t)a[i] * w[i];
    *s = acc;
}

/* acc[k * rows_n + r] += a_rows . w_kernels * scale over the whole depth. */
static void block_pass(const int16_t *a, uint32_t depth, uint32_t r0, uint32_t rows_n,
                       const int16_t *w, uint32_t k0, uint32_t kern_n, uint32_t chunk,
                       int64_t scale, int64_t *acc)
{
    uint32_t r = 0;
    for (; r + 2 <= rows_n; r += 2) {
        const int16_t *a0 = a + (size_t)(r0 + r) * depth, *a1 = a0 + depth;
        uint32_t k = 0;
        for (; k + 4 <= kern_n; k += 4) {
            const int16_t *w0 = w + (size_t)(k0 + k) * depth;
            for (uint32_t i = 0; i < depth; i += chunk) {
                uint32_t n = depth - i < chunk ? depth - i : chunk;
                int32_t s[8];
                dot_2x4(a0 + i, a1 + i, w0 + i, w0 + depth + i, w0 + 2 * depth + i,
                        w0 + 3 * depth + i, n, s);
                for (int q = 0; q < 4; q++) {
                    acc[(size_t)(k + q) * rows_n + r] += scale * s[q];
                    acc[(size_t)(k + q) * rows_n + r + 1] += scale * s[4 + q];
                }
            }
        }
        for (; k < kern_n; k++)
            for (uint32_t q = 0; q < 2; q++)
                for (uint32_t i = 0; i < depth; i += chunk) {
                    uint32_t n = depth - i < chunk ? depth - i : chunk;
                    int32_t s;
                    dot_1x1(a + (size_t)(r0 + r + q) * depth + i, w + (size_t)(k0 + k) * depth + i,
                            n, &s);
                    acc[(size_t)k * rows_n + r + q] += scale * s;
                }
    }
    for (; r < rows_n; r++)
        for (uint32_t k = 0; k < kern_n; k++)
            for (uint32_t i = 0; i < depth; i += chunk) {
                uint32_t n = depth - i < chunk ? depth - i : chunk;
                int32_t s;
                dot_1x1(a + (size_t)(r0 + r) * depth + i, w + (size_t)(k0 + k) * depth + i, n, &s);
                acc[(size_t)k * rows_n + r] += scale * s;
            }
}

void cmac_block(const struct conv_operands *ops, uint32_t r0, uint32_t rows_n, uint32_t k0,
                uint32_t kern_n, bool narrow, int64_t *acc)
{
    for (size_t i = 0; i < (size_t)rows_n * kern_n; i++)
        acc[i] = 0;
    if (narrow) {
        block_pass(ops->data, ops->depth, r0, rows_n, ops->weight, k0, kern_n, NARROW_CHUNK, 1,
                   acc);
        return;
    }
    /* split the rows of this block into high and low bytes */
    size_t n = (size_t)rows_n * ops->depth;
    int16_t *hi = malloc(n * sizeof *hi), *lo = malloc(n * sizeof *lo);
    if (!hi || !lo)
        abort(); /* a few KiB per block: the operands themselves were allocated */
    const int16_t *src = ops->data + (size_t)r0 * ops->depth;
    for (size_t i = 0; i < n; i++) {
        hi[i] = (int16_t)(src[i] >> 8);
        lo[i] = (int16_t)(src[i] & 0xff);
    }
    block_pass(hi, ops->depth, 0, rows_n, ops->weight, k0, kern_n, WIDE_CHUNK, 256, acc);
    block_pass(lo, ops->depth, 0, rows_n, ops->weight, k0, kern_n, WIDE_CHUNK, 1, acc);
    free(hi);
    free(lo);
}
