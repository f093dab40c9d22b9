/* CMAC + CACC, fp16 mode, fast: the same bits as the reference in
 * cacc_fp16.c, computed with integer arithmetic the vector unit runs.
 *
 * What is exact.  The MAC cell multiplies two aligned mantissas (at most
 * 14 bits each: 11 bits shifted left by the exponent's low two bits) with a
 * radix-4 Booth array; its two carry-save outputs plus the array's sign
 * compensation add up to the exact signed product P (at most 28 bits), so
 * an unshifted product is plain integer multiplication.  Products are
 * aligned to the cell's largest exponent in steps of 4 bits, and the
 * hardware shifts the two carry-save words separately: the result is
 * floor(P / 2^s) minus the carry that the two discarded low parts would have
 * produced.  For s = 4 that carry is always zero (the low four bits of the
 * array's sum word never exceed those of P; checked exhaustively by
 * tests/unit/test_cmac_fp16.c), so s = 0 and s = 4 -- nearly every product
 * of real data, whose exponents within one atomic operation rarely differ
 * by more than one step -- are an arithmetic shift of an integer product.
 * For s = 8 the carry depends only on the low bytes of the two mantissas
 * and the sign, so it comes from a 16 KB table filled from the Booth array
 * (checked for every mantissa pair).  The rest ("hard" products, s >= 12:
 * about 0.5% of ResNet-18's) go through the Booth array, queued and
 * vectorised.  The sum of a cell's products is exact in 64 bits, so its
 * order does not matter.
 *
 * CACC then adds the cells of an output one by one with its own rounding,
 * a sequential chain per output; acc_add_lane does that add without
 * branches so that the chains of 8 (portable) or 16 (AVX-512) kernels of
 * one data row advance side by side.
 *
 * Operands are decoded once (a signed aligned mantissa and 4 x the
 * exponent's high part per element) instead of once per product, and
 * output positions are spread over dla_threads() workers.  With AVX-512
 * and VBMI (chosen at run time), layers of FMA_MIN_ROWS output rows or
 * more run as double-precision FMAs that round down, eight rows against 32
 * kernels at a time (cmac_fp16_fma.c says why that is exact); other
 * layers, and hosts with AVX-512 but no VBMI, interleave the kernels
 * 16 at a time so that a cell is computed for 16 kernels in the vector
 * lanes, with no horizontal reductions (cmac_fp16_x86.c).  A data row or
 * kernel holding a NaN takes the reference path (the NaN rules depend on
 * which operand comes first). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "core/scratch.h"
#include "num/fp16.h"
#include "num/fpnum.h"
#include "num/hot_clones.h"
#include "core/threads.h"

/* The decoded exponent part of a zero: never the largest, and the shift it
 * gets is never small (a zero's product is 0 and must not count). */
#define ZERO_HIGH  (-128)
#define EASY_SHIFT 4
#define ROW_BLOCK  8u /* rows sharing one pass over the weights */
_Static_assert(ROW_BLOCK == CMAC_FP16_FMA_ROWS, "the FMA cells take a whole row block");
#define CELL_MAX   64u /* channels of one atomic operation, at most */
#define HARD_GROUP 16u /* hard products computed together */
#define SIMD_MIN_CELL 16u /* channels from which the AVX-512 cell pays */
#define FMA_MIN_ROWS  64u /* output rows from which the FMA cells pay */

/* Room for the vector cells' arrays on a 64-byte boundary: their 64-byte
 * loads and stores (a value of 32 kernels' bytes, 8 doubles or 64-bit
 * sums) otherwise straddle two cache lines each, malloc's blocks being 16
 * bytes past one (the FMA cells' weights alone took 7% of the bench
 * layer's time more, measured).  Freed by free(). */
static void *alloc64(size_t bytes)
{
    return aligned_alloc(64, (bytes + 63) / 64 * 64);
}

/* ---------------------------------------------------------------- operands */

struct fp16_rows {
    int16_t *m; /* signed aligned mantissa, 0 for a zero */
    int8_t *h;  /* 4 x (exponent >> 2), ZERO_HIGH for a zero */
    /* data rows for the AVX-512 cells: m widened into the high half (m << 16,
     * for vpmaddwd against the kernels' mk), the value's row of shift8_rows,
     * each cell's nonzero values (offsets in the cell) and their count */
    int32_t *m32, *key;
    uint8_t *live, *nlive;
    /* for the FMA cells, m * 2^(h - 25), the value (struct cmac_fp16_fma_rows) */
    double *d;
};

/* Kernels interleaved by WIDE_LANES for the AVX-512 cells (value i of
 * kernel k0 + l at k0 * depth + WIDE_LANES * i + l, k0 a multiple of
 * WIDE_LANES): mk as cmac_fp16_wide_mk makes it, h as in fp16_rows; NULL
 * when not used.  vbmi: the cells' carries by byte permute. */
struct wide_kernels {
    int32_t *mk;
    int8_t *h;
    bool vbmi;
};

static inline void decode_one(uint16_t v, int16_t *m, int8_t *h)
{
    unsigned e = (v >> 10) & 0x1fu;
    int32_t mant = (int32_t)((v & 0x3ffu) | (e ? 0x400u : 0u));
    int32_t mag = mant << (e ? (e & 3u) : 1u);
    bool zero = (v & 0x7fffu) == 0;
    *m = (int16_t)(zero ? 0 : (v & 0x8000u) ? -mag : mag);
    *h = (int8_t)(zero ? ZERO_HIGH : (int32_t)(e >> 2) * 4);
}

static void decode(const int16_t *raw, size_t n, int16_t *m, int8_t *h)
{
    for (size_t i = 0; i < n; i++)
        decode_one((uint16_t)raw[i], &m[i], &h[i]);
}

/* Values of a row the MAC uses: the row is padded to depth with values
 * nobody reads (a NaN there must not send the row to the reference path). */
static size_t used_values(const struct conv_operands *ops)
{
    return (size_t)ops->taps * ops->c;
}

static bool has_nan(const int16_t *raw, size_t n)
{
    bool nan = false;
    for (size_t i = 0; i < n; i++)
        nan |= fp16_is_nan((uint16_t)raw[i]) != 0;
    return nan;
}

/* ---------------------------------------------------------------- MAC cell */

/* The Booth array of the reference (cacc_fp16_booth) without branches:
 * digit i of the recoded weight selects 0, +-dat or +-2 dat; a negative
 * partial product is the one's complement plus a carry-in bit (inv). */
static inline uint32_t booth_csa(uint32_t x, uint32_t y, uint32_t z, uint32_t *carry)
{
    *carry = ((x & y) | (y & z) | (x & z)) << 1;
    return x ^ y ^ z;
}

/* The array's two carry-save output words for (-1)^neg * wt * dat. */
static inline void booth_words(unsigned neg, uint32_t wt, uint32_t dat, uint32_t *sum,
                               uint32_t *carry)
{
    uint32_t bits = (wt << 1) ^ (neg ? 0xffffffffu : 0u), pp[8], inv[8];
    for (int i = 0; i < 8; i++) {
        uint32_t b0 = (bits >> (2 * i)) & 1u, b1 = (bits >> (2 * i + 1)) & 1u,
                 b2 = (bits >> (2 * i + 2)) & 1u;
        uint32_t one = b0 ^ b1, two = (b0 & b1 & ~b2 & 1u) | (~b0 & ~b1 & b2 & 1u);
        uint32_t mag = (dat & (0u - one)) | ((dat << 1) & (0u - two));
        inv[i] = b2 & ~(b0 & b1) & 1u;
        pp[i] = inv[i] ? (~mag & 0xffffu) : (mag | 0x10000u);
    }
    uint32_t lo[5] = {pp[0], pp[1] << 2 | inv[0], pp[2] << 4 | inv[1] << 2,
                      pp[3] << 6 | inv[2] << 4, inv[3] << 6};
    uint32_t hi[5] = {pp[4] << 8, pp[5] << 10 | inv[4] << 8, pp[6] << 12 | inv[5] << 10,
                      pp[7] << 14 | inv[6] << 12, inv[7] << 14};
    uint32_t ac, as = booth_csa(lo[0], lo[1], lo[2], &ac);
    as = booth_csa(as, ac, lo[3], &ac);
    as = booth_csa(as, ac, lo[4], &ac);
    uint32_t bc, bs = booth_csa(hi[0], hi[1], hi[2], &bc);
    bs = booth_csa(bs, bc, hi[3], &bc);
    bs = booth_csa(bs, bc, hi[4], &bc);
    uint32_t cc, cs = booth_csa(as, ac, bs, &cc);
    *sum = booth_csa(cs, cc, bc, carry);
}

static inline int32_t booth_shifted(unsigned neg, uint32_t wt, uint32_t dat, unsigned shift)
{
    uint32_t cs, cc;
    booth_words(neg, wt, dat, &cs, &cc);
    unsigned sh = shift & 31u; /* shifts of 32 and more give 0, below */
    uint32_t comp = shift > 28 ? 0 : (uint32_t)((int32_t)0xaaab0000u >> sh) + (shift >= 20);
    uint32_t r = (cs >> sh) + (cc >> sh) + comp;
    return (int32_t)(shift >= 32 ? 0 : r);
}

