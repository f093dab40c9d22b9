/* The cmod's float arithmetic.  Where it agrees with IEEE 754 (normal
 * operands and results; additions whose exponents differ by no more than the
 * two guard bits can absorb) the host's binary32 arithmetic is the
 * reference; where it deliberately differs (saturation instead of infinity,
 * flushing instead of subnormal results, NaN passing, the cmod's integer
 * conversions) the expected values are worked out by hand below. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "num/fp16.h"
#include "num/fpnum.h"
#include "num/fpnum_inline.h"
#include "num/fpnum_vec.h"

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint64_t rng = 0x6a09e667f3bcc909ull;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A normal binary32 with its exponent in [lo, hi] (biased). */
static uint32_t random_normal(unsigned lo, unsigned hi)
{
    uint64_t r = next_random();
    uint32_t expo = lo + (uint32_t)((r >> 32) % (hi - lo + 1));
    return (uint32_t)(r & 0x807fffffu) | expo << 23;
}

static bool is_normal_or_zero(float f)
{
    return f == 0.0f || (isnormal(f) && fabsf(f) <= 3.4e38f);
}

/* ---------------------------------------------------------------- add */

static void test_add_matches_ieee_when_exact_enough(void **state)
{
    (void)state;
    for (int i = 0; i < 300000; i++) {
        uint32_t a = random_normal(60, 190);
        uint32_t b = (next_random() & 1) ? random_normal(60, 190)
                                         : a ^ (uint32_t)(next_random() & 0x807fffffu);
        int da = (int)((a >> 23) & 0xff), db = (int)((b >> 23) & 0xff);
        if (abs(da - db) > 25)
            continue; /* beyond the guard bits the cmod drops bits (tested below) */
        float want = float_of(a) + float_of(b);
        if (!is_normal_or_zero(want))
            continue;
        uint32_t got = (uint32_t)fp_add(FP32, a, b);
        if (want == 0.0f)
            assert_true((got & 0x7fffffffu) == 0);
        else if (got != bits_of(want))
            fail_msg("%08x + %08x: got %08x want %08x", a, b, got, bits_of(want));
    }
}

static void test_add_quirks(void **state)
{
    (void)state;
    /* x + (-x) keeps the sign of the first operand */
    assert_int_equal(fp_add(FP32, bits_of(-3.0f), bits_of(3.0f)), 0x80000000u);
    assert_int_equal(fp_add(FP32, bits_of(3.0f), bits_of(-3.0f)), 0);
    /* overflow saturates to the largest finite value */
    assert_int_equal(fp_add(FP32, 0x7f7fffffu, 0x7f7fffffu), 0x7f7fffffu);
    assert_int_equal(fp_add(FP32, 0xff7fffffu, 0xff7fffffu), 0xff7fffffu);
    /* results below the normal range flush to zero */
    assert_int_equal(fp_add(FP32, 0x00800001u, 0x80800000u), 0);
    /* NaN operands pass through, the first one first */
    assert_int_equal(fp_add(FP32, 0x7fc00001u, bits_of(1.0f)), 0x7fc00001u);
    assert_int_equal(fp_add(FP32, bits_of(1.0f), 0xffc00002u), 0xffc00002u);
    assert_int_equal(fp_add(FP32, 0x7fc00001u, 0x7fc00002u), 0x7fc00001u);
    /* a far smaller addend leaves the larger unchanged: 1 - 2^-60 */
    assert_int_equal(fp_add(FP32, bits_of(1.0f), bits_of(-0x1p-60f)), bits_of(1.0f));
    /* fp17 (6-bit exponent, 10-bit mantissa): 1.5 + 0.25 = 1.75 */
    uint32_t one_5 = 31u << 10 | 0x200u, q = 29u << 10, want = 31u << 10 | 0x300u;
    assert_int_equal(fp_add(FP17, one_5, q), want);
    assert_int_equal(fp_sub(FP17, want, q), one_5);
}

/* ---------------------------------------------------------------- mul */

