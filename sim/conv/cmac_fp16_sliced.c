/* The Booth corrections of a whole fp16 cell, bit-sliced: for cells where
 * many products need one (exponents spread over the fp16 range), every
 * product of 8 data rows against 32 kernels is run through the Booth array,
 * 512 products at a time, one product per bit of a 512-bit register and one
 * register per bit position (AVX-512F/BW/VBMI: the FMA cells' hosts).
 *
 * What a product needs beyond the FMA cells' floor(P / 2^s)
 * (cmac_fp16_fma.c, P = d * w the exact product, s its alignment): the
 * hardware shifts the Booth array's two carry-save words X and Y and adds
 * the shifted sign compensation K = 0xaaab0000 (plus 1 from s = 20 on), so
 * it gives floor(P / 2^s) less the carries out of the low s bits of X + Y +
 * K (X + Y + K = P), plus [s >= 20]; from s = 32 on it gives 0, which is
 * floor(P / 2^s) + 1 for a negative P (|P| < 2^28) and floor(P / 2^s) for a
 * positive one; below 8 nothing (s = 4: tests/unit/test_cmac_fp16.c).  The
 * low s bits of X and Y depend only on the low s bits of the array's rows,
 * since a carry-save adder moves carries up, never down: so bits 0-27 of
 * every row and adder are enough for every alignment up to 28, and the
 * carries out of bits 0 to s - 1 come from one ripple over X + Y and a
 * second one adding K's bits from 16 on (K has none below).
 *
 * Bit-sliced, the array is plain logic: a row's bit is the data bit the
 * Booth digit selects (dat or 2 dat) XOR the digit's sign, an adder's bits
 * are XOR3 and majority, each one vpternlogd (the majority taken from two
 * inputs and the XOR3, so that each overwrites an input it no longer
 * needs: no register copies).  A batch is 8 rows x 2
 * values x 32 kernels: bit l of 32-bit element 2r + q is row r's value
 * 2b + q against kernel l (the 16 data values of a batch in one register:
 * the cell's rows are transposed once, two values of a row a 64-bit word).
 * A row's bit j then depends on the element's data only through its sign
 * and bits j and j - 1, and on the kernel's weight: so each Booth digit of
 * each weight value has a table of 8 lane masks, one per data sign and
 * pair of data bits (laid out once per kernel block,
 * cmac_fp16_sliced_layout), the batch's two values' tables are one
 * 16-entry register, and a row's bit for 512 products is one vpermd of it
 * by the elements' indices (q, the sign and the two bits: 15 index vectors
 * a batch, one per data bit, each one shift of a word holding every other
 * index a nibble, data_planes).  The weights' sign and exponent group are
 * 32-bit lane masks per value, broadcast two values at a time.  A first
 * pass over the batches works out each product's exponent groups' sum
 * (data group + weight group, in steps of 4 bits) in the same bit-sliced
 * way, and the cell's top per row and kernel as their running maximum
 * (the FMA cells take it for the rows whose maxima do not confirm their
 * tops: about 20 operations a batch, where tops_exact took some 1,500
 * 256-bit ones a cell of 8 rows and 64 values); then each product's
 * alignment (top less that sum) picks its carries.  What to take off each
 * row's and kernel's sum is counted in bit-sliced counters
 * (four batches' planes at a time, carry-save) and turned into bytes at
 * the cell's end.
 * A batch whose 16 data values are all zero (padding) has no products and
 * is skipped.
 *
 * Cost: about 540 vector operations a batch (counted in the compiled
 * loops: 127 vpermd for the rows' bits and the digits' signs; 151 adders,
 * 87 of three inputs and 64 of two, two operations each; the ripples 52;
 * 21 for the indices, 20 for the exponent sums and the tops, 7 for the
 * alignments, 16 for the carries' choice, 7 for the counters), about 110
 * ns a batch, 0.21 ns a product, on this machine
 * (the two 512-bit ports bound it), whether a product needs a carry or
 * not: on exponents spread over the whole range, where half the products
 * do, 10x quicker than settling them one by one; on real data, where a
 * few percent do, 3-4x slower, which is why the FMA cells choose per cell.
 * Where that goes: the array (rows' bits, adders, ripples) is about 465
 * of it, and it is at its floor for this layout (one lookup a row's bit,
 * two operations an adder, one a ripple's bit).  Positions 16-27, which
 * only products aligned by 20 to 28 need, take a third of the batch's
 * time (37 of 110 ns, measured by cutting the array at 16).  On the
 * spread layer about 34% of the products are aligned by 20 to 28, 21% by
 * 8 to 16, and the rest need nothing (estimated by a model of its data);
 * the registers hold rows x kernels, though, a product's alignment is the
 * cell's top less its data and weight exponents, each random, and every
 * batch has products of every kind (and 2 in 10,000 elements, a data
 * value against 32 kernels, none that needs the array), so no batch can
 * skip a position and no element can be compacted away.
 * share/performance-history.md has what was weighed and why it was left. */
