/* SDP datapath arithmetic, element by element, against plain reference code
 * written here from the reference doc's description (7.2): right shifts
 * round half away from zero (long double roundl does exactly that for these
 * widths), every stage saturates to its output width, PReLU passes
 * non-negative values untouched.  Hand-worked values pin the conventions;
 * pseudo-random sweeps cover the rest. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "num/fp16.h"
#include "sdp/sdp_dp.h"

/* ---------------------------------------------------------------- reference */

static long double clampl(long double v, int bits)
{
    long double max = ldexpl(1.0L, bits - 1) - 1.0L, min = -ldexpl(1.0L, bits - 1);
    return v > max ? max : v < min ? min : v;
}

/* v / 2^shift, nearest, ties away from zero; v fits 64 bits. */
static long double ref_shift_round(long double v, unsigned shift)
{
    return roundl(ldexpl(v, -(int)shift));
}

static int32_t ref_x(const struct sdp_x_cfg *c, int32_t in, int16_t aop, int16_t mop)
{
    if (c->bypass)
        return in;
    long double v = in;
    if (!c->alu_bypass) {
        long double op = clampl(ldexpl(aop, c->alu_shift), 32);
        if (c->alu_algo == SDP_ALU_MAX)
            v = v > op ? v : op;
        else if (c->alu_algo == SDP_ALU_MIN)
            v = v < op ? v : op;
        else
            v = v + op;
    }
    long double out;
    if (!c->mul_bypass && c->prelu && v >= 0) {
        /* the 33-bit value is assigned to 32 bits: keep the low 32 bits */
        uint64_t u = (uint64_t)(int64_t)v & 0xffffffffu;
        out = (long double)(int32_t)(uint32_t)u;
    } else {
        if (!c->mul_bypass)
            v *= mop;
        out = clampl(ref_shift_round(v, c->mul_shift), 32);
    }
    if (!c->relu_bypass && out < 0)
        out = 0;
    return (int32_t)out;
}

static int32_t ref_y_operand(const struct sdp_y_cvt_cfg *c, int16_t raw)
{
    if (c->bypass)
        return raw;
    return (int32_t)clampl(ref_shift_round(((long double)raw - c->offset) * c->scale, c->truncate),
                           32);
}

static int32_t ref_y(const struct sdp_y_cfg *c, int32_t in, int32_t aop, int32_t mop)
{
    if (c->bypass)
        return in;
    long double v = in;
    if (!c->mul_bypass && !(c->prelu && in >= 0))
        v = clampl(ref_shift_round(v * mop, c->truncate), 32);
    if (!c->alu_bypass) {
        if (c->alu_algo == SDP_ALU_MAX)
            v = v > aop ? v : aop;
        else if (c->alu_algo == SDP_ALU_MIN)
            v = v < aop ? v : aop;
        else if (c->alu_algo == SDP_ALU_EQL)
            v = v == aop ? 0 : 1;
        else
            v = clampl(v + aop, 32);
    }
    return (int32_t)v;
}

static int32_t ref_cvt(const struct sdp_cvt_cfg *c, int32_t in, bool *sat)
{
    long double p = ((long double)in - c->offset) * c->scale;
    /* + 0 turns a rounded -0 into the integer 0 */
    long double t = clampl(ref_shift_round(p, c->shift), 17) + 0.0L;
    long double plain = floorl(ldexpl(p, -(int)c->shift));
    *sat = plain > t + 1 || plain < t - 1;
    if (c->out_prec == SDP_FP16) {
        uint16_t h = fp16_from_float((float)t);
        if ((h & 0x7fff) == 0x7c00)
            h = (uint16_t)((h & 0x8000) | 0x7bff); /* overflow saturates to the largest finite */
        *sat = (h & 0x7fff) == 0x7bff;
        return h;
    }
    return (int32_t)clampl(t, c->out_prec == SDP_INT16 ? 16 : 8);
}

/* ---------------------------------------------------------------- inputs */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Random values with a bias toward the edges of the range. */
static int32_t random_i32(void)
{
    static const int32_t edges[] = {
        0,      1,     -1,     2,         -2,        127,           -128,         32767,
        -32768, 65535, -65536, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1};
    uint64_t r = next_random();
    if ((r & 3) == 0)
        return edges[(r >> 8) % (sizeof edges / sizeof edges[0])];
    int bits = 1 + (int)((r >> 8) % 32);
    return (int32_t)((uint32_t)(r >> 16) >> (32 - bits)) * ((r >> 40) & 1 ? -1 : 1);
}

