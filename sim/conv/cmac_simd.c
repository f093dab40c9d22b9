/* The MAC kernel with explicit x86 SIMD (AVX-512BW or AVX2), chosen at run
 * time; the portable kernel in cmac.c is used everywhere else.
 *
 * Weights are packed by blocks of `lanes` kernels, pair-interleaved: for
 * every pair of depth positions p, one vector holds (w_k[2p], w_k[2p+1]) for
 * the block's kernels.  A data row contributes the same pair to every lane
 * (a 32-bit broadcast), so one multiply-add of 16-bit pairs yields a partial
 * sum for every kernel of the block with no horizontal reduction.  Partial
 * sums stay exact: the caller bounds the pairs per chunk so that no 32-bit
 * lane can overflow, and chunks are widened into 64-bit sums. */
#include <stdlib.h>
#include <string.h>

#include "conv.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CMAC_HAVE_X86 1
#endif

#define ROWS 4u /* rows per micro-kernel */

unsigned cmac_simd_lanes(void)
{
#ifdef CMAC_HAVE_X86
    static int lanes = -1;
    if (lanes < 0) {
        const char *off = getenv("DLADBG_NO_SIMD");
        __builtin_cpu_init();
        if (off && *off)
            lanes = 0;
        else if (__builtin_cpu_supports("avx512bw"))
            lanes = 16;
        else if (__builtin_cpu_supports("avx2"))
            lanes = 8;
        else
            lanes = 0;
    }
    return (unsigned)lanes;
#else
    return 0;
#endif
}

int16_t *cmac_simd_pack(const int16_t *w, uint32_t kernels, uint32_t depth, unsigned lanes)
{
    uint32_t blocks = (kernels + lanes - 1) / lanes, pairs = depth / 2;
    int16_t *p = calloc((size_t)blocks * pairs * lanes * 2, sizeof *p);
    if (!p)
        return NULL;
    for (uint32_t k = 0; k < kernels; k++)
        for (uint32_t q = 0; q < pairs; q++) {
            int16_t *dst = p + (((size_t)(k / lanes) * pairs + q) * lanes + k % lanes) * 2;
            dst[0] = w[(size_t)k * depth + 2 * q];
            dst[1] = w[(size_t)k * depth + 2 * q + 1];
        }
    return p;
}

#ifdef CMAC_HAVE_X86
static inline int32_t pair_at(const int16_t *a)
{
    int32_t v;
    memcpy(&v, a, sizeof v);
    return v;
}

/* ---------------------------------------------------------------- AVX-512 */

__attribute__((target("avx512f,avx512bw"))) static void add_lanes512(__m512i s, int64_t *acc,
                                                                     uint32_t stride, int64_t scale)
{
    int64_t v[16];
    _mm512_storeu_si512((void *)v, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(s)));
    _mm512_storeu_si512((void *)(v + 8), _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(s, 1)));
    for (int l = 0; l < 16; l++)
        acc[(size_t)l * stride] += scale * v[l];
}

/* ROWS rows x one block of 16 kernels over pairs [p0, p1). */
__attribute__((target("avx512f,avx512bw"))) static void
rows_x_block512(const int16_t *a, uint32_t depth, uint32_t nrows, const int16_t *wp, uint32_t p0,
                uint32_t p1, int64_t scale, int64_t *acc, uint32_t stride)
{
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    const int16_t *r0 = a, *r1 = a + depth, *r2 = a + 2 * (size_t)depth,
                  *r3 = a + 3 * (size_t)depth;
    if (nrows == ROWS) {
        for (uint32_t q = p0; q < p1; q++) {
            __m512i w = _mm512_loadu_si512((const void *)(wp + (size_t)q * 32));
            s0 = _mm512_add_epi32(s0, _mm512_madd_epi16(_mm512_set1_epi32(pair_at(r0 + 2 * q)), w));
            s1 = _mm512_add_epi32(s1, _mm512_madd_epi16(_mm512_set1_epi32(pair_at(r1 + 2 * q)), w));
            s2 = _mm512_add_epi32(s2, _mm512_madd_epi16(_mm512_set1_epi32(pair_at(r2 + 2 * q)), w));
            s3 = _mm512_add_epi32(s3, _mm512_madd_epi16(_mm512_set1_epi32(pair_at(r3 + 2 * q)), w));
        }
        add_lanes512(s0, acc, stride, scale);
        add_lanes512(s1, acc + 1, stride, scale);
        add_lanes512(s2, acc + 2, stride, scale);
        add_lanes512(s3, acc + 3, stride, scale);
        return;
    }
    for (uint32_t i = 0; i < nrows; i++) {
        const int16_t *r = a + (size_t)i * depth;
        __m512i s = _mm512_setzero_si512();
        for (uint32_t q = p0; q < p1; q++)
            s = _mm512_add_epi32(
                s, _mm512_madd_epi16(_mm512_set1_epi32(pair_at(r + 2 * q)),
                                     _mm512_loadu_si512((const void *)(wp + (size_t)q * 32))));
        add_lanes512(s, acc + i, stride, scale);
    }
}

