/* SDP's Y LUT through the register interface: tables written through
 * S_LUT_ACCESS_CFG/DATA and read back, then a layer whose inputs are
 * designed to land in every case of the two-table lookup.  The expected
 * outputs and the hit/miss/underflow/overflow/priority counts are worked out
 * by hand in the comments next to them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/dla.h"
#include "num/fp16.h"
#include "reg_names.h"

#define IN_ADDR  0x80000000ull
#define OUT_ADDR 0x80100000ull

static void wr(struct dla *d, const char *name, uint32_t v)
{
    dla_csb_write(d, reg_addr_named(d, name), v);
}

static uint32_t rd(struct dla *d, const char *name)
{
    return dla_csb_read(d, reg_addr_named(d, name));
}

struct lut_events {
    unsigned n;
    struct dla_lut_stats last;
};

static void on_event(void *ctx, const struct dla_event *ev)
{
    struct lut_events *e = ctx;
    if (ev->kind == DLA_EV_LUT) {
        e->n++;
        e->last = *ev->u.lut.stats;
    }
}

/* LE: linear, start 0, 2^2 per entry, entry i = 100 + 10 i (covers [0, 256)).
 * LO: linear, start -512, 2^3 per entry, entry i = -3 i (covers [-512, 1536)). */
static void program_tables(struct dla *d, bool fp)
{
    wr(d, "SDP.S_LUT_ACCESS_CFG", 1u << 17 | 0u << 16); /* write LE from entry 0 */
    for (int i = 0; i < 65; i++)
        wr(d, "SDP.S_LUT_ACCESS_DATA",
           fp ? fp16_from_float((float)(100 + 10 * i)) : (uint16_t)(100 + 10 * i));
    wr(d, "SDP.S_LUT_ACCESS_CFG", 1u << 17 | 1u << 16); /* write LO */
    for (int i = 0; i < 257; i++)
        wr(d, "SDP.S_LUT_ACCESS_DATA", fp ? fp16_from_float((float)(-3 * i)) : (uint16_t)(-3 * i));
    /* linear LE; both underflow -> LO, both overflow -> LE, both hit -> LE */
    wr(d, "SDP.S_LUT_CFG", 1u | 1u << 4);
    wr(d, "SDP.S_LUT_INFO", 0u | 2u << 8 | 3u << 16);
    if (fp) {
        wr(d, "SDP.S_LUT_LE_START", f32_bits(0.0f));
        wr(d, "SDP.S_LUT_LE_END", f32_bits(256.0f));
        wr(d, "SDP.S_LUT_LO_START", f32_bits(-512.0f));
        wr(d, "SDP.S_LUT_LO_END", f32_bits(1536.0f));
    } else {
        wr(d, "SDP.S_LUT_LE_START", 0);
        wr(d, "SDP.S_LUT_LE_END", 256);
        wr(d, "SDP.S_LUT_LO_START", (uint32_t)-512);
        wr(d, "SDP.S_LUT_LO_END", 1536);
    }
    /* slopes: LE overflow 2 >> 1, LO underflow 3 >> 2 (fp16: the scales are
     * fp16 values, no shift: 1.0 and 0.75) */
    if (fp) {
        wr(d, "SDP.S_LUT_LE_SLOPE_SCALE", (uint32_t)fp16_from_float(1.0f) << 16);
        wr(d, "SDP.S_LUT_LO_SLOPE_SCALE", fp16_from_float(0.75f));
        return;
    }
    wr(d, "SDP.S_LUT_LE_SLOPE_SCALE", 2u << 16 | 1u);
    wr(d, "SDP.S_LUT_LE_SLOPE_SHIFT", 1u << 5 | 0u);
    wr(d, "SDP.S_LUT_LO_SLOPE_SCALE", 1u << 16 | 3u);
    wr(d, "SDP.S_LUT_LO_SLOPE_SHIFT", 0u << 5 | 2u);
}

