/* The fast fp16 MAC path (sim/conv/cmac_fp16.c) against the bit-level reference
 * (sim/conv/cacc_fp16.c), and the convolution's results for any worker count.
 *
 * The fast path rests on one fact about the Booth array: a product aligned
 * by 4 bits is the arithmetic shift of the exact product.  That is checked
 * for every aligned mantissa the format has; the rest is checked by
 * comparing whole outputs on operands chosen to reach every alignment
 * shift, zeros, subnormals, infinities and NaNs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "conv_harness.h"

static void test_shift4_is_arithmetic_shift(void **state)
{
    (void)state;
    static uint32_t m[4 * 1024 + 1024];
    uint32_t n = fp16_aligned_mantissas(m), st = 11;
    for (uint32_t i = 0; i < n; i++)
        for (int j = 0; j < 48; j++) {
            uint32_t d = m[lcg(&st) % n];
            for (unsigned neg = 0; neg < 2; neg++) {
                int64_t p = (int64_t)m[i] * d * (neg ? -1 : 1);
                if (cacc_fp16_booth(neg, m[i], d, 0) != p)
                    fail_msg("unshifted %x * %x neg %u", m[i], d, neg);
                if (cacc_fp16_booth(neg, m[i], d, 4) != (int32_t)(p >> 4))
                    fail_msg("shift 4: %x * %x neg %u: %d, want %lld", m[i], d, neg,
                             cacc_fp16_booth(neg, m[i], d, 4), (long long)(p >> 4));
            }
        }
}

/* The fast path's products aligned by 8 bits (a carry table) against the
 * Booth array, for every pair of aligned mantissas and both signs.  And a
 * weight (the first operand) whose low four bits are clear never takes a
 * carry there (what lets the FMA cells skip those weights' carry8 lookups,
 * struct cmac_fp16_fma_block's mid8), while weights with one of them set
 * do take some (the rule is no wider than it says). */
static void test_shift8_carry_table(void **state)
{
    (void)state;
    static uint32_t m[4 * 1024 + 1024];
    uint32_t n = fp16_aligned_mantissas(m), carried[16] = {0};
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++)
            for (unsigned neg = 0; neg < 2; neg++) {
                int32_t want = cacc_fp16_booth(neg, m[i], m[j], 8),
                        got = cmac_fp16_shift8(neg, m[i], m[j]);
                if (got != want)
                    fail_msg("shift 8: %x * %x neg %u: %d, want %d", m[i], m[j], neg, got, want);
                int64_t p = (int64_t)m[i] * m[j];
                bool carry = want != (int32_t)((neg ? -p : p) >> 8);
                if (carry && (m[i] & 0xfu) == 0)
                    fail_msg("shift 8: %x * %x neg %u carries", m[i], m[j], neg);
                carried[m[i] & 0xfu] += carry;
            }
    for (uint32_t low = 1; low < 16; low++)
        assert_true(carried[low] > 0);
}

/* A weight whose aligned mantissa has its low byte clear takes no Booth
 * carry aligned by 12 bits either, against every data mantissa in both
 * signs (the FMA cells' quiet small weights, struct cmac_fp16_fma_block);
 * with only its low seven bits clear it does (the rule is no wider). */
static void test_shift12_no_carry_from_low_zeros(void **state)
{
    (void)state;
    static uint32_t m[4 * 1024 + 1024];
    uint32_t n = fp16_aligned_mantissas(m), carried7 = 0;
    for (uint32_t i = 0; i < n; i++) {
        if ((m[i] & 0x7fu) != 0)
            continue;
        for (uint32_t j = 0; j < n; j++)
            for (unsigned neg = 0; neg < 2; neg++) {
                int64_t p = (int64_t)m[i] * m[j];
                bool carry = cacc_fp16_booth(neg, m[i], m[j], 12) != (int32_t)((neg ? -p : p) >> 12);
                if (carry && (m[i] & 0xffu) == 0)
                    fail_msg("shift 12: %x * %x neg %u carries", m[i], m[j], neg);
                carried7 += carry;
            }
    }
    assert_true(carried7 > 0);
}

/* The FMA cells' queued products (their Booth carries from the array
 * computed in 16-bit lanes for alignments of 8 to 16, in 32-bit lanes for
 * 20 to 28, none from 32 on, where the array gives 0) against the reference
 * array: every weight mantissa against random data mantissas of both
 * signs, with alignments of 8 to 56 bits scattered over cells; nothing is
 * left in the queue (skipped without the FMA cells). */
static void test_hard_carries_match_booth_array(void **state)
{
    (void)state;
    if (!cmac_fp16_fma())
        skip();
    enum { CELLS = 16, PER_WEIGHT = 40 };
    static const unsigned shifts[] = {8, 12, 16, 12, 16, 20, 24, 28, 20, 24, 28, 32, 44, 56};
    static uint32_t m[4 * 1024 + 1024];
    uint32_t n = fp16_aligned_mantissas(m), st = 4242;
    struct fp16_hard q = {.cap = PER_WEIGHT + 32};
    q.w = malloc(q.cap * sizeof *q.w);
    q.d = malloc(q.cap * sizeof *q.d);
    q.shift = malloc(q.cap * sizeof *q.shift);
    q.cell = malloc(q.cap * sizeof *q.cell);
    assert_non_null(q.w && q.d && q.shift && q.cell);
    for (uint32_t i = 0; i < n; i++) {
        int64_t total[CELLS] = {0}, want[CELLS] = {0};
        for (q.n = 0; q.n < PER_WEIGHT; q.n++) {
            int32_t w = (int32_t)m[i], d = (int32_t)m[lcg(&st) % n];
            w = lcg(&st) % 2 ? -w : w;
            d = lcg(&st) % 2 ? -d : d;
            unsigned s = shifts[lcg(&st) % (sizeof shifts / sizeof *shifts)];
            uint32_t cell = lcg(&st) % CELLS, wt = (uint32_t)abs(w), dat = (uint32_t)abs(d);
            int64_t p = (int64_t)d * w;
            want[cell] += cacc_fp16_booth((d ^ w) < 0, wt, dat, s) - (p >> s);
            q.w[q.n] = w, q.d[q.n] = d, q.shift[q.n] = s, q.cell[q.n] = cell;
        }
        assert_int_equal(cmac_fp16_hard_carries(&q, total), 0);
        assert_int_equal(q.n, 0);
        for (uint32_t c = 0; c < CELLS; c++)
            if (total[c] != want[c])
                fail_msg("weight %x: cell %u off by %lld", m[i], c,
                         (long long)(total[c] - want[c]));
    }
    free(q.w), free(q.d), free(q.shift), free(q.cell);
}

