/* The fp16 MAC cells as CMAC runs them on a whole pass (cmac_cacc_fp16:
 * the FMA cells on hosts with AVX-512 VBMI, else the 16-kernel AVX-512
 * cells or the portable loops), every output against the bit-level
 * reference (cacc_fp16_output: cacc_fp16_mac_cell per atomic operation and
 * CACC's adds), on operands chosen to reach each way the cells settle a
 * product:
 *  - a cell's top confirmed from the row's and the kernel's maxima, and not
 *    (the maxima in different values: the tops taken the long way);
 *  - products aligned by 0 to 56 bits: data and weights 4, 8 or more below
 *    their row's or kernel's largest (carry8, the 16-bit Booth array, the
 *    queue for the 32-bit one, and alignments of 32 or more, which the
 *    hardware drops);
 *  - cells with hundreds of small weights, a kernel's run of them longer
 *    than the 32 entries settled at a time;
 *  - mantissas of every Booth digit pattern, both signs, where the cells
 *    build the 16-bit array in their own ways (a chunk's small weights
 *    recoded once for every row, a small data value's partial products
 *    as tables) or pair carry8 lookups;
 *  - subnormals, infinities (a large exponent to the MAC), zeros, rows,
 *    kernels and cells of zeros, products that cancel, NaNs (the reference
 *    path), and padding past the used values that holds NaNs nobody reads.
 * Each case also runs on 1 and 3 workers, with every cell bit-sliced
 * (DLADBG_ALL_SLICED: cmac_fp16_sliced.c, which the cells otherwise pick
 * for cells of spread exponents) and with the other cells (DLADBG_NO_VBMI,
 * DLADBG_NO_SIMD): the same bits every time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "conv/conv.h"
#include "core/cube.h"

/* 17 x 6 output positions (102 rows: the FMA cells' blocks of 4 end in a
 * block of 2), 40 kernels (a block of 32 and one of 8), 3 taps of 70
 * channels (atomic operations of 64 and of 6 channels), padded to 224. */
enum { OUT_W = 17, OUT_H = 6, ROWS = OUT_W * OUT_H, KERNELS = 40, TAPS = 3, CH = 70, SEG = 64 };
enum { USED = TAPS * CH, DEPTH = 224 };

static uint32_t next(uint32_t *st)
{
    *st = *st * 1664525u + 1013904223u;
    return *st >> 8;
}

static uint16_t fp16(uint32_t sign, uint32_t exp, uint32_t frac)
{
    return (uint16_t)(sign << 15 | exp << 10 | (frac & 0x3ffu));
}

/* How a case fills value i (channel c of tap t) of row or kernel `index`. */
typedef uint16_t (*value_fn)(uint32_t *st, bool weight, uint32_t index, uint32_t i);

/* The bench's kind of values: exponents a few apart, 1% subnormals, zeros. */
static uint16_t moderate(uint32_t *st, bool weight, uint32_t index, uint32_t i)
{
    (void)index, (void)i;
    uint32_t r = next(st);
    if (r % 97 == 0)
        return fp16(r >> 20 & 1, 0, 1 + r % 0x3ff);
    if (r % 53 == 0)
        return fp16(r >> 21 & 1, 0, 0);
    return fp16(r >> 20 & 1, (weight ? 8 : 12) + r % 7, r >> 9);
}

/* Every exponent, subnormals, zeros and infinities: products aligned by
 * anything from 0 to 56 bits, most by 20 or more. */
static uint16_t spread(uint32_t *st, bool weight, uint32_t index, uint32_t i)
{
    (void)weight, (void)index, (void)i;
    uint32_t r = next(st), pick = r % 200;
    if (pick == 0)
        return fp16(r >> 20 & 1, 31, 0);
    if (pick < 12)
        return fp16(r >> 20 & 1, 0, 0);
    if (pick < 24)
        return fp16(r >> 20 & 1, 0, 1 + (r >> 9) % 0x3ff);
    return fp16(r >> 20 & 1, 1 + (r >> 8) % 30, r >> 12);
}

/* The row's largest values on even channels, the kernels' on odd ones (for
 * two rows in three and three kernels in four): no value holds both
 * maxima, and the cells take their tops the long way, beside rows and
 * kernels whose maxima meet. */
