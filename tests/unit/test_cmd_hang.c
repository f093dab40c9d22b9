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
#include "sdp_net.h"

/* One SDP operation, memory to memory, that depends on dependency_count
 * other operations (0: a healthy network). */
static void write_sdp_net(const char *path, uint8_t dependency_count)
{
    struct sdp_net n;
    sdp_net_init(&n);
    n.dep.dependency_count = dependency_count;
    uint8_t *buf;
    size_t len;
    sdp_net_encode(&n, &buf, &len);
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
    /* running on past the hang (what a plain --batch run does) gives up the
     * task: still a hang, exit status 1, not an input error */
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK);
    assert_true(session_finished(d->session));
    assert_non_null(strstr(fixture_out.text, "the hardware went idle without raising an interrupt"));
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
    return cmocka_run_group_tests(tests, fixture_group_setup, fixture_group_teardown);
}
