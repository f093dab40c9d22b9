/* Decoder plugins: the shipped decoders load; broken ones (wrong ABI version,
 * no decoder symbol, an unusable descriptor, not a shared object, a second
 * decoder of the same name) are refused with a message naming the file and
 * the reason, and never called. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dbg_fixture.h"
#include "plugin_host.h"

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

static void test_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/tests/plugins/%s.so", fixture_build(), name);
}

static void test_shipped_decoders(void **state)
{
    (void)state;
    struct plugin_host *ph = plugin_host_create();
    char dir[512];
    snprintf(dir, sizeof dir, "%s/plugins", fixture_build());
    assert_int_equal(plugin_host_scan(ph, dir, NULL, NULL), 6);
    const char *names[] = {"layers", "regs", "dma", "lut", "perf", "cbuf"};
    for (size_t i = 0; i < 6; i++) {
        const struct plugin_info *p = plugin_host_find(ph, names[i]);
        assert_non_null(p);
        assert_int_equal(p->dec->abi_version, DLADBG_DECODER_ABI_VERSION);
        assert_true(p->dec->n_columns >= 1);
    }
    /* "layers" has the columns the issue asks for */
    const struct dladbg_decoder *l = plugin_host_find(ph, "layers")->dec;
    const char *want[] = {"index",       "unit",          "op",          "group",
                          "start_cycle", "end_cycle",     "cycles",      "macs",
                          "bytes_read",  "bytes_written", "stall_cycles"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_string_equal(l->columns[i], want[i]);
    /* a second decoder of the same name is refused */
    char err[1024];
    char path[600];
    snprintf(path, sizeof path, "%s/plugins/layers.so", fixture_build());
    assert_false(plugin_host_load(ph, path, err, sizeof err));
    assert_non_null(strstr(err, "already loaded"));
    plugin_host_destroy(ph);
}

static void expect_refused(const char *path, const char *reason)
{
    struct plugin_host *ph = plugin_host_create();
    char err[1024] = "";
    assert_false(plugin_host_load(ph, path, err, sizeof err));
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "refused"));
    if (!strstr(err, reason))
        fail_msg("\"%s\" does not say \"%s\"", err, reason);
    assert_int_equal(plugin_host_count(ph), 0);
    plugin_host_destroy(ph);
}

static void test_broken_plugins_refused(void **state)
{
    (void)state;
    char path[600];
    test_path(path, sizeof path, "broken_abi");
    char want[128];
    snprintf(want, sizeof want, "decoder ABI version %d, but this dladbg speaks version %d",
             DLADBG_DECODER_ABI_VERSION + 98, DLADBG_DECODER_ABI_VERSION);
    expect_refused(path, want);
    test_path(path, sizeof path, "no_symbol");
    expect_refused(path, "no symbol \"dladbg_decoder\"");
    test_path(path, sizeof path, "bad_columns");
    expect_refused(path, "0 columns");
    fixture_write("fake.so", "this is not a shared object\n");
    fixture_path(path, sizeof path, "fake.so");
    expect_refused(path, "cannot load it");
    fixture_path(path, sizeof path, "missing.so");
    expect_refused(path, "cannot load it");
}

static void record_refusal(void *ctx, const char *message)
{
    (*(int *)ctx)++;
    assert_non_null(strstr(message, "refused"));
}

static void test_scan_reports_refusals(void **state)
{
    (void)state;
    struct plugin_host *ph = plugin_host_create();
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/plugins", fixture_build());
    int refusals = 0;
    assert_int_equal(plugin_host_scan(ph, dir, record_refusal, &refusals), 0);
    assert_int_equal(refusals, 3);
    assert_int_equal(plugin_host_scan(ph, "/nonexistent/folder", record_refusal, &refusals), 0);
    plugin_host_destroy(ph);
}

static void test_commands(void **state)
{
    (void)state;
    fixture_bdma_trace("t1", 1);
    char path[600];
    fixture_path(path, sizeof path, "t1");
    struct dbg *d = fixture_open(path);
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "plugins"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "layers"));
    assert_non_null(strstr(fixture_out.text, "columns: index,unit,op,group"));
    test_path(path, sizeof path, "broken_abi");
    char cmd[700];
    snprintf(cmd, sizeof cmd, "plugins load %s", path);
    assert_int_equal(fixture_exec(d, cmd), CMD_ERROR);
    assert_non_null(strstr(fixture_out.text, "decoder ABI version"));
    assert_int_equal(fixture_exec(d, "export csv x.csv --decoder broken"), CMD_ERROR);
    assert_non_null(strstr(fixture_out.text, "no decoder named \"broken\""));
    dbg_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_decoders),
        cmocka_unit_test(test_broken_plugins_refused),
        cmocka_unit_test(test_scan_reports_refusals),
        cmocka_unit_test(test_commands),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