static void test_access_port_read_back(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    program_tables(d, false);
    wr(d, "SDP.S_LUT_ACCESS_CFG", 0u << 17 | 1u << 16 | 10u); /* read LO from entry 10 */
    assert_int_equal(rd(d, "SDP.S_LUT_ACCESS_DATA") & 0xffff, (uint16_t)-30);
    assert_int_equal(rd(d, "SDP.S_LUT_ACCESS_DATA") & 0xffff, (uint16_t)-33); /* advanced */
    wr(d, "SDP.S_LUT_ACCESS_CFG", 0u << 17 | 0u << 16 | 64u);
    assert_int_equal(rd(d, "SDP.S_LUT_ACCESS_DATA") & 0xffff, 740);
    dla_destroy(d);
}

/* The six designed inputs and what each must give. */
struct lut_case {
    int16_t x;
    int16_t y;
};

static const struct lut_case cases[6] = {
    /* both tables underflow -> LO (priority): LO[0] + (-1000 + 512) * 3 >> 2 = -366 */
    {-1000, -366},
    /* LE underflows, LO hits: v = 412 -> LO[51], LO[52] at 4/8: -154.5 -> -155 */
    {-100, -155},
    /* both hit -> LE (priority): LE[1], LE[2] at 1/4: 110 * 3/4 + 120 / 4 = 112.5 -> 113 */
    {5, 113},
    /* LE overflows (75 >= 64), LO hits: v = 812 -> LO[101], LO[102] at 4/8: -304.5 -> -305 */
    {300, -305},
    /* both overflow -> LE (priority): LE[64] + (3000 - 256) * 2 >> 1 = 740 + 2744 */
    {3000, 3484},
    /* LE underflows (x <= start), LO hits exactly entry 64 */
    {0, -192},
};

static void run_layer(struct dla *d, bool fp, uint32_t w, uint32_t c)
{
    unsigned prec = fp ? 2 : 1;
    wr(d, "SDP_RDMA.D_DATA_CUBE_WIDTH", w - 1);
    wr(d, "SDP_RDMA.D_DATA_CUBE_HEIGHT", 0);
    wr(d, "SDP_RDMA.D_DATA_CUBE_CHANNEL", c - 1);
    wr(d, "SDP_RDMA.D_SRC_BASE_ADDR_LOW", (uint32_t)IN_ADDR);
    wr(d, "SDP_RDMA.D_SRC_LINE_STRIDE", w * 32);
    wr(d, "SDP_RDMA.D_SRC_SURFACE_STRIDE", w * 32);
    wr(d, "SDP_RDMA.D_SRC_DMA_CFG", 1);
    wr(d, "SDP_RDMA.D_FEATURE_MODE_CFG", prec << 2 | prec << 4 | prec << 6);
    wr(d, "SDP_RDMA.D_BRDMA_CFG", 1);
    wr(d, "SDP_RDMA.D_NRDMA_CFG", 1);
    wr(d, "SDP_RDMA.D_ERDMA_CFG", 1);
    wr(d, "SDP.D_DATA_CUBE_WIDTH", w - 1);
    wr(d, "SDP.D_DATA_CUBE_HEIGHT", 0);
    wr(d, "SDP.D_DATA_CUBE_CHANNEL", c - 1);
    wr(d, "SDP.D_DST_BASE_ADDR_LOW", (uint32_t)OUT_ADDR);
    wr(d, "SDP.D_DST_LINE_STRIDE", w * 32);
    wr(d, "SDP.D_DST_SURFACE_STRIDE", w * 32);
    wr(d, "SDP.D_DST_DMA_CFG", 1);
    wr(d, "SDP.D_DATA_FORMAT", prec | prec << 2);
    wr(d, "SDP.D_CVT_SCALE", 1);
    wr(d, "SDP.D_DP_BS_CFG", 1);
    wr(d, "SDP.D_DP_BN_CFG", 1);
    wr(d, "SDP.D_DP_EW_CFG", 0x2 | 0x10); /* ALU and MUL bypassed, LUT on */
    wr(d, "SDP.D_PERF_ENABLE", 0x2);      /* LUT counters */
    wr(d, "SDP.D_OP_ENABLE", 1);
    wr(d, "SDP_RDMA.D_OP_ENABLE", 1);
    while (dla_advance(d))
        ;
}

