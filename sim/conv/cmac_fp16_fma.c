/* The fp16 MAC cells as double-precision FMAs that round down: four data
 * rows against 32 kernels at a time (AVX-512F/BW/VL/VBMI, chosen at run
 * time; cmac_fp16.c has the portable cells and why the Booth array's
 * result is what it is).
 *
 * Why a float FMA is exact here.  A cell's product of data d (exponent part
 * hd) and weight w (hw) aligned by s = top - hd - hw contributes
 * floor(d * w / 2^s) at the cell's scale 2^top, less a Booth carry when
 * s >= 8.  Take D = d * 2^hd and W = w * 2^hw (exact doubles: 11
 * significant bits each) and an accumulator S = 1.5 * 2^(52 + top) + T *
 * 2^top, T the integer sum so far.  While |T| < 2^51 (a cell's sum is under
 * 2^36), S stays in one binade, where doubles are exactly the multiples of
 * 2^top; so round_down(S + D * W), which one FMA computes from the exact
 * D * W + S, is S + floor(D * W / 2^top) * 2^top: the floor of every
 * product comes with the add, and T is S's low 52 mantissa bits less 2^51.
 * A zero operand's D or W is 0 and adds nothing; values zero in all four
 * rows are skipped.  The four rows share every load of the kernels' values
 * (16 FMAs per value), which keeps the loop within what the L2 cache
 * delivers.
 *
 * What the FMA does not do, the byte lanes do: the exponent sums of one
 * value against 32 kernels are the bytes of one register (each weight's hw
 * + 64, 0x80 for a zero weight, and 64 for a zero data value, so that a
 * product with a zero operand is below every real sum signed and above it
 * unsigned), first for the cell's largest, then for the products aligned by
 * 8 bits, whose Booth carry is bit (weight sign << 8 | low byte of |w|) of
 * the data value's 512-bit row of carry8: a byte permute fetches each
 * lane's byte, a test against the weight's bit selects the bit, and a byte
 * counter per kernel takes it off the cell's sum.  Products aligned by 12
 * bits or more keep the floor the FMA gave them and get the Booth array's
 * carry taken off: those aligned by 12 or 16 with the array in 16-bit
 * lanes (booth_carries), 32 products at a time, the block's smallest
 * weights' cell by cell (settle_small) and a value's others against all
 * 32 kernels at once, counted by the byte counters (settle_value); the
 * few aligned by 20 or more are queued for the 32-bit array in
 * cmac_fp16.c. */
#include <pthread.h>
#include <stdlib.h>

#include "conv.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "cmac_fp16_avx512.h"

#define AVX512_FMA __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))
#define ROUND_DOWN (_MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#define HIGH_BIAS  64 /* added to a weight's exponent part in the byte lanes */

enum { L = CMAC_FP16_FMA_LANES, R = CMAC_FP16_FMA_ROWS, G = L / 8 /* doubles of 8 kernels */ };

/* Bytes 8g to 8g + 7 of v, widened to 64-bit lanes. */
AVX512_FMA static inline __m512i group_bytes(__m256i v, unsigned g)
{
    __m128i half = g < 2 ? _mm256_castsi256_si128(v) : _mm256_extracti128_si256(v, 1);
    return _mm512_cvtepu8_epi64(g % 2 ? _mm_srli_si128(half, 8) : half);
}

/* Offsets in the cell of the values some row holds a nonzero at (the
 * others' products are all zero and their sums never the largest). */
AVX512_FMA static inline uint32_t live_values(const struct cmac_fp16_fma_rows *rows, size_t off,
                                              uint32_t nj, uint8_t *live)
{
    __mmask32 lo = nj >= 32 ? ~0u : (__mmask32)((1u << nj) - 1);
    __mmask32 hi = nj >= 64 ? ~0u : nj > 32 ? (__mmask32)((1u << (nj - 32)) - 1) : 0;
    uint64_t any = 0;
    for (unsigned r = 0; r < R; r++) {
        const int16_t *m = rows->m[r] + off;
        __m512i a = _mm512_maskz_loadu_epi16(lo, m), b = _mm512_maskz_loadu_epi16(hi, m + 32);
        any |= _mm512_test_epi16_mask(a, a) | (uint64_t)_mm512_test_epi16_mask(b, b) << 32;
    }
    uint32_t n = 0;
    for (; any; any &= any - 1)
        live[n++] = (uint8_t)__builtin_ctzll(any);
    return n;
}

