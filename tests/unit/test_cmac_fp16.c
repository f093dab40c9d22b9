/* The fast fp16 MAC path (sim/cmac_fp16.c) against the bit-level reference
 * (sim/cacc_fp16.c), and the convolution's results for any worker count.
 *
 * The fast path rests on one fact about the Booth array: a product aligned
 * by 4 bits is the arithmetic shift of the exact product.  That is checked
 * for every aligned mantissa the format has; the rest is checked by
 * comparing whole outputs on operands chosen to reach every alignment
 * shift, zeros, subnormals, infinities and NaNs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "conv_harness.h"

/* Every aligned mantissa an fp16 operand can have: normals (11 bits shifted
 * by the exponent's low two bits) and subnormals (10 bits shifted by 1). */
static uint32_t aligned_mantissas(uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t sh = 0; sh < 4; sh++)
        for (uint32_t m = 0x400; m < 0x800; m++)
            out[n++] = m << sh;
    for (uint32_t m = 1; m < 0x400; m++)
        out[n++] = m << 1;
    return n;
}

static void test_shift4_is_arithmetic_shift(void **state)
{
    (void)state;
    static uint32_t m[4 * 1024 + 1024];
    uint32_t n = aligned_mantissas(m), st = 11;
    for (uint32_t i = 0; i < n; i++)
        for (int j = 0; j < 48; j++) {
            uint32_t d = m[lcg(&st) % n];
            for (unsigned neg = 0; neg < 2; neg++) {
                int64_t p = (int64_t)m[i] * d * (neg ? -1 : 1);
                if (cacc_fp16_booth(neg, m[i], d, 0) != p)
                    fail_msg("unshifted %x * %x neg %u", m[i], d, neg);
                if (cacc_fp16_booth(neg, m[i], d, 4) != (int32_t)(p >> 4))
                    fail_msg("shift 4: %x * %x neg %u: %d, want %lld", m[i], d, neg,
                             cacc_fp16_booth(neg, m[i], d, 4), (long long)(p >> 4));
            }
        }
}

/* An fp16 value for the comparisons: kind picks the spread of exponents. */
static uint16_t operand(uint32_t *st, unsigned kind)
{
    uint32_t r = lcg(st);
    uint16_t sign = (uint16_t)((r & 1) << 15), frac = (uint16_t)((r >> 1) & 0x3ff);
    unsigned pick = (r >> 11) % 100;
    if (pick < 4)
        return sign; /* signed zero */
    if (pick < 7)
        return sign | (frac ? frac : 1); /* subnormal */
    if (kind == 2 && pick < 9)
        return sign | 0x7c00 | (pick == 8 ? frac : 0); /* infinity or NaN */
    unsigned e = kind == 0 ? 13 + (r >> 18) % 5 : 1 + (r >> 18) % 30;
    return (uint16_t)(sign | e << 10 | frac);
}

static void compare_outputs_once(unsigned kind, int rounds)
{
    uint32_t st = 5 + kind;
    int16_t a[1024], w[1024];
    for (int round = 0; round < rounds; round++) {
        uint32_t seg = (uint32_t[]){8, 32, 64}[lcg(&st) % 3];
        uint32_t c = 1 + lcg(&st) % 150, taps = 1 + lcg(&st) % 6;
        struct conv_operands ops = {
            .rows = 1, .kernels = 1, .depth = c * taps, .taps = taps, .seg_len = seg, .c = c};
        for (uint32_t i = 0; i < ops.depth; i++) {
            a[i] = (int16_t)operand(&st, kind);
            w[i] = (int16_t)operand(&st, kind);
        }
        uint32_t want = cacc_fp16_output(&ops, a, w), got = cmac_fp16_output(&ops, a, w);
        if (got != want)
            fail_msg("kind %u round %d (c %u taps %u seg %u): %08x, want %08x", kind, round, c,
                     taps, seg, got, want);
    }
}

