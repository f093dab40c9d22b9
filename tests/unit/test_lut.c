/* The two-level LUT: the access port's auto-increment semantics, the table
 * configuration, CDP's and SDP's lookups against a plain reference written
 * here, and statistics for designed inputs whose hit, miss, underflow,
 * overflow and priority counts are worked out by hand in the comments. */
#include <math.h>

#include "post_harness.h"

#include "core/dla_priv.h"
#include "num/fp16.h"
#include "lut/lut.h"

/* ---------------------------------------------------------------- helpers */

static struct dla_lut_ram ram_with(int16_t le_base, int16_t le_step, int16_t lo_base,
                                   int16_t lo_step)
{
    struct dla_lut_ram r;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < DLA_LUT_LE_ENTRIES; i++)
        r.le[i] = (uint16_t)(le_base + le_step * i);
    for (int i = 0; i < DLA_LUT_LO_ENTRIES; i++)
        r.lo[i] = (uint16_t)(lo_base + lo_step * i);
    return r;
}

/* a / 2^s rounded half away from zero (s >= 0), in integers */
static int64_t rha(int64_t a, int s)
{
    if (s <= 0)
        return a * ((int64_t)1 << -s);
    int64_t m = a < 0 ? -a : a;
    int64_t q = (m + ((int64_t)1 << (s - 1))) >> s;
    return a < 0 ? -q : q;
}

static int64_t sat16(int64_t v)
{
    return v > 32767 ? 32767 : v < -32768 ? -32768 : v;
}

/* Reference of one linear table of CDP: returns the value and the class
 * (-1 underflow, 0 hit, 1 overflow). */
static int64_t ref_linear(const uint16_t *t, int n, int64_t start, int64_t end, int sel, int uscale,
                          int ushift, int oscale, int oshift, int64_t x, int *cls)
{
    int64_t rel = x - start;
    if (rel <= 0) {
        *cls = -1;
        return sat16((int16_t)t[0] + rha(rel * uscale, ushift));
    }
    int64_t idx = rel >> sel;
    if (idx >= n - 1) {
        *cls = 1;
        return sat16((int16_t)t[n - 1] + rha((x - end) * oscale, oshift));
    }
    *cls = 0;
    int64_t frac16 = (rel & ((1 << sel) - 1)) << (16 - sel);
    int64_t y0 = (int16_t)t[idx], y1 = (int16_t)t[idx + 1];
    return sat16(y0 + rha((y1 - y0) * frac16, 16));
}

static struct lut_cfg linear_cfg(int64_t le_start, int le_sel, int64_t lo_start, int lo_sel)
{
    struct lut_cfg c;
    memset(&c, 0, sizeof c);
    c.le_linear = true;
    c.le_start = le_start;
    c.le_index_select = (uint8_t)le_sel;
    c.le_end = le_start + ((int64_t)64 << le_sel);
    c.lo_start = lo_start;
    c.lo_index_select = (uint8_t)lo_sel;
    c.lo_end = lo_start + ((int64_t)256 << lo_sel);
    return c;
}

/* ---------------------------------------------------------------- access port */

static void test_port_write_read_back(void **state)
{
    (void)state;
    struct dla_lut_ram r;
    memset(&r, 0, sizeof r);
    lut_port_write_cfg(&r, 0x20000); /* LE, write, address 0 */
    for (unsigned i = 0; i < 65; i++)
        lut_port_write_data(&r, 0x1000 + i);
    assert_int_equal(lut_port_read_cfg(&r), 0x20000 | 64); /* stops on the last entry */
    lut_port_write_data(&r, 0xbeef);                       /* the 66th write lands on 64 again */
    assert_int_equal(r.le[64], 0xbeef);
    assert_int_equal(r.le[63], 0x1000 + 63);

    lut_port_write_cfg(&r, 0x30000 | 250); /* LO from entry 250 */
    for (unsigned i = 0; i < 10; i++)
        lut_port_write_data(&r, 0x2000 + i);
    assert_int_equal(r.lo[250], 0x2000);
    assert_int_equal(r.lo[256], 0x2000 + 9); /* entries 256..: all on the last one */
    assert_int_equal(lut_port_read_cfg(&r), 0x30000 | 256);

    /* read mode: each data read returns an entry and advances */
    lut_port_write_cfg(&r, 5);
    assert_int_equal(lut_port_read_data(&r, true), 0x1005); /* peek does not advance */
    assert_int_equal(lut_port_read_data(&r, false), 0x1005);
    assert_int_equal(lut_port_read_data(&r, false), 0x1006);
    assert_int_equal(lut_port_read_cfg(&r), 7);
    lut_port_write_data(&r, 0x7777); /* ignored in read mode */
    assert_int_equal(r.le[7], 0x1007);
    assert_int_equal(lut_port_read_cfg(&r), 7);
    /* an address past the table reads 0 and keeps counting (10-bit wrap) */
    lut_port_write_cfg(&r, 0x10000 | 0x3ff);
    assert_int_equal(lut_port_read_data(&r, false), 0);
    assert_int_equal(lut_port_read_cfg(&r), 0x10000);
}

