/* AVX-512BW pieces shared by the fp16 cells' x86 files (cmac_fp16_x86.c,
 * cmac_fp16_fma.c): the decoder of 32 raw values and their rows of the
 * carry table, the fetch of two values of 16 kernels at once, from which
 * the kernel layouts are built, and CACC's normalisation of exact sums.
 * Only for files that check the host at run time before calling in. */
#ifndef DLADBG_CMAC_FP16_AVX512_H
#define DLADBG_CMAC_FP16_AVX512_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "conv.h"

#define AVX512_BW_INLINE static inline __attribute__((target("avx512f,avx512bw,avx512vl")))
#define AVX512_CD_INLINE static inline __attribute__((target("avx512f,avx512cd")))

/* 32 fp16 values decoded as decode_one in cmac_fp16.c does, in 16-bit
 * lanes: m the signed mantissa aligned by the exponent's low two bits (0
 * for a zero), mag its magnitude, h 4 x (exponent >> 2) (-128 for a zero),
 * neg the negative nonzero values, zero the zeros, nan the NaNs. */
struct fp16_lanes {
    __m512i m, mag, h;
    __mmask32 neg, zero, nan;
};

AVX512_BW_INLINE struct fp16_lanes fp16_decode32(__m512i v)
{
    const __m512i low5 = _mm512_set1_epi16(0x1f), frac_bits = _mm512_set1_epi16(0x3ff);
    struct fp16_lanes d;
    __m512i e = _mm512_and_si512(_mm512_srli_epi16(v, 10), low5);
    __m512i frac = _mm512_and_si512(v, frac_bits);
    __mmask32 normal = _mm512_test_epi16_mask(e, e);
    d.zero = _mm512_testn_epi16_mask(v, _mm512_set1_epi16(0x7fff));
    d.neg = _mm512_movepi16_mask(v) & ~d.zero;
    d.nan = _mm512_cmpeq_epi16_mask(e, low5) & _mm512_test_epi16_mask(frac, frac);
    /* the implicit one and the exponent's low two bits (a subnormal's 1) */
    __m512i mant =
        _mm512_mask_mov_epi16(frac, normal, _mm512_or_si512(frac, _mm512_set1_epi16(0x400)));
    __m512i up = _mm512_mask_mov_epi16(_mm512_set1_epi16(1), normal,
                                       _mm512_and_si512(e, _mm512_set1_epi16(3)));
    d.mag = _mm512_maskz_mov_epi16(~d.zero, _mm512_sllv_epi16(mant, up));
    d.m = _mm512_mask_sub_epi16(d.mag, d.neg, _mm512_setzero_si512(), d.mag);
    d.h = _mm512_mask_mov_epi16(_mm512_and_si512(e, _mm512_set1_epi16(0x1c)), d.zero,
                                _mm512_set1_epi16(-128));
    return d;
}

/* Each of 32 decoded values' key in the carry8 table, cmac_fp16_carry_key's:
 * sign << 8 | low byte of |m|, in its 16-bit lane. */
AVX512_BW_INLINE __m512i fp16_carry_keys32(struct fp16_lanes d)
{
    __m512i low = _mm512_and_si512(d.mag, _mm512_set1_epi16(0xff));
    return _mm512_mask_mov_epi16(low, d.neg, _mm512_or_si512(low, _mm512_set1_epi16(0x100)));
}

/* Each of 32 decoded values' row of carry8 (16 words a row): 16 x its key. */
AVX512_BW_INLINE __m512i fp16_carry_rows32(struct fp16_lanes d)
{
    return _mm512_slli_epi16(fp16_carry_keys32(d), 4);
}

/* The products of 16 lanes in `more` onto the hard queue from slot n on,
 * in lane order: the weights' mantissas w, the alignments s (32-bit
 * lanes), the cells' slots first_slot + lane, the data mantissa d; whole
 * vectors are stored (the next ones overwrite past the count, which the
 * caller's reservation leaves room for).  Returns the new count. */
