/* CMAC + CACC, fp16 mode, fast: the same bits as the reference in
 * cacc_fp16.c, computed with loops the compiler vectorises.
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
 * The rest ("hard" products, s >= 8) are rare; a cell that has any computes
 * them with the reference Booth array.  The sum of a cell's products is
 * exact in 64 bits, so its order does not matter.
 *
 * Operands are decoded once (a signed aligned mantissa and 4 x the
 * exponent's high part per element) instead of once per product, and
 * output positions are spread over dla_threads() workers.  A data row or
 * kernel holding a NaN takes the reference path (the NaN rules depend on
 * which operand comes first). */
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "fp16.h"
#include "fpnum.h"
#include "threads.h"

/* The decoded exponent part of a zero: never the largest, and the shift it
 * gets is never small (a zero's product is 0 and must not count). */
#define ZERO_HIGH  (-128)
#define EASY_SHIFT 4
#define ROW_BLOCK  4u /* rows sharing one pass over the weights */
#define CELL_MAX   64u /* channels of one atomic operation, at most */
#define HARD_GROUP 16u /* hard products computed together */
#define SIMD_MIN_CELL 16u /* channels from which the AVX-512 cell pays */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&                             \
    !defined(__SANITIZE_ADDRESS__)
#define HOT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define HOT_CLONES
#endif

/* ---------------------------------------------------------------- operands */

struct fp16_rows {
    int16_t *m; /* signed aligned mantissa, 0 for a zero */
    int8_t *h;  /* 4 x (exponent >> 2), ZERO_HIGH for a zero */
};

static void decode(const int16_t *raw, size_t n, int16_t *m, int8_t *h)
{
    for (size_t i = 0; i < n; i++) {
        uint16_t v = (uint16_t)raw[i];
        unsigned e = (v >> 10) & 0x1fu;
        int32_t mant = (int32_t)((v & 0x3ffu) | (e ? 0x400u : 0u));
        int32_t mag = mant << (e ? (e & 3u) : 1u);
        bool zero = (v & 0x7fffu) == 0;
        m[i] = (int16_t)(zero ? 0 : (v & 0x8000u) ? -mag : mag);
        h[i] = (int8_t)(zero ? ZERO_HIGH : (int32_t)(e >> 2) * 4);
    }
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

static inline int32_t booth_shifted(unsigned neg, uint32_t wt, uint32_t dat, unsigned shift)
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
    cs = booth_csa(cs, cc, bc, &cc);
    unsigned sh = shift & 31u; /* shifts of 32 and more give 0, below */
    uint32_t comp = shift > 28 ? 0 : (uint32_t)((int32_t)0xaaab0000u >> sh) + (shift >= 20);
    uint32_t r = (cs >> sh) + (cc >> sh) + comp;
    return (int32_t)(shift >= 32 ? 0 : r);
}

/* Products the fast loops leave out, queued with the cell they belong to
 * and computed together by the Booth array (a loop the compiler vectorises). */
struct hard_queue {
    uint32_t n;
    uint32_t *cell, *neg, *w, *d, *shift;
    int32_t *r;
};

static inline void enqueue_hard(const int16_t *dm, const int8_t *dh, const int16_t *wm, const int8_t *wh,
                                uint64_t hard, int32_t mx, uint32_t cell, struct hard_queue *q)
{
    uint32_t k = q->n; /* locals: the stores below cannot change them */
    uint32_t *restrict qcell = q->cell, *restrict qneg = q->neg, *restrict qd = q->d,
                       *restrict qw = q->w, *restrict qshift = q->shift;
    for (; hard; hard &= hard - 1, k++) {
        uint32_t i = (uint32_t)__builtin_ctzll(hard);
        int32_t d = dm[i], w = wm[i];
        qcell[k] = cell;
        qneg[k] = (uint32_t)((d ^ w) < 0);
        qd[k] = (uint32_t)(d < 0 ? -d : d);
        qw[k] = (uint32_t)(w < 0 ? -w : w);
        qshift[k] = (uint32_t)(mx - dh[i] - wh[i]);
    }
    q->n = k;
}

/* The queue padded to whole groups of HARD_GROUP with products that give 0
 * (a shift of 32), so that the loop is whole vectors with no scalar tail. */