/* The legacy traces' upload sequence, through CDP's registers. */
static void test_port_through_csb(void **state)
{
    (void)state;
    struct harness *h = harness_new("nv_small");
    wr(h, "CDP.S_LUT_ACCESS_CFG", 0x20000);
    for (unsigned i = 0; i < 65; i++)
        wr(h, "CDP.S_LUT_ACCESS_DATA", 100 + i);
    wr(h, "CDP.S_LUT_ACCESS_CFG", 0x30000);
    for (unsigned i = 0; i < 257; i++)
        wr(h, "CDP.S_LUT_ACCESS_DATA", (uint32_t)(-(int)i) & 0xffff);
    /* the UVM tests' trailer: read mode, one more data write (ignored) */
    wr(h, "CDP.S_LUT_ACCESS_CFG", 0);
    wr(h, "CDP.S_LUT_ACCESS_DATA", 0x5555);
    assert_int_equal(rd(h, "CDP.S_LUT_ACCESS_DATA"), 100);
    assert_int_equal(rd(h, "CDP.S_LUT_ACCESS_DATA"), 101);
    assert_int_equal(rd(h, "CDP.S_LUT_ACCESS_CFG"), 2);
    wr(h, "CDP.S_LUT_ACCESS_CFG", 0x10000 | 256);
    assert_int_equal(rd(h, "CDP.S_LUT_ACCESS_DATA"), (uint32_t)(-256) & 0xffff);
    struct dla *d = h->d;
    assert_int_equal(d->lut_cdp.le[64], 164);
    assert_int_equal((int16_t)d->lut_cdp.lo[3], -3);
    assert_int_equal(d->lut_sdp.le[0], 0); /* SDP's LUT is a different RAM */
    harness_free(h);
}

static void test_cfg_decode(void **state)
{
    (void)state;
    struct harness *h = harness_new("nv_small");
    wr(h, "CDP.S_LUT_CFG", 0x71); /* linear LE, all priorities LO */
    wr(h, "CDP.S_LUT_INFO", 0xf8fe05);
    wr(h, "CDP.S_LUT_LE_START_LOW", 0xfffffff0);
    wr(h, "CDP.S_LUT_LE_START_HIGH", 0x3f); /* -16 in 38 bits */
    wr(h, "CDP.S_LUT_LE_END_LOW", 0x10);
    wr(h, "CDP.S_LUT_LE_END_HIGH", 0x1f); /* positive: 0x1f_0000_0010 */
    wr(h, "CDP.S_LUT_LE_SLOPE_SCALE", 0x8000ffff);
    wr(h, "CDP.S_LUT_LE_SLOPE_SHIFT", (17u << 5) | 3u);
    struct lut_cfg c;
    lut_cfg_read(h->d, DLA_U_CDP, &c);
    assert_true(c.le_linear && c.uflow_lo && c.oflow_lo && c.hybrid_lo);
    assert_int_equal(c.le_index_offset, 0x05);
    assert_int_equal(c.le_index_select, 0xfe);
    assert_int_equal(c.lo_index_select, 0xf8);
    assert_int_equal(c.le_start, -16);
    assert_int_equal(c.le_end, 0x1f00000010ll);
    assert_int_equal(c.le_uflow_scale, -1);
    assert_int_equal(c.le_oflow_scale, -32768);
    assert_int_equal(c.le_uflow_shift, 3);
    assert_int_equal(c.le_oflow_shift, 17);
    /* SDP's 32-bit bounds are sign-extended */
    wr(h, "SDP.S_LUT_LO_START", 0x80000000u);
    lut_cfg_read(h->d, DLA_U_SDP, &c);
    assert_int_equal(c.lo_start, INT32_MIN);
    harness_free(h);
}

/* ---------------------------------------------------------------- CDP lookups */

/* LE linear over (0, 1024) in steps of 16, LO linear over (100, 1124) in
 * steps of 4.  Inputs and their class by hand:
 *   -5, 0        both underflow                    -> underflow   2
 *   50, 100      LE hit, LO underflow (100 is LO's start)  -> LE hit 2
 *   101, 1023    both hit                          -> hybrid      2
 *   1024         LE overflow (index 64), LO hit    -> LO hit      1
 *   1124, 5000   both overflow                     -> overflow    2 */
