/* The fp16 MAC cell's easy products with AVX-512BW, chosen at run time
 * (cmac_fp16.c has the portable loops and the reasons it is exact).
 *
 * Products aligned by 0 bits sum to A0 = sum(d * w); those aligned by 4 bits
 * to sum(floor(d * w / 16)) = (A4 - L4) / 16, where A4 = sum(d * w) and L4 =
 * sum((d * w) mod 16) over them (the low four bits of a two's complement
 * product are those of the 16-bit product), and those aligned by 8 bits
 * likewise to (A8 - L8) / 256, less the Booth carries the caller subtracts
 * (cmac_fp16.c).  The A are masked dot products of 16-bit operands
 * (vpmaddwd: no 32-bit lane holds more than four products of at most 28
 * bits), the L masked sums of low bits; each lane's A - L divides exactly,
 * so the three parts meet in one lane sum. */
#include <stdlib.h>

#include "conv.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "cmac_fp16_avx512.h"

#define AVX512_CD __attribute__((target("avx512f,avx512cd")))
#define AVX512_BW __attribute__((target("avx512f,avx512bw,avx512vl")))
#define AVX512_VBMI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))

/* Not turned off by the environment variable `off` (set and not empty). */
static bool allowed(const char *off)
{
    const char *v = getenv(off);
    return !(v && *v);
}

bool cmac_fp16_simd(void)
{
    __builtin_cpu_init(); /* returns at once after the first time */
    return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512cd") &&
           __builtin_cpu_supports("avx512vl") && allowed("DLADBG_NO_SIMD");
}

AVX512_BW static int64_t sum_epi32(__m512i v)
{
    __m512i lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(v));
    __m512i hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1));
    return _mm512_reduce_add_epi64(_mm512_add_epi64(lo, hi));
}

