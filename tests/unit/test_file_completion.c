/* File-name completion of the commands that take a FILE or a DIR (file,
 * source, export ..., plugins load): entries of the folder the word names,
 * folders with a '/', folders alone for DIR, dot files only when asked for,
 * and a folder candidate continues without a blank. */
#include "dbg_fixture.h"

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

/* The candidates of "CMD FIXTURE/partial", with the fixture folder written as "@". */
static const char *complete_in_fixture(struct dbg *d, const char *cmd, const char *partial)
{
    static char shown[4096];
    char line[600];
    snprintf(line, sizeof line, "%s %s/%s", cmd, fixture_dir, partial);
    size_t start;
    struct fixture_cands k = fixture_complete(d, line, &start);
    size_t used = 0;
    shown[0] = 0;
    for (const char *p = k.all; *p && used < sizeof shown;) { /* "[/tmp/x/a]" -> "[@/a]" */
        const char *hit = strstr(p, fixture_dir);
        int n = hit ? (int)(hit - p) : (int)strlen(p);
        used += (size_t)snprintf(shown + used, sizeof shown - used, "%.*s%s", n, p, hit ? "@" : "");
        if (!hit)
            break;
        p = hit + strlen(fixture_dir);
    }
    return shown;
}

static void completes_files_and_folders(void **state)
{
    (void)state;
    struct dbg *d = fixture_dbg();
    /* readdir's order: either way round */
    const char *two = complete_in_fixture(d, "source", "scr");
    assert_true(!strcmp(two, "[@/script.dladbg][@/scratch.txt]") ||
                !strcmp(two, "[@/scratch.txt][@/script.dladbg]"));
    assert_string_equal(complete_in_fixture(d, "file", "ne"), "[@/nets/]");
    assert_true(dbg_completion_continues("nets/"));
    assert_false(dbg_completion_continues("nets/lenet.nvdla"));
    /* no dot file unless asked for */
    assert_string_equal(complete_in_fixture(d, "plugins load", "nets/"), "[@/nets/lenet.nvdla]");
    assert_string_equal(complete_in_fixture(d, "file", "nets/."), "[@/nets/.hidden]");
    /* export's FILE is its first argument; a DIR takes folders only */
    assert_string_equal(complete_in_fixture(d, "export chrome", "scri"), "[@/script.dladbg]");
    assert_string_equal(complete_in_fixture(d, "export txn", ""), "[@/nets/]");
    /* not a file argument: no file names */
    assert_string_equal(complete_in_fixture(d, "break layer", ""), "");
    dbg_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(completes_files_and_folders),
    };
    return cmocka_run_group_tests(tests, setup, fixture_group_teardown);
}