AVX512_BW_INLINE uint32_t hard_append16(struct fp16_hard *q, uint32_t n, __mmask16 more, __m512i w,
                                        __m512i s, uint32_t first_slot, int32_t d)
{
    const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    __m512i slot = _mm512_add_epi32(lanes, _mm512_set1_epi32((int)first_slot));
    _mm512_storeu_si512(q->w + n, _mm512_maskz_compress_epi32(more, w));
    _mm512_storeu_si512(q->shift + n, _mm512_maskz_compress_epi32(more, s));
    _mm512_storeu_si512(q->cell + n, _mm512_maskz_compress_epi32(more, slot));
    _mm512_storeu_si512(q->d + n, _mm512_set1_epi32(d));
    return n + (uint32_t)__builtin_popcount(more);
}

/* Leading zeros of (v << 1 | 1): the reference's redundant-sign counts
 * without a zero special case. */
AVX512_CD_INLINE __m512i fp16_lzcnt_shifted(__m512i v)
{
    return _mm512_lzcnt_epi64(_mm512_or_si512(_mm512_slli_epi64(v, 1), _mm512_set1_epi64(1)));
}

/* CACC's add of eight exact sums to zero accumulators: acc_add8(0, exp6,
 * mant) (cmac_fp16_x86.c) for the exact case's sums (-2^38 <= mant <
 * 2^38, exp6 0 to 60), in a fifth of its operations: from a zero
 * accumulator the add only normalises the sum, and such a sum never
 * overflows the 40-bit frame or needs rounding (cmac_fp16.c's acc_add_lane's
 * steps with acc = 0: the sum is the larger operand, nothing is shifted out, its
 * redundant sign bits are all shifted away by lead, so sh = 0), which
 * leaves the mantissa shifted by lead + 2 under the exponent exp6 + 49 -
 * lead, or 0 for a zero sum.  lead is -1 for a sum of 39 bits. */
AVX512_CD_INLINE __m512i fp16_acc_from_zero8(__m512i exp6, __m512i mant)
{
    __m512i lead =
        _mm512_sub_epi64(fp16_lzcnt_shifted(_mm512_xor_si512(mant, _mm512_srai_epi64(mant, 63))),
                         _mm512_set1_epi64(26));
    __m512i m = _mm512_sllv_epi64(mant, _mm512_add_epi64(lead, _mm512_set1_epi64(2)));
    __m512i exp =
        _mm512_and_si512(_mm512_sub_epi64(_mm512_add_epi64(exp6, _mm512_set1_epi64(49)), lead),
                         _mm512_set1_epi64(0xff));
    __m512i r =
        _mm512_or_si512(_mm512_slli_epi64(exp, 40),
                        _mm512_and_si512(m, _mm512_set1_epi64((long long)((1ull << 40) - 1))));
    return _mm512_maskz_mov_epi64(_mm512_test_epi64_mask(mant, mant), r);
}

/* Element offsets of 16 kernels of `depth` values each: l * depth. */
AVX512_BW_INLINE __m512i kernel_starts(size_t depth)
{
    return _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                              _mm512_set1_epi32((int)depth));
}

/* Values i and i + 1 of the kernels l < kn (at most 16) from raw on, as
 * 32-bit lanes (value i in the low half); a kernel from kn on, and value i
 * + 1 when i is the last, read as zeros.  One gather where both values are
 * there, else the values one by one (the last of an odd depth). */
AVX512_BW_INLINE __m512i kernel_pairs(const int16_t *raw, size_t depth, size_t kn, __m512i starts,
                                      size_t i)
{
    __mmask16 in = kn >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << kn) - 1);
    if (i + 1 < depth)
        return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), in, starts, raw + i, 2);
    uint32_t words[16] = {0};
    for (size_t l = 0; l < kn && l < 16; l++)
        words[l] = (uint16_t)raw[l * depth + i];
    return _mm512_loadu_si512(words);
}

#endif
