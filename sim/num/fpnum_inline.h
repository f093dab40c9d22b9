/* The cmod's floating-point arithmetic (fpnum.h) as inline functions, for
 * the per-element loops of SDP, CDP and the LUT: a call per operation was
 * most of their fp16 time.  fpnum.c's exported functions are these same
 * functions, so a caller gets identical bits either way.  Values are
 * unpacked into sign, biased exponent and mantissa; every step keeps the
 * cmod's intermediate widths so that rounding and truncation happen exactly
 * where it does them.  The fpi_ functions take any format; the fp32_, fp17_
 * and narrowing helpers at the end fix the format so it folds away. */
#ifndef DLA_FPNUM_INLINE_H
#define DLA_FPNUM_INLINE_H

#include <string.h>

#include "fpnum.h"

/* Inlined even where the compiler would rather call: the point of this
 * header. */
#define FPI_INLINE static inline __attribute__((always_inline))

struct fp_parts {
    unsigned sign;
    uint32_t expo;
    uint64_t mant;
};

FPI_INLINE uint64_t fpi_low_mask(unsigned bits)
{
    return bits >= 64 ? ~0ull : (1ull << bits) - 1u;
}

FPI_INLINE uint32_t fpi_expo_max(struct fp_format f)
{
    return (1u << f.expo) - 1u;
}

FPI_INLINE uint32_t fpi_expo_bias(struct fp_format f)
{
    return (1u << (f.expo - 1)) - 1u;
}

FPI_INLINE struct fp_parts fpi_unpack(struct fp_format f, uint64_t bits)
{
    struct fp_parts p;
    p.mant = bits & fpi_low_mask(f.mant);
    p.expo = (uint32_t)((bits >> f.mant) & fpi_low_mask(f.expo));
    p.sign = (unsigned)((bits >> (f.mant + f.expo)) & 1u);
    return p;
}

FPI_INLINE uint64_t fpi_pack(struct fp_format f, struct fp_parts p)
{
    return ((uint64_t)(p.sign & 1u) << (f.mant + f.expo)) |
           ((uint64_t)(p.expo & fpi_expo_max(f)) << f.mant) | (p.mant & fpi_low_mask(f.mant));
}

FPI_INLINE bool fpi_parts_nan(struct fp_format f, struct fp_parts p)
{
    return p.expo == fpi_expo_max(f) && p.mant != 0;
}

FPI_INLINE bool fpi_parts_zero(struct fp_parts p)
{
    return p.expo == 0 && p.mant == 0;
}

/* The cmod's "infinity": the largest finite value, sign kept. */
FPI_INLINE void fpi_saturate(struct fp_format f, struct fp_parts *p)
{
    p->expo = fpi_expo_max(f) - 1u;
    p->mant = fpi_low_mask(f.mant);
}

/* Leading zeros of v seen as a width-bit number (v < 2^width). */
FPI_INLINE unsigned fpi_leading_zeros(uint64_t v, unsigned width)
{
    v &= fpi_low_mask(width);
    return v ? (unsigned)__builtin_clzll(v) - (64u - width) : width;
}

/* Round a width-bit value to its top keep bits, nearest even.  *carry_out
 * is set when rounding up overflows the keep bits (the result is then 0). */
FPI_INLINE uint64_t fpi_round_nearest_even(uint64_t v, unsigned width, unsigned keep,
                                           bool *carry_out)
{
    unsigned drop = width - keep;
    if (drop == 0) {
        *carry_out = false;
        return v;
    }
    uint64_t kept = v >> drop;
    bool guard = (v >> (drop - 1)) & 1u;
    bool sticky = (v & fpi_low_mask(drop - 1)) != 0;
    bool up = guard && (sticky || (kept & 1u));
    *carry_out = up && kept == fpi_low_mask(keep);
    return (kept + up) & fpi_low_mask(keep);
}

