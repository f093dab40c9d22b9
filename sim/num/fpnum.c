/* The cmod's floating-point arithmetic on integers (see fpnum.h for how it
 * differs from IEEE 754), as exported functions; the arithmetic itself is
 * in fpnum_inline.h, which the per-element loops use directly. */
#include "fpnum_inline.h"

uint64_t fp_add_reference(struct fp_format f, uint64_t a, uint64_t b)
{
    return fpi_add_impl(f, a, b);
}

/* The formats the datapaths use get instances of their own, so that the
 * compiler folds the widths into constants. */
uint64_t fp_add(struct fp_format f, uint64_t a, uint64_t b)
{
    if (f.expo == FP17.expo && f.mant == FP17.mant)
        return a >> 17 || b >> 17 ? fpi_add_impl(FP17, a, b) : fp17_add((uint32_t)a, (uint32_t)b);
    if (f.expo == FP32.expo && f.mant == FP32.mant)
        return (a | b) >> 32 ? fpi_add_impl(FP32, a, b) : fp32_add((uint32_t)a, (uint32_t)b);
    return fpi_add_impl(f, a, b);
}

uint64_t fp_sub(struct fp_format f, uint64_t a, uint64_t b)
{
    return fp_add(f, a, b ^ (1ull << (f.expo + f.mant)));
}

/* ---------------------------------------------------------------- multiply */

uint64_t fp_mul_reference(struct fp_format f, uint64_t a, uint64_t b)
{
    return fpi_mul_impl(f, a, b);
}

uint64_t fp_mul(struct fp_format f, uint64_t a, uint64_t b)
{
    if (f.expo == FP17.expo && f.mant == FP17.mant)
        return a >> 17 || b >> 17 ? fpi_mul_impl(FP17, a, b) : fp17_mul((uint32_t)a, (uint32_t)b);
    if (f.expo == FP32.expo && f.mant == FP32.mant)
        return fpi_mul_impl(FP32, a, b);
    return fpi_mul_impl(f, a, b);
}

/* ---------------------------------------------------------------- compare */

/* fp16 (PDP pooling) and fp32 (SDP) get instances of their own. */
static uint64_t compare_in(struct fp_format f, uint64_t a, uint64_t b, bool want_max)
{
    if (f.expo == FP16.expo && f.mant == FP16.mant)
        return fpi_compare(FP16, a, b, want_max);
    if (f.expo == FP32.expo && f.mant == FP32.mant)
        return fpi_compare(FP32, a, b, want_max);
    return fpi_compare(f, a, b, want_max);
}

uint64_t fp_max(struct fp_format f, uint64_t a, uint64_t b)
{
    return compare_in(f, a, b, true);
}

uint64_t fp_min(struct fp_format f, uint64_t a, uint64_t b)
{
    return compare_in(f, a, b, false);
}

uint64_t fp_relu(struct fp_format f, uint64_t a)
{
    if (f.expo == FP32.expo && f.mant == FP32.mant && a >> 32 == 0)
        return fp32_relu((uint32_t)a);
    struct fp_parts p = fpi_unpack(f, a);
    return fpi_parts_nan(f, p) || p.sign == 0 ? a : 0;
}

/* ---------------------------------------------------------------- widening */

/* fp16 widenings of the non-normal values by table (fpi_fp16_odd_index),
 * filled from fpi_widen() when the program loads (before any thread), so a
 * lookup needs no once-guard.  The priority runs this before the
 * default-priority constructors of other files, which may build tables of
 * their own from these lookups. */
uint32_t fpnum_fp16_to_fp32_table[FPNUM_FP16_ODD_VALUES],
    fpnum_fp16_to_fp17_table[FPNUM_FP16_ODD_VALUES];