/* Products aligned by 8 bits, the commonest of the rest: floor(P / 256)
 * minus the carry out of the two carry-save words' low bytes.  Those bytes
 * depend only on the low bytes of both mantissas and the sign (the Booth
 * digits below bit 8 read weight bits 0-7, the partial products' low bits
 * dat's, and carry-save carries only move up), so the carry is a bit of a
 * 2 x 256 x 256 table (16 KB), filled once from the Booth array itself. */
static uint8_t shift8_carry[2 * 256 * 256 / 8];
/* The same bits for the AVX-512 cells: a row of 512 bits per data sign and
 * low byte, bit (weight sign << 8 | weight low byte) in it. */
static uint32_t shift8_rows[2 * 256][16];
static pthread_once_t shift8_once = PTHREAD_ONCE_INIT;

/* The carries of n of the 2 x 256 x 256 products from first on, one byte
 * each (a loop the compiler vectorises: the table is filled at the first
 * fp16 layer). */
DLA_HOT_CLONES
static void shift8_carries_of(uint8_t *carry, uint32_t first, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = first + k, cs, cc;
        booth_words(i >> 16, (i >> 8) & 0xffu, i & 0xffu, &cs, &cc);
        carry[k] = (uint8_t)(((cs & 0xffu) + (cc & 0xffu)) >> 8);
    }
}

static void shift8_fill(void)
{
    /* a part at a time: a static array of all 128 KiB stayed resident for
     * the rest of every run with an fp16 layer (issue 34's memory target) */
    uint8_t part[4096];
    for (uint32_t i = 0; i < 2 * 256 * 256; i++) {
        if (i % sizeof part == 0)
            shift8_carries_of(part, i, sizeof part);
        uint32_t neg = i >> 16, w = (i >> 8) & 0xffu, d = i & 0xffu, carry = part[i % sizeof part];
        shift8_carry[i / 8] |= (uint8_t)(carry << (i % 8));
        for (uint32_t d_neg = 0; d_neg < 2; d_neg++) { /* the weight's sign makes neg */
            uint32_t key = (neg ^ d_neg) << 8 | w;
            shift8_rows[d_neg << 8 | d][key / 32] |= carry << (key % 32);
        }
    }
}

/* The carry for signed aligned mantissas d and w (both nonzero). */
static inline int32_t shift8_carry_of(int32_t d, int32_t w)
{
    uint32_t i = (uint32_t)((d ^ w) < 0) << 16 | ((uint32_t)abs(w) & 0xffu) << 8 |
                 ((uint32_t)abs(d) & 0xffu);
    return (shift8_carry[i / 8] >> (i % 8)) & 1;
}

static inline int32_t shift8_product(int32_t d, int32_t w)
{
    return ((d * w) >> 8) - shift8_carry_of(d, w);
}

/* The Booth carries of the products aligned by 8 bits (one bit per channel
 * in mask), which the AVX-512 cell sums as floor(P / 256). */
static inline int64_t shift8_carries(const int16_t *dm, const int16_t *wm, uint64_t mask)
{
    int64_t n = 0;
    for (; mask; mask &= mask - 1) {
        uint32_t i = (uint32_t)__builtin_ctzll(mask);
        n += shift8_carry_of(dm[i], wm[i]);
    }
    return n;
}

int32_t cmac_fp16_shift8(unsigned neg, uint32_t wt, uint32_t dat)
{
    pthread_once(&shift8_once, shift8_fill);
    int32_t d = (int32_t)dat, w = (int32_t)wt;
    return shift8_product(neg ? -d : d, w);
}

/* Products the fast loops leave out: those aligned by 8 bits summed at once
 * (shift8_product), the others queued (struct fp16_hard, conv.h) with the
 * cell they belong to and computed together by the Booth array (a loop the
 * compiler vectorises). */
static inline int64_t enqueue_hard(const int16_t *dm, const int8_t *dh, const int16_t *wm,
                                   const int8_t *wh, uint64_t hard, int32_t mx, uint32_t cell,
                                   struct fp16_hard *q)
{
    int64_t sum8 = 0;
    uint32_t k = q->n; /* locals: the stores below cannot change them */
    uint32_t *restrict qcell = q->cell, *restrict qshift = q->shift;
    int32_t *restrict qd = q->d, *restrict qw = q->w;
    for (; hard; hard &= hard - 1) {
        uint32_t i = (uint32_t)__builtin_ctzll(hard);
        int32_t d = dm[i], w = wm[i];
        uint32_t shift = (uint32_t)(mx - dh[i] - wh[i]);
        if (shift == 8) {
            sum8 += shift8_product(d, w);
            continue;
        }
        qcell[k] = cell;
        qd[k] = d;
        qw[k] = w;
        qshift[k++] = shift;
    }
    q->n = k;
    return sum8;
}

/* The queue padded to whole groups of HARD_GROUP with products that give 0
 * (a shift of 32), so that the loop is whole vectors with no scalar tail. */
static inline void run_hard(struct fp16_hard *q)
{
    uint32_t n = (q->n + HARD_GROUP - 1) / HARD_GROUP * HARD_GROUP;
    for (uint32_t k = q->n; k < n; k++) {
        q->w[k] = q->d[k] = 0;
        q->shift[k] = 32;
    }
    const int32_t *restrict w = q->w, *restrict d = q->d;
    const uint32_t *restrict shift = q->shift;
    int32_t *restrict r = q->r;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t neg = (uint32_t)((d[k] ^ w[k]) < 0);
        uint32_t wt = (uint32_t)(w[k] < 0 ? -w[k] : w[k]), dat = (uint32_t)(d[k] < 0 ? -d[k] : d[k]);
        r[k] = booth_shifted(neg, wt, dat, shift[k]);
    }
}

/* Room in the queue for more products plus the padding run_hard adds;
 * false when out of memory (the queue is left usable at its old size). */
static bool hard_reserve(struct fp16_hard *q, uint32_t more)
{
    uint64_t need = (uint64_t)q->n + more + HARD_GROUP;
    if (need <= q->cap)
        return true;
    uint64_t cap = 2 * (uint64_t)q->cap > need ? 2 * (uint64_t)q->cap : need;
    if (cap > UINT32_MAX)
        return false;
    int32_t *w = realloc(q->w, cap * sizeof *w);
    q->w = w ? w : q->w;
    int32_t *d = realloc(q->d, cap * sizeof *d);
    q->d = d ? d : q->d;
    uint32_t *shift = realloc(q->shift, cap * sizeof *shift);
    q->shift = shift ? shift : q->shift;
    uint32_t *cell = realloc(q->cell, cap * sizeof *cell);
    q->cell = cell ? cell : q->cell;
    int32_t *r = realloc(q->r, cap * sizeof *r);
    q->r = r ? r : q->r;
    if (!w || !d || !shift || !cell || !r)
        return false;
    q->cap = (uint32_t)cap;
    return true;
}

static inline int32_t largest_high(const int8_t *dh, const int8_t *wh, uint32_t n)
{
    int32_t mx = 0;
    for (uint32_t i = 0; i < n; i++) {
        int32_t h = dh[i] + wh[i];
        mx = h > mx ? h : mx;
    }
    return mx;
}

/* The easy products of one atomic operation (shift 0 or 4, or zero): their
 * exact sum and the cell's exponent; the others are flagged in *hard, one
 * bit per channel.  The portable loops. */
static inline int64_t easy_sum(const int16_t *dm, const int8_t *dh, const int16_t *wm,
                               const int8_t *wh, uint32_t n, int32_t *mx_out, uint64_t *hard)
{
    int32_t mx = largest_high(dh, wh, n);
    int64_t total = 0;
    uint8_t flag[CELL_MAX], some = 0;
    for (uint32_t i = 0; i < n; i++) {
        int32_t s = mx - dh[i] - wh[i];
        int32_t p = (int32_t)dm[i] * wm[i];
        int32_t easy = s <= EASY_SHIFT;
        int32_t r = p >> (easy ? s : 0);
        total += easy ? r : 0;
        flag[i] = (uint8_t)(!easy & (p != 0));
        some |= flag[i];
    }
    uint64_t mask = 0;
    for (uint32_t i = 0; some && i < n; i++)
        mask |= (uint64_t)flag[i] << i;
    *hard = mask;
    *mx_out = mx;
    return total;
}

/* ---------------------------------------------------------------- CACC */

#define ACC_LANES 8u /* outputs (kernels of one row) accumulated side by side */
_Static_assert(ACC_LANES == 8, "cmac_fp16_acc_cells_avx512 adds eight lanes");
#define WIDE_LANES 16u /* kernels of cmac_fp16_cells16_avx512 */
_Static_assert(WIDE_LANES <= CMAC_FP16_FMA_LANES, "cacc_results holds either cells' lanes");
#define MASK40     ((1ull << 40) - 1)
#define LOW39      ((1ull << 39) - 1)

static inline int64_t sext40(uint64_t v)
{
    return (int64_t)(v << 24) >> 24;
}