static uint16_t maxima_apart(uint32_t *st, bool weight, uint32_t index, uint32_t i)
{
    uint32_t r = next(st);
    bool apart = weight ? index % 4 != 3 : index % 3 != 0;
    bool big = apart ? (i % 2 == (weight ? 1u : 0u)) : r % 2 == 0;
    uint32_t exp = big ? 24 + r % 4 : 5 + r % 14;
    if (r % 41 == 0)
        return fp16(r >> 20 & 1, 0, 1 + (r >> 9) % 0x3ff);
    return fp16(r >> 20 & 1, exp, r >> 9);
}

/* Products aligned by exactly 8, 12, 16, 20, 28 and 32 bits below a cell's
 * top: the data a whole number of exponent groups (4 x 2^2) below the
 * row's largest, the weights below the kernel's, mantissas at their edges
 * (all ones, the implicit one alone, the largest subnormal). */
static uint16_t every_alignment(uint32_t *st, bool weight, uint32_t index, uint32_t i)
{
    (void)index;
    static const uint32_t fracs[] = {0x3ff, 0, 0x200, 0x155, 0x2aa, 0x001};
    uint32_t r = next(st), frac = fracs[r % 6];
    if (i % 11 == 0) /* the group of the row's / kernel's largest */
        return fp16(r >> 20 & 1, 28 + (r >> 4) % 3, frac);
    uint32_t below = (r >> 8) % 8; /* 0 to 7 groups of 4 below */
    if (below == 7)
        return fp16(r >> 20 & 1, 0, frac ? frac : 0x3ff);
    return fp16(r >> 20 & 1, (weight ? 28 : 29) - 4 * below + (r >> 12) % 2, frac);
}

/* Products that cancel: channels in pairs, the weight negated in the
 * second, the data repeated; every seventh row and kernel zero (rows of
 * padding, kernels of zeros), and one tap of some rows zero (cells with
 * nothing in them). */
static uint16_t cancelling(uint32_t *st, bool weight, uint32_t index, uint32_t i)
{
    static uint16_t pair;
    if (index % 7 == 5 || (!weight && index % 5 == 1 && i / CH == 1))
        return (uint16_t)(next(st) % 2 ? 0x8000u : 0);
    if (i % 2 == 0) {
        uint32_t r = next(st);
        pair = fp16(r >> 20 & 1, 6 + r % 20, r >> 9);
        return pair;
    }
    return weight ? pair ^ 0x8000u : pair;
}

/* Weights of few significant bits, as quantised ones are: at their
 * kernel's largest, 4 below, and one in four exactly 8 below with the low
 * byte of the aligned mantissa clear (the quiet small weights, which the
 * FMA cells settle only against data 8 or more below: by 16 bits against
 * data exactly 8 below, which one value in four is), some subnormal;
 * data at the row's largest, 4, 8 and 16 below, mantissas of every
 * bit. */
static uint16_t quiet_weights(uint32_t *st, bool weight, uint32_t index, uint32_t i)
{
    (void)index, (void)i;
    uint32_t r = next(st), pick = (r >> 4) % 8;
    if (!weight)
        return pick == 7 ? fp16(r & 1, 0, 1 + (r >> 9) % 0x3ff)
                         : fp16(r & 1, (pick < 4 ? 16 : pick < 6 ? 8 : 12) + (r >> 12) % 4, r >> 9);
    if (pick < 2) /* 8 below, low byte clear: the exponent's low bits shift it further */
        return fp16(r & 1, 4 + (r >> 12) % 4, (r >> 9) & 0x300);
    if (pick == 2)
        return fp16(r & 1, 0, 1 + (r >> 9) % 0x3ff);
    return fp16(r & 1, (pick < 5 ? 12 : 8) + (r >> 12) % 4, (r >> 9) & 0x3f0);
}

/* The fraction bits of a value of exponent field e whose aligned mantissa
 * (the fraction and implicit one shifted by e's low two bits) has its low
 * `clear` bits clear, and with `lowest` its bit clear - 1 set as well. */
static uint32_t frac_low_clear(uint32_t frac, uint32_t e, uint32_t clear, bool lowest)
{
    uint32_t shift = clear - (e & 3u); /* the fraction's bits below it */
    frac &= ~((1u << shift) - 1u);
    return lowest ? frac | 1u << (shift - 1) : frac;
}

/* Weights at the edges of the rules that spare a data value exactly 8
 * below its row's largest any carry (struct cmac_fp16_fma_block's by8):
 * at their kernel's largest with the aligned mantissa's low four bits
 * clear, or only its low three (bit 3 the lowest set: carry8 applies), 4
 * below with its low byte clear, or only its low seven, and quiet ones 8
 * below, no subnormal; data at its row's largest, 4 and 8 below, every
 * mantissa.  Cells that left out a lane a bit too many (a rule one bit
 * wider than it is) miss carries here. */
