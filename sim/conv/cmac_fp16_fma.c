/* The fp16 MAC cells as double-precision FMAs that round down: eight data
 * rows against 32 kernels at a time (AVX-512F/BW/VL/VBMI/VPOPCNTDQ, chosen at run
 * time; cmac_fp16.c has the portable cells and why the Booth array's
 * result is what it is).
 *
 * Why a float FMA is exact here.  A cell's product of data d (exponent part
 * hd) and weight w (hw) aligned by s = top - hd - hw contributes
 * floor(d * w / 2^s) at the cell's scale 2^top, less a Booth carry when
 * s >= 8.  Take D = d * 2^(hd - 25), the data value itself (converted
 * from its fp16 bits, values_as_doubles), and W = w * 2^(hw + 25), so
 * that D * W = d * w * 2^(hd + hw) (exact doubles: 11 significant bits
 * each) and an accumulator S = 1.5 * 2^(52 + top) + T *
 * 2^top, T the integer sum so far.  While |T| < 2^51 (a cell's sum is under
 * 2^36), S stays in one binade, where doubles are exactly the multiples of
 * 2^top; so round_down(S + D * W), which one FMA computes from the exact
 * D * W + S, is S + floor(D * W / 2^top) * 2^top: the floor of every
 * product comes with the add, and T is S's low 52 mantissa bits less 2^51,
 * which is S's bits less its starting bits (fma_half).
 * A zero operand's D or W is 0 and adds nothing; values zero in all eight
 * rows are skipped.  The eight rows share every load of the kernels' values
 * (16 kernels at a time, 16 accumulators: 16 FMAs per two loads).
 *
 * The cell's top, and so each product's alignment, comes from maxima: a
 * row's largest exponent part in the cell plus a kernel's (kmax, per cell
 * and kernel from the layout) is the top whenever some value holds both,
 * which one AND per kernel confirms (tops_confirmed; nearly every cell of
 * real data).  Then a product's alignment is a + b, a its data value's
 * distance below the row's largest and b its weight's below the kernel's,
 * and only products with a + b >= 8 need more than the FMA: the Booth
 * carry of the two carry-save words' low bits.  Values with a = 0 need
 * nothing unless the weight is small (b >= 8: the block's small weights,
 * but for the quiet ones, exactly 8 below with the low byte of |m| clear,
 * whose products aligned by 8 or 12 never carry and which only the values
 * 8 or more below settle; the others listed cell by cell, lane by lane,
 * and settled 32 at a time for each row,
 * their carries counted into each lane by a popcount, settle_small: the 32
 * weights' Booth digits recoded once for the cell's rows, for both signs of
 * a product, since complementing a digit's three bits negates it, so a
 * negative product's digits are the positive one's negated: the same
 * partial-product shifts, other bits to flip, which each row's array picks
 * lane by lane by its product's sign);
 * values 4 below (mid_values_carries) need it only against weights 4 below their
 * kernel's largest (k->mid), aligned by 8, and of those only the ones with
 * one of |m|'s low four bits set (k->mid8: a weight with four zero bits
 * there never takes a carry aligned by 8): bit (weight sign << 8 | low
 * byte of |w|) of the data value's 512-bit row of carry8, fetched by a byte
 * permute (two values of a row at once, their two rows the two tables of
 * one 64-byte permute), counted per kernel in byte counters; values exactly 8
 * below (by8_carries) only against the weights of k->by8 (the same rules:
 * at the kernel's largest with one of |m|'s low four bits set, 4 below
 * with one of its low byte's, and the quiet ones; of a few significant
 * bits, the bench layer's, only the quiet ones are left), values further
 * below (small_value_carries) settle every product.  Products aligned by 8, 12 or
 * 16 get their carry from the Booth array computed in 16-bit lanes
 * (booth_carries), 32 products at a time; those aligned by 20 to 28 are
 * queued for the array in 32-bit lanes (booth32_deltas), and those by 32
 * or more, which the array drops (0), only take back the -1 the FMA counted
 * for a negative product (cmac_fp16_hard_carries).  A row whose maxima are not confirmed
 * for some kernel gets its tops the long way (the largest sum of exponent
 * parts, lane by lane) and every value of it settled against the exact
 * tops (value_carries).  A cell where that would cost more than running
 * every product of it through the Booth array bit-sliced (sliced_pays:
 * exponents spread over the whole range, where half the products need a
 * carry) gets its corrections from cmac_fp16_sliced.c instead, and the
 * tops of its rows not confirmed too.
 *
 * Where the time goes (perf on 1 thread, the bench's layers, a loaded
 * 2-CPU VM): the dense layer (exponents a few apart, 1% subnormals, values
 * of few significant bits) 33-35% in the FMAs (some 9 ms of 27 for the
 * layer's 43.3 M, where two FMA ports take 8.1 at the 5.35 G/s measured;
 * while the weights' 64-byte loads straddled two lines the layer took 7%
 * longer), 15% settling the small weights (subnormal ones),
 * 14% the small values' (subnormal data: 16-bit arrays and the queue),
 * 8% the cells' bookkeeping (row cells, maxima, starts), 3-4% the queue's
 * arrays, 5-6% in CACC, 4-5% decoding the data rows, 1% storing the
 * results, the rest the layer's setup, CDMA and CSC; its mid values look
 * nothing up (every mid weight has its low four bits clear: mid8 is
 * empty) and its values 8 below only against the quiet weights (by8: 1%);
 * with full mantissas (trained weights' kind) the mid values' lookups
 * take 12% and the values 8 below 4%; the spread layer 59% in the
 * bit-sliced cells (four fifths of that the Booth array itself), 11% in
 * the FMAs, and its tops
 * not confirmed come from the bit-sliced cells (4% when taken the long
 * way). */
#include <pthread.h>
#include <stdlib.h>

#include "conv.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "cmac_fp16_avx512.h"

/* avx512cd for CACC's normalisation (fp16_acc_from_zero8): cmac_fp16_fma()
 * requires cmac_fp16_simd(), which requires it */
#define AVX512_FMA                                                                                 \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vpopcntdq,avx512cd")))
#define ROUND_DOWN (_MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#define HIGH_BIAS  64 /* added to a weight's exponent part in the byte lanes */

enum { L = CMAC_FP16_FMA_LANES, R = CMAC_FP16_FMA_ROWS, G = L / 8 /* doubles of 8 kernels */ };

/* Bytes 8g to 8g + 7 of v, widened to 64-bit lanes. */
AVX512_FMA static inline __m512i group_bytes(__m256i v, unsigned g)
{
    __m128i half = g < 2 ? _mm256_castsi256_si128(v) : _mm256_extracti128_si256(v, 1);
    return _mm512_cvtepu8_epi64(g % 2 ? _mm_srli_si128(half, 8) : half);
}

/* Products aligned by 12 bits or more (lanes in `more`, s their
 * alignments) of value v of one row queued: the data and weight mantissas,
 * the alignment and the slot (base + lane).  Both halves of 16 lanes are
 * stored whether they hold one or not (an empty half moves the count by
 * nothing): a few lanes a value, where the branch was a coin toss. */
AVX512_FMA static inline void queue_hard(const int16_t *km, int16_t dm, __m256i s, __mmask32 more,
                                         uint32_t base, struct fp16_hard *hard)
{
    uint32_t n = hard->n;
    for (unsigned q = 0; q < L / 16; q++) {
        __mmask16 m = (__mmask16)(more >> (16 * q));
        __m512i w = _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(km + 16 * q)));
        __m512i shift = _mm512_cvtepu8_epi32(q ? _mm256_extracti128_si256(s, 1)
                                                : _mm256_castsi256_si128(s));
        n = hard_append16(hard, n, m, w, shift, base + 16 * q, dm);
    }
    hard->n = n;
}

/* ---------------------------------------------------------------- hard products
 *
 * A product aligned by s = 12 or 16 bits gives floor(P / 2^s) less the
 * carry out of the low s bits of the Booth array's two carry-save words
 * (the array's sign compensation has no bits below 16), and those bits
 * depend only on the words' low 16 bits: the array computed in 16-bit
 * lanes, 32 products at a time.  Digit i of the recoded weight reads bits
 * 2i to 2i + 2 of bits = (|w| << 1) ^ (sign ? ~0 : 0) (bit 16 is the sign);
 * one table lookup of bits 2i - 2 to 2i + 2 gives its partial product's
 * shift (16, shifting everything out, for a zero digit) and the bits to
 * flip: the one's complement of a negative digit and the carry-in bit of
 * the previous one, which the array adds at bit 2i - 2 of this row. */

/* Booth digit code (b2 b1 b0) -> its partial product's shift, 16 for 0. */
static inline uint16_t digit_shift(unsigned code)
{
    return code == 0 || code == 7 ? 16 : code == 3 || code == 4 ? 1 : 0;
}

static inline bool digit_negative(unsigned code)
{
    return code >= 4 && code <= 6;
}

/* Rows of the array (cacc_fp16_booth's order): digits 0-3 in lo[0-3], the
 * carry-in of digit 3 alone in lo[4], digits 4-7 in hi[0-3], digit 7's in
 * hi[4]; a digit's row holds the previous digit's carry-in except hi[0]. */
struct booth16_tables {
    int16_t shift[8][32], flip[8][32], lo4[32], hi4[32];
};

static struct booth16_tables booth16;
static pthread_once_t booth16_once = PTHREAD_ONCE_INIT;

static void booth16_fill(void)
{
    for (unsigned x = 0; x < 32; x++) {
        unsigned prev = x & 7u, code = x >> 2;
        for (unsigned i = 0; i < 8; i++) {
            bool carry_in = i != 0 && i != 4 && digit_negative(prev);
            booth16.shift[i][x] = (int16_t)(digit_shift(code) + 2 * i);
            booth16.flip[i][x] = (int16_t)((digit_negative(code) ? 0xffffu << (2 * i) : 0) |
                                           (carry_in ? 1u << (2 * i - 2) : 0));
        }
        booth16.lo4[x] = (int16_t)(digit_negative(prev) ? 1u << 6 : 0);
        booth16.hi4[x] = (int16_t)(digit_negative(code) ? 1u << 14 : 0);
    }
}

