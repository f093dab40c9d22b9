/* The cmod's floating-point arithmetic on integers (see fpnum.h for how it
 * differs from IEEE 754).  Values are unpacked into sign, biased exponent
 * and mantissa; every step keeps the cmod's intermediate widths so that
 * rounding and truncation happen exactly where it does them. */
#include "fpnum.h"

struct fp_parts {
    unsigned sign;
    uint32_t expo;
    uint64_t mant;
};

static uint64_t low_mask(unsigned bits)
{
    return bits >= 64 ? ~0ull : (1ull << bits) - 1u;
}

static uint32_t expo_max(struct fp_format f)
{
    return (1u << f.expo) - 1u;
}

static uint32_t expo_bias(struct fp_format f)
{
    return (1u << (f.expo - 1)) - 1u;
}

static struct fp_parts unpack(struct fp_format f, uint64_t bits)
{
    struct fp_parts p;
    p.mant = bits & low_mask(f.mant);
    p.expo = (uint32_t)((bits >> f.mant) & low_mask(f.expo));
    p.sign = (unsigned)((bits >> (f.mant + f.expo)) & 1u);
    return p;
}

static uint64_t pack(struct fp_format f, struct fp_parts p)
{
    return ((uint64_t)(p.sign & 1u) << (f.mant + f.expo)) |
           ((uint64_t)(p.expo & expo_max(f)) << f.mant) | (p.mant & low_mask(f.mant));
}

static bool parts_nan(struct fp_format f, struct fp_parts p)
{
    return p.expo == expo_max(f) && p.mant != 0;
}

static bool parts_zero(struct fp_parts p)
{
    return p.expo == 0 && p.mant == 0;
}

/* The cmod's "infinity": the largest finite value, sign kept. */
static void saturate(struct fp_format f, struct fp_parts *p)
{
    p->expo = expo_max(f) - 1u;
    p->mant = low_mask(f.mant);
}

/* Leading zeros of v seen as a width-bit number (v < 2^width). */
static unsigned leading_zeros(uint64_t v, unsigned width)
{
    v &= low_mask(width);
    return v ? (unsigned)__builtin_clzll(v) - (64u - width) : width;
}

/* Round a width-bit value to its top keep bits, nearest even.  *carry_out
 * is set when rounding up overflows the keep bits (the result is then 0). */
static inline uint64_t round_nearest_even(uint64_t v, unsigned width, unsigned keep, bool *carry_out)
{
    unsigned drop = width - keep;
    if (drop == 0) {
        *carry_out = false;
        return v;
    }
    uint64_t kept = v >> drop;
    bool guard = (v >> (drop - 1)) & 1u;
    bool sticky = (v & low_mask(drop - 1)) != 0;
    bool up = guard && (sticky || (kept & 1u));
    *carry_out = up && kept == low_mask(keep);
    return (kept + up) & low_mask(keep);
}

/* A value shifted left by a signed amount, kept to width bits (a negative
 * amount shifts right, dropping bits). */
static uint64_t shift_signed(uint64_t v, int amount, unsigned width)
{
    if (amount >= 0)
        return amount >= 64 ? 0 : (v << amount) & low_mask(width);
    return -amount >= 64 ? 0 : v >> -amount;
}

/* ---------------------------------------------------------------- add */

__attribute__((always_inline)) static inline uint64_t add_impl(struct fp_format f, uint64_t a, uint64_t b)
{
    const unsigned guard_bits = f.mant + 2;         /* room below the mantissa */
    const unsigned width = guard_bits + f.mant + 1; /* the internal mantissa */
    struct fp_parts pa = unpack(f, a), pb = unpack(f, b), o;
    uint64_t ma = pa.mant | (parts_zero(pa) ? 0 : 1ull << f.mant);
    uint64_t mb = pb.mant | (parts_zero(pb) ? 0 : 1ull << f.mant);
    bool a_larger = pa.expo > pb.expo || (pa.expo == pb.expo && pa.mant >= pb.mant);
    o.expo = a_larger ? pa.expo : pb.expo;
    o.sign = a_larger ? pa.sign : pb.sign;
    int a_shift = (int)guard_bits - (int)(a_larger ? 0 : pb.expo - pa.expo);
    int b_shift = (int)guard_bits - (int)(a_larger ? pa.expo - pb.expo : 0);
    uint64_t wa = shift_signed(ma, a_shift, width), wb = shift_signed(mb, b_shift, width);
    uint64_t larger = a_larger ? wa : wb, smaller = a_larger ? wb : wa;
    uint64_t sum = pa.sign == pb.sign ? larger + smaller : larger - smaller;
    bool overflow = false;
    uint64_t m = 0;
    if ((sum >> width) & 1u) {
        if (o.expo < expo_max(f) - 1u) {
            o.expo++;
            m = (sum >> 1) & low_mask(width);
        } else {
            overflow = true;
        }
    } else {
        m = sum & low_mask(width);
        unsigned zeros = leading_zeros(m, width);
        if (o.expo <= zeros || m == 0) {
            o.expo = 0;
            m = 0;
        } else {
            o.expo -= zeros;
            m = (m << zeros) & low_mask(width);
        }
    }
    bool carry;
    uint64_t rounded = round_nearest_even(m, width, f.mant + 1, &carry);
    if (carry) {
        if (o.expo < expo_max(f) - 1u)
            o.expo++;
        else
            overflow = true;
    }
    o.mant = rounded & low_mask(f.mant);
    if (overflow)
        saturate(f, &o);
    if (parts_nan(f, pa))
        o = pa;
    else if (parts_nan(f, pb))
        o = pb;
    return pack(f, o);
}

