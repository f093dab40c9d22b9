/* The bit-sliced Booth corrections of a whole cell (sim/conv/cmac_fp16_sliced.c)
 * against the bit-level reference: for each data row and kernel, the sum
 * over the cell's values of floor(P / 2^s) less the reference array's
 * product (cacc_fp16_booth), s the product's alignment below the cell's
 * top.  Cells of every aligned mantissa the format has (normals shifted by
 * the exponent's low two bits, subnormals), both signs, zeros, alignments
 * 0 to 56 (every one of 8 to 28 many times over), cells of 1 to 64 values
 * and cells at the counters' bounds; and the cells' tops (the largest h
 * + 64 of a product with no zero operand, 64 when none), which the cells
 * work out for the FMA cells, against a plain search.  Skipped on hosts
 * without the FMA cells (the layout and the cells need AVX-512). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conv_harness.h"

enum { L = CMAC_FP16_FMA_LANES, R = CMAC_FP16_FMA_ROWS, MAXJ = CMAC_FP16_FMA_CELL };
enum { STRIDE = MAXJ + 2, ZERO_H = 64 };

/* A cell's operands: data rows (mantissa, exponent part, 64 for a zero)
 * and the kernels' values (lane l of value j at L * j + l; h + 64, 0x80 a
 * zero). */
struct cell {
    uint32_t nj;
    int16_t dm[R][MAXJ];
    int8_t dh[R][MAXJ];
    int16_t wm[MAXJ * L];
    uint8_t wh[MAXJ * L];
};

/* The reference: what each row's sum against each kernel takes off. */
static void reference(const struct cell *c, int32_t want[R][L], uint32_t by_step[15])
{
    for (unsigned r = 0; r < R; r++)
        for (unsigned l = 0; l < L; l++) {
            int top = -1;
            for (uint32_t j = 0; j < c->nj; j++)
                if (c->dm[r][j] && c->wm[L * j + l] && c->dh[r][j] + c->wh[L * j + l] - 64 > top)
                    top = c->dh[r][j] + c->wh[L * j + l] - 64;
            int64_t off = 0;
            for (uint32_t j = 0; j < c->nj; j++) {
                int32_t d = c->dm[r][j], w = c->wm[L * j + l];
                if (!d || !w)
                    continue;
                unsigned s = (unsigned)(top - c->dh[r][j] - (c->wh[L * j + l] - 64));
                int64_t p = (int64_t)d * w;
                off += (p >> s) - cacc_fp16_booth((d ^ w) < 0, (uint32_t)abs(w), (uint32_t)abs(d), s);
                by_step[s / 4]++;
            }
            want[r][l] = (int32_t)off;
        }
}

/* The cell's tops per row and kernel as the FMA cells give them: the
 * largest h + 64 of a product with no zero operand, 64 when none. */
static void tops(const struct cell *c, uint8_t top[R][L])
{
    for (unsigned r = 0; r < R; r++)
        for (unsigned l = 0; l < L; l++) {
            int t = 64;
            for (uint32_t j = 0; j < c->nj; j++)
                if (c->dm[r][j] && c->wm[L * j + l] && c->dh[r][j] + c->wh[L * j + l] > t)
                    t = c->dh[r][j] + c->wh[L * j + l];
            top[r][l] = (uint8_t)t;
        }
}

/* The cell's values from `first` on of a layout of planes (stride
 * values a field) through the bit-sliced cells: their carries, and their
 * tops against tops()'. */
static void sliced_in(const struct cell *c, const uint32_t *planes, size_t first, size_t stride,
                      int32_t got[R][L])
{
    uint8_t want[R][L], top[R][L];
    tops(c, want);
    const int16_t *dm[R];
    const int8_t *dh[R];
    for (unsigned r = 0; r < R; r++)
        dm[r] = c->dm[r], dh[r] = c->dh[r];
    int8_t carried[R][L];
    cmac_fp16_sliced_cell(dm, dh, c->nj, planes, first, stride, top, carried);
    for (unsigned r = 0; r < R; r++)
        for (unsigned l = 0; l < L; l++) {
            if (top[r][l] != want[r][l])
                fail_msg("%u values: row %u kernel %u: top %u, want %u", c->nj, r, l, top[r][l],
                         want[r][l]);
            got[r][l] = carried[r][l];
        }
}

/* The cell's carries from the layout of planes (stride values a field,
 * the cell's values from `first` on) against the reference's. */
static void check_in(const struct cell *c, const uint32_t *planes, size_t first, size_t stride,
                     const char *what, uint32_t n, uint32_t by_step[15])
{
    int32_t want[R][L], got[R][L];
    reference(c, want, by_step);
    sliced_in(c, planes, first, stride, got);
    for (unsigned r = 0; r < R; r++)
        for (unsigned l = 0; l < L; l++)
            if (got[r][l] != want[r][l])
                fail_msg("%s %u (%u values): row %u kernel %u: %d, want %d", what, n, c->nj, r,
                         l, got[r][l], want[r][l]);
}