/* cacc_fp16_acc_add(acc, cacc_fp16_mac_pack(exp6, mant)) without branches,
 * so that the accumulators of several outputs advance side by side (the
 * loop over them vectorises) and no lane waits on a mispredicted jump.
 * Each line mirrors a step of the reference; mant is the cell's exact sum
 * (under 2^36 in magnitude) and exp6 its exponent (never the NaN code). */
static inline __attribute__((always_inline)) uint64_t acc_add_lane(uint64_t acc, int64_t exp6,
                                                                   int64_t mant)
{
    int64_t acc_exp = (int64_t)((acc >> 40) & 0xffu), acc_m = sext40(acc);
    /* the partial sum normalised into the 40-bit frame */
    int64_t lead = __builtin_clzll(((uint64_t)(mant ^ (mant >> 63)) << 1) | 1) - 26;
    lead = lead > 37 ? 37 : lead;
    int64_t m = (int64_t)((uint64_t)mant << (lead + 2));
    int64_t m_exp = (exp6 + 49 - lead) & 0xff;
    bool acc_nan = acc_exp == 0xff;
    acc_exp = acc_m == 0 ? 0 : acc_exp;
    /* align to the larger exponent, keeping the bits shifted out */
    bool mac_bigger = m_exp > acc_exp;
    int64_t big = mac_bigger ? m_exp : acc_exp;
    int64_t diff = mac_bigger ? m_exp - acc_exp : acc_exp - m_exp;
    int64_t smaller = mac_bigger ? acc_m : m, other = mac_bigger ? m : acc_m;
    int64_t d = diff > 40 ? 40 : diff;
    uint64_t out_bits = diff > 40 ? 0 : ((uint64_t)smaller & ((1ull << d) - 1)) << (40 - d);
    int64_t sum_raw = other + (diff > 40 ? 0 : smaller >> d);
    /* one bit too many, or redundant sign bits to shift out */
    bool overflow = (uint64_t)((sum_raw >> 39) + 1) > 1;
    int64_t sign_low = (sum_raw ^ (sum_raw >> 63)) & (int64_t)LOW39;
    int64_t sh = overflow ? 0 : __builtin_clzll(((uint64_t)sign_low << 1) | 1) - 24;
    uint64_t fill = sh ? out_bits >> (40 - sh) : 0;
    int64_t sum = overflow ? sum_raw >> 1 : sext40(((uint64_t)sum_raw << sh) | fill);
    uint64_t out_norm = (out_bits << sh) & MASK40;
    int64_t exp = overflow ? big + 1 : big - sh;
    /* round: positive results on the guard bit, negative ones on guard and sticky */
    uint64_t guard = overflow ? (uint64_t)sum_raw & 1u : out_norm >> 39;
    uint64_t sticky = overflow ? out_bits != 0 : (out_norm & LOW39) != 0;
    uint64_t round = sum < 0 ? guard & sticky : guard;
    int64_t rounded = sext40((uint64_t)sum + round);
    bool flip = (rounded < 0) != (sum < 0);
    int64_t fin =
        flip ? sext40(((uint64_t)rounded & MASK40) >> 1 | (uint64_t)(sum < 0) << 39) : rounded;
    exp += flip;
    uint64_t r = (uint64_t)(fin == 0 ? 0 : exp & 0xff) << 40 | ((uint64_t)fin & MASK40);
    uint64_t nan = 0xffull << 40 | (((uint64_t)acc_m >> 29) & 0x7ffu) << 29;
    return mant == 0 ? acc : acc_nan ? nan : r;
}

uint64_t cmac_fp16_acc_add(uint64_t acc, unsigned exp6, int64_t mant)
{
    return acc_add_lane(acc, exp6, mant);
}

/* CACC's adds of ACC_LANES outputs, cell after cell (cell c of lane l at
 * c * stride + l), without the vector unit. */
static inline void acc_cells(const int64_t *mx, const int64_t *total, uint32_t cells,
                             uint32_t stride, uint64_t acc[ACC_LANES])
{
    for (uint32_t c = 0; c < cells; c++)
        for (uint32_t l = 0; l < ACC_LANES; l++)
            acc[l] = acc_add_lane(acc[l], mx[(size_t)c * stride + l], total[(size_t)c * stride + l]);
}

void cmac_fp16_acc_cells(const int64_t *mx, const int64_t *total, uint32_t cells, uint64_t acc[8])
{
    if (cmac_fp16_simd())
        cmac_fp16_acc_cells_avx512(mx, total, cells, ACC_LANES, acc);
    else
        acc_cells(mx, total, cells, ACC_LANES, acc);
}

/* ---------------------------------------------------------------- CACC, exact case
 *
 * CACC's add rounds only when the exact sum does not fit its 40-bit
 * mantissa.  Adding two values it holds exactly: the smaller is shifted
 * right into the larger's frame with every bit it loses kept (as in
 * two's complement, smaller = (smaller >> d) 2^d + low bits, for d <= 40;
 * for d > 40 the sum cannot fit 40 bits anyway), the normalising shift
 * brings the kept bits back, and when the exact sum fits 40 bits the bits
 * left below the result are zero: no guard, no sticky, no rounding, and the
 * result is the exact sum in the normalised form one add from zero gives
 * it.  So when every partial sum of an output's cells, taken exactly at the
 * scale of its smallest nonzero cell, stays within +-2^38 (well inside 40
 * bits, where the accumulator's exponent is never near its wrap or the NaN
 * code), CACC's result is acc_add_lane(0, base, sum): a shift and an add
 * per cell instead of a float add.  Every fp16 layer of the samples and of
 * NVIDIA's loadables qualifies throughout (measured); an output that does
 * not takes the adds one by one. */

/* ACC_LANES lanes of cells (cell c of lane l at c * stride + l) summed
 * exactly into acc[l]; the result has bit l set when lane l qualified (its
 * acc is then CACC's), clear when its adds must be taken one by one (the
 * limits are CMAC_FP16_EXACT_*, conv.h; cmac_fp16_acc_exact_avx512 is the
 * same for any multiple of 8 lanes). */
static inline __attribute__((always_inline)) uint32_t
acc_exact(const int64_t *mx, const int64_t *total, uint32_t cells, uint32_t stride, uint64_t *acc)
{
    const uint32_t lanes = ACC_LANES;
    int64_t base[ACC_LANES], bad[ACC_LANES];
    uint64_t sum[ACC_LANES]; /* unsigned: wraps harmlessly once a lane is bad */
    for (uint32_t l = 0; l < lanes; l++) {
        base[l] = CMAC_FP16_NO_BASE;
        bad[l] = 0;
        sum[l] = 0;
    }
    for (uint32_t c = 0; c < cells; c++)
        for (uint32_t l = 0; l < lanes; l++) {
            int64_t e = mx[(size_t)c * stride + l], t = total[(size_t)c * stride + l];
            base[l] = t != 0 && e < base[l] ? e : base[l];
        }
    for (uint32_t c = 0; c < cells; c++)
        for (uint32_t l = 0; l < lanes; l++) {
            int64_t e = mx[(size_t)c * stride + l], t = total[(size_t)c * stride + l];
            int64_t sh = t != 0 ? e - base[l] : 0;
            bad[l] |= sh > CMAC_FP16_EXACT_SPAN;
            sum[l] += (uint64_t)t << (sh > CMAC_FP16_EXACT_SPAN ? 0 : sh);
            bad[l] |= sum[l] + (uint64_t)CMAC_FP16_EXACT_LIMIT >= 2 * (uint64_t)CMAC_FP16_EXACT_LIMIT;
        }
    uint32_t exact = 0;
    for (uint32_t l = 0; l < lanes; l++) {
        /* a lane that did not qualify gets a placeholder (its sum may be
         * any size, too big for acc_add_lane's normalising shift) */
        int64_t mant = bad[l] ? 0 : (int64_t)sum[l];
        acc[l] = acc_add_lane(0, base[l] == CMAC_FP16_NO_BASE ? 0 : base[l], mant);
        exact |= (uint32_t)(bad[l] == 0) << l;
    }
    return exact;
}

uint32_t cmac_fp16_acc_exact(const int64_t *mx, const int64_t *total, uint32_t cells,
                             uint64_t acc[8])
{
    return acc_exact(mx, total, cells, ACC_LANES, acc);
}

/* CACC's adds one by one for ACC_LANES outputs from zero (cells as acc_cells). */
static inline void acc_chain8(const int64_t *mx, const int64_t *total, uint32_t cells,
                              uint32_t stride, bool simd, uint64_t acc[ACC_LANES])
{
    for (uint32_t l = 0; l < ACC_LANES; l++)
        acc[l] = 0;
    if (simd)
        cmac_fp16_acc_cells_avx512(mx, total, cells, stride, acc);
    else
        acc_cells(mx, total, cells, stride, acc);
}

/* CACC's result for ACC_LANES outputs from zero: the exact case, then the
 * adds one by one when a lane needs them. */
static inline void acc_row8(const int64_t *mx, const int64_t *total, uint32_t cells,
                            uint32_t stride, bool simd, uint64_t acc[ACC_LANES])
{
    if (acc_exact(mx, total, cells, stride, acc) != 0xffu)
        acc_chain8(mx, total, cells, stride, simd, acc);
}

