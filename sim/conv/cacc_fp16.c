/* CMAC + CACC, fp16 mode, bit for bit as nvdla/hw's cmod computes it.
 *
 * MAC cell (one atomic operation: up to atomic_c channel pairs):
 *  - a NaN among the weights (then among the data) makes the partial sum a
 *    NaN carrying that value's sign and fraction;
 *  - zeros (+0 and -0) are masked out;
 *  - each exponent is split into a high part (exp >> 2) and a low part
 *    (exp & 3, or 1 for subnormals) that pre-shifts the 11-bit mantissa;
 *    products are aligned to the largest sum of high parts, in steps of 4
 *    bits, by a radix-4 Booth multiplier whose two carry-save outputs are
 *    shifted separately (so the alignment truncation is the hardware's, not
 *    an exact floor) and then summed with a sign-compensation constant;
 *  - infinities are not special: exponent 31 is just a large exponent.
 *  Result: 6-bit exponent (4 x the largest high part) and a 38-bit signed
 *  mantissa, value = mantissa * 2^(exponent - 50).
 *
 * CACC keeps each output in a 48-bit float (8-bit exponent, 40-bit two's
 * complement mantissa, value = mantissa * 2^(exponent - 101)), adds the
 * partial sums one by one with its own normalisation and rounding, and
 * converts the result to an fp32 bit pattern for SDP. */
#include "conv.h"
#include "num/fp16.h"
#include "num/fpnum.h"

#define ACC_EXP_NAN 0xffu
#define MAC_EXP_NAN 0x3fu
#define MASK40      ((1ull << 40) - 1)
#define MASK38      ((1ull << 38) - 1)

/* ---------------------------------------------------------------- bit helpers */

static int64_t sext(uint64_t v, unsigned bits)
{
    uint64_t m = 1ull << (bits - 1);
    v &= (bits == 64) ? ~0ull : ((1ull << bits) - 1);
    return (int64_t)((v ^ m) - m);
}

static unsigned bit(uint64_t v, unsigned n)
{
    return (unsigned)(v >> n) & 1u;
}

/* ---------------------------------------------------------------- MAC cell */

struct csa {
    uint32_t sum, carry;
};

static struct csa csa3(uint32_t x, uint32_t y, uint32_t z)
{
    struct csa r = {x ^ y ^ z, ((x & y) | (y & z) | (x & z)) << 1};
    return r;
}

/* Reduce five partial products to two, three at a time, keeping the
 * leftover operands in order (the cmod's Wallace-tree schedule). */
static struct csa reduce5(const uint32_t v[5])
{
    struct csa a = csa3(v[0], v[1], v[2]);
    a = csa3(a.sum, a.carry, v[3]);
    return csa3(a.sum, a.carry, v[4]);
}

/* The sign-compensation constant of the Booth array, aligned like the
 * partial products: 0xaaab0000 shifted arithmetically, with the low bit the
 * hardware keeps set once the shift reaches 20. */
static uint32_t sign_compensation(unsigned shift)
{
    if (shift > 28)
        return 0;
    uint32_t v = (uint32_t)((int32_t)0xaaab0000u >> shift);
    return shift >= 20 ? v + 1 : v;
}

/* (-1)^neg * wt * dat >> shift, the way the Booth multiplier produces it. */
int32_t cacc_fp16_booth(unsigned neg, uint32_t wt, uint32_t dat, unsigned shift)
{
    if (shift >= 32)
        return 0;
    uint32_t flip = neg ? 7u : 0u, bits = wt << 1;
    uint32_t pp[8], inv[8];
    for (int i = 0; i < 8; i++, bits >>= 2) {
        uint32_t code = (bits & 7u) ^ flip;
        inv[i] = code >= 4 && code <= 6;
        if (code == 0 || code == 7)
            pp[i] = 0x10000u;
        else if (code == 1 || code == 2)
            pp[i] = dat | 0x10000u;
        else if (code == 3)
            pp[i] = (dat << 1) | 0x10000u;
        else if (code == 4)
            pp[i] = ~(dat << 1) & 0xffffu;
        else
            pp[i] = ~dat & 0xffffu;
    }
    const uint32_t lo[5] = {pp[0], pp[1] << 2 | inv[0], pp[2] << 4 | inv[1] << 2,
                            pp[3] << 6 | inv[2] << 4, inv[3] << 6};
    const uint32_t hi[5] = {pp[4] << 8, pp[5] << 10 | inv[4] << 8, pp[6] << 12 | inv[5] << 10,
                            pp[7] << 14 | inv[6] << 12, inv[7] << 14};
    struct csa a = reduce5(lo), b = reduce5(hi);
    struct csa c = csa3(a.sum, a.carry, b.sum);
    c = csa3(c.sum, c.carry, b.carry);
    uint32_t s = (c.sum >> shift) + (c.carry >> shift) + sign_compensation(shift);
    return (int32_t)s;
}