AVX512_BW static int32_t max_epi8(__m512i h)
{
    __m256i m = _mm256_max_epi8(_mm512_castsi512_si256(h), _mm512_extracti64x4_epi64(h, 1));
    __m128i x = _mm_max_epi8(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    x = _mm_max_epi8(x, _mm_srli_si128(x, 8));
    x = _mm_max_epi8(x, _mm_srli_si128(x, 4));
    x = _mm_max_epi8(x, _mm_srli_si128(x, 2));
    x = _mm_max_epi8(x, _mm_srli_si128(x, 1));
    return (int8_t)_mm_cvtsi128_si32(x);
}

/* The masked products' sum (two halves of 32 channels) in 32-bit lanes. */
AVX512_BW static __m512i masked_dot(__m512i d0, __m512i d1, __m512i w0, __m512i w1, __mmask64 m)
{
    return _mm512_add_epi32(
        _mm512_madd_epi16(_mm512_maskz_mov_epi16((__mmask32)m, d0), w0),
        _mm512_madd_epi16(_mm512_maskz_mov_epi16((__mmask32)(m >> 32), d1), w1));
}

/* The masked products' low bits (low = 15 or 255) summed in 32-bit lanes:
 * the low bits of a two's complement product are those of the 16-bit one. */
AVX512_BW static __m512i masked_low(__m512i p0, __m512i p1, __mmask64 m, short low)
{
    __m512i bits = _mm512_set1_epi16(low);
    __m512i l =
        _mm512_add_epi16(_mm512_and_si512(_mm512_maskz_mov_epi16((__mmask32)m, p0), bits),
                         _mm512_and_si512(_mm512_maskz_mov_epi16((__mmask32)(m >> 32), p1), bits));
    return _mm512_madd_epi16(l, _mm512_set1_epi16(1));
}

AVX512_BW int64_t cmac_fp16_cell_avx512(const int16_t *dm, const int8_t *dh, const int16_t *wm,
                                        const int8_t *wh, uint32_t n, int32_t *mx_out,
                                        uint64_t *hard, uint64_t *shift8)
{
    __mmask64 live = n >= 64 ? ~0ull : (1ull << n) - 1;
    /* exponent sums; zeros (and lanes past n) stay far below any real sum */
    __m512i h =
        _mm512_adds_epi8(_mm512_maskz_loadu_epi8(live, dh), _mm512_maskz_loadu_epi8(live, wh));
    h = _mm512_mask_mov_epi8(_mm512_set1_epi8(-128), live, h);
    int32_t mx = max_epi8(h);
    mx = mx < 0 ? 0 : mx;
    __mmask64 m0 = _mm512_cmpeq_epi8_mask(h, _mm512_set1_epi8((char)mx));
    __mmask64 m4 = _mm512_cmpeq_epi8_mask(h, _mm512_set1_epi8((char)(mx - 4)));
    __mmask64 m8 = _mm512_cmpeq_epi8_mask(h, _mm512_set1_epi8((char)(mx - 8)));
    __mmask64 nonzero = _mm512_cmpge_epi8_mask(h, _mm512_setzero_si512());
    m8 &= nonzero; /* real products only (a zero's sum is below -99) */
    *hard = nonzero & ~(m0 | m4 | m8);
    *shift8 = m8;
    *mx_out = mx;

    __m512i d0 = _mm512_maskz_loadu_epi16((__mmask32)live, dm);
    __m512i d1 = _mm512_maskz_loadu_epi16((__mmask32)(live >> 32), dm + 32);
    __m512i w0 = _mm512_maskz_loadu_epi16((__mmask32)live, wm);
    __m512i w1 = _mm512_maskz_loadu_epi16((__mmask32)(live >> 32), wm + 32);
    __m512i p0 = _mm512_mullo_epi16(d0, w0), p1 = _mm512_mullo_epi16(d1, w1);
    /* per 32-bit lane: floor(P / 16) summed is (sum P - sum P mod 16) / 16, exactly */
    __m512i a4 = _mm512_sub_epi32(masked_dot(d0, d1, w0, w1, m4), masked_low(p0, p1, m4, 15));
    __m512i a8 = _mm512_sub_epi32(masked_dot(d0, d1, w0, w1, m8), masked_low(p0, p1, m8, 255));
    __m512i lanes =
        _mm512_add_epi32(masked_dot(d0, d1, w0, w1, m0),
                         _mm512_add_epi32(_mm512_srai_epi32(a4, 4), _mm512_srai_epi32(a8, 8)));
    return sum_epi32(lanes);
}

AVX512_CD static __m512i sext40_epi64(__m512i v)
{
    return _mm512_srai_epi64(_mm512_slli_epi64(v, 24), 24);
}

/* The eight lanes of acc_add_lane (cmac_fp16.c, which explains each step)
 * in one pass; exp6 and mant as there. */
AVX512_CD static __m512i acc_add8(__m512i acc, __m512i exp6, __m512i mant)
{
    const __m512i mask40 = _mm512_set1_epi64((long long)((1ull << 40) - 1)),
                  low39 = _mm512_set1_epi64((long long)((1ull << 39) - 1)),
                  one = _mm512_set1_epi64(1), zero = _mm512_setzero_si512(),
                  c40 = _mm512_set1_epi64(40), byte = _mm512_set1_epi64(0xff);
    __m512i acc_exp = _mm512_and_si512(_mm512_srli_epi64(acc, 40), byte);
    __m512i acc_m = sext40_epi64(acc);
    __m512i lead = _mm512_sub_epi64(
        fp16_lzcnt_shifted(_mm512_xor_si512(mant, _mm512_srai_epi64(mant, 63))),
        _mm512_set1_epi64(26));
    __m512i m = _mm512_sllv_epi64(mant, _mm512_add_epi64(lead, _mm512_set1_epi64(2)));
    __m512i m_exp = _mm512_and_si512(
        _mm512_sub_epi64(_mm512_add_epi64(exp6, _mm512_set1_epi64(49)), lead), byte);
    __mmask8 acc_nan = _mm512_cmpeq_epi64_mask(acc_exp, byte);
    acc_exp = _mm512_mask_mov_epi64(acc_exp, _mm512_cmpeq_epi64_mask(acc_m, zero), zero);
    __mmask8 mac_bigger = _mm512_cmpgt_epi64_mask(m_exp, acc_exp);
    __m512i big = _mm512_max_epi64(m_exp, acc_exp);
    __m512i diff = _mm512_abs_epi64(_mm512_sub_epi64(m_exp, acc_exp));
    __m512i smaller = _mm512_mask_blend_epi64(mac_bigger, m, acc_m);
    __m512i other = _mm512_mask_blend_epi64(mac_bigger, acc_m, m);
    __mmask8 near = _mm512_cmple_epi64_mask(diff, c40);
    __m512i d = _mm512_min_epi64(diff, c40);
    __m512i low = _mm512_and_si512(smaller, _mm512_sub_epi64(_mm512_sllv_epi64(one, d), one));
    __m512i out_bits =
        _mm512_maskz_mov_epi64(near, _mm512_sllv_epi64(low, _mm512_sub_epi64(c40, d)));
    __m512i sum_raw =
        _mm512_add_epi64(other, _mm512_maskz_mov_epi64(near, _mm512_srav_epi64(smaller, d)));
    __mmask8 overflow =
        _mm512_cmpgt_epu64_mask(_mm512_add_epi64(_mm512_srai_epi64(sum_raw, 39), one), one);
    __m512i sign_low =
        _mm512_and_si512(_mm512_xor_si512(sum_raw, _mm512_srai_epi64(sum_raw, 63)), low39);
    __m512i sh = _mm512_maskz_mov_epi64(
        (__mmask8)~overflow, _mm512_sub_epi64(fp16_lzcnt_shifted(sign_low), _mm512_set1_epi64(24)));
    __m512i fill = _mm512_maskz_mov_epi64(_mm512_test_epi64_mask(sh, sh),
                                          _mm512_srlv_epi64(out_bits, _mm512_sub_epi64(c40, sh)));
    __m512i sum =
        _mm512_mask_mov_epi64(sext40_epi64(_mm512_or_si512(_mm512_sllv_epi64(sum_raw, sh), fill)),
                              overflow, _mm512_srai_epi64(sum_raw, 1));
    __m512i out_norm = _mm512_and_si512(_mm512_sllv_epi64(out_bits, sh), mask40);
    __m512i exp = _mm512_mask_add_epi64(_mm512_sub_epi64(big, sh), overflow, big, one);
    __mmask8 guard =
        (__mmask8)((overflow & _mm512_test_epi64_mask(sum_raw, one)) |
                   (~overflow & _mm512_test_epi64_mask(out_norm, _mm512_slli_epi64(one, 39))));
    __mmask8 sticky = (__mmask8)((overflow & _mm512_test_epi64_mask(out_bits, out_bits)) |
                                 (~overflow & _mm512_test_epi64_mask(out_norm, low39)));
    __mmask8 neg = _mm512_cmplt_epi64_mask(sum, zero);
    __mmask8 round = (__mmask8)(guard & (sticky | ~neg));
    __m512i rounded = sext40_epi64(_mm512_mask_add_epi64(sum, round, sum, one));
    __mmask8 flip = (__mmask8)(_mm512_cmplt_epi64_mask(rounded, zero) ^ neg);
    __m512i halved = sext40_epi64(_mm512_mask_or_epi64(
        _mm512_srli_epi64(_mm512_and_si512(rounded, mask40), 1), neg,
        _mm512_srli_epi64(_mm512_and_si512(rounded, mask40), 1), _mm512_slli_epi64(one, 39)));
    __m512i fin = _mm512_mask_mov_epi64(rounded, flip, halved);
    exp = _mm512_mask_add_epi64(exp, flip, exp, one);
    exp = _mm512_maskz_mov_epi64(_mm512_test_epi64_mask(fin, fin), _mm512_and_si512(exp, byte));
    __m512i r = _mm512_or_si512(_mm512_slli_epi64(exp, 40), _mm512_and_si512(fin, mask40));
    __m512i nan = _mm512_or_si512(
        _mm512_slli_epi64(byte, 40),
        _mm512_slli_epi64(_mm512_and_si512(_mm512_srli_epi64(acc_m, 29), _mm512_set1_epi64(0x7ff)),
                          29));
    r = _mm512_mask_mov_epi64(r, acc_nan, nan);
    return _mm512_mask_mov_epi64(r, _mm512_cmpeq_epi64_mask(mant, zero), acc);
}

AVX512_CD void cmac_fp16_acc_cells_avx512(const int64_t *mx, const int64_t *total, uint32_t cells,
                                          uint32_t stride, uint64_t acc[8])
{
    __m512i a = _mm512_loadu_si512(acc);
    for (uint32_t c = 0; c < cells; c++)
        a = acc_add8(a, _mm512_loadu_si512(mx + (size_t)stride * c),
                     _mm512_loadu_si512(total + (size_t)stride * c));
    _mm512_storeu_si512(acc, a);
}

/* Eight lanes of cmac_fp16_acc_exact_avx512 (cells stride apart). */
AVX512_CD static uint32_t acc_exact8(const int64_t *mx, const int64_t *total, uint32_t cells,
                                     size_t stride, uint64_t *acc)
{
    const __m512i zero = _mm512_setzero_si512(), span = _mm512_set1_epi64(CMAC_FP16_EXACT_SPAN),
                  limit = _mm512_set1_epi64(CMAC_FP16_EXACT_LIMIT),
                  range = _mm512_set1_epi64(2 * CMAC_FP16_EXACT_LIMIT),
                  none = _mm512_set1_epi64(CMAC_FP16_NO_BASE);
    __m512i base = none;
    for (uint32_t c = 0; c < cells; c++) {
        __m512i t = _mm512_loadu_si512(total + stride * c);
        base = _mm512_mask_min_epi64(base, _mm512_test_epi64_mask(t, t), base,
                                     _mm512_loadu_si512(mx + stride * c));
    }
    __m512i sum = zero;
    __mmask8 bad = 0;
    for (uint32_t c = 0; c < cells; c++) {
        __m512i t = _mm512_loadu_si512(total + stride * c);
        /* a zero cell is not shifted (and so never too far off) */
        __m512i sh = _mm512_maskz_sub_epi64(_mm512_test_epi64_mask(t, t),
                                            _mm512_loadu_si512(mx + stride * c), base);
        bad |= _mm512_cmpgt_epi64_mask(sh, span);
        sum = _mm512_add_epi64(sum, _mm512_sllv_epi64(t, sh));
        bad |= _mm512_cmpge_epu64_mask(_mm512_add_epi64(sum, limit), range);
    }
    /* a lane that did not qualify gets a placeholder, as in acc_exact */
    base = _mm512_mask_mov_epi64(base, _mm512_cmpeq_epi64_mask(base, none), zero);
    _mm512_storeu_si512(acc, fp16_acc_from_zero8(base, _mm512_maskz_mov_epi64((__mmask8)~bad, sum)));
    return (uint8_t)~bad;
}

AVX512_CD uint64_t cmac_fp16_acc_exact_avx512(const int64_t *mx, const int64_t *total,
                                              uint32_t cells, uint32_t lanes, size_t stride,
                                              uint64_t *acc)
{
    uint64_t exact = 0;
    for (uint32_t l = 0; l < lanes; l += 8)
        exact |= (uint64_t)acc_exact8(mx + l, total + l, cells, stride, acc + l) << l;
    return exact;
}

/* 16 int16 lanes widened to int32 and shifted left by `up`, stored at out. */
AVX512_BW static void store_words32(int32_t *out, __m512i v, unsigned up, bool is_signed,
                                    __mmask32 live)
{
    __m256i halves[2] = {_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1)};
    for (int i = 0; i < 2; i++) {
        __m512i w = is_signed ? _mm512_cvtepi16_epi32(halves[i]) : _mm512_cvtepu16_epi32(halves[i]);
        _mm512_mask_storeu_epi32(out + 16 * i, (__mmask16)(live >> (16 * i)),
                                 _mm512_slli_epi32(w, up));
    }
}