static void test_cdp_counts_by_hand(void **state)
{
    (void)state;
    struct dla_lut_ram r = ram_with(10, 3, -500, 7);
    struct lut_cfg c = linear_cfg(0, 4, 100, 2);
    struct dla_lut_stats s;
    lut_stats_begin(&s);
    static const int64_t xs[] = {-5, 0, 50, 100, 101, 1023, 1024, 1124, 5000};
    for (size_t i = 0; i < 9; i++)
        lut_cdp_lookup(&r, &c, LUT_CDP_INT16, xs[i], &s);
    assert_int_equal(s.lookups, 9);
    assert_int_equal(s.underflow, 2);
    assert_int_equal(s.le_hit, 2);
    assert_int_equal(s.hybrid, 2);
    assert_int_equal(s.lo_hit, 1);
    assert_int_equal(s.overflow, 2);
    /* per-table classes: LE under 2 over 3; LO under 4 over 2 */
    assert_int_equal(s.le_underflow, 2);
    assert_int_equal(s.le_overflow, 3);
    assert_int_equal(s.lo_underflow, 4);
    assert_int_equal(s.lo_overflow, 2);
    /* histogram: below and above are the samples under- or overflowing both
     * tables (-5, 0 and 1124, 5000: the underflow and overflow counts); the
     * rest in bins over [0, 1124], 1125 / 32 = 35.2 wide: 50 | 100 101 | ... */
    assert_int_equal(s.hist_below, s.underflow);
    assert_int_equal(s.hist_above, s.overflow);
    uint64_t in_bins = 0;
    for (int b = 0; b < DLA_LUT_HIST_BINS; b++)
        in_bins += s.hist[b];
    assert_int_equal(in_bins, 5);
    assert_int_equal(s.hist[1], 1);
    assert_int_equal(s.hist[2], 2);
    assert_int_equal(s.hist[29], 2); /* 1023, 1024 */

    /* one table underflows while the other overflows: counted as hybrid.
     * LE covers (2000, 2064), LO (0, 256); x = 1000 is below LE, above LO */
    struct lut_cfg split = linear_cfg(2000, 0, 0, 0);
    lut_stats_begin(&s);
    lut_cdp_lookup(&r, &split, LUT_CDP_INT8, 1000, &s);
    assert_int_equal(s.hybrid, 1);
    assert_int_equal(s.underflow + s.overflow + s.le_hit + s.lo_hit, 0);
}

/* Which table's value comes out, for each priority bit. */
static void test_cdp_priorities(void **state)
{
    (void)state;
    struct dla_lut_ram r = ram_with(1000, 0, -1000, 0); /* flat tables: LE 1000, LO -1000 */
    struct lut_cfg c = linear_cfg(0, 4, 100, 2);
    /* both underflow (slopes 0: the first entries) */
    assert_int_equal(lut_cdp_lookup(&r, &c, LUT_CDP_INT16, -5, NULL), 1000);
    c.uflow_lo = true;
    assert_int_equal(lut_cdp_lookup(&r, &c, LUT_CDP_INT16, -5, NULL), -1000);
    /* both overflow */
    assert_int_equal(lut_cdp_lookup(&r, &c, LUT_CDP_INT16, 5000, NULL), 1000);
    c.oflow_lo = true;
    assert_int_equal(lut_cdp_lookup(&r, &c, LUT_CDP_INT16, 5000, NULL), -1000);
    /* both hit */
    assert_int_equal(lut_cdp_lookup(&r, &c, LUT_CDP_INT16, 500, NULL), 1000);
    c.hybrid_lo = true;
    assert_int_equal(lut_cdp_lookup(&r, &c, LUT_CDP_INT16, 500, NULL), -1000);
    /* one hit: that table whatever the priorities */
    assert_int_equal(lut_cdp_lookup(&r, &c, LUT_CDP_INT16, 50, NULL), 1000);
    c.uflow_lo = c.oflow_lo = c.hybrid_lo = false;
    assert_int_equal(lut_cdp_lookup(&r, &c, LUT_CDP_INT16, 1100, NULL), -1000);
}

/* Interpolation and extrapolation against the reference, over the whole
 * range of both tables and beyond. */
static void test_cdp_values_linear(void **state)
{
    (void)state;
    struct dla_lut_ram r;
    uint32_t seed = 99;
    for (int i = 0; i < DLA_LUT_LE_ENTRIES; i++)
        r.le[i] = (uint16_t)harness_rand(&seed);
    for (int i = 0; i < DLA_LUT_LO_ENTRIES; i++)
        r.lo[i] = (uint16_t)harness_rand(&seed);
    struct lut_cfg c = linear_cfg(-300, 5, 200, 3);
    c.le_uflow_scale = 77;
    c.le_uflow_shift = 3;
    c.le_oflow_scale = -5;
    c.le_oflow_shift = 0x1e; /* -2: a left shift */
    c.lo_uflow_scale = 1000;
    c.lo_uflow_shift = 8;
    c.lo_oflow_scale = 3;
    c.lo_oflow_shift = 1;
    for (int64_t x = -2000; x < 4000; x += 3) {
        int le_cls, lo_cls;
        int64_t le = ref_linear(r.le, 65, c.le_start, c.le_end, 5, 77, 3, -5, -2, x, &le_cls);
        int64_t lo = ref_linear(r.lo, 257, c.lo_start, c.lo_end, 3, 1000, 8, 3, 1, x, &lo_cls);
        int64_t want;
        if (le_cls == -1 && lo_cls == -1)
            want = le; /* underflow priority LE */
        else if (le_cls == 1 && lo_cls == 1)
            want = le;
        else if ((le_cls == 0) != (lo_cls == 0))
            want = le_cls == 0 ? le : lo;
        else
            want = le; /* hybrid priority LE */
        assert_int_equal(lut_cdp_lookup(&r, &c, LUT_CDP_INT16, x, NULL), want);
    }
}

