/* The timing model's schedule of a stage (sim/core/timing.c): a convolution's
 * datapath waits for its data and its last kernel group for the weights,
 * CDMA's reads move one beat every other cycle, an SDP from memory starts
 * reading at its RDMA's enable, and the units each
 * configuration's calibration set covers are the ones called calibrated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/dla_priv.h"
#include "core/timing.h"

struct timed {
    struct dla *d;
    struct dla_pipe pipe;
};

static void open_stage(struct timed *t, const char *config, enum dla_proc proc)
{
    memset(t, 0, sizeof *t);
    t->d = dla_create(dla_config_find(config), NULL);
    assert_non_null(t->d);
    t->pipe.n_stages = 1;
    t->pipe.stage[0].proc = (uint8_t)proc;
}

static void add_reads(struct dla_stage *st, enum dla_client c, uint64_t bytes)
{
    st->client_bytes[c] += bytes;
    st->space_bytes[DLA_DRAM][0] += bytes;
    if (c != DLA_C_BDMA_RD)
        st->paced_read_bytes[DLA_DRAM] += bytes;
}

/* Plan a convolution stage on nv_small: data and weight bytes read from
 * DRAM, 1000 datapath cycles of which the last kernel group's 250. */
static struct dla_stage *plan_conv(struct timed *t, uint64_t data, uint64_t weights)
{
    open_stage(t, "nv_small", DLA_P_CONV);
    struct dla_stage *st = &t->pipe.stage[0];
    add_reads(st, DLA_C_CDMA_DAT, data);
    add_reads(st, DLA_C_CDMA_WT, weights);
    st->compute_cycles = 1000;
    st->compute_waits_data = true;
    st->last_group_cycles = 250;
    timing_plan(t->d, &t->pipe);
    return st;
}

/* 8000 bytes of data and 800 of weights: 1100 beats at two cycles each,
 * both streams together, so the data is in after 2200 cycles (plus the 80
 * cycles of first-access latency) and the multiplies only start then. */
static void test_conv_waits_for_its_data(void **state)
{
    (void)state;
    struct timed t;
    struct dla_stage *st = plan_conv(&t, 8000, 800);
    assert_int_equal(t.d->cfg->dram_read_latency, 80);
    assert_int_equal(st->client_done[DLA_C_CDMA_DAT], 80 + 2200);
    assert_int_equal(st->client_done[DLA_C_CDMA_WT], 80 + 400); /* the smaller stream: 2 x 200 */
    assert_int_equal(st->end, 80 + 2200 + 1000 + TIMING_STAGE_OVERHEAD);
    /* the datapath waited 2200 of the 3200 cycles */
    assert_int_equal(st->stall_cycles, 2200);
    /* D_PERF_*_READ_LATENCY: first request to last response */
    assert_int_equal(timing_read_window(t.d, st, DLA_C_CDMA_DAT), 80 + 2200);
    assert_int_equal(timing_read_window(t.d, st, DLA_C_CDMA_WT), 80 + 400);
    assert_int_equal(timing_read_window(t.d, st, DLA_C_SDP_MRDMA), 0);
    dla_destroy(t.d);
}

/* The sizes swapped: the data is in after 400 cycles, but the last kernel
 * group's 250 cycles wait for the last weights at 2200. */
static void test_conv_last_group_waits_for_weights(void **state)
{
    (void)state;
    struct timed t;
    struct dla_stage *st = plan_conv(&t, 800, 8000);
    assert_int_equal(st->end, 80 + 2200 + 250 + TIMING_STAGE_OVERHEAD);
    dla_destroy(t.d);
}

/* Other stages overlap compute and memory: the longer of the two counts
 * (SDP's reads are paced too: 8000 bytes are 2000 cycles on nv_small). */
static void test_other_stages_overlap(void **state)
{
    (void)state;
    struct timed t;
    open_stage(&t, "nv_small", DLA_P_SDP);
    struct dla_stage *st = &t.pipe.stage[0];
    add_reads(st, DLA_C_SDP_MRDMA, 8000);
    st->compute_cycles = 900;
    timing_plan(t.d, &t.pipe);
    assert_int_equal(st->end, 80 + 2000 + TIMING_STAGE_OVERHEAD);
    assert_int_equal(st->stall_cycles, 1100);
    dla_destroy(t.d);
}

/* An nv_full SDP that reads 4 KiB from memory through SDP_RDMA, enabled at
 * cycle 1000, launched by SDP's enable `after` cycles later; the previous
 * SDP operation completed at idle.  Returns the cycle it ends. */