static int16_t random_i16(void)
{
    return (int16_t)random_i32();
}

static void random_x_cfg(struct sdp_x_cfg *c)
{
    uint64_t r = next_random();
    c->bypass = (r & 15) == 0;
    c->alu_bypass = (r >> 4) & 1;
    c->mul_bypass = ((r >> 5) & 3) == 0;
    c->relu_bypass = (r >> 7) & 1;
    c->prelu = (r >> 8) & 1;
    c->alu_algo = (uint8_t)((r >> 9) % 3);
    c->alu_shift = (uint8_t)((r >> 12) & 63);
    if ((r >> 18) & 1)
        c->alu_shift &= 15;
    c->mul_shift = (uint8_t)((r >> 19) & 63);
    if ((r >> 25) & 1)
        c->mul_shift &= 31;
}

/* ---------------------------------------------------------------- X stage */

static struct sdp_x_cfg x_only_alu(uint8_t algo, uint8_t shift)
{
    return (struct sdp_x_cfg){
        .alu_algo = algo, .alu_shift = shift, .mul_bypass = true, .relu_bypass = true};
}

static void test_x_alu_modes(void **state)
{
    (void)state;
    struct sdp_x_cfg c = x_only_alu(SDP_ALU_SUM, 0);
    assert_int_equal(sdp_x_int(&c, 100, -30, 0), 70);
    c.alu_algo = SDP_ALU_MAX;
    assert_int_equal(sdp_x_int(&c, 100, -30, 0), 100);
    assert_int_equal(sdp_x_int(&c, -100, -30, 0), -30);
    c.alu_algo = SDP_ALU_MIN;
    assert_int_equal(sdp_x_int(&c, 100, -30, 0), -30);
    /* operand shifted left before the ALU: 3 << 4 = 48 */
    c = x_only_alu(SDP_ALU_SUM, 4);
    assert_int_equal(sdp_x_int(&c, 2, 3, 0), 50);
    /* the shifted operand saturates to 32 bits */
    c = x_only_alu(SDP_ALU_MAX, 40);
    assert_int_equal(sdp_x_int(&c, 5, 1, 0), INT32_MAX);
    assert_int_equal(sdp_x_int(&c, 5, -1, 0), 5);
    c.alu_algo = SDP_ALU_MIN;
    assert_int_equal(sdp_x_int(&c, 5, -1, 0), INT32_MIN);
    /* a 33-bit sum saturates to 32 bits at the truncation */
    c = x_only_alu(SDP_ALU_SUM, 0);
    assert_int_equal(sdp_x_int(&c, INT32_MAX, 10, 0), INT32_MAX);
    assert_int_equal(sdp_x_int(&c, INT32_MIN, -10, 0), INT32_MIN);
}

static void test_x_mul_and_rounding(void **state)
{
    (void)state;
    struct sdp_x_cfg c = {.alu_bypass = true, .relu_bypass = true, .mul_shift = 1};
    assert_int_equal(sdp_x_int(&c, 5, 0, 3), 8);   /* 15 / 2 = 7.5 -> 8 */
    assert_int_equal(sdp_x_int(&c, -5, 0, 3), -8); /* ties away from zero */
    assert_int_equal(sdp_x_int(&c, 7, 0, 1), 4);   /* 3.5 -> 4 */
    c.mul_shift = 2;
    assert_int_equal(sdp_x_int(&c, 5, 0, 1), 1);   /* 1.25 -> 1 */
    assert_int_equal(sdp_x_int(&c, -7, 0, 1), -2); /* -1.75 -> -2 */
    /* the 49-bit product saturates to 32 bits */
    c.mul_shift = 0;
    assert_int_equal(sdp_x_int(&c, INT32_MAX, 0, 2), INT32_MAX);
    assert_int_equal(sdp_x_int(&c, INT32_MAX, 0, -2), INT32_MIN);
    /* a bypassed multiplier still shifts */
    c.mul_bypass = true;
    c.mul_shift = 3;
    assert_int_equal(sdp_x_int(&c, 100, 0, 77), 13); /* 12.5 -> 13 */
}