/* A value shifted left by a signed amount, kept to width bits (a negative
 * amount shifts right, dropping bits). */
FPI_INLINE uint64_t fpi_shift_signed(uint64_t v, int amount, unsigned width)
{
    if (amount >= 0)
        return amount >= 64 ? 0 : (v << amount) & fpi_low_mask(width);
    return -amount >= 64 ? 0 : v >> -amount;
}

/* ---------------------------------------------------------------- add */

FPI_INLINE uint64_t fpi_add_impl(struct fp_format f, uint64_t a, uint64_t b)
{
    const unsigned guard_bits = f.mant + 2;         /* room below the mantissa */
    const unsigned width = guard_bits + f.mant + 1; /* the internal mantissa */
    struct fp_parts pa = fpi_unpack(f, a), pb = fpi_unpack(f, b), o;
    uint64_t ma = pa.mant | (fpi_parts_zero(pa) ? 0 : 1ull << f.mant);
    uint64_t mb = pb.mant | (fpi_parts_zero(pb) ? 0 : 1ull << f.mant);
    bool a_larger = pa.expo > pb.expo || (pa.expo == pb.expo && pa.mant >= pb.mant);
    o.expo = a_larger ? pa.expo : pb.expo;
    o.sign = a_larger ? pa.sign : pb.sign;
    int a_shift = (int)guard_bits - (int)(a_larger ? 0 : pb.expo - pa.expo);
    int b_shift = (int)guard_bits - (int)(a_larger ? pa.expo - pb.expo : 0);
    uint64_t wa = fpi_shift_signed(ma, a_shift, width), wb = fpi_shift_signed(mb, b_shift, width);
    uint64_t larger = a_larger ? wa : wb, smaller = a_larger ? wb : wa;
    uint64_t sum = pa.sign == pb.sign ? larger + smaller : larger - smaller;
    bool overflow = false;
    uint64_t m = 0;
    if ((sum >> width) & 1u) {
        if (o.expo < fpi_expo_max(f) - 1u) {
            o.expo++;
            m = (sum >> 1) & fpi_low_mask(width);
        } else {
            overflow = true;
        }
    } else {
        m = sum & fpi_low_mask(width);
        unsigned zeros = fpi_leading_zeros(m, width);
        if (o.expo <= zeros || m == 0) {
            o.expo = 0;
            m = 0;
        } else {
            o.expo -= zeros;
            m = (m << zeros) & fpi_low_mask(width);
        }
    }
    bool carry;
    uint64_t rounded = fpi_round_nearest_even(m, width, f.mant + 1, &carry);
    if (carry) {
        if (o.expo < fpi_expo_max(f) - 1u)
            o.expo++;
        else
            overflow = true;
    }
    o.mant = rounded & fpi_low_mask(f.mant);
    if (overflow)
        fpi_saturate(f, &o);
    if (fpi_parts_nan(f, pa))
        o = pa;
    else if (fpi_parts_nan(f, pb))
        o = pb;
    return fpi_pack(f, o);
}

/* fpi_add_impl(FP32, a, b) for the common case of the LRN and SDP sums and
 * the LUT's differences: the operand of larger magnitude normal and finite
 * or both zero (either sign), the other anything but a NaN or infinity.  The operand of larger
 * magnitude (a on a tie) sets exponent and sign, its mantissa fills the top of the 49-bit internal
 * width; then come the smaller one's alignment (bits past the guard bits dropped), the sum or
 * difference, the carry out or the normalising left shift (flushing to zero below the normal
 * range), and the final rounding.  *handled is false outside that case. */