static void test_mul_matches_ieee_for_normal_results(void **state)
{
    (void)state;
    for (int i = 0; i < 300000; i++) {
        uint32_t a = random_normal(70, 180), b = random_normal(70, 180);
        float want = float_of(a) * float_of(b);
        if (!is_normal_or_zero(want) || want == 0.0f)
            continue;
        uint32_t got = (uint32_t)fp_mul(FP32, a, b);
        if (got != bits_of(want))
            fail_msg("%08x * %08x: got %08x want %08x", a, b, got, bits_of(want));
    }
}

static void test_mul_quirks(void **state)
{
    (void)state;
    assert_int_equal(fp_mul(FP32, bits_of(2.0f), bits_of(-3.0f)), bits_of(-6.0f));
    assert_int_equal(fp_mul(FP32, 0x7f000000u, bits_of(4.0f)), 0x7f7fffffu); /* saturates */
    assert_int_equal(fp_mul(FP32, 0x00800000u, bits_of(0.25f)), 0);          /* flushed */
    assert_int_equal(fp_mul(FP32, 0, bits_of(-5.0f)), 0x80000000u);          /* signed zero */
    assert_int_equal(fp_mul(FP32, 0x7fc00003u, 0), 0x7fc00003u);             /* NaN passes */
    /* an infinity is a number with the top exponent: inf * 0.5 is finite */
    assert_int_equal(fp_mul(FP32, 0x7f800000u, bits_of(0.5f)), 0x7f000000u);
}

/* ---------------------------------------------------------------- max, min, relu */

static void test_compare_and_relu(void **state)
{
    (void)state;
    assert_int_equal(fp_max(FP32, bits_of(-1.0f), bits_of(0.5f)), bits_of(0.5f));
    assert_int_equal(fp_min(FP32, bits_of(-1.0f), bits_of(0.5f)), bits_of(-1.0f));
    assert_int_equal(fp_max(FP32, bits_of(-1.0f), bits_of(-2.0f)), bits_of(-1.0f));
    assert_int_equal(fp_min(FP32, bits_of(-1.0f), bits_of(-2.0f)), bits_of(-2.0f));
    assert_int_equal(fp_max(FP32, 0, 0x80000000u), 0); /* +0 is the larger */
    assert_int_equal(fp_max(FP32, bits_of(7.0f), 0x7fc00000u), 0x7fc00000u);
    assert_int_equal(fp_relu(FP32, bits_of(-4.0f)), 0);
    assert_int_equal(fp_relu(FP32, 0x80000000u), 0);
    assert_int_equal(fp_relu(FP32, bits_of(4.0f)), bits_of(4.0f));
    assert_int_equal(fp_relu(FP32, 0xffc00000u), 0xffc00000u);
}

/* ---------------------------------------------------------------- conversions */

/* The inline fp16 max/min of the pooling loops against the generic
 * comparison: every fp16 value against the special ones (zeros, subnormals,
 * infinities, NaNs, the extremes) both ways round, then random pairs. */
static void check_fp16_pick(uint16_t a, uint16_t b)
{
    assert_int_equal(fp16_max(a, b), fp_max(FP16, a, b));
    assert_int_equal(fp16_min(a, b), fp_min(FP16, a, b));
}

static void test_fp16_max_min_match_generic(void **state)
{
    (void)state;
    static const uint16_t special[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400,
                                       0x8400, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00, 0xfc00,
                                       0x7c01, 0xfc01, 0x7e00, 0xfe00, 0x7fff, 0xffff};
    for (uint32_t a = 0; a < 0x10000u; a++)
        for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
            check_fp16_pick((uint16_t)a, special[i]);
            check_fp16_pick(special[i], (uint16_t)a);
        }
    uint32_t seed = 0x5eed1234u;
    for (int i = 0; i < 1000000; i++) {
        seed = seed * 1664525u + 1013904223u;
        check_fp16_pick((uint16_t)(seed >> 16), (uint16_t)seed);
    }
}

/* fp_add's fp32 fast path (normal or zero operands) against the
 * reference add: special operands (zeros, subnormals, the normal extremes,
 * infinities, NaNs, both signs) against each other and against random
 * values, random pairs of either sign with exponents close enough to
 * overlap (carries, cancellation, ties, rounding carries, saturation) and
 * fully random pairs. */