/* The common case: four rows against two blocks (32 kernels) over the whole
 * depth, 32-bit partial sums widened into 64-bit registers after each chunk
 * (24 accumulators: AVX-512 has 32 vector registers). */
__attribute__((target("avx512f,avx512bw"))) static void
rows4_blocks2_512(const int16_t *a, uint32_t depth, const int16_t *w0, const int16_t *w1,
                  uint32_t pairs, uint32_t chunk_pairs, int64_t scale, int64_t *acc,
                  uint32_t stride)
{
    __m512i wide[4][2][2];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++)
            wide[i][j][0] = wide[i][j][1] = _mm512_setzero_si512();
    for (uint32_t q0 = 0; q0 < pairs; q0 += chunk_pairs) {
        uint32_t q1 = pairs - q0 < chunk_pairs ? pairs : q0 + chunk_pairs;
        __m512i s[4][2];
        for (int i = 0; i < 4; i++)
            s[i][0] = s[i][1] = _mm512_setzero_si512();
        for (uint32_t q = q0; q < q1; q++) {
            __m512i v0 = _mm512_loadu_si512((const void *)(w0 + (size_t)q * 32));
            __m512i v1 = _mm512_loadu_si512((const void *)(w1 + (size_t)q * 32));
            for (int i = 0; i < 4; i++) {
                __m512i b = _mm512_set1_epi32(pair_at(a + (size_t)i * depth + 2 * q));
                s[i][0] = _mm512_add_epi32(s[i][0], _mm512_madd_epi16(b, v0));
                s[i][1] = _mm512_add_epi32(s[i][1], _mm512_madd_epi16(b, v1));
            }
        }
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 2; j++) {
                wide[i][j][0] = _mm512_add_epi64(
                    wide[i][j][0], _mm512_cvtepi32_epi64(_mm512_castsi512_si256(s[i][j])));
                wide[i][j][1] = _mm512_add_epi64(
                    wide[i][j][1], _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(s[i][j], 1)));
            }
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) {
            int64_t v[16];
            _mm512_storeu_si512((void *)v, wide[i][j][0]);
            _mm512_storeu_si512((void *)(v + 8), wide[i][j][1]);
            for (int l = 0; l < 16; l++)
                acc[(size_t)(j * 16 + l) * stride + i] += scale * v[l];
        }
}

/* ---------------------------------------------------------------- AVX2 */

__attribute__((target("avx2"))) static void add_lanes256(__m256i s, int64_t *acc, uint32_t stride,
                                                         int64_t scale)
{
    int32_t v[8];
    _mm256_storeu_si256((__m256i *)v, s);
    for (int l = 0; l < 8; l++)
        acc[(size_t)l * stride] += scale * v[l];
}

__attribute__((target("avx2"))) static void rows_x_block256(const int16_t *a, uint32_t depth,
                                                            uint32_t nrows, const int16_t *wp,
                                                            uint32_t p0, uint32_t p1, int64_t scale,
                                                            int64_t *acc, uint32_t stride)
{
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    const int16_t *r0 = a, *r1 = a + depth, *r2 = a + 2 * (size_t)depth,
                  *r3 = a + 3 * (size_t)depth;
    if (nrows == ROWS) {
        for (uint32_t q = p0; q < p1; q++) {
            __m256i w = _mm256_loadu_si256((const __m256i *)(wp + (size_t)q * 16));
            s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_set1_epi32(pair_at(r0 + 2 * q)), w));
            s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_set1_epi32(pair_at(r1 + 2 * q)), w));
            s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(_mm256_set1_epi32(pair_at(r2 + 2 * q)), w));
            s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(_mm256_set1_epi32(pair_at(r3 + 2 * q)), w));
        }
        add_lanes256(s0, acc, stride, scale);
        add_lanes256(s1, acc + 1, stride, scale);
        add_lanes256(s2, acc + 2, stride, scale);
        add_lanes256(s3, acc + 3, stride, scale);
        return;
    }
    for (uint32_t i = 0; i < nrows; i++) {
        const int16_t *r = a + (size_t)i * depth;
        __m256i s = _mm256_setzero_si256();
        for (uint32_t q = p0; q < p1; q++)
            s = _mm256_add_epi32(
                s, _mm256_madd_epi16(_mm256_set1_epi32(pair_at(r + 2 * q)),
                                     _mm256_loadu_si256((const __m256i *)(wp + (size_t)q * 16))));
        add_lanes256(s, acc + i, stride, scale);
    }
}
#endif