FPI_INLINE uint32_t fpi_add32_normal(uint32_t a, uint32_t b, bool *handled)
{
    const uint32_t normal_min = 1u << 23, top_expo = 0x7f800000u, sat = 0x7f7fffffu;
    uint32_t abs_a = a & 0x7fffffffu, abs_b = b & 0x7fffffffu;
    bool a_larger = abs_a >= abs_b;
    uint32_t hi = a_larger ? abs_a : abs_b, lo = a_larger ? abs_b : abs_a;
    uint32_t sign = (a_larger ? a : b) & 0x80000000u;
    /* a subnormal smaller operand is read as the cmod reads it: 1.mant at
     * exponent 0 */
    *handled = hi < top_expo && (hi == 0 || hi >= normal_min);
    if (!*handled || hi == 0)
        return sign; /* both zero: the sign of a */
    uint32_t expo = hi >> 23, d = expo - (lo >> 23);
    uint64_t large = ((uint64_t)((hi & 0x7fffffu) | normal_min)) << 25;
    uint64_t small = lo ? (lo & 0x7fffffu) | normal_min : 0;
    small = d <= 25 ? small << (25 - d) : d - 25 >= 64 ? 0 : small >> (d - 25);
    uint64_t sum;
    if ((a ^ b) >> 31 == 0) {
        sum = large + small;
        if (sum >> 49) {
            if (expo >= 254)
                return sign | sat; /* the cmod's infinity */
            expo++;
            sum >>= 1; /* the bit shifted out is dropped, as add_impl does */
        }
    } else {
        sum = large - small;
        unsigned zeros = sum ? (unsigned)__builtin_clzll(sum) - 15u : 49u;
        if (sum == 0 || expo <= zeros)
            return sign; /* cancelled, or below the normal range: zero */
        expo -= zeros;
        sum <<= zeros;
    }
    uint64_t kept = sum >> 25;
    bool guard = (sum >> 24) & 1u, sticky = (sum & ((1u << 24) - 1u)) != 0;
    kept += guard && (sticky || (kept & 1u));
    if (kept >> 24) { /* rounding carried past the mantissa: 2.0 * 2^expo */
        if (expo >= 254)
            return sign | sat;
        expo++;
    }
    return sign | (expo << 23) | ((uint32_t)kept & 0x7fffffu);
}

/* The cmod's mantissa narrowing after a multiply: round 1.mant to the
 * output width, carry into the exponent, saturate at the top; no subnormal
 * and no NaN handling. */
FPI_INLINE struct fp_parts fpi_narrow_mantissa(struct fp_format f, unsigned in_mant,
                                               struct fp_parts p)
{
    bool carry;
    uint64_t with_one = p.mant | (1ull << in_mant);
    uint64_t rounded = fpi_round_nearest_even(with_one, in_mant + 1, f.mant + 1, &carry);
    p.mant = rounded & fpi_low_mask(f.mant);
    if (carry) {
        p.expo = (p.expo + 1u) & fpi_expo_max(f);
        if (p.expo == fpi_expo_max(f))
            fpi_saturate(f, &p);
    }
    return p;
}

FPI_INLINE uint64_t fpi_mul_impl(struct fp_format f, uint64_t a, uint64_t b)
{
    const unsigned prod_mant = 2 * f.mant + 1;
    const uint32_t bias = fpi_expo_bias(f), top = fpi_expo_max(f);
    struct fp_parts pa = fpi_unpack(f, a), pb = fpi_unpack(f, b);
    bool a_zero = fpi_parts_zero(pa), b_zero = fpi_parts_zero(pb);
    uint64_t ma = pa.mant | (a_zero ? 0 : 1ull << f.mant);
    uint64_t mb = pb.mant | (b_zero ? 0 : 1ull << f.mant);
    uint64_t product = ma * mb; /* 2 * mant + 2 bits: at most 48 */
    struct fp_parts p = {.sign = pa.sign ^ pb.sign, .expo = 0, .mant = 0};
    bool overflow = false, underflow = false;
    uint32_t sum = pa.expo + pb.expo;
    if (a_zero || b_zero || sum < bias) {
        underflow = true;
    } else if (sum >= top + bias) {
        overflow = true;
    } else {
        p.expo = sum - bias;
        if ((product >> prod_mant) & 1u) {
            if (p.expo < top - 1u) {
                p.expo++;
                p.mant = product & fpi_low_mask(prod_mant);
            } else {
                overflow = true;
            }
        } else {
            p.mant = (product << 1) & fpi_low_mask(prod_mant);
        }
    }
    struct fp_parts o = fpi_narrow_mantissa(f, prod_mant, p);
    if (overflow)
        fpi_saturate(f, &o);
    if (underflow || o.expo == 0) {
        o.expo = 0;
        o.mant = 0;
    }
    if (fpi_parts_nan(f, pa))
        o = pa;
    else if (fpi_parts_nan(f, pb))
        o = pb;
    return fpi_pack(f, o);
}