/* Exponential LE: entry i at start + 2^(offset + i); the offset from
 * 2^k to x interpolates between entries k - offset and k - offset + 1. */
static void test_cdp_exponent(void **state)
{
    (void)state;
    struct dla_lut_ram r = ram_with(0, 1000, 0, 0);
    struct lut_cfg c = linear_cfg(0, 0, 0, 0);
    c.le_linear = false;
    c.le_start = 10;
    c.le_index_offset = 2;
    c.le_end = 10 + (1ll << 40);
    c.lo_start = 1ll << 30; /* LO underflows for all of these */
    c.lo_end = c.lo_start + 256;
    c.le_uflow_scale = 1;
    for (int64_t x = 11; x < 200000; x += 13) {
        int64_t rel = x - 10;
        int k = 63 - __builtin_clzll((uint64_t)rel);
        int64_t want;
        if (k < 2) {
            want = 0 + rha(rel - 4, 0); /* underflow: from start + 2^offset, slope 1 */
        } else {
            int64_t off = rel - (1ll << k);
            int64_t q16 = k > 16 ? off >> (k - 16) : off << (16 - k);
            int64_t y0 = 1000 * (k - 2), y1 = y0 + 1000;
            want = sat16(y0 + rha((y1 - y0) * q16, 16));
        }
        assert_int_equal(lut_cdp_lookup(&r, &c, LUT_CDP_INT16, x, NULL), want);
    }
    /* index offset beyond the input: everything underflows */
    c.le_index_offset = 40;
    struct dla_lut_stats s;
    lut_stats_begin(&s);
    lut_cdp_lookup(&r, &c, LUT_CDP_INT16, 5000, &s);
    assert_int_equal(s.underflow, 1);
}

/* Hostile register values: no undefined behaviour, saturated outputs. */
static void test_cdp_hostile_config(void **state)
{
    (void)state;
    struct dla_lut_ram r = ram_with(32767, 0, -32768, 0);
    struct lut_cfg c = linear_cfg(0, 0, 0, 0);
    c.le_index_select = 0x80; /* -128 / -64 / -32 depending on the path */
    c.lo_index_select = 0x7f;
    c.le_start = -(1ll << 37);
    c.lo_end = (1ll << 37) - 1;
    c.le_uflow_scale = c.le_oflow_scale = c.lo_uflow_scale = c.lo_oflow_scale = 32767;
    c.le_oflow_shift = c.lo_uflow_shift = 0x10; /* -16 */
    for (int64_t x = -(1ll << 37); x < (1ll << 37); x += (1ll << 33) + 12345) {
        int16_t a = lut_cdp_lookup(&r, &c, LUT_CDP_INT16, x, NULL);
        int16_t b = lut_cdp_lookup(&r, &c, LUT_CDP_INT8, x, NULL);
        (void)a;
        (void)b;
    }
    c.le_linear = false;
    c.le_index_offset = 0x7f;
    assert_true(lut_cdp_lookup(&r, &c, LUT_CDP_INT16, 1ll << 36, NULL) >= -32768);
}

/* ---------------------------------------------------------------- SDP lookups */

/* SDP counts every sample's LE and LO hits on their own, and the under-
 * and overflows of the table the priorities chose.  Same tables and inputs
 * as the CDP case:
 *   -5, 0       LE under, LO under  -> uflow (LE chosen)   le_hit 0 lo_hit 0
 *   50, 100     LE hit,  LO under   -> LE, no flow          le_hit 2
 *   101, 1023   both hit            -> LE, no flow          le_hit 2, lo_hit 2
 *   1024        LE over, LO hit     -> LO, no flow          lo_hit 1
 *   1124, 5000  both over           -> oflow (LE chosen)
 * totals: le_hit 4, lo_hit 3, underflow 2, overflow 2, hybrid (no flow) 5. */
static void test_sdp_counts_by_hand(void **state)
{
    (void)state;
    struct lut_cfg c = linear_cfg(0, 4, 100, 2);
    struct dla_lut_stats s;
    lut_stats_begin(&s);
    static const int32_t xs[] = {-5, 0, 50, 100, 101, 1023, 1024, 1124, 5000};
    for (size_t i = 0; i < 9; i++) {
        struct lut_pick p;
        lut_sdp_index(&c, xs[i], &p);
        lut_sdp_count(&c, &p, xs[i], false, &s);
    }
    assert_int_equal(s.lookups, 9);
    assert_int_equal(s.le_hit, 4);
    assert_int_equal(s.lo_hit, 3);
    assert_int_equal(s.underflow, 2);
    assert_int_equal(s.overflow, 2);
    assert_int_equal(s.hybrid, 5);
}

/* SDP with the LE table in exponent mode (the LUT chapter: coverage 2^offset
 * above the start) and LO far above, as trace sdp_3x3x33_ew_le_exp_int8
 * programs them: every int8 input underflows both tables.  The figures must
 * add up the chapter's way: each table's hits + underflows + overflows are
 * the lookups, and the histogram's below equals the double underflows
 * (127, the LE start itself, underflows: log2 of 0 does not exist). */