/* add_impl(FP32, a, b) for the common case of the LRN and SDP sums and
 * the LUT's differences: both operands normal and finite, or zero (either
 * sign).  The operand of larger magnitude (a on a tie) sets exponent and
 * sign, its mantissa fills the top of the 49-bit internal width; then come
 * the smaller one's alignment (bits past the guard bits dropped), the sum
 * or difference, the carry out or the normalising left shift (flushing
 * to zero below the normal range), and the final rounding.  *handled is
 * false outside that case. */
static inline uint32_t add32_normal(uint32_t a, uint32_t b, bool *handled)
{
    const uint32_t normal_min = 1u << 23, top_expo = 0x7f800000u, sat = 0x7f7fffffu;
    uint32_t abs_a = a & 0x7fffffffu, abs_b = b & 0x7fffffffu;
    bool a_larger = abs_a >= abs_b;
    uint32_t hi = a_larger ? abs_a : abs_b, lo = a_larger ? abs_b : abs_a;
    uint32_t sign = (a_larger ? a : b) & 0x80000000u;
    *handled = hi < top_expo && (hi == 0 || hi >= normal_min) && (lo == 0 || lo >= normal_min);
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

uint64_t fp_add_reference(struct fp_format f, uint64_t a, uint64_t b)
{
    return add_impl(f, a, b);
}

/* The formats the datapaths use get instances of their own, so that the
 * compiler folds the widths into constants. */
uint64_t fp_add(struct fp_format f, uint64_t a, uint64_t b)
{
    if (f.expo == FP17.expo && f.mant == FP17.mant)
        return add_impl(FP17, a, b);
    if (f.expo == FP32.expo && f.mant == FP32.mant) {
        bool handled = false;
        uint32_t r = (a | b) >> 32 ? 0 : add32_normal((uint32_t)a, (uint32_t)b, &handled);
        return handled ? r : add_impl(FP32, a, b);
    }
    return add_impl(f, a, b);
}

uint64_t fp_sub(struct fp_format f, uint64_t a, uint64_t b)
{
    return fp_add(f, a, b ^ (1ull << (f.expo + f.mant)));
}

/* ---------------------------------------------------------------- multiply */

/* The cmod's mantissa narrowing after a multiply: round 1.mant to the
 * output width, carry into the exponent, saturate at the top; no subnormal
 * and no NaN handling. */
static inline struct fp_parts narrow_mantissa(struct fp_format f, unsigned in_mant, struct fp_parts p)
{
    bool carry;
    uint64_t with_one = p.mant | (1ull << in_mant);
    uint64_t rounded = round_nearest_even(with_one, in_mant + 1, f.mant + 1, &carry);
    p.mant = rounded & low_mask(f.mant);
    if (carry) {
        p.expo = (p.expo + 1u) & expo_max(f);
        if (p.expo == expo_max(f))
            saturate(f, &p);
    }
    return p;
}

__attribute__((always_inline)) static inline uint64_t mul_impl(struct fp_format f, uint64_t a, uint64_t b)
{
    const unsigned prod_mant = 2 * f.mant + 1;
    const uint32_t bias = expo_bias(f), top = expo_max(f);
    struct fp_parts pa = unpack(f, a), pb = unpack(f, b);
    bool a_zero = parts_zero(pa), b_zero = parts_zero(pb);
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
                p.mant = product & low_mask(prod_mant);
            } else {
                overflow = true;
            }
        } else {
            p.mant = (product << 1) & low_mask(prod_mant);
        }
    }
    struct fp_parts o = narrow_mantissa(f, prod_mant, p);
    if (overflow)
        saturate(f, &o);
    if (underflow || o.expo == 0) {
        o.expo = 0;
        o.mant = 0;
    }
    if (parts_nan(f, pa))
        o = pa;
    else if (parts_nan(f, pb))
        o = pb;
    return pack(f, o);
}

