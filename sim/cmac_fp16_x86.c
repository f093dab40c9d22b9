/* The fp16 MAC cell's easy products with AVX-512BW, chosen at run time
 * (cmac_fp16.c has the portable loops and the reasons it is exact).
 *
 * Products aligned by 0 bits sum to A0 = sum(d * w); those aligned by 4 bits
 * to sum(floor(d * w / 16)) = (A4 - L4) / 16, where A4 = sum(d * w) and L4 =
 * sum((d * w) mod 16) over them (the low four bits of a two's complement
 * product are those of the 16-bit product).  A0 and A4 are masked dot
 * products of 16-bit operands (vpmaddwd: no 32-bit lane holds more than four
 * products of at most 28 bits), L4 a masked sum of low nibbles. */
#include <stdlib.h>

#include "conv.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

bool cmac_fp16_simd(void)
{
    static int cpu = -1;
    if (cpu < 0) {
        __builtin_cpu_init();
        cpu = __builtin_cpu_supports("avx512bw") != 0;
    }
    const char *off = getenv("DLADBG_NO_SIMD");
    return cpu && !(off && *off);
}

__attribute__((target("avx512f,avx512bw"))) static int64_t sum_epi32(__m512i v)
{
    __m512i lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(v));
    __m512i hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1));
    return _mm512_reduce_add_epi64(_mm512_add_epi64(lo, hi));
}

__attribute__((target("avx512f,avx512bw"))) static int32_t max_epi8(__m512i h)
{
    __m256i m = _mm256_max_epi8(_mm512_castsi512_si256(h), _mm512_extracti64x4_epi64(h, 1));
    __m128i x = _mm_max_epi8(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    x = _mm_max_epi8(x, _mm_srli_si128(x, 8));
    x = _mm_max_epi8(x, _mm_srli_si128(x, 4));
    x = _mm_max_epi8(x, _mm_srli_si128(x, 2));
    x = _mm_max_epi8(x, _mm_srli_si128(x, 1));
    return (int8_t)_mm_cvtsi128_si32(x);
}

__attribute__((target("avx512f,avx512bw"))) int64_t
cmac_fp16_cell_avx512(const int16_t *dm, const int8_t *dh, const int16_t *wm, const int8_t *wh,
                      uint32_t n, int32_t *mx_out, uint64_t *hard)
{
    __mmask64 live = n >= 64 ? ~0ull : (1ull << n) - 1;
    /* exponent sums; zeros (and lanes past n) stay far below any real sum */
    __m512i h = _mm512_adds_epi8(_mm512_maskz_loadu_epi8(live, dh), _mm512_maskz_loadu_epi8(live, wh));
    h = _mm512_mask_mov_epi8(_mm512_set1_epi8(-128), live, h);
    int32_t mx = max_epi8(h);
    mx = mx < 0 ? 0 : mx;
    __mmask64 m0 = _mm512_cmpeq_epi8_mask(h, _mm512_set1_epi8((char)mx));
    __mmask64 m4 = _mm512_cmpeq_epi8_mask(h, _mm512_set1_epi8((char)(mx - 4)));
    __mmask64 nonzero = _mm512_cmpge_epi8_mask(h, _mm512_setzero_si512());
    *hard = nonzero & ~(m0 | m4);
    *mx_out = mx;

    __m512i d0 = _mm512_maskz_loadu_epi16((__mmask32)live, dm);
    __m512i d1 = _mm512_maskz_loadu_epi16((__mmask32)(live >> 32), dm + 32);
    __m512i w0 = _mm512_maskz_loadu_epi16((__mmask32)live, wm);
    __m512i w1 = _mm512_maskz_loadu_epi16((__mmask32)(live >> 32), wm + 32);
    __mmask32 m0a = (__mmask32)m0, m0b = (__mmask32)(m0 >> 32);
    __mmask32 m4a = (__mmask32)m4, m4b = (__mmask32)(m4 >> 32);
    __m512i a0 = _mm512_add_epi32(_mm512_madd_epi16(_mm512_maskz_mov_epi16(m0a, d0), w0),
                                  _mm512_madd_epi16(_mm512_maskz_mov_epi16(m0b, d1), w1));
    __m512i a4 = _mm512_add_epi32(_mm512_madd_epi16(_mm512_maskz_mov_epi16(m4a, d0), w0),
                                  _mm512_madd_epi16(_mm512_maskz_mov_epi16(m4b, d1), w1));
    __m512i nib = _mm512_set1_epi16(15);
    __m512i l = _mm512_add_epi16(_mm512_maskz_mov_epi16(m4a, _mm512_and_si512(_mm512_mullo_epi16(d0, w0), nib)),
                         _mm512_maskz_mov_epi16(m4b, _mm512_and_si512(_mm512_mullo_epi16(d1, w1), nib)));
    __m512i l32 = _mm512_madd_epi16(l, _mm512_set1_epi16(1));
    int64_t s0 = sum_epi32(a0), s4 = sum_epi32(_mm512_sub_epi32(a4, l32));
    return s0 + (s4 >> 4);
}

#else

bool cmac_fp16_simd(void)
{
    return false;
}

int64_t cmac_fp16_cell_avx512(const int16_t *dm, const int8_t *dh, const int16_t *wm,
                              const int8_t *wh, uint32_t n, int32_t *mx_out, uint64_t *hard)
{
    (void)dm, (void)dh, (void)wm, (void)wh, (void)n, (void)mx_out, (void)hard;
    abort(); /* never selected: cmac_fp16_simd() is false */
}

#endif
