/* tensor_stats: exact figures on known arrays (int8 with both saturation
 * limits, int16, uint8, fp16 with NaNs and infinities, a constant array,
 * an empty one), histogram edges and counts, real values with a scale. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "num/fp16.h"
#include "tensor/tensor_read.h"
#include "tensor/tensor_stats.h"

static void near(double got, double want)
{
    if (fabs(got - want) > 1e-12 * (fabs(want) > 1 ? fabs(want) : 1))
        fail_msg("%.17g, expected %.17g", got, want);
}

static void test_int8(void **state)
{
    (void)state;
    const int8_t v[] = {-128, -128, 127, 0, 0, 1, 2, 3, -1, 10};
    struct tensor_stats s;
    tensor_stats_compute(TENSOR_INT8, v, 10, 0, &s);
    assert_int_equal(s.count, 10);
    assert_int_equal(s.finite, 10);
    near(s.min, -128);
    near(s.max, 127);
    /* sum -114: mean -11.4; squares 16384*2 + 16129 + 1 + 4 + 9 + 1 + 100 = 49012 */
    near(s.mean, -11.4);
    near(s.std, sqrt(49012.0 / 10 - 11.4 * 11.4));
    assert_int_equal(s.zeros, 2);
    assert_int_equal(s.low, -128);
    assert_int_equal(s.high, 127);
    assert_int_equal(s.at_low, 2);
    assert_int_equal(s.at_high, 1);
    assert_int_equal(s.nan + s.pos_inf + s.neg_inf, 0);
    assert_int_equal(s.bins, TENSOR_STATS_DEFAULT_BINS);
    /* 20 bins of 12.75 over [-128, 127]: -128 in bin 0, -1 in bin 9
     * [-13.25, -0.5), 0 to 10 in bin 10 [-0.5, 12.25), 127 in the last */
    uint64_t want[20] = {0};
    want[0] = 2;
    want[9] = 1;  /* -1 */
    want[10] = 6; /* 0, 0, 1, 2, 3, 10 */
    want[19] = 1;
    for (int i = 0; i < 20; i++)
        assert_int_equal(s.hist[i], want[i]);
    double lo, hi;
    tensor_stats_bin_edges(&s, 0, &lo, &hi);
    near(lo, -128);
    near(hi, -115.25);
    tensor_stats_bin_edges(&s, 19, &lo, &hi);
    near(hi, 127);
    /* real values: everything times the scale, counts unchanged */
    struct tensor_stats r;
    tensor_stats_scaled(&s, 0.5, &r);
    near(r.min, -64);
    near(r.max, 63.5);
    near(r.mean, -5.7);
    near(r.std, s.std * 0.5);
    assert_int_equal(r.at_low, 2);
    assert_int_equal(r.hist[10], 6);
    tensor_stats_bin_edges(&r, 1, &lo, &hi);
    near(lo, -57.625);
}

static void test_int16_uint8_bins(void **state)
{
    (void)state;
    const int16_t v[] = {-32768, 32767, 32767, 100, -100, 0};
    struct tensor_stats s;
    tensor_stats_compute(TENSOR_INT16, v, 6, 2, &s);
    assert_int_equal(s.at_low, 1);
    assert_int_equal(s.at_high, 2);
    near(s.mean, 32766.0 / 6);
    assert_int_equal(s.bins, 2);
    /* [-32768, -0.5): -32768, -100; [-0.5, 32767]: 0, 100, 32767 twice */
    assert_int_equal(s.hist[0], 2);
    assert_int_equal(s.hist[1], 4);
    /* uint8: no limits counted */
    const uint8_t u[] = {0, 255, 255, 7};
    tensor_stats_compute(TENSOR_UINT8, u, 4, 300, &s);
    assert_int_equal(s.bins, TENSOR_STATS_MAX_BINS);
    assert_int_equal(s.at_low + s.at_high, 0);
    near(s.max, 255);
    near(s.mean, 517.0 / 4);
    assert_int_equal(s.hist[0], 1);                         /* 0 */
    assert_int_equal(s.hist[5], 1);                         /* 7: [6.375, 7.65) */
    assert_int_equal(s.hist[TENSOR_STATS_MAX_BINS - 1], 2); /* 255 twice */
}

static void test_fp16_specials(void **state)
{
    (void)state;
    const uint16_t v[] = {
        0x3c00, /* 1 */
        0xc000, /* -2 */
        0x7c00,
        0xfc00,
        0xfc00, /* +inf, -inf, -inf */
        0x7e00,
        0xfe01, /* NaNs */
        0x0000,
        0x8000, /* +0, -0 */
        fp16_from_float(0.5f),
    };
    struct tensor_stats s;
    tensor_stats_compute(TENSOR_FP16, v, 10, 3, &s);
    assert_int_equal(s.count, 10);
    assert_int_equal(s.finite, 5);
    assert_int_equal(s.nan, 2);
    assert_int_equal(s.pos_inf, 1);
    assert_int_equal(s.neg_inf, 2);
    assert_int_equal(s.zeros, 2);
    assert_int_equal(s.at_low + s.at_high, 0);
    near(s.min, -2);
    near(s.max, 1);
    near(s.mean, -0.1);
    near(s.std, sqrt((1.0 + 4 + 0 + 0 + 0.25) / 5 - 0.01));
    /* bins of 1 over [-2, 1]: [-2, -1) -2 | [-1, 0) none | [0, 1] 0, -0, 0.5, 1 */
    assert_int_equal(s.hist[0], 1);
    assert_int_equal(s.hist[1], 0);
    assert_int_equal(s.hist[2], 4);
    /* a scale leaves fp16 figures alone */
    struct tensor_stats r;
    tensor_stats_scaled(&s, 4, &r);
    near(r.min, -2);
    near(r.scale, 1);
}

static void test_constant_and_empty(void **state)
{
    (void)state;
    const int8_t v[] = {5, 5, 5};
    struct tensor_stats s;
    tensor_stats_compute(TENSOR_INT8, v, 3, 4, &s);
    near(s.min, 5);
    near(s.max, 5);
    near(s.std, 0);
    assert_int_equal(s.hist[0], 3);
    assert_int_equal(s.hist[1] + s.hist[2] + s.hist[3], 0);
    const uint16_t nans[] = {0x7e00};
    tensor_stats_compute(TENSOR_FP16, nans, 1, 0, &s);
    assert_int_equal(s.finite, 0);
    assert_int_equal(s.nan, 1);
    near(s.min, 0);
    near(s.mean, 0);
    tensor_stats_compute(TENSOR_INT8, v, 0, 0, &s);
    assert_int_equal(s.count, 0);
    assert_int_equal(s.hist[0], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int8),
        cmocka_unit_test(test_int16_uint8_bins),
        cmocka_unit_test(test_fp16_specials),
        cmocka_unit_test(test_constant_and_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