AVX512_BW bool cmac_fp16_decode_avx512(const int16_t *raw, size_t n, struct fp16_decoded *out)
{
    __mmask32 nan = 0;
    for (size_t i = 0; i < n; i += 32) {
        __mmask32 live = n - i >= 32 ? ~0u : (1u << (n - i)) - 1;
        struct fp16_lanes d = fp16_decode32(_mm512_maskz_loadu_epi16(live, raw + i));
        nan |= d.nan & live;
        __m512i key = fp16_carry_rows32(d);
        _mm512_mask_storeu_epi16(out->m + i, live, d.m);
        _mm512_mask_storeu_epi8(out->h + i, live,
                                _mm512_castsi256_si512(_mm512_cvtepi16_epi8(d.h)));
        if (out->m32)
            store_words32(out->m32 + i, d.m, 16, true, live);
        store_words32(out->key + i, key, 0, false, live);
    }
    return nan != 0;
}

/* The Booth carry of 16 products aligned by 8 bits, in bit 0 of each lane
 * (the other bits are junk): bit `key` of the data value's 512-bit row,
 * key = the weight's sign << 8 | low byte of |w|, which mk holds as
 * (key >> 3) << 8 | 8 + (key & 7).  With VBMI one byte permute fetches
 * byte key >> 3 into byte 1 of each lane and a rotate by 8 + (key & 7)
 * brings the bit down; without it, the lane's 32-bit word of the row comes
 * by its index key >> 5 (mk bits 10-13) and the rotate count key & 31 is
 * spliced from mk's bits 8-9 and 0-2 (a rotate reads the count's low five
 * bits only). */