/* Per-worker room for the cells of up to WIDE_LANES outputs (cell c of
 * lane l at c * lanes + l) and their hard products; oom once the queue could
 * not grow. */
struct out_scratch {
    int64_t *total, *mx;
    struct fp16_hard q;
    struct cmac_fp16_row_cell *rc; /* the FMA cells' row cells, a row block's */
    /* the FMA cells' exponents; mx then only for cacc_results_fma's adds,
     * allocated when the first output needs them (most layers never do) */
    uint8_t *mx8;
    size_t slots; /* of total (and mx) */
    bool oom;
};

/* One row against lanes (<= ACC_LANES) kernels, depth values apart from wm
 * and wh on: each cell's products, then CACC's adds of every lane side by
 * side; res[l] gets lane l's fp32 result. */
DLA_HOT_CLONES
static void outputs(const struct conv_operands *ops, const int16_t *dm, const int8_t *dh,
                    const int16_t *wm, const int8_t *wh, uint32_t lanes, struct out_scratch *sc,
                    bool simd, uint32_t *res)
{
    uint32_t cells = 0;
    sc->q.n = 0;
    for (uint32_t l = 0; l < ACC_LANES; l++) {
        const int16_t *wml = wm + (size_t)l * ops->depth;
        const int8_t *whl = wh + (size_t)l * ops->depth;
        cells = 0;
        for (uint32_t c0 = 0; c0 < ops->c; c0 += ops->seg_len) {
            uint32_t nj = ops->c - c0 < ops->seg_len ? ops->c - c0 : ops->seg_len;
            for (uint32_t t = 0; t < ops->taps; t++, cells++) {
                uint32_t at = cells * ACC_LANES + l;
                if (l >= lanes) { /* an unused lane: zero partial sums leave it alone */
                    sc->total[at] = sc->mx[at] = 0;
                    continue;
                }
                size_t off = (size_t)ops->taps * c0 + (size_t)t * nj;
                uint64_t hard, shift8 = 0;
                int32_t mx;
                /* a few channels (a first layer's) are quicker without the vector unit */
                int64_t total =
                    simd && nj >= SIMD_MIN_CELL
                        ? cmac_fp16_cell_avx512(dm + off, dh + off, wml + off, whl + off, nj, &mx,
                                                &hard, &shift8)
                        : easy_sum(dm + off, dh + off, wml + off, whl + off, nj, &mx, &hard);
                if (shift8)
                    total -= shift8_carries(dm + off, wml + off, shift8);
                if (hard && !hard_reserve(&sc->q, nj))
                    sc->oom = true;
                else if (hard)
                    total += enqueue_hard(dm + off, dh + off, wml + off, whl + off, hard, mx, at,
                                          &sc->q);
                sc->total[at] = total;
                sc->mx[at] = mx;
            }
        }
    }
    run_hard(&sc->q);
    for (uint32_t k = 0; k < sc->q.n; k++)
        sc->total[sc->q.cell[k]] += sc->q.r[k];
    uint64_t acc[ACC_LANES];
    acc_row8(sc->mx, sc->total, cells, ACC_LANES, simd, acc);
    for (uint32_t l = 0; l < lanes; l++)
        res[l] = cacc_fp16_result(acc[l]);
}

/* Atomic operations (cells) of one output. */
static uint32_t cells_of(const struct conv_operands *ops)
{
    return ops->taps * ((ops->c + ops->seg_len - 1) / ops->seg_len);
}

/* Scratch for one output row's cells (a block of rows with the FMA cells:
 * fma); the hard queue starts small and grows (a row's products are rarely
 * more than a few percent hard, and room for all of them was megabytes per
 * worker on a layer of 512 x 4608 values); false when out of memory. */
static bool scratch_alloc(struct out_scratch *sc, const struct conv_operands *ops, bool fma)
{
    size_t n = (size_t)cells_of(ops) * CMAC_FP16_FMA_LANES * CMAC_FP16_FMA_ROWS + HARD_GROUP;
    *sc = (struct out_scratch){.total = alloc64(n * sizeof *sc->total), .slots = n};
    if (fma) {
        sc->rc = malloc((size_t)cells_of(ops) * CMAC_FP16_FMA_ROWS * sizeof *sc->rc);
        sc->mx8 = alloc64(n);
    } else {
        sc->mx = alloc64(n * sizeof *sc->mx);
    }
    return sc->total && (fma ? sc->rc && sc->mx8 : sc->mx != NULL) && hard_reserve(&sc->q, 1024);
}

static void scratch_free(struct out_scratch *sc)
{
    free(sc->total);
    free(sc->mx);
    free(sc->rc);
    free(sc->mx8);
    free(sc->q.cell);
    free(sc->q.w);
    free(sc->q.d);
    free(sc->q.shift);
    free(sc->q.r);
}

/* ---------------------------------------------------------------- layer */

struct fp16_job {
    const struct conv_params *p;
    const struct conv_operands *ops;
    struct fp16_rows w;
    struct wide_kernels wide;
    /* the FMA cells' kernels: block b of the pass (CMAC_FP16_FMA_LANES
     * kernels from k_first + LANES b on) at LANES b * depth of each array;
     * w NULL when not used */
    struct cmac_fp16_fma_block fma;
    void *fma_owned; /* the block fma's arrays (but planes) lie in, when not the model's */
    bool *kernel_nan;
    uint32_t k_first, k_end; /* the kernels of this pass (all of them without wide) */
    struct dla_cube *out;
    bool simd; /* cmac_fp16_cell_avx512 */
    /* the pass's kernel blocks (from k_first) and row blocks, each taken by
     * whichever worker is free */
    struct dla_parts kernel_blocks, row_blocks;
    bool failed[DLA_MAX_THREADS];
    uint64_t nan_out[DLA_MAX_THREADS];
};

/* Where output row r's channel 0 goes in the cube (channel k is k planes on). */
static size_t row_base(const struct fp16_job *j, uint32_t r)
{
    uint32_t plane = j->p->out_w * j->p->out_h, b = r / plane, pos = r % plane;
    return cube_index(j->out, b, 0, pos / j->p->out_w, pos % j->p->out_w);
}

static void store(struct fp16_job *j, unsigned worker, size_t base, uint32_t k, uint32_t f)
{
    if (k >= j->out->c)
        return; /* CACC delivers its output channels only: kernels beyond are dropped */
    j->out->v[base + (size_t)k * j->out->h * j->out->w] = (int32_t)f;
    j->nan_out[worker] += fp_is_nan(FP32, f);
}

/* CACC's fp32 results for `lanes` outputs side by side (a multiple of
 * ACC_LANES, at most CMAC_FP16_FMA_LANES; cell c of lane l at c * stride +
 * l) into res: the exact case, then the adds one by one for each eight
 * lanes that need them (the AVX-512 cells' last step). */
static void cacc_results(const int64_t *mx, const int64_t *total, uint32_t cells, uint32_t lanes,
                         uint32_t stride, uint32_t *res)
{
    uint64_t acc[CMAC_FP16_FMA_LANES];
    uint64_t exact = cmac_fp16_acc_exact_avx512(mx, total, cells, lanes, stride, acc);
    for (uint32_t part = 0; part < lanes; part += ACC_LANES)
        if (((exact >> part) & 0xffu) != 0xffu)
            acc_chain8(mx + part, total + part, cells, stride, true, acc + part);
    cmac_fp16_results_avx512(acc, lanes, res);
}

/* One row against WIDE_LANES kernels from k0 on (interleaved in wide) with
 * the AVX-512 cells: the values the cells left over, then CACC's adds;
 * false when the hard queue could not grow. */
DLA_HOT_CLONES
static bool outputs16(const struct conv_operands *ops, const struct fp16_rows *row,
                      const struct wide_kernels *wide, uint32_t k0, struct out_scratch *sc,
                      uint32_t *res)
{
    const int32_t *wmk = wide->mk + (size_t)k0 * ops->depth;
    const int8_t *wh = wide->h + (size_t)k0 * ops->depth;
    int64_t *total = sc->total, *mx = sc->mx;
    struct fp16_hard *q = &sc->q;
    q->n = 0;
    uint32_t cells = cells_of(ops);
    for (uint32_t done = 0; (done = cmac_fp16_cells16_avx512(
                                 ops, done, row->m32, row->h, row->key, row->live, row->nlive,
                                 wmk, wh, &shift8_rows[0][0], total, mx, q, wide->vbmi)) < cells;)
        if (!hard_reserve(q, WIDE_LANES * row->nlive[done]))
            return false;
    run_hard(q);
    for (uint32_t k = 0; k < q->n; k++)
        total[q->cell[k]] += q->r[k];
    cacc_results(mx, total, cells, WIDE_LANES, WIDE_LANES, res);
    return true;
}

/* CACC's fp32 results for row i of an FMA row block (the cells' exponents
 * in sc->mx8, their sums in sc->total): the exact case of all 32 lanes,
 * then for each 8 lanes that need them the adds one by one, from the
 * exponents widened into sc->mx (rare: an output whose cells' sums do not
 * fit CACC's 40 bits exactly; sc->mx is allocated then); false when
 * memory for it is short. */