uint64_t fp_mul(struct fp_format f, uint64_t a, uint64_t b)
{
    if (f.expo == FP17.expo && f.mant == FP17.mant)
        return mul_impl(FP17, a, b);
    if (f.expo == FP32.expo && f.mant == FP32.mant)
        return mul_impl(FP32, a, b);
    return mul_impl(f, a, b);
}

/* ---------------------------------------------------------------- compare */

__attribute__((always_inline)) static inline uint64_t compare(struct fp_format f, uint64_t a,
                                                             uint64_t b, bool want_max)
{
    struct fp_parts pa = unpack(f, a), pb = unpack(f, b);
    bool abs_a_greater = pa.expo != pb.expo ? pa.expo > pb.expo : pa.mant > pb.mant;
    bool a_greater;
    if (pa.sign == 0)
        a_greater = pb.sign == 0 ? abs_a_greater : true;
    else
        a_greater = pb.sign == 0 ? false : !abs_a_greater;
    uint64_t o = want_max == a_greater ? a : b;
    if (parts_nan(f, pa))
        o = a;
    else if (parts_nan(f, pb))
        o = b;
    return o;
}

/* fp16 (PDP pooling) and fp32 (SDP) get instances of their own. */
static uint64_t compare_in(struct fp_format f, uint64_t a, uint64_t b, bool want_max)
{
    if (f.expo == FP16.expo && f.mant == FP16.mant)
        return compare(FP16, a, b, want_max);
    if (f.expo == FP32.expo && f.mant == FP32.mant)
        return compare(FP32, a, b, want_max);
    return compare(f, a, b, want_max);
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
    struct fp_parts p = unpack(f, a);
    return parts_nan(f, p) || p.sign == 0 ? a : 0;
}

/* ---------------------------------------------------------------- widening */

/* Mantissa widening: the fraction moves to the top; a NaN keeps its
 * fraction bits where they were. */
__attribute__((always_inline)) static inline uint64_t widen_mantissa(struct fp_format in, unsigned out_mant, uint64_t bits)
{
    struct fp_parts p = unpack(in, bits);
    struct fp_format out = {in.expo, out_mant};
    if (!parts_nan(in, p))
        p.mant <<= out_mant - in.mant;
    return pack(out, p);
}

/* Exponent widening with the same mantissa width.  subnormals: whether a
 * subnormal input is normalised (true) or read as if it had an implied one. */
__attribute__((always_inline)) static inline uint64_t widen_exponent(struct fp_format in, unsigned out_expo, uint64_t bits,
                               bool subnormals)
{
    struct fp_format out = {out_expo, in.mant};
    struct fp_parts p = unpack(in, bits), o = p;
    uint32_t delta = expo_bias(out) - expo_bias(in);
    if (parts_zero(p))
        o.expo = 0;
    else
        o.expo = p.expo + delta;
    if (subnormals && p.expo == 0 && p.mant != 0) {
        unsigned zeros = leading_zeros(p.mant, in.mant);
        o.expo = delta - zeros;
        o.mant = (p.mant << (zeros + 1)) & low_mask(in.mant);
    }
    if (p.expo == expo_max(in) && p.mant == 0)
        saturate(out, &o);
    if (parts_nan(in, p)) {
        o.expo = expo_max(out);
        o.mant = p.mant;
    }
    return pack(out, o);
}

__attribute__((always_inline)) static inline uint64_t widen(struct fp_format in, struct fp_format out, uint64_t bits, bool subnormals)
{
    uint64_t m = in.mant == out.mant ? bits : widen_mantissa(in, out.mant, bits);
    struct fp_format mid = {in.expo, out.mant};
    return in.expo == out.expo ? m : widen_exponent(mid, out.expo, m, subnormals);
}

/* ---------------------------------------------------------------- narrowing */

/* 1.mant shifted right by shift (>= 1) into a subnormal of out_mant bits,
 * nearest even; *carry when it rounds up to the smallest normal. */
__attribute__((always_inline)) static inline uint64_t subnormal_mantissa(uint64_t mant, unsigned in_mant, unsigned out_mant,
                                   unsigned shift, bool *carry)
{
    unsigned delta = in_mant - out_mant;
    unsigned width = in_mant + 1;
    uint64_t with_one = mant | (1ull << in_mant);
    unsigned g = delta + shift - 1;
    bool guard = g < width && ((with_one >> g) & 1u);
    bool sticky = (with_one & low_mask(g < width ? g : width)) != 0;
    bool least = delta + shift < width && ((with_one >> (delta + shift)) & 1u);
    bool up = guard && (sticky || least);
    uint64_t kept = shift < 64 ? ((with_one >> shift) >> delta) & low_mask(out_mant + 1) : 0;
    uint64_t sum = kept + up;
    *carry = (sum >> out_mant) & 1u;
    return sum & low_mask(out_mant);
}

