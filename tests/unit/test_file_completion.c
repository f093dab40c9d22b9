/* File-name completion of the commands that take a FILE or a DIR (file,
 * source, export ..., plugins load): entries of the folder the word names,
 * folders with a '/', folders alone for DIR, dot files only when asked for,
 * and a folder candidate continues without a blank. */
#include "dbg_fixture.h"

struct cands {
    char all[4096];
    size_t n;
};

static void add_cand(void *ctx, const char *c)
{
    struct cands *k = ctx;
    size_t n = strlen(k->all);
    snprintf(k->all + n, sizeof k->all - n, "[%s]", c);
    k->n++;
}

static struct cands complete(struct dbg *d, const char *line)
{
    struct cands k = {0};
    size_t start;
    dbg_complete(d, line, strlen(line), &start, add_cand, &k);
    return k;
}

static int setup(void **state)
{
    if (fixture_group_setup(state))
        return -1;
    char path[512];
    fixture_path(path, sizeof path, "nets");
    mkdir(path, 0700);
    fixture_write("nets/lenet.nvdla", "x");
    fixture_write("nets/.hidden", "x");
    fixture_write("script.dladbg", "echo hi\n");
    fixture_write("scratch.txt", "x");
    return 0;
}

static void completes_files_and_folders(void **state)
{
    (void)state;
    struct dbg *d = fixture_dbg();
    char line[600];
    snprintf(line, sizeof line, "source %s/scr", fixture_dir);
    struct cands k = complete(d, line);
    assert_int_equal(k.n, 2);
    char want[600];
    snprintf(want, sizeof want, "[%s/script.dladbg]", fixture_dir);
    assert_non_null(strstr(k.all, want));
    snprintf(want, sizeof want, "[%s/scratch.txt]", fixture_dir);
    assert_non_null(strstr(k.all, want));

    snprintf(line, sizeof line, "file %s/ne", fixture_dir);
    k = complete(d, line);
    snprintf(want, sizeof want, "[%s/nets/]", fixture_dir);
    assert_string_equal(k.all, want);
    snprintf(want, sizeof want, "%s/nets/", fixture_dir);
    assert_true(dbg_completion_continues(want));

    snprintf(line, sizeof line, "plugins load %s/nets/", fixture_dir);
    k = complete(d, line);
    snprintf(want, sizeof want, "[%s/nets/lenet.nvdla]", fixture_dir);
    assert_string_equal(k.all, want); /* no dot file */
    snprintf(line, sizeof line, "file %s/nets/.", fixture_dir);
    k = complete(d, line);
    snprintf(want, sizeof want, "[%s/nets/.hidden]", fixture_dir);
    assert_string_equal(k.all, want);

    /* export's FILE is its first argument; a DIR takes folders only */
    snprintf(line, sizeof line, "export chrome %s/scri", fixture_dir);
    k = complete(d, line);
    snprintf(want, sizeof want, "[%s/script.dladbg]", fixture_dir);
    assert_string_equal(k.all, want);
    snprintf(line, sizeof line, "export txn %s/", fixture_dir);
    k = complete(d, line);
    snprintf(want, sizeof want, "[%s/nets/]", fixture_dir);
    assert_string_equal(k.all, want);
    /* not a file argument: no file names */
    snprintf(line, sizeof line, "break layer %s/", fixture_dir);
    k = complete(d, line);
    assert_int_equal(k.n, 0);
    dbg_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(completes_files_and_folders),
    };
    return cmocka_run_group_tests(tests, setup, fixture_group_teardown);
}