/* Products aligned by 12 bits or more (lanes in `more`, s their
 * alignments) of value v of one row queued: the data and weight mantissas,
 * the alignment and the slot (base + lane). */
AVX512_FMA static inline void queue_hard(const int16_t *km, int16_t dm, __m256i s, __mmask32 more,
                                         uint32_t base, struct fp16_hard *hard)
{
    uint32_t n = hard->n;
    for (unsigned q = 0; q < L / 16; q++) {
        __mmask16 m = (__mmask16)(more >> (16 * q));
        if (!m)
            continue;
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

/* The carries of 32 products d * w (both nonzero, |m| < 2^14) aligned by
 * s (12 or 16 in the lanes that matter). */
AVX512_FMA static inline __mmask32 booth_carries(__m512i d, __m512i w, __m512i s)
{
    __m512i neg = _mm512_srai_epi16(_mm512_xor_si512(d, w), 15);
    __m512i dat = _mm512_abs_epi16(d);
    __m512i bits = _mm512_xor_si512(_mm512_slli_epi16(_mm512_abs_epi16(w), 1), neg);
    __m512i row[8], idx[8];
    idx[0] = _mm512_slli_epi16(bits, 2);
    for (unsigned i = 1; i < 7; i++)
        idx[i] = _mm512_srli_epi16(bits, 2 * i - 2);
    /* bit 16 of bits, the sign, is bit 4 of digit 7's index */
    idx[7] = _mm512_ternarylogic_epi32(_mm512_srli_epi16(bits, 12), neg, _mm512_set1_epi16(16),
                                       0xf8);
    for (unsigned i = 0; i < 8; i++)
        row[i] = _mm512_xor_si512(
            _mm512_sllv_epi16(dat, _mm512_permutexvar_epi16(idx[i], table16(booth16.shift[i]))),
            _mm512_permutexvar_epi16(idx[i], table16(booth16.flip[i])));
    __m512i lo4 = _mm512_permutexvar_epi16(idx[4], table16(booth16.lo4));
    __m512i hi4 = _mm512_permutexvar_epi16(idx[7], table16(booth16.hi4));
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

/* Lanes whose alignment s is 12 or 16: the products whose Booth carry
 * booth_carries gives. */
AVX512_FMA static inline __mmask32 aligned_12_or_16(__m512i s)
{
    return _mm512_cmpeq_epi16_mask(s, _mm512_set1_epi16(12)) |
           _mm512_cmpeq_epi16_mask(s, _mm512_set1_epi16(16));
}

/* Products of one data value (mantissa dm) with the kernels' km aligned by
 * 12 bits or more (lanes in more, s their alignments), the cell's slots
 * from base on: the Booth carries of those aligned by 12 or 16 counted in
 * the row's byte counters (one array over all 32 lanes, even for one such
 * product, measured as quick as queueing the few and branching on their
 * number), the rest queued. */
AVX512_FMA static inline __m256i settle_value(const int16_t *km, int16_t dm, __m256i s,
                                              __mmask32 more, uint32_t base, __m256i carries,
                                              struct fp16_hard *hard)
{
    __m512i s16 = _mm512_cvtepu8_epi16(s);
    __mmask32 near = aligned_12_or_16(s16) & more;
    __mmask32 carry = booth_carries(_mm512_set1_epi16(dm), _mm512_loadu_si512(km), s16) & near;
    if (more & ~near)
        queue_hard(km, dm, s, more & ~near, base, hard);
    return _mm256_mask_add_epi8(carries, carry, carries, _mm256_set1_epi8(1));
}

/* The cell's products of row r with the block's small weights that are
 * aligned by 12 bits or more (the cell's loop leaves them out), 32 at a
 * time, each one's data value and exponent part fetched from the cell's by
 * permutes and its alignment from the kernel's top: those aligned by 12 or
 * 16 settled at once (their Booth carries off total), the rest queued. */
AVX512_FMA static inline void settle_small(const struct cmac_fp16_fma_rows *rows, unsigned r,
                                           const struct cmac_fp16_fma_block *k, size_t off,
                                           uint32_t nj, uint32_t cell, __m256i top,
                                           int64_t *total, struct fp16_hard *hard)
{
    uint32_t e0 = k->small_first[cell], end = k->small_first[cell + 1];
    if (e0 == end)
        return;
    __mmask64 in_cell = nj >= 64 ? ~0ull : (1ull << nj) - 1;
    __m512i dh = _mm512_maskz_loadu_epi8(in_cell, rows->h[r] + off);
    __m512i dm_lo = _mm512_maskz_loadu_epi16((__mmask32)in_cell, rows->m[r] + off);
    __m512i dm_hi = _mm512_maskz_loadu_epi16((__mmask32)(in_cell >> 32), rows->m[r] + off + 32);
    /* top - (0 + HIGH_BIAS) - dh: the alignment of a weight whose part is 0 */
    __m512i top_less = _mm512_sub_epi8(_mm512_castsi256_si512(top), _mm512_set1_epi8(HIGH_BIAS));
    uint32_t base = L * (R * cell + r);
    uint8_t tops[L];
    _mm256_storeu_si256((__m256i *)tops, top);
    for (uint32_t e = e0; e < end; e += 32) {
        __mmask32 live = end - e >= 32 ? ~0u : (1u << (end - e)) - 1;
        __m512i at = _mm512_castsi256_si512(_mm256_maskz_loadu_epi8(live, k->small_at + e));
        __m512i lane = _mm512_castsi256_si512(_mm256_maskz_loadu_epi8(live, k->small_lane + e));
        __m512i s = _mm512_cvtepi8_epi16(_mm512_castsi512_si256(_mm512_sub_epi8(
            _mm512_permutexvar_epi8(lane, top_less), _mm512_permutexvar_epi8(at, dh))));
        __m512i d = _mm512_permutex2var_epi16(
            dm_lo, _mm512_cvtepu8_epi16(_mm512_castsi512_si256(at)), dm_hi);
        __m512i w = _mm512_maskz_loadu_epi16(live, k->small_m + e);
        __mmask32 real = _mm512_mask_test_epi16_mask(live, d, d);
        __mmask32 near = aligned_12_or_16(s) & real;
        __mmask32 far = _mm512_mask_cmpgt_epi16_mask(real, s, _mm512_set1_epi16(16));
        for (__mmask32 c = booth_carries(d, w, s) & near; c; c &= c - 1)
            total[base + k->small_lane[e + (uint32_t)__builtin_ctz(c)]] -= 1;
        for (; far; far &= far - 1) {
            uint32_t i = (uint32_t)__builtin_ctz(far), n = hard->n++;
            hard->w[n] = k->small_m[e + i];
            hard->d[n] = rows->m[r][off + k->small_at[e + i]];
            hard->shift[n] = (uint32_t)(tops[k->small_lane[e + i]] - HIGH_BIAS -
                                        rows->h[r][off + k->small_at[e + i]]);
            hard->cell[n] = base + k->small_lane[e + i];
        }
    }
}

/* One cell (values from off on, nj of them) of the R rows against the
 * block's L kernels: sums (less the carries of products aligned by 8 bits)
 * and exponents into total and mx at slot L * (R * cell + row) + lane,
 * harder products onto the queue.  The rows share each load of the
 * kernels' values. */
AVX512_FMA static inline void cell_rows(const struct cmac_fp16_fma_rows *rows,
                                        const struct cmac_fp16_fma_block *k,
                                        const uint32_t *carry8, size_t off, uint32_t nj,
                                        uint32_t cell, int64_t *total, int64_t *mx,
                                        struct fp16_hard *hard)
{
    uint8_t live[CMAC_FP16_FMA_CELL];
    uint32_t nlive = live_values(rows, off, nj, live);
    const double *kw = k->w + L * off;
    const uint8_t *kh = k->h + L * off, *kidx = k->idx + L * off, *kbit = k->bit + L * off;
    const int8_t *dh = rows->h4 + R * off;
    const double *dd = rows->d4 + R * off;
    const int32_t *dk = rows->key4 + R * off;
    __m256i top[R];
    for (unsigned r = 0; r < R; r++)
        top[r] = _mm256_set1_epi8(HIGH_BIAS);
    for (uint32_t t = 0; t < nlive; t++) {
        uint32_t j = live[t];
        __m256i wh = _mm256_loadu_si256((const __m256i *)(kh + L * j));
        for (unsigned r = 0; r < R; r++)
            top[r] = _mm256_max_epi8(top[r], _mm256_add_epi8(wh, _mm256_set1_epi8(dh[R * j + r])));
    }
    __m512d acc[R][G];
    __m256i top8[R], carries[R];
    for (unsigned r = 0; r < R; r++) {
        for (unsigned g = 0; g < G; g++) /* 1.5 * 2^(52 + top) */
            acc[r][g] = _mm512_castsi512_pd(_mm512_or_si512(
                _mm512_slli_epi64(_mm512_add_epi64(group_bytes(top[r], g),
                                                   _mm512_set1_epi64(1075 - HIGH_BIAS)),
                                  52),
                _mm512_set1_epi64(1ll << 51)));
        top8[r] = _mm256_sub_epi8(top[r], _mm256_set1_epi8(8));
        carries[r] = _mm256_setzero_si256();
    }
    const __m256i one = _mm256_set1_epi8(1);
    uint8_t later[CMAC_FP16_FMA_CELL]; /* values with products aligned by 12 or more */
    uint32_t nlater = 0;
    for (uint32_t t = 0; t < nlive; t++) {
        uint32_t j = live[t];
        const double *dj = dd + R * j;
        const int8_t *hj = dh + R * j;
        const int32_t *kj = dk + R * j;
        const double *wj = kw + L * j;
        for (unsigned g = 0; g < G; g++) {
            __m512d w = _mm512_loadu_pd(wj + 8 * g);
            for (unsigned r = 0; r < R; r++)
                acc[r][g] = _mm512_fmadd_round_pd(w, _mm512_set1_pd(dj[r]), acc[r][g], ROUND_DOWN);
        }
        __m256i wh = _mm256_loadu_si256((const __m256i *)(kh + L * j));
        __m256i idx = _mm256_loadu_si256((const __m256i *)(kidx + L * j));
        __m256i bit = _mm256_loadu_si256((const __m256i *)(kbit + L * j));
        __mmask32 big = (__mmask32)~k->small[off + j]; /* small weights: settle_small */
        __mmask32 more = 0;
        for (unsigned r = 0; r < R; r++) {
            __m256i h = _mm256_add_epi8(wh, _mm256_set1_epi8(hj[r]));
            __mmask32 by8 = _mm256_cmpeq_epi8_mask(h, top8[r]);
            const uint32_t *row = carry8 + kj[r];
            __m256i byte = _mm256_permutex2var_epi8(_mm256_loadu_si256((const __m256i *)row), idx,
                                                    _mm256_loadu_si256((const __m256i *)(row + 8)));
            __mmask32 carry = _mm256_mask_test_epi8_mask(by8, byte, bit);
            carries[r] = _mm256_mask_add_epi8(carries[r], carry, carries[r], one);
            /* below top - 8 unsigned: aligned by 12 or more, no zero operand */
            more |= _mm256_mask_cmplt_epu8_mask(big, h, top8[r]);
        }
        later[nlater] = (uint8_t)t;
        nlater += more != 0;
    }
    /* a value's products aligned by 12 or more: their carries join the
     * byte counters (a lane counts at most one carry per value, 64 in all) */
    for (uint32_t i = 0; i < nlater; i++) {
        uint32_t j = live[later[i]];
        __m256i wh = _mm256_loadu_si256((const __m256i *)(kh + L * j));
        __mmask32 big = (__mmask32)~k->small[off + j];
        for (unsigned r = 0; r < R; r++) {
            __m256i h = _mm256_add_epi8(wh, _mm256_set1_epi8(dh[R * j + r]));
            __mmask32 more = _mm256_mask_cmplt_epu8_mask(big, h, top8[r]);
            if (more)
                carries[r] = settle_value(k->m + L * (off + j), rows->m[r][off + j],
                                          _mm256_sub_epi8(top[r], h), more,
                                          L * (R * cell + r), carries[r], hard);
        }
    }
    const __m512i low52 = _mm512_set1_epi64((1ll << 52) - 1), half = _mm512_set1_epi64(1ll << 51);
    for (unsigned r = 0; r < R; r++)
        for (unsigned g = 0; g < G; g++) {
            size_t at = (size_t)L * (R * cell + r) + 8 * g;
            __m512i sum =
                _mm512_sub_epi64(_mm512_and_si512(_mm512_castpd_si512(acc[r][g]), low52), half);
            _mm512_storeu_si512(total + at, _mm512_sub_epi64(sum, group_bytes(carries[r], g)));
            _mm512_storeu_si512(mx + at, _mm512_sub_epi64(group_bytes(top[r], g),
                                                          _mm512_set1_epi64(HIGH_BIAS)));
        }
    for (unsigned r = 0; r < R; r++)
        settle_small(rows, r, k, off, nj, cell, top[r], total, hard);
}

AVX512_FMA uint32_t cmac_fp16_cells_fma(const struct conv_operands *ops, uint32_t first,
                                        const struct cmac_fp16_fma_rows *rows,
                                        const struct cmac_fp16_fma_block *k,
                                        const uint32_t *carry8, int64_t *total, int64_t *mx,
                                        struct fp16_hard *hard)
{
    pthread_once(&booth16_once, booth16_fill);
    uint32_t cells = 0;
    for (uint32_t c0 = 0; c0 < ops->c; c0 += ops->seg_len) {
        uint32_t nj = ops->c - c0 < ops->seg_len ? ops->c - c0 : ops->seg_len;
        for (uint32_t t = 0; t < ops->taps; t++, cells++) {
            if (cells < first)
                continue;
            if ((uint64_t)hard->n + (uint64_t)R * L * (nj + 1) > hard->cap)
                return cells;
            size_t off = (size_t)ops->taps * c0 + (size_t)t * nj;
            cell_rows(rows, k, carry8, off, nj, cells, total, mx, hard);
        }
    }
    return cells;
}

/* ---------------------------------------------------------------- data rows */

/* vpermt2d/q/pd indices: lane t from a's lane first + t / 2 (t even) or
 * b's (t odd), elements of `width` lanes (1 or 2) kept together. */
AVX512_FMA static __m512i zip_indices(unsigned first, unsigned width, unsigned lanes)
{
    int32_t idx[16] = {0};
    for (unsigned t = 0; t < lanes; t++) {
        unsigned unit = t / width, inner = t % width;
        idx[t] = (int32_t)((unit % 2 ? lanes : 0) + width * (first + unit / 2) + inner);
    }
    return _mm512_loadu_si512(idx);
}

AVX512_FMA static __m512i zip_indices64(unsigned first, unsigned width)
{
    int32_t idx32[16];
    _mm512_storeu_si512(idx32, zip_indices(first, width, 8));
    return _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)idx32));
}