static void test_sdp_exponent_counts_add_up(void **state)
{
    (void)state;
    struct lut_cfg c = linear_cfg(0, 0, 0, 0);
    c.le_linear = false;
    c.le_start = 0x7f;
    c.le_end = 0x81;
    c.le_index_offset = 0xc1; /* -63 */
    c.lo_start = 0x53b19eb3;
    c.lo_end = 0x53b1a0b3;
    c.lo_index_select = 1;
    c.uflow_lo = true;
    c.hybrid_lo = true;
    struct dla_lut_stats s;
    lut_stats_begin(&s);
    for (int32_t x = -128; x <= 127; x++) {
        struct lut_pick p;
        lut_sdp_index(&c, x, &p);
        assert_int_equal(p.table, LUT_LO); /* the underflow priority */
        lut_sdp_count(&c, &p, x, false, &s);
    }
    assert_int_equal(s.lookups, 256);
    assert_int_equal(s.underflow, 256);
    assert_int_equal(s.le_underflow, 256); /* LE underflowed too, though LO was chosen */
    assert_int_equal(s.lo_underflow, 256);
    assert_int_equal(s.le_hit + s.le_underflow + s.le_overflow, s.lookups);
    assert_int_equal(s.lo_hit + s.lo_underflow + s.lo_overflow, s.lookups);
    assert_int_equal(s.hist_below, s.underflow);
    assert_int_equal(s.hist_above, 0);
    /* one above the start hits LE's first entry: 2^0 >= 2^-63 */
    struct lut_pick p;
    lut_sdp_index(&c, 128, &p);
    assert_true(p.le_hit);
    assert_false(p.le_uflow);
    assert_true(p.lo_uflow);
    lut_stats_begin(&s);
    lut_sdp_count(&c, &p, 128, false, &s);
    assert_int_equal(s.hist_below, 0);
    assert_int_equal(s.le_underflow, 0);
    assert_int_equal(s.lo_underflow, 1);
}

static void test_sdp_index_and_interpolation(void **state)
{
    (void)state;
    struct dla_lut_ram r;
    uint32_t seed = 7;
    for (int i = 0; i < DLA_LUT_LE_ENTRIES; i++)
        r.le[i] = (uint16_t)harness_rand(&seed);
    for (int i = 0; i < DLA_LUT_LO_ENTRIES; i++)
        r.lo[i] = (uint16_t)harness_rand(&seed);
    struct lut_cfg c = linear_cfg(-1000, 6, 500, 4);
    c.hybrid_lo = true;
    c.lo_uflow_scale = 300;
    c.lo_uflow_shift = 4;
    c.le_oflow_scale = -7;
    c.le_oflow_shift = 0x1f; /* -1 */
    c.lo_oflow_scale = 9;
    for (int32_t x = -3000; x < 8000; x += 11) {
        struct lut_pick p;
        lut_sdp_index(&c, x, &p);
        bool le_in = x > c.le_start && ((int64_t)x - c.le_start) >> 6 < 64;
        bool lo_in = x > c.lo_start && ((int64_t)x - c.lo_start) >> 4 < 256;
        assert_int_equal(p.le_hit, le_in);
        assert_int_equal(p.lo_hit, lo_in);
        int64_t want;
        if (lo_in) { /* LO hit: chosen (alone or by the hybrid priority) */
            int64_t rel = x - c.lo_start, i = rel >> 4, f = rel & 15;
            int64_t y0 = (int16_t)r.lo[i], y1 = (int16_t)r.lo[i + 1];
            want = rha(y0 * (16 - f) + y1 * f, 4); /* 35-bit fraction = f / 16 */
        } else if (le_in) {
            int64_t rel = x - c.le_start, i = rel >> 6, f = rel & 63;
            int64_t y0 = (int16_t)r.le[i], y1 = (int16_t)r.le[i + 1];
            want = rha(y0 * (64 - f) + y1 * f, 6);
        } else if (x <= c.le_start) { /* both under: LE (priority 0), slope 0 */
            want = (int16_t)r.le[0];
        } else if (x <= c.lo_start) { /* LE over, LO under: hybrid -> LO underflow */
            want = (int16_t)r.lo[0] + rha(((int64_t)x - c.lo_start) * 300, 4);
        } else { /* both over: LE (priority 0) */
            want = (int16_t)r.le[64] + ((int64_t)x - c.le_end) * -7 * 2;
        }
        assert_int_equal(lut_sdp_interp_int(&r, &c, x, &p), want);
    }
}