/* The cell through a layout of its own values. */
static void check(const struct cell *c, const char *what, uint32_t n, uint32_t by_step[15])
{
    static uint32_t planes[CMAC_FP16_SLICED_FIELDS * STRIDE];
    cmac_fp16_sliced_layout(c->wm, c->wh, c->nj, STRIDE, planes);
    check_in(c, planes, 0, STRIDE, what, n, by_step);
}

/* A signed mantissa from the list (zero one time in zero_in, if given). */
static int16_t pick(const uint32_t *m, uint32_t at, uint32_t *st, uint32_t zero_in)
{
    if (zero_in && lcg(st) % zero_in == 0)
        return 0;
    int32_t v = (int32_t)m[at];
    return (int16_t)(lcg(st) % 2 ? -v : v);
}

/* A random exponent part (0 to 28) for a data value, 64 for a zero; for a
 * weight, as the layout holds it: h + 64, 0x80 for a zero. */
static int8_t data_h(int16_t m, uint32_t *st)
{
    return m ? (int8_t)(4 * (lcg(st) % 8)) : ZERO_H;
}

static uint8_t weight_h(int16_t m, uint32_t *st)
{
    return m ? (uint8_t)(64 + 4 * (lcg(st) % 8)) : 0x80;
}

/* The cell's data rows at random from the mantissas (zero 1 in 29). */
static void random_rows(struct cell *c, const uint32_t *m, uint32_t n, uint32_t *st)
{
    for (unsigned r = 0; r < R; r++)
        for (uint32_t j = 0; j < c->nj; j++) {
            c->dm[r][j] = pick(m, lcg(st) % n, st, 29);
            c->dh[r][j] = data_h(c->dm[r][j], st);
        }
}

/* Every weight mantissa (a cell's 32 x 32 weights walk the list), random
 * data, exponent parts 0 to 28 on both sides: alignments 0 to 56. */
static void test_every_mantissa_and_alignment(void **state)
{
    (void)state;
    if (!cmac_fp16_fma())
        skip();
    static uint32_t m[5 * 1024];
    uint32_t n = fp16_aligned_mantissas(m), st = 34, by_step[15] = {0};
    static struct cell c;
    for (uint32_t k = 0; k < 48; k++) {
        c.nj = 32;
        random_rows(&c, m, n, &st);
        for (uint32_t i = 0; i < c.nj * L; i++) {
            c.wm[i] = pick(m, (k * c.nj * L + i) % n, &st, 31);
            c.wh[i] = weight_h(c.wm[i], &st);
        }
        check(&c, "cell", k, by_step);
    }
    for (unsigned s = 2; s <= 7; s++) /* alignments of 8 to 28, each many times */
        if (by_step[s] < 10000)
            fail_msg("only %u products aligned by %u", by_step[s], 4 * s);
}

/* Cells of 1 to 64 values (odd counts leave half a batch), with whole rows,
 * kernels and values of zeros. */
static void test_cell_sizes_and_zeros(void **state)
{
    (void)state;
    if (!cmac_fp16_fma())
        skip();
    static uint32_t m[5 * 1024];
    uint32_t n = fp16_aligned_mantissas(m), st = 7, by_step[15] = {0};
    static struct cell c;
    for (uint32_t nj = 1; nj <= MAXJ; nj++) {
        memset(&c, 0, sizeof c);
        c.nj = nj;
        for (unsigned r = 0; r < R; r++)
            for (uint32_t j = 0; j < nj; j++) {
                bool zero = r == 3 || j % 9 == 4;
                c.dm[r][j] = zero ? 0 : pick(m, lcg(&st) % n, &st, 0);
                c.dh[r][j] = data_h(c.dm[r][j], &st);
            }
        for (uint32_t j = 0; j < nj; j++)
            for (unsigned l = 0; l < L; l++) {
                bool zero = l == 17 || (j + l) % 13 == 0;
                c.wm[L * j + l] = zero ? 0 : pick(m, lcg(&st) % n, &st, 0);
                c.wh[L * j + l] = weight_h(c.wm[L * j + l], &st);
            }
        check(&c, "values", nj, by_step);
    }
}

/* The counters' bounds: 64 values whose every product is negative and
 * aligned by 32 or more (+1 each), and 64 whose every product is aligned
 * by 8 with a carry out (-1 each), found among the mantissas. */