void cmac_simd_block(const int16_t *a, uint32_t depth, uint32_t rows_n, const int16_t *packed,
                     uint32_t k0, uint32_t kern_n, unsigned lanes, uint32_t chunk, int64_t scale,
                     int64_t *acc)
{
#ifdef CMAC_HAVE_X86
    const uint32_t pairs = depth / 2, chunk_pairs = chunk / 2 ? chunk / 2 : 1;
    /* lanes past kern_n compute on zero-padded or neighbouring kernels: they
     * land in a scratch area, not in acc */
    int64_t scratch[ROWS * 16];
    for (uint32_t kb = k0 / lanes; kb * lanes < k0 + kern_n; kb++) {
        const int16_t *wp = packed + (size_t)kb * pairs * lanes * 2;
        uint32_t first = kb * lanes - k0; /* first kernel of the block, relative to k0 */
        bool whole = kb * lanes >= k0 && first + lanes <= kern_n;
        uint32_t r = 0;
        if (lanes == 16 && whole && first + 2 * lanes <= kern_n) { /* two whole blocks */
            for (; r + ROWS <= rows_n; r += ROWS)
                rows4_blocks2_512(a + (size_t)r * depth, depth, wp, wp + (size_t)pairs * 32, pairs,
                                  chunk_pairs, scale, acc + (size_t)first * rows_n + r, rows_n);
            for (uint32_t b = 0; b < 2; b++) /* the leftover rows, block by block */
                for (uint32_t rr = r; rr < rows_n; rr += ROWS) {
                    uint32_t nr = rows_n - rr < ROWS ? rows_n - rr : ROWS;
                    for (uint32_t q = 0; q < pairs; q += chunk_pairs)
                        rows_x_block512(a + (size_t)rr * depth, depth, nr,
                                        wp + (size_t)b * pairs * 32, q,
                                        pairs - q < chunk_pairs ? pairs : q + chunk_pairs, scale,
                                        acc + (size_t)(first + b * lanes) * rows_n + rr, rows_n);
                }
            kb++; /* the second block is done too */
            continue;
        }
        for (; r < rows_n; r += ROWS) {
            uint32_t nr = rows_n - r < ROWS ? rows_n - r : ROWS;
            int64_t *dst = whole ? acc + (size_t)first * rows_n + r : scratch;
            uint32_t stride = whole ? rows_n : ROWS;
            if (!whole)
                memset(scratch, 0, sizeof scratch);
            for (uint32_t q = 0; q < pairs; q += chunk_pairs) {
                uint32_t q1 = pairs - q < chunk_pairs ? pairs : q + chunk_pairs;
                if (lanes == 16)
                    rows_x_block512(a + (size_t)r * depth, depth, nr, wp, q, q1, scale, dst,
                                    stride);
                else
                    rows_x_block256(a + (size_t)r * depth, depth, nr, wp, q, q1, scale, dst,
                                    stride);
            }
            if (whole)
                continue;
            for (uint32_t l = 0; l < lanes; l++) {
                int64_t k = (int64_t)kb * lanes + l - k0;
                if (k < 0 || k >= kern_n)
                    continue;
                for (uint32_t i = 0; i < nr; i++)
                    acc[(size_t)k * rows_n + r + i] += scratch[(size_t)l * ROWS + i];
            }
        }
    }
#else
    (void)a, (void)depth, (void)rows_n, (void)packed, (void)k0, (void)kern_n, (void)lanes,
        (void)chunk, (void)scale, (void)acc;
#endif
}