__attribute__((constructor(FPNUM_TABLES_PRIORITY))) static void fill_fp16_tables(void)
{
    for (uint32_t h = 0; h < (1u << 16); h++) {
        if (fpi_fp16_normal((uint16_t)h))
            continue;
        uint32_t at = fpi_fp16_odd_index((uint16_t)h);
        fpnum_fp16_to_fp32_table[at] = (uint32_t)fpi_widen(FP16, FP32, h, true);
        fpnum_fp16_to_fp17_table[at] = (uint32_t)fpi_widen(FP16, FP17, h, true);
    }
}

uint32_t fpnum_fp16_to_fp32(uint16_t h)
{
    return fp16_to_fp32(h);
}

uint16_t fpnum_fp32_to_fp16(uint32_t f)
{
    return fp32_to_fp16(f);
}

uint32_t fpnum_fp17_to_fp32(uint32_t h)
{
    return (uint32_t)fpi_widen(FP17, FP32, h, false);
}

uint32_t fpnum_fp32_to_fp17(uint32_t f)
{
    return fp32_to_fp17(f);
}

uint32_t fpnum_fp16_to_fp17(uint16_t h)
{
    return fp16_to_fp17(h);
}

/* Same mantissa width, narrower exponent (the cmod's FpExpoWidthDec). */
uint16_t fpnum_fp17_to_fp16(uint32_t h)
{
    return fp17_to_fp16(h);
}

int16_t fpnum_fp16_to_int16(uint16_t h)
{
    struct fp_parts p = fpi_unpack(FP16, h);
    if (fpi_parts_nan(FP16, p))
        return INT16_MIN;
    uint64_t with_one = p.mant | (1u << 10);
    int shift = 10 - ((int)p.expo - 15); /* value = with_one / 2^shift */
    uint64_t mag;
    if (shift <= 0)
        mag = with_one << -shift;
    else
        mag = (with_one >> shift) + ((with_one >> (shift - 1)) & 1u); /* half up */
    if (mag > INT16_MAX)
        return p.sign ? INT16_MIN : INT16_MAX;
    return p.sign ? (int16_t) - (int64_t)mag : (int16_t)mag;
}

uint16_t fpnum_int_to_fp16(int64_t v)
{
    if (v == 0)
        return 0;
    unsigned sign = v < 0;
    uint64_t mag = sign ? 0u - (uint64_t)v : (uint64_t)v;
    unsigned top = 63 - fpi_leading_zeros(mag, 64);
    uint32_t expo = top + 15;
    bool carry;
    uint64_t m = fpi_round_nearest_even(mag << (63 - top), 64, 11, &carry);
    struct fp_parts o = {.sign = sign, .expo = expo, .mant = m & 0x3ffu};
    if (expo >= 31 || (carry && ++o.expo >= 31))
        fpi_saturate(FP16, &o); /* the cmod's infinity: the largest finite value */
    return (uint16_t)fpi_pack(FP16, o);
}

/* A fraction frac / 2^width (width > 10) as a non-negative fp17, nearest
 * even; tiny fractions flush to zero (the cmod's FpFractionToFloat). */
uint32_t fpnum_fraction_to_fp17(uint64_t frac, unsigned width)
{
    struct fp_parts o = {.sign = 0, .expo = fpi_expo_bias(FP17), .mant = 0};
    if (frac == 0)
        return 0;
    unsigned zeros = fpi_leading_zeros(frac, width);
    /* the leading one moves to the top of a width + 1 bit value */
    uint64_t shifted = (frac << (zeros + 1)) & fpi_low_mask(width + 1);
    bool carry;
    uint64_t m =
        fpi_round_nearest_even(shifted | (1ull << width), width + 1, FP17.mant + 1, &carry);
    if (carry) {
        o.expo -= zeros;
        o.mant = 0;
    } else if (o.expo <= zeros + 1) {
        return 0;
    } else {
        o.mant = m & fpi_low_mask(FP17.mant);
        o.expo -= zeros + 1;
    }
    return (uint32_t)fpi_pack(FP17, o);
}