/* A random value of at most bits bits (sign included), often small or at an
 * edge of its range. */
static int64_t random_mantissa(uint32_t *st, unsigned bits)
{
    uint64_t r = (uint64_t)lcg(st) << 32 | lcg(st);
    unsigned width = 1 + lcg(st) % (bits - 1), pick = lcg(st) % 16;
    int64_t top = (int64_t)1 << (bits - 1);
    if (pick == 0)
        return 0;
    if (pick == 1)
        return lcg(st) % 2 ? top - 1 : -top;
    if (pick == 2)
        return -((int64_t)1 << (lcg(st) % (bits - 1)));
    int64_t v = (int64_t)(r & ((1ull << width) - 1));
    return r >> 63 ? -v : v;
}

/* A random accumulator (every exponent, the NaN code included) or zero. */
static uint64_t random_acc(uint32_t *st)
{
    if (lcg(st) % 4)
        return 0;
    unsigned exp = lcg(st) % 256;
    return (uint64_t)exp << 40 | ((uint64_t)random_mantissa(st, 40) & ((1ull << 40) - 1));
}

/* A random partial sum: exponent (often a cell's, a multiple of 4) and mantissa. */
static void random_partial(uint32_t *st, int64_t *exp6, int64_t *mant)
{
    *exp6 = lcg(st) % 8 == 0 ? lcg(st) % 63 : 4 * (lcg(st) % 15);
    *mant = random_mantissa(st, 36);
}

/* CACC's add of the fast path against the reference: chains of partial sums
 * (exponents of every cell, mantissas of every width) on accumulators of
 * every exponent, the NaN code included. */
static void test_acc_add_matches_reference(void **state)
{
    (void)state;
    uint32_t st = 123;
    for (int round = 0; round < 200000; round++) {
        uint64_t acc = random_acc(&st);
        for (int step = 0; step < 24; step++) {
            int64_t exp6, mant;
            random_partial(&st, &exp6, &mant);
            uint64_t want = cacc_fp16_acc_add(acc, cacc_fp16_mac_pack((unsigned)exp6, mant));
            uint64_t got = cmac_fp16_acc_add(acc, (unsigned)exp6, mant);
            if (got != want)
                fail_msg("round %d step %d: acc %012llx + (%lld, %lld): %012llx, want %012llx",
                         round, step, (unsigned long long)acc, (long long)exp6, (long long)mant,
                         (unsigned long long)got, (unsigned long long)want);
            acc = want;
        }
    }
}

/* CACC's fp32 results of eight accumulators at once against the reference,
 * one by one: accumulators of random exponents and mantissas, and the
 * edges (the NaN code, zero, a negative with no low bits, mantissas whose
 * rounding carries into a new exponent, the exponent's wrap; skipped
 * without AVX-512). */
static void test_results_match_reference(void **state)
{
    (void)state;
    if (!cmac_fp16_simd())
        skip();
    const uint64_t mant_edges[] = {0,
                                   1,
                                   1ull << 14,
                                   (1ull << 15) - 1,
                                   (1ull << 39) - 1,
                                   (1ull << 39) - (1ull << 14),
                                   1ull << 39,
                                   (1ull << 39) | (1ull << 14),
                                   (1ull << 40) - 1,
                                   (1ull << 40) - (1ull << 14),
                                   (1ull << 40) - (1ull << 15),
                                   0xffffff8000ull};
    const uint64_t exp_edges[] = {0, 1, 63, 64, 127, 190, 191, 192, 254, 255};
    enum {
        MANTS = sizeof mant_edges / sizeof *mant_edges,
        EDGES = sizeof exp_edges / sizeof *exp_edges * MANTS
    };
    uint64_t acc[64];
    uint32_t got[64], st = 99;
    for (int round = 0; round < 20000; round++) {
        for (uint32_t l = 0; l < 64; l++) { /* the edges first, then random ones */
            uint32_t i = 64 * (uint32_t)round + l;
            acc[l] = i < EDGES ? exp_edges[i / MANTS] << 40 | mant_edges[i % MANTS]
                               : (uint64_t)(lcg(&st) & 0xffffffu) << 24 ^ (uint64_t)lcg(&st);
        }
        cmac_fp16_results_avx512(acc, 64, got);
        for (uint32_t l = 0; l < 64; l++)
            if (got[l] != cacc_fp16_result(acc[l]))
                fail_msg("acc %012llx: %08x, want %08x", (unsigned long long)acc[l], got[l],
                         cacc_fp16_result(acc[l]));
    }
}

/* Eight accumulators side by side (the host's vector unit when it has one,
 * then the portable loop) against eight reference chains. */
static void acc_cells_once(void)
{
    uint32_t st = 321;
    enum { CELLS = 24 };
    for (int round = 0; round < 20000; round++) {
        int64_t mx[CELLS * 8], total[CELLS * 8];
        uint64_t got[8], want[8];
        for (int l = 0; l < 8; l++)
            got[l] = want[l] = random_acc(&st);
        for (int i = 0; i < CELLS * 8; i++)
            random_partial(&st, &mx[i], &total[i]);
        cmac_fp16_acc_cells(mx, total, CELLS, got);
        for (int c = 0; c < CELLS; c++)
            for (int l = 0; l < 8; l++)
                want[l] = cacc_fp16_acc_add(
                    want[l], cacc_fp16_mac_pack((unsigned)mx[c * 8 + l], total[c * 8 + l]));
        for (int l = 0; l < 8; l++)
            if (got[l] != want[l])
                fail_msg("round %d lane %d: %012llx, want %012llx", round, l,
                         (unsigned long long)got[l], (unsigned long long)want[l]);
    }
}