#include <stdlib.h>

#include "conv.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* the FMA cells' hosts, which have VBMI (cmac_fp16_fma()) */
#define SLICED __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))
#define SLICED_INLINE static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl,avx512vbmi")))

enum { L = CMAC_FP16_FMA_LANES, R = CMAC_FP16_FMA_ROWS };
_Static_assert(L == 32 && R == 8, "a batch is 8 rows x 2 values in 32-bit elements of 32 kernels");

/* The weights' lane-mask fields, field f of value i at planes[stride * f
 * + i] (a bit per kernel), then the Booth digits' tables (TABLES). */
enum {
    F_SIGN = 0,    /* the weight is negative */
    F_NONZERO = 1,
    F_GROUP = 2, /* bits 2-4 of the exponent part h: F_GROUP + t */
    F_MASKS = 5
};

/* Digit i's table of value j: 8 lane masks at planes[stride * (F_MASKS + 8
 * i) + 8 j + e], entry e = data sign << 2 | d_j << 1 | d_j-1: bit j of the
 * digit's partial product for data whose bits j and j - 1 are d_j and
 * d_j-1 (see partial_bit), for every kernel of the block.  Value j + 1's
 * table follows value j's, so one 16-entry load holds a batch's two
 * values, whatever the cell's first value. */
enum { TABLE = 8, DIGITS = 8 };
_Static_assert(F_MASKS + DIGITS * TABLE == CMAC_FP16_SLICED_FIELDS,
               "conv.h's count of the planes' words per value");

/* vpternlogd's truth tables of its three operands. */
#define TA 0xf0
#define TB 0xcc
#define TC 0xaa
#define XOR3   (TA ^ TB ^ TC)
#define MAJ    ((TA & TB) | (TA & TC) | (TB & TC))
#define CARRY_OF_SUM ((TA & TB) | ((TA ^ TB) & ~TC)) /* MAJ from a, b and a ^ b ^ c */
#define PICK   ((TA & TB) | (~TA & TC))              /* a ? b : c */
#define BORROW ((~TA & TB) | (~TA & TC) | (TB & TC)) /* of a - b - c */
#define TERN(a, b, c, f) _mm512_ternarylogic_epi32((a), (b), (c), (f) & 0xff)

/* ---------------------------------------------------------------- weights */

/* Digit i of the radix-4 Booth recoding of bits = (|w| << 1) ^ (neg ? ~0 :
 * 0) reads bits 2i to 2i + 2, b0 b1 b2: it selects dat when b0 != b1, 2 dat
 * when b0 == b1 != b2 (neither: a zero digit) whatever neg is, and is
 * negative when b2 & ~(b0 & b1) with neg = 0 or ~b2 & (b0 | b1) with neg
 * = 1 (all three bits flipped).  b0 b1 b2 are bits 2i - 1 to 2i + 1 of |w|
 * (bit -1 being 0).  A digit's partial product's bit j is then its sign
 * (the one's complement of a negative digit) XOR dat_j if it selects dat,
 * XOR dat_j-1 if 2 dat: the table's entries. */