AVX512_FMA static inline __m512i table16(const int16_t *t)
{
    return _mm512_loadu_si512(t);
}

AVX512_FMA static inline __m512i csa16(__m512i x, __m512i y, __m512i z, __m512i *carry)
{
    *carry = _mm512_slli_epi16(_mm512_ternarylogic_epi32(x, y, z, 0xe8), 1);
    return _mm512_ternarylogic_epi32(x, y, z, 0x96);
}

/* A weight's digits (bits = (|w| << 1) ^ (sign ? ~0 : 0), bit 16 the
 * sign) as the array's rows read them: digit i's partial product's shift
 * and the bits to flip (rows lo[0-3], hi[0-3]), and the carry-ins of
 * digits 3 and 7 alone (lo4, hi4). */
struct booth16_digits {
    __m512i shift[8], flip[8], lo4, hi4;
};

/* Each digit's index into the tables (bits 2i - 2 to 2i + 2 of bits). */
AVX512_FMA static inline void booth16_index(__m512i wmag, __m512i neg, __m512i idx[8])
{
    __m512i bits = _mm512_xor_si512(_mm512_slli_epi16(wmag, 1), neg);
    idx[0] = _mm512_slli_epi16(bits, 2);
    for (unsigned i = 1; i < 7; i++)
        idx[i] = _mm512_srli_epi16(bits, 2 * i - 2);
    /* bit 16 of bits, the sign, is bit 4 of digit 7's index */
    idx[7] = _mm512_ternarylogic_epi32(_mm512_srli_epi16(bits, 12), neg, _mm512_set1_epi16(16),
                                       0xf8);
}

AVX512_FMA static inline struct booth16_digits booth16_recode(__m512i wmag, __m512i neg)
{
    struct booth16_digits g;
    __m512i idx[8];
    booth16_index(wmag, neg, idx);
    for (unsigned i = 0; i < 8; i++) {
        g.shift[i] = _mm512_permutexvar_epi16(idx[i], table16(booth16.shift[i]));
        g.flip[i] = _mm512_permutexvar_epi16(idx[i], table16(booth16.flip[i]));
    }
    g.lo4 = _mm512_permutexvar_epi16(idx[4], table16(booth16.lo4));
    g.hi4 = _mm512_permutexvar_epi16(idx[7], table16(booth16.hi4));
    return g;
}

/* The array's two carry-save words' low s bits overflow s bits (rows: the
 * partial products, lo4 and hi4 the lone carry-ins, in the array's order). */
AVX512_FMA static inline __mmask32 booth16_overflow(const __m512i row[8], __m512i lo4, __m512i hi4,
                                                    __m512i s)
{
    __m512i ac, as = csa16(row[0], row[1], row[2], &ac);
    as = csa16(as, ac, row[3], &ac);
    as = csa16(as, ac, lo4, &ac);
    __m512i bc, bs = csa16(row[4], row[5], row[6], &bc);
    bs = csa16(bs, bc, row[7], &bc);
    bs = csa16(bs, bc, hi4, &bc);
    __m512i cc, cs = csa16(as, ac, bs, &cc);
    __m512i carry, sum = csa16(cs, cc, bc, &carry);
    /* sum's and carry's low s bits overflow s bits: sum_lo > ~carry_lo */
    __m512i low = _mm512_srlv_epi16(_mm512_set1_epi16(-1),
                                    _mm512_sub_epi16(_mm512_set1_epi16(16), s));
    return _mm512_cmpgt_epu16_mask(_mm512_and_si512(sum, low), _mm512_andnot_si512(carry, low));
}

/* The carries of 32 products d * w (both nonzero, |m| < 2^14) aligned by
 * s (12 or 16 in the lanes that matter). */
AVX512_FMA static inline __mmask32 booth_carries(__m512i d, __m512i w, __m512i s)
{
    __m512i neg = _mm512_srai_epi16(_mm512_xor_si512(d, w), 15);
    __m512i dat = _mm512_abs_epi16(d);
    struct booth16_digits g = booth16_recode(_mm512_abs_epi16(w), neg);
    __m512i row[8];
    for (unsigned i = 0; i < 8; i++)
        row[i] = _mm512_xor_si512(_mm512_sllv_epi16(dat, g.shift[i]), g.flip[i]);
    return booth16_overflow(row, g.lo4, g.hi4, s);
}

/* booth_carries of one data value (mantissa dm) with 32 weights: the
 * value's partial product for each code of digit i is one table of 32
 * (its shift and flips applied to the tables themselves), which each
 * lane's digit index picks from: one permute a row instead of two, a
 * shift and an XOR. */
AVX512_FMA static inline __mmask32 booth_carries_of_value(int16_t dm, __m512i w, __m512i s)
{
    __m512i neg = _mm512_srai_epi16(_mm512_xor_si512(_mm512_set1_epi16(dm), w), 15);
    __m512i dat = _mm512_set1_epi16((int16_t)(dm < 0 ? -dm : dm)), idx[8], row[8];
    booth16_index(_mm512_abs_epi16(w), neg, idx);
    for (unsigned i = 0; i < 8; i++)
        row[i] = _mm512_permutexvar_epi16(
            idx[i], _mm512_xor_si512(_mm512_sllv_epi16(dat, table16(booth16.shift[i])),
                                     table16(booth16.flip[i])));
    return booth16_overflow(row, _mm512_permutexvar_epi16(idx[4], table16(booth16.lo4)),
                            _mm512_permutexvar_epi16(idx[7], table16(booth16.hi4)), s);
}

/* The digits of 32 weights recoded once for both signs of their products
 * (a negative product's digits are the positive one's negated: the same
 * shifts, other bits to flip), for arrays of the same weights against
 * many data values (settle_small: each row of the cell). */
struct booth16_both {
    __m512i shift[8], flip[2][8], lo4[2], hi4[2];
};

AVX512_FMA static inline void booth16_recode_both(__m512i w, struct booth16_both *b)
{
    __m512i wmag = _mm512_abs_epi16(w);
    for (unsigned n = 0; n < 2; n++) {
        struct booth16_digits g = booth16_recode(wmag, n ? _mm512_set1_epi16(-1)
                                                          : _mm512_setzero_si512());
        for (unsigned i = 0; i < 8; i++) {
            b->shift[i] = g.shift[i];
            b->flip[n][i] = g.flip[i];
        }
        b->lo4[n] = g.lo4;
        b->hi4[n] = g.hi4;
    }
}

/* booth_carries of the products of data d with the weights that b
 * recoded: each lane's flips picked by its product's sign. */
AVX512_FMA static inline __mmask32 booth_carries_recoded(__m512i d, __m512i w,
                                                         const struct booth16_both *b, __m512i s)
{
    /* ternary logic 0xca: neg ? second : first */
    __m512i neg = _mm512_srai_epi16(_mm512_xor_si512(d, w), 15);
    __m512i dat = _mm512_abs_epi16(d);
    __m512i row[8];
    for (unsigned i = 0; i < 8; i++)
        row[i] = _mm512_xor_si512(_mm512_sllv_epi16(dat, b->shift[i]),
                                  _mm512_ternarylogic_epi32(neg, b->flip[1][i], b->flip[0][i],
                                                            0xca));
    return booth16_overflow(row, _mm512_ternarylogic_epi32(neg, b->lo4[1], b->lo4[0], 0xca),
                            _mm512_ternarylogic_epi32(neg, b->hi4[1], b->hi4[0], 0xca), s);
}

/* The same array in 32-bit lanes, 16 products at a time, for products
 * aligned by 20 to 28 bits: there the array's result is floor(P / 2^s)
 * less the carry out of the low s bits of its two words and of the sign
 * compensation 0xaaab0000 (which has bits from 16 up), plus the 1 the
 * hardware adds to the compensation from 20 on.  A digit's row is
 * (mag << 2i) | 0x10000 << 2i for a positive digit or a zero one, (~mag &
 * 0xffff) << 2i for a negative one (cacc_fp16_booth), plus the previous
 * digit's carry-in: dat shifted (out, by 32 or more, for a zero digit),
 * then one XOR with the digit's pattern. */
struct booth32_tables {
    int32_t shift[8][32], flip[8][32], lo4[32], hi4[32];
};

static struct booth32_tables booth32;

static void booth32_fill(void)
{
    for (unsigned x = 0; x < 32; x++) {
        unsigned prev = x & 7u, code = x >> 2;
        for (unsigned i = 0; i < 8; i++) {
            bool carry_in = i != 0 && i != 4 && digit_negative(prev);
            booth32.shift[i][x] = (int32_t)(digit_shift(code) == 16 ? 32 : digit_shift(code) + 2 * i);
            booth32.flip[i][x] =
                (int32_t)((digit_negative(code) ? 0xffffu << (2 * i) : 0x10000u << (2 * i)) |
                          (carry_in ? 1u << (2 * i - 2) : 0));
        }
        booth32.lo4[x] = (int32_t)(digit_negative(prev) ? 1u << 6 : 0);
        booth32.hi4[x] = (int32_t)(digit_negative(code) ? 1u << 14 : 0);
    }
}

static void booth_tables_fill(void)
{
    booth16_fill();
    booth32_fill();
}

AVX512_FMA static inline __m512i table32(const int32_t *t, __m512i idx)
{
    return _mm512_permutex2var_epi32(_mm512_loadu_si512(t), idx, _mm512_loadu_si512(t + 16));
}

AVX512_FMA static inline __m512i csa32(__m512i x, __m512i y, __m512i z, __m512i *carry)
{
    *carry = _mm512_slli_epi32(_mm512_ternarylogic_epi32(x, y, z, 0xe8), 1);
    return _mm512_ternarylogic_epi32(x, y, z, 0x96);
}

/* What the array adds to floor(P / 2^s) for 16 products d * w (both
 * nonzero, |m| < 2^14) aligned by s (20 to 28 in the lanes that matter):
 * [s >= 20] less the carry. */