AVX512_VBMI static inline __attribute__((always_inline)) __m512i carry8_vbmi(__m512i row,
                                                                          __m512i mk)
{
    return _mm512_rorv_epi32(_mm512_permutexvar_epi8(mk, row), mk);
}

AVX512_BW static inline __attribute__((always_inline)) __m512i carry8_words(__m512i row,
                                                                           __m512i mk)
{
    __m512i word = _mm512_permutexvar_epi32(_mm512_srli_epi32(mk, 10), row);
    __m512i count =
        _mm512_ternarylogic_epi32(_mm512_set1_epi32(0x18), _mm512_srli_epi32(mk, 5), mk, 0xca);
    return _mm512_rorv_epi32(word, count);
}

/* One cell of nj values against 16 kernels (lanes).  Exponent sums, their
 * maximum and each product's alignment s (top - sum) are worked out in the
 * bytes of a 128-bit register, the products and their sums in 32-bit
 * lanes.  Every product is added shifted right by s (vpmaddwd: dm[j] holds
 * the data mantissa in its high half, mk the weight's, so the low halves
 * meet 0): exact for s = 0 and 4, floor(P / 256) for s = 8, less the Booth
 * carry from the data value's row of carry8 (dk[j]).  A zero weight's sum
 * is at least 100 below the top, so its product (0) shifts to 0.  Products
 * aligned by 12 bits or more (about one value in six on the bench's data)
 * are noted without a branch; a second pass queues them for the Booth array
 * and takes back what the shift added for them (floor(P / 2^s), or the
 * sign for s >= 32).  Eight values' products (each under 2^28 in magnitude)
 * fit a 32-bit lane; the 64-bit sums take each eight.  Only the data values
 * that are not zero (live, their offsets in the cell) are visited: a zero's
 * products are zero and its exponent sum never the largest.
 *
 * A macro, expanded once per carry path: a function compiled for VBMI
 * cannot be inlined into one compiled without it, and a call per value
 * would cost more than the carry itself. */