static void test_acc_cells_match_reference(void **state)
{
    (void)state;
    acc_cells_once();
    setenv("DLADBG_NO_SIMD", "1", 1);
    acc_cells_once();
    unsetenv("DLADBG_NO_SIMD");
}

/* A cell's partial sum as real layers make them: the exponent one of three
 * steps above a base, the mantissa of up to 35 bits, sometimes zero; far
 * selects a wider spread that often forces rounding. */
static void layer_partial(uint32_t *st, int64_t base, bool far, int64_t *exp6, int64_t *mant)
{
    *exp6 = base + 4 * (int64_t)(lcg(st) % (far ? 8 : 3));
    *mant = lcg(st) % 16 == 0 ? 0 : random_mantissa(st, 2 + lcg(st) % 34);
}

/* Up to max_cells cells of `lanes` outputs (cell c of lane l at c * lanes +
 * l) as layer_partial makes them, far on every fourth round; on every
 * sixteenth, lane `cancel` cancels to exactly zero on the way.  Returns the
 * count of cells. */
static uint32_t layer_cells(uint32_t *st, int round, uint32_t lanes, uint32_t cancel,
                            uint32_t max_cells, int64_t *mx, int64_t *total)
{
    bool far = round % 4 == 3;
    /* exponents up to 56, a cell's largest (4 x 7 twice) */
    int64_t base = lcg(st) % (far ? 29 : 49);
    uint32_t cells = 1 + lcg(st) % max_cells;
    for (uint32_t i = 0; i < cells * lanes; i++)
        layer_partial(st, base, far, &mx[i], &total[i]);
    if (round % 16 == 5)
        for (uint32_t c = 0; c + 1 < cells; c += 2) {
            mx[(c + 1) * lanes + cancel] = mx[c * lanes + cancel];
            total[(c + 1) * lanes + cancel] = -total[c * lanes + cancel];
        }
    return cells;
}

/* The exact case against the reference's chain from zero: every lane it
 * claims matches CACC's adds one by one, and on data shaped like a layer's
 * it claims most lanes (so that the path is the one taken). */
static void test_acc_exact_matches_reference(void **state)
{
    (void)state;
    uint32_t st = 99;
    enum { CELLS = 40 };
    unsigned claimed = 0, lanes = 0, claimed_far = 0;
    for (int round = 0; round < 40000; round++) {
        bool far = round % 4 == 3;
        int64_t mx[CELLS * 8], total[CELLS * 8];
        uint32_t cells = layer_cells(&st, round, 8, 0, CELLS, mx, total);
        uint64_t got[8];
        uint32_t exact = cmac_fp16_acc_exact(mx, total, cells, got);
        for (int l = 0; l < 8; l++) {
            uint64_t want = 0;
            for (uint32_t c = 0; c < cells; c++)
                want = cacc_fp16_acc_add(
                    want, cacc_fp16_mac_pack((unsigned)mx[c * 8 + l], total[c * 8 + l]));
            if ((exact >> l & 1u) && got[l] != want)
                fail_msg("round %d lane %d (%u cells): %012llx, want %012llx", round, l, cells,
                         (unsigned long long)got[l], (unsigned long long)want);
            claimed += !far && (exact >> l & 1u);
            claimed_far += far && (exact >> l & 1u);
            lanes += !far;
        }
    }
    assert_true(claimed > lanes * 9 / 10);
    assert_true(claimed_far > 0);
}

/* An fp16 value decoded by the format's definition: the signed
 * significand aligned by the exponent's low two bits (a subnormal's
 * exponent counts as 1) and 4 x (exponent >> 2), -128 for a zero. */
static void decoded_by_definition(uint16_t v, int32_t *m, int32_t *h)
{
    unsigned e = (v >> 10) & 31u, frac = v & 0x3ffu;
    bool zero = (v & 0x7fffu) == 0;
    int32_t mag = e ? (int32_t)((frac | 0x400u) << (e & 3u)) : (int32_t)(frac << 1);
    *m = zero ? 0 : (v & 0x8000u) ? -mag : mag;
    *h = zero ? -128 : (int32_t)(e >> 2) * 4;
}

/* Every fp16 bit pattern through the AVX-512 decoder against the format's
 * definition: the signed significand aligned by the exponent's low two
 * bits (a subnormal's exponent counts as 1), 4 x (exponent >> 2), the
 * AVX-512 cells' widened words; the NaN flag; and a short tail leaves the
 * memory past it alone (skipped without AVX-512). */
static void test_decode_every_value(void **state)
{
    (void)state;
    if (!cmac_fp16_simd())
        skip();
    enum { N = 65536 };
    int16_t *raw = malloc(N * sizeof *raw), *m = malloc(N * sizeof *m);
    int8_t *h = malloc(N);
    int32_t *m32 = malloc(N * sizeof *m32), *key = malloc(N * sizeof *key);
    assert_non_null(raw && m && h && m32 && key);
    for (uint32_t v = 0; v < N; v++)
        raw[v] = (int16_t)(uint16_t)v;
    struct fp16_decoded out = {m, h, m32, key};
    assert_true(cmac_fp16_decode_avx512(raw, N, &out)); /* 0x7c01 is among them */
    for (uint32_t v = 0; v < N; v++) {
        int32_t want_m, want_h;
        decoded_by_definition((uint16_t)v, &want_m, &want_h);
        int32_t mag = want_m < 0 ? -want_m : want_m;
        int32_t want_key = 16 * (int32_t)((want_m < 0) << 8 | (mag & 0xff));
        if (m[v] != want_m || h[v] != want_h || m32[v] != (int32_t)((uint32_t)want_m << 16) ||
            key[v] != want_key)
            fail_msg("0x%04x: m %d h %d key %d, want %d %d %d", v, m[v], h[v], key[v], want_m,
                     want_h, want_key);
    }
    /* 37 values of a finite row: no NaN, and nothing written past them */
    for (uint32_t v = 0; v < 64; v++) {
        raw[v] = (int16_t)(0x3c00 + v);
        m[v] = 0x5555;
        key[v] = 0x5555;
    }
    assert_false(cmac_fp16_decode_avx512(raw, 37, &out));
    assert_int_equal(m[36], (0x400 + 36) << 3); /* exponent 15: aligned by 3 */
    assert_int_equal(m[37], 0x5555);
    assert_int_equal(key[37], 0x5555);
    free(raw), free(m), free(h), free(m32), free(key);
}

