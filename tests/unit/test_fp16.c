/* fp16 conversions against values worked out by hand and a brute-force
 * round trip over every half-precision bit pattern. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "num/fp16.h"

static void test_exact_values(void **state)
{
    (void)state;
    assert_int_equal(fp16_from_float(1.0f), 0x3c00);
    assert_int_equal(fp16_from_float(-2.0f), 0xc000);
    assert_int_equal(fp16_from_float(65504.0f), 0x7bff);
    assert_int_equal(fp16_from_float(0.0f), 0x0000);
    assert_int_equal(fp16_from_float(-0.0f), 0x8000);
    assert_true(fp16_to_float(0x3555) > 0.333f && fp16_to_float(0x3555) < 0.3334f);
}

static void test_rounding(void **state)
{
    (void)state;
    /* 1 + 2^-11 is half way between 1 and 1 + 2^-10: ties to even -> 1.0 */
    assert_int_equal(fp16_from_float(1.0f + 0x1p-11f), 0x3c00);
    /* 1 + 3 * 2^-11 is half way between 1 + 2^-10 (odd) and 1 + 2^-9: -> even 0x3c02 */
    assert_int_equal(fp16_from_float(1.0f + 3 * 0x1p-11f), 0x3c02);
    /* just above the tie rounds up */
    assert_int_equal(fp16_from_float(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
    /* 65520 rounds to infinity, 65519 to the largest finite */
    assert_int_equal(fp16_from_float(65520.0f), 0x7c00);
    assert_int_equal(fp16_from_float(65519.0f), 0x7bff);
}

static void test_subnormals(void **state)
{
    (void)state;
    assert_int_equal(fp16_from_float(0x1p-24f), 0x0001);   /* smallest subnormal */
    assert_int_equal(fp16_from_float(0x1p-25f), 0x0000);   /* tie with 0 -> even 0 */
    assert_int_equal(fp16_from_float(0x1.8p-25f), 0x0001); /* above the tie */
    assert_int_equal(fp16_from_float(0x1p-14f), 0x0400);   /* smallest normal */
    assert_true(fp16_to_float(0x0001) == 0x1p-24f);
    assert_true(fp16_to_float(0x03ff) == 0x3ffp-24f);
}

static void test_specials(void **state)
{
    (void)state;
    assert_int_equal(fp16_from_f32_bits(0x7f800000u), 0x7c00);
    assert_int_equal(fp16_from_f32_bits(0xff800000u), 0xfc00);
    assert_true(fp16_is_nan(fp16_from_f32_bits(0x7fc00000u)));
    assert_true(fp16_is_nan(fp16_from_f32_bits(0x7f800001u))); /* payload lost below bit 13 */
    assert_true(fp16_is_inf(0x7c00));
    assert_int_equal(fp16_to_f32_bits(0x7c00), 0x7f800000u);
}

/* The half_float library's default (NVIDIA's runtime converts host values
 * with it): ties go away from zero, everything else as ties-to-even. */
static void ties_away(float f, uint16_t want)
{
    assert_int_equal(fp16_from_f32_bits_ties_away(f32_bits(f)), want);
}

static void test_ties_away(void **state)
{
    (void)state;
    ties_away(1.0f + 0x1p-11f, 0x3c01);     /* even would keep 0x3c00 */
    ties_away(-(1.0f + 0x1p-11f), 0xbc01);  /* away from zero on both sides */
    ties_away(1.0f + 3 * 0x1p-11f, 0x3c02); /* same as even here */
    ties_away(2049.0f, 0x6801);
    ties_away(0x1p-25f, 0x0001); /* the subnormal tie */
    ties_away(0x1p-26f, 0x0000);
    ties_away(65519.0f, 0x7bff);
    ties_away(65520.0f, 0x7c00);
    for (uint32_t h = 0; h < 0x7c00u; h++) /* exact values are untouched */
        assert_int_equal(fp16_from_f32_bits_ties_away(fp16_to_f32_bits((uint16_t)h)), h);
}

/* fp16_from_float's inline path for normal halves agrees with the full
 * conversion on every exponent, both signs, every pattern of the 13 bits
 * that round away and significands whose rounding carries (0x3ff) or not;
 * it fails when the inline path's range or rounding is off by one. */
static void test_inline_path_matches_full(void **state)
{
    (void)state;
    static const uint32_t kept[] = {0x000u, 0x3ffu, 0x155u, 0x2aau, 0x001u};
    for (uint32_t e = 0; e < 256; e++)
        for (uint32_t sign = 0; sign < 2; sign++)
            for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++)
                for (uint32_t low = 0; low < 0x2000u; low++) {
                    uint32_t u = sign << 31 | e << 23 | kept[k] << 13 | low;
                    if (fp16_from_float(f32_from_bits(u)) != fp16_from_f32_bits(u))
                        fail_msg("float bits 0x%08x: %04x, the full conversion %04x", u,
                                 fp16_from_float(f32_from_bits(u)), fp16_from_f32_bits(u));
                }
}

static void test_round_trip_all(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x10000u; h++) {
        if (fp16_is_nan((uint16_t)h))
            continue;
        assert_int_equal(fp16_from_f32_bits(fp16_to_f32_bits((uint16_t)h)), h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_values),   cmocka_unit_test(test_rounding),
        cmocka_unit_test(test_subnormals),     cmocka_unit_test(test_specials),
        cmocka_unit_test(test_round_trip_all), cmocka_unit_test(test_ties_away),
        cmocka_unit_test(test_inline_path_matches_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
