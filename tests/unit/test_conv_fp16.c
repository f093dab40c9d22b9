/* The convolution core in fp16: the MAC cell and the CACC float adder
 * against plain references (exact products, double sums), and the special
 * values: zeros, subnormals, NaN payloads, infinities, and CACC's rounding
 * of ties away from zero. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "conv_harness.h"
#include "peak_rss.h"

static uint32_t dot(const uint16_t *d, const uint16_t *w, uint32_t n, uint32_t seg)
{
    return cacc_fp16_dot((const int16_t *)d, (const int16_t *)w, n, seg);
}

static uint32_t exact_f32(double v)
{
    return f32_bits((float)v);
}

/* Every single product of two fp16 values (normal or subnormal) fits in
 * 22 bits: the cell and the accumulator must deliver it exactly. */
static void test_single_products_exact(void **state)
{
    (void)state;
    uint32_t st = 7;
    for (int i = 0; i < 20000; i++) {
        uint16_t a = (uint16_t)(lcg(&st) & 0xffff), b = (uint16_t)(lcg(&st) & 0xffff);
        if ((a & 0x7c00) == 0x7c00 || (b & 0x7c00) == 0x7c00)
            continue; /* special values have their own tests */
        double want = (double)fp16_to_float(a) * fp16_to_float(b);
        uint32_t got = dot(&a, &b, 1, 64);
        if (want == 0) {
            assert_int_equal(got & 0x7fffffff, 0);
            continue;
        }
        if (got != exact_f32(want))
            fail_msg("%04x * %04x: want %08x got %08x", a, b, exact_f32(want), got);
    }
}

static void test_subnormals(void **state)
{
    (void)state;
    uint16_t d[2] = {0x0001, 0x03ff}; /* 2^-24 and the largest subnormal */
    uint16_t w[2] = {0x3c00, 0x4000}; /* 1.0, 2.0 */
    double want = ldexp(1, -24) + 2 * (1023 * ldexp(1, -24));
    assert_int_equal(dot(d, w, 2, 64), exact_f32(want));
    /* subnormal x subnormal: 2^-48 */
    uint16_t a = 0x0001;
    assert_int_equal(dot(&a, &a, 1, 64), exact_f32(ldexp(1, -48)));
}

static void test_zeros_masked(void **state)
{
    (void)state;
    uint16_t d[3] = {0x8000, 0x0000, 0x3c00};
    uint16_t w[3] = {0x7bff, 0xfbff, 0x0000};
    assert_int_equal(dot(d, w, 3, 64), 0); /* every pair has a zero: +0 */
}

static void test_nan_payload(void **state)
{
    (void)state;
    uint16_t d[3] = {0x3c00, 0x7e01, 0x3c00};
    uint16_t w[3] = {0x3c00, 0x3c00, 0x4000};
    /* the data NaN's sign and fraction reach the fp32 output */
    assert_int_equal(dot(d, w, 3, 64), 0x7f800000u | 0x201u);
    /* a weight NaN wins over a data NaN, whatever the lane */
    w[2] = 0xfc07;
    assert_int_equal(dot(d, w, 3, 64), 0xff800000u | 0x007u);
    /* a NaN in an earlier atomic operation survives later sums */
    uint16_t d2[2] = {0x7c11, 0x3c00}, w2[2] = {0x3c00, 0x3c00};
    assert_int_equal(dot(d2, w2, 2, 1), 0x7f800000u | 0x011u);
}

/* Infinity is not special in the MAC cell: exponent 31 is a large number. */
static void test_infinity_is_large(void **state)
{
    (void)state;
    uint16_t d = 0x7c00, w = 0x3c00; /* inf x 1 */
    assert_int_equal(dot(&d, &w, 1, 64), exact_f32(65536.0));
    d = 0xfc00;
    w = 0xc000; /* -inf x -2 */
    assert_int_equal(dot(&d, &w, 1, 64), exact_f32(131072.0));
}

/* CACC rounds its 40-bit mantissa to fp32 on the guard bit alone: ties go
 * away from zero (IEEE would give 1.0 here). */