/* Every fp16 bit pattern through the FMA cells' one-pass decoder against
 * the format's definition: m, h (a zero's 64), d = m * 2^(h - 25) exactly
 * (the value; an exponent field of 31 read as a number), the NaN flag;
 * and a short tail leaves the memory past it alone (skipped where the FMA
 * cells do not run). */
static void test_fma_decode_every_value(void **state)
{
    (void)state;
    if (!cmac_fp16_fma())
        skip();
    enum { N = 65536 };
    int16_t *raw = malloc(N * sizeof *raw), *m = malloc(N * sizeof *m);
    int8_t *h = malloc(N);
    double *d = malloc(N * sizeof *d);
    assert_non_null(raw && m && h && d);
    for (uint32_t v = 0; v < N; v++)
        raw[v] = (int16_t)(uint16_t)v;
    struct fp16_decoded out = {m, h, NULL, NULL};
    assert_true(cmac_fp16_fma_decode(raw, N, &out, d)); /* 0x7c01 is among them */
    for (uint32_t v = 0; v < N; v++) {
        int32_t want_m, want_h;
        decoded_by_definition((uint16_t)v, &want_m, &want_h);
        want_h = want_m ? want_h : 64;
        double want_d = want_m ? ldexp(want_m, want_h - 25) : 0.0;
        if (m[v] != want_m || h[v] != want_h || d[v] != want_d)
            fail_msg("0x%04x: m %d h %d d %a, want %d %d %a", v, m[v], h[v], d[v], want_m,
                     want_h, want_d);
    }
    for (uint32_t v = 0; v < 64; v++) {
        raw[v] = (int16_t)(0x3c00 + v);
        m[v] = 0x5555;
        d[v] = -1.0;
    }
    assert_false(cmac_fp16_fma_decode(raw, 37, &out, d));
    assert_int_equal(m[36], (0x400 + 36) << 3); /* exponent 15: aligned by 3 */
    assert_true(d[36] == ldexp((0x400 + 36) << 3, 12 - 25));
    assert_int_equal(m[37], 0x5555);
    assert_true(d[37] == -1.0);
    free(raw), free(m), free(h), free(d);
}

/* The kernel layouts the AVX-512 cells read, built from every fp16 bit
 * pattern (kernels of an odd depth, 37 values, so that the last value of
 * each goes without its pair), against the definition: the FMA cells'
 * (struct cmac_fp16_fma_block's per-value arrays; the per-cell ones are
 * test_cmac_fp16_cells.c's) and the 16-kernel cells' (cmac_fp16_wide_mk and the exponent part); the
 * lanes past a short block's kernels read as zeros (skipped without
 * AVX-512). */
static void check_fma_layout(const int16_t *raw, size_t depth, size_t kn)
{
    enum { L = CMAC_FP16_FMA_LANES };
    size_t n = L * depth;
    struct cmac_fp16_fma_block k = {.w = malloc(n * sizeof(double)),
                                    .h = malloc(n),
                                    .idx = malloc(n),
                                    .bit = malloc(n),
                                    .m = malloc(n * sizeof(int16_t))};
    assert_non_null(k.w && k.h && k.idx && k.bit && k.m);
    cmac_fp16_fma_layout(raw, depth, kn, &k);
    for (size_t i = 0; i < depth; i++)
        for (size_t l = 0; l < L; l++) {
            int32_t m = 0, h = -128;
            if (l < kn)
                decoded_by_definition((uint16_t)raw[l * depth + i], &m, &h);
            uint32_t key = (uint32_t)(m < 0) << 8 | ((uint32_t)(m < 0 ? -m : m) & 0xffu);
            size_t v = L * i + l;
            double w = m ? ldexp(m, h + 25) : 0.0;
            size_t wv = 16 * (depth * (l / 16) + i) + l % 16;
            if (k.m[v] != m || k.w[wv] != w || k.h[v] != (m ? h + 64 : 0x80) ||
                k.idx[v] != key >> 3 || k.bit[v] != 1u << (key & 7u))
                fail_msg("value %zu kernel %zu (0x%04x): FMA layout m %d w %g h %u idx %u bit %u",
                         i, l, (uint16_t)raw[l * depth + i], k.m[v], k.w[wv], k.h[v], k.idx[v],
                         k.bit[v]);
        }
    free(k.w), free(k.h), free(k.idx), free(k.bit), free(k.m);
}

static void check_wide_layout(const int16_t *raw, size_t depth, size_t kn)
{
    enum { L = 16 };
    int32_t *mk = malloc(L * depth * sizeof *mk);
    int8_t *wh = malloc(L * depth);
    assert_non_null(mk && wh);
    cmac_fp16_wide_layout(raw, depth, kn, mk, wh);
    for (size_t i = 0; i < depth; i++)
        for (size_t l = 0; l < L; l++) {
            int32_t m = 0, h = -128;
            if (l < kn)
                decoded_by_definition((uint16_t)raw[l * depth + i], &m, &h);
            if (mk[L * i + l] != cmac_fp16_wide_mk((int16_t)m) || wh[L * i + l] != h)
                fail_msg("value %zu kernel %zu: 16-kernel layout %08x %d, want %08x %d", i, l,
                         (unsigned)mk[L * i + l], wh[L * i + l],
                         (unsigned)cmac_fp16_wide_mk((int16_t)m), h);
        }
    free(mk), free(wh);
}