SLICED_INLINE void layout_value(const int16_t *m, const uint8_t *h, size_t j, size_t stride,
                                uint32_t *planes)
{
    __m512i w = _mm512_loadu_si512(m + (size_t)L * j);
    __m512i mag = _mm512_abs_epi16(w);
    __mmask32 sign = _mm512_movepi16_mask(w);
    uint32_t bit[17] = {0};
    for (unsigned k = 0; k < 14; k++)
        bit[k + 1] = _mm512_test_epi16_mask(mag, _mm512_set1_epi16((int16_t)(1u << k)));
    for (unsigned i = 0; i < DIGITS; i++) {
        uint32_t b0 = bit[2 * i], b1 = bit[2 * i + 1], b2 = bit[2 * i + 2];
        uint32_t inv_pos = b2 & ~(b0 & b1), inv_neg = ~b2 & (b0 | b1);
        uint32_t one = b0 ^ b1, two = (b0 & b1 & ~b2) | (~b0 & ~b1 & b2);
        /* a positive data value: the product's sign is the weight's */
        uint32_t inv[2] = {(inv_pos & ~sign) | (inv_neg & sign), (inv_neg & ~sign) | (inv_pos & sign)};
        uint32_t *table = planes + stride * (F_MASKS + TABLE * i) + TABLE * j;
        for (unsigned e = 0; e < TABLE; e++)
            table[e] = inv[e >> 2] ^ (e & 2 ? one : 0) ^ (e & 1 ? two : 0);
    }
    __m256i hv = _mm256_loadu_si256((const __m256i *)(h + (size_t)L * j));
    planes[F_SIGN * stride + j] = sign;
    planes[F_NONZERO * stride + j] = _mm512_test_epi16_mask(w, w);
    for (unsigned t = 0; t < 3; t++)
        planes[(F_GROUP + t) * stride + j] =
            _mm256_test_epi8_mask(hv, _mm256_set1_epi8((char)(4u << t)));
}

SLICED void cmac_fp16_sliced_layout(const int16_t *m, const uint8_t *h, size_t n, size_t stride,
                                    uint32_t *planes)
{
    for (size_t j = 0; j < n; j++)
        layout_value(m, h, j, stride, planes);
    /* the values past the last read as zeros (a half batch's second) */
    for (unsigned f = 0; f < F_MASKS; f++)
        for (size_t j = n; j < stride; j++)
            planes[f * stride + j] = 0;
    for (unsigned i = 0; i < DIGITS; i++)
        for (size_t e = TABLE * n; e < TABLE * stride; e++)
            planes[stride * (F_MASKS + TABLE * i) + e] = 0;
}

/* ---------------------------------------------------------------- a plane or none */

/* A bit position's plane, or a position known to hold no bit (zero): the
 * array's rows and adders cover different bit ranges, and the unrolled
 * loops below drop the work on positions outside them at compile time. */
struct plane {
    __m512i v;
    bool zero;
};

static const struct plane none = {{0}, true};

SLICED_INLINE struct plane some(__m512i v)
{
    return (struct plane){v, false};
}

/* A carry-save adder's bit: the XOR3 of its inputs, their majority the
 * carry into the next position (*carry). */
SLICED_INLINE struct plane full_add(struct plane x, struct plane y, struct plane z,
                                    struct plane *carry)
{
    if (x.zero) /* keep the zeros last */
        x = z, z = none;
    if (y.zero)
        y = z, z = none;
    if (x.zero)
        x = y, y = none;
    if (x.zero) {
        *carry = none;
        return none;
    }
    if (y.zero) {
        *carry = none;
        return x;
    }
    if (z.zero) {
        *carry = some(_mm512_and_si512(x.v, y.v));
        return some(_mm512_xor_si512(x.v, y.v));
    }
    /* the carry from x, y and the sum (when x != y it is z, the sum's
     * complement): each vpternlogd overwrites an input no longer needed
     * (z, then x), where the majority of x, y and z kept all three and
     * cost a register copy an adder, a third of them taking a port */
    __m512i sum = TERN(z.v, x.v, y.v, XOR3);
    *carry = some(TERN(x.v, y.v, sum, CARRY_OF_SUM));
    return some(sum);
}

/* The carry of three planes alone (the sum unused). */
SLICED_INLINE struct plane majority(struct plane x, struct plane y, struct plane z)
{
    if (x.zero)
        x = z, z = none;
    if (y.zero)
        y = z, z = none;
    if (x.zero || y.zero)
        return none;
    if (z.zero)
        return some(_mm512_and_si512(x.v, y.v));
    return some(TERN(x.v, y.v, z.v, MAJ));
}

/* ---------------------------------------------------------------- the array */

/* One batch's operands: per data bit j its table index (idx[j], of each
 * element: q << 3 | data sign << 2 | d_j << 1 | d_j-1, data bits 0 to 14,
 * the last two zero), per Booth digit its table of the batch's two values
 * (16 entries, value q's at 8q) and its sign (inv: its partial product's
 * bits from 15 on). */
struct batch {
    __m512i idx[15], inv[8];
    const uint32_t *table[8];
};