static bool nonzero(uint16_t h)
{
    return (h & 0x7fffu) != 0;
}

static uint64_t mac_nan(uint16_t h)
{
    return (uint64_t)MAC_EXP_NAN << 38 | (uint64_t)(h >> 15) << 37 | (uint64_t)(h & 0x3ffu) << 27;
}

/* The products of one atomic operation (n <= 64 channel pairs), aligned
 * to the largest exponent: returns the NaN partial sum when an operand is
 * NaN (0 otherwise) and sets *exp6 to the common exponent. */
static uint64_t cell_products(const int16_t *dat, const int16_t *wt, uint32_t n, int32_t *prod,
                              unsigned *exp6)
{
    for (uint32_t i = 0; i < n; i++)
        if (fp16_is_nan((uint16_t)wt[i]))
            return mac_nan((uint16_t)wt[i]);
    for (uint32_t i = 0; i < n; i++)
        if (fp16_is_nan((uint16_t)dat[i]))
            return mac_nan((uint16_t)dat[i]);
    unsigned high[64] = {0}, max_high = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint16_t d = (uint16_t)dat[i], w = (uint16_t)wt[i];
        if (!nonzero(d) || !nonzero(w))
            continue;
        high[i] = ((d >> 10) & 0x1fu) / 4 + ((w >> 10) & 0x1fu) / 4;
        if (high[i] > max_high)
            max_high = high[i];
    }
    for (uint32_t i = 0; i < n; i++) {
        uint16_t d = (uint16_t)dat[i], w = (uint16_t)wt[i];
        prod[i] = 0;
        if (!nonzero(d) || !nonzero(w))
            continue;
        unsigned de = (d >> 10) & 0x1fu, we = (w >> 10) & 0x1fu;
        uint32_t dm = ((d & 0x3ffu) | (de ? 0x400u : 0)) << (de ? (de & 3u) : 1u);
        uint32_t wm = ((w & 0x3ffu) | (we ? 0x400u : 0)) << (we ? (we & 3u) : 1u);
        prod[i] = cacc_fp16_booth((d ^ w) >> 15, wm, dm, (max_high - high[i]) * 4);
    }
    *exp6 = max_high * 4;
    return 0;
}

uint64_t cacc_fp16_mac_pack(unsigned exp6, int64_t mant)
{
    return (uint64_t)exp6 << 38 | ((uint64_t)mant & MASK38);
}

/* One atomic operation: n channel pairs -> packed 6-bit exponent, 38-bit mantissa. */
uint64_t cacc_fp16_mac_cell(const int16_t *dat, const int16_t *wt, uint32_t n)
{
    int32_t prod[64];
    unsigned exp6;
    uint64_t nan = cell_products(dat, wt, n, prod, &exp6);
    if (nan)
        return nan;
    int64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += prod[i];
    return cacc_fp16_mac_pack(exp6, total);
}

/* ---------------------------------------------------------------- CACC adder */

static uint64_t acc_pack(unsigned exp, uint64_t mant)
{
    return (uint64_t)(exp & 0xffu) << 40 | (mant & MASK40);
}

static uint64_t acc_nan(uint64_t top11)
{
    return acc_pack(ACC_EXP_NAN, (top11 & 0x7ffu) << 29);
}