static inline void run_hard(struct hard_queue *q)
{
    uint32_t n = (q->n + HARD_GROUP - 1) / HARD_GROUP * HARD_GROUP;
    for (uint32_t k = q->n; k < n; k++) {
        q->neg[k] = q->w[k] = q->d[k] = 0;
        q->shift[k] = 32;
    }
    const uint32_t *restrict neg = q->neg, *restrict w = q->w, *restrict d = q->d,
                   *restrict shift = q->shift;
    int32_t *restrict r = q->r;
    for (uint32_t k = 0; k < n; k++)
        r[k] = booth_shifted(neg[k], w[k], d[k], shift[k]);
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

/* Per-worker room for one output's cells and hard products. */
struct out_scratch {
    int64_t *total;
    int32_t *mx;
    struct hard_queue q;
};

HOT_CLONES
static uint32_t output(const struct conv_operands *ops, const int16_t *dm, const int8_t *dh,
                       const int16_t *wm, const int8_t *wh, struct out_scratch *sc, bool simd)
{
    uint32_t cells = 0;
    sc->q.n = 0;
    for (uint32_t c0 = 0; c0 < ops->c; c0 += ops->seg_len) {
        uint32_t nj = ops->c - c0 < ops->seg_len ? ops->c - c0 : ops->seg_len;
        for (uint32_t t = 0; t < ops->taps; t++, cells++) {
            size_t off = (size_t)ops->taps * c0 + (size_t)t * nj;
            uint64_t hard;
            int32_t mx;
            /* a few channels (a first layer's) are quicker without the vector unit */
            sc->total[cells] =
                simd && nj >= SIMD_MIN_CELL
                    ? cmac_fp16_cell_avx512(dm + off, dh + off, wm + off, wh + off, nj, &mx, &hard)
                    : easy_sum(dm + off, dh + off, wm + off, wh + off, nj, &mx, &hard);
            sc->mx[cells] = mx;
            if (hard)
                enqueue_hard(dm + off, dh + off, wm + off, wh + off, hard, mx, cells, &sc->q);
        }
    }
    run_hard(&sc->q);
    for (uint32_t k = 0; k < sc->q.n; k++)
        sc->total[sc->q.cell[k]] += sc->q.r[k];
    uint64_t acc = 0;
    for (uint32_t c = 0; c < cells; c++)
        acc = cacc_fp16_acc_add(acc, cacc_fp16_mac_pack((unsigned)sc->mx[c], sc->total[c]));
    return cacc_fp16_result(acc);
}

/* Scratch for operands of depth values (cells and hard products are at
 * most that many); false when out of memory. */
static bool scratch_alloc(struct out_scratch *sc, size_t depth)
{
    size_t n = depth + HARD_GROUP;
    *sc = (struct out_scratch){.total = malloc(n * sizeof *sc->total),
                               .mx = malloc(n * sizeof *sc->mx),
                               .q = {.cell = malloc(n * sizeof(uint32_t)),
                                     .neg = malloc(n * sizeof(uint32_t)),
                                     .w = malloc(n * sizeof(uint32_t)),
                                     .d = malloc(n * sizeof(uint32_t)),
                                     .shift = malloc(n * sizeof(uint32_t)),
                                     .r = malloc(n * sizeof(int32_t))}};
    return sc->total && sc->mx && sc->q.cell && sc->q.neg && sc->q.w && sc->q.d && sc->q.shift &&
           sc->q.r;
}

static void scratch_free(struct out_scratch *sc)
{
    free(sc->total);
    free(sc->mx);
    free(sc->q.cell);
    free(sc->q.neg);
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
    const bool *kernel_nan;
    struct dla_cube *out;
    bool simd; /* cmac_fp16_cell_avx512 */
    bool failed[DLA_MAX_THREADS];
    uint64_t nan_out[DLA_MAX_THREADS];
};

static void store(struct fp16_job *j, unsigned worker, uint32_t r, uint32_t k, uint32_t f)
{
    if (k >= j->out->c)
        return; /* CACC delivers its output channels only: kernels beyond are dropped */
    uint32_t plane = j->p->out_w * j->p->out_h, b = r / plane, pos = r % plane;
    j->out->v[cube_index(j->out, b, k, pos / j->p->out_w, pos % j->p->out_w)] = (int32_t)f;
    j->nan_out[worker] += fp_is_nan(FP32, f);
}

/* Rows [r0, r0 + rn) against every kernel. */
static void row_block(struct fp16_job *j, unsigned worker, uint32_t r0, uint32_t rn,
                      const struct fp16_rows *d, const bool *row_nan, struct out_scratch *sc)
{
    const struct conv_operands *ops = j->ops;
    size_t depth = ops->depth;
    for (uint32_t k = 0; k < ops->kernels; k++) {
        const int16_t *wm = j->w.m + k * depth;
        const int8_t *wh = j->w.h + k * depth;
        for (uint32_t i = 0; i < rn; i++) {
            uint32_t r = r0 + i;
            uint32_t f = row_nan[i] || j->kernel_nan[k]
                             ? cacc_fp16_output(ops, ops->data + r * depth, ops->weight + k * depth)
                             : output(ops, d->m + i * depth, d->h + i * depth, wm, wh, sc, j->simd);
            store(j, worker, r, k, f);
        }
    }
}

static void layer_worker(void *ctx, unsigned worker, unsigned workers)
{
    struct fp16_job *j = ctx;
    const struct conv_operands *ops = j->ops;
    size_t depth = ops->depth;
    struct fp16_rows d = {malloc(ROW_BLOCK * depth * sizeof *d.m), malloc(ROW_BLOCK * depth)};
    struct out_scratch sc;
    bool ok = scratch_alloc(&sc, depth) && d.m && d.h;
    for (uint32_t r0 = worker * ROW_BLOCK; ok && r0 < ops->rows; r0 += workers * ROW_BLOCK) {
        uint32_t rn = ops->rows - r0 < ROW_BLOCK ? ops->rows - r0 : ROW_BLOCK;
        bool row_nan[ROW_BLOCK];
        for (uint32_t i = 0; i < rn; i++) {
            const int16_t *raw = ops->data + (size_t)(r0 + i) * depth;
            row_nan[i] = has_nan(raw, used_values(ops));
            decode(raw, used_values(ops), d.m + i * depth, d.h + i * depth);
        }
        row_block(j, worker, r0, rn, &d, row_nan, &sc);
    }
    j->failed[worker] = !ok;
    scratch_free(&sc);
    free(d.m);
    free(d.h);
}

/* Every output with the reference (when host memory for the fast path's
 * decoded operands is short). */
static void reference_layer(struct fp16_job *j)
{
    const struct conv_operands *ops = j->ops;
    for (uint32_t r = 0; r < ops->rows; r++)
        for (uint32_t k = 0; k < ops->kernels; k++)
            store(j, 0, r, k,
                  cacc_fp16_output(ops, ops->data + (size_t)r * ops->depth,
                                   ops->weight + (size_t)k * ops->depth));
}

void cmac_cacc_fp16(const struct conv_params *p, const struct conv_operands *ops,
                    struct dla_cube *out, struct cacc_stats *st)
{
    struct fp16_job j = {.p = p, .ops = ops, .out = out, .simd = cmac_fp16_simd()};
    size_t n = (size_t)ops->kernels * ops->depth;
    j.w.m = malloc(n * sizeof *j.w.m + 1);
    j.w.h = malloc(n + 1);
    bool *kernel_nan = malloc(ops->kernels + 1u);
    j.kernel_nan = kernel_nan;
    bool fast = j.w.m && j.w.h && kernel_nan && ops->seg_len <= CELL_MAX;
    if (fast) {
        decode(ops->weight, n, j.w.m, j.w.h);
        for (uint32_t k = 0; k < ops->kernels; k++)
            kernel_nan[k] = has_nan(ops->weight + (size_t)k * ops->depth, used_values(ops));
        unsigned workers = dla_threads(), blocks = (ops->rows + ROW_BLOCK - 1) / ROW_BLOCK;
        dla_parallel(workers < blocks ? workers : (blocks ? blocks : 1), layer_worker, &j);
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
    free(kernel_nan);
}

uint32_t cmac_fp16_output(const struct conv_operands *ops, const int16_t *a, const int16_t *w)
{
    size_t n = used_values(ops);
    if (n > 4096 || ops->seg_len > CELL_MAX || has_nan(a, n) || has_nan(w, n))
        return cacc_fp16_output(ops, a, w);
    int16_t dm[4096], wm[4096];
    int8_t dh[4096], wh[4096];
    struct out_scratch sc;
    if (!scratch_alloc(&sc, n)) {
        scratch_free(&sc);
        return cacc_fp16_output(ops, a, w);
    }
    decode(a, n, dm, dh);
    decode(w, n, wm, wh);
    uint32_t f = output(ops, dm, dh, wm, wh, &sc, cmac_fp16_simd());
    scratch_free(&sc);
    return f;
}

/* ---------------------------------------------------------------- Winograd */

/* One atomic operation of 16 positions x 4 channels: the cell's products
 * (as the reference's), summed per position, the output transform, and
 * CACC's four accumulators. */
void cmac_fp16_wino_op(const int16_t dat[64], const int16_t wt[64], uint64_t acc[4])
{
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
        if (hard[i])
            prod[i] = booth_shifted((dm[i] < 0) ^ (wm[i] < 0), (uint32_t)abs(wm[i]),
                                    (uint32_t)abs(dm[i]), (unsigned)(mx - dh[i] - wh[i]));
    int64_t m[16], o[4];
    for (int i = 0; i < 16; i++)
        m[i] = (int64_t)prod[4 * i] + prod[4 * i + 1] + prod[4 * i + 2] + prod[4 * i + 3];
    cmac_wino_output_transform(m, o);
    for (int q = 0; q < 4; q++)
        acc[q] = cacc_fp16_acc_add(acc[q], cacc_fp16_mac_pack((unsigned)mx, o[q]));
}