/* Bit j of digit i's partial product: the digit's table entry (the
 * selected bit, dat_j or dat_j-1, flipped for a negative digit, one vpermd
 * for 512 products); bit 15 is the flip alone, bit 16 the positive digit's
 * 1 (the hardware's 0x10000, the sign compensation's share). */
SLICED_INLINE struct plane partial_bit(const struct batch *b, int i, int j)
{
    if (j < 0 || j > 16)
        return none;
    if (j == 16)
        return some(_mm512_ternarylogic_epi32(b->inv[i], b->inv[i], b->inv[i], 0x55));
    if (j == 15)
        return some(b->inv[i]);
    return some(_mm512_permutexvar_epi32(b->idx[j], _mm512_loadu_si512(b->table[i])));
}

/* Bit p of row k of the array (cacc_fp16_booth's order): rows 0-3 digits
 * 0-3, row 4 digit 3's carry-in alone, rows 5-8 digits 4-7, row 9 digit
 * 7's carry-in; a digit's row also holds the previous digit's carry-in
 * (the +1 of its one's complement) at its two lowest bits, except rows 0
 * and 5. */
SLICED_INLINE struct plane row_bit(const struct batch *b, int k, int p)
{
    int group = k / 5, at = k % 5, digit = 4 * group + at, base = 8 * group;
    if (at == 4)
        return p == base + 6 ? some(b->inv[digit - 1]) : none;
    if (at > 0 && p == base + 2 * at - 2)
        return some(b->inv[digit - 1]);
    return partial_bit(b, digit, p - 2 * digit);
}

/* The carries out of bits 0 to s - 1: of X + Y for s = 8, 12, ..., 28
 * (xy[s / 4 - 2]) and, from 20 on, of adding K's bits to that sum's
 * (k[s / 4 - 5]). */
struct carries {
    __m512i xy[6], k[3];
};

#define SIGN_COMPENSATION 0xaaab0000u

/* The array's bits 0-27, position by position: the ten rows, the eight
 * carry-save adders (three on rows 0-4, three on rows 5-9, two joining
 * them; each one's carries into the next position kept), then the
 * ripples. */
SLICED_INLINE struct carries booth_carries(const struct batch *b)
{
    struct plane into[8] = {none, none, none, none, none, none, none, none};
    struct plane rx = none, rk = none; /* the ripples' carries into position p */
    struct carries out;
#pragma GCC unroll 28
    for (int p = 0; p < 28; p++) {
        struct plane up[8], a, c, x;
        a = full_add(row_bit(b, 0, p), row_bit(b, 1, p), row_bit(b, 2, p), &up[0]);
        a = full_add(a, into[0], row_bit(b, 3, p), &up[1]);
        a = full_add(a, into[1], row_bit(b, 4, p), &up[2]);
        c = full_add(row_bit(b, 5, p), row_bit(b, 6, p), row_bit(b, 7, p), &up[3]);
        c = full_add(c, into[3], row_bit(b, 8, p), &up[4]);
        c = full_add(c, into[4], row_bit(b, 9, p), &up[5]);
        x = full_add(a, into[2], c, &up[6]);
        x = full_add(x, into[6], into[5], &up[7]); /* X's bit; Y's is into[7] */
        if (p < 16) { /* the carries only */
            rx = majority(x, into[7], rx);
        } else { /* K's bit p: a carry on rk when set, else only with sum */
            struct plane sum = full_add(x, into[7], rx, &rx);
            __m512i s = sum.zero ? _mm512_setzero_si512() : sum.v;
            __m512i r = rk.zero ? _mm512_setzero_si512() : rk.v;
            rk = some(SIGN_COMPENSATION >> p & 1u ? _mm512_or_si512(s, r) : _mm512_and_si512(s, r));
        }
        for (int k = 0; k < 8; k++)
            into[k] = up[k];
        int s = p + 1;
        if (s % 4 == 0 && s >= 8)
            out.xy[s / 4 - 2] = rx.zero ? _mm512_setzero_si512() : rx.v;
        if (s % 4 == 0 && s >= 20)
            out.k[s / 4 - 5] = rk.v;
    }
    return out;
}

/* ---------------------------------------------------------------- alignments */

/* A product's alignment in steps of 4 bits, S = T - U (T the cell's top
 * for the row and kernel, U = A + B the product's exponent groups, data's
 * and weight's, exponent_sums), as four bit planes. */