static void test_cacc_rounding(void **state)
{
    (void)state;
    uint16_t d[2] = {0x3c00, 0x0001}, w[2] = {0x3c00, 0x3c00};
    assert_int_equal(dot(d, w, 2, 1), 0x3f800001u);
    d[0] = 0xbc00;
    d[1] = 0x8001;
    assert_int_equal(dot(d, w, 2, 1), 0xbf800001u);
    /* below the guard bit: truncated */
    uint16_t d3[3] = {0x3c00, 0x0001, 0x0001}, w3[3] = {0x3c00, 0x3400, 0x3400}; /* 1 + 2^-26 */
    assert_int_equal(dot(d3, w3, 3, 1), 0x3f800000u);
}

/* Many products in one atomic operation: the sum is within the alignment
 * truncation of the exact one. */
static void test_random_sums_close(void **state)
{
    (void)state;
    struct spec s = {.prec = 2};
    uint32_t st = 3;
    for (int rep = 0; rep < 300; rep++) {
        uint16_t d[200], w[200];
        double want = 0, mag = 0;
        for (int i = 0; i < 200; i++) {
            d[i] = (uint16_t)random_value(&s, &st, false);
            w[i] = (uint16_t)random_value(&s, &st, true);
            double p = (double)fp16_to_float(d[i]) * fp16_to_float(w[i]);
            want += p;
            mag += fabs(p);
        }
        float got = f32_from_bits(dot(d, w, 200, 64));
        if (fabs(got - want) > mag * ldexp(1, -20) + fabs(want) * ldexp(1, -23))
            fail_msg("rep %d: want %.9g got %.9g", rep, want, (double)got);
    }
}

static void test_fp16_layer(void **state)
{
    (void)state;
    struct spec s = spec_3x3_same("nv_full", 2, 5, 4, 70, 18);
    s.kh = 2;
    s.sy = 2;
    s.pad = 0x3800; /* 0.5 */
    s.data_banks = 2;
    s.weight_banks = 2;
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    struct layer_data ld = {0};
    prepare(d, &s, &ld);
    struct dla_cube out;
    assert_int_equal(run_conv(d, &out), 0);
    assert_int_equal(out.kind, DLA_CUBE_FP32);
    size_t n = cube_elems(&out);
    double *want = malloc(sizeof *want * n), *mag = malloc(sizeof *mag * n);
    ref_conv_fp16(&s, &ld, want, mag);
    uint32_t ow = spec_ow(&s), oh = spec_oh(&s);
    for (uint32_t k = 0; k < s.k; k++)
        for (uint32_t y = 0; y < oh; y++)
            for (uint32_t x = 0; x < ow; x++) {
                size_t i = (k * oh + y) * ow + x;
                double got = f32_from_bits((uint32_t)out.v[cube_index(&out, 0, k, y, x)]);
                if (fabs(got - want[i]) > mag[i] * ldexp(1, -19) + 1e-30)
                    fail_msg("k%u y%u x%u: want %.9g got %.9g", k, y, x, want[i], got);
            }
    free(want);
    free(mag);
    cube_free(&out);
    free_layer_data(&ld);
    dla_destroy(d);
}