/* SDP's exponential LE: the fraction is the mantissa below the leading 1. */
static void test_sdp_exponent_fraction(void **state)
{
    (void)state;
    struct lut_cfg c = linear_cfg(0, 0, 0, 0);
    c.le_linear = false;
    c.le_start = 0;
    c.le_index_offset = 3;
    c.lo_start = INT32_MAX; /* LO never hits */
    struct lut_pick p;
    lut_sdp_index(&c, 12, &p); /* log2 12 = 3 -> index 0, fraction 4/8 */
    assert_int_equal(p.table, LUT_LE);
    assert_int_equal(p.index, 0);
    assert_int_equal(p.fraction, 1ull << 34);
    lut_sdp_index(&c, 7, &p); /* log2 7 = 2 < offset: underflow */
    assert_true(p.uflow);
    lut_sdp_index(&c, INT32_MAX, &p); /* log2 = 30 -> index 27 */
    assert_int_equal(p.index, 27);
    /* the extrapolation from below starts at start + 2^offset */
    struct lut_extrap e;
    lut_sdp_index(&c, 7, &p);
    lut_sdp_extrap(&c, &p, false, &e);
    assert_int_equal(e.bias, 8);
    lut_sdp_extrap(&c, &p, true, &e);
    assert_int_equal(e.bias, 0x41000000); /* 8.0f */
}

/* fp16 precision: the index from fp32 differences x - start. */
static void test_sdp_fp_index(void **state)
{
    (void)state;
    struct lut_cfg c = linear_cfg(0, 0, 0, 0);
    c.le_index_select = (uint8_t)-2; /* 4 entries per unit */
    c.lo_index_select = 0;
    struct lut_pick p;
    /* LE: 2.75 * 4 = 11 -> index 11, fraction 0; LO: 2.75 -> index 2 frac .75 */
    lut_sdp_index_fp(&c, 0x40300000 /* 2.75 */, 0x40300000, &p);
    assert_true(p.le_hit && p.lo_hit);
    assert_int_equal(p.table, LUT_LE);
    assert_int_equal(p.index, 11);
    assert_int_equal(p.fraction, 0);
    c.hybrid_lo = true;
    lut_sdp_index_fp(&c, 0x40300000, 0x40300000, &p);
    assert_int_equal(p.index, 2);
    assert_int_equal(p.fraction, 3ull << 33);
    /* negative, zero and NaN differences underflow; big ones overflow */
    lut_sdp_index_fp(&c, 0xbf800000, 0x00000000, &p);
    assert_true(p.uflow && !p.le_hit && !p.lo_hit);
    lut_sdp_index_fp(&c, 0x7fc00000, 0x4f000000, &p); /* NaN / 2^31 */
    assert_false(p.le_hit || p.lo_hit);
    assert_true(p.uflow || p.oflow);
}

/* ---------------------------------------------------------------- CDP fp16 lookups */

static uint32_t f32b(float f)
{
    return f32_bits(f);
}

static float fp17_value(uint32_t h17)
{
    /* fp17: 6-bit exponent (bias 31), 10-bit mantissa; normal values only here */
    int e = (int)((h17 >> 10) & 0x3f) - 31;
    float m = 1.0f + (float)(h17 & 0x3ff) / 1024.0f;
    float v = e >= 0 ? m * (float)(1u << e) : m / (float)(1u << -e);
    return (h17 >> 16) & 1 ? -v : v;
}

/* fp16 tables: LE exponential from start 0 (entry i at 2^i), LO linear
 * over (0, 256) in unit steps.  Designed inputs:
 *   8.0    LE index 3 exactly, LO hit        -> hybrid (LE), y = le[3]
 *   12.0   LE index 3 + 1/2, LO hit           -> hybrid (LE), y = (le[3]+le[4])/2
 *   256.0  LE hit (2^8), LO overflow          -> LE hit
 *   0.0    both underflow                     -> underflow, y = le[0] (slope 0)
 *   -4.0   both underflow                     -> underflow
 *   2^70   LE overflow (exponent 70), LO over -> overflow, y = le[64] (slope 0) */
static void test_cdp_fp16_lookup(void **state)
{
    (void)state;
    struct dla_lut_ram r;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < DLA_LUT_LE_ENTRIES; i++)
        r.le[i] = fp16_from_float((float)(10 * i + 2));
    for (int i = 0; i < DLA_LUT_LO_ENTRIES; i++)
        r.lo[i] = fp16_from_float((float)(-i));
    struct lut_cfg c;
    memset(&c, 0, sizeof c);
    c.le_linear = false;
    c.le_start = f32b(0.0f);
    c.le_end = f32b(18446744073709551616.0f);
    c.lo_start = f32b(0.0f);
    c.lo_end = f32b(256.0f);
    struct dla_lut_stats s;
    lut_stats_begin(&s);
    assert_true(fp17_value(lut_cdp_lookup_fp(&r, &c, f32b(8.0f), &s)) == 32.0f);
    assert_true(fp17_value(lut_cdp_lookup_fp(&r, &c, f32b(12.0f), &s)) == 37.0f);
    assert_true(fp17_value(lut_cdp_lookup_fp(&r, &c, f32b(256.0f), &s)) == 82.0f);
    assert_true(fp17_value(lut_cdp_lookup_fp(&r, &c, f32b(0.0f), &s)) == 2.0f);
    lut_cdp_lookup_fp(&r, &c, f32b(-4.0f), &s);
    assert_true(fp17_value(lut_cdp_lookup_fp(&r, &c, f32b(1180591620717411303424.0f), &s)) ==
                642.0f);
    assert_int_equal(s.lookups, 6);
    assert_int_equal(s.hybrid, 2);
    assert_int_equal(s.le_hit, 1);
    assert_int_equal(s.underflow, 2);
    assert_int_equal(s.overflow, 1);
    assert_int_equal(s.lo_hit, 0);
    /* the hybrid priority selects LO: 12.0 -> lo[12] */
    c.hybrid_lo = true;
    assert_true(fp17_value(lut_cdp_lookup_fp(&r, &c, f32b(12.0f), NULL)) == -12.0f);
    /* LO linear with index select 1: 7.0 -> entry 3 + 1/2 */
    assert_true(fp17_value(lut_cdp_lookup_fp(&r, &c, f32b(7.0f), NULL)) == -7.0f);
    c.lo_index_select = 1;
    assert_true(fp17_value(lut_cdp_lookup_fp(&r, &c, f32b(7.0f), NULL)) == -3.5f);
}