/* Count of leading copies of the sign below bit top (top is the sign bit):
 * the bits below top, flipped when the sign is set, have that many leading
 * zeros. */
static unsigned redundant_signs(uint64_t v, unsigned top)
{
    uint64_t below = (v ^ (0 - (uint64_t)bit(v, top))) & ((1ull << top) - 1);
    return below ? (unsigned)__builtin_clzll(below) - (64 - top) : top;
}

/* accumulator (48-bit float) + MAC partial sum (44-bit float) */
uint64_t cacc_fp16_acc_add(uint64_t acc, uint64_t mac)
{
    unsigned mac_exp = (unsigned)(mac >> 38) & 0x3fu;
    int64_t mac_m = sext(mac, 38);
    unsigned acc_exp = (unsigned)(acc >> 40) & 0xffu;
    int64_t acc_m = sext(acc, 40);
    if (mac_m == 0)
        return acc;
    if (acc_exp == ACC_EXP_NAN)
        return acc_nan((uint64_t)acc_m >> 29);
    if (mac_exp == MAC_EXP_NAN)
        return acc_nan((uint64_t)mac_m >> 27);

    /* normalise the partial sum into the 40-bit frame */
    unsigned lead = redundant_signs((uint64_t)mac_m, 37);
    if (lead > 37)
        lead = 37;
    int64_t m = sext((uint64_t)mac_m << lead, 38) * 4;
    unsigned m_exp = (mac_exp + 49u - lead) & 0xffu;
    if (acc_m == 0)
        acc_exp = 0;

    /* align to the larger exponent, keeping the bits shifted out */
    uint64_t out_bits = 0; /* 40 bits, most significant first */
    unsigned big = m_exp;
    int64_t *smaller = NULL;
    unsigned diff = 0;
    if (m_exp > acc_exp) {
        smaller = &acc_m;
        diff = m_exp - acc_exp;
    } else if (m_exp < acc_exp) {
        smaller = &m;
        diff = acc_exp - m_exp;
        big = acc_exp;
    }
    if (smaller && diff <= 40) {
        out_bits = diff ? (((uint64_t)*smaller & ((1ull << diff) - 1)) << (40 - diff)) : 0;
        *smaller = diff == 40 ? (*smaller < 0 ? -1 : 0) : *smaller >> diff;
    } else if (smaller) {
        *smaller = 0;
    }

    int64_t sum_raw = sext((uint64_t)(acc_m + m), 40);
    int64_t sum;
    int exp = (int)big;
    bool overflow = false;
    unsigned out_high = 0;
    if (bit((uint64_t)m, 39) == bit((uint64_t)acc_m, 39) &&
        bit((uint64_t)m, 39) != bit((uint64_t)sum_raw, 39)) {
        overflow = true; /* one bit too many: shift right, sign from the operands */
        out_high = bit((uint64_t)sum_raw, 0);
        sum = sext(((uint64_t)sum_raw & MASK40) >> 1 | (uint64_t)bit((uint64_t)m, 39) << 39, 40);
        exp = (int)big + 1;
    } else if (bit((uint64_t)sum_raw, 38) == bit((uint64_t)sum_raw, 39)) {
        unsigned sh = redundant_signs((uint64_t)sum_raw, 39); /* >= 1 here */
        uint64_t fill = sh ? out_bits >> (40 - sh) : 0;
        sum = sext(((uint64_t)sum_raw << sh) | fill, 40);
        out_bits = (out_bits << sh) & MASK40;
        exp = (int)big - (int)sh;
    } else {
        sum = sum_raw;
    }

    /* round: positive results on the guard bit, negative ones on guard and sticky */
    unsigned guard = overflow ? out_high : bit(out_bits, 39);
    bool sticky = overflow ? out_bits != 0 : (out_bits & ((1ull << 39) - 1)) != 0;
    bool round = bit((uint64_t)sum, 39) ? guard && sticky : guard;
    int64_t rounded = round ? sext((uint64_t)sum + 1, 40) : sum;
    int64_t fin = rounded;
    if (bit((uint64_t)rounded, 39) != bit((uint64_t)sum, 39)) {
        fin = sext(((uint64_t)rounded & MASK40) >> 1 | (uint64_t)bit((uint64_t)sum, 39) << 39, 40);
        exp++;
    }
    return acc_pack(fin == 0 ? 0 : (unsigned)exp, (uint64_t)fin);
}

