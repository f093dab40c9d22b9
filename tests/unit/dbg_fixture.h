/* Shared by the debugger-core tests (test_cmd*, test_breakpoints,
 * test_checkpoint, test_export*, test_plugin*): a debugger context whose
 * output is captured in memory, traces written into a temporary folder, and
 * the test plugins' paths.  Static functions only: each test is one binary. */
#ifndef DLADBG_TEST_DBG_FIXTURE_H
#define DLADBG_TEST_DBG_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "plugin/plugin_host.h"

struct captured_out {
    char text[1 << 16];
    unsigned errors, stops;
};

static inline void capture_line(void *ctx, enum dbg_out_kind kind, const char *text)
{
    struct captured_out *c = ctx;
    size_t n = strlen(c->text);
    if (kind == DBG_OUT_ERROR)
        c->errors++;
    if (kind == DBG_OUT_STOP)
        c->stops++;
    if (n + strlen(text) + 16 < sizeof c->text)
        snprintf(c->text + n, sizeof c->text - n, "%s%s\n", kind == DBG_OUT_ERROR ? "E: " : "",
                 text);
}

static struct captured_out fixture_out;
static const struct dbg_sink fixture_sink = {capture_line, &fixture_out};
static char fixture_dir[256];

static inline void fixture_clear(void)
{
    memset(&fixture_out, 0, sizeof fixture_out);
}

/* The build folder (BUILD in the environment, as tests/run.sh sets it). */
static inline const char *fixture_build(void)
{
    const char *b = getenv("BUILD");
    return b && b[0] ? b : "build";
}

/* A context with only the shipped decoders of this build loaded. */
static inline struct dbg *fixture_dbg(void)
{
    struct dbg_options opt = {.batch = true, .no_builtin_plugins = true};
    struct dbg *d = dbg_create(&opt, &fixture_sink);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/plugins", fixture_build());
    if (d)
        plugin_host_scan(d->plugins, dir, NULL, NULL);
    return d;
}

static inline struct dbg *fixture_open(const char *path)
{
    struct dbg *d = fixture_dbg();
    char err[1024];
    if (!d)
        return NULL;
    if (!dbg_open(d, path, err, sizeof err)) {
        fprintf(stderr, "open %s: %s\n", path, err);
        dbg_destroy(d);
        return NULL;
    }
    return d;
}

/* Execute a command with output captured (cleared first). */
static inline enum cmd_status fixture_exec(struct dbg *d, const char *line)
{
    fixture_clear();
    return dbg_exec(d, line, &fixture_sink);
}

/* Completion candidates of a line, as "[cand1][cand2]" in the order offered. */
struct fixture_cands {
    char all[4096];
    size_t n;
};

static inline void fixture_add_cand(void *ctx, const char *c)
{
    struct fixture_cands *k = ctx;
    size_t n = strlen(k->all);
    snprintf(k->all + n, sizeof k->all - n, "[%s]", c);
    k->n++;
}

static inline struct fixture_cands fixture_complete(struct dbg *d, const char *line, size_t *start)
{
    struct fixture_cands k = {0};
    dbg_complete(d, line, strlen(line), start, fixture_add_cand, &k);
    return k;
}

static inline int fixture_mkdir(void)
{
    snprintf(fixture_dir, sizeof fixture_dir, "/tmp/dladbg-test-XXXXXX");
    return mkdtemp(fixture_dir) ? 0 : -1;
}

static inline int fixture_rmdir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", fixture_dir);
    return system(cmd);
}

/* cmocka group setup and teardown of the suites whose fixture is the
 * temporary folder alone (the others make it in their own setup, then
 * write their traces into it). */
static inline int fixture_group_setup(void **state)
{
    (void)state;
    return fixture_mkdir();
}

static inline int fixture_group_teardown(void **state)
{
    (void)state;
    return fixture_rmdir();
}

static inline void fixture_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", fixture_dir, name);
}

/* len bytes as the fixture folder's file name; false when not all written. */
static inline bool fixture_write_bytes(const char *name, const void *bytes, size_t len)
{
    char path[512];
    fixture_path(path, sizeof path, name);
    FILE *fp = fopen(path, "wb");
    bool whole = fp && fwrite(bytes, 1, len, fp) == len;
    return fp && fclose(fp) == 0 && whole;
}

static inline void fixture_write(const char *name, const char *text)
{
    (void)fixture_write_bytes(name, text, strlen(text));
}

/* A BDMA trace of n operations (each 8 lines of 32 bytes, DRAM to DRAM,
 * alternating groups, each waited for), written to the fixture folder as
 * name/input.txn with its source data; the expected result of operation i is
 * the source copied to 0x80100000 + (i % 64) * 0x1000 (tests compute it
 * themselves). */
static inline void fixture_bdma_trace(const char *name, int n)
{
    char path[512], buf[256];
    fixture_path(path, sizeof path, name);
    mkdir(path, 0777);
    snprintf(buf, sizeof buf, "%s/source.dat", name);
    char data[2048] = "";
    for (int i = 0; i < 256; i++) {
        size_t len = strlen(data);
        snprintf(data + len, sizeof data - len, "0x%02x%s", (i * 13 + 5) & 0xff,
                 i % 32 == 31 ? "\n" : " ");
    }
    fixture_write(buf, data);
    snprintf(buf, sizeof buf, "%s/input.txn", name);
    fixture_path(path, sizeof path, buf);
    FILE *fp = fopen(path, "w");
    if (!fp)
        return;
    fprintf(fp, "load_mem 0x80000000 0x100 source.dat\n");
    for (int i = 0; i < n; i++)
        fprintf(fp,
                "write_reg 0xffff1000 0x80000000\n"
                "write_reg 0xffff1002 0x%08x\n"
                "write_reg 0xffff1004 0x0\n"
                "write_reg 0xffff1005 0x3\n"
                "write_reg 0xffff1006 0x7\n"
                "write_reg 0xffff1007 0x20\n"
                "write_reg 0xffff1008 0x20\n"
                "write_reg 0xffff1009 0x0\n"
                "write_reg 0xffff100a 0x100\n"
                "write_reg 0xffff100b 0x100\n"
                "write_reg 0xffff100c 0x1\n"
                "write_reg 0xffff%s 0x1\n"
                "wait\n"
                "write_reg 0xffff0003 0xffffffff\n",
                0x80100000u + (unsigned)(i % 64) * 0x1000u, i % 2 ? "100e" : "100d");
    fclose(fp);
}

/* Group setup of the suites that work on one BDMA trace: the temporary
 * folder with name/ in it (fixture_bdma_trace); -1 if the folder cannot be
 * made. */
static inline int fixture_bdma_setup(const char *name, int n)
{
    if (fixture_mkdir())
        return -1;
    fixture_bdma_trace(name, n);
    return 0;
}

/* A context on the fixture folder's trace name; the test fails if it does
 * not open. */
static inline struct dbg *fixture_open_trace(const char *name)
{
    char path[512];
    fixture_path(path, sizeof path, name);
    struct dbg *d = fixture_open(path);
    assert_non_null(d);
    return d;
}

#endif