/* ---------------------------------------------------------------- fp16 prepared lookup */

static uint32_t lut_rng = 0x9e3779b9u;

static uint32_t rand32(void)
{
    lut_rng ^= lut_rng << 13;
    lut_rng ^= lut_rng >> 17;
    lut_rng ^= lut_rng << 5;
    return lut_rng;
}

/* An fp16 table entry or slope: mostly ordinary values, sometimes a zero,
 * subnormal, the largest finite value, an infinity or a NaN. */
static uint16_t random_fp16(void)
{
    static const uint16_t special[] = {0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x7bff,
                                       0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x3c00};
    uint32_t r = rand32();
    if (r % 8 == 0)
        return special[(r >> 8) % (sizeof special / sizeof special[0])];
    return (uint16_t)(r >> 16);
}

/* A table start or end (fp32 bits): small normal numbers of either sign
 * mostly, and the edge cases. */
static uint32_t random_edge(void)
{
    static const uint32_t special[] = {0x00000000, 0x80000000, 0x00000001, 0x00800000,
                                       0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000,
                                       0x7fc00000, 0x3f800000, 0x45800000};
    uint32_t r = rand32();
    if (r % 6 == 0)
        return special[(r >> 8) % (sizeof special / sizeof special[0])];
    return (r & 0x807fffffu) | (110u + (r >> 24) % 40u) << 23;
}

/* A looked-up value near the tables: start plus a random distance of any
 * scale, an exact entry boundary, a value a few ulps from the start, or an
 * arbitrary pattern (NaN, infinity, subnormal). */
static uint32_t random_x(const struct lut_cfg *c)
{
    uint32_t r = rand32(), start = (uint32_t)((r & 1) ? c->lo_start : c->le_start);
    float s = f32_from_bits(start);
    switch ((r >> 1) % 6) {
    case 0:
        return rand32();
    case 1:
        return start + (rand32() % 9) - 4;
    case 2:
        return f32b(s + ldexpf((float)(rand32() % 300), (int)(rand32() % 40) - 20));
    case 3:
        return f32b(s + ldexpf(1.0f, (int)(rand32() % 200) - 100));
    default:
        return f32b(s + f32_from_bits((rand32() & 0x007fffffu) | (100u + rand32() % 60u) << 23));
    }
}

static void random_fp_lut(struct dla_lut_ram *r, struct lut_cfg *c)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < DLA_LUT_LE_ENTRIES; i++)
        r->le[i] = random_fp16();
    for (int i = 0; i < DLA_LUT_LO_ENTRIES; i++)
        r->lo[i] = random_fp16();
    memset(c, 0, sizeof *c);
    uint32_t bits = rand32();
    c->fp = true;
    c->le_linear = bits & 1;
    c->uflow_lo = bits & 2;
    c->oflow_lo = bits & 4;
    c->hybrid_lo = bits & 8;
    /* index fields: mostly small, sometimes any signed 8-bit value */
    c->le_index_offset = (uint8_t)(bits & 16 ? rand32() : rand32() % 40 - 20);
    c->le_index_select = (uint8_t)(bits & 32 ? rand32() : rand32() % 30 - 10);
    c->lo_index_select = (uint8_t)(bits & 64 ? rand32() : rand32() % 30 - 10);
    c->le_start = random_edge();
    c->le_end = random_edge();
    c->lo_start = random_edge();
    c->lo_end = random_edge();
    c->le_uflow_scale = (int16_t)random_fp16();
    c->le_oflow_scale = (int16_t)random_fp16();
    c->lo_uflow_scale = (int16_t)random_fp16();
    c->lo_oflow_scale = (int16_t)random_fp16();
}

/* The prepared fp16 lookup against the reference lut_cdp_lookup_fp: the
 * same fp17 result and the same statistics (every class and histogram bin)
 * for random tables and registers in both LE modes, over values that hit,
 * under- and overflow each table, sit exactly on entries and starts, and
 * the special values. */
