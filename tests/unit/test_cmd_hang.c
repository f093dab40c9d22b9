/* Hang diagnosis through the command layer: a loadable whose only operation
 * waits for a dependency nothing will ever signal, and a trace waiting for a
 * masked interrupt, stop instead of spinning; the report says which
 * operations wait on what, which units are enabled or idle, and the
 * interrupt status and mask by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dbg_fixture.h"
#include "fw_desc.h"
#include "loadable_writer.h"

static int setup(void **state)
{
    (void)state;
    return fixture_mkdir();
}

static int teardown(void **state)
{
    (void)state;
    return fixture_rmdir();
}

/* One SDP operation, memory to memory, that depends on dependency_count
 * other operations (0: a healthy network). */
static void write_sdp_net(const char *path, uint8_t dependency_count)
{
    struct fw_network nd = {.operation_desc_index = 1,
                            .surface_desc_index = 2,
                            .dependency_graph_index = 3,
                            .lut_data_index = -1,
                            .roi_array_index = -1,
                            .surface_index = -1,
                            .stat_list_index = -1,
                            .num_rois = 1,
                            .num_operations = 1,
                            .num_addresses = 6};
    for (int i = 0; i < FW_OP_TYPES; i++)
        nd.op_head[i] = -1;
    nd.op_head[FW_OP_SDP] = 0;
    struct fw_common_op dep = {.index = 0, .op_type = FW_OP_SDP};
    for (int i = 0; i < FW_OP_TYPES; i++)
        dep.consumers[i].index = -1;
    dep.fused_parent.index = -1;
    dep.dependency_count = dependency_count;
    struct fw_op op = {.type = FW_OP_SDP};
    op.u.sdp.op.batch_num = 1;
    op.u.sdp.op.lut_index = -1;
    op.u.sdp.op.out_cvt.scale = 1;
    struct fw_cube c = {.type = FW_MEM_MC,
                        .address = 4,
                        .size = 512,
                        .width = 4,
                        .height = 4,
                        .channel = 8,
                        .line_stride = 128,
                        .surf_stride = 512};
    op.u.sdp.surface.src = c;
    c.address = 5;
    op.u.sdp.surface.dst = c;
    uint8_t ndb[FW_NETWORK_SIZE], opb[FW_OP_SIZE], sb[FW_SURFACE_SIZE], db[FW_COMMON_OP_SIZE];
    fw_encode_network(&nd, ndb);
    fw_encode_op(FW_LAYOUT_CURRENT, &op, opb, sb);
    fw_encode_common_op(&dep, db);
    struct lw *w = lw_create();
    struct ld_version v = {0, 12, 0};
    lw_blob(w, "nd", 1, 1, v, ndb, sizeof ndb);
    lw_blob(w, "op", 1, 3, v, opb, sizeof opb);
    lw_blob(w, "surf", 1, 4, v, sb, sizeof sb);
    lw_blob(w, "dep", 1, 2, v, db, sizeof db);
    lw_memory(w, 0, 3, sizeof ndb, 0, "nd", 0, 0);
    lw_memory(w, 0, 3, sizeof opb, 0, "op", 0, 0);
    lw_memory(w, 0, 3, sizeof sb, 0, "surf", 0, 0);
    lw_memory(w, 0, 3, sizeof db, 0, "dep", 0, 0);
    lw_memory(w, 0, 1, 512, 0, NULL, 0, 0);
    lw_memory(w, 0, 1, 512, 0, NULL, 0, 0);
    uint16_t addrs[6], task = 0;
    for (uint16_t i = 0; i < 6; i++)
        addrs[i] = (uint16_t)lw_address(w, i, 0, 0);
    lw_task(w, LD_IF_DLA1, addrs, 6, NULL, 0, NULL, 0);
    lw_submit(w, &task, 1);
    uint8_t *buf;
    size_t len;
    assert_true(lw_finish(w, (struct ld_version){0, 7, 0}, &buf, &len));
    lw_destroy(w);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(buf, 1, len, fp), len);
    fclose(fp);
    free(buf);
}

static void test_broken_dependency_graph(void **state)
{
    (void)state;
    char good[512], bad[512];
    fixture_path(good, sizeof good, "good.nvdla");
    fixture_path(bad, sizeof bad, "never_ready.nvdla");
    write_sdp_net(good, 0);
    write_sdp_net(bad, 1);
    /* the healthy network runs to its end */
    struct dbg *d = fixture_open(good);
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_true(session_finished(d->session));
    assert_false(d->hung);
    dbg_destroy(d);
    /* the broken one is stopped and explained */
    d = fixture_open(bad);
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_true(d->hung);
    assert_non_null(strstr(fixture_out.text, "no progress"));
    assert_non_null(strstr(fixture_out.text, "waiting for its dependencies"));
    assert_non_null(strstr(fixture_out.text, "GLB.S_INTR_STATUS 0x"));
    assert_non_null(strstr(fixture_out.text, "GLB.S_INTR_MASK"));
    assert_non_null(strstr(fixture_out.text, "SDP       group0 idle"));
    assert_int_equal(dbg_exit_status(d), 1);
    dbg_destroy(d);
}

static void test_masked_interrupt(void **state)
{
    (void)state;
    struct dbg *d = fixture_open("traces/hang_masked_intr");
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_true(d->hung);
    assert_non_null(strstr(fixture_out.text,
                           "pending but masked (the interrupt line stays low): BDMA_DONE_STATUS0"));
    assert_int_equal(fixture_exec(d, "info intr"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "pending & masked  0x00000040 BDMA_DONE_STATUS0"));
    /* a restart forgets the hang */
    assert_int_equal(fixture_exec(d, "restart"), CMD_OK);
    assert_false(d->hung);
    dbg_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broken_dependency_graph),
        cmocka_unit_test(test_masked_interrupt),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