static bool cacc_results_fma(struct out_scratch *sc, uint32_t i, uint32_t cells, uint32_t *res)
{
    enum { L = CMAC_FP16_FMA_LANES, R = CMAC_FP16_FMA_ROWS };
    const size_t stride = R * L;
    uint64_t acc[L];
    uint32_t exact = cmac_fp16_fma_acc_exact(sc->mx8 + L * i, sc->total + L * i, cells, stride, acc);
    if (exact != ~0u && !sc->mx && !(sc->mx = alloc64(sc->slots * sizeof *sc->mx)))
        return false;
    for (uint32_t part = 0; part < L; part += ACC_LANES) {
        if (((exact >> part) & 0xffu) == 0xffu)
            continue;
        int64_t *mx = sc->mx + L * i + part;
        for (uint32_t c = 0; c < cells; c++)
            for (uint32_t l = 0; l < ACC_LANES; l++)
                mx[stride * c + l] = sc->mx8[stride * c + L * i + part + l];
        acc_chain8(mx, sc->total + L * i + part, cells, stride, true, acc + part);
    }
    cmac_fp16_results_avx512(acc, L, res);
    return true;
}

/* What the FMA cells counted for the queued products, floor(P / 2^s), taken
 * back and the Booth array's result added (after run_hard). */
static void add_hard_fma(const struct fp16_hard *q, int64_t *total)
{
    for (uint32_t k = 0; k < q->n; k++) {
        int64_t p = (int64_t)q->d[k] * q->w[k];
        total[q->cell[k]] += q->r[k] - (p >> q->shift[k]);
    }
}

/* Values per field of a block's bit-sliced planes: the depth and a pair of
 * zeros (cmac_fp16_sliced_layout). */
static size_t planes_stride(const struct conv_operands *ops)
{
    return ops->depth + 2;
}

static size_t planes_per_block(const struct conv_operands *ops)
{
    return CMAC_FP16_SLICED_FIELDS * planes_stride(ops);
}

/* Block b of the FMA cells' kernels of a pass (fma, all blocks): each
 * array from the block's start on (struct cmac_fp16_fma_block). */
static struct cmac_fp16_fma_block fma_block(const struct cmac_fp16_fma_block *fma,
                                            const struct conv_operands *ops, size_t b)
{
    size_t at = b * CMAC_FP16_FMA_LANES * ops->depth;
    size_t cells = cells_of(ops), per_cell = b * CMAC_FP16_FMA_LANES * cells;
    return (struct cmac_fp16_fma_block){.w = fma->w + at,
                                        .h = fma->h + at,
                                        .idx = fma->idx + at,
                                        .bit = fma->bit + at,
                                        .m = fma->m + at,
                                        .kmax = fma->kmax + per_cell,
                                        .kmask = fma->kmask + per_cell,
                                        .small = fma->small + b * ops->depth,
                                        .by8 = fma->by8 + b * ops->depth,
                                        .mid8 = fma->mid8 + b * ops->depth,
                                        .cell_values = fma->cell_values + b * cells * 2,
                                        .small_first = fma->small_first + b * (cells + 1u),
                                        .small_at = fma->small_at + at,
                                        .small_lane = fma->small_lane + at,
                                        .small_h = fma->small_h + at,
                                        .small_m = fma->small_m + at,
                                        .small_lanes = fma->small_lanes + b * cells *
                                                                              (CMAC_FP16_FMA_LANES + 1u),
                                        .planes = fma->planes ? fma->planes + b * planes_per_block(ops)
                                                              : NULL,
                                        .planes_stride = planes_stride(ops),
                                        .all_sliced = fma->all_sliced};
}

/* Offset of row i's decoded values in a block of rn rows: row 0's for the
 * rows past rn, which it stands in for. */
static size_t block_row(const struct conv_operands *ops, uint32_t i, uint32_t rn)
{
    return (size_t)(i < rn ? i : 0) * ops->depth;
}

/* The block's rows (rn of them, the rest standing in for missing rows)
 * against the kernels of FMA block b (cmac_fp16_fma.c): the cells, the
 * Booth array's products, then CACC's adds; res[LANES * i + l] gets row i's
 * result for kernel l; false when the hard queue could not grow. */
DLA_HOT_CLONES
static bool outputs_fma(const struct conv_operands *ops, const struct fp16_rows *d, uint32_t rn,
                        const struct cmac_fp16_fma_block *fma, size_t b, struct out_scratch *sc,
                        uint32_t *res)
{
    enum { L = CMAC_FP16_FMA_LANES, R = CMAC_FP16_FMA_ROWS };
    const struct cmac_fp16_fma_block k = fma_block(fma, ops, b);
    struct cmac_fp16_fma_rows rows;
    for (uint32_t i = 0; i < R; i++) {
        rows.m[i] = d->m + block_row(ops, i, rn);
        rows.h[i] = d->h + block_row(ops, i, rn);
        rows.d[i] = d->d + block_row(ops, i, rn);
    }
    if (b == 0) /* the first kernel block of the pass: the rows are new */
        cmac_fp16_fma_row_cells(ops, &rows, sc->rc);
    rows.cell = sc->rc;
    int64_t *total = sc->total;
    struct fp16_hard *q = &sc->q;
    q->n = 0;
    uint32_t cells = cells_of(ops);
    for (uint32_t done = 0; (done = cmac_fp16_cells_fma(ops, done, &rows, &k, &shift8_rows[0][0],
                                                         total, sc->mx8, q)) < cells;)
        if (!hard_reserve(q, R * L * (CMAC_FP16_FMA_CELL + 1u)))
            return false;
    if (cmac_fp16_hard_carries(q, total)) {
        run_hard(q);
        add_hard_fma(q, total);
    }
    for (uint32_t i = 0; i < rn; i++)
        if (!cacc_results_fma(sc, i, cells, res + L * i))
            return false;
    return true;
}

/* The fp32 NaNs among n results: a loop of its own, which the compiler
 * vectorises (the stores beside it go a plane apart). */
static uint32_t nans(const uint32_t *res, uint32_t n)
{
    uint32_t nan = 0;
    for (uint32_t l = 0; l < n; l++)
        nan += (res[l] & 0x7fffffffu) > 0x7f800000u;
    return nan;
}

/* Whether a block's rows are a whole block (ROW_BLOCK) side by side in an
 * output line, base[i] where row i's channel 0 goes, none with a NaN (the
 * cells' results are all its results). */
static bool rows_side_by_side(const size_t *base, uint32_t rn, const bool *row_nan)
{
    bool side_by_side = rn == ROW_BLOCK;
    for (uint32_t i = 0; side_by_side && i < rn; i++)
        side_by_side = base[i] == base[0] + i && !row_nan[i];
    return side_by_side;
}

/* The results of rows [r0, r0 + rn) for kernels [k0, k0 + lanes) stored,
 * res[stride * i + l] row r0 + i's for kernel k0 + l, base[i] where row r0
 * + i's channel 0 goes (row_base); rows and kernels with a NaN from the
 * reference. */
static void store_block(struct fp16_job *j, unsigned worker, uint32_t r0, uint32_t rn,
                        const size_t *base, const bool *row_nan, uint32_t k0, uint32_t lanes,
                        const uint32_t *res, size_t stride)
{
    const struct conv_operands *ops = j->ops;
    bool kernel_nan = false;
    for (uint32_t l = 0; l < lanes; l++)
        kernel_nan |= j->kernel_nan[k0 + l];
    size_t plane = (size_t)j->out->h * j->out->w;
    uint32_t delivered = k0 >= j->out->c ? 0 : j->out->c - k0 < lanes ? j->out->c - k0 : lanes;
    if (j->fma.w && rows_side_by_side(base, rn, row_nan) && !kernel_nan) {
        j->nan_out[worker] +=
            cmac_fp16_fma_store8(res, j->out->v + base[0] + k0 * plane, plane, delivered);
        return;
    }
    for (uint32_t i = 0; i < rn; i++) {
        uint32_t r = r0 + i;
        if (!row_nan[i] && !kernel_nan) { /* every result is the cells' */
            int32_t *v = j->out->v + base[i] + k0 * plane;
            for (uint32_t l = 0; l < delivered; l++)
                v[l * plane] = (int32_t)res[stride * i + l];
            j->nan_out[worker] += nans(res + stride * i, delivered);
            continue;
        }
        for (uint32_t l = 0; l < lanes; l++) {
            uint32_t k = k0 + l, f = res[stride * i + l];
            if (row_nan[i] || j->kernel_nan[k])
                f = cacc_fp16_output(ops, ops->data + (size_t)r * ops->depth,
                                     ops->weight + (size_t)k * ops->depth);
            store(j, worker, base[i], k, f);
        }
    }
}

/* Rows [r0, r0 + rn) against every kernel: with the FMA cells, all rows
 * and CMAC_FP16_FMA_LANES kernels at a time; else row by row, WIDE_LANES
 * kernels at a time with the AVX-512 cells (when the interleaved kernels
 * exist), else ACC_LANES at a time. */