AVX512_FMA static inline __m512i booth32_deltas(__m512i d, __m512i w, __m512i s)
{
    __m512i neg = _mm512_srai_epi32(_mm512_xor_si512(d, w), 31);
    __m512i dat = _mm512_abs_epi32(d);
    /* bit 16 on, the sign, is what digit 7 reads as its top bit */
    __m512i bits = _mm512_xor_si512(_mm512_slli_epi32(_mm512_abs_epi32(w), 1), neg);
    __m512i row[8], idx[8];
    idx[0] = _mm512_slli_epi32(bits, 2);
    for (unsigned i = 1; i < 8; i++)
        idx[i] = _mm512_srli_epi32(bits, 2 * i - 2);
    for (unsigned i = 0; i < 8; i++)
        row[i] = _mm512_xor_si512(_mm512_sllv_epi32(dat, table32(booth32.shift[i], idx[i])),
                                  table32(booth32.flip[i], idx[i]));
    __m512i lo4 = table32(booth32.lo4, idx[4]), hi4 = table32(booth32.hi4, idx[7]);
    __m512i ac, as = csa32(row[0], row[1], row[2], &ac);
    as = csa32(as, ac, row[3], &ac);
    as = csa32(as, ac, lo4, &ac);
    __m512i bc, bs = csa32(row[4], row[5], row[6], &bc);
    bs = csa32(bs, bc, row[7], &bc);
    bs = csa32(bs, bc, hi4, &bc);
    __m512i cc, cs = csa32(as, ac, bs, &cc);
    __m512i carry, sum = csa32(cs, cc, bc, &carry);
    __m512i low = _mm512_sub_epi32(_mm512_sllv_epi32(_mm512_set1_epi32(1), s), _mm512_set1_epi32(1));
    __m512i lows = _mm512_add_epi32(
        _mm512_add_epi32(_mm512_and_si512(sum, low), _mm512_and_si512(carry, low)),
        _mm512_and_si512(_mm512_set1_epi32((int32_t)0xaaab0000u), low));
    __m512i from20 = _mm512_maskz_mov_epi32(
        _mm512_cmpge_epi32_mask(s, _mm512_set1_epi32(20)), _mm512_set1_epi32(1));
    return _mm512_sub_epi32(from20, _mm512_srlv_epi32(lows, s));
}

/* Lanes whose alignment s is 8, 12 or 16: the products whose Booth carry
 * booth_carries gives.  Every alignment is a multiple of 4 (exponent parts
 * and so tops are), so those are the lanes with s - 8 at most 8 unsigned. */
AVX512_FMA static inline __mmask32 aligned_8_to_16(__m512i s)
{
    return _mm512_cmple_epu16_mask(_mm512_sub_epi16(s, _mm512_set1_epi16(8)), _mm512_set1_epi16(8));
}

/* Products of one data value (mantissa dm) with the kernels' km aligned by
 * 8 bits or more (lanes in more, s their alignments), the cell's slots from
 * base on, settled in the row's byte counters (signed: what to take off
 * each lane's sum, one step at most per value): the Booth carries of those
 * aligned by 8, 12 or 16 from the 16-bit array (one array over all 32
 * lanes, even for one such product, measured as quick as queueing the
 * few), and those aligned by 32 or more, which the array drops, give back
 * the FMA's -1 when negative; those aligned by 20 to 28 (a few a value) are
 * queued for the 32-bit array. */
AVX512_FMA static inline __m256i settle_value(const int16_t *km, int16_t dm, __m256i s,
                                              __mmask32 more, uint32_t base, __m256i carries,
                                              struct fp16_hard *hard)
{
    const __m256i one = _mm256_set1_epi8(1);
    __m512i s16 = _mm512_cvtepu8_epi16(s), w = _mm512_loadu_si512(km), d = _mm512_set1_epi16(dm);
    __mmask32 near = aligned_8_to_16(s16) & more;
    __mmask32 carry = booth_carries_of_value(dm, w, s16) & near;
    __mmask32 gone = _mm512_mask_cmpge_epu16_mask(more, s16, _mm512_set1_epi16(32));
    __mmask32 neg = _mm512_movepi16_mask(_mm512_xor_si512(w, d));
    carries = _mm256_mask_add_epi8(carries, carry, carries, one);
    carries = _mm256_mask_sub_epi8(carries, gone & neg, carries, one);
    if (more & ~near & ~gone)
        queue_hard(km, dm, s, more & ~near & ~gone, base, hard);
    return carries;
}

/* 32 products (lanes in far) onto the queue, in lane order: data and
 * weight mantissas d and w, alignments s (16-bit lanes), their cells' slots
 * base + lane (bytes); whole vectors are stored, as hard_append16 does. */
AVX512_FMA static inline void queue_small(struct fp16_hard *hard, __mmask32 far, __m512i d,
                                          __m512i w, __m512i s, __m256i lane, uint32_t base)
{
    uint32_t n = hard->n;
    for (unsigned h = 0; h < 2; h++) {
        __mmask16 m = (__mmask16)(far >> (16 * h));
        if (!m)
            continue;
        __m256i dh = h ? _mm512_extracti64x4_epi64(d, 1) : _mm512_extracti64x4_epi64(d, 0),
                wh = h ? _mm512_extracti64x4_epi64(w, 1) : _mm512_extracti64x4_epi64(w, 0),
                sh = h ? _mm512_extracti64x4_epi64(s, 1) : _mm512_extracti64x4_epi64(s, 0);
        __m128i lh = h ? _mm256_extracti128_si256(lane, 1) : _mm256_castsi256_si128(lane);
        __m512i slot = _mm512_add_epi32(_mm512_cvtepu8_epi32(lh), _mm512_set1_epi32((int)base));
        _mm512_storeu_si512(hard->d + n, _mm512_maskz_compress_epi32(m, _mm512_cvtepi16_epi32(dh)));
        _mm512_storeu_si512(hard->w + n, _mm512_maskz_compress_epi32(m, _mm512_cvtepi16_epi32(wh)));
        _mm512_storeu_si512(hard->shift + n,
                            _mm512_maskz_compress_epi32(m, _mm512_cvtepi16_epi32(sh)));
        _mm512_storeu_si512(hard->cell + n, _mm512_maskz_compress_epi32(m, slot));
        n += (uint32_t)__builtin_popcount(m);
    }
    hard->n = n;
}

/* The lanes' entries in a chunk of the cell's small weights (32 entries
 * from the cell's entry e on; the entries are lane-major, lane l's from
 * lanes_at[l] to lanes_at[l + 1]): bit i of lane l % 16 of mask[l / 16]
 * set when entry e + i is lane l's.  The same for every row of the cell. */
AVX512_FMA static inline void chunk_lanes(const uint16_t *lanes_at, uint32_t e, __m512i mask[2])
{
    const __m512i ev = _mm512_set1_epi16((short)e), most = _mm512_set1_epi16(32);
    __m512i lo = _mm512_min_epu16(_mm512_subs_epu16(_mm512_loadu_si512(lanes_at), ev), most);
    __m512i hi = _mm512_min_epu16(_mm512_subs_epu16(_mm512_loadu_si512(lanes_at + 1), ev), most);
    const __m512i one = _mm512_set1_epi32(1);
    for (unsigned q = 0; q < 2; q++) { /* bits lo to hi - 1 (a shift by 32 gives 0) */
        __m512i lo32 = _mm512_cvtepu16_epi32(q ? _mm512_extracti64x4_epi64(lo, 1)
                                               : _mm512_castsi512_si256(lo));
        __m512i hi32 = _mm512_cvtepu16_epi32(q ? _mm512_extracti64x4_epi64(hi, 1)
                                               : _mm512_castsi512_si256(hi));
        mask[q] = _mm512_sub_epi32(_mm512_sllv_epi32(one, hi32), _mm512_sllv_epi32(one, lo32));
    }
}

/* Per lane, what a chunk's products with one row take off the lane's sum
 * (bytes): one for each Booth carry (entries in carry), less one for each
 * negative product aligned by 32 bits or more (in back, rare: the array
 * gives 0, the FMA counted -1), counted through the chunk's lane masks; the
 * two halves' 32-bit counts packed into bytes by one permute. */
AVX512_FMA static inline __m256i lane_counts(const __m512i mask[2], __mmask32 carry,
                                             __mmask32 back)
{
    const __m512i c = _mm512_set1_epi32((int)carry);
    __m512i count[2];
    for (unsigned q = 0; q < 2; q++)
        count[q] = _mm512_popcnt_epi32(_mm512_and_si512(mask[q], c));
    if (back) {
        const __m512i b = _mm512_set1_epi32((int)back);
        for (unsigned q = 0; q < 2; q++)
            count[q] = _mm512_sub_epi32(count[q], _mm512_popcnt_epi32(_mm512_and_si512(mask[q], b)));
    }
    /* byte 0 of each 32-bit lane, the first vector's then the second's */
    const __m512i low_bytes = _mm512_set_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 124, 120, 116, 112, 108, 104, 100, 96, 92, 88, 84, 80, 76, 72, 68, 64, 60, 56, 52,
        48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0);
    return _mm512_castsi512_si256(_mm512_permutex2var_epi8(count[0], low_bytes, count[1]));
}

/* The cell's products with the block's small weights (8 or more below
 * their lane's kmax: the cell's loop leaves them out), 32 entries at a
 * time against each row holding a value: each one's data value and
 * exponent part fetched from the row's by permutes and its alignment from
 * the kernel's top; those aligned by 8, 12 or 16 take the 16-bit Booth
 * array's carry (the chunk's weights recoded once for every row:
 * booth16_recode_both) and those by 32 or more give back the FMA's -1 for a
 * negative product, both counted into the rows' byte counters (no branch
 * on the count: lane_counts), the rest are queued. */