AVX512_FMA void cmac_fp16_fma_side_by_side(int16_t *const m[R], int8_t *const h[R],
                                           const int32_t *const key[R], size_t n, int8_t *h4,
                                           double *d4, int32_t *key4)
{
    uint8_t bytes[64];
    for (unsigned t = 0; t < 64; t++) /* byte R * v + r from row r's value v */
        bytes[t] = (uint8_t)(16 * (t % R) + t / R);
    const __m512i h_zip = _mm512_loadu_si512(bytes);
    const __m512i k_lo = zip_indices(0, 1, 16), k_hi = zip_indices(8, 1, 16);
    /* 64-bit lanes zipped one by one (a row pair's doubles, or two rows'
     * keys as one lane), then two by two (the pairs of doubles) */
    const __m512i zip64[2] = {zip_indices64(0, 1), zip_indices64(4, 1)};
    const __m512i d_pairs[2] = {zip_indices64(0, 2), zip_indices64(2, 2)};
    for (size_t v = 0; v < n; v += 16) {
        __mmask16 live = n - v >= 16 ? 0xffff : (__mmask16)((1u << (n - v)) - 1);
        __m512i hb = _mm512_setzero_si512(), k[R];
        __m512d d[R][2];
        for (unsigned r = 0; r < R; r++) {
            __m256i mr = _mm256_maskz_loadu_epi16(live, m[r] + v);
            /* a zero's exponent part: 64 (struct cmac_fp16_fma_rows) */
            __m128i e = _mm_mask_mov_epi8(_mm_maskz_loadu_epi8(live, h[r] + v),
                                          _mm256_testn_epi16_mask(mr, mr), _mm_set1_epi8(64));
            _mm_mask_storeu_epi8(h[r] + v, live, e);
            hb = _mm512_mask_broadcast_i32x4(hb, (__mmask16)(0xfu << (4 * r)), e);
            __m512i m32 = _mm512_cvtepi16_epi32(mr), e32 = _mm512_cvtepi8_epi32(e);
            for (unsigned q = 0; q < 2; q++) /* m * 2^e: exact (a zero's 0) */
                d[r][q] = _mm512_scalef_pd(
                    _mm512_cvtepi32_pd(q ? _mm512_extracti64x4_epi64(m32, 1) : _mm512_castsi512_si256(m32)),
                    _mm512_cvtepi32_pd(q ? _mm512_extracti64x4_epi64(e32, 1) : _mm512_castsi512_si256(e32)));
            k[r] = _mm512_maskz_loadu_epi32(live, key[r] + v);
        }
        _mm512_storeu_si512(h4 + R * v, _mm512_permutexvar_epi8(h_zip, hb));
        /* rows 0 and 1, 2 and 3 zipped value by value, then the pairs */
        __m512i k01[2] = {_mm512_permutex2var_epi32(k[0], k_lo, k[1]),
                          _mm512_permutex2var_epi32(k[0], k_hi, k[1])};
        __m512i k23[2] = {_mm512_permutex2var_epi32(k[2], k_lo, k[3]),
                          _mm512_permutex2var_epi32(k[2], k_hi, k[3])};
        for (unsigned q = 0; q < 4; q++)
            _mm512_storeu_si512(key4 + R * v + 16 * q,
                                _mm512_permutex2var_epi64(k01[q / 2], zip64[q % 2], k23[q / 2]));
        for (unsigned half = 0; half < 2; half++)
            for (unsigned p = 0; p < 2; p++) {
                __m512d d01 = _mm512_permutex2var_pd(d[0][half], zip64[p], d[1][half]);
                __m512d d23 = _mm512_permutex2var_pd(d[2][half], zip64[p], d[3][half]);
                for (unsigned q = 0; q < 2; q++)
                    _mm512_storeu_pd(d4 + R * (v + 8 * half + 4 * p + 2 * q),
                                     _mm512_permutex2var_pd(d01, d_pairs[q], d23));
            }
    }
}