FPI_INLINE uint64_t fpi_compare(struct fp_format f, uint64_t a, uint64_t b, bool want_max)
{
    struct fp_parts pa = fpi_unpack(f, a), pb = fpi_unpack(f, b);
    bool abs_a_greater = pa.expo != pb.expo ? pa.expo > pb.expo : pa.mant > pb.mant;
    bool a_greater;
    if (pa.sign == 0)
        a_greater = pb.sign == 0 ? abs_a_greater : true;
    else
        a_greater = pb.sign == 0 ? false : !abs_a_greater;
    uint64_t o = want_max == a_greater ? a : b;
    if (fpi_parts_nan(f, pa))
        o = a;
    else if (fpi_parts_nan(f, pb))
        o = b;
    return o;
}

/* Mantissa widening: the fraction moves to the top; a NaN keeps its
 * fraction bits where they were. */
FPI_INLINE uint64_t fpi_widen_mantissa(struct fp_format in, unsigned out_mant, uint64_t bits)
{
    struct fp_parts p = fpi_unpack(in, bits);
    struct fp_format out = {in.expo, out_mant};
    if (!fpi_parts_nan(in, p))
        p.mant <<= out_mant - in.mant;
    return fpi_pack(out, p);
}

/* Exponent widening with the same mantissa width.  subnormals: whether a
 * subnormal input is normalised (true) or read as if it had an implied one. */
FPI_INLINE uint64_t fpi_widen_exponent(struct fp_format in, unsigned out_expo, uint64_t bits,
                                       bool subnormals)
{
    struct fp_format out = {out_expo, in.mant};
    struct fp_parts p = fpi_unpack(in, bits), o = p;
    uint32_t delta = fpi_expo_bias(out) - fpi_expo_bias(in);
    if (fpi_parts_zero(p))
        o.expo = 0;
    else
        o.expo = p.expo + delta;
    if (subnormals && p.expo == 0 && p.mant != 0) {
        unsigned zeros = fpi_leading_zeros(p.mant, in.mant);
        o.expo = delta - zeros;
        o.mant = (p.mant << (zeros + 1)) & fpi_low_mask(in.mant);
    }
    if (p.expo == fpi_expo_max(in) && p.mant == 0)
        fpi_saturate(out, &o);
    if (fpi_parts_nan(in, p)) {
        o.expo = fpi_expo_max(out);
        o.mant = p.mant;
    }
    return fpi_pack(out, o);
}

FPI_INLINE uint64_t fpi_widen(struct fp_format in, struct fp_format out, uint64_t bits,
                              bool subnormals)
{
    uint64_t m = in.mant == out.mant ? bits : fpi_widen_mantissa(in, out.mant, bits);
    struct fp_format mid = {in.expo, out.mant};
    return in.expo == out.expo ? m : fpi_widen_exponent(mid, out.expo, m, subnormals);
}

/* ---------------------------------------------------------------- narrowing */

/* 1.mant shifted right by shift (>= 1) into a subnormal of out_mant bits,
 * nearest even; *carry when it rounds up to the smallest normal. */