static void test_x_prelu_and_relu(void **state)
{
    (void)state;
    struct sdp_x_cfg c = {.alu_bypass = true, .relu_bypass = true, .prelu = true, .mul_shift = 2};
    /* non-negative: untouched, no shift */
    assert_int_equal(sdp_x_int(&c, 100, 0, 3), 100);
    assert_int_equal(sdp_x_int(&c, 0, 0, 3), 0);
    /* negative: multiplied and shifted: -100 * 3 / 4 = -75 */
    assert_int_equal(sdp_x_int(&c, -100, 0, 3), -75);
    /* ReLU clamps negatives to zero */
    c = (struct sdp_x_cfg){.alu_bypass = true, .mul_bypass = true};
    assert_int_equal(sdp_x_int(&c, -5, 0, 0), 0);
    assert_int_equal(sdp_x_int(&c, 5, 0, 0), 5);
    /* bypassing the stage passes the value through whatever else is set */
    c = (struct sdp_x_cfg){.bypass = true, .mul_shift = 5};
    assert_int_equal(sdp_x_int(&c, -12345, 9, 9), -12345);
}

static void test_x_random_against_reference(void **state)
{
    (void)state;
    for (int i = 0; i < 200000; i++) {
        struct sdp_x_cfg c;
        random_x_cfg(&c);
        int32_t in = random_i32();
        int16_t a = random_i16(), m = random_i16();
        int32_t got = sdp_x_int(&c, in, a, m), want = ref_x(&c, in, a, m);
        if (got != want)
            fail_msg("X: in %d alu %d mul %d algo %u shifts %u/%u prelu %d: got %d want %d", in, a,
                     m, c.alu_algo, c.alu_shift, c.mul_shift, c.prelu, got, want);
    }
}

/* ---------------------------------------------------------------- Y stage */

static void test_y_stage(void **state)
{
    (void)state;
    struct sdp_y_cfg c = {.alu_bypass = true, .truncate = 4};
    assert_int_equal(sdp_y_int(&c, 1000, 0, 3), 188); /* 3000 / 16 = 187.5 -> 188 */
    /* the multiplier takes 32-bit operands: a 64-bit product */
    c.truncate = 32;
    assert_int_equal(sdp_y_int(&c, 0x40000000, 0, 0x40000000), 0x10000000);
    c.truncate = 1000; /* 10-bit truncate: everything rounds to zero */
    assert_int_equal(sdp_y_int(&c, INT32_MAX, 0, INT32_MAX), 0);
    /* multiplier first, then the ALU */
    c = (struct sdp_y_cfg){.alu_algo = SDP_ALU_SUM, .truncate = 0};
    assert_int_equal(sdp_y_int(&c, 10, 5, 3), 35);
    c.alu_algo = SDP_ALU_EQL;
    assert_int_equal(sdp_y_int(&c, 10, 30, 3), 0);
    assert_int_equal(sdp_y_int(&c, 10, 31, 3), 1);
    c = (struct sdp_y_cfg){.mul_bypass = true, .alu_algo = SDP_ALU_SUM};
    assert_int_equal(sdp_y_int(&c, INT32_MAX, INT32_MAX, 0), INT32_MAX);
    /* PReLU keeps non-negative inputs */
    c = (struct sdp_y_cfg){.alu_bypass = true, .prelu = true, .truncate = 1};
    assert_int_equal(sdp_y_int(&c, 9, 0, 5), 9);
    assert_int_equal(sdp_y_int(&c, -9, 0, 5), -23); /* -22.5 -> -23 */
}

static void test_y_operand_converter(void **state)
{
    (void)state;
    struct sdp_y_cvt_cfg c = {.offset = 10, .scale = 3, .truncate = 1};
    assert_int_equal(sdp_y_operand_int(&c, 15), 8); /* (15-10)*3/2 = 7.5 -> 8 */
    assert_int_equal(sdp_y_operand_int(&c, 5), -8); /* -7.5 -> -8 */
    c.bypass = true;
    assert_int_equal(sdp_y_operand_int(&c, -7), -7);
    for (int i = 0; i < 100000; i++) {
        struct sdp_y_cvt_cfg r = {.offset = random_i32(),
                                  .scale = random_i16(),
                                  .truncate = (uint8_t)(next_random() & 63)};
        int16_t raw = random_i16();
        assert_int_equal(sdp_y_operand_int(&r, raw), ref_y_operand(&r, raw));
    }
}

