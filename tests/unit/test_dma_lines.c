/* What NVIDIA's virtual-platform replays check: the DRAM line sets of the
 * model's DMA ("info dma lines"), CDMA's concurrent data and weight streams
 * (the smaller one raises its DONE interrupt first, as in the VP), and the
 * weight DMA reading D_WEIGHT_BYTES including the compiler's padding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conv_harness.h"
#include "dbg_fixture.h"
#include "trace/dma_lines.h"
#include "core/timing.h"

static void test_line_set_grows_and_sorts(void **state)
{
    (void)state;
    struct line_set s = {0};
    for (uint64_t i = 5000; i-- > 0;)
        assert_true(line_set_add(&s, i * 3));
    assert_true(line_set_add(&s, 3)); /* again: no new member */
    assert_int_equal(s.count, 5000);
    assert_true(line_set_has(&s, 0));
    assert_true(line_set_has(&s, 4999 * 3));
    assert_false(line_set_has(&s, 1));
    uint64_t *v = line_set_sorted(&s);
    assert_non_null(v);
    for (size_t i = 0; i < s.count; i++)
        assert_int_equal(v[i], i * 3);
    free(v);
    line_set_free(&s);
}

/* Lines far apart and out of order (each its own chunk, chunks inserted
 * before, between and after others), chunk edges, the top of the address space. */
static void test_line_set_scattered(void **state)
{
    (void)state;
    const uint64_t lines[] = {1ull << 40, 0, UINT64_MAX, 4095, 4096, 77 * 4096 + 5, 3,
                              (1ull << 40) - 1, 12 * 4096 + 4095};
    const size_t n = sizeof lines / sizeof lines[0];
    struct line_set s = {0};
    for (size_t i = 0; i < n; i++)
        assert_true(line_set_add(&s, lines[i]));
    for (size_t i = 0; i < n; i++)
        assert_true(line_set_add(&s, lines[i])); /* no new members */
    assert_int_equal(s.count, n);
    for (size_t i = 0; i < n; i++)
        assert_true(line_set_has(&s, lines[i]));
    assert_false(line_set_has(&s, 4097));
    assert_false(line_set_has(&s, UINT64_MAX - 1));
    assert_false(line_set_has(&s, 77 * 4096 + 4));
    uint64_t *v = line_set_sorted(&s);
    assert_non_null(v);
    for (size_t i = 1; i < n; i++)
        assert_true(v[i - 1] < v[i]);
    assert_int_equal(v[0], 0);
    assert_int_equal(v[n - 1], UINT64_MAX);
    free(v);
    line_set_free(&s);
}

/* A network's traffic is dense runs of lines: a million lines (64 MB of
 * DRAM) cost a few bits each, not the 8-16 bytes of a set of numbers; far
 * apart lines (a block each) stay exact too. */
static void test_line_set_dense_runs_cost_a_bit_a_line(void **state)
{
    (void)state;
    struct line_set s = {0};
    const uint64_t base = 0x80000000ull / DMA_LINE_BYTES, n = 1u << 20;
    for (uint64_t i = 0; i < n; i++)
        assert_true(line_set_add(&s, base + i));
    assert_true(line_set_add(&s, 7));
    assert_true(line_set_add(&s, UINT64_MAX / DMA_LINE_BYTES));
    assert_int_equal(s.count, n + 2);
    assert_true(s.cap * sizeof *s.blocks < n / 2); /* under 4 bits a line, table slack included */
    assert_true(line_set_has(&s, base) && line_set_has(&s, base + n - 1));
    assert_false(line_set_has(&s, base - 1) || line_set_has(&s, base + n) || line_set_has(&s, 8));
    uint64_t *v = line_set_sorted(&s);
    assert_non_null(v);
    assert_int_equal(v[0], 7);
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(v[1 + i], base + i);
    assert_int_equal(v[n + 1], UINT64_MAX / DMA_LINE_BYTES);
    free(v);
    line_set_free(&s);
}

static void test_golden_file(void **state)
{
    (void)state;
    char path[600], err[512];
    fixture_path(path, sizeof path, "rd");
    fixture_write("rd", "80201000\n0x80201040\n\n# comment\n8020107f\n");
    struct line_set s = {0};
    assert_true(line_set_read(&s, path, err, sizeof err));
    assert_int_equal(s.count, 2); /* 0x8020107f is in the line of 0x80201040 */
    assert_true(line_set_has(&s, 0x80201000u / 64));
    line_set_free(&s);
    fixture_write("rd", "80201000\nnot-hex\n");
    assert_false(line_set_read(&s, path, err, sizeof err));
    assert_non_null(strstr(err, ":2: expected one hex address"));
    line_set_free(&s);
}

static void test_info_dma_lines_command(void **state)
{
    (void)state;
    struct dbg *d = fixture_open("sample:conv");
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_int_equal(fixture_exec(d, "info dma lines"), CMD_OK);
    unsigned long rd = 0, wr = 0;
    const char *t = strstr(fixture_out.text, "DRAM): ");
    assert_non_null(t);
    assert_int_equal(sscanf(t, "DRAM): %lu read, %lu written", &rd, &wr), 2);
    assert_true(rd > 0 && wr > 0);
    assert_int_equal(rd, d->lines->read.count);
    /* goldens that lack every line the model wrote and name one it never read */
    char rpath[300], wpath[300], line[700];
    fixture_write("golden_rd", "0\n");
    fixture_path(rpath, sizeof rpath, "golden_rd");
    fixture_write("golden_wr", "");
    fixture_path(wpath, sizeof wpath, "golden_wr");
    snprintf(line, sizeof line, "info dma lines %s %s", rpath, wpath);
    assert_int_equal(fixture_exec(d, line), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "only in the golden: 0x0-0x3f (1 line)"));
    assert_non_null(strstr(fixture_out.text, "DIFFERENT"));
    assert_int_equal(d->rep.checks_failed, 1);
    assert_int_equal(fixture_exec(d, "info dma lines /nonexistent/rd x"), CMD_ERROR);
    assert_int_equal(fixture_exec(d, "info dma"), CMD_ERROR);
    dbg_destroy(d);
}