FPI_INLINE uint64_t fpi_subnormal_mantissa(uint64_t mant, unsigned in_mant, unsigned out_mant,
                                           unsigned shift, bool *carry)
{
    unsigned delta = in_mant - out_mant;
    unsigned width = in_mant + 1;
    uint64_t with_one = mant | (1ull << in_mant);
    unsigned g = delta + shift - 1;
    bool guard = g < width && ((with_one >> g) & 1u);
    bool sticky = (with_one & fpi_low_mask(g < width ? g : width)) != 0;
    bool least = delta + shift < width && ((with_one >> (delta + shift)) & 1u);
    bool up = guard && (sticky || least);
    uint64_t kept = shift < 64 ? ((with_one >> shift) >> delta) & fpi_low_mask(out_mant + 1) : 0;
    uint64_t sum = kept + up;
    *carry = (sum >> out_mant) & 1u;
    return sum & fpi_low_mask(out_mant);
}

/* Narrow exponent and mantissa (the cmod's FpWidthDec): saturate above the
 * range, flush below the subnormals, round to nearest even. */
FPI_INLINE uint64_t fpi_narrow(struct fp_format in, struct fp_format out, uint64_t bits,
                               bool subnormals)
{
    struct fp_parts p = fpi_unpack(in, bits), o = {.sign = p.sign};
    uint32_t delta = fpi_expo_bias(in) - fpi_expo_bias(out);
    bool overflow = false, zero = false;
    if (p.expo >= fpi_expo_max(out) + delta) {
        overflow = true;
    } else if (p.expo + out.mant < delta) {
        zero = true;
    } else if (p.expo <= delta) {
        bool carry;
        o.mant = fpi_subnormal_mantissa(p.mant, in.mant, out.mant, delta - p.expo + 1, &carry);
        if (carry)
            o.expo = 1;
        else if (subnormals)
            o.expo = 0;
        else
            zero = true;
    } else {
        bool carry;
        o.expo = p.expo - delta;
        uint64_t r =
            fpi_round_nearest_even(p.mant | (1ull << in.mant), in.mant + 1, out.mant + 1, &carry);
        o.mant = r & fpi_low_mask(out.mant);
        if (carry && ++o.expo == fpi_expo_max(out))
            overflow = true;
    }
    if (overflow)
        fpi_saturate(out, &o);
    if (zero)
        o.expo = 0, o.mant = 0;
    if (fpi_parts_nan(in, p)) {
        o.expo = fpi_expo_max(out);
        o.mant = p.mant & fpi_low_mask(out.mant);
    }
    return fpi_pack(out, o);
}

/* ---------------------------------------------------------------- fixed formats */

/* fpi_add_impl(FP32, a, b) by the machine's binary32 addition, where that
 * is provably the same: both operands normal and finite, and exponents at
 * most 24 apart (or zeros, below).  Then the cmod's 49-bit internal sum (25 guard bits) holds
 * the smaller operand unshifted-out, so its sum or difference is exact, and
 * its round to nearest even sees every bit IEEE 754's does (the bit its
 * carry-out shift drops is zero below a 25-bit difference).  What remains
 * is where the two part: an IEEE result below the normal range (or a
 * cancellation to zero) is the cmod's zero with the sign of the operand of
 * larger magnitude (a on a tie), an IEEE infinity the cmod's largest finite
 * value.  Assumes the default floating-point environment (round to nearest
 * even), which the program never changes.  *handled is false elsewhere. */