/* ---------------------------------------------------------------- kernel layout */

/* Value i of the block's 32 kernels (d, decoded) into its layout at
 * LANES * i, and small[i], the lanes of its weights whose exponent part is
 * 0 (struct cmac_fp16_fma_block). */
AVX512_FMA static inline void layout_value(struct fp16_lanes d, size_t i,
                                           const struct cmac_fp16_fma_block *k)
{
    size_t at = (size_t)L * i;
    _mm512_storeu_si512(k->m + at, d.m);
    __m512i h = _mm512_mask_mov_epi16(_mm512_add_epi16(d.h, _mm512_set1_epi16(HIGH_BIAS)), d.zero,
                                      _mm512_set1_epi16(0x80));
    _mm256_storeu_si256((__m256i *)(k->h + at), _mm512_cvtepi16_epi8(h));
    k->small[i] = _mm512_cmpeq_epi16_mask(d.h, _mm512_setzero_si512()) & ~d.zero;
    /* key = sign << 8 | low byte of |m|: its byte key >> 3 and bit key & 7 */
    __m512i idx = _mm512_srli_epi16(_mm512_and_si512(d.mag, _mm512_set1_epi16(0xff)), 3);
    idx = _mm512_mask_mov_epi16(idx, d.neg, _mm512_or_si512(idx, _mm512_set1_epi16(0x20)));
    __m512i bit = _mm512_sllv_epi16(_mm512_set1_epi16(1), _mm512_and_si512(d.mag, _mm512_set1_epi16(7)));
    _mm256_storeu_si256((__m256i *)(k->idx + at), _mm512_cvtepi16_epi8(idx));
    _mm256_storeu_si256((__m256i *)(k->bit + at), _mm512_cvtepi16_epi8(bit));
    /* w = m * 2^h, exact (a zero's h scales 0 to 0) */
    __m512i m32[2] = {_mm512_cvtepi16_epi32(_mm512_castsi512_si256(d.m)),
                      _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(d.m, 1))};
    __m512i h32[2] = {_mm512_cvtepi16_epi32(_mm512_castsi512_si256(d.h)),
                      _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(d.h, 1))};
    for (unsigned q = 0; q < 4; q++) {
        __m256i mq = q % 2 ? _mm512_extracti64x4_epi64(m32[q / 2], 1) : _mm512_castsi512_si256(m32[q / 2]);
        __m256i hq = q % 2 ? _mm512_extracti64x4_epi64(h32[q / 2], 1) : _mm512_castsi512_si256(h32[q / 2]);
        _mm512_storeu_pd(k->w + at + 8 * q,
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
        layout_value(fp16_decode32(_mm512_permutex2var_epi16(lo, first, hi)), i, k);
        if (i + 1 < depth)
            layout_value(fp16_decode32(_mm512_permutex2var_epi16(lo, second, hi)), i + 1, k);
    }
}