AVX512_FMA static inline void settle_small(const struct cmac_fp16_fma_rows *rows,
                                           const struct cmac_fp16_fma_block *k, size_t off,
                                           uint32_t nj, uint32_t cell, const __m256i top[R],
                                           __m256i carries[R], struct fp16_hard *hard)
{
    uint32_t e0 = k->small_first[cell], end = k->small_first[cell + 1];
    if (e0 == end)
        return;
    const uint16_t *lanes_at = k->small_lanes + (size_t)(L + 1) * cell;
    __mmask64 in_cell = nj >= 64 ? ~0ull : (1ull << nj) - 1;
    for (uint32_t e = e0; e < end; e += 32) {
        __mmask32 live = end - e >= 32 ? ~0u : (1u << (end - e)) - 1;
        __m512i at = _mm512_castsi256_si512(_mm256_maskz_loadu_epi8(live, k->small_at + e));
        __m512i lane = _mm512_castsi256_si512(_mm256_maskz_loadu_epi8(live, k->small_lane + e));
        __m256i kh = _mm256_maskz_loadu_epi8(live, k->small_h + e);
        __m512i w = _mm512_maskz_loadu_epi16(live, k->small_m + e);
        __m512i at16 = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(at));
        struct booth16_both digits;
        booth16_recode_both(w, &digits);
        __m512i mask[2];
        chunk_lanes(lanes_at, e - e0, mask);
        for (unsigned r = 0; r < R; r++) {
            if (!rows->cell[R * cell + r].nonzero) /* a row of padding has no products */
                continue;
            __m512i dh = _mm512_maskz_loadu_epi8(in_cell, rows->h[r] + off);
            __m512i dm_lo = _mm512_maskz_loadu_epi16((__mmask32)in_cell, rows->m[r] + off);
            __m512i dm_hi =
                _mm512_maskz_loadu_epi16((__mmask32)(in_cell >> 32), rows->m[r] + off + 32);
            /* top - (h + 64) - dh */
            __m512i s = _mm512_cvtepi8_epi16(_mm256_sub_epi8(
                _mm256_sub_epi8(_mm512_castsi512_si256(_mm512_permutexvar_epi8(
                                    lane, _mm512_castsi256_si512(top[r]))),
                                kh),
                _mm512_castsi512_si256(_mm512_permutexvar_epi8(at, dh))));
            __m512i d = _mm512_permutex2var_epi16(dm_lo, at16, dm_hi);
            __mmask32 real = _mm512_mask_test_epi16_mask(live, d, d);
            __mmask32 near = aligned_8_to_16(s) & real;
            __mmask32 gone = _mm512_mask_cmpge_epi16_mask(real, s, _mm512_set1_epi16(32));
            __mmask32 far = _mm512_mask_cmpgt_epi16_mask(real & ~gone, s, _mm512_set1_epi16(16));
            __mmask32 back = gone & _mm512_movepi16_mask(_mm512_xor_si512(d, w));
            carries[r] = _mm256_add_epi8(
                carries[r], lane_counts(mask, booth_carries_recoded(d, w, &digits, s) & near, back));
            if (far)
                queue_small(hard, far, d, w, s, _mm512_castsi512_si256(lane), L * (R * cell + r));
        }
    }
}

/* Row r's values in a cell (nj from off on): struct cmac_fp16_row_cell. */
AVX512_FMA static inline struct cmac_fp16_row_cell row_cell(const struct cmac_fp16_fma_rows *rows, unsigned r,
                                                  size_t off, uint32_t nj)
{
    __mmask64 in_cell = nj >= 64 ? ~0ull : (1ull << nj) - 1;
    /* a zero's h is 64 (struct cmac_fp16_fma_rows), the others 0 to 28 */
    __m512i h = _mm512_maskz_loadu_epi8(in_cell, rows->h[r] + off);
    __mmask64 nonzero = _mm512_mask_cmplt_epi8_mask(in_cell, h, _mm512_set1_epi8(64));
    /* h + 1 of the nonzero values, 0 elsewhere: the largest by halving */
    __m512i up = _mm512_maskz_add_epi8(nonzero, h, _mm512_set1_epi8(1));
    __m256i m256 = _mm256_max_epu8(_mm512_castsi512_si256(up), _mm512_extracti64x4_epi64(up, 1));
    __m128i m = _mm_max_epu8(_mm256_castsi256_si128(m256), _mm256_extracti128_si256(m256, 1));
    m = _mm_max_epu8(m, _mm_srli_si128(m, 8));
    m = _mm_max_epu8(m, _mm_srli_si128(m, 4));
    m = _mm_max_epu8(m, _mm_srli_si128(m, 2));
    m = _mm_max_epu8(m, _mm_srli_si128(m, 1));
    int top1 = _mm_cvtsi128_si32(m) & 0xff;
    struct cmac_fp16_row_cell rc = {.top = (int8_t)(top1 ? top1 - 1 : 0), .nonzero = nonzero};
    __m512i top = _mm512_set1_epi8(rc.top);
    rc.mask = top1 ? _mm512_mask_cmpeq_epi8_mask(nonzero, h, top) : ~0ull;
    rc.mid = _mm512_mask_cmpeq_epi8_mask(nonzero, _mm512_add_epi8(h, _mm512_set1_epi8(4)), top);
    rc.small = _mm512_mask_cmplt_epi8_mask(nonzero, _mm512_add_epi8(h, _mm512_set1_epi8(4)), top);
    rc.by8 = _mm512_mask_cmpeq_epi8_mask(nonzero, _mm512_add_epi8(h, _mm512_set1_epi8(8)), top);
    return rc;
}

/* The lanes whose kernel's largest value in the cell shares a value with
 * the row's largest (rc.mask against kmask): their top is the sum of the
 * two maxima. */
AVX512_FMA static inline __mmask32 tops_confirmed(const uint64_t *kmask, uint64_t mask)
{
    __m512i row = _mm512_set1_epi64((long long)mask);
    __mmask32 ok = 0;
    for (unsigned g = 0; g < G; g++)
        ok |= (__mmask32)_mm512_test_epi64_mask(_mm512_loadu_si512(kmask + 8 * g), row) << (8 * g);
    return ok;
}

/* Where row r's value at `at` has its row of carry8 (16 words a row): its
 * key, from its mantissa (the few values that look one up, a quarter of
 * a row's at most, work it out; the rows store none). */
static inline uint32_t carry_row(const struct cmac_fp16_fma_rows *rows, unsigned r, size_t at)
{
    return 16 * cmac_fp16_carry_key(rows->m[r][at]);
}

/* A confirmed row's value j 4 below the row's largest: its products with
 * the weights 4 below their kernel's largest (k->mid) are aligned by 8,
 * their carries carry8's bits (a byte permute fetches each lane's byte of
 * the data value's row, a test against the weight's bit selects the bit),
 * counted in the row's byte counters; the others are aligned by 4 or less,
 * or are the small weights' (settle_small).  No branch: a quarter of a
 * row's values take this. */
AVX512_FMA static inline __m256i carries8(const struct cmac_fp16_fma_rows *rows, unsigned r,
                                          const struct cmac_fp16_fma_block *k,
                                          const uint32_t *carry8, size_t off, uint32_t j,
                                          __mmask32 lanes, __m256i carries)
{
    size_t at = L * (off + j);
    const uint32_t *row = carry8 + carry_row(rows, r, off + j);
    __m256i idx = _mm256_loadu_si256((const __m256i *)(k->idx + at));
    __m256i bit = _mm256_loadu_si256((const __m256i *)(k->bit + at));
    __m256i byte = _mm256_permutex2var_epi8(_mm256_loadu_si256((const __m256i *)row), idx,
                                            _mm256_loadu_si256((const __m256i *)(row + 8)));
    __mmask32 carry = _mm256_mask_test_epi8_mask(lanes, byte, bit);
    return _mm256_mask_add_epi8(carries, carry, carries, _mm256_set1_epi8(1));
}

/* Two such values, j0 and j1, of a row at once (j1's lanes only when
 * second): their two 512-bit rows of carry8 are the two tables of one
 * 64-byte permute (j1's lanes in the upper half, their indices' bit 6 set
 * to pick its row), counted in 64 byte counters, j0's lanes in the lower
 * half and j1's in the upper (each moves by one at most per value: the two
 * halves' sum is the row's). */
AVX512_FMA static inline __m512i mid_pair_carries(const struct cmac_fp16_fma_rows *rows, unsigned r,
                                              const struct cmac_fp16_fma_block *k,
                                              const uint32_t *carry8, size_t off, uint32_t j0,
                                              uint32_t j1, bool second, __m512i carries)
{
    size_t at0 = L * (off + j0), at1 = L * (off + j1);
    __m512i row0 = _mm512_loadu_si512(carry8 + carry_row(rows, r, off + j0));
    __m512i row1 = _mm512_loadu_si512(carry8 + carry_row(rows, r, off + j1));
    __m512i idx = _mm512_inserti64x4(
        _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(k->idx + at0))),
        _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(k->idx + at1)), _mm256_set1_epi8(64)),
        1);
    __m512i bit = _mm512_inserti64x4(
        _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(k->bit + at0))),
        _mm256_loadu_si256((const __m256i *)(k->bit + at1)), 1);
    __mmask64 lanes = (uint64_t)k->mid8[off + j0] | (uint64_t)(second ? k->mid8[off + j1] : 0) << 32;
    __mmask64 carry = _mm512_mask_test_epi8_mask(lanes, _mm512_permutex2var_epi8(row0, idx, row1), bit);
    return _mm512_mask_add_epi8(carries, carry, carries, _mm512_set1_epi8(1));
}

/* Row r's values 4 below its largest in `mid`, two at a time (an odd one
 * last with no second: no branch on the count's parity). */
AVX512_FMA static inline __m256i mid_values_carries(const struct cmac_fp16_fma_rows *rows,
                                                    unsigned r,
                                                    const struct cmac_fp16_fma_block *k,
                                                    const uint32_t *carry8, size_t off,
                                                    uint64_t mid, __m256i carries)
{
    __m512i pairs = _mm512_setzero_si512();
    while (mid) {
        uint32_t j0 = (uint32_t)__builtin_ctzll(mid);
        mid &= mid - 1;
        bool second = mid != 0;
        uint32_t j1 = second ? (uint32_t)__builtin_ctzll(mid) : j0;
        mid &= mid - 1;
        pairs = mid_pair_carries(rows, r, k, carry8, off, j0, j1, second, pairs);
    }
    return _mm256_add_epi8(carries, _mm256_add_epi8(_mm512_castsi512_si256(pairs),
                                                    _mm512_extracti64x4_epi64(pairs, 1)));
}