static void test_int16_lookup_cases_and_counters(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    struct lut_events ev = {0};
    dla_listen(d, on_event, &ev);
    program_tables(d, false);
    /* 16 channels x 6 pixels: pixel p channel k holds case (p + k) % 6, so
     * each case appears 16 times */
    const uint32_t w = 6, c = 16;
    int16_t in[6 * 16];
    for (uint32_t p = 0; p < w; p++)
        for (uint32_t k = 0; k < c; k++)
            in[p * c + k] = cases[(p + k) % 6].x;
    dla_mem_write(d, DLA_DRAM, IN_ADDR, in, sizeof in);
    run_layer(d, false, w, c);
    int16_t out[6 * 16];
    dla_mem_read(d, DLA_DRAM, OUT_ADDR, out, sizeof out);
    for (uint32_t p = 0; p < w; p++)
        for (uint32_t k = 0; k < c; k++)
            assert_int_equal(out[p * c + k], cases[(p + k) % 6].y);
    /* per case: LE hit only in case 2; LO hit in cases 1, 2, 3, 5; the
     * chosen table underflows in case 0 and overflows in case 4; the other
     * four are in-range picks */
    assert_int_equal(rd(d, "SDP.D_PERF_LUT_LE_HIT"), 16);
    assert_int_equal(rd(d, "SDP.D_PERF_LUT_LO_HIT"), 64);
    assert_int_equal(rd(d, "SDP.D_PERF_LUT_UFLOW"), 16);
    assert_int_equal(rd(d, "SDP.D_PERF_LUT_OFLOW"), 16);
    assert_int_equal(rd(d, "SDP.D_PERF_LUT_HYBRID"), 64);
    assert_int_equal(ev.n, 1);
    assert_int_equal(ev.last.lookups, 96);
    assert_int_equal(ev.last.le_hit, 16);
    /* each table's own range (what only the debugger shows): LE underflows
     * in cases 0, 1, 5 and overflows in 3, 4; LO under in 0, over in 4, so
     * each table's hits + underflows + overflows are the lookups */
    assert_int_equal(ev.last.le_underflow, 48);
    assert_int_equal(ev.last.le_overflow, 32);
    assert_int_equal(ev.last.lo_underflow, 16);
    assert_int_equal(ev.last.lo_overflow, 16);
    assert_int_equal(ev.last.hist_below, 16); /* case 0: both under */
    assert_int_equal(ev.last.hist_above, 16); /* case 4: both over */
    dla_destroy(d);
}

/* A layer split across workers (DLADBG_THREADS=3, 18432 elements) gives
 * every output and counts every lookup as one worker does: the cases of
 * the test above, each 3072 times, in 12 surfaces of 16 channels. */
static void test_counters_across_workers(void **state)
{
    (void)state;
    setenv("DLADBG_THREADS", "3", 1);
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    struct lut_events ev = {0};
    dla_listen(d, on_event, &ev);
    program_tables(d, false);
    enum { W = 96, C = 192, N = W * C, EACH = N / 6 };
    static int16_t in[N], out[N];
    for (uint32_t p = 0; p < W; p++)
        for (uint32_t k = 0; k < C; k++)
            in[(k / 16) * W * 16 + p * 16 + k % 16] = cases[(p + k) % 6].x;
    dla_mem_write(d, DLA_DRAM, IN_ADDR, in, sizeof in);
    run_layer(d, false, W, C);
    dla_mem_read(d, DLA_DRAM, OUT_ADDR, out, sizeof out);
    for (uint32_t p = 0; p < W; p++)
        for (uint32_t k = 0; k < C; k++)
            assert_int_equal(out[(k / 16) * W * 16 + p * 16 + k % 16], cases[(p + k) % 6].y);
    assert_int_equal(rd(d, "SDP.D_PERF_LUT_LE_HIT"), EACH);
    assert_int_equal(rd(d, "SDP.D_PERF_LUT_LO_HIT"), 4 * EACH);
    assert_int_equal(rd(d, "SDP.D_PERF_LUT_UFLOW"), EACH);
    assert_int_equal(rd(d, "SDP.D_PERF_LUT_OFLOW"), EACH);
    assert_int_equal(rd(d, "SDP.D_PERF_LUT_HYBRID"), 4 * EACH);
    assert_int_equal(ev.n, 1);
    assert_int_equal(ev.last.lookups, N);
    assert_int_equal(ev.last.le_underflow, 3 * EACH);
    assert_int_equal(ev.last.lo_overflow, EACH);
    assert_int_equal(ev.last.hist_below, EACH);
    assert_int_equal(ev.last.hist_above, EACH);
    dla_destroy(d);
    unsetenv("DLADBG_THREADS");
}