/* 32 queue entries' 32-bit field as 16-bit lanes. */
AVX512_FMA static inline __m512i narrow32(const void *field, uint32_t k)
{
    const int32_t *f = (const int32_t *)field + k;
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi32_epi16(_mm512_loadu_si512(f))),
                              _mm512_cvtepi32_epi16(_mm512_loadu_si512(f + 16)), 1);
}

AVX512_FMA uint32_t cmac_fp16_hard_carries(struct fp16_hard *q, int64_t *total)
{
    pthread_once(&booth16_once, booth16_fill);
    uint32_t n = q->n, rest = 0;
    for (uint32_t k = 0; k < n; k += 32) {
        __mmask32 live = n - k >= 32 ? ~0u : (1u << (n - k)) - 1;
        __m512i s = narrow32(q->shift, k);
        __mmask32 near = aligned_12_or_16(s) & live;
        __mmask32 carry = booth_carries(narrow32(q->d, k), narrow32(q->w, k), s) & near;
        for (; carry; carry &= carry - 1)
            total[q->cell[k + (uint32_t)__builtin_ctz(carry)]] -= 1;
        for (__mmask32 far = live & ~near; far; far &= far - 1) {
            uint32_t e = k + (uint32_t)__builtin_ctz(far);
            q->w[rest] = q->w[e];
            q->d[rest] = q->d[e];
            q->shift[rest] = q->shift[e];
            q->cell[rest++] = q->cell[e];
        }
    }
    q->n = rest;
    return rest;
}