#define CELL16_BODY(carry8_of)                                                                      \
    __m128i h[64], top = _mm_setzero_si128();                                                      \
    for (uint32_t t = 0; t < nlive; t++) {                                                         \
        uint32_t j = live[t];                                                                      \
        h[t] = _mm_add_epi8(_mm_loadu_si128((const __m128i *)(wh + 16 * j)),                      \
                            _mm_set1_epi8(dh[j]));                                                 \
        top = _mm_max_epi8(top, h[t]);                                                             \
    }                                                                                              \
    const __m128i eight = _mm_set1_epi8(8), twelve = _mm_set1_epi8(12),                            \
                  span = _mm_set1_epi8(2 * 28 - 12 + 1);                                           \
    const __m512i one = _mm512_set1_epi32(1);                                                      \
    __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();                              \
    uint32_t queued = hard->n, nlater = 0;                                                         \
    uint8_t later[64];                                                                             \
    __mmask16 later_lanes[64];                                                                     \
    for (uint32_t t0 = 0; t0 < nlive; t0 += 8) {                                                   \
        __m512i part = _mm512_setzero_si512();                                                     \
        uint32_t end = nlive - t0 < 8 ? nlive : t0 + 8;                                            \
        for (uint32_t t = t0; t < end; t++) {                                                      \
            uint32_t j = live[t];                                                                  \
            __m128i s8 = _mm_sub_epi8(top, h[t]);                                                  \
            __m512i mk = _mm512_loadu_si512(wmk + 16 * j);                                         \
            __m512i p = _mm512_madd_epi16(mk, _mm512_set1_epi32(dm[j]));                           \
            part = _mm512_add_epi32(part, _mm512_srav_epi32(p, _mm512_cvtepu8_epi32(s8)));         \
            __m512i bit = carry8_of(_mm512_loadu_si512(carry8 + dk[j]), mk);                       \
            __mmask16 borrow = _mm512_mask_test_epi32_mask(_mm_cmpeq_epi8_mask(s8, eight), bit,    \
                                                           one);                                   \
            part = _mm512_mask_sub_epi32(part, borrow, part, one);                                 \
            /* aligned by 12 to 56 bits (a zero weight's 100 or more wraps                         \
             * past the span) */                                                                   \
            __mmask16 more = _mm_cmplt_epu8_mask(_mm_sub_epi8(s8, twelve), span);                  \
            later[nlater] = (uint8_t)t;                                                            \
            later_lanes[nlater] = more;                                                            \
            nlater += more != 0;                                                                   \
        }                                                                                          \
        lo = _mm512_add_epi64(lo, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(part)));            \
        hi = _mm512_add_epi64(hi, _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(part, 1)));      \
    }                                                                                              \
    /* the products for the Booth array queued; what the shift added for                           \
     * them taken back */                                                                          \
    __m512i back = _mm512_setzero_si512();                                                         \
    for (uint32_t i = 0; i < nlater; i++) {                                                        \
        uint32_t t = later[i], j = live[t];                                                        \
        __mmask16 more = later_lanes[i];                                                           \
        __m512i s = _mm512_cvtepu8_epi32(_mm_sub_epi8(top, h[t]));                                 \
        __m512i mk = _mm512_loadu_si512(wmk + 16 * j);                                             \
        __m512i p = _mm512_madd_epi16(mk, _mm512_set1_epi32(dm[j]));                               \
        back = _mm512_add_epi32(back, _mm512_maskz_srav_epi32(more, p, s));                        \
        queued = hard_append16(hard, queued, more, _mm512_srai_epi32(mk, 16), s, 16 * cell,       \
                               dm[j] >> 16);                                                       \
    }                                                                                              \
    lo = _mm512_sub_epi64(lo, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(back)));                \
    hi = _mm512_sub_epi64(hi, _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(back, 1)));          \
    _mm512_storeu_si512(total + 16 * cell, lo);                                                    \
    _mm512_storeu_si512(total + 16 * cell + 8, hi);                                                \
    _mm512_storeu_si512(mx + 16 * cell, _mm512_cvtepi8_epi64(top));                                \
    _mm512_storeu_si512(mx + 16 * cell + 8, _mm512_cvtepi8_epi64(_mm_srli_si128(top, 8)));        \
    hard->n = queued;