SLICED_INLINE void alignment(const __m512i t[4], const __m512i u[4], __m512i s[4])
{
    s[0] = _mm512_xor_si512(t[0], u[0]);
    __m512i b1 = _mm512_andnot_si512(t[0], u[0]);
    s[1] = TERN(t[1], u[1], b1, XOR3);
    __m512i b2 = TERN(t[1], u[1], b1, BORROW);
    s[2] = TERN(t[2], u[2], b2, XOR3);
    __m512i b3 = TERN(t[2], u[2], b2, BORROW);
    s[3] = TERN(t[3], u[3], b3, XOR3);
}

/* What each product adds to its cell's sum beyond floor(P / 2^s), as two
 * planes: +1 (*plus) and -1 (*minus).  S = s / 4: 2-4 take off the carry
 * out of X + Y; 5-7 add 1 less the carries out of X + Y and of K; 8 and
 * more add 1 for a negative product; 0 and 1 nothing (the carry picked for
 * them is 0); a product with a zero operand (not live) nothing. */
SLICED_INLINE void deltas(const struct carries *c, const __m512i s[4], __m512i sign,
                          __m512i wsign, __m512i live, __m512i *plus, __m512i *minus)
{
    __m512i by12 = TERN(s[0], c->xy[1], c->xy[0], PICK);  /* S = 3 : 2 */
    __m512i by20 = TERN(s[0], c->xy[3], c->xy[2], PICK);  /* S = 5 : 4 */
    __m512i by28 = TERN(s[0], c->xy[5], c->xy[4], PICK);  /* S = 7 : 6 */
    __m512i high = TERN(s[1], by28, by20, PICK);          /* S = 4 to 7 */
    __m512i low = _mm512_and_si512(s[1], by12);           /* S = 2, 3 (0 for 0, 1) */
    __m512i xy = TERN(s[2], high, low, PICK);             /* the carry out of X + Y */
    __m512i kk = TERN(s[1], TERN(s[0], c->k[2], c->k[1], PICK), c->k[0], PICK);
    /* S of 8 or more, or no product: the sign's +1 alone, if any */
    __m512i over = TERN(s[3], live, live, TA | ~TB);
    __m512i neg = TERN(sign, wsign, live, (TA ^ TB) & TC);
    /* S = 5-7 (101, 110, 111): +1 with no carry, -1 with both; S = 2-4:
     * -1 with the carry */
    __m512i from5 = TERN(s[2], s[1], s[0], TA & (TB | TC));
    __m512i up = TERN(from5, xy, kk, TA & ~TB & ~TC);
    *plus = TERN(over, neg, up, PICK);
    __m512i lone = TERN(from5, kk, kk, ~TA | TB); /* S 2-4, or 5-7 with K's carry */
    *minus = TERN(over, xy, lone, ~TA & TB & TC);
}

/* ---------------------------------------------------------------- counters */

#define COUNT_BITS 6 /* up to 32 batches (64 values) a cell */

/* Four batches' planes x[0..3] added to the bit-sliced counter c: two
 * full adders into its ones, their carries and its twos through a third,
 * and only what that carries out rippled up from the fours: 14 operations
 * for four planes (a ripple per pair of planes took 12 for two). */
SLICED_INLINE void count4(__m512i c[COUNT_BITS], const __m512i x[4])
{
    __m512i ones = TERN(c[0], x[0], x[1], XOR3), two_a = TERN(c[0], x[0], x[1], MAJ);
    c[0] = TERN(ones, x[2], x[3], XOR3);
    __m512i two_b = TERN(ones, x[2], x[3], MAJ);
    __m512i carry = TERN(c[1], two_a, two_b, MAJ);
    c[1] = TERN(c[1], two_a, two_b, XOR3);
    for (int i = 2; i < COUNT_BITS; i++) {
        __m512i up = _mm512_and_si512(c[i], carry);
        c[i] = _mm512_xor_si512(c[i], carry);
        carry = up;
    }
}

/* Row r's counts (elements 2r and 2r + 1, summed) as bytes, kernel l at
 * byte l, times sign. */
SLICED_INLINE __m256i row_counts(const uint64_t words[COUNT_BITS][8], unsigned r, int sign)
{
    __m512i sum = _mm512_setzero_si512();
    for (int i = 0; i < COUNT_BITS; i++)
        sum = _mm512_add_epi8(sum, _mm512_maskz_mov_epi8(words[i][r],
                                                         _mm512_set1_epi8((char)(sign * (1 << i)))));
    return _mm256_add_epi8(_mm512_castsi512_si256(sum), _mm512_extracti64x4_epi64(sum, 1));
}