static void test_kernel_layouts(void **state)
{
    (void)state;
    if (!cmac_fp16_simd())
        skip();
    enum { DEPTH = 37, KERNELS = CMAC_FP16_FMA_LANES };
    int16_t raw[KERNELS * DEPTH];
    for (uint32_t first = 0; first < 65536; first += KERNELS * DEPTH) {
        for (uint32_t i = 0; i < KERNELS * DEPTH; i++)
            raw[i] = (int16_t)(uint16_t)(first + i);
        check_wide_layout(raw, DEPTH, 16);
        check_wide_layout(raw + 16 * DEPTH, DEPTH, 16);
        if (cmac_fp16_fma())
            check_fma_layout(raw, DEPTH, KERNELS);
    }
    check_wide_layout(raw, DEPTH, 5);
    check_wide_layout(raw, 1, 1);
    if (cmac_fp16_fma()) {
        check_fma_layout(raw, DEPTH, 20);
        check_fma_layout(raw, DEPTH, 5);
        check_fma_layout(raw, 1, 1);
    }
}

/* The AVX-512 exact case of 16 lanes claims the same lanes as the portable
 * one of 8 and gives them the same results, on layer-shaped cells, far
 * spreads, zero cells and lanes that cancel (skipped without AVX-512). */
static void test_acc_exact16_matches_portable(void **state)
{
    (void)state;
    if (!cmac_fp16_simd())
        skip();
    uint32_t st = 4242;
    enum { CELLS = 49 };
    for (int round = 0; round < 20000; round++) {
        int64_t mx[CELLS * 16], total[CELLS * 16];
        uint32_t cells = layer_cells(&st, round, 16, 3, CELLS, mx, total);
        uint64_t got[16];
        uint32_t exact = (uint32_t)cmac_fp16_acc_exact_avx512(mx, total, cells, 16, 16, got);
        for (int half = 0; half < 2; half++) {
            int64_t hmx[CELLS * 8], htotal[CELLS * 8];
            for (uint32_t c = 0; c < cells; c++)
                for (int l = 0; l < 8; l++) {
                    hmx[c * 8 + l] = mx[c * 16 + 8 * half + l];
                    htotal[c * 8 + l] = total[c * 16 + 8 * half + l];
                }
            uint64_t want[8];
            uint32_t want_exact = cmac_fp16_acc_exact(hmx, htotal, cells, want);
            assert_int_equal((exact >> (8 * half)) & 0xffu, want_exact);
            for (int l = 0; l < 8; l++)
                if (want_exact >> l & 1u)
                    assert_int_equal(got[8 * half + l], want[l]);
        }
    }
}

/* The FMA cells' exact case of 32 lanes (exponents as bytes, cells
 * stride apart) claims the same lanes as the portable one of 8 and gives
 * them the same results, on layer-shaped cells, far spreads, zero cells,
 * lanes that cancel and lanes whose cells share one exponent (every lane's
 * on every eighth round, where no sum is shifted; their partial sums leave
 * the limits too) (skipped where the FMA cells do not run). */
static void test_fma_acc_exact_matches_portable(void **state)
{
    (void)state;
    if (!cmac_fp16_fma())
        skip();
    uint32_t st = 3434;
    enum { CELLS = 49, LANES = 32, STRIDE = 40 };
    for (int round = 0; round < 10000; round++) {
        int64_t mx[CELLS * LANES], total[CELLS * LANES], stotal[CELLS * STRIDE];
        uint8_t mx8[CELLS * STRIDE];
        uint32_t cells = layer_cells(&st, round, LANES, 5, CELLS, mx, total);
        for (uint32_t c = 0; c < cells; c++)
            for (int l = 0; l < LANES; l++) {
                if (round % 8 == 2) /* one exponent a lane */
                    mx[c * LANES + l] = mx[l];
                mx8[c * STRIDE + l] = (uint8_t)mx[c * LANES + l];
                stotal[c * STRIDE + l] = total[c * LANES + l];
            }
        uint64_t got[LANES];
        uint32_t exact = cmac_fp16_fma_acc_exact(mx8, stotal, cells, STRIDE, got);
        for (int part = 0; part < LANES / 8; part++) {
            int64_t pmx[CELLS * 8], ptotal[CELLS * 8];
            for (uint32_t c = 0; c < cells; c++)
                for (int l = 0; l < 8; l++) {
                    pmx[c * 8 + l] = mx[c * LANES + 8 * part + l];
                    ptotal[c * 8 + l] = total[c * LANES + 8 * part + l];
                }
            uint64_t want[8];
            uint32_t want_exact = cmac_fp16_acc_exact(pmx, ptotal, cells, want);
            if (((exact >> (8 * part)) & 0xffu) != want_exact)
                fail_msg("round %d lanes %d-%d: exact %02x, want %02x", round, 8 * part,
                         8 * part + 7, (exact >> (8 * part)) & 0xffu, want_exact);
            for (int l = 0; l < 8; l++)
                if (want_exact >> l & 1u)
                    assert_int_equal(got[8 * part + l], want[l]);
        }
    }
}

/* Partial sums that end just inside, on and just past +-2^38 (two cells
 * of 2^37 at the scale of a small first one), in both signs: a lane is
 * claimed exactly when every partial sum is inside, and a claimed lane
 * matches the reference; on the portable exact case or the AVX-512 one
 * (whose sums of 39 bits are normalised by a shift of one to the right). */
enum exact_kind { EXACT_PORTABLE, EXACT_AVX512, EXACT_FMA };