/* A confirmed row's value j exactly 8 below the row's largest: against the
 * weights at their kernel's largest its products are aligned by 8
 * (carries8), against those 4 below by 12 and the quiet small weights 8
 * below by 16 (struct cmac_fp16_fma_block: not among the small ones;
 * both queued for the 16-bit array, cmac_fp16_hard_carries, a few a
 * value), the other small weights' are settle_small's.  Only the lanes
 * of k->by8 may take a carry (the others' low bits are clear).  Half of
 * a row's values 8 or more below are these. */
AVX512_FMA static inline __m256i by8_carries(const struct cmac_fp16_fma_rows *rows, unsigned r,
                                             const struct cmac_fp16_fma_block *k,
                                             const uint32_t *carry8, size_t off, uint32_t j,
                                             uint32_t cell, __m256i carries,
                                             struct fp16_hard *hard)
{
    size_t at = L * (off + j);
    __m256i wh = _mm256_loadu_si256((const __m256i *)(k->h + at));
    __m256i kmax = _mm256_loadu_si256((const __m256i *)(k->kmax + L * cell));
    __mmask32 lanes = (__mmask32)k->by8[off + j];
    __mmask32 at_max = _mm256_mask_cmpeq_epi8_mask(lanes, wh, kmax);
    /* the rest are 4 below (aligned by 12) or quiet, 8 below (by 16) */
    __mmask32 quiet = _mm256_cmpeq_epi8_mask(_mm256_add_epi8(wh, _mm256_set1_epi8(8)), kmax);
    if (lanes & ~at_max)
        queue_hard(k->m + at, rows->m[r][off + j],
                   _mm256_mask_blend_epi8(quiet, _mm256_set1_epi8(12), _mm256_set1_epi8(16)),
                   lanes & ~at_max, L * (R * cell + r), hard);
    return carries8(rows, r, k, carry8, off, j, at_max, carries);
}

/* A confirmed row's value j 8 or more below the row's largest: every
 * product with a weight that is not small is aligned by 8 or more
 * (settle_value; the small weights' are settle_small's). */
AVX512_FMA static inline __m256i small_value_carries(const struct cmac_fp16_fma_rows *rows,
                                                     unsigned r,
                                                     const struct cmac_fp16_fma_block *k,
                                                     size_t off, uint32_t j, uint32_t cell,
                                                     __m256i top, __m256i carries,
                                                     struct fp16_hard *hard)
{
    __mmask32 big = (__mmask32)~k->small[off + j];
    __m256i wh = _mm256_loadu_si256((const __m256i *)(k->h + L * (off + j)));
    __m256i h = _mm256_add_epi8(wh, _mm256_set1_epi8(rows->h[r][off + j]));
    /* at or below top - 8 unsigned: aligned by 8 or more, no zero weight */
    __mmask32 more = _mm256_mask_cmple_epu8_mask(big, h, _mm256_sub_epi8(top, _mm256_set1_epi8(8)));
    return settle_value(k->m + L * (off + j), rows->m[r][off + j], _mm256_sub_epi8(top, h), more,
                        L * (R * cell + r), carries, hard);
}

/* Row r's products with value j of the block's kernels that the cell's
 * FMAs floored but whose Booth carry they lack, except the small weights'
 * (settle_small): those aligned by 8 bits by carry8 (a byte permute fetches
 * each lane's byte of the data value's row, a test against the weight's bit
 * selects the bit), those by 12 or more by settle_value; the carries go to
 * the row's byte counters (a lane moves by one at most per value, by 64 in
 * all). */
AVX512_FMA static inline __m256i value_carries(const struct cmac_fp16_fma_rows *rows, unsigned r,
                                               const struct cmac_fp16_fma_block *k,
                                               const uint32_t *carry8, size_t off, uint32_t j,
                                               uint32_t cell, __m256i top, __m256i carries,
                                               struct fp16_hard *hard)
{
    const uint8_t *kh = k->h + L * off, *kidx = k->idx + L * off, *kbit = k->bit + L * off;
    __m256i top8 = _mm256_sub_epi8(top, _mm256_set1_epi8(8));
    __mmask32 big = (__mmask32)~k->small[off + j];
    __m256i wh = _mm256_loadu_si256((const __m256i *)(kh + L * j));
    __m256i h = _mm256_add_epi8(wh, _mm256_set1_epi8(rows->h[r][off + j]));
    __mmask32 by8 = _mm256_mask_cmpeq_epi8_mask(big, h, top8);
    if (by8) {
        const uint32_t *row = carry8 + carry_row(rows, r, off + j);
        __m256i idx = _mm256_loadu_si256((const __m256i *)(kidx + L * j));
        __m256i bit = _mm256_loadu_si256((const __m256i *)(kbit + L * j));
        __m256i byte = _mm256_permutex2var_epi8(_mm256_loadu_si256((const __m256i *)row), idx,
                                                _mm256_loadu_si256((const __m256i *)(row + 8)));
        __mmask32 carry = _mm256_mask_test_epi8_mask(by8, byte, bit);
        carries = _mm256_mask_add_epi8(carries, carry, carries, _mm256_set1_epi8(1));
    }
    /* below top - 8 unsigned: aligned by 12 or more, no zero operand */
    __mmask32 more = _mm256_mask_cmplt_epu8_mask(big, h, top8);
    if (more)
        carries = settle_value(k->m + L * (off + j), rows->m[r][off + j], _mm256_sub_epi8(top, h),
                               more, L * (R * cell + r), carries, hard);
    return carries;
}

/* Row r's top for every lane of the cell the long way: the largest h + 64
 * of a product with no zero operand, 64 when none (the lanes the maxima did
 * not confirm).  Every value of the cell is visited, a fixed count: a
 * zero's h (64 for a data value, 0x80 for a weight) makes every sum with
 * it negative as a signed byte (128 to 156, or 0x80 plus 0 to 28 or 64),
 * below any top, while the others' sums are 64 to 120. */
AVX512_FMA static inline __m256i tops_exact(const struct cmac_fp16_fma_rows *rows, unsigned r,
                                            const struct cmac_fp16_fma_block *k, size_t off,
                                            uint32_t nj)
{
    __m256i top = _mm256_set1_epi8(HIGH_BIAS);
    for (uint32_t j = 0; j < nj; j++) {
        __m256i wh = _mm256_loadu_si256((const __m256i *)(k->h + L * (off + j)));
        top = _mm256_max_epi8(top, _mm256_add_epi8(wh, _mm256_set1_epi8(rows->h[r][off + j])));
    }
    return top;
}

/* The FMAs' starting accumulator, 1.5 * 2^(52 + top), for group g's 8
 * lanes of a top vector (bytes, top + HIGH_BIAS): exponent field top +
 * 1075, fraction 2^51. */
AVX512_FMA static inline __m512i group_start(__m256i top, unsigned g)
{
    __m512i field = _mm512_add_epi64(group_bytes(top, g), _mm512_set1_epi64(1075 - HIGH_BIAS));
    return _mm512_or_si512(_mm512_slli_epi64(field, 52), _mm512_set1_epi64(1ll << 51));
}

/* Every row's starting accumulators (group_start) into start[r][g]: a
 * confirmed row's top is the kernel's largest plus the row's, so its
 * starts are the kernels' (kmax, once a cell) with the row's part added
 * to the exponent field, one add a group (the starts lane by lane were
 * some 300 vector operations a cell beside the FMAs' 2,048, on the same
 * two ports); the rows in `unconfirmed` (bit r) from their tops. */
AVX512_FMA static inline void fma_starts(const struct cmac_fp16_fma_rows *rows, uint32_t cell,
                                         __m256i kmax, const __m256i top[R],
                                         unsigned unconfirmed, __m512i start[R][G])
{
    __m512i kstart[G];
    for (unsigned g = 0; g < G; g++)
        kstart[g] = group_start(kmax, g);
    for (unsigned r = 0; r < R; r++) {
        __m512i up = _mm512_set1_epi64((long long)rows->cell[R * cell + r].top << 52);
        for (unsigned g = 0; g < G; g++)
            start[r][g] = unconfirmed >> r & 1 ? group_start(top[r], g)
                                               : _mm512_add_epi64(kstart[g], up);
    }
}

/* The FMAs of one cell for kernels 16 * half to 16 * half + 15 (kw: their
 * weights of the cell's first value, 16 a value), every row at once: 16
 * accumulators S = 1.5 * 2^(52 + top) (start) take value after value of
 * the live ones, each weight load shared by the R rows.  S stays in its
 * binade, where its bits less its starting bits are T, the sum so far (the
 * header): so each lane's starting bits plus its carries go to total
 * before the loop, and after it total becomes S's bits less that, one
 * subtraction a vector. */
AVX512_FMA static inline void fma_half(const struct cmac_fp16_fma_rows *rows, const double *kw,
                                       const __m512i start[R][G], const int8_t carried[R][L],
                                       uint64_t live, size_t off, uint32_t cell, unsigned half,
                                       int64_t *total)
{
    __m512d acc[R][2];
    for (unsigned r = 0; r < R; r++)
        for (unsigned q = 0; q < 2; q++) {
            unsigned g = 2 * half + q;
            size_t at = (size_t)L * (R * cell + r) + 8 * g;
            acc[r][q] = _mm512_castsi512_pd(start[r][g]);
            __m512i carries =
                _mm512_cvtepi8_epi64(_mm_loadl_epi64((const __m128i *)(carried[r] + 8 * g)));
            _mm512_storeu_si512(total + at, _mm512_add_epi64(start[r][g], carries));
        }
    const double *d[R];
    for (unsigned r = 0; r < R; r++)
        d[r] = rows->d[r] + off;
    for (uint64_t v = live; v; v &= v - 1) {
        uint32_t j = (uint32_t)__builtin_ctzll(v);
        __m512d w0 = _mm512_loadu_pd(kw + 16 * j), w1 = _mm512_loadu_pd(kw + 16 * j + 8);
        for (unsigned r = 0; r < R; r++) {
            __m512d x = _mm512_set1_pd(d[r][j]);
            acc[r][0] = _mm512_fmadd_round_pd(w0, x, acc[r][0], ROUND_DOWN);
            acc[r][1] = _mm512_fmadd_round_pd(w1, x, acc[r][1], ROUND_DOWN);
        }
    }
    for (unsigned r = 0; r < R; r++)
        for (unsigned q = 0; q < 2; q++) {
            size_t at = (size_t)L * (R * cell + r) + 8 * (2 * half + q);
            _mm512_storeu_si512(total + at, _mm512_sub_epi64(_mm512_castpd_si512(acc[r][q]),
                                                             _mm512_loadu_si512(total + at)));
        }
}