/* CDMA counts NaN and infinite inputs, and flushes NaN to zero on request. */
static void test_cdma_nan_inf(void **state)
{
    (void)state;
    struct spec s = {.config = "nv_full",
                     .prec = 2,
                     .w = 2,
                     .h = 2,
                     .c = 16,
                     .kw = 1,
                     .kh = 1,
                     .k = 1,
                     .sx = 1,
                     .sy = 1,
                     .dx = 1,
                     .dy = 1,
                     .batches = 1,
                     .data_banks = 1,
                     .weight_banks = 1};
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    struct layer_data ld = {0};
    make_layer_data(&s, &ld);
    for (uint32_t i = 0; i < ld.n_in; i++)
        ld.in[i] = 0x3c00;
    for (uint32_t i = 0; i < ld.n_wt; i++)
        ld.wt[i] = 0x3c00;
    ld.in[0] = 0x7e00;  /* NaN at (c0, y0, x0) */
    ld.in[5] = 0x7c00;  /* +inf */
    ld.in[17] = 0xfc00; /* -inf */
    store_feature(d, &s, &ld);
    uint64_t wb, mb;
    store_weights(d, &s, &ld, &wb, &mb);
    program_layer(d, &s, wb, mb);
    struct dla_cube out;
    assert_int_equal(run_conv(d, &out), 0);
    assert_int_equal(get_reg(d, "CDMA.D_NAN_INPUT_DATA_NUM"), 1);
    assert_int_equal(get_reg(d, "CDMA.D_INF_INPUT_DATA_NUM"), 2);
    assert_true(isnan(f32_from_bits((uint32_t)out.v[0])));
    cube_free(&out);
    set_field(d, "CDMA.D_NAN_FLUSH_TO_ZERO", NULL, 1);
    assert_int_equal(run_conv(d, &out), 0);
    assert_int_equal(f32_from_bits((uint32_t)out.v[0]), 15.0f); /* 15 ones and a zero */
    cube_free(&out);
    free_layer_data(&ld);
    dla_destroy(d);
}

/* The layer's CACC cube computed in passes of at most pass_values weights
 * (0: the default). */
static void run_in_passes(const struct spec *s, size_t pass_values, struct dla_cube *out,
                          uint32_t *saturated)
{
    struct dla *d = dla_create(dla_config_find(s->config), NULL);
    struct layer_data ld = {0};
    prepare(d, s, &ld);
    conv_set_weight_pass_values(pass_values);
    int rc = run_conv(d, out);
    conv_set_weight_pass_values(0);
    assert_int_equal(rc, 0);
    *saturated = get_reg(d, "CACC.D_OUT_SATURATION");
    free_layer_data(&ld);
    dla_destroy(d);
}

/* Passes of one kernel group give the bits of the layer in one pass, on
 * every kind of MAC cell: the FMA cells (64 output positions and more),
 * the 16-kernel cells and the per-kernel cells (a single position). */
static void test_weight_passes_bit_identical(void **state)
{
    (void)state;
    struct spec shapes[3];
    shapes[0] = spec_3x3_same("nv_full", 2, 20, 16, 70, 40);
    shapes[1] = spec_3x3_same("nv_full", 2, 5, 4, 40, 37);
    shapes[2] = spec_3x3_same("nv_full", 2, 3, 3, 96, 50);
    shapes[2].pl = shapes[2].pr = shapes[2].pt = shapes[2].pb = 0; /* one output */
    for (int i = 0; i < 3; i++) {
        struct spec sp = shapes[i];
        sp.data_banks = 4;
        sp.weight_banks = 4;
        sp.fp16_wide = i == 1;
        sp.seed = 11u + (uint32_t)i;
        struct dla_cube whole, parts;
        uint32_t sat_whole, sat_parts;
        run_in_passes(&sp, 0, &whole, &sat_whole);
        run_in_passes(&sp, 1, &parts, &sat_parts);
        assert_int_equal(cube_elems(&whole), cube_elems(&parts));
        assert_memory_equal(whole.v, parts.v, cube_elems(&whole) * sizeof *whole.v);
        assert_int_equal(sat_whole, sat_parts);
        cube_free(&whole);
        cube_free(&parts);
    }
}

/* The FMA cells' kernel layout lives in the model's scratch, kept from one
 * layer to the next like CSC's operand rows: after a layer of 320 output
 * positions (FMA cells where the host has them) the arena holds the
 * layout's doubles beside the operands, the next layer allocates nothing,
 * and the layout left by a layer of other values gives the same bits as a
 * fresh one.  A layer without FMA cells gives it back. */