static uint32_t exact_of(enum exact_kind kind, const int64_t *mx, const int64_t *total,
                         uint64_t got[8])
{
    if (kind == EXACT_PORTABLE)
        return cmac_fp16_acc_exact(mx, total, 3, got);
    if (kind == EXACT_AVX512)
        return (uint32_t)cmac_fp16_acc_exact_avx512(mx, total, 3, 8, 8, got);
    uint8_t mx8[3 * CMAC_FP16_FMA_LANES]; /* the 8 lanes and 24 zero ones */
    int64_t total32[3 * CMAC_FP16_FMA_LANES] = {0};
    uint64_t acc[CMAC_FP16_FMA_LANES];
    for (int c = 0; c < 3; c++)
        for (int l = 0; l < CMAC_FP16_FMA_LANES; l++) {
            mx8[c * CMAC_FP16_FMA_LANES + l] = (uint8_t)(l < 8 ? mx[c * 8 + l] : 0);
            total32[c * CMAC_FP16_FMA_LANES + l] = l < 8 ? total[c * 8 + l] : 0;
        }
    uint32_t exact = cmac_fp16_fma_acc_exact(mx8, total32, 3, CMAC_FP16_FMA_LANES, acc);
    memcpy(got, acc, 8 * sizeof *got);
    assert_int_equal(exact >> 8, 0xffffffu); /* lanes of zero cells are exact: 0 */
    for (int l = 8; l < CMAC_FP16_FMA_LANES; l++)
        assert_int_equal(acc[l], 0);
    return exact & 0xffu;
}

static void acc_exact_at_its_bound(enum exact_kind kind)
{
    for (int64_t sign = -1; sign <= 1; sign += 2)
        for (int64_t step = -3; step <= 3; step++) {
            int64_t mx[3 * 8], total[3 * 8];
            for (int l = 0; l < 8; l++) {
                mx[l] = 12;
                total[l] = sign * (l - 4 + step); /* zero in some lanes: the scale moves */
                mx[8 + l] = mx[16 + l] = 16;
                total[8 + l] = total[16 + l] = sign * (1ll << 33);
            }
            uint64_t got[8];
            uint32_t exact = exact_of(kind, mx, total, got);
            for (int l = 0; l < 8; l++) {
                int64_t base = total[l] ? 12 : 16, sum = 0;
                bool inside = true;
                uint64_t want = 0;
                for (int c = 0; c < 3; c++) {
                    want = cacc_fp16_acc_add(
                        want, cacc_fp16_mac_pack((unsigned)mx[c * 8 + l], total[c * 8 + l]));
                    if (total[c * 8 + l]) /* a zero cell sets no scale */
                        sum += total[c * 8 + l] * ((int64_t)1 << (mx[c * 8 + l] - base));
                    inside &= sum >= -(1ll << 38) && sum < (1ll << 38);
                }
                assert_int_equal(exact >> l & 1u, inside);
                if (inside)
                    assert_int_equal(got[l], want);
            }
        }
}

static void test_acc_exact_at_its_bound(void **state)
{
    (void)state;
    acc_exact_at_its_bound(EXACT_PORTABLE);
}

static void test_acc_exact16_at_its_bound(void **state)
{
    (void)state;
    if (!cmac_fp16_simd())
        skip();
    acc_exact_at_its_bound(EXACT_AVX512);
}

static void test_fma_acc_exact_at_its_bound(void **state)
{
    (void)state;
    if (!cmac_fp16_fma())
        skip();
    acc_exact_at_its_bound(EXACT_FMA);
}

/* A row block's results stored kernel by kernel (cmac_fp16_fma_store8):
 * every kernel's 8 rows at its plane, nothing past the kernels asked for
 * or between the planes, and the NaNs among the stored results counted
 * (fp32 NaNs of both signs, not infinities); skipped without the FMA
 * cells. */
static void test_fma_store8_by_kernel(void **state)
{
    (void)state;
    if (!cmac_fp16_fma())
        skip();
    enum { L = CMAC_FP16_FMA_LANES, R = CMAC_FP16_FMA_ROWS, PLANE = 11 };
    uint32_t res[R * L];
    int32_t out[L * PLANE + R];
    static const uint32_t counts[] = {32, 13};
    for (unsigned c = 0; c < 2; c++) {
        uint32_t kernels = counts[c];
        uint32_t want_nans = 0;
        for (uint32_t i = 0; i < R * L; i++) {
            uint32_t l = i % L, pick = (i * 7u) % 23u;
            res[i] = pick == 0 ? 0x7fc00000u + i : pick == 1 ? 0xff800001u : pick == 2 ? 0x7f800000u
                                                                                         : i * 977u;
            want_nans += l < kernels && pick < 2;
        }
        for (uint32_t v = 0; v < L * PLANE + R; v++)
            out[v] = -1;
        assert_int_equal(cmac_fp16_fma_store8(res, out, PLANE, kernels), want_nans);
        for (uint32_t v = 0; v < L * PLANE + R; v++) {
            uint32_t l = v / PLANE, i = v % PLANE;
            int32_t want = l < kernels && i < R ? (int32_t)res[L * i + l] : -1;
            if (out[v] != want)
                fail_msg("kernels %u: out[%u] %08x, want %08x", kernels, v, (uint32_t)out[v],
                         (uint32_t)want);
        }
    }
}

/* An fp16 value for the comparisons: kind picks the spread of exponents. */
static uint16_t operand(uint32_t *st, unsigned kind)
{
    uint32_t r = lcg(st);
    uint16_t sign = (uint16_t)((r & 1) << 15), frac = (uint16_t)((r >> 1) & 0x3ff);
    unsigned pick = (r >> 11) % 100;
    if (pick < 4)
        return sign; /* signed zero */
    if (pick < 7)
        return sign | (frac ? frac : 1); /* subnormal */
    if (kind == 2 && pick < 9)
        return sign | 0x7c00 | (pick == 8 ? frac : 0); /* infinity or NaN */
    unsigned e = kind == 0 ? 13 + (r >> 18) % 5 : 1 + (r >> 18) % 30;
    return (uint16_t)(sign | e << 10 | frac);
}