static uint32_t next_u32(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    uint32_t hi = *seed >> 16;
    *seed = *seed * 1664525u + 1013904223u;
    return hi << 16 | *seed >> 16;
}

static void check_add32(uint32_t a, uint32_t b)
{
    assert_int_equal(fp_add(FP32, a, b), fp_add_reference(FP32, a, b));
}

static void test_fp32_add_fast_path_matches_reference(void **state)
{
    (void)state;
    static const uint32_t special[] = {0x00000000, 0x80000000, 0x00000001, 0x007fffff, 0x00800000,
                                       0x00800001, 0x3f800000, 0x3fffffff, 0x4b800000, 0x7effffff,
                                       0x7f000000, 0x7f7ffffe, 0x7f7fffff, 0x7f800000, 0x7f800001,
                                       0x7fc00000, 0xbf800000, 0xff7fffff, 0xff800000, 0xffc00000};
    const size_t n_special = sizeof special / sizeof special[0];
    uint32_t seed = 0xadd32u;
    for (size_t i = 0; i < n_special; i++)
        for (size_t j = 0; j < n_special; j++)
            check_add32(special[i], special[j]);
    for (int i = 0; i < 200000; i++) {
        uint32_t r = next_u32(&seed);
        check_add32(special[i % n_special], r);
        check_add32(r, special[i % n_special]);
    }
    for (int i = 0; i < 2000000; i++) {
        uint32_t a = next_u32(&seed) & 0x7fffffffu, b = next_u32(&seed);
        /* b's exponent within 30 of a's, its mantissa often all ones or
         * zeros in the low bits, to reach ties and carries */
        uint32_t ea = a >> 23, shift = b % 31;
        uint32_t eb = ea > shift ? ea - shift : 0;
        uint32_t mb = (b >> 5) & 0x7fffffu;
        if (b & 16)
            mb |= 0x7fffffu >> (b >> 28);
        else if (b & 8)
            mb &= ~(0x7fffffu >> (b >> 28));
        uint32_t sb = (b & 32) ? 0x80000000u : 0;
        check_add32(a, sb | eb << 23 | mb);
        check_add32(sb | eb << 23 | mb, a | 0x80000000u);
        check_add32(next_u32(&seed), next_u32(&seed));
    }
}

/* fp17 add and multiply (the LUT's interpolation and CDP's product) go
 * through binary32 where that is exact: against the reference for every
 * fp17 operand paired with the edge cases (zeros, subnormals, the largest
 * value, infinity, NaN, ones), and for random pairs with exponents close
 * enough to reach ties, carries, cancellation, flush and saturation. */
static void check_fp17(uint32_t a, uint32_t b)
{
    uint64_t add = fp_add(FP17, a, b), add_ref = fp_add_reference(FP17, a, b);
    uint64_t mul = fp_mul(FP17, a, b), mul_ref = fp_mul_reference(FP17, a, b);
    if (add != add_ref || mul != mul_ref)
        fail_msg("fp17 0x%05x, 0x%05x: add 0x%05llx (reference 0x%05llx), mul 0x%05llx "
                 "(reference 0x%05llx)",
                 a, b, (unsigned long long)add, (unsigned long long)add_ref,
                 (unsigned long long)mul, (unsigned long long)mul_ref);
}