static uint16_t few_bit_edges(uint32_t *st, bool weight, uint32_t index, uint32_t i)
{
    (void)index, (void)i;
    uint32_t r = next(st), pick = (r >> 4) % 8, sign = r & 1u, frac = r >> 9;
    if (!weight)
        return fp16(sign, (pick < 3 ? 16 : pick < 5 ? 12 : 8) + (r >> 12) % 4, frac);
    uint32_t e = (pick < 4 ? 12 : pick < 7 ? 8 : 4) + (r >> 12) % 4;
    bool lowest = (r >> 14) % 2 == 0 && pick < 7;
    return fp16(sign, e, frac_low_clear(frac, e, pick < 4 ? 4 : 8, lowest));
}

/* Moderate values with a NaN in a few rows and kernels (those outputs take
 * the reference path) and infinities elsewhere. */
static uint16_t with_nans(uint32_t *st, bool weight, uint32_t index, uint32_t i)
{
    uint32_t r = next(st);
    if (i == 17 && index % (weight ? 13 : 29) == 3)
        return fp16(r & 1, 31, 1 + r % 0x3ff);
    if (r % 211 == 0)
        return fp16(r >> 20 & 1, 31, 0);
    return moderate(st, weight, index, i);
}

/* Kernels whose cells hold runs of small weights (8 to 20 bits below the
 * kernel's largest, every value but the largest's of one kernel in four,
 * one value in three of another): a cell's list of them is hundreds of
 * entries long, a kernel's run of entries crosses the 32-entry chunks the
 * cells settle them in, and kernels with none or one sit between; the data
 * 0, 4 or 8 below its row's largest. */
static uint16_t small_runs(uint32_t *st, bool weight, uint32_t index, uint32_t i)
{
    uint32_t r = next(st), frac = r >> 9;
    if (!weight)
        return fp16(r >> 20 & 1, 26 - 4 * (r % 3) + (r >> 4) % 2, frac);
    bool largest = i % 13 == 0;
    bool small = !largest && (index % 4 == 1 || (index % 4 == 2 && i % 3 == 0));
    if (small)
        return (r >> 5) % 9 == 0 ? fp16(r >> 20 & 1, 0, 1 + frac % 0x3ff)
                                 : fp16(r >> 20 & 1, 24 - 8 - 4 * ((r >> 5) % 3), frac);
    return fp16(r >> 20 & 1, largest ? 24 + (r >> 4) % 2 : 20 + (r >> 4) % 4, frac);
}

/* Mantissas of every Booth digit pattern (alternating bits, all ones,
 * lone bits, runs), both signs, where the FMA cells build the array in
 * their own ways: small weights (subnormal, or 8 below their kernel's
 * largest) against the rows (a chunk's weights recoded once for both signs
 * of a product), small data values against a value's 32 weights (the
 * value's partial products as tables), values 4 below their row's largest
 * against weights 4 below their kernel's (carry8, two values of a row at
 * a time and an odd one alone).  Even rows have their largest values 2 to
 * 16 (small data 12 and 16 below: aligned by 12 to 28), odd rows 2^12 to
 * 2^15 (small data 16 and 28 below: negative products with the small
 * weights aligned by 32 or more, which the hardware drops). */
static uint16_t booth_patterns(uint32_t *st, bool weight, uint32_t index, uint32_t i)
{
    static const uint32_t fracs[] = {0x155, 0x2aa, 0x3ff, 0x000, 0x001, 0x200, 0x0f0, 0x30c};
    uint32_t r = next(st), sign = r >> 20 & 1, frac = fracs[(r >> 4) % 8], up = (r >> 8) % 3;
    if (weight) {
        switch ((i + index) % 29) {
        case 0: /* subnormal: a small weight 12 below */
            return fp16(sign, 0, frac ? frac : 0x3ff);
        case 1: /* 8 below: a small weight */
            return fp16(sign, 4 + up, frac);
        case 2:
        case 3: /* 4 below */
            return fp16(sign, 8 + up, frac);
        default: /* the kernel's largest group: exponents 12 to 14 */
            return fp16(sign, 12 + up, i % 2 ? frac : r >> 9);
        }
    }
    uint32_t top = index % 2 ? 28 : 16;
    switch ((7 * i + index) % 37) {
    case 0: /* subnormal: 16 or 28 below */
        return fp16(sign, 0, frac ? frac : 0x155);
    case 1: /* 12 or 16 below */
        return fp16(sign, index % 2 ? 12 + up : 4 + up, frac);
    case 2:
    case 3:
    case 4:
    case 5: /* 4 below */
        return fp16(sign, top - 4 + up, frac);
    case 6: /* 8 below */
        return fp16(sign, top - 8 + up, frac);
    default:
        return fp16(sign, top + up, i % 2 ? frac : r >> 9);
    }
}