static void compare_outputs_once(unsigned kind, int rounds)
{
    uint32_t st = 5 + kind;
    int16_t a[1024], w[1024];
    for (int round = 0; round < rounds; round++) {
        uint32_t seg = (uint32_t[]){8, 32, 64}[lcg(&st) % 3];
        uint32_t c = 1 + lcg(&st) % 150, taps = 1 + lcg(&st) % 6;
        struct conv_operands ops = {
            .rows = 1, .kernels = 1, .depth = c * taps, .taps = taps, .seg_len = seg, .c = c};
        for (uint32_t i = 0; i < ops.depth; i++) {
            a[i] = (int16_t)operand(&st, kind);
            w[i] = (int16_t)operand(&st, kind);
        }
        uint32_t want = cacc_fp16_output(&ops, a, w), got = cmac_fp16_output(&ops, a, w);
        if (got != want)
            fail_msg("kind %u round %d (c %u taps %u seg %u): %08x, want %08x", kind, round, c,
                     taps, seg, got, want);
    }
}

/* With the host's SIMD kernel (when it has one) and with the portable loops. */
static void compare_outputs(unsigned kind, int rounds)
{
    compare_outputs_once(kind, rounds);
    setenv("DLADBG_NO_SIMD", "1", 1);
    compare_outputs_once(kind, rounds);
    unsetenv("DLADBG_NO_SIMD");
}

static void test_outputs_near_exponents(void **state)
{
    (void)state;
    compare_outputs(0, 3000);
}

static void test_outputs_every_shift(void **state)
{
    (void)state;
    compare_outputs(1, 3000);
}

static void test_outputs_special_values(void **state)
{
    (void)state;
    compare_outputs(2, 1500);
}

static void test_wino_op_matches_reference(void **state)
{
    (void)state;
    uint32_t st = 99;
    for (int round = 0; round < 3000; round++) {
        uint64_t want[4] = {0}, got[4] = {0};
        unsigned kind = (unsigned)round % 3;
        for (int op = 0; op < 4; op++) {
            int16_t d[64], w[64];
            for (int i = 0; i < 64; i++) {
                d[i] = (int16_t)operand(&st, kind);
                w[i] = (int16_t)operand(&st, kind);
            }
            cacc_fp16_wino_op(d, w, want);
            cmac_fp16_wino_op(d, w, got);
        }
        for (int q = 0; q < 4; q++)
            if (got[q] != want[q])
                fail_msg("round %d output %d: %012llx, want %012llx", round, q,
                         (unsigned long long)got[q], (unsigned long long)want[q]);
    }
}

/* The whole convolution core with DLADBG_THREADS workers. */
static void run_with_threads(const struct spec *s, const char *threads, struct dla_cube *out,
                             struct layer_data *ld)
{
    setenv("DLADBG_THREADS", threads, 1);
    struct dla *d = dla_create(dla_config_find(s->config), NULL);
    prepare(d, s, ld);
    assert_int_equal(run_conv(d, out), 0);
    dla_destroy(d);
    unsetenv("DLADBG_THREADS");
}

/* Every output on 1 and 3 threads alike and, with other_cells, alike with
 * the cells the host runs without VBMI (AVX-512's 16-kernel cells, or the
 * portable loops): on a layer of many rows, a check of the FMA cells when
 * the host has them.  Every ref_step-th output (none for 0) against the
 * reference. */
static void compare_runs(const struct spec *s, bool other_cells, uint32_t ref_step)
{
    struct dla_cube one, many, other = {0};
    struct layer_data ld1 = {0}, ld3 = {0}, ldo = {0};
    run_with_threads(s, "1", &one, &ld1);
    run_with_threads(s, "3", &many, &ld3);
    if (other_cells) {
        setenv("DLADBG_NO_VBMI", "1", 1);
        run_with_threads(s, "1", &other, &ldo);
        unsetenv("DLADBG_NO_VBMI");
    }
    uint32_t n = 0;
    for (uint32_t k = 0; k < s->k; k++)
        for (uint32_t y = 0; y < spec_oh(s); y++)
            for (uint32_t x = 0; x < spec_ow(s); x++, n++) {
                int32_t v = one.v[cube_index(&one, 0, k, y, x)];
                if (many.v[cube_index(&many, 0, k, y, x)] != v)
                    fail_msg("k %u (%u, %u): 3 threads differ from 1", k, x, y);
                if (other_cells && other.v[cube_index(&other, 0, k, y, x)] != v)
                    fail_msg("k %u (%u, %u): the 16-kernel cells differ", k, x, y);
                if (ref_step && n % ref_step == 0 &&
                    (uint32_t)v != ref_fp16_output_bits(s, &ld1, 64, 0, k, y, x))
                    fail_msg("k %u (%u, %u): differs from the reference", k, x, y);
            }
    assert_true(n > 0 && (!other_cells || n > ref_step));
    cube_free(&one), cube_free(&many), cube_free(&other);
    free_layer_data(&ld1), free_layer_data(&ld3), free_layer_data(&ldo);
}

/* With each way the host can compute the cells: its best (the FMA cells
 * with VBMI), AVX-512's 16-kernel cells without VBMI (when it has AVX-512
 * at all), the portable loops. */
static void same_for_each_cell_kind(const struct spec *s)
{
    compare_runs(s, false, 1);
    setenv("DLADBG_NO_VBMI", "1", 1);
    compare_runs(s, false, 1);
    unsetenv("DLADBG_NO_VBMI");
    setenv("DLADBG_NO_SIMD", "1", 1);
    compare_runs(s, false, 1);
    unsetenv("DLADBG_NO_SIMD");
}

static void test_fp16_layer_threads(void **state)
{
    (void)state;
    struct spec s = spec_3x3_same("nv_full", 2, 9, 7, 70, 37);
    s.data_banks = 8;
    s.weight_banks = 8;
    same_for_each_cell_kind(&s);
}