/* Narrow exponent and mantissa (the cmod's FpWidthDec): saturate above the
 * range, flush below the subnormals, round to nearest even. */
__attribute__((always_inline)) static inline uint64_t narrow(struct fp_format in, struct fp_format out, uint64_t bits, bool subnormals)
{
    struct fp_parts p = unpack(in, bits), o = {.sign = p.sign};
    uint32_t delta = expo_bias(in) - expo_bias(out);
    bool overflow = false, zero = false;
    if (p.expo >= expo_max(out) + delta) {
        overflow = true;
    } else if (p.expo + out.mant < delta) {
        zero = true;
    } else if (p.expo <= delta) {
        bool carry;
        o.mant = subnormal_mantissa(p.mant, in.mant, out.mant, delta - p.expo + 1, &carry);
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
            round_nearest_even(p.mant | (1ull << in.mant), in.mant + 1, out.mant + 1, &carry);
        o.mant = r & low_mask(out.mant);
        if (carry && ++o.expo == expo_max(out))
            overflow = true;
    }
    if (overflow)
        saturate(out, &o);
    if (zero)
        o.expo = 0, o.mant = 0;
    if (parts_nan(in, p)) {
        o.expo = expo_max(out);
        o.mant = p.mant & low_mask(out.mant);
    }
    return pack(out, o);
}

/* fp16 widenings by table: 2^16 entries each, filled from widen() when the
 * program loads (before any thread), so a lookup needs no once-guard.  The
 * priority runs this before the default-priority constructors of other
 * files, which may build tables of their own from these lookups. */
static uint32_t fp16_to_fp32_table[1u << 16], fp16_to_fp17_table[1u << 16];

__attribute__((constructor(FPNUM_TABLES_PRIORITY))) static void fill_fp16_tables(void)
{
    for (uint32_t h = 0; h < (1u << 16); h++) {
        fp16_to_fp32_table[h] = (uint32_t)widen(FP16, FP32, h, true);
        fp16_to_fp17_table[h] = (uint32_t)widen(FP16, FP17, h, true);
    }
}

uint32_t fpnum_fp16_to_fp32(uint16_t h)
{
    return fp16_to_fp32_table[h];
}

uint16_t fpnum_fp32_to_fp16(uint32_t f)
{
    return (uint16_t)narrow(FP32, FP16, f, true);
}

uint32_t fpnum_fp17_to_fp32(uint32_t h)
{
    return (uint32_t)widen(FP17, FP32, h, false);
}

uint32_t fpnum_fp32_to_fp17(uint32_t f)
{
    return (uint32_t)narrow(FP32, FP17, f, false);
}

uint32_t fpnum_fp16_to_fp17(uint16_t h)
{
    return fp16_to_fp17_table[h];
}

/* Same mantissa width, narrower exponent (the cmod's FpExpoWidthDec). */
uint16_t fpnum_fp17_to_fp16(uint32_t h)
{
    return (uint16_t)narrow(FP17, FP16, h, true);
}

int16_t fpnum_fp16_to_int16(uint16_t h)
{
    struct fp_parts p = unpack(FP16, h);
    if (parts_nan(FP16, p))
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
    unsigned top = 63 - leading_zeros(mag, 64);
    uint32_t expo = top + 15;
    bool carry;
    uint64_t m = round_nearest_even(mag << (63 - top), 64, 11, &carry);
    struct fp_parts o = {.sign = sign, .expo = expo, .mant = m & 0x3ffu};
    if (expo >= 31 || (carry && ++o.expo >= 31))
        saturate(FP16, &o); /* the cmod's infinity: the largest finite value */
    return (uint16_t)pack(FP16, o);
}

/* A fraction frac / 2^width (width > 10) as a non-negative fp17, nearest
 * even; tiny fractions flush to zero (the cmod's FpFractionToFloat). */
uint32_t fpnum_fraction_to_fp17(uint64_t frac, unsigned width)
{
    struct fp_parts o = {.sign = 0, .expo = expo_bias(FP17), .mant = 0};
    if (frac == 0)
        return 0;
    unsigned zeros = leading_zeros(frac, width);
    /* the leading one moves to the top of a width + 1 bit value */
    uint64_t shifted = (frac << (zeros + 1)) & low_mask(width + 1);
    bool carry;
    uint64_t m = round_nearest_even(shifted | (1ull << width), width + 1, FP17.mant + 1, &carry);
    if (carry) {
        o.expo -= zeros;
        o.mant = 0;
    } else if (o.expo <= zeros + 1) {
        return 0;
    } else {
        o.mant = m & low_mask(FP17.mant);
        o.expo -= zeros + 1;
    }
    return (uint32_t)pack(FP17, o);
}