/* A pass of the case's operands, padding values NaNs. */
static void fill(value_fn fn, uint32_t seed, int16_t *data, int16_t *weight)
{
    uint32_t st = seed;
    for (uint32_t r = 0; r < ROWS; r++)
        for (uint32_t i = 0; i < DEPTH; i++)
            data[r * DEPTH + i] = (int16_t)(i < USED ? fn(&st, false, r, i) : 0x7e00u);
    for (uint32_t k = 0; k < KERNELS; k++)
        for (uint32_t i = 0; i < DEPTH; i++)
            weight[k * DEPTH + i] = (int16_t)(i < USED ? fn(&st, true, k, i) : 0xfe01u);
}

/* The pass into out; CACC's count of NaN results must be the cube's. */
static void run_pass(const struct conv_operands *ops, struct dla_cube *out)
{
    struct conv_params p = {.out_w = OUT_W, .out_h = OUT_H, .out_k = KERNELS};
    struct cacc_stats st = {0};
    assert_true(cube_alloc(out, OUT_W, OUT_H, KERNELS, 1, DLA_CUBE_FP32));
    cmac_cacc_fp16(&p, ops, out, &st);
    uint64_t nans = 0;
    for (size_t i = 0; i < cube_elems(out); i++)
        nans += ((uint32_t)out->v[i] & 0x7fffffffu) > 0x7f800000u;
    assert_int_equal(st.nan_out, nans);
}

/* The pass with DLADBG_THREADS and the cells' switch set (NULL: unset). */
static void run_as(const struct conv_operands *ops, const char *threads, const char *off,
                   struct dla_cube *out)
{
    setenv("DLADBG_THREADS", threads, 1);
    if (off)
        setenv(off, "1", 1);
    run_pass(ops, out);
    if (off)
        unsetenv(off);
    unsetenv("DLADBG_THREADS");
}

static void check_case(value_fn fn, uint32_t seed, const char *name)
{
    int16_t *data = malloc(sizeof *data * ROWS * DEPTH),
            *weight = malloc(sizeof *weight * KERNELS * DEPTH);
    assert_non_null(data && weight);
    fill(fn, seed, data, weight);
    struct conv_operands ops = {.rows = ROWS,
                                .kernels = KERNELS,
                                .depth = DEPTH,
                                .taps = TAPS,
                                .seg_len = SEG,
                                .c = CH,
                                .data = data,
                                .weight = weight};
    struct dla_cube best, many, sliced, wide, portable;
    run_as(&ops, "1", NULL, &best);
    run_as(&ops, "3", NULL, &many);
    run_as(&ops, "2", "DLADBG_ALL_SLICED", &sliced);
    run_as(&ops, "1", "DLADBG_NO_VBMI", &wide);
    run_as(&ops, "2", "DLADBG_NO_SIMD", &portable);
    for (uint32_t r = 0; r < ROWS; r++)
        for (uint32_t k = 0; k < KERNELS; k++) {
            size_t at = cube_index(&best, 0, k, r / OUT_W, r % OUT_W);
            uint32_t want = cacc_fp16_output(&ops, data + r * DEPTH, weight + k * DEPTH);
            uint32_t got = (uint32_t)best.v[at];
            if (got != want)
                fail_msg("%s: row %u kernel %u: %08x, want %08x", name, r, k, got, want);
            if ((uint32_t)many.v[at] != got || (uint32_t)sliced.v[at] != got ||
                (uint32_t)wide.v[at] != got || (uint32_t)portable.v[at] != got)
                fail_msg("%s: row %u kernel %u: %08x with 3 workers, %08x every cell "
                         "bit-sliced, %08x 16-kernel cells, %08x portable, %08x",
                         name, r, k, (uint32_t)many.v[at], (uint32_t)sliced.v[at],
                         (uint32_t)wide.v[at], (uint32_t)portable.v[at], got);
        }
    cube_free(&best), cube_free(&many), cube_free(&sliced), cube_free(&wide),
        cube_free(&portable);
    free(data), free(weight);
}

static void test_moderate_values(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 3; seed++)
        check_case(moderate, seed, "moderate");
}

static void test_spread_exponents(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 3; seed++)
        check_case(spread, seed, "spread");
}