#define CELL16_PARAMS                                                                              \
    const int32_t *dm, const int8_t *dh, const int32_t *dk, const int32_t *wmk, const int8_t *wh,  \
        const uint32_t *carry8, const uint8_t *live, uint32_t nlive, uint32_t cell,                \
        int64_t *total, int64_t *mx, struct fp16_hard *hard

AVX512_VBMI static inline __attribute__((always_inline)) void cell16_vbmi(CELL16_PARAMS)
{
    CELL16_BODY(carry8_vbmi)
}

AVX512_BW static inline __attribute__((always_inline)) void cell16_words(CELL16_PARAMS)
{
    CELL16_BODY(carry8_words)
}

/* The cells of one data row from `first` on, with `cell` (one of the two
 * above); returns where it stopped (the hard queue full) or cells_of(ops). */
#define CELLS16_BODY(cell)                                                                         \
    uint32_t cells = 0;                                                                            \
    for (uint32_t c0 = 0; c0 < ops->c; c0 += ops->seg_len) {                                       \
        uint32_t nj = ops->c - c0 < ops->seg_len ? ops->c - c0 : ops->seg_len;                     \
        for (uint32_t t = 0; t < ops->taps; t++, cells++) {                                        \
            if (cells < first)                                                                     \
                continue;                                                                          \
            if ((uint64_t)hard->n + 16u * nlive[cells] + 16u > hard->cap)                          \
                return cells;                                                                      \
            size_t off = (size_t)ops->taps * c0 + (size_t)t * nj;                                  \
            cell(dm + off, dh + off, dk + off, wmk + 16 * off, wh + 16 * off, carry8, live + off,  \
                 nlive[cells], cells, total, mx, hard);                                            \
        }                                                                                          \
    }                                                                                              \
    return cells;

#define CELLS16_PARAMS                                                                             \
    const struct conv_operands *ops, uint32_t first, const int32_t *dm, const int8_t *dh,          \
        const int32_t *dk, const uint8_t *live, const uint8_t *nlive, const int32_t *wmk,          \
        const int8_t *wh, const uint32_t *carry8, int64_t *total, int64_t *mx,                     \
        struct fp16_hard *hard

AVX512_VBMI static uint32_t cells16_vbmi(CELLS16_PARAMS)
{
    CELLS16_BODY(cell16_vbmi)
}

AVX512_BW static uint32_t cells16_words(CELLS16_PARAMS)
{
    CELLS16_BODY(cell16_words)
}

uint32_t cmac_fp16_cells16_avx512(CELLS16_PARAMS, bool vbmi)
{
    if (vbmi)
        return cells16_vbmi(ops, first, dm, dh, dk, live, nlive, wmk, wh, carry8, total, mx, hard);
    return cells16_words(ops, first, dm, dh, dk, live, nlive, wmk, wh, carry8, total, mx, hard);
}

/* acc_to_fp32 of cacc_fp16.c (the 48-bit accumulator as the fp32 bit
 * pattern CACC sends to SDP) on eight lanes, each of its branches a mask. */