static bool row_block(struct fp16_job *j, unsigned worker, uint32_t r0, uint32_t rn,
                      const struct fp16_rows *d, const bool *row_nan, struct out_scratch *sc)
{
    const struct conv_operands *ops = j->ops;
    size_t depth = ops->depth;
    uint32_t group = j->fma.w ? CMAC_FP16_FMA_LANES : j->wide.mk ? WIDE_LANES : ACC_LANES;
    size_t base[ROW_BLOCK]; /* once for every kernel block: two divisions a row */
    for (uint32_t i = 0; i < rn; i++)
        base[i] = row_base(j, r0 + i);
    for (uint32_t k0 = j->k_first; k0 < j->k_end; k0 += group) {
        uint32_t lanes = j->k_end - k0 < group ? j->k_end - k0 : group;
        if (j->fma.w) {
            uint32_t res[CMAC_FP16_FMA_ROWS * CMAC_FP16_FMA_LANES];
            if (!outputs_fma(ops, d, rn, &j->fma, (k0 - j->k_first) / group, sc, res))
                return false;
            store_block(j, worker, r0, rn, base, row_nan, k0, lanes, res, CMAC_FP16_FMA_LANES);
            continue;
        }
        for (uint32_t i = 0; i < rn; i++) {
            uint32_t res[WIDE_LANES];
            size_t at = i * depth;
            struct fp16_rows row = {d->m + at,   d->h + at,    d->m32 + at,
                                    d->key + at, d->live + at, d->nlive + at, NULL};
            if (!row_nan[i] && j->wide.mk &&
                !outputs16(ops, &row, &j->wide, k0 - j->k_first, sc, res))
                return false;
            if (!row_nan[i] && !j->wide.mk)
                outputs(ops, d->m + at, d->h + at, j->w.m + k0 * depth, j->w.h + k0 * depth, lanes,
                        sc, j->simd, res);
            if (sc->oom)
                return false;
            store_block(j, worker, r0 + i, 1, base + i, row_nan + i, k0, lanes, res, 0);
        }
    }
    return true;
}

/* Per cell of the decoded row at offset at of d, the offsets of its
 * nonzero values (the values the AVX-512 cells visit). */
static void live_lists(const struct conv_operands *ops, struct fp16_rows *d, size_t at)
{
    uint32_t cell = 0;
    for (uint32_t c0 = 0; c0 < ops->c; c0 += ops->seg_len) {
        uint32_t nj = ops->c - c0 < ops->seg_len ? ops->c - c0 : ops->seg_len;
        for (uint32_t t = 0; t < ops->taps; t++, cell++) {
            size_t off = at + (size_t)ops->taps * c0 + (size_t)t * nj;
            uint8_t n = 0;
            for (uint32_t v = 0; v < nj; v++) {
                d->live[off + n] = (uint8_t)v;
                n += d->m[off + v] != 0;
            }
            d->nlive[at + cell] = n;
        }
    }
}

/* Row i of the block from raw: decoded, and for the AVX-512 cells (wide)
 * their view of it (the FMA cells' doubles, the 16-kernel cells' live
 * lists); returns whether it holds a NaN. */
static bool decode_row(const struct conv_operands *ops, const int16_t *raw, bool wide,
                       struct fp16_rows *d, uint32_t i)
{
    size_t at = (size_t)i * ops->depth, n = used_values(ops);
    if (!wide) {
        decode(raw, n, d->m + at, d->h + at);
        return has_nan(raw, n);
    }
    /* the FMA cells (d) read neither the widened mantissas, the keys nor
     * the live lists: they find the values live in any of their rows
     * themselves, and the few keys they want from m */
    if (d->d) {
        struct fp16_decoded out = {d->m + at, d->h + at, NULL, NULL};
        return cmac_fp16_fma_decode(raw, n, &out, d->d + at);
    }
    struct fp16_decoded out = {d->m + at, d->h + at, d->m32 + at, d->key + at};
    bool nan = cmac_fp16_decode_avx512(raw, n, &out);
    live_lists(ops, d, at);
    return nan;
}

/* Room for a block's decoded rows of n values, as the cells in use read
 * them: m and h for all, the doubles for the FMA cells, the widened
 * mantissas, keys and live lists for the 16-kernel ones (wide); false when
 * memory is short. */
static bool rows_alloc(struct fp16_rows *d, size_t n, bool fma, bool wide)
{
    *d = (struct fp16_rows){.m = alloc64(n * sizeof *d->m), .h = alloc64(n)};
    if (fma)
        d->d = alloc64(n * sizeof *d->d);
    if (wide) {
        d->m32 = alloc64(n * sizeof *d->m32);
        d->key = alloc64(n * sizeof *d->key);
        d->live = alloc64(n);
        d->nlive = alloc64(n);
    }
    return d->m && d->h && (!fma || d->d) && (!wide || (d->m32 && d->key && d->live && d->nlive));
}

static void rows_free(struct fp16_rows *d)
{
    free(d->m);
    free(d->h);
    free(d->m32);
    free(d->key);
    free(d->live);
    free(d->nlive);
    free(d->d);
}

static void layer_worker(void *ctx, unsigned worker, unsigned workers)
{
    struct fp16_job *j = ctx;
    const struct conv_operands *ops = j->ops;
    size_t depth = ops->depth;
    struct fp16_rows d;
    struct out_scratch sc;
    bool rows_ok = rows_alloc(&d, ROW_BLOCK * depth, j->fma.w, j->wide.mk);
    bool ok = scratch_alloc(&sc, ops, j->fma.w) && rows_ok;
    (void)workers;
    for (uint64_t b; ok && dla_parts_take(&j->row_blocks, &b);) {
        uint32_t r0 = (uint32_t)b * ROW_BLOCK;
        uint32_t rn = ops->rows - r0 < ROW_BLOCK ? ops->rows - r0 : ROW_BLOCK;
        bool row_nan[ROW_BLOCK];
        for (uint32_t i = 0; i < rn; i++) {
            const int16_t *raw = ops->data + (size_t)(r0 + i) * depth;
            row_nan[i] = decode_row(ops, raw, j->wide.mk || j->fma.w, &d, i);
        }
        ok = row_block(j, worker, r0, rn, &d, row_nan, &sc);
    }
    j->failed[worker] = !ok;
    scratch_free(&sc);
    rows_free(&d);
}

/* Every output with the reference (when host memory for the fast path's
 * decoded operands is short). */
static void reference_layer(struct fp16_job *j)
{
    const struct conv_operands *ops = j->ops;
    for (uint32_t r = 0; r < ops->rows; r++)
        for (uint32_t k = 0; k < ops->kernels; k++)
            store(j, 0, row_base(j, r), k,
                  cacc_fp16_output(ops, ops->data + (size_t)r * ops->depth,
                                   ops->weight + (size_t)k * ops->depth));
}

/* Room for the kernels interleaved by WIDE_LANES, the last block padded;
 * wide stays empty (the per-kernel cells are used) when memory is short. */
static void wide_alloc(const struct conv_operands *ops, uint32_t kernels,
                       struct wide_kernels *wide)
{
    size_t n = (size_t)kernels * ops->depth;
    wide->mk = alloc64(n * sizeof *wide->mk);
    wide->h = alloc64(n * sizeof *wide->h);
    wide->vbmi = cmac_fp16_vbmi();
    if (!wide->mk || !wide->h) {
        free(wide->mk);
        free(wide->h);
        *wide = (struct wide_kernels){0};
    }
}

/* Kernels per block of the cells in use. */
static size_t block_lanes(const struct fp16_job *j)
{
    return j->fma.w ? CMAC_FP16_FMA_LANES : WIDE_LANES;
}

/* Each lane's largest h + 64 among the nonzero weights of the cell of nj
 * values from off on (64 when none) into kmax, and the values holding it
 * into kmask (every bit when none: struct cmac_fp16_fma_block).  The lanes
 * side by side, value after value, with no branch: the loops vectorise
 * (a lane at a time, a coin toss of a branch a value took most of the
 * layout's time). */
DLA_HOT_CLONES
static void cell_maxima(const struct cmac_fp16_fma_block *k, size_t off, uint32_t nj,
                        uint8_t *restrict kmax, uint64_t *restrict kmask)
{
    enum { L = CMAC_FP16_FMA_LANES };
    const uint8_t *h = k->h + L * off;
    uint8_t mx[L] = {0};
    uint64_t at[L] = {0};
    for (uint32_t v = 0; v < nj; v++)
        for (uint32_t l = 0; l < L; l++) { /* a zero's 0x80 counts as 0 */
            uint8_t hv = h[L * v + l] == 0x80 ? 0 : h[L * v + l];
            mx[l] = hv > mx[l] ? hv : mx[l];
        }
    for (uint32_t v = 0; v < nj; v++)
        for (uint32_t l = 0; l < L; l++)
            at[l] |= (uint64_t)(h[L * v + l] == mx[l]) << v;
    for (uint32_t l = 0; l < L; l++) {
        kmax[l] = mx[l] ? mx[l] : 64;
        kmask[l] = mx[l] ? at[l] : ~0ull;
    }
}

/* Block k's per-cell maxima (kmax, kmask), its mid8, by8 and small
 * weights (but the quiet ones) per value and the lists of the small ones,
 * cell by cell (struct cmac_fp16_fma_block). */