/* With the host's SIMD kernel (when it has one) and with the portable loops. */
static void compare_outputs(unsigned kind, int rounds)
{
    compare_outputs_once(kind, rounds);
    setenv("DLADBG_NO_SIMD", "1", 1);
    compare_outputs_once(kind, rounds);
    unsetenv("DLADBG_NO_SIMD");
}

static void test_outputs_near_exponents(void **state)
{
    (void)state;
    compare_outputs(0, 3000);
}

static void test_outputs_every_shift(void **state)
{
    (void)state;
    compare_outputs(1, 3000);
}

static void test_outputs_special_values(void **state)
{
    (void)state;
    compare_outputs(2, 1500);
}

static void test_wino_op_matches_reference(void **state)
{
    (void)state;
    uint32_t st = 99;
    for (int round = 0; round < 3000; round++) {
        uint64_t want[4] = {0}, got[4] = {0};
        unsigned kind = (unsigned)round % 3;
        for (int op = 0; op < 4; op++) {
            int16_t d[64], w[64];
            for (int i = 0; i < 64; i++) {
                d[i] = (int16_t)operand(&st, kind);
                w[i] = (int16_t)operand(&st, kind);
            }
            cacc_fp16_wino_op(d, w, want);
            cmac_fp16_wino_op(d, w, got);
        }
        for (int q = 0; q < 4; q++)
            if (got[q] != want[q])
                fail_msg("round %d output %d: %012llx, want %012llx", round, q,
                         (unsigned long long)got[q], (unsigned long long)want[q]);
    }
}

/* The whole convolution core with DLADBG_THREADS workers. */
static void run_with_threads(const struct spec *s, const char *threads, struct dla_cube *out,
                             struct layer_data *ld)
{
    setenv("DLADBG_THREADS", threads, 1);
    struct dla *d = dla_create(dla_config_find(s->config), NULL);
    prepare(d, s, ld);
    assert_int_equal(run_conv(d, out), 0);
    dla_destroy(d);
    unsetenv("DLADBG_THREADS");
}

static void same_for_any_thread_count(const struct spec *s, bool check_reference)
{
    struct dla_cube one, many;
    struct layer_data ld1 = {0}, ld3 = {0};
    run_with_threads(s, "1", &one, &ld1);
    run_with_threads(s, "3", &many, &ld3);
    size_t n = (size_t)spec_ow(s) * spec_oh(s) * s->k;
    for (uint32_t k = 0; k < s->k; k++)
        for (uint32_t y = 0; y < spec_oh(s); y++)
            for (uint32_t x = 0; x < spec_ow(s); x++) {
                int32_t v1 = one.v[cube_index(&one, 0, k, y, x)];
                if (many.v[cube_index(&many, 0, k, y, x)] != v1)
                    fail_msg("k %u (%u, %u): 3 threads differ from 1", k, x, y);
                if (check_reference &&
                    (uint32_t)v1 != ref_fp16_output_bits(s, &ld1, 64, 0, k, y, x))
                    fail_msg("k %u (%u, %u): differs from the reference", k, x, y);
            }
    assert_true(n > 0);
    cube_free(&one);
    cube_free(&many);
    free_layer_data(&ld1);
    free_layer_data(&ld3);
}

static void test_fp16_layer_threads(void **state)
{
    (void)state;
    struct spec s = spec_3x3_same("nv_full", 2, 9, 7, 70, 37);
    s.data_banks = 8;
    s.weight_banks = 8;
    same_for_any_thread_count(&s, true);
}

static void test_int8_layer_threads(void **state)
{
    (void)state;
    struct spec s = spec_3x3_same("nv_full", 0, 20, 19, 40, 70);
    s.data_banks = 8;
    s.weight_banks = 8;
    same_for_any_thread_count(&s, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shift4_is_arithmetic_shift),
        cmocka_unit_test(test_outputs_near_exponents),
        cmocka_unit_test(test_outputs_every_shift),
        cmocka_unit_test(test_outputs_special_values),
        cmocka_unit_test(test_wino_op_matches_reference),
        cmocka_unit_test(test_fp16_layer_threads),
        cmocka_unit_test(test_int8_layer_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