static unsigned lut_range_rules;

static void count_range_rules(void *ctx, const struct dla_event *ev)
{
    (void)ctx;
    if (ev->kind == DLA_EV_DIAG && ev->u.diag.rule && strstr(ev->u.diag.rule, "lut_"))
        lut_range_rules++;
}

static void test_fp16_interpolation(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    lut_range_rules = 0;
    dla_listen(d, count_range_rules, NULL);
    program_tables(d, true);
    /* 5.0: LE index 1 at 1/4 (both hit -> LE): 110 * 0.75 + 120 * 0.25 = 112.5;
     * -100.0: LO index 51 at 1/2: -154.5; 0.0: LO entry 64 exactly: -192;
     * -1000.0: both underflow -> LO: LO[0] + (-1000 + 512) * 0.75 = -366;
     * 3000.0: both overflow -> LE: LE[64] + (3000 - 256) * 1.0 = 3484 */
    const float cases_x[5] = {5.0f, -100.0f, 0.0f, -1000.0f, 3000.0f};
    const float cases_y[5] = {112.5f, -154.5f, -192.0f, -366.0f, 3484.0f};
    float xs[16], ys[16];
    for (int i = 0; i < 16; i++) {
        xs[i] = cases_x[i % 5];
        ys[i] = cases_y[i % 5];
    }
    uint16_t in[16];
    for (int i = 0; i < 16; i++)
        in[i] = fp16_from_float(xs[i]);
    dla_mem_write(d, DLA_DRAM, IN_ADDR, in, sizeof in);
    run_layer(d, true, 1, 16);
    uint16_t out[16];
    dla_mem_read(d, DLA_DRAM, OUT_ADDR, out, sizeof out);
    for (int i = 0; i < 16; i++)
        assert_int_equal(out[i], fp16_from_float(ys[i]));
    assert_int_equal(lut_range_rules, 0);
    dla_destroy(d);
}

/* Range rules an fp16 layer raises with these LE bounds. */
static unsigned fp16_range_rules(float le_start, float le_end)
{
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    lut_range_rules = 0;
    dla_listen(d, count_range_rules, NULL);
    program_tables(d, true);
    wr(d, "SDP.S_LUT_LE_START", f32_bits(le_start));
    wr(d, "SDP.S_LUT_LE_END", f32_bits(le_end));
    uint16_t in[16] = {0};
    dla_mem_write(d, DLA_DRAM, IN_ADDR, in, sizeof in);
    run_layer(d, true, 1, 16);
    dla_destroy(d);
    return lut_range_rules;
}

/* fp16 bounds are fp32 bit patterns: -512.0 .. -256.0 is a valid range, though
 * as integers the end's bits (0xc3800000) are below the start's (0xc4000000);
 * a range that really is reversed is still reported. */
static void test_fp16_negative_range_is_valid(void **state)
{
    (void)state;
    assert_int_equal(fp16_range_rules(-512.0f, -256.0f), 0);
    assert_int_equal(fp16_range_rules(-256.0f, -512.0f), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_access_port_read_back),
        cmocka_unit_test(test_int16_lookup_cases_and_counters),
        cmocka_unit_test(test_counters_across_workers),
        cmocka_unit_test(test_fp16_interpolation),
        cmocka_unit_test(test_fp16_negative_range_is_valid),
    };
    return cmocka_run_group_tests_name("sdp_lut", tests, NULL, NULL);
}