static void test_fma_layout_in_scratch(void **state)
{
    (void)state;
    struct spec s = spec_3x3_same("nv_full", 2, 20, 16, 70, 40), other;
    s.data_banks = s.weight_banks = 4;
    s.seed = 11;
    other = s;
    other.seed = 12;
    struct dla_cube fresh, first, again;
    uint32_t sat;
    run_in_passes(&s, 0, &fresh, &sat);
    struct dla *d = dla_create(dla_config_find(s.config), NULL);
    dla_scratch_keep_from(d, 0); /* every buffer kept */
    struct layer_data ld = {0};
    prepare(d, &other, &ld);
    assert_int_equal(run_conv(d, &first), 0);
    cube_free(&first);
    free_layer_data(&ld);
    uint64_t grows = dla_scratch_grows(d);
    size_t depth = 640, rows = 320, kernels = 40, lanes = 64; /* 9 x 70 values a row */
    if (cmac_fp16_fma())
        assert_true(dla_scratch_bytes(d) >=
                    (rows + kernels) * depth * sizeof(int16_t) + lanes * depth * sizeof(double));
    prepare(d, &s, &ld);
    assert_int_equal(run_conv(d, &first), 0);
    assert_int_equal(run_conv(d, &again), 0);
    assert_int_equal(dla_scratch_grows(d), grows);
    assert_memory_equal(fresh.v, first.v, cube_elems(&fresh) * sizeof *fresh.v);
    assert_memory_equal(fresh.v, again.v, cube_elems(&fresh) * sizeof *fresh.v);
    cube_free(&fresh);
    cube_free(&first);
    cube_free(&again);
    free_layer_data(&ld);

    /* one output position (no FMA cells): the layout given back, though CSC's
     * slots may grow by the new layer's 50 kernels and group of 3 x 3 x 96 */
    struct spec one = spec_3x3_same("nv_full", 2, 3, 3, 96, 50);
    one.pl = one.pr = one.pt = one.pb = 0;
    one.data_banks = one.weight_banks = 4;
    uint64_t before = dla_scratch_bytes(d);
    prepare(d, &one, &ld);
    assert_int_equal(run_conv(d, &first), 0);
    if (cmac_fp16_fma())
        assert_true(dla_scratch_bytes(d) + lanes * depth * sizeof(double) <=
                    before + (50 + 32) * 864 * sizeof(int16_t));
    cube_free(&first);
    free_layer_data(&ld);
    dla_destroy(d);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* A fully-connected layer of 4 MiB of fp16 weights (2048 channels, 1024
 * kernels, one output position) runs in passes: the process's peak RSS
 * grows by less than half the weights' size (0.9 MiB measured), where
 * holding every kernel's operands at once took 8.3 MiB. */
static void test_weight_passes_bound_memory(void **state)
{
    (void)state;
#ifdef UNDER_ASAN
    skip(); /* ASan's quarantine keeps every freed pass's memory */
#endif
    struct spec s = {.config = "nv_full", .prec = 2, .w = 1, .h = 1, .c = 2048, .kw = 1,
                     .kh = 1, .k = 1024, .sx = 1, .sy = 1, .dx = 1, .dy = 1, .batches = 1,
                     .data_banks = 1, .weight_banks = 8, .seed = 5};
    struct dla *d = dla_create(dla_config_find(s.config), NULL);
    struct layer_data ld = {0};
    prepare(d, &s, &ld);
    struct dla_cube out;
    if (!peak_rss_reset())
        skip(); /* no /proc/self/clear_refs (Linux before 4.0, or no procfs) */
    long before = peak_rss_kb();
    assert_int_equal(run_conv(d, &out), 0);
    long grown = peak_rss_kb() - before;
    if (grown >= 2 * 1024)
        fail_msg("the layer's peak RSS grew by %ld KiB (4096 KiB of weights)", grown);
    cube_free(&out);
    free_layer_data(&ld);
    dla_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_products_exact), cmocka_unit_test(test_subnormals),
        cmocka_unit_test(test_zeros_masked),          cmocka_unit_test(test_nan_payload),
        cmocka_unit_test(test_infinity_is_large),     cmocka_unit_test(test_cacc_rounding),
        cmocka_unit_test(test_random_sums_close),     cmocka_unit_test(test_fp16_layer),
        cmocka_unit_test(test_cdma_nan_inf),          cmocka_unit_test(test_weight_passes_bit_identical),
        cmocka_unit_test(test_weight_passes_bound_memory),
        cmocka_unit_test(test_fma_layout_in_scratch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