FPI_INLINE uint32_t fpi_add32_machine(uint32_t a, uint32_t b, bool *handled)
{
    uint32_t abs_a = a & 0x7fffffffu, abs_b = b & 0x7fffffffu;
    uint32_t hi = abs_a >= abs_b ? abs_a : abs_b, lo = abs_a >= abs_b ? abs_b : abs_a;
    uint32_t e_hi = hi >> 23, e_lo = lo >> 23;
    /* or a zero plus a normal operand (exact), or two zeros (a's sign: the
     * zero-result rule below) */
    *handled =
        (e_hi - 1u < 254u && ((e_lo - 1u < 254u && e_hi - e_lo <= 24u) || lo == 0)) || hi == 0;
    /* Exponents 26 or more apart (the smaller operand may be subnormal, read
     * as 1.mant at exponent 0): what of the smaller one survives the
     * alignment is below a quarter of the larger one's last place, so the
     * cmod's sum or difference rounds back to the larger operand. */
    if (!*handled && e_hi - 1u < 254u && e_hi - e_lo >= 26u) {
        *handled = true;
        return abs_a >= abs_b ? a : b;
    }
    if (!*handled)
        return 0;
    float fa, fb;
    memcpy(&fa, &a, sizeof fa);
    memcpy(&fb, &b, sizeof fb);
    float fr = fa + fb;
    uint32_t r;
    memcpy(&r, &fr, sizeof r);
    uint32_t e_r = (r >> 23) & 0xffu;
    if (e_r == 0)
        return (abs_a >= abs_b ? a : b) & 0x80000000u;
    if (e_r == 0xffu)
        return (r & 0x80000000u) | 0x7f7fffffu;
    return r;
}

/* fp_add(FP32, a, b): the fast paths inline, the rare rest out of line. */
FPI_INLINE uint32_t fp32_add(uint32_t a, uint32_t b)
{
    bool handled;
    uint32_t r = fpi_add32_machine(a, b, &handled);
    if (handled)
        return r;
    r = fpi_add32_normal(a, b, &handled);
    return handled ? r : (uint32_t)fp_add_reference(FP32, a, b);
}

FPI_INLINE uint32_t fp32_sub(uint32_t a, uint32_t b)
{
    return fp32_add(a, b ^ 0x80000000u);
}

FPI_INLINE uint32_t fp32_mul(uint32_t a, uint32_t b)
{
    return (uint32_t)fpi_mul_impl(FP32, a, b);
}

/* fp17 by binary32: a non-zero fp17 operand read as 1.mant * 2^(expo - 31)
 * (the cmod's reading of a subnormal too, and of an infinity: a number with
 * the top exponent) is exact in binary32, exponent plus 96. */