static void test_fp17_fast_paths_match_reference(void **state)
{
    (void)state;
    static const uint32_t special[] = {0x00000, 0x10000, 0x00001, 0x003ff, 0x00400, 0x007ff,
                                       0x07c00, 0x17c00, 0x07fff, 0x0f800, 0x0fbff, 0x1fbff,
                                       0x0fc00, 0x1fc00, 0x0fc01, 0x1ffff, 0x0f7ff, 0x00bff};
    const size_t n_special = sizeof special / sizeof special[0];
    for (uint32_t a = 0; a < (1u << 17); a++)
        for (size_t j = 0; j < n_special; j++) {
            check_fp17(a, special[j]);
            check_fp17(special[j], a);
        }
    uint32_t seed = 0xf17u;
    for (int i = 0; i < 4000000; i++) {
        uint32_t a = next_u32(&seed) & 0x1ffffu, b = next_u32(&seed);
        uint32_t ea = (a >> 10) & 63u, shift = b % 15;
        uint32_t eb = (b & 64)     ? 62u - ea + (b >> 7) % 5u - 2u /* products near the edges */
                      : ea > shift ? ea - shift
                                   : 0;
        uint32_t mb = (b >> 12) & 0x3ffu;
        if (b & 16)
            mb |= 0x3ffu >> (b >> 28);
        else if (b & 8)
            mb &= ~(0x3ffu >> (b >> 28));
        uint32_t other = (b & 32) << 11 | (eb & 63u) << 10 | mb;
        check_fp17(a, other);
        check_fp17(other, a);
        check_fp17(next_u32(&seed) & 0x1ffffu, next_u32(&seed) & 0x1ffffu);
    }
}

/* The inline fp16 widenings (field moves for normal values) and the LUT's
 * interpolation weight (through binary32) against the generic code, for
 * every input. */
static void test_inline_widenings_match_reference(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x10000; h++) {
        assert_int_equal(fp16_to_fp32((uint16_t)h), fpi_widen(FP16, FP32, h, true));
        assert_int_equal(fp16_to_fp17((uint16_t)h), fpi_widen(FP16, FP17, h, true));
        assert_int_equal(fp17_from_q16((uint16_t)h), fpnum_fraction_to_fp17(h, 16));
    }
}

/* The inline fp32 -> fp16 narrowing (a branch-free normal/zero case) and
 * ReLU against the generic code: every exponent, with mantissas at and
 * around the rounding ties and carries, random ones, both signs, and the
 * edges of fp16's range (subnormal results, saturation, infinity, NaN). */
static void check_narrow_relu(uint32_t f)
{
    if (fp32_to_fp16(f) != fpi_narrow(FP32, FP16, f, true))
        fail_msg("fp32 0x%08x: fp16 0x%04x, reference 0x%04x", f, fp32_to_fp16(f),
                 (unsigned)fpi_narrow(FP32, FP16, f, true));
    float v = float_of(f);
    assert_int_equal(fp32_relu(f), isnan(v) || !(f >> 31) ? f : 0);
}

static void test_fp32_to_fp16_and_relu_match_reference(void **state)
{
    (void)state;
    static const uint32_t low[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001,  0x1fff,
                                   0x2000, 0x2fff, 0x3000, 0x3001, 0x7fffff};
    uint32_t seed = 0xf32f16u;
    for (uint32_t e = 0; e < 256; e++)
        for (uint32_t sign = 0; sign < 2; sign++) {
            for (size_t i = 0; i < sizeof low / sizeof low[0]; i++)
                for (uint32_t high = 0; high < 0x400; high += 0x3f) {
                    uint32_t m = (high << 13 | low[i]) & 0x7fffffu;
                    check_narrow_relu(sign << 31 | e << 23 | m);
                    check_narrow_relu(sign << 31 | e << 23 | (0x7fe000u | low[i] % 0x2000u));
                }
            for (int i = 0; i < 4000; i++)
                check_narrow_relu(sign << 31 | e << 23 | (next_u32(&seed) & 0x7fffffu));
        }
}

/* The four-lane fast paths: every lane either equals the scalar function
 * or is flagged slow; lanes of every kind (specials, near ties, random)
 * side by side, and the flagged ones are the rare kinds only. */
static uint32_t mixed_fp32(uint32_t *seed)
{
    static const uint32_t special[] = {0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000,
                                       0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000,
                                       0x477ff000, 0x38801000, 0x33000000, 0x3f800000};
    uint32_t r = next_u32(seed);
    if (r % 5 == 0)
        return special[(r >> 8) % (sizeof special / sizeof special[0])];
    if (r % 5 == 1)
        return next_u32(seed);
    /* fp16's range and around it, with tie patterns in the low bits */
    uint32_t low = (r & 64) ? 0x1000u : (r & 32) ? 0x0fffu : next_u32(seed) & 0x1fffu;
    return (r & 0x80000000u) | (100u + (r >> 8) % 50u) << 23 | (next_u32(seed) & 0x7fe000u) | low;
}