static void dma_event(struct dma_lines *l, uint8_t client, uint8_t space, bool write, uint64_t addr,
                      uint64_t bytes)
{
    struct dla_event ev = {.kind = DLA_EV_DMA};
    ev.u.dma.client = client;
    ev.u.dma.space = space;
    ev.u.dma.write = write;
    ev.u.dma.addr = addr;
    ev.u.dma.bytes = bytes;
    dma_lines_record(l, &ev);
}

static void test_transfers_mark_every_line_they_touch(void **state)
{
    (void)state;
    struct dma_lines l;
    dma_lines_init(&l);
    dma_event(&l, DLA_C_CDMA_DAT, DLA_DRAM, false, 0x103f, 2);    /* two lines */
    dma_event(&l, DLA_C_SDP_WDMA, DLA_DRAM, true, 0x2000, 128);   /* two lines */
    dma_event(&l, DLA_C_HOST, DLA_DRAM, true, 0x9000, 64);        /* a host load: not DMA */
    dma_event(&l, DLA_C_PDP_RDMA, DLA_CVSRAM, false, 0x4000, 64); /* not DRAM */
    assert_int_equal(l.read.count, 2);
    assert_true(line_set_has(&l.read, 0x1000 / 64) && line_set_has(&l.read, 0x1040 / 64));
    assert_int_equal(l.written.count, 2);
    dma_lines_clear(&l);
    assert_int_equal(l.read.count + l.written.count, 0);
    dma_lines_free(&l);
}

/* The cycle of the milestone that sets GLB status bit `bit`. */
static uint64_t milestone_at(const struct dla_pipe *p, unsigned bit)
{
    for (uint8_t i = 0; i < p->n_ms; i++)
        if (p->ms[i].intr_bit == bit)
            return p->ms[i].at;
    fail_msg("no milestone for bit %u", bit);
    return 0;
}

/* One conv stage moving dat and wt bytes; DAT_DONE0 is bit 16, WT_DONE0 18. */
static void plan_conv(uint64_t dat, uint64_t wt, uint64_t *dat_done, uint64_t *wt_done)
{
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    struct dla_pipe p = {.n_stages = 1};
    p.stage[0].proc = DLA_P_CONV;
    p.stage[0].compute_cycles = 20000;
    p.stage[0].client_bytes[DLA_C_CDMA_DAT] = dat;
    p.stage[0].client_bytes[DLA_C_CDMA_WT] = wt;
    p.stage[0].space_bytes[DLA_DRAM][0] = dat + wt; /* both are reads */
    timing_plan(d, &p);
    *dat_done = milestone_at(&p, 16);
    *wt_done = milestone_at(&p, 18);
    /* both streams start together after the first-access latency */
    assert_int_equal(p.stage[0].client_start[DLA_C_CDMA_DAT],
                     p.stage[0].client_start[DLA_C_CDMA_WT]);
    dla_destroy(d);
}

static void test_cdma_streams_run_together(void **state)
{
    (void)state;
    uint64_t dat, wt;
    plan_conv(25088, 1000, &dat, &wt); /* the VP's LeNet conv1: WT_DONE first */
    assert_true(wt < dat);
    /* the DRAM read latency, then 408 bus cycles (26088 bytes at 64 per
     * cycle) of which the weights, sharing them evenly, need 2 x 1000 / 26088 */
    uint64_t lat = timing_latency(dla_config_find("nv_full"), DLA_DRAM);
    assert_int_equal(wt, lat + 408 * 2000 / 26088);
    assert_int_equal(dat, lat + 408);
    plan_conv(9216, 50000, &dat, &wt); /* conv2: DAT_DONE first */
    assert_true(dat < wt);
}

static void test_weight_dma_reads_the_padding(void **state)
{
    (void)state;
    struct spec s = spec_3x3_same("nv_full", 0, 4, 4, 8, 3); /* 216 bytes of weights */
    struct dla *d = dla_create(dla_config_find(s.config), NULL);
    s.data_banks = s.weight_banks = 1;
    struct layer_data ld = {0};
    prepare(d, &s, &ld);
    struct dla_cube out;
    assert_int_equal(run_conv(d, &out), 0);
    assert_int_equal(get_reg(d, "CDMA.D_WEIGHT_BYTES"), 256);
    assert_int_equal(conv_last_bytes[DLA_C_CDMA_WT], 256);
    cube_free(&out);
    free_layer_data(&ld);
    dla_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_set_grows_and_sorts),
        cmocka_unit_test(test_line_set_scattered),
        cmocka_unit_test(test_line_set_dense_runs_cost_a_bit_a_line),
        cmocka_unit_test(test_golden_file),
        cmocka_unit_test(test_info_dma_lines_command),
        cmocka_unit_test(test_transfers_mark_every_line_they_touch),
        cmocka_unit_test(test_cdma_streams_run_together),
        cmocka_unit_test(test_weight_dma_reads_the_padding),
    };
    return cmocka_run_group_tests(tests, fixture_group_setup, fixture_group_teardown);
}