AVX512_CD static __m256i acc_to_fp32_8(__m512i acc)
{
    const __m512i mask40 = _mm512_set1_epi64((long long)((1ull << 40) - 1)),
                  low39 = _mm512_set1_epi64((long long)((1ull << 39) - 1)),
                  byte = _mm512_set1_epi64(0xff), frac23 = _mm512_set1_epi64(0x7fffff),
                  one = _mm512_set1_epi64(1);
    __m512i exp = _mm512_and_si512(_mm512_srli_epi64(acc, 40), byte);
    __m512i mu = _mm512_and_si512(acc, mask40);
    __m512i sign = _mm512_srli_epi64(mu, 39);
    __mmask8 neg = _mm512_test_epi64_mask(sign, sign);
    __m512i sign_bit = _mm512_slli_epi64(sign, 31);
    /* sign and magnitude; a zero's exponent field 0 */
    __m512i mag = _mm512_mask_and_epi64(mu, neg, _mm512_sub_epi64(_mm512_setzero_si512(), mu), low39);
    __m512i e = _mm512_maskz_and_epi64(_mm512_test_epi64_mask(mu, mu),
                                       _mm512_add_epi64(exp, _mm512_set1_epi64(64)), byte);
    /* rounded on bit 14: the 25 bits with the sign plus one, renormalised
     * when that carries out of (or, negative, no longer into) bit 24 */
    __m512i top = _mm512_add_epi64(_mm512_or_si512(_mm512_slli_epi64(sign, 24), _mm512_srli_epi64(mag, 15)), one);
    __mmask8 rounds = _mm512_test_epi64_mask(mag, _mm512_set1_epi64(1 << 14));
    __mmask8 carried = rounds & _mm512_cmpneq_epi64_mask(_mm512_and_si512(_mm512_srli_epi64(top, 24), one), sign);
    top = _mm512_mask_srli_epi64(top, carried, _mm512_and_si512(top, _mm512_set1_epi64((1 << 25) - 1)), 1);
    e = _mm512_mask_and_epi64(e, carried, _mm512_add_epi64(e, one), byte);
    __m512i frac = _mm512_and_si512(_mm512_mask_mov_epi64(_mm512_srli_epi64(mag, 15), rounds, top), frac23);
    __m512i r = _mm512_or_si512(sign_bit, _mm512_or_si512(_mm512_slli_epi64(e, 23), frac));
    /* a negative value whose low 39 bits are 0 */
    __mmask8 neg_edge = neg & _mm512_testn_epi64_mask(mu, low39);
    r = _mm512_mask_or_epi64(r, neg_edge, sign_bit,
                             _mm512_slli_epi64(_mm512_and_si512(_mm512_add_epi64(exp, _mm512_set1_epi64(65)), byte), 23));
    /* NaN: the accumulator's NaN code */
    __mmask8 nan = _mm512_cmpeq_epi64_mask(exp, byte);
    r = _mm512_mask_or_epi64(r, nan, _mm512_or_si512(sign_bit, _mm512_set1_epi64(0x7f800000)),
                             _mm512_and_si512(_mm512_srli_epi64(mu, 29), _mm512_set1_epi64(0x3ff)));
    return _mm512_cvtepi64_epi32(r);
}

AVX512_CD void cmac_fp16_results_avx512(const uint64_t *acc, uint32_t n, uint32_t *res)
{
    for (uint32_t l = 0; l < n; l += 8)
        _mm256_storeu_si256((__m256i *)(res + l), acc_to_fp32_8(_mm512_loadu_si512(acc + l)));
}

/* vpermw indices that take kernel_pairs' words apart: value i of the 16
 * kernels to lanes 0-15, value i + 1 to lanes 16-31. */
AVX512_BW static __m512i pairs_split(void)
{
    uint16_t idx[32];
    for (unsigned t = 0; t < 16; t++) {
        idx[t] = (uint16_t)(2 * t);
        idx[16 + t] = (uint16_t)(2 * t + 1);
    }
    return _mm512_loadu_si512(idx);
}

/* Indices that interleave the first (half 0) or last (half 1) 16 lanes of
 * a and b into 32-bit words (a's lane the low half): for vpermt2w. */
AVX512_BW static __m512i word_pairs(unsigned half)
{
    uint16_t idx[32];
    for (unsigned t = 0; t < 16; t++) {
        idx[2 * t] = (uint16_t)(16 * half + t);
        idx[2 * t + 1] = (uint16_t)(32 + 16 * half + t);
    }
    return _mm512_loadu_si512(idx);
}