/* The 48-bit accumulator as the fp32 bit pattern CACC sends to SDP. */
static uint32_t acc_to_fp32(uint64_t acc)
{
    unsigned exp = (unsigned)(acc >> 40) & 0xffu;
    uint64_t mu = acc & MASK40;
    uint32_t sign = (uint32_t)bit(mu, 39);
    if (exp == ACC_EXP_NAN)
        return sign << 31 | 0x7f800000u | (uint32_t)((mu >> 29) & 0x3ffu);
    if (sign && (mu & ((1ull << 39) - 1)) == 0)
        return 1u << 31 | ((exp + 65u) & 0xffu) << 23;
    /* sign and magnitude */
    uint64_t mag = sign ? ((~mu + 1) & ((1ull << 39) - 1)) : mu;
    uint32_t e = mu == 0 ? 0 : (exp + 64u) & 0xffu;
    uint32_t frac;
    if (bit(mag, 14)) {
        uint64_t top = ((uint64_t)sign << 24 | (mag >> 15)) + 1; /* 25 bits with the sign */
        if (bit(top, 24) != sign) {
            top = (top & ((1ull << 25) - 1)) >> 1;
            e = (e + 1) & 0xffu;
        }
        frac = (uint32_t)(top & 0x7fffffu);
    } else {
        frac = (uint32_t)((mag >> 15) & 0x7fffffu);
    }
    return sign << 31 | e << 23 | frac;
}

/* ---------------------------------------------------------------- one output */

uint32_t cacc_fp16_output(const struct conv_operands *ops, const int16_t *a, const int16_t *w)
{
    uint64_t acc = 0;
    for (uint32_t c0 = 0; c0 < ops->c; c0 += ops->seg_len) {
        uint32_t nj = ops->c - c0 < ops->seg_len ? ops->c - c0 : ops->seg_len;
        for (uint32_t t = 0; t < ops->taps; t++) {
            size_t off = (size_t)ops->taps * c0 + (size_t)t * nj;
            acc = cacc_fp16_acc_add(acc, cacc_fp16_mac_cell(a + off, w + off, nj));
        }
    }
    return acc_to_fp32(acc);
}

uint32_t cacc_fp16_dot(const int16_t *dat, const int16_t *wt, uint32_t n, uint32_t seg)
{
    struct conv_operands ops = {
        .rows = 1, .kernels = 1, .depth = n, .taps = 1, .seg_len = seg, .c = n};
    return cacc_fp16_output(&ops, dat, wt);
}

/* Winograd: one atomic operation on 16 tile positions x 4 channels (lane =
 * position * 4 + channel).  The cell sums the channels of each position and
 * applies the output transform A^T M A to the position sums, all four
 * results sharing the operation's exponent; CACC adds each into its
 * accumulator. */
void cacc_fp16_wino_op(const int16_t dat[64], const int16_t wt[64], uint64_t acc[4])
{
    int32_t prod[64];
    unsigned exp6;
    uint64_t nan = cell_products(dat, wt, 64, prod, &exp6);
    if (nan) {
        for (int q = 0; q < 4; q++)
            acc[q] = cacc_fp16_acc_add(acc[q], nan);
        return;
    }
    int64_t m[16], o[4];
    for (int i = 0; i < 16; i++)
        m[i] = (int64_t)prod[4 * i] + prod[4 * i + 1] + prod[4 * i + 2] + prod[4 * i + 3];
    cmac_wino_output_transform(m, o);
    for (int q = 0; q < 4; q++)
        acc[q] = cacc_fp16_acc_add(acc[q], cacc_fp16_mac_pack(exp6, o[q]));
}

uint32_t cacc_fp16_result(uint64_t acc)
{
    return acc_to_fp32(acc);
}