FPI_INLINE float fpi_fp17_as_float(uint32_t h)
{
    uint32_t bits = (h >> 16 & 1u) << 31 | (((h >> 10) & 63u) + 96u) << 23 | (h & 0x3ffu) << 13;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

FPI_INLINE bool fpi_fp17_nonzero_number(uint32_t h)
{
    return (h & 0xffffu) != 0 && (h & 0xfc00u) != 0xfc00u; /* NaN and infinity have 0xfc00 */
}

/* A binary32 result back to fp17: its significand rounded to 11 bits,
 * nearest even; an exponent below fp17's range is the cmod's flush to
 * zero (sign if_zero), above it the cmod's saturation. */
FPI_INLINE uint32_t fpi_float_to_fp17_rounded(float f, uint32_t if_zero)
{
    uint32_t r;
    memcpy(&r, &f, sizeof r);
    uint32_t sign = (r >> 31) << 16;
    r += 0xfffu + ((r >> 13) & 1u);
    int expo = (int)((r >> 23) & 0xffu) - 96;
    if (expo <= 0)
        return if_zero;
    if (expo >= 63)
        return sign | 62u << 10 | 0x3ffu;
    return sign | (uint32_t)expo << 10 | ((r >> 13) & 0x3ffu);
}

/* fpi_mul_impl(FP17, a, b) by binary32 multiplication for two non-zero,
 * non-NaN operands: their 11-bit significands multiply exactly in
 * binary32, and the cmod then rounds the product to 11 bits (nearest even)
 * and flushes an exponent at or below 0 (before or after the rounding
 * carry: the same test, as the carry moves 0 to 1) and saturates one at
 * or above 63 -- what fpi_float_to_fp17_rounded does.  Operands are
 * treated as non-NaN when their exponent is not the top one, so the
 * infinity (a number to the cmod) takes the reference path too. */
FPI_INLINE uint32_t fpi_mul17_machine(uint32_t a, uint32_t b, bool *handled)
{
    uint32_t zero = ((a ^ b) >> 16 & 1u) << 16;
    bool a_number = fpi_fp17_nonzero_number(a), b_number = fpi_fp17_nonzero_number(b);
    /* a zero times a non-NaN: the cmod's underflow, a signed zero */
    if (((a & 0xffffu) == 0 && (b_number || (b & 0xffffu) == 0)) ||
        ((b & 0xffffu) == 0 && a_number)) {
        *handled = true;
        return zero;
    }
    *handled = a_number && b_number;
    if (!*handled)
        return 0;
    float p = fpi_fp17_as_float(a) * fpi_fp17_as_float(b);
    return fpi_float_to_fp17_rounded(p, zero);
}

/* fpi_add_impl(FP17, a, b) by binary32 addition for two non-zero, non-NaN
 * operands whose exponents differ by at most 11: the cmod's 23-bit internal
 * sum (12 guard bits) then loses nothing, and neither does binary32 (the
 * exact sum spans at most 23 bits), so both round the same exact value to
 * 11 bits.  The cmod flushes a result whose exponent before rounding is at
 * or below 0 (cancellation included) to zero with the sign of the larger
 * operand (a on a tie), and saturates at 63. */
FPI_INLINE uint32_t fpi_add17_machine(uint32_t a, uint32_t b, bool *handled)
{
    uint32_t abs_a = a & 0xffffu, abs_b = b & 0xffffu;
    uint32_t hi = abs_a >= abs_b ? abs_a : abs_b, lo = abs_a >= abs_b ? abs_b : abs_a;
    uint32_t larger = abs_a >= abs_b ? a : b;
    /* plus zero: a normal operand comes back unchanged, two zeros give a */
    if (lo == 0 && (hi == 0 || (hi >> 10) - 1u < 62u)) {
        *handled = true;
        return hi == 0 ? a : larger;
    }
    *handled =
        fpi_fp17_nonzero_number(a) && fpi_fp17_nonzero_number(b) && (hi >> 10) - (lo >> 10) <= 11u;
    if (!*handled)
        return 0;
    uint32_t larger_sign = larger & 0x10000u;
    float sum = fpi_fp17_as_float(a) + fpi_fp17_as_float(b);
    uint32_t r;
    memcpy(&r, &sum, sizeof r);
    if ((int)((r >> 23) & 0xffu) - 96 <= 0) /* exponent before rounding; zero included */
        return larger_sign;
    return fpi_float_to_fp17_rounded(sum, larger_sign);
}

FPI_INLINE uint32_t fp17_add(uint32_t a, uint32_t b)
{
    bool handled;
    uint32_t r = fpi_add17_machine(a, b, &handled);
    return handled ? r : (uint32_t)fp_add_reference(FP17, a, b);
}

FPI_INLINE uint32_t fp17_mul(uint32_t a, uint32_t b)
{
    bool handled;
    uint32_t r = fpi_mul17_machine(a, b, &handled);
    return handled ? r : (uint32_t)fp_mul_reference(FP17, a, b);
}

FPI_INLINE uint32_t fp32_max(uint32_t a, uint32_t b)
{
    return (uint32_t)fpi_compare(FP32, a, b, true);
}

FPI_INLINE uint32_t fp32_min(uint32_t a, uint32_t b)
{
    return (uint32_t)fpi_compare(FP32, a, b, false);
}

/* fp_relu(FP32, a), without a branch: the sign of ReLU's input is as
 * good as random. */
FPI_INLINE uint32_t fp32_relu(uint32_t a)
{
    uint32_t keep = (a >> 31 == 0) | ((a & 0x7fffffffu) > 0x7f800000u);
    return a & (0u - keep);
}

/* The fp16 widenings: a normal fp16 (the common case) by moving its
 * fields, anything else (exponent field 0 or 31: zeros, subnormals,
 * infinities, NaNs) by the tables fpnum.c fills at load (see
 * FPNUM_TABLES_PRIORITY), indexed by fpi_fp16_odd_index: 4096 entries
 * each, where a table of every fp16 would be 256 KB of RSS per process. */
#define FPNUM_FP16_ODD_VALUES (1u << 12)
extern uint32_t fpnum_fp16_to_fp32_table[FPNUM_FP16_ODD_VALUES],
    fpnum_fp16_to_fp17_table[FPNUM_FP16_ODD_VALUES];

FPI_INLINE bool fpi_fp16_normal(uint16_t h)
{
    return ((h >> 10) & 31u) - 1u < 30u;
}

/* A non-normal fp16's table slot: its sign, the exponent's low bit (0 for
 * field 0, 1 for 31) and its mantissa. */
FPI_INLINE uint32_t fpi_fp16_odd_index(uint16_t h)
{
    return (uint32_t)(h >> 15) << 11 | (h & 0x7ffu);
}

FPI_INLINE uint32_t fp16_to_fp32(uint16_t h)
{
    if (fpi_fp16_normal(h))
        return (uint32_t)(h & 0x8000u) << 16 | ((((uint32_t)h & 0x7fffu) << 13) + (112u << 23));
    return fpnum_fp16_to_fp32_table[fpi_fp16_odd_index(h)];
}

FPI_INLINE uint32_t fp16_to_fp17(uint16_t h)
{
    if (fpi_fp16_normal(h))
        return (uint32_t)(h & 0x8000u) << 1 | (((uint32_t)h & 0x7fffu) + (16u << 10));
    return fpnum_fp16_to_fp17_table[fpi_fp16_odd_index(h)];
}

/* frac / 2^16 as fp17 (fpnum_fraction_to_fp17(frac, 16), the LUT's
 * interpolation weight): exact in binary32, then rounded to 11 bits like a
 * product; never below fp17's range. */
FPI_INLINE uint32_t fp17_from_q16(uint16_t frac)
{
    return frac ? fpi_float_to_fp17_rounded((float)frac * (1.0f / 65536.0f), 0) : 0;
}

/* fpnum_fp32_to_fp16, fpnum_fp32_to_fp17 and fpnum_fp17_to_fp16 inline. */
/* fpi_narrow(FP32, FP16, f, true) with its two common cases, a value in
 * fp16's normal range and a zero (ReLU's output: as likely as not), picked
 * without a branch: the normal one rounds its mantissa to 10 bits, nearest
 * even, the carry running into the exponent, up to the cmod's saturation
 * at the top; a zero keeps its sign. */
FPI_INLINE uint16_t fp32_to_fp16(uint32_t f)
{
    uint32_t abs = f & 0x7fffffffu, sign = (f >> 16) & 0x8000u;
    bool normal = ((abs >> 23) - 113u) < 30u;
    if (!normal && abs != 0)
        return (uint16_t)fpi_narrow(FP32, FP16, f, true);
    uint32_t r = abs + 0xfffu + ((abs >> 13) & 1u);
    uint32_t expo = (r >> 23) - 112u;
    uint32_t bits = expo >= 31u ? 0x7bffu : expo << 10 | ((r >> 13) & 0x3ffu);
    return (uint16_t)(sign | (normal ? bits : 0u));
}

FPI_INLINE uint32_t fp32_to_fp17(uint32_t f)
{
    return (uint32_t)fpi_narrow(FP32, FP17, f, false);
}

FPI_INLINE uint16_t fp17_to_fp16(uint32_t h)
{
    return (uint16_t)fpi_narrow(FP17, FP16, h, true);
}

#endif