AVX512_BW void cmac_fp16_wide_layout(const int16_t *raw, size_t depth, size_t kn, int32_t *mk,
                                     int8_t *wh)
{
    const __m512i starts = kernel_starts(depth);
    const __m512i split = pairs_split();
    const __m512i first = word_pairs(0), second = word_pairs(1);
    for (size_t i = 0; i < depth; i += 2) {
        struct fp16_lanes d =
            fp16_decode32(_mm512_permutexvar_epi16(split, kernel_pairs(raw, depth, kn, starts, i)));
        /* cmac_fp16_wide_mk's low half: (key >> 3) << 8 | 8 + (key & 7) */
        __m512i key = fp16_carry_keys32(d);
        __m512i low = _mm512_or_si512(
            _mm512_slli_epi16(_mm512_srli_epi16(key, 3), 8),
            _mm512_add_epi16(_mm512_and_si512(key, _mm512_set1_epi16(7)), _mm512_set1_epi16(8)));
        __m256i h = _mm512_cvtepi16_epi8(d.h);
        _mm512_storeu_si512(mk + 16 * i, _mm512_permutex2var_epi16(low, first, d.m));
        if (i + 1 < depth) {
            _mm512_storeu_si512(mk + 16 * (i + 1), _mm512_permutex2var_epi16(low, second, d.m));
            _mm256_storeu_si256((__m256i *)(wh + 16 * i), h);
        } else {
            _mm_storeu_si128((__m128i *)(wh + 16 * i), _mm256_castsi256_si128(h));
        }
    }
}

bool cmac_fp16_vbmi(void)
{
    return cmac_fp16_simd() && __builtin_cpu_supports("avx512vbmi") && allowed("DLADBG_NO_VBMI");
}

#else

void cmac_fp16_acc_cells_avx512(const int64_t *mx, const int64_t *total, uint32_t cells,
                                uint32_t stride, uint64_t acc[8])
{
    (void)mx, (void)total, (void)cells, (void)stride, (void)acc;
    abort(); /* never selected: cmac_fp16_simd() is false */
}

uint32_t cmac_fp16_cells16_avx512(const struct conv_operands *ops, uint32_t first,
                                  const int32_t *dm, const int8_t *dh, const int32_t *dk,
                                  const uint8_t *live, const uint8_t *nlive, const int32_t *wmk,
                                  const int8_t *wh, const uint32_t *carry8, int64_t *total,
                                  int64_t *mx, struct fp16_hard *hard, bool vbmi)
{
    (void)ops, (void)first, (void)dm, (void)dh, (void)dk, (void)live, (void)nlive, (void)wmk, (void)wh,
        (void)carry8, (void)total, (void)mx, (void)hard, (void)vbmi;
    abort(); /* never selected: cmac_fp16_simd() is false */
}

bool cmac_fp16_vbmi(void)
{
    return false;
}

void cmac_fp16_results_avx512(const uint64_t *acc, uint32_t n, uint32_t *res)
{
    (void)acc, (void)n, (void)res;
    abort(); /* never selected: cmac_fp16_simd() is false */
}

void cmac_fp16_wide_layout(const int16_t *raw, size_t depth, size_t kn, int32_t *mk, int8_t *wh)
{
    (void)raw, (void)depth, (void)kn, (void)mk, (void)wh;
    abort(); /* never selected: cmac_fp16_simd() is false */
}

uint64_t cmac_fp16_acc_exact_avx512(const int64_t *mx, const int64_t *total, uint32_t cells,
                                    uint32_t lanes, size_t stride, uint64_t *acc)
{
    (void)mx, (void)total, (void)cells, (void)lanes, (void)stride, (void)acc;
    abort(); /* never selected: cmac_fp16_simd() is false */
}

bool cmac_fp16_decode_avx512(const int16_t *raw, size_t n, struct fp16_decoded *out)
{
    (void)raw, (void)n, (void)out;
    abort(); /* never selected: cmac_fp16_simd() is false */
}

bool cmac_fp16_simd(void)
{
    return false;
}

int64_t cmac_fp16_cell_avx512(const int16_t *dm, const int8_t *dh, const int16_t *wm,
                              const int8_t *wh, uint32_t n, int32_t *mx_out, uint64_t *hard,
                              uint64_t *shift8)
{
    (void)dm, (void)dh, (void)wm, (void)wh, (void)n, (void)mx_out, (void)hard, (void)shift8;
    abort(); /* never selected: cmac_fp16_simd() is false */
}

#endif