/* Whether the cell's corrections cost less bit-sliced, every product of
 * the cell through the Booth array (cmac_fp16_sliced_cell), than settled
 * the other ways (estimated in vector operations: a value 4 below its
 * row's largest 12, 8 below 40, further below or in a row whose top is not
 * confirmed 250, and the small weights, cmac_fp16_small_cost), when the
 * pass has the planes it reads (conv.h).  Real data
 * (exponents a few apart, some subnormals) stays with the other ways; a
 * cell of exponents spread over the whole range goes bit-sliced, 10x
 * quicker (measured on the bench's two layers). */
AVX512_FMA static inline bool sliced_pays(const struct cmac_fp16_fma_block *k, uint32_t cell,
                                          uint32_t nj, const uint64_t mid[R],
                                          const uint64_t by8[R], const uint64_t small[R],
                                          const uint64_t any[R])
{
    if (!k->planes)
        return false;
    if (k->all_sliced)
        return true;
    uint32_t by_value = 0;
    for (unsigned r = 0; r < R; r++)
        by_value += 12 * (uint32_t)__builtin_popcountll(mid[r]) +
                    40 * (uint32_t)__builtin_popcountll(by8[r]) +
                    250 * (uint32_t)__builtin_popcountll(small[r] | any[r]);
    uint32_t smalls = k->small_first[cell + 1] - k->small_first[cell];
    return by_value + cmac_fp16_small_cost(smalls) > cmac_fp16_sliced_cost(nj);
}

/* The cell's corrections, bit-sliced, into the rows' byte counters, and
 * the tops of the rows in `unconfirmed` (bit r), which the bit-sliced cell
 * works out on the way, cheaper than tops_exact. */
AVX512_FMA static inline void sliced_carries(const struct cmac_fp16_fma_rows *rows,
                                             const struct cmac_fp16_fma_block *k, size_t off,
                                             uint32_t nj, unsigned unconfirmed, __m256i top[R],
                                             int8_t carried[R][L])
{
    uint8_t tops[R][L];
    const int16_t *dm[R];
    const int8_t *dh[R];
    for (unsigned r = 0; r < R; r++) {
        dm[r] = rows->m[r] + off;
        dh[r] = rows->h[r] + off;
    }
    cmac_fp16_sliced_cell(dm, dh, nj, k->planes, off, k->planes_stride, tops, carried);
    for (unsigned r = 0; r < R; r++)
        if (unconfirmed >> r & 1)
            top[r] = _mm256_loadu_si256((const __m256i *)tops[r]);
}

/* One cell (values from off on, nj of them) of the R rows against the
 * block's L kernels: sums and exponents into total and mx at slot L * (R *
 * cell + row) + lane, harder products onto the queue.
 *
 * A lane's top is the row's largest exponent part plus the kernel's when a
 * value holds both (tops_confirmed), which is nearly always; then a
 * product's alignment is its data value's distance below the row's
 * largest (a) plus its weight's below the kernel's (b), and only a + b >= 8
 * needs a carry: b >= 8, the block's small weights, settle_small takes cell
 * by cell; the rest has a >= 4, the row's mid and small values, which
 * value_carries takes.  Values with a = 0 need nothing beyond the FMAs.  A
 * row with a lane not confirmed gets its tops the long way and every value
 * of it goes through value_carries.  The rows share each load of the
 * kernels' values. */
AVX512_FMA static inline void cell_rows(const struct cmac_fp16_fma_rows *rows,
                                        const struct cmac_fp16_fma_block *k,
                                        const uint32_t *carry8, size_t depth, size_t off,
                                        uint32_t nj, uint32_t cell, int64_t *total, uint8_t *mx,
                                        struct fp16_hard *hard)
{
    const __m256i kmax = _mm256_loadu_si256((const __m256i *)(k->kmax + L * cell));
    const uint64_t *kmask = k->kmask + (size_t)L * cell;
    /* the values (bit v) with a mid8 or a by8 lane: one in seven values of
     * data with full mantissas has no mid8 weight, the bench layer's none
     * at all, and by8 ones in one value in ten */
    const uint64_t mid_weights = k->cell_values[2 * cell];
    const uint64_t by8_weights = k->cell_values[2 * cell + 1];
    __m256i top[R];
    /* per row the values to settle as a mid, a small or any value */
    uint64_t mid[R], by8[R], small[R], any[R], live = 0;
    unsigned unconfirmed = 0; /* bit r: row r's tops the long way, below */
    for (unsigned r = 0; r < R; r++) {
        struct cmac_fp16_row_cell rc = rows->cell[R * cell + r];
        live |= rc.nonzero;
        bool confirmed = tops_confirmed(kmask, rc.mask) == ~0u;
        top[r] = _mm256_add_epi8(kmax, _mm256_set1_epi8(rc.top));
        unconfirmed |= (unsigned)!confirmed << r;
        mid[r] = confirmed ? rc.mid & mid_weights : 0;
        by8[r] = confirmed ? rc.by8 & by8_weights : 0;
        small[r] = confirmed ? rc.small & ~rc.by8 : 0;
        any[r] = confirmed ? 0 : rc.nonzero;
    }
    int8_t carried[R][L]; /* the byte counters of each row's carries */
    bool sliced = sliced_pays(k, cell, nj, mid, by8, small, any);
    if (sliced) {
        sliced_carries(rows, k, off, nj, unconfirmed, top, carried);
    } else {
        __m256i carries[R];
        for (unsigned r = 0; r < R; r++) {
            if (unconfirmed >> r & 1)
                top[r] = tops_exact(rows, r, k, off, nj);
            carries[r] = _mm256_setzero_si256();
            carries[r] = mid_values_carries(rows, r, k, carry8, off, mid[r], carries[r]);
            for (uint64_t v = by8[r]; v; v &= v - 1)
                carries[r] = by8_carries(rows, r, k, carry8, off, (uint32_t)__builtin_ctzll(v),
                                         cell, carries[r], hard);
            for (uint64_t v = small[r]; v; v &= v - 1)
                carries[r] = small_value_carries(rows, r, k, off, (uint32_t)__builtin_ctzll(v),
                                                 cell, top[r], carries[r], hard);
            for (uint64_t v = any[r]; v; v &= v - 1)
                carries[r] = value_carries(rows, r, k, carry8, off, (uint32_t)__builtin_ctzll(v),
                                           cell, top[r], carries[r], hard);
        }
        settle_small(rows, k, off, nj, cell, top, carries, hard);
        for (unsigned r = 0; r < R; r++)
            _mm256_storeu_si256((__m256i *)carried[r], carries[r]);
    }
    for (unsigned r = 0; r < R; r++)
        _mm256_storeu_si256((__m256i *)(mx + (size_t)L * (R * cell + r)),
                            _mm256_sub_epi8(top[r], _mm256_set1_epi8(HIGH_BIAS)));
    __m512i start[R][G];
    fma_starts(rows, cell, kmax, top, unconfirmed, start);
    for (unsigned half = 0; half < 2; half++)
        fma_half(rows, k->w + 16 * (depth * half + off), start, carried, live, off, cell, half,
                 total);
}

AVX512_FMA void cmac_fp16_fma_row_cells(const struct conv_operands *ops,
                                        const struct cmac_fp16_fma_rows *rows,
                                        struct cmac_fp16_row_cell *out)
{
    uint32_t cell = 0;
    for (uint32_t c0 = 0; c0 < ops->c; c0 += ops->seg_len) {
        uint32_t nj = ops->c - c0 < ops->seg_len ? ops->c - c0 : ops->seg_len;
        for (uint32_t t = 0; t < ops->taps; t++, cell++) {
            size_t off = (size_t)ops->taps * c0 + (size_t)t * nj;
            for (unsigned r = 0; r < R; r++)
                out[R * cell + r] = row_cell(rows, r, off, nj);
        }
    }
}

AVX512_FMA uint32_t cmac_fp16_cells_fma(const struct conv_operands *ops, uint32_t first,
                                        const struct cmac_fp16_fma_rows *rows,
                                        const struct cmac_fp16_fma_block *k,
                                        const uint32_t *carry8, int64_t *total, uint8_t *mx,
                                        struct fp16_hard *hard)
{
    pthread_once(&booth16_once, booth_tables_fill);
    uint32_t cells = 0;
    for (uint32_t c0 = 0; c0 < ops->c; c0 += ops->seg_len) {
        uint32_t nj = ops->c - c0 < ops->seg_len ? ops->c - c0 : ops->seg_len;
        for (uint32_t t = 0; t < ops->taps; t++, cells++) {
            if (cells < first)
                continue;
            if ((uint64_t)hard->n + (uint64_t)R * L * (nj + 1) > hard->cap)
                return cells;
            size_t off = (size_t)ops->taps * c0 + (size_t)t * nj;
            cell_rows(rows, k, carry8, ops->depth, off, nj, cells, total, mx, hard);
        }
    }
    return cells;
}

/* ---------------------------------------------------------------- CACC */

/* The lanes of 32 partial sums (4 vectors from t on) that are not zero. */
AVX512_FMA static inline __mmask32 nonzero32(const int64_t *t)
{
    __mmask32 nz = 0;
    for (unsigned g = 0; g < G; g++) {
        __m512i v = _mm512_loadu_si512(t + 8 * g);
        nz |= (__mmask32)_mm512_test_epi64_mask(v, v) << (8 * g);
    }
    return nz;
}

/* The sums of the cells' partial sums (cell c of lane l at stride * c + l
 * of total, its exponent at the same place of mx) at the scale of base,
 * into sum, and the lanes where a partial sum leaves -limit <= sum <
 * limit into *bad (their least and largest kept and compared once: a
 * compare per partial sum and its mask moved to a register took a fifth
 * of this); shifted false when every cell's exponent is base (no shifts).
 * A zero cell adds nothing, whatever its shift. */