static void test_cdp_fp16_prepared_matches_reference(void **state)
{
    (void)state;
    struct dla_lut_ram r;
    struct lut_cfg c;
    struct lut_cdp_fp p;
    uint64_t hits = 0, under = 0, over = 0, le_exponent_hits = 0;
    for (int layer = 0; layer < 400; layer++) {
        random_fp_lut(&r, &c);
        lut_cdp_fp_prepare(&r, &c, &p);
        struct dla_lut_stats want, got, got_all;
        lut_stats_begin(&want);
        lut_stats_begin(&got);
        lut_stats_begin(&got_all);
        for (int i = 0; i < 5000; i += 13) {
            /* 13 at a time: the four-lane lookup's groups and its tail */
            uint32_t xs[13];
            for (int j = 0; j < 13; j++)
                xs[j] = random_x(&c);
            uint32_t ys[13];
            memcpy(ys, xs, sizeof ys);
            lut_cdp_fp_lookup_all(&p, ys, 13, &got_all);
            for (int j = 0; j < 13; j++) {
                uint32_t y_ref = lut_cdp_lookup_fp(&r, &c, xs[j], &want);
                uint32_t y = lut_cdp_fp_lookup(&p, xs[j], &got);
                if (y != y_ref || ys[j] != y_ref)
                    fail_msg("layer %d x 0x%08x: prepared 0x%05x, four-lane 0x%05x, reference "
                             "0x%05x",
                             layer, xs[j], y, ys[j], y_ref);
            }
        }
        assert_memory_equal(&got, &want, sizeof want);
        assert_memory_equal(&got_all, &want, sizeof want);
        hits += want.le_hit + want.lo_hit + want.hybrid;
        under += want.le_underflow + want.lo_underflow;
        over += want.le_overflow + want.lo_overflow;
        if (!c.le_linear)
            le_exponent_hits += want.lookups - want.le_underflow - want.le_overflow;
    }
    /* the inputs reached every path */
    assert_true(hits > 10000 && under > 10000 && over > 10000 && le_exponent_hits > 10000);
}

/* Table ranges: end below start is reported, compared as fp32 numbers in
 * the fp16 pipeline. */
static void test_cfg_rules(void **state)
{
    (void)state;
    struct harness *h = harness_new("nv_small");
    struct lut_cfg c = linear_cfg(100, 2, 0, 0);
    c.le_end = 50;
    assert_int_equal(lut_cfg_check(h->d, DLA_U_CDP, &c), 1);
    harness_expect_diag_once(h, "cdp.lut_le_range", 0);
    /* [-8.0, -1.0]: as integers the bit patterns would be out of order */
    c = linear_cfg(0, 0, 0, 0);
    c.fp = true;
    c.le_start = f32_bits(-8.0f);
    c.le_end = f32_bits(-1.0f);
    c.lo_start = f32_bits(2.0f);
    c.lo_end = f32_bits(1.0f);
    assert_int_equal(lut_cfg_check(h->d, DLA_U_SDP, &c), 1);
    harness_expect_diag_once(h, "sdp.lut_lo_range", 0);
    assert_int_equal(harness_count(h, "sdp.lut_le_range", 0), 0);
    harness_free(h);
}

/* Checkpoints carry the LUT contents and the port's position. */
static void test_snapshot_keeps_lut(void **state)
{
    (void)state;
    struct harness *h = harness_new("nv_full");
    wr(h, "CDP.S_LUT_ACCESS_CFG", 0x30000 | 10);
    wr(h, "CDP.S_LUT_ACCESS_DATA", 0x1234);
    struct dla_snapshot *snap = dla_snapshot_take(h->d);
    assert_non_null(snap);
    wr(h, "CDP.S_LUT_ACCESS_CFG", 0x30000 | 10);
    wr(h, "CDP.S_LUT_ACCESS_DATA", 0x4321);
    wr(h, "SDP.S_LUT_ACCESS_CFG", 0x20000);
    wr(h, "SDP.S_LUT_ACCESS_DATA", 0x7777);
    dla_snapshot_restore(h->d, snap);
    dla_snapshot_free(snap);
    assert_int_equal(h->d->lut_cdp.lo[10], 0x1234);
    assert_int_equal(h->d->lut_sdp.le[0], 0);
    assert_int_equal(rd(h, "CDP.S_LUT_ACCESS_CFG"), 0x30000 | 11);
    harness_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_port_write_read_back),
        cmocka_unit_test(test_port_through_csb),
        cmocka_unit_test(test_snapshot_keeps_lut),
        cmocka_unit_test(test_cfg_decode),
        cmocka_unit_test(test_cfg_rules),
        cmocka_unit_test(test_cdp_counts_by_hand),
        cmocka_unit_test(test_cdp_priorities),
        cmocka_unit_test(test_cdp_values_linear),
        cmocka_unit_test(test_cdp_exponent),
        cmocka_unit_test(test_cdp_hostile_config),
        cmocka_unit_test(test_cdp_fp16_lookup),
        cmocka_unit_test(test_cdp_fp16_prepared_matches_reference),
        cmocka_unit_test(test_sdp_counts_by_hand),
        cmocka_unit_test(test_sdp_exponent_counts_add_up),
        cmocka_unit_test(test_sdp_index_and_interpolation),
        cmocka_unit_test(test_sdp_exponent_fraction),
        cmocka_unit_test(test_sdp_fp_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