/* ---------------------------------------------------------------- the cell */

/* Whole elements: ~0 where k is set (AVX-512F's way, no DQ). */
SLICED_INLINE __m512i elements(__mmask16 k)
{
    return _mm512_maskz_mov_epi32(k, _mm512_set1_epi32(-1));
}

/* Field f of the weights for values j and j + 1, in the elements of q = 0
 * and q = 1. */
SLICED_INLINE __m512i weights(const uint32_t *planes, size_t stride, unsigned f, size_t j)
{
    uint64_t pair;
    __builtin_memcpy(&pair, planes + f * stride + j, sizeof pair);
    return _mm512_set1_epi64((long long)pair);
}

/* The exponent groups' sums U = A + B of a batch's products (A the data
 * value's, bits 2-4 of its exponent part, B the weight's), as four planes,
 * and the products with no zero operand (*live). */
SLICED_INLINE void exponent_sums(__m512i v, const uint32_t *planes, size_t stride, size_t j,
                                 __m512i u[4], __m512i *live)
{
    __m512i a[3], w[3];
    for (unsigned t = 0; t < 3; t++) {
        a[t] = elements(_mm512_test_epi32_mask(v, _mm512_set1_epi32(4 << (16 + t))));
        w[t] = weights(planes, stride, F_GROUP + t, j);
    }
    *live = _mm512_maskz_mov_epi32(_mm512_test_epi32_mask(v, _mm512_set1_epi32(0xffff)),
                                   weights(planes, stride, F_NONZERO, j));
    u[0] = _mm512_xor_si512(a[0], w[0]);
    __m512i k1 = _mm512_and_si512(a[0], w[0]);
    u[1] = TERN(a[1], w[1], k1, XOR3);
    __m512i k2 = TERN(a[1], w[1], k1, MAJ);
    u[2] = TERN(a[2], w[2], k2, XOR3);
    u[3] = TERN(a[2], w[2], k2, MAJ);
}

/* m = max(m, u) where live, four planes each: u > m is the borrow out of
 * m - u. */
SLICED_INLINE void running_max(__m512i m[4], const __m512i u[4], __m512i live)
{
    __m512i borrow = _mm512_andnot_si512(m[0], u[0]);
    for (unsigned i = 1; i < 4; i++)
        borrow = TERN(m[i], u[i], borrow, BORROW);
    __m512i more = _mm512_and_si512(borrow, live);
    for (unsigned i = 0; i < 4; i++)
        m[i] = TERN(more, u[i], m[i], PICK);
}

/* Two indices' bits in each nibble of an element, from the 8-bit windows
 * of |d| << 1 (bit j is d_j-1) at bit 4m (even) or 4m + 1 (odd) in byte
 * m: its bits 0-1 stay, bits 2-3 go to 4-5, and the sign and q (sq, bits
 * 2-3 of each nibble) fill the rest: nibble k is then index 2k (even) or
 * 2k + 1 (odd). */
SLICED_INLINE __m512i index_nibbles(__m512i twice, __m512i at, __m512i sq)
{
    __m512i w = _mm512_multishift_epi64_epi8(at, twice);
    w = TERN(_mm512_set1_epi32(0x03030303), w, _mm512_slli_epi32(w, 2), PICK);
    return TERN(_mm512_set1_epi32((int)0xcccccccc), sq, w, PICK);
}

/* The batch's data operands from its 16 values (element 2r + q: row r's
 * value 2b + q, the mantissa in the low half, the exponent part in bits
 * 16-23): the table indices of the magnitude's bits (struct batch) and the
 * sign.  vpermd reads an index's low four bits only, so index j is one
 * shift of a word holding every other index a nibble (index_nibbles): 13
 * shifts and two such words where a shift and a merge per index took 30
 * operations. */
SLICED_INLINE void data_planes(__m512i v, __m512i idx[15], __m512i *sign)
{
    const __m512i q = _mm512_set_epi32((int)0x88888888, 0, (int)0x88888888, 0, (int)0x88888888, 0,
                                       (int)0x88888888, 0, (int)0x88888888, 0, (int)0x88888888, 0,
                                       (int)0x88888888, 0, (int)0x88888888, 0);
    /* the windows' offsets: bytes m of the qword's two elements */
    const __m512i even = _mm512_set1_epi64(0x2c2824200c080400),
                  odd = _mm512_set1_epi64(0x2d2925210d090501);
    __m512i d = _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16);
    __m512i twice = _mm512_slli_epi32(_mm512_abs_epi32(d), 1); /* bit j: d_j-1 */
    *sign = _mm512_srai_epi32(d, 31);
    __m512i sq = TERN(*sign, _mm512_set1_epi32(0x44444444), q, (TA & TB) | TC);
    __m512i nibbles[2] = {index_nibbles(twice, even, sq), index_nibbles(twice, odd, sq)};