static void test_vector_fast_paths_match_scalar(void **state)
{
    (void)state;
    uint32_t seed = 0x7ec7u;
    uint64_t lanes = 0, slow_lanes = 0;
    for (int i = 0; i < 500000; i++) {
        uint32_t a[FPV_LANES], b[FPV_LANES];
        for (int l = 0; l < FPV_LANES; l++) {
            a[l] = mixed_fp32(&seed);
            /* b near a's exponent half the time, to reach carries and cancellation */
            b[l] = (next_u32(&seed) & 1) ? mixed_fp32(&seed)
                                         : (a[l] ^ (next_u32(&seed) & 0x80ffffffu));
        }
        fpv_i32 slow_add, slow_narrow, slow_widen;
        fpv_u32 sum = fpv_add32(fpv_load(a), fpv_load(b), &slow_add);
        fpv_u32 relu = fpv_relu32(fpv_load(a));
        fpv_u32 h = fpv_fp32_to_fp16(fpv_load(a), &slow_narrow);
        fpv_u32 a16 = fpv_load(a) & 0xffffu;
        fpv_u32 w = fpv_fp16_to_fp32(a16, &slow_widen);
        for (int l = 0; l < FPV_LANES; l++) {
            if (!slow_add[l] && sum[l] != fp32_add(a[l], b[l]))
                fail_msg("add 0x%08x 0x%08x: 0x%08x, scalar 0x%08x", a[l], b[l], sum[l],
                         fp32_add(a[l], b[l]));
            assert_int_equal(relu[l], fp32_relu(a[l]));
            if (!slow_narrow[l] && h[l] != fp32_to_fp16(a[l]))
                fail_msg("narrow 0x%08x: 0x%04x, scalar 0x%04x", a[l], h[l], fp32_to_fp16(a[l]));
            if (!slow_widen[l] && w[l] != fp16_to_fp32((uint16_t)a16[l]))
                fail_msg("widen 0x%04x: 0x%08x, scalar 0x%08x", a16[l], w[l],
                         fp16_to_fp32((uint16_t)a16[l]));
            slow_lanes += (slow_add[l] != 0) + (slow_narrow[l] != 0) + (slow_widen[l] != 0);
            lanes += 3;
        }
        /* fp17: the low 17 bits, and a few zeros, infinities and NaNs */
        uint32_t a17[FPV_LANES], b17[FPV_LANES];
        static const uint32_t special17[] = {0x00000, 0x10000, 0x0fc00, 0x1fc01, 0x0fbff, 0x00001};
        for (int l = 0; l < FPV_LANES; l++) {
            uint32_t r = next_u32(&seed);
            a17[l] = r % 7 == 0 ? special17[r % 6] : a[l] & 0x1ffffu;
            b17[l] = r % 11 == 0 ? special17[(r >> 4) % 6] : b[l] & 0x1ffffu;
            if (r & 0x100) /* the same exponent or up to 15 below: ties, carries, cancellation */
                b17[l] = (((a17[l] & 0xfc00u) - ((r >> 9) % 16u << 10)) & 0xfc00u) |
                         (r & 0x10000u) | (next_u32(&seed) & 0x3ffu);
        }
        fpv_i32 slow_mul, slow_17, slow_add17, slow_to17;
        fpv_u32 sum17 = fpv_add17(fpv_load(a17), fpv_load(b17), &slow_add17);
        fpv_u32 to17 = fpv_fp32_to_fp17(fpv_load(a), &slow_to17);
        for (int l = 0; l < FPV_LANES; l++) {
            if (!slow_add17[l] && sum17[l] != fp17_add(a17[l], b17[l]))
                fail_msg("add17 0x%05x 0x%05x: 0x%05x, scalar 0x%05x", a17[l], b17[l], sum17[l],
                         fp17_add(a17[l], b17[l]));
            if (!slow_to17[l] && to17[l] != fp32_to_fp17(a[l]))
                fail_msg("fp32 0x%08x to fp17: 0x%05x, scalar 0x%05x", a[l], to17[l],
                         fp32_to_fp17(a[l]));
            slow_lanes += (slow_add17[l] != 0) + (slow_to17[l] != 0);
            lanes += 2;
        }
        fpv_u32 prod = fpv_mul17(fpv_load(a17), fpv_load(b17), &slow_mul);
        fpv_u32 h16 = fpv_fp17_to_fp16(fpv_load(a17), &slow_17);
        for (int l = 0; l < FPV_LANES; l++) {
            if (!slow_mul[l] && prod[l] != fp17_mul(a17[l], b17[l]))
                fail_msg("mul17 0x%05x 0x%05x: 0x%05x, scalar 0x%05x", a17[l], b17[l], prod[l],
                         fp17_mul(a17[l], b17[l]));
            if (!slow_17[l] && h16[l] != fp17_to_fp16(a17[l]))
                fail_msg("fp17 0x%05x to fp16: 0x%04x, scalar 0x%04x", a17[l], h16[l],
                         fp17_to_fp16(a17[l]));
            slow_lanes += (slow_mul[l] != 0) + (slow_17[l] != 0);
            lanes += 2;
        }
    }
    /* the fast paths took most lanes */
    assert_true(slow_lanes * 2 < lanes);
}

