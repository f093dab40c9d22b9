/* file_read_all: whole files of every size up to the limit, the limit
 * itself refused, and a pipe (no size to go by) read whole as before;
 * textfile_each_line: the lines textfile_read_line reads. */
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

static int count_line(void *ctx, char *line, unsigned lineno, char *err, size_t errlen)
{
    (void)line, (void)lineno, (void)err, (void)errlen;
    ++*(unsigned *)ctx;
    return 0;
}

/* A folder given where a file is wanted (--image DIR, source DIR, a .dat
 * that is a folder) is named as a folder, not "read error" of line 1. */
static void test_folder_refused(void **state)
{
    (void)state;
    char dir[512], err[256];
    fixture_path(dir, sizeof dir, "");
    uint8_t *buf = NULL;
    size_t len = 0;
    assert_false(file_read_all(dir, 4096, &buf, &len, err, sizeof err));
    assert_non_null(strstr(err, "is a folder; expected a file"));
    unsigned lines = 0;
    err[0] = 0;
    assert_int_equal(textfile_each_line(dir, count_line, &lines, err, sizeof err), -1);
    assert_int_equal(lines, 0);
    assert_non_null(strstr(err, "is a folder; expected a file"));
    assert_null(file_open_input(dir, "r", err, sizeof err));
    assert_non_null(strstr(err, "is a folder; expected a file"));
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

/* What textfile_read_line makes of a file, line by line, for comparing:
 * the lines (NUL-separated in out) until the end or the first status other
 * than a line, returned with its line number and length. */
struct lines {
    char *text;
    size_t len, count;
    enum textfile_line_status last;
    size_t last_len;
};

static void add_line(struct lines *l, const char *line, size_t len)
{
    l->text = realloc(l->text, l->len + len + 1);
    assert_non_null(l->text);
    memcpy(l->text + l->len, line, len);
    l->text[l->len + len] = 0;
    l->len += len + 1;
    l->count++;
}

static struct lines read_by_getc(const char *path)
{
    struct lines l = {0};
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char *line = NULL;
    size_t cap = 0, len;
    while ((l.last = textfile_read_line(fp, &line, &cap, &len)) == TEXTFILE_LINE)
        add_line(&l, line, len);
    l.last_len = len;
    free(line);
    fclose(fp);
    return l;
}

static int collect(void *ctx, char *line, unsigned lineno, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    struct lines *l = ctx;
    assert_int_equal(lineno, l->count + 1);
    add_line(l, line, strlen(line));
    line[0] = '#'; /* a reader may write its line: the next must not see it */
    return 0;
}

/* textfile_each_line reads in blocks: the same lines as textfile_read_line,
 * across block boundaries, up to the longest line, the last without its
 * newline; the same errors at the same line and column. */
static void test_each_line_as_getc(void **state)
{
    (void)state;
    char path[512], err[256];
    fixture_path(path, sizeof path, "lines.txt");
    struct {
        size_t len[6];
        int nul_at; /* in the third line, or -1 */
    } cases[] = {
        {{10, 70000, 1, 130000, 5, 3}, -1},                   /* lines across 64 KiB blocks */
        {{TEXTFILE_MAX_LINE - 2, 4, 1, 1, 1, 1}, -1},        /* the longest line there is */
        {{3, 4, TEXTFILE_MAX_LINE - 1, 1, 1, 1}, -1},        /* one byte longer */
        {{3, 4, TEXTFILE_MAX_LINE + 9, 1, 1, 1}, -1},        /* far longer */
        {{3, 100000, 70000, 1, 1, 1}, 66000},                /* a NUL in a later block */
        {{3, 4, TEXTFILE_MAX_LINE - 1, 1, 1, 1}, TEXTFILE_MAX_LINE - 1}, /* NUL where too long */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        FILE *fp = fopen(path, "wb");
        assert_non_null(fp);
        for (int i = 0; i < 6; i++) {
            for (size_t j = 0; j < cases[k].len[i]; j++)
                fputc(i == 2 && (int)j == cases[k].nul_at ? 0 : 'a' + (int)((i + j) % 26), fp);
            if (i < 5) /* the last line ends the file without a newline */
                fputc('\n', fp);
        }
        assert_int_equal(fclose(fp), 0);
        struct lines want = read_by_getc(path), got = {0};
        err[0] = 0;
        int rc = textfile_each_line(path, collect, &got, err, sizeof err);
        assert_int_equal(got.count, want.count);
        assert_int_equal(got.len, want.len);
        if (got.len)
            assert_memory_equal(got.text, want.text, got.len);
        if (want.last == TEXTFILE_END) {
            assert_int_equal(rc, 0);
        } else {
            char msg[256];
            textfile_line_error(want.last, path, (unsigned)want.count + 1, want.last_len, msg,
                                sizeof msg);
            assert_int_equal(rc, -1);
            assert_string_equal(err, msg);
        }
        free(want.text);
        free(got.text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regular_files),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_fifo),
        cmocka_unit_test(test_folder_refused),
        cmocka_unit_test(test_each_line_as_getc),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