static void test_y_random_against_reference(void **state)
{
    (void)state;
    for (int i = 0; i < 200000; i++) {
        uint64_t r = next_random();
        struct sdp_y_cfg c = {.bypass = (r & 15) == 0,
                              .alu_bypass = (r >> 4) & 1,
                              .mul_bypass = (r >> 5) & 1,
                              .prelu = (r >> 6) & 1,
                              .alu_algo = (uint8_t)((r >> 7) & 3),
                              .truncate = (uint16_t)((r >> 9) & ((r >> 20) & 1 ? 1023 : 63))};
        int32_t in = random_i32(), a = random_i32(), m = random_i32();
        int32_t got = sdp_y_int(&c, in, a, m), want = ref_y(&c, in, a, m);
        if (got != want)
            fail_msg("Y: in %d alu %d mul %d algo %u trunc %u: got %d want %d", in, a, m,
                     c.alu_algo, c.truncate, got, want);
    }
}

/* ---------------------------------------------------------------- output converter */

static void test_cvt_int8_int16(void **state)
{
    (void)state;
    bool sat;
    struct sdp_cvt_cfg c = {.offset = 0, .scale = 1, .shift = 0, .out_prec = SDP_INT8};
    assert_int_equal(sdp_cvt_int(&c, 100, &sat), 100);
    assert_false(sat);
    /* the int8 clamp is not what the saturation counter counts */
    assert_int_equal(sdp_cvt_int(&c, 300, &sat), 127);
    assert_false(sat);
    assert_int_equal(sdp_cvt_int(&c, -300, &sat), -128);
    /* the 17-bit clamp is */
    assert_int_equal(sdp_cvt_int(&c, 70000, &sat), 127);
    assert_true(sat);
    c.out_prec = SDP_INT16;
    assert_int_equal(sdp_cvt_int(&c, 70000, &sat), 32767);
    assert_true(sat);
    assert_int_equal(sdp_cvt_int(&c, 65536, &sat), 32767);
    assert_false(sat); /* one beyond the 17-bit range: within the tolerance */
    c = (struct sdp_cvt_cfg){.offset = 10, .scale = 3, .shift = 2, .out_prec = SDP_INT16};
    assert_int_equal(sdp_cvt_int(&c, 20, &sat), 8); /* 30/4 = 7.5 -> 8 */
    assert_int_equal(sdp_cvt_int(&c, 0, &sat), -8); /* -7.5 -> -8 */
    assert_int_equal(sdp_cvt_int(&c, 11, &sat), 1); /* 0.75 -> 1 */
}

static void test_cvt_fp16(void **state)
{
    (void)state;
    bool sat;
    struct sdp_cvt_cfg c = {.scale = 1, .out_prec = SDP_FP16};
    assert_int_equal(sdp_cvt_int(&c, 1, &sat), 0x3c00);
    assert_int_equal(sdp_cvt_int(&c, -2, &sat), 0xc000);
    assert_int_equal(sdp_cvt_int(&c, 2049, &sat), 0x6800); /* ties to even: 2048 */
    assert_int_equal(sdp_cvt_int(&c, 65504, &sat), 0x7bff);
    assert_true(sat); /* fp16 outputs count the largest finite value */
    assert_int_equal(sdp_cvt_int(&c, 1000000, &sat), 0x7bff); /* saturates, no infinity */
    assert_int_equal(sdp_cvt_int(&c, -65520, &sat), 0xfbff);
}

static void test_cvt_random_against_reference(void **state)
{
    (void)state;
    for (int i = 0; i < 300000; i++) {
        uint64_t r = next_random();
        struct sdp_cvt_cfg c = {.offset = (r & 1) ? random_i32() : 0,
                                .scale = (r & 2) ? random_i16() : 1,
                                .shift = (uint8_t)((r >> 2) & 63),
                                .out_prec = (uint8_t)((r >> 8) % 3)};
        int32_t in = random_i32();
        bool sat_got, sat_want;
        int32_t got = sdp_cvt_int(&c, in, &sat_got), want = ref_cvt(&c, in, &sat_want);
        if (got != want || sat_got != sat_want)
            fail_msg("cvt: in %d off %d scale %d shift %u prec %u: got %d/%d want %d/%d", in,
                     c.offset, c.scale, c.shift, c.out_prec, got, sat_got, want, sat_want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x_alu_modes),
        cmocka_unit_test(test_x_mul_and_rounding),
        cmocka_unit_test(test_x_prelu_and_relu),
        cmocka_unit_test(test_x_random_against_reference),
        cmocka_unit_test(test_y_stage),
        cmocka_unit_test(test_y_operand_converter),
        cmocka_unit_test(test_y_random_against_reference),
        cmocka_unit_test(test_cvt_int8_int16),
        cmocka_unit_test(test_cvt_fp16),
        cmocka_unit_test(test_cvt_random_against_reference),
    };
    return cmocka_run_group_tests_name("sdp_arith", tests, NULL, NULL);
}