static void test_counter_bounds(void **state)
{
    (void)state;
    if (!cmac_fp16_fma())
        skip();
    static struct cell c;
    uint32_t by_step[15] = {0};
    memset(&c, 0, sizeof c);
    c.nj = MAXJ;
    for (unsigned r = 0; r < R; r++)
        for (uint32_t j = 0; j < MAXJ; j++) {
            c.dm[r][j] = (int16_t)(j == 0 ? 0x7ff : -(int16_t)(0x400 + 17 * j + r));
            c.dh[r][j] = (int8_t)(j == 0 ? 28 : 0);
        }
    for (uint32_t i = 0; i < MAXJ * L; i++) {
        c.wm[i] = (int16_t)(i < L ? -0x7ff : 0x500 + (int16_t)(i % 301));
        c.wh[i] = (uint8_t)(64 + (i < L ? 28 : 0));
    }
    check(&c, "far", 0, by_step);
    /* a data value and weight whose product aligned by 8 carries, everywhere */
    uint32_t st = 99;
    int16_t d = 0, w = 0;
    for (int tries = 0; tries < 100000 && !d; tries++) {
        int16_t a = (int16_t)(0x400 + lcg(&st) % 0x400), b = (int16_t)(0x400 + lcg(&st) % 0x400);
        if (((int64_t)a * b >> 8) != cacc_fp16_booth(0, (uint32_t)b, (uint32_t)a, 8))
            d = a, w = b;
    }
    assert_true(d != 0);
    for (unsigned r = 0; r < R; r++)
        for (uint32_t j = 0; j < MAXJ; j++) {
            c.dm[r][j] = d;
            c.dh[r][j] = (int8_t)(j == 0 ? 8 : 0);
        }
    for (uint32_t i = 0; i < MAXJ * L; i++) {
        c.wm[i] = w;
        c.wh[i] = 64 + 8; /* value 0 holds the top (16), the others are aligned by 8 */
    }
    check(&c, "carries", 0, by_step);
}

/* Cells in the middle of a longer layout (a kernel block's every value,
 * as the layer lays them out once): each cell from its first value on,
 * odd and even, reads its own values' tables and masks, and a cell's last
 * value's neighbour (the next cell's first) does not leak into a half
 * batch. */
static void test_cells_of_a_longer_layout(void **state)
{
    (void)state;
    if (!cmac_fp16_fma())
        skip();
    enum { N = 3 * MAXJ + 7, LONG = N + 2 };
    static uint32_t m[5 * 1024];
    static int16_t wm[N * L];
    static uint8_t wh[N * L];
    static uint32_t planes[CMAC_FP16_SLICED_FIELDS * LONG];
    uint32_t n = fp16_aligned_mantissas(m), st = 61, by_step[15] = {0};
    for (uint32_t i = 0; i < N * L; i++) {
        wm[i] = pick(m, lcg(&st) % n, &st, 23);
        wh[i] = weight_h(wm[i], &st);
    }
    cmac_fp16_sliced_layout(wm, wh, N, LONG, planes);
    static const uint32_t firsts[] = {0, 1, 9, 64, 77, 128, 130, N - 33, N - 1};
    static struct cell c;
    for (unsigned k = 0; k < sizeof firsts / sizeof *firsts; k++) {
        uint32_t first = firsts[k], left = N - first;
        c.nj = 1 + lcg(&st) % (left < MAXJ ? left : MAXJ);
        if (k % 2) /* an odd count: a half batch at the end */
            c.nj |= 1;
        c.nj = c.nj > left ? left : c.nj;
        random_rows(&c, m, n, &st);
        memcpy(c.wm, wm + (size_t)L * first, sizeof *wm * L * c.nj);
        memcpy(c.wh, wh + (size_t)L * first, sizeof *wh * L * c.nj);
        check_in(&c, planes, first, LONG, "cell from value", first, by_step);
    }
}

/* Batches whose 16 data values are all zero (both values of every row:
 * padding) have no products and are skipped; the batches around them, and
 * a cell of zeros only, come out as the reference says. */
static void test_batches_of_zeros(void **state)
{
    (void)state;
    if (!cmac_fp16_fma())
        skip();
    static uint32_t m[5 * 1024];
    uint32_t n = fp16_aligned_mantissas(m), st = 5, by_step[15] = {0};
    static struct cell c;
    for (uint32_t nj = 1; nj <= MAXJ; nj += 7) {
        for (unsigned pass = 0; pass < 2; pass++) {
            memset(&c, 0, sizeof c);
            c.nj = nj;
            for (unsigned r = 0; r < R; r++)
                for (uint32_t j = 0; j < nj; j++) {
                    bool zero = pass == 1 || (j / 2) % 3 == 1 || (j == nj - 1 && nj % 2);
                    c.dm[r][j] = zero ? 0 : pick(m, lcg(&st) % n, &st, 0);
                    c.dh[r][j] = data_h(c.dm[r][j], &st);
                }
            for (uint32_t i = 0; i < nj * L; i++) {
                c.wm[i] = pick(m, lcg(&st) % n, &st, 0);
                c.wh[i] = weight_h(c.wm[i], &st);
            }
            check(&c, pass ? "zeros only" : "zero batches", nj, by_step);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_mantissa_and_alignment),
        cmocka_unit_test(test_cell_sizes_and_zeros),
        cmocka_unit_test(test_counter_bounds),
        cmocka_unit_test(test_cells_of_a_longer_layout),
        cmocka_unit_test(test_batches_of_zeros),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