AVX512_FMA static inline void exact_sums(const uint8_t *mx, const int64_t *total, uint32_t cells,
                                         size_t stride, __m256i base, bool shifted,
                                         __m512i sum[G], __mmask32 *bad)
{
    const __m512i limit = _mm512_set1_epi64(CMAC_FP16_EXACT_LIMIT);
    __m512i least[G], most[G];
    for (unsigned g = 0; g < G; g++)
        sum[g] = least[g] = most[g] = _mm512_setzero_si512();
    for (uint32_t c = 0; c < cells; c++) {
        const int64_t *t = total + stride * c;
        __m256i sh = _mm256_sub_epi8(_mm256_loadu_si256((const __m256i *)(mx + stride * c)), base);
        for (unsigned g = 0; g < G; g++) {
            __m512i cell = _mm512_loadu_si512(t + 8 * g);
            if (shifted)
                cell = _mm512_sllv_epi64(cell, group_bytes(sh, g));
            sum[g] = _mm512_add_epi64(sum[g], cell);
            least[g] = _mm512_min_epi64(least[g], sum[g]);
            most[g] = _mm512_max_epi64(most[g], sum[g]);
        }
    }
    for (unsigned g = 0; g < G; g++)
        *bad |= (__mmask32)(_mm512_cmpge_epi64_mask(most[g], limit) |
                            _mm512_cmplt_epi64_mask(least[g], _mm512_sub_epi64(
                                                                  _mm512_setzero_si512(), limit)))
                << (8 * g);
}

/* CACC's exact case (cmac_fp16.c) for 32 lanes at once, the cells'
 * exponents as bytes.  Nearly always a lane's cells share one exponent
 * (their tops are a kernel's largest plus a row's, the same in every cell
 * of real data): then that is the scale, and the sums need no shifts.
 * Else per lane the smallest and largest exponents of a nonzero cell
 * (base, and the span between them checked once), and the cells' sums
 * shifted to base.  Every partial sum is checked against the limits
 * (exact_sums).  The sums go to CACC's normalised form as the add to a
 * zero accumulator (fp16_acc_from_zero8; a lane without a nonzero cell,
 * or one that did not qualify, gives it a zero sum, whose result is 0). */
AVX512_FMA uint32_t cmac_fp16_fma_acc_exact(const uint8_t *mx, const int64_t *total,
                                            uint32_t cells, size_t stride, uint64_t acc[L])
{
    __m256i base = _mm256_loadu_si256((const __m256i *)mx);
    __mmask32 same = ~0u, bad = 0;
    for (uint32_t c = 1; c < cells; c++)
        same &= _mm256_cmpeq_epi8_mask(_mm256_loadu_si256((const __m256i *)(mx + stride * c)),
                                       base);
    __m512i sum[G];
    if (same == ~0u) {
        exact_sums(mx, total, cells, stride, base, false, sum, &bad);
    } else {
        __m256i top = _mm256_setzero_si256();
        __mmask32 seen = 0;
        base = _mm256_set1_epi8(-1); /* none yet */
        for (uint32_t c = 0; c < cells; c++) {
            __mmask32 nz = nonzero32(total + stride * c);
            __m256i e = _mm256_loadu_si256((const __m256i *)(mx + stride * c));
            base = _mm256_mask_min_epu8(base, nz, base, e);
            top = _mm256_mask_max_epu8(top, nz, top, e);
            seen |= nz;
        }
        bad = _mm256_mask_cmpgt_epu8_mask(seen, _mm256_sub_epi8(top, base),
                                          _mm256_set1_epi8(CMAC_FP16_EXACT_SPAN));
        exact_sums(mx, total, cells, stride, base, true, sum, &bad);
    }
    for (unsigned g = 0; g < G; g++) {
        __mmask8 good8 = (__mmask8)(~bad >> (8 * g));
        _mm512_storeu_si512(
            acc + 8 * g,
            fp16_acc_from_zero8(group_bytes(base, g), _mm512_maskz_mov_epi64(good8, sum[g])));
    }
    return ~bad;
}

/* ---------------------------------------------------------------- results */

/* Rows r[0-7] of 8 kernels' results transposed: r[l] becomes kernel l's
 * results of the 8 rows. */
AVX512_FMA static inline void transpose8x8(__m256i r[8])
{
    __m256i t[8], u[8];
    for (unsigned i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
    }
    for (unsigned i = 0; i < 8; i += 4) /* u[i + c]: columns c and c + 4 of rows i to i + 3 */
        for (unsigned c = 0; c < 4; c++)
            u[i + c] = c % 2 ? _mm256_unpackhi_epi64(t[i + c / 2], t[i + c / 2 + 2])
                             : _mm256_unpacklo_epi64(t[i + c / 2], t[i + c / 2 + 2]);
    for (unsigned c = 0; c < 4; c++) {
        r[c] = _mm256_permute2x128_si256(u[c], u[4 + c], 0x20);
        r[c + 4] = _mm256_permute2x128_si256(u[c], u[4 + c], 0x31);
    }
}

AVX512_FMA uint32_t cmac_fp16_fma_store8(const uint32_t *res, int32_t *out, size_t plane,
                                         uint32_t kernels)
{
    const __m256i magnitude = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    uint32_t nans = 0;
    for (uint32_t k0 = 0; k0 < kernels; k0 += 8) {
        __m256i r[8];
        for (unsigned i = 0; i < 8; i++)
            r[i] = _mm256_loadu_si256((const __m256i *)(res + (size_t)L * i + k0));
        transpose8x8(r);
        for (uint32_t l = 0; l < 8 && k0 + l < kernels; l++) {
            _mm256_storeu_si256((__m256i *)(out + (k0 + l) * plane), r[l]);
            nans += (uint32_t)__builtin_popcount(
                _mm256_cmpgt_epi32_mask(_mm256_and_si256(r[l], magnitude), inf));
        }
    }
    return nans;
}

/* ---------------------------------------------------------------- data rows */

/* 32 raw values (the lanes in live) as the FMAs' doubles, into d: the
 * value itself, m * 2^(h - 25), which vcvtph2ps gives exactly but for an
 * exponent field of 31 (an infinity or a NaN), which the MAC reads as a
 * number like the others: such a value is converted with its field one
 * lower and doubled.  (A zero's is 0; a negative zero's -0 adds nothing
 * either.) */
AVX512_FMA static inline void values_as_doubles(__m512i v, __mmask32 live, double *d)
{
    const __m512i field = _mm512_set1_epi16(0x7c00);
    __mmask32 top = _mm512_cmpeq_epi16_mask(_mm512_and_si512(v, field), field);
    v = _mm512_mask_sub_epi16(v, top, v, _mm512_set1_epi16(0x400));
    for (unsigned q = 0; q < 2; q++) {
        __m512 f = _mm512_cvtph_ps(q ? _mm512_extracti64x4_epi64(v, 1) : _mm512_castsi512_si256(v));
        for (unsigned o = 0; o < 2; o++) {
            unsigned at = 16 * q + 8 * o;
            __m256 half = _mm256_castpd_ps(o ? _mm512_extractf64x4_pd(_mm512_castps_pd(f), 1)
                                             : _mm512_castpd512_pd256(_mm512_castps_pd(f)));
            __m512d x = _mm512_cvtps_pd(half);
            x = _mm512_mask_add_pd(x, (__mmask8)(top >> at), x, x);
            _mm512_mask_storeu_pd(d + at, (__mmask8)(live >> at), x);
        }
    }
}

AVX512_FMA bool cmac_fp16_fma_decode(const int16_t *raw, size_t n, struct fp16_decoded *out,
                                     double *d)
{
    __mmask32 nan = 0;
    for (size_t v = 0; v < n; v += 32) {
        __mmask32 live = n - v >= 32 ? ~0u : (1u << (n - v)) - 1;
        /* CSC's rows come from memory (megabytes a layer, gathered before
         * the cells start): ask for them a kilobyte ahead */
        _mm_prefetch((const char *)(raw + v + 512), _MM_HINT_T0);
        __m512i value = _mm512_maskz_loadu_epi16(live, raw + v);
        struct fp16_lanes x = fp16_decode32(value);
        nan |= x.nan & live;
        /* a zero's exponent part: 64 (struct cmac_fp16_fma_rows) */
        __m512i h = _mm512_mask_mov_epi16(x.h, x.zero, _mm512_set1_epi16(64));
        _mm512_mask_storeu_epi16(out->m + v, live, x.m);
        _mm256_mask_storeu_epi8(out->h + v, live, _mm512_cvtepi16_epi8(h));
        values_as_doubles(value, live, d + v);
    }
    return nan != 0;
}

/* ---------------------------------------------------------------- kernel layout */

/* Value i of the block's 32 kernels (d, decoded) into its layout at
 * LANES * i, and small[i], the lanes of its weights whose exponent part is
 * 0 (struct cmac_fp16_fma_block). */
AVX512_FMA static inline void layout_value(struct fp16_lanes d, size_t i, size_t depth,
                                           const struct cmac_fp16_fma_block *k)
{
    size_t at = (size_t)L * i;
    _mm512_storeu_si512(k->m + at, d.m);
    __m512i h = _mm512_mask_mov_epi16(_mm512_add_epi16(d.h, _mm512_set1_epi16(HIGH_BIAS)), d.zero,
                                      _mm512_set1_epi16(0x80));
    _mm256_storeu_si256((__m256i *)(k->h + at), _mm512_cvtepi16_epi8(h));
    /* key = sign << 8 | low byte of |m|: its byte key >> 3 and bit key & 7 */
    __m512i idx = _mm512_srli_epi16(_mm512_and_si512(d.mag, _mm512_set1_epi16(0xff)), 3);
    idx = _mm512_mask_mov_epi16(idx, d.neg, _mm512_or_si512(idx, _mm512_set1_epi16(0x20)));
    __m512i bit = _mm512_sllv_epi16(_mm512_set1_epi16(1), _mm512_and_si512(d.mag, _mm512_set1_epi16(7)));
    _mm256_storeu_si256((__m256i *)(k->idx + at), _mm512_cvtepi16_epi8(idx));
    _mm256_storeu_si256((__m256i *)(k->bit + at), _mm512_cvtepi16_epi8(bit));
    /* w = m * 2^(h + 25), exact (a zero's h scales 0 to 0): the data's
     * doubles are the values, m * 2^(h - 25) (values_as_doubles) */
    __m512i m32[2] = {_mm512_cvtepi16_epi32(_mm512_castsi512_si256(d.m)),
                      _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(d.m, 1))};
    __m512i h25 = _mm512_add_epi16(d.h, _mm512_set1_epi16(25));
    __m512i h32[2] = {_mm512_cvtepi16_epi32(_mm512_castsi512_si256(h25)),
                      _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(h25, 1))};
    for (unsigned q = 0; q < 4; q++) {
        __m256i mq = q % 2 ? _mm512_extracti64x4_epi64(m32[q / 2], 1) : _mm512_castsi512_si256(m32[q / 2]);
        __m256i hq = q % 2 ? _mm512_extracti64x4_epi64(h32[q / 2], 1) : _mm512_castsi512_si256(h32[q / 2]);
        _mm512_storeu_pd(k->w + 16 * (depth * (q / 2) + i) + 8 * (q % 2),
                         _mm512_scalef_pd(_mm512_cvtepi32_pd(mq), _mm512_cvtepi32_pd(hq)));
    }
}