#pragma GCC unroll 15
    for (int j = 0; j < 15; j++) {
        idx[j] = j < 2 ? nibbles[j] : _mm512_srli_epi32(nibbles[j % 2], (unsigned)(4 * (j / 2)));
        /* kept (spilled if need be), never recomputed where it is used */
        __asm__("" : "+v"(idx[j]));
    }
}

/* One batch (values j and j + 1 of every row, v as data_planes reads
 * them, u and live its exponent_sums): its products' +1 and -1 planes. */
SLICED_INLINE void batch_deltas(__m512i v, const uint32_t *planes, size_t stride, size_t j,
                                const __m512i top[4], const __m512i u[4], __m512i live,
                                __m512i *plus, __m512i *minus)
{
    struct batch b;
    __m512i sign, s[4];
    data_planes(v, b.idx, &sign);
    for (unsigned i = 0; i < DIGITS; i++) {
        b.table[i] = planes + stride * (F_MASKS + TABLE * i) + TABLE * j;
        /* the entries of d_j = d_j-1 = 0: the digit's sign */
        b.inv[i] = _mm512_permutexvar_epi32(_mm512_andnot_si512(_mm512_set1_epi32(3), b.idx[0]),
                                            _mm512_loadu_si512(b.table[i]));
    }
    alignment(top, u, s);
    struct carries c = booth_carries(&b);
    deltas(&c, s, sign, weights(planes, stride, F_SIGN, j), live, plus, minus);
}

/* The cell's tops from the running maxima of its batches (m, per element:
 * row r's values of each q apart): T = max of elements 2r and 2r + 1 in
 * both (*t, as the alignments want it), and top[r][l] = 64 + 4 T, the
 * largest h + 64 of a product with no zero operand (64 when none). */
SLICED_INLINE void tops_of(const __m512i m[4], __m512i t[4], uint8_t top[R][L])
{
    __m512i even[4], odd[4];
    for (unsigned i = 0; i < 4; i++) {
        even[i] = _mm512_shuffle_epi32(m[i], _MM_PERM_CCAA);
        odd[i] = _mm512_shuffle_epi32(m[i], _MM_PERM_DDBB);
        t[i] = even[i];
    }
    running_max(t, odd, _mm512_set1_epi32(-1));
    uint64_t words[4][8];
    for (unsigned i = 0; i < 4; i++)
        _mm512_storeu_si512(words[i], t[i]);
    for (unsigned r = 0; r < R; r++) {
        __m256i v = _mm256_set1_epi8(64);
        for (unsigned i = 0; i < 4; i++)
            v = _mm256_mask_add_epi8(v, (__mmask32)words[i][r], v, _mm256_set1_epi8((char)(4 << i)));
        _mm256_storeu_si256((__m256i *)top[r], v);
    }
}

/* Eight rows of eight 64-bit words (row r's word b at rows[r], lane b)
 * transposed: word b of every row into out[b], lane r. */
SLICED_INLINE void transpose8(const __m512i rows[8], __m512i out[8])
{
    /* pairs of rows, then quadruples, then all eight, word by word */
    const __m512i lo2 = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0),
                  hi2 = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4),
                  lo4 = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0),
                  hi4 = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4),
                  lo8 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0),
                  hi8 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
    __m512i two[8], four[8];
    for (unsigned i = 0; i < 4; i++) {
        two[2 * i] = _mm512_permutex2var_epi64(rows[2 * i], lo2, rows[2 * i + 1]);
        two[2 * i + 1] = _mm512_permutex2var_epi64(rows[2 * i], hi2, rows[2 * i + 1]);
    }
    for (unsigned i = 0; i < 2; i++)
        for (unsigned h = 0; h < 2; h++) {
            four[4 * i + 2 * h] = _mm512_permutex2var_epi64(two[4 * i + h], lo4, two[4 * i + h + 2]);
            four[4 * i + 2 * h + 1] =
                _mm512_permutex2var_epi64(two[4 * i + h], hi4, two[4 * i + h + 2]);
        }
    /* four[4i + k]: words 2k and 2k + 1 of rows 4i to 4i + 3 */
    for (unsigned k = 0; k < 4; k++) {
        out[2 * k] = _mm512_permutex2var_epi64(four[k], lo8, four[4 + k]);
        out[2 * k + 1] = _mm512_permutex2var_epi64(four[k], hi8, four[4 + k]);
    }
}

