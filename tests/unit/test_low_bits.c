/* Low bits of DMA addresses and strides:
 *   - nv_full's address and stride fields start at bit 5: a write keeps what
 *     the field holds, drops bits 4:0 and the rule checker says so;
 *   - the v2 map's fields are [31:0]: the register keeps every bit, silently;
 *   - the engine programs an SDP operand address with low bits set (the
 *     firmware does not refuse it) and the DMA reads from the aligned address. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine_rig.h"
#include "post_harness.h"
#include "sdp_net.h"

static void test_nv_full_drops_low_bits_with_a_rule(void **state)
{
    (void)state;
    struct harness *h = harness_new("nv_full");
    wr(h, "SDP_RDMA.D_BS_BASE_ADDR_LOW", 0x802ba001u);
    assert_int_equal(rd(h, "SDP_RDMA.D_BS_BASE_ADDR_LOW"), 0x802ba000u);
    assert_int_equal(harness_count(h, "csb.low_bits_dropped", -1), 1);
    wr(h, "CACC.D_LINE_STRIDE", 0x121u); /* field [23:5] */
    assert_int_equal(rd(h, "CACC.D_LINE_STRIDE"), 0x120u);
    assert_int_equal(harness_count(h, "csb.low_bits_dropped", -1), 2);
    wr(h, "SDP_RDMA.D_BS_BASE_ADDR_LOW", 0x802ba020u); /* aligned: silent */
    wr(h, "SDP_RDMA.D_BS_BASE_ADDR_HIGH", 0x7u);       /* field [31:0] */
    assert_int_equal(harness_count(h, "csb.low_bits_dropped", -1), 2);
    harness_free(h);
}

static void test_v2_map_keeps_low_bits(void **state)
{
    (void)state;
    struct harness *h = harness_new("nv_small");
    wr(h, "SDP_RDMA.D_BS_BASE_ADDR_LOW", 0x802ba001u);
    assert_int_equal(rd(h, "SDP_RDMA.D_BS_BASE_ADDR_LOW"), 0x802ba001u);
    assert_int_equal(harness_count(h, "csb.low_bits_dropped", -1), 0);
    harness_free(h);
}

static void count_low_bit_rules(void *ctx, const struct dla_event *ev)
{
    if (ev->kind == DLA_EV_DIAG && ev->u.diag.rule &&
        strcmp(ev->u.diag.rule, "csb.low_bits_dropped") == 0)
        ++*(int *)ctx;
}

/* The SDP network with a per-kernel X1 add whose operand sits in the input
 * memory at byte offset x1_offset. */
static void x1_net(struct sdp_net *n, uint32_t x1_offset)
{
    sdp_net_init(n);
    struct fw_sdp_stage *x1 = &n->op.u.sdp.op.x1;
    x1->enable = 1;
    x1->type = FW_SDP_ADD;
    x1->mode = FW_SDP_PER_KERNEL;
    x1->precision = FW_PREC_INT8;
    x1->alu_cvt.scale = x1->mul_cvt.scale = 1;
    n->op.u.sdp.surface.x1 = (struct fw_cube){.type = FW_MEM_MC,
                                              .address = 4,
                                              .offset = x1_offset,
                                              .size = 32,
                                              .width = 1,
                                              .height = 1,
                                              .channel = 8,
                                              .line_stride = 32,
                                              .surf_stride = 32};
}

/* Run the network with input bytes 32..39 = 1..8; the first output atom. */
static void run_x1_net(const uint8_t *buf, size_t len, int *rules, uint8_t out[8], uint32_t *bs_reg)
{
    struct rig r;
    rig_open_buf(&r, buf, len);
    *rules = 0;
    dla_listen(r.d, count_low_bit_rules, rules);
    enum dla_space s;
    uint64_t in, dst;
    assert_true(runtime_task_address(&r.rt, 0, 4, &s, &in));
    assert_true(runtime_task_address(&r.rt, 0, 5, &s, &dst));
    static const uint8_t operand[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    assert_int_equal(dla_mem_write(r.d, s, in + 32, operand, sizeof operand), MEM_OK);
    assert_true(rig_run(&r, 0));
    assert_int_equal(dla_mem_read(r.d, s, dst, out, 8), MEM_OK);
    struct regdb_ref ref;
    assert_true(regdb_resolve(dla_regmap(r.d), "SDP_RDMA.D_BS_BASE_ADDR_LOW", &ref));
    *bs_reg = dla_reg_value(r.d, DLA_U_SDP_RDMA, 0, ref.reg->offset);
    rig_close(&r);
}

static void test_engine_programs_an_unaligned_operand(void **state)
{
    (void)state;
    struct sdp_net n;
    x1_net(&n, 33);
    uint8_t *buf, out[8];
    size_t len;
    int rules;
    uint32_t bs;
    sdp_net_encode(&n, &buf, &len);
    run_x1_net(buf, len, &rules, out, &bs);
    free(buf);
    assert_int_equal(rules, 1);
    assert_int_equal(bs & 0x1fu, 0);
    /* the operand comes from offset 32, not 33: channel c gets c + 1 */
    static const uint8_t expect[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    assert_memory_equal(out, expect, sizeof expect);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nv_full_drops_low_bits_with_a_rule),
        cmocka_unit_test(test_v2_map_keeps_low_bits),
        cmocka_unit_test(test_engine_programs_an_unaligned_operand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