static void small_weights(const struct conv_operands *ops, const struct cmac_fp16_fma_block *k)
{
    enum { L = CMAC_FP16_FMA_LANES };
    uint32_t *restrict first = k->small_first;
    const int16_t *restrict wm = k->m;
    uint8_t *restrict small_at = k->small_at, *restrict small_lane = k->small_lane;
    uint8_t *restrict small_h = k->small_h;
    int16_t *restrict small_m = k->small_m;
    uint16_t *restrict lanes_at = k->small_lanes;
    uint32_t n = 0, cell = 0;
    for (uint32_t c0 = 0; c0 < ops->c; c0 += ops->seg_len) {
        uint32_t nj = ops->c - c0 < ops->seg_len ? ops->c - c0 : ops->seg_len;
        for (uint32_t t = 0; t < ops->taps; t++, cell++) {
            size_t off = (size_t)ops->taps * c0 + (size_t)t * nj;
            uint8_t *kmax = k->kmax + (size_t)L * cell;
            cell_maxima(k, off, nj, kmax, k->kmask + (size_t)L * cell);
            first[cell] = n;
            cmac_fp16_fma_classify(k, off, nj, cell);
            /* the list lane by lane (each lane's entries in a run: the
             * cells count a row's carries per lane from the runs) */
            uint16_t *at = lanes_at + (size_t)(L + 1) * cell;
            for (uint32_t l = 0; l < L; l++) {
                at[l] = (uint16_t)(n - first[cell]);
                for (uint32_t v = 0; v < nj; v++) {
                    if (!(k->small[off + v] >> l & 1u))
                        continue;
                    small_at[n] = (uint8_t)v;
                    small_lane[n] = (uint8_t)l;
                    small_h[n] = k->h[L * (off + v) + l];
                    small_m[n++] = wm[L * (off + v) + l];
                }
            }
            at[L] = (uint16_t)(n - first[cell]);
        }
    }
    first[cell] = n;
}

/* Kernels [k0, k0 + kn) from raw on into the FMA cells' block layout
 * (struct cmac_fp16_fma_block; padding kernels are zeros). */
static void prepare_fma_block(struct fp16_job *j, size_t k0, size_t kn, const int16_t *raw)
{
    const struct cmac_fp16_fma_block k =
        fma_block(&j->fma, j->ops, (k0 - j->k_first) / CMAC_FP16_FMA_LANES);
    cmac_fp16_fma_layout(raw, j->ops->depth, kn, &k);
    small_weights(j->ops, &k);
}

/* Kernel block b (block_lanes kernels from b * block_lanes on) decoded,
 * its NaN flags set: straight into the FMA cells' layout or j->wide's
 * interleaved one for the AVX-512 cells (padding kernels are zeros), else
 * into j->w. */
static void prepare_block(struct fp16_job *j, size_t b)
{
    const struct conv_operands *ops = j->ops;
    size_t depth = ops->depth, lanes = block_lanes(j), k0 = b * lanes;
    size_t kn = ops->kernels - k0 < lanes ? ops->kernels - k0 : lanes;
    const int16_t *raw = ops->weight + k0 * depth;
    for (size_t k = k0; k < k0 + kn; k++)
        j->kernel_nan[k] = has_nan(ops->weight + k * depth, used_values(ops));
    if (j->fma.w) {
        prepare_fma_block(j, k0, kn, raw);
        return;
    }
    if (!j->wide.mk) {
        decode(raw, kn * depth, j->w.m + k0 * depth, j->w.h + k0 * depth);
        return;
    }
    cmac_fp16_wide_layout(raw, depth, kn, j->wide.mk + (k0 - j->k_first) * depth,
                          j->wide.h + (k0 - j->k_first) * depth);
}

static void prepare_worker(void *ctx, unsigned worker, unsigned workers)
{
    struct fp16_job *j = ctx;
    (void)worker, (void)workers;
    for (uint64_t b; dla_parts_take(&j->kernel_blocks, &b);)
        prepare_block(j, j->k_first / block_lanes(j) + b);
}

/* Whether some cell of the pass's kernel blocks has so many small weights
 * (8 or more below their kernel's largest in the cell) that the FMA cells
 * would rather run it bit-sliced, whatever the data (cmac_fp16_fma.c):
 * only then are the bit-sliced planes laid out (real data's layers have no
 * such cell, and no room is taken for them). */
static bool pass_wants_planes(const struct fp16_job *j)
{
    const struct conv_operands *ops = j->ops;
    size_t blocks = (j->k_end - j->k_first + CMAC_FP16_FMA_LANES - 1) / CMAC_FP16_FMA_LANES;
    uint32_t cells = cells_of(ops);
    for (size_t b = 0; b < blocks; b++) {
        const uint32_t *first = j->fma.small_first + b * (cells + 1u);
        uint32_t cell = 0;
        for (uint32_t c0 = 0; c0 < ops->c; c0 += ops->seg_len) {
            uint32_t nj = ops->c - c0 < ops->seg_len ? ops->c - c0 : ops->seg_len;
            for (uint32_t t = 0; t < ops->taps; t++, cell++)
                if (cmac_fp16_small_cost(first[cell + 1] - first[cell]) >
                    cmac_fp16_sliced_cost(nj))
                    return true;
        }
    }
    return false;
}

static void planes_worker(void *ctx, unsigned worker, unsigned workers)
{
    struct fp16_job *j = ctx;
    (void)worker, (void)workers;
    for (uint64_t b; dla_parts_take(&j->kernel_blocks, &b);) {
        const struct cmac_fp16_fma_block k = fma_block(&j->fma, j->ops, b);
        cmac_fp16_sliced_layout(k.m, k.h, j->ops->depth, k.planes_stride, k.planes);
    }
}

/* The pass's bit-sliced planes laid out when its cells may want them
 * (room for `kernels`, the pass's most, taken at the first such pass),
 * else none: an earlier pass's planes are another pass's kernels.  None
 * when memory is short either: the cells then settle every cell the other
 * ways. */
static void lay_out_planes(struct fp16_job *j, uint32_t kernels)
{
    if (!j->fma.w)
        return;
    if (!j->fma.all_sliced && !pass_wants_planes(j)) {
        free(j->fma.planes);
        j->fma.planes = NULL;
        return;
    }
    if (!j->fma.planes)
        j->fma.planes = alloc64(kernels / CMAC_FP16_FMA_LANES * planes_per_block(j->ops) *
                               sizeof *j->fma.planes);
    if (!j->fma.planes)
        return;
    unsigned kblocks =
        (unsigned)((j->k_end - j->k_first + CMAC_FP16_FMA_LANES - 1) / CMAC_FP16_FMA_LANES);
    dla_parts_init(&j->kernel_blocks, kblocks);
    dla_parallel(dla_workers_for(kblocks), planes_worker, j);
}

/* The FMA layout's planes, and its block when not the model's scratch. */
static void fma_free(struct cmac_fp16_fma_block *fma, void *owned)
{
    free(owned);
    free(fma->planes);
}

/* Kernels per pass of the AVX-512 cells, a multiple of their block
 * (lanes): their copy (bytes a value) stays under WIDE_BYTES.  A layer of
 * 512 kernels of 4608 values (a ResNet's last) takes a few passes over its
 * few output rows instead of holding 12 MB or more of kernels at once;
 * layers with many rows have small kernels and take one. */
#define WIDE_BYTES (4u << 20)
static uint32_t kernels_per_pass(const struct conv_operands *ops, size_t lanes, size_t bytes)
{
    size_t per_block = lanes * ops->depth * bytes;
    size_t fit = per_block ? WIDE_BYTES / per_block : 1;
    size_t all = (ops->kernels + lanes - 1) / lanes;
    fit = fit < 1 ? 1 : fit;
    return (uint32_t)((fit < all ? fit : all) * lanes);
}

/* Bytes of the FMA cells' layout per kernel value: w, h, idx, bit and m,
 * at most one entry of the small weights' lists (small_at, small_lane,
 * small_h, small_m), a share of kmax, kmask and small_lanes (per cell and
 * lane, a cell being one value or more; small_lanes one more per cell,
 * counted as two) and of the bit-sliced planes (lane masks per value of 32
 * kernels). */
#define FMA_BYTES                                                                              \
    (sizeof(double) + 3 + sizeof(int16_t) + 3 + sizeof(int16_t) + 1 + sizeof(uint64_t) +     \
     2 * sizeof(uint16_t) +                                                                    \
     (CMAC_FP16_SLICED_FIELDS * sizeof(uint32_t) + CMAC_FP16_FMA_LANES - 1) / CMAC_FP16_FMA_LANES)

/* The next array of `bytes` from address *at on, the one after it on the
 * next 64-byte boundary. */
static void *carve64(uintptr_t *at, size_t bytes)
{
    void *p = (void *)*at;
    *at += (bytes + 63) / 64 * 64;
    return p;
}

/* The FMA cells' arrays but the planes for a pass of `kernels`, one after
 * another from address `at` (64-byte aligned) on; returns where they end.
 * From 0 on it measures the block (the pointers then are offsets, unused). */