/* Operands of every exponent (products aligned by every shift, infinities,
 * rows and kernels with a NaN), kernels not a multiple of the vector
 * lanes, channels in a full and a partial atomic operation: every output
 * against the reference, each way the host can compute the cells. */
static void test_fp16_layer_wide_operands(void **state)
{
    (void)state;
    struct spec s = spec_3x3_same("nv_full", 2, 9, 7, 70, 37);
    s.data_banks = 8;
    s.weight_banks = 8;
    s.fp16_wide = true;
    s.seed = 77;
    same_for_each_cell_kind(&s);
}

/* The layer's kernels handed to the cells at once (conv.c's passes over
 * the weights would otherwise cut them into passes of their own first, and
 * the cells' passes below would not be reached). */
#define ONE_CONV_PASS ((size_t)1 << 30)

/* compare_runs with conv.c's weight passes out of the way (ONE_CONV_PASS),
 * so that the cells' own passes are the ones tested; then the default. */
static void compare_runs_in_passes(const struct spec *s, bool other_cells, uint32_t ref_step)
{
    conv_set_weight_pass_values(ONE_CONV_PASS);
    compare_runs(s, other_cells, ref_step);
    conv_set_weight_pass_values(0);
}

/* Kernels too many for one pass of the AVX-512 cells (272 of 3 x 3 x 352
 * values, over the 4 MB a pass holds: the 16-kernel cells take 256 and
 * then 16, the FMA cells 64 at a time, the last pass 16 and 16 padding):
 * every output against the reference, on 1 and 3 threads. */
static void test_fp16_layer_kernel_passes(void **state)
{
    (void)state;
    struct spec s = spec_3x3_same("nv_full", 2, 3, 3, 352, 272);
    s.data_banks = 2;
    s.weight_banks = 14;
    compare_runs_in_passes(&s, false, 1);
}

/* The FMA cells against the other cells and the reference (every
 * ref_step-th output) on moderate values with subnormals, then on every
 * exponent with the given seed. */
static void fma_cells_moderate_and_wide(struct spec *s, uint32_t wide_seed, uint32_t ref_step)
{
    compare_runs(s, true, ref_step);
    s->fp16_wide = true;
    s->seed = wide_seed;
    compare_runs(s, true, ref_step);
}

/* The FMA cells (a layer of 270 output rows: 67 blocks of four and one of
 * two, where stand-ins fill the missing rows) on moderate values with
 * subnormals and on every exponent (products aligned by every shift,
 * infinities, NaNs), kernels not a multiple of 32, a full and a partial
 * atomic operation. */
static void test_fp16_layer_fma_cells(void **state)
{
    (void)state;
    struct spec s = spec_3x3_same("nv_full", 2, 18, 15, 70, 37);
    s.data_banks = 8;
    s.weight_banks = 8;
    fma_cells_moderate_and_wide(&s, 78, 7);
}

/* The FMA cells over several kernel passes (256 rows, 272 kernels of 3 x
 * 3 x 352 values: 64 kernels a pass, the last 16 and 16 padding). */
static void test_fp16_layer_fma_passes(void **state)
{
    (void)state;
    struct spec s = spec_3x3_same("nv_full", 2, 16, 16, 352, 272);
    s.data_banks = 8;
    s.weight_banks = 8;
    compare_runs_in_passes(&s, true, 101);
}

/* A first layer's cells of three channels, one per tap of a 7 x 7 kernel
 * (72 output rows: the FMA cells' least is 64), on moderate values with
 * subnormals and on every exponent. */
static void test_fp16_layer_fma_narrow_cells(void **state)
{
    (void)state;
    struct spec s = spec_3x3_same("nv_full", 2, 9, 8, 3, 37);
    s.kw = s.kh = 7;
    s.pl = s.pr = s.pt = s.pb = 3;
    s.data_banks = 8;
    s.weight_banks = 8;
    fma_cells_moderate_and_wide(&s, 79, 3);
}

static void test_int8_layer_threads(void **state)
{
    (void)state;
    struct spec s = spec_3x3_same("nv_full", 0, 20, 19, 40, 70);
    s.data_banks = 8;
    s.weight_banks = 8;
    compare_runs(&s, false, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shift4_is_arithmetic_shift),
        cmocka_unit_test(test_shift8_carry_table),
        cmocka_unit_test(test_shift12_no_carry_from_low_zeros),
        cmocka_unit_test(test_hard_carries_match_booth_array),
        cmocka_unit_test(test_acc_add_matches_reference),
        cmocka_unit_test(test_results_match_reference),
        cmocka_unit_test(test_acc_cells_match_reference),
        cmocka_unit_test(test_acc_exact_matches_reference),
        cmocka_unit_test(test_acc_exact_at_its_bound),
        cmocka_unit_test(test_acc_exact16_at_its_bound),
        cmocka_unit_test(test_acc_exact16_matches_portable),
        cmocka_unit_test(test_fma_acc_exact_matches_portable),
        cmocka_unit_test(test_fma_acc_exact_at_its_bound),
        cmocka_unit_test(test_fma_store8_by_kernel),
        cmocka_unit_test(test_decode_every_value),
        cmocka_unit_test(test_fma_decode_every_value),
        cmocka_unit_test(test_kernel_layouts),
        cmocka_unit_test(test_outputs_near_exponents),
        cmocka_unit_test(test_outputs_every_shift),
        cmocka_unit_test(test_outputs_special_values),
        cmocka_unit_test(test_wino_op_matches_reference),
        cmocka_unit_test(test_fp16_layer_threads),
        cmocka_unit_test(test_fp16_layer_wide_operands),
        cmocka_unit_test(test_fp16_layer_kernel_passes),
        cmocka_unit_test(test_fp16_layer_fma_cells),
        cmocka_unit_test(test_fp16_layer_fma_passes),
        cmocka_unit_test(test_fp16_layer_fma_narrow_cells),
        cmocka_unit_test(test_int8_layer_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