bool cmac_fp16_fma(void)
{
    return cmac_fp16_vbmi();
}

#else

uint32_t cmac_fp16_cells_fma(const struct conv_operands *ops, uint32_t first,
                             const struct cmac_fp16_fma_rows *rows,
                             const struct cmac_fp16_fma_block *k, const uint32_t *carry8,
                             int64_t *total, int64_t *mx, struct fp16_hard *hard)
{
    (void)ops, (void)first, (void)rows, (void)k, (void)carry8, (void)total, (void)mx, (void)hard;
    abort(); /* never selected: cmac_fp16_fma() is false */
}

uint32_t cmac_fp16_hard_carries(struct fp16_hard *q, int64_t *total)
{
    (void)q, (void)total;
    abort(); /* never selected: cmac_fp16_fma() is false */
}

void cmac_fp16_fma_layout(const int16_t *raw, size_t depth, size_t kn,
                          const struct cmac_fp16_fma_block *k)
{
    (void)raw, (void)depth, (void)kn, (void)k;
    abort(); /* never selected: cmac_fp16_fma() is false */
}

void cmac_fp16_fma_side_by_side(int16_t *const m[CMAC_FP16_FMA_ROWS],
                                int8_t *const h[CMAC_FP16_FMA_ROWS],
                                const int32_t *const key[CMAC_FP16_FMA_ROWS], size_t n, int8_t *h4,
                                double *d4, int32_t *key4)
{
    (void)m, (void)h, (void)key, (void)n, (void)h4, (void)d4, (void)key4;
    abort(); /* never selected: cmac_fp16_fma() is false */
}

bool cmac_fp16_fma(void)
{
    return false;
}

#endif