static uintptr_t fma_carve(const struct conv_operands *ops, uint32_t kernels,
                           struct cmac_fp16_fma_block *fma, uintptr_t at)
{
    size_t n = (size_t)kernels * ops->depth, blocks = kernels / CMAC_FP16_FMA_LANES;
    size_t cells = cells_of(ops), per_cell = (size_t)kernels * cells;
    fma->w = carve64(&at, n * sizeof *fma->w);
    fma->h = carve64(&at, n);
    fma->idx = carve64(&at, n);
    fma->bit = carve64(&at, n);
    fma->m = carve64(&at, n * sizeof *fma->m);
    fma->kmax = carve64(&at, per_cell);
    fma->kmask = carve64(&at, per_cell * sizeof *fma->kmask);
    fma->small = carve64(&at, blocks * ops->depth * sizeof *fma->small);
    fma->by8 = carve64(&at, blocks * ops->depth * sizeof *fma->by8);
    fma->mid8 = carve64(&at, blocks * ops->depth * sizeof *fma->mid8);
    fma->small_first = carve64(&at, blocks * (cells + 1u) * sizeof *fma->small_first);
    fma->cell_values = carve64(&at, blocks * cells * 2 * sizeof *fma->cell_values);
    fma->small_at = carve64(&at, n);
    fma->small_lane = carve64(&at, n);
    fma->small_h = carve64(&at, n);
    fma->small_m = carve64(&at, n * sizeof *fma->small_m);
    fma->small_lanes =
        carve64(&at, blocks * cells * (CMAC_FP16_FMA_LANES + 1u) * sizeof *fma->small_lanes);
    return at;
}

/* Room for the FMA cells' blocks of a pass of `kernels`, every array but
 * the planes carved out of one block: the model's scratch, kept from one
 * layer to the next (malloc'ed per layer under heap_policy's 128 KiB mmap
 * threshold, each layer faulted their pages in again), or without a model
 * one allocation of its own (*owned, for fma_free).  fma
 * stays empty (the 16-kernel cells are used) when memory is short. */
static void fma_alloc(const struct conv_operands *ops, uint32_t kernels,
                      struct cmac_fp16_fma_block *fma, void **owned)
{
    size_t bytes = (size_t)fma_carve(ops, kernels, fma, 0) + 63; /* + the start's alignment */
    *fma = (struct cmac_fp16_fma_block){0};
    *owned = NULL;
    void *block = ops->model ? dla_scratch_get(ops->model, SCRATCH_CMAC_FP16, bytes)
                             : (*owned = malloc(bytes));
    if (block)
        fma_carve(ops, kernels, fma, ((uintptr_t)block + 63) & ~(uintptr_t)63);
}

void cmac_cacc_fp16(const struct conv_params *p, const struct conv_operands *ops,
                    struct dla_cube *out, struct cacc_stats *st)
{
    pthread_once(&shift8_once, shift8_fill);
    struct fp16_job j = {.p = p, .ops = ops, .out = out, .simd = cmac_fp16_simd()};
    bool *kernel_nan = malloc(ops->kernels + 1u);
    j.kernel_nan = kernel_nan;
    bool fast = kernel_nan && ops->seg_len <= CELL_MAX;
    uint32_t step = ops->kernels;
    /* The FMA cells' larger kernel layout wants a few dozen output rows to
     * pay for it: a ResNet's last stage of 49 positions runs 40% slower
     * with them, its stage of 196 positions 15-25% quicker (measured, as
     * the first layer's three channels, 13% quicker than 16 kernels at a
     * time). */
    bool fma_pays = ops->rows >= FMA_MIN_ROWS;
    if (fast && j.simd && fma_pays && cmac_fp16_fma()) {
        step = kernels_per_pass(ops, CMAC_FP16_FMA_LANES, FMA_BYTES);
        fma_alloc(ops, step, &j.fma, &j.fma_owned);
        const char *all = getenv("DLADBG_ALL_SLICED");
        j.fma.all_sliced = all && *all;
    }
    /* a layer without the FMA cells gives a previous layer's layout back
     * before it takes its own scratch, not after: the two are never held
     * at once (a network's last, few-position layers) */
    if (ops->model && !j.fma.w)
        dla_scratch_drop(ops->model, SCRATCH_CMAC_FP16);
    if (fast && j.simd && !j.fma.w) {
        step = kernels_per_pass(ops, WIDE_LANES, sizeof(int32_t) + sizeof(int8_t));
        wide_alloc(ops, step, &j.wide);
    }
    if (fast && !j.wide.mk && !j.fma.w) { /* the per-kernel cells' operands, every kernel of ops */
        size_t n = (size_t)ops->kernels * ops->depth;
        step = ops->kernels;
        j.w.m = malloc(n * sizeof *j.w.m + 1);
        j.w.h = malloc(n + 1);
        fast = j.w.m && j.w.h;
    }
    for (uint32_t k = 0; fast && k < ops->kernels; k += step) {
        j.k_first = k;
        j.k_end = ops->kernels - k < step ? ops->kernels : k + step;
        unsigned kblocks = (unsigned)((j.k_end - k + block_lanes(&j) - 1) / block_lanes(&j));
        dla_parts_init(&j.kernel_blocks, kblocks);
        dla_parallel(dla_workers_for(kblocks), prepare_worker, &j);
        lay_out_planes(&j, step);
        unsigned blocks = (ops->rows + ROW_BLOCK - 1) / ROW_BLOCK;
        dla_parts_init(&j.row_blocks, blocks);
        dla_parallel(dla_workers_for(blocks), layer_worker, &j);
        for (unsigned t = 0; t < DLA_MAX_THREADS; t++)
            fast &= !j.failed[t];
    }
    if (!fast) { /* start over on the reference path */
        for (unsigned t = 0; t < DLA_MAX_THREADS; t++)
            j.nan_out[t] = 0;
        reference_layer(&j);
    }
    for (unsigned t = 0; t < DLA_MAX_THREADS; t++)
        st->nan_out += j.nan_out[t];
    free(j.w.m);
    free(j.w.h);
    free(j.wide.mk);
    free(j.wide.h);
    fma_free(&j.fma, j.fma_owned);
    /* the layout is kept for the next layer that uses it */
    if (ops->model && j.fma.w)
        dla_scratch_done(ops->model, SCRATCH_CMAC_FP16);
    free(kernel_nan);
}

uint32_t cmac_fp16_output(const struct conv_operands *ops, const int16_t *a, const int16_t *w)
{
    pthread_once(&shift8_once, shift8_fill);
    size_t n = used_values(ops);
    if (n > 4096 || ops->seg_len > CELL_MAX || has_nan(a, n) || has_nan(w, n))
        return cacc_fp16_output(ops, a, w);
    int16_t dm[4096], wm[4096];
    int8_t dh[4096], wh[4096];
    struct out_scratch sc;
    if (!scratch_alloc(&sc, ops, false)) {
        scratch_free(&sc);
        return cacc_fp16_output(ops, a, w);
    }
    decode(a, n, dm, dh);
    decode(w, n, wm, wh);
    uint32_t f;
    outputs(ops, dm, dh, wm, wh, 1, &sc, cmac_fp16_simd(), &f);
    bool oom = sc.oom;
    scratch_free(&sc);
    return oom ? cacc_fp16_output(ops, a, w) : f;
}

/* ---------------------------------------------------------------- Winograd */

/* One atomic operation of 16 positions x 4 channels: the cell's products
 * (as the reference's), summed per position, the output transform, and
 * CACC's four accumulators. */
void cmac_fp16_wino_op(const int16_t dat[64], const int16_t wt[64], uint64_t acc[4])
{
    pthread_once(&shift8_once, shift8_fill);
    if (has_nan(dat, 64) || has_nan(wt, 64)) {
        cacc_fp16_wino_op(dat, wt, acc);
        return;
    }
    int16_t dm[64], wm[64];
    int8_t dh[64], wh[64];
    decode(dat, 64, dm, dh);
    decode(wt, 64, wm, wh);
    int32_t mx = largest_high(dh, wh, 64), prod[64];
    uint8_t hard[64], any = 0;
    for (uint32_t i = 0; i < 64; i++) {
        int32_t s = mx - dh[i] - wh[i];
        int32_t p = (int32_t)dm[i] * wm[i];
        int32_t easy = s <= EASY_SHIFT;
        prod[i] = easy ? p >> (easy ? s : 0) : 0;
        hard[i] = (uint8_t)(!easy & (p != 0));
        any |= hard[i];
    }
    for (uint32_t i = 0; any && i < 64; i++)
        if (hard[i] && mx - dh[i] - wh[i] == 8)
            prod[i] = shift8_product(dm[i], wm[i]);
        else if (hard[i])
            prod[i] = booth_shifted((dm[i] < 0) ^ (wm[i] < 0), (uint32_t)abs(wm[i]),
                                    (uint32_t)abs(dm[i]), (unsigned)(mx - dh[i] - wh[i]));
    int64_t m[16], o[4];
    for (int i = 0; i < 16; i++)
        m[i] = (int64_t)prod[4 * i] + prod[4 * i + 1] + prod[4 * i + 2] + prod[4 * i + 3];
    cmac_wino_output_transform(m, o);
    for (int q = 0; q < 4; q++)
        acc[q] = cacc_fp16_acc_add(acc[q], cacc_fp16_mac_pack((unsigned)mx, o[q]));
}