static void test_fp16_fp32_round_trip(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x10000; h++) {
        uint16_t x = (uint16_t)h;
        uint32_t f = fpnum_fp16_to_fp32(x);
        if (fp16_is_nan(x)) {
            /* the fraction bits stay where they were */
            assert_int_equal(f, (uint32_t)(x & 0x8000) << 16 | 0x7f800000u | (x & 0x3ffu));
            continue;
        }
        if (fp16_is_inf(x)) {
            assert_int_equal(f, (uint32_t)(x & 0x8000) << 16 | 0x7f7fffffu);
            continue;
        }
        assert_int_equal(f, fp16_to_f32_bits(x)); /* exact, subnormals included */
        assert_int_equal(fpnum_fp32_to_fp16(f), x);
    }
}

static void test_fp32_to_fp16_rounding(void **state)
{
    (void)state;
    for (int i = 0; i < 300000; i++) {
        uint32_t f = random_normal(100, 142);
        uint16_t want = fp16_from_f32_bits(f); /* IEEE nearest even */
        if (fp16_is_inf(want))
            want = (uint16_t)((want & 0x8000) | 0x7bff);
        assert_int_equal(fpnum_fp32_to_fp16(f), want);
    }
    assert_int_equal(fpnum_fp32_to_fp16(bits_of(65520.0f)), 0x7bff); /* saturates */
    assert_int_equal(fpnum_fp32_to_fp16(0x7f800000u), 0x7bff);
    assert_int_equal(fpnum_fp32_to_fp16(bits_of(0x1p-26f)), 0);        /* below subnormals */
    assert_int_equal(fpnum_fp32_to_fp16(bits_of(0x1.8p-25f)), 0x0001); /* rounds up */
    assert_int_equal(fpnum_fp32_to_fp16(bits_of(0x1p-25f)), 0x0000);   /* tie to even */
    /* NaN keeps the low fraction bits: a payload with none left reads as inf */
    assert_int_equal(fpnum_fp32_to_fp16(0x7fc00000u), 0x7c00);
    assert_int_equal(fpnum_fp32_to_fp16(0x7fc00005u), 0x7c05);
}

static void test_fp17(void **state)
{
    (void)state;
    /* fp16 -> fp17 -> fp16 is the identity for finite values */
    for (uint32_t h = 0; h < 0x10000; h++) {
        uint16_t x = (uint16_t)h;
        if (fp16_is_nan(x) || fp16_is_inf(x))
            continue;
        uint32_t w = fpnum_fp16_to_fp17(x);
        assert_int_equal(fpnum_fp17_to_fp16(w), x);
        if ((x & 0x7c00) && fp16_to_float(x) != 0.0f)
            assert_int_equal(fpnum_fp17_to_fp32(w), fp16_to_f32_bits(x));
    }
    /* fp32 -> fp17 rounds the mantissa to nearest even: 1 + 2^-11 -> 1 */
    assert_int_equal(fpnum_fp32_to_fp17(bits_of(1.0f + 0x1p-11f)), 31u << 10);
    assert_int_equal(fpnum_fp32_to_fp17(bits_of(1.0f + 0x1.8p-11f)), 31u << 10 | 1u);
}

