/* file_read_all: whole files of every size up to the limit, the limit
 * itself refused, and a pipe (no size to go by) read whole as before. */
#include <sys/wait.h>

#include "dbg_fixture.h"
#include "util/textfile.h"

static int setup(void **state)
{
    return fixture_group_setup(state);
}

static int teardown(void **state)
{
    return fixture_group_teardown(state);
}

/* size bytes of a pattern written to name in the fixture folder; its path in path */
static void write_pattern(const char *name, size_t size, char *path, size_t len)
{
    fixture_path(path, len, name);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    for (size_t i = 0; i < size; i++)
        fputc((int)(i * 7 % 251), fp);
    assert_int_equal(fclose(fp), 0);
}

static void assert_pattern(const uint8_t *buf, size_t len, size_t want)
{
    assert_int_equal(len, want);
    for (size_t i = 0; i < len; i++)
        if (buf[i] != (uint8_t)(i * 7 % 251))
            fail_msg("byte %zu is %u", i, buf[i]);
}

static void test_regular_files(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 1, 65535, 65536, 65537, 300001};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        char path[512], err[256];
        write_pattern("f.bin", sizes[k], path, sizeof path);
        uint8_t *buf = NULL;
        size_t len = 0;
        assert_true(file_read_all(path, 1u << 20, &buf, &len, err, sizeof err));
        assert_pattern(buf, len, sizes[k]);
        free(buf);
    }
}

/* A file of max bytes or more is refused; one byte less is read. */
static void test_limit(void **state)
{
    (void)state;
    char path[512], err[256];
    uint8_t *buf = NULL;
    size_t len = 0;
    write_pattern("limit.bin", 4096, path, sizeof path);
    assert_false(file_read_all(path, 4096, &buf, &len, err, sizeof err));
    assert_non_null(strstr(err, "larger than 4096 bytes"));
    assert_false(file_read_all(path, 100, &buf, &len, err, sizeof err));
    assert_true(file_read_all(path, 4097, &buf, &len, err, sizeof err));
    assert_pattern(buf, len, 4096);
    free(buf);
}

/* A FIFO has no size: read in growing pieces, whole. */
static void test_fifo(void **state)
{
    (void)state;
    char path[512], err[256], src[512];
    write_pattern("src.bin", 200003, src, sizeof src);
    fixture_path(path, sizeof path, "pipe");
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* the writer: copy src into the FIFO */
        FILE *in = fopen(src, "rb"), *out = fopen(path, "wb");
        int c;
        while (in && out && (c = fgetc(in)) != EOF)
            fputc(c, out);
        _exit(in && out && fclose(out) == 0 ? 0 : 1);
    }
    uint8_t *buf = NULL;
    size_t len = 0;
    bool ok = file_read_all(path, 1u << 20, &buf, &len, err, sizeof err);
    int status;
    waitpid(pid, &status, 0);
    assert_true(ok);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_pattern(buf, len, 200003);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regular_files),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_fifo),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