static uint64_t sdp_from_memory_end(uint64_t after, uint64_t idle)
{
    struct timed t;
    open_stage(&t, "nv_full", DLA_P_SDP);
    struct dla_stage *st = &t.pipe.stage[0];
    st->rdma_group = 0;
    add_reads(st, DLA_C_SDP_MRDMA, 4096);
    st->compute_cycles = 128;
    t.d->op_enable_at[DLA_U_SDP_RDMA][0] = 1000;
    t.d->proc_idle_at[DLA_P_SDP] = idle;
    t.d->now = 1000 + after;
    timing_plan(t.d, &t.pipe);
    uint64_t end = st->end;
    dla_destroy(t.d);
    return end;
}

/* The read stream starts at SDP_RDMA's own enable: the layer ends at the
 * same cycle however late SDP's enable follows, up to the RDMA's lead; with
 * a longer lead it ends a fixed time after SDP's enable instead. */
static void test_sdp_reads_from_its_rdma_enable(void **state)
{
    (void)state;
    uint64_t from_rdma = 1000 + 78 + 128 + TIMING_STAGE_OVERHEAD +
                         dla_config_find("nv_full")->rdma_head_fill;
    assert_int_equal(sdp_from_memory_end(1, 0), from_rdma);
    assert_int_equal(sdp_from_memory_end(19, 0), from_rdma);
    assert_int_equal(sdp_from_memory_end(TIMING_RDMA_MAX_LEAD, 0), from_rdma);
    assert_int_equal(sdp_from_memory_end(200, 0), from_rdma + 200 - TIMING_RDMA_MAX_LEAD);
    assert_int_equal(sdp_from_memory_end(300, 0), from_rdma + 300 - TIMING_RDMA_MAX_LEAD);
    /* the RDMA reads for this layer only once the SDP's previous one is done */
    assert_int_equal(sdp_from_memory_end(19, 1010), from_rdma + 10);
}

/* An SDP fed on the fly reads no input from memory: its RDMA does not lead. */
static void test_sdp_without_rdma_starts_at_launch(void **state)
{
    (void)state;
    struct timed t;
    open_stage(&t, "nv_full", DLA_P_SDP);
    struct dla_stage *st = &t.pipe.stage[0];
    st->rdma_group = 0xff;
    st->compute_cycles = 128;
    t.d->op_enable_at[DLA_U_SDP_RDMA][0] = 1000;
    t.d->now = 1019;
    timing_plan(t.d, &t.pipe);
    assert_int_equal(st->end, 1019 + 128 + TIMING_STAGE_OVERHEAD);
    dla_destroy(t.d);
}

/* The units' read DMA engines read a beat every other cycle, on every
 * configuration; BDMA, and writes, a beat a cycle. */
static void test_read_cadence(void **state)
{
    (void)state;
    const struct dla_config *small = dla_config_find("nv_small"),
                            *full = dla_config_find("nv_full");
    assert_int_equal(timing_transfer_cycles(small, DLA_DRAM, 800, 800), 200);
    assert_int_equal(timing_transfer_cycles(small, DLA_DRAM, 800, 0), 100);
    assert_int_equal(timing_transfer_cycles(full, DLA_DRAM, 6400, 0), 100);
    assert_int_equal(timing_transfer_cycles(full, DLA_DRAM, 6400, 3200), 150);
    assert_int_equal(timing_transfer_cycles(full, DLA_CVSRAM, 6400, 6400), 200);
}

static void test_calibrated_units(void **state)
{
    (void)state;
    const struct dla_config *small = dla_config_find("nv_small"),
                            *full = dla_config_find("nv_full");
    assert_true(dla_cycles_calibrated(full, DLA_P_BDMA));
    assert_true(dla_cycles_calibrated(full, DLA_P_PDP));
    assert_true(dla_cycles_calibrated(full, DLA_P_CONV));
    assert_false(dla_cycles_calibrated(full, DLA_P_CDP));
    assert_true(dla_cycles_calibrated(small, DLA_P_CONV));
    assert_true(dla_cycles_calibrated(small, DLA_P_SDP));
    assert_true(dla_cycles_calibrated(small, DLA_P_CDP));
    assert_false(dla_cycles_calibrated(small, DLA_P_BDMA));
    assert_false(dla_cycles_calibrated(dla_config_find("nv_large"), DLA_P_CONV));
    assert_false(dla_cycles_calibrated(small, DLA_P_NONE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_waits_for_its_data),
        cmocka_unit_test(test_conv_last_group_waits_for_weights),
        cmocka_unit_test(test_other_stages_overlap),
        cmocka_unit_test(test_sdp_reads_from_its_rdma_enable),
        cmocka_unit_test(test_sdp_without_rdma_starts_at_launch),
        cmocka_unit_test(test_read_cadence),
        cmocka_unit_test(test_calibrated_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