/* vpermt2w indices that gather value i (which 0) or i + 1 (which 1) of
 * 32 kernels from kernel_pairs' words of kernels 0-15 and 16-31. */
AVX512_FMA static __m512i values_of_32(unsigned which)
{
    uint16_t idx[32];
    for (unsigned t = 0; t < 32; t++)
        idx[t] = (uint16_t)(2 * t + which);
    return _mm512_loadu_si512(idx);
}

AVX512_FMA void cmac_fp16_fma_layout(const int16_t *raw, size_t depth, size_t kn,
                                     const struct cmac_fp16_fma_block *k)
{
    const __m512i starts = kernel_starts(depth), first = values_of_32(0), second = values_of_32(1);
    for (size_t i = 0; i < depth; i += 2) {
        __m512i lo = kernel_pairs(raw, depth, kn, starts, i);
        __m512i hi = kn > 16 ? kernel_pairs(raw + 16 * depth, depth, kn - 16, starts, i)
                             : _mm512_setzero_si512();
        layout_value(fp16_decode32(_mm512_permutex2var_epi16(lo, first, hi)), i, depth, k);
        if (i + 1 < depth)
            layout_value(fp16_decode32(_mm512_permutex2var_epi16(lo, second, hi)), i + 1, depth,
                         k);
    }
}

AVX512_FMA void cmac_fp16_fma_classify(const struct cmac_fp16_fma_block *k, size_t off,
                                       uint32_t nj, uint32_t cell)
{
    const __m256i top = _mm256_loadu_si256((const __m256i *)(k->kmax + L * cell));
    const __m256i zero = _mm256_set1_epi8((char)0x80);
    uint64_t with_mid8 = 0, with_by8 = 0;
    for (size_t v = off; v < off + nj; v++) {
        __m256i h = _mm256_loadu_si256((const __m256i *)(k->h + L * v));
        __m512i m = _mm512_loadu_si512(k->m + L * v);
        /* a signed m's low bits are clear when |m|'s are */
        __mmask32 low4 = _mm512_test_epi16_mask(m, _mm512_set1_epi16(0xf));
        __mmask32 low8 = _mm512_test_epi16_mask(m, _mm512_set1_epi16(0xff));
        __mmask32 nonzero = _mm256_cmpneq_epi8_mask(h, zero);
        __mmask32 at_max = _mm256_mask_cmpeq_epi8_mask(nonzero, h, top);
        __mmask32 mid = _mm256_mask_cmpeq_epi8_mask(
            nonzero, _mm256_add_epi8(h, _mm256_set1_epi8(4)), top);
        /* 8 below with the low byte clear (a zero's 0x80 + 8 is no top) */
        __mmask32 quiet = _mm256_cmpeq_epi8_mask(_mm256_add_epi8(h, _mm256_set1_epi8(8)), top) &
                          ~low8;
        /* h + 8 <= top: h <= top - 8 (tops are 64 or more) */
        __mmask32 below8 = _mm256_mask_cmple_epu8_mask(
            nonzero, h, _mm256_sub_epi8(top, _mm256_set1_epi8(8)));
        k->small[v] = below8 & ~quiet;
        k->by8[v] = (at_max & low4) | (mid & low8) | quiet;
        k->mid8[v] = mid & low4;
        with_mid8 |= (uint64_t)(k->mid8[v] != 0) << (v - off);
        with_by8 |= (uint64_t)(k->by8[v] != 0) << (v - off);
    }
    k->cell_values[2 * cell] = with_mid8;
    k->cell_values[2 * cell + 1] = with_by8;
}

/* 32 queue entries' 32-bit field as 16-bit lanes. */
AVX512_FMA static inline __m512i narrow32(const void *field, uint32_t k)
{
    const int32_t *f = (const int32_t *)field + k;
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi32_epi16(_mm512_loadu_si512(f))),
                              _mm512_cvtepi32_epi16(_mm512_loadu_si512(f + 16)), 1);
}

/* Queue entries k to k + 15 in `far` (aligned by 20 to 28) settled by the
 * 32-bit array. */
AVX512_FMA static inline void settle_far16(const struct fp16_hard *q, uint32_t k, __mmask16 far,
                                           int64_t *total)
{
    __m512i delta = booth32_deltas(_mm512_loadu_si512(q->d + k), _mm512_loadu_si512(q->w + k),
                                   _mm512_loadu_si512(q->shift + k));
    int32_t by[16];
    _mm512_storeu_si512(by, delta);
    for (__mmask16 m = _mm512_mask_test_epi32_mask(far, delta, delta); m; m &= m - 1) {
        uint32_t e = (uint32_t)__builtin_ctz(m);
        total[q->cell[k + e]] += by[e];
    }
}

AVX512_FMA uint32_t cmac_fp16_hard_carries(struct fp16_hard *q, int64_t *total)
{
    pthread_once(&booth16_once, booth_tables_fill);
    uint32_t n = q->n;
    for (uint32_t k = 0; k < n; k += 32) {
        __mmask32 live = n - k >= 32 ? ~0u : (1u << (n - k)) - 1;
        __m512i s = narrow32(q->shift, k);
        __mmask32 near = aligned_8_to_16(s) & live;
        __mmask32 carry = booth_carries(narrow32(q->d, k), narrow32(q->w, k), s) & near;
        for (; carry; carry &= carry - 1)
            total[q->cell[k + (uint32_t)__builtin_ctz(carry)]] -= 1;
        /* aligned by 32 or more the array gives 0, the FMA floor(P / 2^s):
         * -1 for a negative P (|P| < 2^28), 0 for a positive one */
        __mmask32 gone = _mm512_mask_cmpge_epu16_mask(live, s, _mm512_set1_epi16(32));
        __mmask32 neg = _mm512_movepi16_mask(_mm512_xor_si512(narrow32(q->d, k), narrow32(q->w, k)));
        for (__mmask32 up = gone & neg; up; up &= up - 1)
            total[q->cell[k + (uint32_t)__builtin_ctz(up)]] += 1;
        __mmask32 far = live & ~near & ~gone;
        for (unsigned h = 0; h < 2; h++)
            if ((__mmask16)(far >> (16 * h)))
                settle_far16(q, k + 16 * h, (__mmask16)(far >> (16 * h)), total);
    }
    q->n = 0;
    return 0;
}

bool cmac_fp16_fma(void)
{
    return cmac_fp16_vbmi() && __builtin_cpu_supports("avx512vpopcntdq");
}

#else

uint32_t cmac_fp16_cells_fma(const struct conv_operands *ops, uint32_t first,
                             const struct cmac_fp16_fma_rows *rows,
                             const struct cmac_fp16_fma_block *k, const uint32_t *carry8,
                             int64_t *total, uint8_t *mx, struct fp16_hard *hard)
{
    (void)ops, (void)first, (void)rows, (void)k, (void)carry8, (void)total, (void)mx, (void)hard;
    abort(); /* never selected: cmac_fp16_fma() is false */
}

uint32_t cmac_fp16_hard_carries(struct fp16_hard *q, int64_t *total)
{
    (void)q, (void)total;
    abort(); /* never selected: cmac_fp16_fma() is false */
}

uint32_t cmac_fp16_fma_acc_exact(const uint8_t *mx, const int64_t *total, uint32_t cells,
                                 size_t stride, uint64_t acc[CMAC_FP16_FMA_LANES])
{
    (void)mx, (void)total, (void)cells, (void)stride, (void)acc;
    abort(); /* never selected: cmac_fp16_fma() is false */
}

void cmac_fp16_fma_layout(const int16_t *raw, size_t depth, size_t kn,
                          const struct cmac_fp16_fma_block *k)
{
    (void)raw, (void)depth, (void)kn, (void)k;
    abort(); /* never selected: cmac_fp16_fma() is false */
}

void cmac_fp16_fma_row_cells(const struct conv_operands *ops, const struct cmac_fp16_fma_rows *rows,
                             struct cmac_fp16_row_cell *out)
{
    (void)ops, (void)rows, (void)out;
    abort(); /* never selected: cmac_fp16_fma() is false */
}

void cmac_fp16_fma_classify(const struct cmac_fp16_fma_block *k, size_t off, uint32_t nj,
                            uint32_t cell)
{
    (void)k, (void)off, (void)nj, (void)cell;
    abort(); /* never selected: cmac_fp16_fma() is false */
}

uint32_t cmac_fp16_fma_store8(const uint32_t *res, int32_t *out, size_t plane, uint32_t kernels)
{
    (void)res, (void)out, (void)plane, (void)kernels;
    abort(); /* never selected: cmac_fp16_fma() is false */
}

bool cmac_fp16_fma_decode(const int16_t *raw, size_t n, struct fp16_decoded *out, double *d)
{
    (void)raw, (void)n, (void)out, (void)d;
    abort(); /* never selected: cmac_fp16_fma() is false */
}

bool cmac_fp16_fma(void)
{
    return false;
}

#endif