/* Interpolation weights: frac / 2^35 rounded to 11 significant bits. */
static void test_fraction_to_fp17(void **state)
{
    (void)state;
    assert_int_equal(fpnum_fraction_to_fp17(0, 35), 0);
    assert_int_equal(fpnum_fraction_to_fp17(1ull << 34, 35), 30u << 10);       /* 0.5 */
    assert_int_equal(fpnum_fraction_to_fp17((1ull << 35) - 1, 35), 31u << 10); /* rounds to 1 */
    assert_int_equal(fpnum_fraction_to_fp17(1, 35), 0); /* 2^-35: below fp17's range */
    for (int i = 0; i < 200000; i++) {
        uint64_t frac = (next_random() >> 29) | 64u; /* 35 bits, at least 2^-29 */
        int lead = 63 - __builtin_clzll(frac);
        double step = ldexp(1.0, lead - 10);
        double want = rint((double)frac / step) * step / ldexp(1.0, 35);
        uint32_t got = fpnum_fp17_to_fp32(fpnum_fraction_to_fp17(frac, 35));
        if (float_of(got) != (float)want)
            fail_msg("fraction %llx: got %g want %g", (unsigned long long)frac,
                     (double)float_of(got), want);
    }
}

static void test_fp16_to_int16(void **state)
{
    (void)state;
    assert_int_equal(fpnum_fp16_to_int16(fp16_from_float(2.5f)), 3); /* half away */
    assert_int_equal(fpnum_fp16_to_int16(fp16_from_float(-2.5f)), -3);
    assert_int_equal(fpnum_fp16_to_int16(fp16_from_float(2.4f)), 2);
    assert_int_equal(fpnum_fp16_to_int16(fp16_from_float(40000.0f)), 32767);
    assert_int_equal(fpnum_fp16_to_int16(fp16_from_float(-40000.0f)), -32768);
    assert_int_equal(fpnum_fp16_to_int16(0x7e00), -32768); /* NaN */
    assert_int_equal(fpnum_fp16_to_int16(0x0001), 0);
    for (int v = -2048; v <= 2048; v++)
        assert_int_equal(fpnum_fp16_to_int16(fp16_from_float((float)v)), v);
}

static void test_int_to_fp16(void **state)
{
    (void)state;
    for (int64_t v = -65536; v <= 65536; v++) {
        uint16_t want = fp16_from_float((float)v);
        if (fp16_is_inf(want))
            want = (uint16_t)((want & 0x8000) | 0x7bff);
        assert_int_equal(fpnum_int_to_fp16(v), want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_matches_ieee_when_exact_enough),
        cmocka_unit_test(test_add_quirks),
        cmocka_unit_test(test_mul_matches_ieee_for_normal_results),
        cmocka_unit_test(test_mul_quirks),
        cmocka_unit_test(test_compare_and_relu),
        cmocka_unit_test(test_fp16_max_min_match_generic),
        cmocka_unit_test(test_fp32_add_fast_path_matches_reference),
        cmocka_unit_test(test_fp17_fast_paths_match_reference),
        cmocka_unit_test(test_inline_widenings_match_reference),
        cmocka_unit_test(test_fp32_to_fp16_and_relu_match_reference),
        cmocka_unit_test(test_vector_fast_paths_match_scalar),
        cmocka_unit_test(test_fp16_fp32_round_trip),
        cmocka_unit_test(test_fp32_to_fp16_rounding),
        cmocka_unit_test(test_fp17),
        cmocka_unit_test(test_fraction_to_fp17),
        cmocka_unit_test(test_fp16_to_int16),
        cmocka_unit_test(test_int_to_fp16),
    };
    return cmocka_run_group_tests_name("fpnum", tests, NULL, NULL);
}