SLICED void cmac_fp16_sliced_cell(const int16_t *const dm[R], const int8_t *const dh[R],
                                  uint32_t nj, const uint32_t *planes, size_t first, size_t stride,
                                  uint8_t top[R][L], int8_t carried[R][L])
{
    uint32_t batches = (nj + 1) / 2;
    /* each value's mantissa and exponent part in one 32-bit word, the
     * values past the cell zeros; then a batch's two values of every row
     * in one register (transpose8) */
    __m512i v[CMAC_FP16_FMA_CELL / 2 / 8 * 8];
    for (uint32_t b0 = 0; b0 < batches; b0 += 8) {
        __m512i rows[8];
        uint32_t j0 = 2 * b0, left = nj - j0;
        __mmask16 in = left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
        for (unsigned r = 0; r < R; r++) {
            __m512i m = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(in, dm[r] + j0));
            __m512i h = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(in, dh[r] + j0));
            rows[r] = _mm512_or_si512(m, _mm512_slli_epi32(h, 16));
        }
        transpose8(rows, v + b0);
    }
    /* first every product's exponent sum and the cell's tops, then the
     * array; batches of zeros only (padding) have no products */
    __m512i sums[CMAC_FP16_FMA_CELL / 2][4], live[CMAC_FP16_FMA_CELL / 2];
    __m512i m[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                    _mm512_setzero_si512()};
    uint64_t full = 0; /* bit b: batch b has a nonzero value */
    for (uint32_t b = 0; b < batches; b++) {
        if (!_mm512_test_epi32_mask(v[b], _mm512_set1_epi32(0xffff)))
            continue;
        full |= 1ull << b;
        exponent_sums(v[b], planes, stride, first + 2 * b, sums[b], &live[b]);
        running_max(m, sums[b], live[b]);
    }
    __m512i t[4], up[COUNT_BITS], down[COUNT_BITS];
    tops_of(m, t, top);
    for (int i = 0; i < COUNT_BITS; i++)
        up[i] = down[i] = _mm512_setzero_si512();
    for (uint32_t b = 0; b < batches; b += 4) {
        __m512i plus[4], minus[4];
        for (unsigned h = 0; h < 4; h++) {
            plus[h] = minus[h] = _mm512_setzero_si512();
            if (full >> (b + h) & 1)
                batch_deltas(v[b + h], planes, stride, first + 2 * (b + h), t, sums[b + h],
                             live[b + h], &plus[h], &minus[h]);
        }
        count4(up, plus);
        count4(down, minus);
    }
    uint64_t ups[COUNT_BITS][8], downs[COUNT_BITS][8];
    for (int i = 0; i < COUNT_BITS; i++) {
        _mm512_storeu_si512(ups[i], up[i]);
        _mm512_storeu_si512(downs[i], down[i]);
    }
    /* what the row's sums take off: the -1s less the +1s */
    for (unsigned r = 0; r < R; r++)
        _mm256_storeu_si256((__m256i *)carried[r],
                            _mm256_add_epi8(row_counts(downs, r, 1), row_counts(ups, r, -1)));
}

#else

void cmac_fp16_sliced_layout(const int16_t *m, const uint8_t *h, size_t n, size_t stride,
                             uint32_t *planes)
{
    (void)m, (void)h, (void)n, (void)stride, (void)planes;
    abort(); /* never selected: cmac_fp16_fma() is false */
}

void cmac_fp16_sliced_cell(const int16_t *const dm[CMAC_FP16_FMA_ROWS],
                           const int8_t *const dh[CMAC_FP16_FMA_ROWS], uint32_t nj,
                           const uint32_t *planes, size_t first, size_t stride,
                           uint8_t top[CMAC_FP16_FMA_ROWS][CMAC_FP16_FMA_LANES],
                           int8_t carried[CMAC_FP16_FMA_ROWS][CMAC_FP16_FMA_LANES])
{
    (void)dm, (void)dh, (void)nj, (void)planes, (void)first, (void)stride, (void)top, (void)carried;
    abort(); /* never selected: cmac_fp16_fma() is false */
}

#endif