static void test_maxima_apart(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 3; seed++)
        check_case(maxima_apart, seed, "maxima apart");
}

static void test_every_alignment(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 3; seed++)
        check_case(every_alignment, seed, "every alignment");
}

static void test_cancelling_and_zeros(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 2; seed++)
        check_case(cancelling, seed, "cancelling");
}

static void test_runs_of_small_weights(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 2; seed++)
        check_case(small_runs, seed, "small runs");
}

static void test_booth_digit_patterns(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 3; seed++)
        check_case(booth_patterns, seed, "Booth patterns");
}

static void test_quiet_small_weights(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 3; seed++)
        check_case(quiet_weights, seed, "quiet weights");
}

static void test_few_bit_weights_at_the_rules_edges(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 3; seed++)
        check_case(few_bit_edges, seed, "few-bit edges");
}

static void test_nans_and_infinities(void **state)
{
    (void)state;
    check_case(with_nans, 5, "NaNs");
}

/* A layer of two kernel passes (64 kernels of 4,096 values: one block of
 * 32 a pass), data of spread exponents, the first pass's kernels spread
 * (cells run bit-sliced, the weights' planes laid out for them) and the
 * second's moderate (no planes laid out: those of the first pass are other
 * kernels', and the spread data alone still makes the cells want to run
 * bit-sliced): every output against the 16-kernel cells, every 37th
 * against the reference. */
enum { P_OUT = 8, P_KERNELS = 64, P_DEPTH = 4096 };

static void test_passes_of_spread_then_moderate_kernels(void **state)
{
    (void)state;
    size_t rows = P_OUT * P_OUT;
    int16_t *data = malloc(sizeof *data * rows * P_DEPTH),
            *weight = malloc(sizeof *weight * P_KERNELS * P_DEPTH);
    assert_non_null(data && weight);
    uint32_t st = 77;
    for (size_t i = 0; i < rows * P_DEPTH; i++)
        data[i] = (int16_t)spread(&st, false, 0, 0);
    for (uint32_t k = 0; k < P_KERNELS; k++)
        for (uint32_t i = 0; i < P_DEPTH; i++)
            weight[(size_t)k * P_DEPTH + i] =
                (int16_t)(k < 32 ? spread(&st, true, k, i) : moderate(&st, true, k, i));
    struct conv_operands ops = {.rows = (uint32_t)rows, .kernels = P_KERNELS, .depth = P_DEPTH,
                                .taps = 1, .seg_len = SEG, .c = P_DEPTH, .data = data,
                                .weight = weight};
    struct conv_params p = {.out_w = P_OUT, .out_h = P_OUT, .out_k = P_KERNELS};
    struct dla_cube fma, wide;
    for (int pass = 0; pass < 2; pass++) {
        struct dla_cube *out = pass ? &wide : &fma;
        struct cacc_stats cs = {0};
        assert_true(cube_alloc(out, P_OUT, P_OUT, P_KERNELS, 1, DLA_CUBE_FP32));
        if (pass)
            setenv("DLADBG_NO_VBMI", "1", 1);
        cmac_cacc_fp16(&p, &ops, out, &cs);
        unsetenv("DLADBG_NO_VBMI");
    }
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t k = 0; k < P_KERNELS; k++) {
            size_t at = cube_index(&fma, 0, k, r / P_OUT, r % P_OUT);
            uint32_t got = (uint32_t)fma.v[at];
            if (got != (uint32_t)wide.v[at])
                fail_msg("row %u kernel %u: %08x, %08x from the 16-kernel cells", r, k, got,
                         (uint32_t)wide.v[at]);
            if ((r * P_KERNELS + k) % 37 == 0 &&
                got != cacc_fp16_output(&ops, data + (size_t)r * P_DEPTH,
                                        weight + (size_t)k * P_DEPTH))
                fail_msg("row %u kernel %u: %08x, not the reference's", r, k, got);
        }
    cube_free(&fma), cube_free(&wide);
    free(data), free(weight);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moderate_values),      cmocka_unit_test(test_spread_exponents),
        cmocka_unit_test(test_maxima_apart),         cmocka_unit_test(test_every_alignment),
        cmocka_unit_test(test_cancelling_and_zeros), cmocka_unit_test(test_nans_and_infinities),
        cmocka_unit_test(test_runs_of_small_weights), cmocka_unit_test(test_booth_digit_patterns),
        cmocka_unit_test(test_quiet_small_weights),
        cmocka_unit_test(test_few_bit_weights_at_the_rules_edges),
        cmocka_unit_test(test_passes_of_spread_then_moderate_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
