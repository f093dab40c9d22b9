/* Trace replay: the two trace languages, their data files and CRC, malformed
 * input reported with file and line, and whole runs through the session. */
#include <errno.h>
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

#include "trace/txn_prog.h"

#include "util/crc32.h"
#include "trace/dat.h"
#include "core/mem.h"
#include "util/path.h"
#include "debug/session.h"
#include "trace/trace.h"

static char dir[256];

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/dladbg-test-trace-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

struct captured {
    char text[8192];
};

static void capture(void *ctx, enum report_level level, const char *text)
{
    struct captured *c = ctx;
    (void)level;
    size_t n = strlen(c->text);
    snprintf(c->text + n, sizeof c->text - n, "%s\n", text);
}

/* Open path; NULL (err filled) when the open fails. */
static struct session *open_trace(const char *path, const char *config, struct report *rep,
                                  char *err, size_t errlen)
{
    struct session_opts opt = {.cfg = config ? dla_config_find(config) : NULL, .outdir = dir};
    return session_open(path, &opt, rep, err, errlen);
}

static void run_to_end(struct session *s)
{
    while (session_step(s, SESSION_RUN, 0) != SESSION_DONE)
        ;
}

/* ---------------------------------------------------------------- txn */

static void expect_txn_error(const char *text, const char *want)
{
    write_file("input.txn", text);
    struct captured cap = {{0}};
    struct report rep = {.print = capture, .ctx = &cap};
    char err[512] = "", path[512];
    snprintf(path, sizeof path, "%s/input.txn", dir);
    struct session *s = open_trace(path, NULL, &rep, err, sizeof err);
    assert_null(s);
    if (!strstr(err, want))
        fail_msg("error \"%s\" does not contain \"%s\"", err, want);
}

static void test_txn_malformed(void **state)
{
    (void)state;
    expect_txn_error("# comment\n\nfrobnicate 1 2\n",
                     "input.txn:3: unknown command \"frobnicate\"");
    expect_txn_error("write_reg 0xffff1000\n", "input.txn:1: expected \"write_reg ADDR DATA\"");
    expect_txn_error("read_reg 0xffff1000 0xzz 0x0\n", "input.txn:1: expected \"read_reg ADDR");
    expect_txn_error("wait\nwait now\n", "input.txn:2: expected \"wait\"");
    expect_txn_error("load_mem 0x80000000 0 f.dat\n", "input.txn:1: expected \"load_mem");
    expect_txn_error("write_reg 0xffff1000 0x100000000\n", "input.txn:1:");
    /* a command is known by its whole name, not its first letters */
    static const char *const near[] = {"w", "wa", "waits", "writ", "write_regs", "r",
                                       "read", "untill", "load", "dump_me", "xwait"};
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        char text[64], want[64];
        snprintf(text, sizeof text, "%s 0xffff1000 0x0 0x0\n", near[i]);
        snprintf(want, sizeof want, "input.txn:1: unknown command \"%s\"", near[i]);
        expect_txn_error(text, want);
    }
}

/* A driver's action cleared for the next command: every field as a zeroed
 * action has it, the texts empty, whatever the last action left. */
static void test_action_clear(void **state)
{
    (void)state;
    struct drv_action a;
    memset(&a, 0xa5, sizeof a);
    drv_action_clear(&a);
    assert_int_equal(a.kind, 0);
    assert_int_equal(a.addr, 0);
    assert_int_equal(a.value, 0);
    assert_null(a.wait.ready);
    assert_null(a.wait.ctx);
    assert_int_equal(a.wait.max_events, 0);
    assert_string_equal(a.wait.what, "");
    assert_int_equal(a.task.index, 0);
    assert_false(a.task.begin);
    assert_false(a.task.emu);
    assert_string_equal(a.task.name, "");
    assert_string_equal(a.where, "");
    assert_false(a.op.known);
    assert_int_equal(a.op.task, 0);
    assert_int_equal(a.op.op, 0);
    assert_int_equal(a.op.type, 0);
}

/* Writes and waits in every spelling the parser accepts, in place or word by
 * word: each comes out as the command it says. */
static void test_txn_spellings(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        enum txn_op op;
        uint32_t addr, value;
    } lines[] = {
        {"write_reg 0xffff1000 0x80000000\n", TXN_WRITE, 0x4000, 0x80000000u},
        {"write_reg\t0xffff1001 0x1\n", TXN_WRITE, 0x4004, 1},
        {"write_reg 0xffff1002\t\t0x2  \r\n", TXN_WRITE, 0x4008, 2},
        {"write_reg 0XFFFF1003 0XaB\n", TXN_WRITE, 0x400c, 0xab},
        {"write_reg 0xffff1004 0x4 # a comment\n", TXN_WRITE, 0x4010, 4},
        {"write_reg 0xffff1005 0x5#comment\n", TXN_WRITE, 0x4014, 5},
        {"write_reg 0xffff1006 0x6 misc bits\n", TXN_WRITE, 0x4018, 6},
        {"write_reg 0xffff1007 7\n", TXN_WRITE, 0x401c, 7},
        {"write_reg 0xffff1008 0x00000000000000008\n", TXN_WRITE, 0x4020, 8},
        {"  write_reg 0xffff1009 0xffffffff\n", TXN_WRITE, 0x4024, 0xffffffffu},
        {"write_reg 0xffff100a 0x0000000a", TXN_WRITE, 0x4028, 0xa},
        {"wait\n", TXN_WAIT, 0, 0},
        {"wait  \r\n", TXN_WAIT, 0, 0},
        {"wait # done\n", TXN_WAIT, 0, 0},
        {"\twait", TXN_WAIT, 0, 0},
    };
    char text[2048] = "";
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        strcat(text, lines[i].line);
        if (!strchr(lines[i].line, '\n'))
            strcat(text, "\n");
    }
    write_file("spell.txn", text);
    char path[512], err[512] = "";
    snprintf(path, sizeof path, "%s/spell.txn", dir);
    struct txn_prog *p = txn_prog_parse(path, err, sizeof err);
    if (!p)
        fail_msg("%s", err);
    assert_int_equal(txn_prog_count(p), sizeof lines / sizeof lines[0]);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct txn_cmd c;
        txn_prog_get(p, i, &c);
        if (c.op != lines[i].op || c.line != i + 1 || c.addr != lines[i].addr ||
            c.value != lines[i].value)
            fail_msg("\"%s\": op %d line %u addr 0x%x value 0x%x", lines[i].line, c.op, c.line,
                     c.addr, c.value);
    }
    txn_prog_free(p);
    /* and what is not a write stays an error, in the general reading's words */
    expect_txn_error("write_reg 0xfffe1000 0x1\n", "expected a CSB word address 0xffffNNNN");
    expect_txn_error("write_reg 0xffff1000 0x1g\n", "input.txn:1: expected \"write_reg ADDR DATA\"");
    expect_txn_error("write_reg 0xffff1000 0x\n", "input.txn:1: expected \"write_reg ADDR DATA\"");
    expect_txn_error("write_reg0xffff1000 0x1\n", "unknown command \"write_reg0xffff1000\"");
    expect_txn_error("waitx\n", "unknown command \"waitx\"");
    expect_txn_error("wait 0x1\n", "input.txn:1: expected \"wait\"");
}

static void test_txn_bdma_run(void **state)
{
    (void)state;
    /* 64 bytes copied by BDMA, then checked by read_reg and dump_mem against a golden */
    char data[1024] = "Data_size = 0x40\n";
    for (int line = 0; line < 2; line++) {
        for (int i = 0; i < 32; i++) {
            char b[8];
            snprintf(b, sizeof b, "0x%02x%s", line * 32 + i, i == 31 ? "\n" : " ");
            strcat(data, b);
        }
    }
    write_file("in.dat", data);
    write_file("golden.dat", data);
    write_file("input.txn", "load_mem 0x80000000 0x40 in.dat\n"
                            "write_reg 0xffff1000 0x80000000 #NVDLA_BDMA.CFG_SRC_ADDR_LOW_0\n"
                            "write_reg 0xffff1002 0x80001000 #NVDLA_BDMA.CFG_DST_ADDR_LOW_0\n"
                            "write_reg 0xffff1004 0x1\n"      /* line = 64 bytes */
                            "write_reg 0xffff1005 0x3\n"      /* DRAM -> DRAM */
                            "write_reg 0xffff100c 0x1\n"      /* CFG_OP */
                            "write_reg 0xffff100d 0x1\n"      /* CFG_LAUNCH0 */
                            "read_reg 0xffff0003 0x40 0x40\n" /* BDMA done, after retries */
                            "wait\n"
                            "dump_mem 0x80001000 0x40 golden.dat\n"
                            "dump_mem 0x80001000 0x40 out.dat\n"
                            "read_reg 0xffff0003 0x40 0x0\n" /* fails: nobody cleared it */
                            "write_reg 0xffff0003 0xffffffff\n"
                            "wait\n"); /* hangs: nothing else will interrupt */
    struct captured cap = {{0}};
    struct report rep = {.print = capture, .ctx = &cap};
    char err[512];
    struct session *s = open_trace(dir, NULL, &rep, err, sizeof err);
    assert_non_null(s);
    enum session_stop r;
    bool hung = false;
    while ((r = session_step(s, SESSION_RUN, 0)) != SESSION_DONE)
        hung |= r == SESSION_HANG;
    assert_true(hung);
    assert_int_equal(rep.checks_passed, 1);
    assert_int_equal(rep.checks_failed, 2); /* the read_reg and the last wait */
    assert_int_equal(rep.dumps_matched, 1);
    assert_int_equal(rep.dumps_written, 1);
    assert_non_null(strstr(cap.text, "input.txn:12: read_reg GLB.S_INTR_STATUS"));
    assert_non_null(strstr(cap.text, "input.txn:14: wait"));
    char summary[256];
    session_summary(s, summary, sizeof summary);
    assert_non_null(strstr(summary, "1 check passed, 2 failed"));
    assert_int_equal(session_exit_status(s), 1);
    session_close(s);
    /* the written dump reads back as the same bytes */
    char out[512];
    snprintf(out, sizeof out, "%s/out.dat", dir);
    uint8_t *bytes;
    size_t n;
    assert_int_equal(dat_read_hexlines(out, 0x40, &bytes, &n, err, sizeof err), 0);
    for (int i = 0; i < 0x40; i++)
        assert_int_equal(bytes[i], i);
    free(bytes);
}

/* ---------------------------------------------------------------- data files */

static void test_dat_hexlines_errors(void **state)
{
    (void)state;
    char path[512], err[512];
    uint8_t *buf;
    size_t n;
    snprintf(path, sizeof path, "%s/bad.dat", dir);
    write_file("bad.dat", "W = 8\n0x01 0x02 0x1g3\n");
    assert_int_equal(dat_read_hexlines(path, 0, &buf, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "bad.dat:2:"));
    write_file("bad.dat", "0x01 0x02\n");
    assert_int_equal(dat_read_hexlines(path, 4, &buf, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "holds 2 data bytes, 4 expected"));
    write_file("bad.dat", " 0x01 0x02 0x03\ndump done\n");
    assert_int_equal(dat_read_hexlines(path, 2, &buf, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(buf[1], 2);
    free(buf);
}

struct rec_sum {
    uint64_t sum;
    size_t records;
};

static int add_record(void *ctx, uint64_t off, const uint8_t *b, size_t n)
{
    struct rec_sum *s = ctx;
    s->records++;
    for (size_t i = 0; i < n; i++)
        s->sum += (off + i) * b[i];
    return 0;
}

static void test_dat_records(void **state)
{
    (void)state;
    char path[512], err[512];
    uint64_t extent;
    snprintf(path, sizeof path, "%s/rec.dat", dir);
    write_file("rec.dat", "{\n{offset:0x0, size:4, payload:0x10 0x20 0x30 0x40} ,\n"
                          "{offset:0x100, size:2, payload:0xAA 0xbb},\n}\n");
    struct rec_sum s = {0};
    assert_int_equal(dat_read_records(path, add_record, &s, &extent, err, sizeof err), 0);
    assert_int_equal(s.records, 2);
    assert_int_equal(extent, 0x102);
    assert_int_equal(s.sum, 1 * 0x20 + 2 * 0x30 + 3 * 0x40 + 0x100 * 0xaa + 0x101 * 0xbb);
    /* the warehouse variant: quoted key, value instead of payload, short payload padded */
    write_file("rec.dat", "{'offset':0x8, size:4, value:0x01},\n");
    s = (struct rec_sum){0};
    assert_int_equal(dat_read_records(path, add_record, &s, &extent, err, sizeof err), 0);
    assert_int_equal(extent, 12);
    assert_int_equal(s.sum, 8);
    write_file("rec.dat", "{offset:0x0, size:4, payload:0x10 0x20}\n{offset:0x4, payload:0x1}\n");
    assert_int_equal(dat_read_records(path, add_record, &s, &extent, err, sizeof err), -1);
    assert_non_null(strstr(err, "rec.dat:2: expected \"size:\""));
    write_file("rec.dat", "{offset:0x0, size:1, payload:0x10 0x20}\n");
    assert_int_equal(dat_read_records(path, add_record, &s, &extent, err, sizeof err), -1);
    assert_non_null(strstr(err, "rec.dat:1: expected no more payload bytes"));
}

static void test_crc32(void **state)
{
    (void)state;
    assert_int_equal(crc32_of("123456789", 9), 0xcbf43926u);
    uint8_t zeros[0x800] = {0};
    assert_int_equal(crc32_of(zeros, sizeof zeros), 0xf1e8ba9eu); /* v2 doc: all-zero golden */
    uint8_t ramp[0x800];
    for (int i = 0; i < 0x800; i++)
        ramp[i] = (uint8_t)i;
    assert_int_equal(crc32_of(ramp, sizeof ramp), 0x9f5edd58u); /* v2 doc: ramp golden */
}

/* A trace is named by its folder for input.txn (trailing slashes ignored, as
 * the status line names it) and by the file's stem otherwise. */
static void test_trace_names(void **state)
{
    (void)state;
    static const struct {
        const char *path, *want;
    } last[] = {
        {"traces/sanity1", "sanity1"},
        {"traces/sanity1/", "sanity1"},
        {"traces/sanity1//", "sanity1"},
        {"sanity1", "sanity1"},
        {"/", "/"},
        {"", ""},
    };
    char name[64];
    for (size_t i = 0; i < sizeof last / sizeof last[0]; i++) {
        path_last_component(last[i].path, name, sizeof name);
        if (strcmp(name, last[i].want) != 0)
            fail_msg("path_last_component(\"%s\") = \"%s\", want \"%s\"", last[i].path, name,
                     last[i].want);
    }
    path_last_component("a/averylongname", name, 5);
    assert_string_equal(name, "aver");

    trace_name("traces/sanity1/", "traces/sanity1/input.txn", name, sizeof name);
    assert_string_equal(name, "sanity1");
    trace_name("/", "/input.txn", name, sizeof name);
    assert_string_equal(name, "/");
    trace_name("v2/nv_small", "v2/nv_small/dc_1x1x8.cfg", name, sizeof name);
    assert_string_equal(name, "dc_1x1x8");
    trace_name(".", "noext", name, sizeof name);
    assert_string_equal(name, "noext");
}

/* The traces' numbers: "0x" hex read without strtoull, everything else as
 * strtoull reads it (decimal, octal, longer hex), and "input.txn:LINE"
 * made without snprintf, as "%.80s:%u". */
static void test_numbers_and_places(void **state)
{
    (void)state;
    static const struct {
        const char *tok;
        bool ok;
        uint64_t v;
    } u64[] = {
        {"0x1F", true, 0x1f},
        {"0XfF", true, 0xff},
        {"0xffffffffffffffff", true, UINT64_MAX},
        {"0x00000000000000001", true, 1}, /* 17 digits: strtoull's */
        {"0x10000000000000000", false, 0},
        {"0x", false, 0},
        {"0x1g", false, 0},
        {"0xABCDEF09", true, 0xabcdef09},
        {"0x/", false, 0}, /* the bytes either side of the digits' ranges */
        {"0x:", false, 0},
        {"0x@", false, 0},
        {"0xG", false, 0},
        {"0x`", false, 0},
        {"0x\xff", false, 0},
        {"0x 1", false, 0},
        {"12", true, 12},
        {"010", true, 8},
        {"", false, 0},
    };
    for (size_t i = 0; i < sizeof u64 / sizeof u64[0]; i++) {
        uint64_t v = 0;
        bool ok = trace_parse_u64(u64[i].tok, &v);
        if (ok != u64[i].ok || (ok && v != u64[i].v))
            fail_msg("trace_parse_u64(\"%s\") = %d, 0x%llx", u64[i].tok, ok,
                     (unsigned long long)v);
    }
    uint32_t w;
    assert_true(trace_parse_u32("0xffffffff", &w) && w == 0xffffffffu);
    assert_false(trace_parse_u32("0x100000000", &w));

    char buf[128], want[128];
    trace_where("traces/sanity1/input.txn", 34, buf, sizeof buf);
    assert_string_equal(buf, "input.txn:34");
    trace_where("input.txn", 0, buf, sizeof buf);
    assert_string_equal(buf, "input.txn:0");
    char longname[120];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    trace_where(longname, 4294967295u, buf, sizeof buf);
    snprintf(want, sizeof want, "%.80s:%u", longname, 4294967295u);
    assert_string_equal(buf, want);
    trace_where("dir/input.txn", 123456, buf, 12); /* cut as snprintf cuts */
    assert_string_equal(buf, "input.txn:1");
    /* line after line, the last place moved on in place: carries, a digit
     * more, repeats and jumps back and forth */
    static const unsigned seq[] = {0, 1, 2, 9, 10, 11, 99, 100, 100, 101, 999998, 999999,
                                   1000000, 1000001, 7, 8, 4294967294u, 4294967295u, 0, 1};
    struct trace_where_base next;
    trace_where_base("dir/input.txn", &next);
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++)
        for (unsigned line = seq[i]; line - seq[i] < 3; line++) {
            size_t len = 1 + (line + i) % 24;
            snprintf(want, len, "input.txn:%u", line);
            trace_where_next(&next, line, buf, len);
            assert_string_equal(buf, want);
            if (line == 4294967295u)
                break;
        }
    /* a replayer's base, made once, serves every line, cut as snprintf cuts */
    struct trace_where_base wb;
    trace_where_base("dir/input.txn", &wb);
    for (unsigned line = 0; line < 2000000; line += 99991)
        for (size_t len = 1; len < 24; len++) {
            snprintf(want, len, "input.txn:%u", line);
            trace_where_at(&wb, line, buf, len);
            assert_string_equal(buf, want);
        }
}

/* Output and history folders are made with their parents; existing ones are
 * fine, a file in the way is an error the caller can report. */
static void test_make_dirs(void **state)
{
    (void)state;
    char deep[512], file[512], inner[600], hist[700], want[700];
    snprintf(deep, sizeof deep, "%s/out/a/b", dir);
    assert_int_equal(path_make_dirs(deep, 0777), 0);
    struct stat st;
    assert_int_equal(stat(deep, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(path_make_dirs(deep, 0777), 0);

    write_file("plain", "x");
    snprintf(file, sizeof file, "%s/plain", dir);
    snprintf(inner, sizeof inner, "%s/sub", file);
    assert_int_equal(path_make_dirs(inner, 0777), -1);
    assert_int_equal(errno, ENOTDIR);

    char state_home[512];
    snprintf(state_home, sizeof state_home, "%s/state", dir);
    setenv("XDG_STATE_HOME", state_home, 1);
    assert_true(path_history_file(hist, sizeof hist));
    snprintf(want, sizeof want, "%s/dladbg/history", state_home);
    assert_string_equal(hist, want);
    snprintf(want, sizeof want, "%s/dladbg", state_home);
    assert_int_equal(stat(want, &st), 0);
    const char *home = getenv("HOME");
    char saved_home[512];
    snprintf(saved_home, sizeof saved_home, "%s", home ? home : "");
    setenv("XDG_STATE_HOME", "relative/ignored", 1);
    setenv("HOME", "", 1);
    bool found = path_history_file(hist, sizeof hist);
    setenv("HOME", saved_home, 1);
    unsetenv("XDG_STATE_HOME");
    assert_false(found);
    assert_string_equal(hist, "");
}

/* ---------------------------------------------------------------- cfg */

static void expect_cfg_error(const char *text, const char *want)
{
    write_file("t.cfg", text);
    struct report rep = {0};
    char err[512] = "", path[512];
    snprintf(path, sizeof path, "%s/t.cfg", dir);
    struct session *s = open_trace(path, "nv_small", &rep, err, sizeof err);
    assert_null(s);
    if (!strstr(err, want))
        fail_msg("error \"%s\" does not contain \"%s\"", err, want);
}

static void test_cfg_malformed(void **state)
{
    (void)state;
    const char *tail = "intr_notify(SDP_0, s0);\ncheck_nothing(s0);\n";
    char buf[512];
    snprintf(buf, sizeof buf, "reg_write(NVDLA_SDP.D_NO_SUCH_REG_0, 1);\n%s", tail);
    expect_cfg_error(buf, "t.cfg:1: unknown register NVDLA_SDP.D_NO_SUCH_REG_0 in the nv_small");
    snprintf(buf, sizeof buf, "// c\nreg_poke(NVDLA_SDP.S_POINTER_0, 0);\n%s", tail);
    expect_cfg_error(buf, "t.cfg:2: unrecognized statement \"reg_poke\"");
    snprintf(buf, sizeof buf, "reg_write(NVDLA_SDP.S_POINTER_0, 0)\n%s", tail);
    expect_cfg_error(buf, "t.cfg:1: expected ';' after ')'");
    snprintf(buf, sizeof buf, "mem_init(third_mem, 0x0, 0x10, ALL_ZERO);\n%s", tail);
    expect_cfg_error(buf, "t.cfg:1: expected a memory");
    snprintf(buf, sizeof buf, "intr_notify(FOO_0, s0);\ncheck_nothing(s0);\n");
    expect_cfg_error(buf, "t.cfg:1: unknown interrupt block");
    expect_cfg_error("check_nothing(s1);\n", "t.cfg:1: no intr_notify fires sync id \"s1\"");
    expect_cfg_error("reg_write(NVDLA_SDP.S_POINTER_0, 0);\n", "needs at least one check");
    snprintf(buf, sizeof buf, "mem_load(pri_mem, 0x80000000, \"absent.dat\");\n%s", tail);
    expect_cfg_error(buf, "t.cfg:1: missing input file absent.dat");
}

static void test_cfg_run(void **state)
{
    (void)state;
    /* memory commands, an interrupt raised from software, its checks */
    write_file("in.dat", "{offset:0x0, size:4, payload:0x31 0x32 0x33 0x34},\n"
                         "{offset:0x4, size:4, payload:0x35 0x36 0x37 0x38},\n"
                         "{offset:0x8, size:1, payload:0x39},\n");
    write_file("t.cfg", "mem_init(pri_mem, 0x80000000, 0x100, ONES);\n"
                        "mem_init(pri_mem, 0x80000000, 0x10, ALL_ZERO);\n"
                        "mem_load(pri_mem, 0x80000000, \"in.dat\");\n"
                        "reg_write(NVDLA_GLB.S_INTR_SET_0, 0x1); // SDP_DONE_SET0\n"
                        "intr_notify(SDP_0, sync_a);\n"
                        "check_crc(sync_a, 1, 0x80000000, 0x9, 0xcbf43926);\n"
                        "check_crc(sync_a, pri_mem, 0x80000000, 0x10, 0x12345678);\n");
    struct captured cap = {{0}};
    struct report rep = {.print = capture, .ctx = &cap};
    char err[512], path[512];
    snprintf(path, sizeof path, "%s/t.cfg", dir);
    struct session *s = open_trace(path, "nv_small", &rep, err, sizeof err);
    assert_non_null(s);
    run_to_end(s);
    assert_int_equal(rep.checks_passed, 1);
    assert_int_equal(rep.checks_failed, 1);
    assert_non_null(strstr(cap.text, "t.cfg:7: check_crc sync_a 0x80000000+0x10: expected "
                                     "0x12345678"));
    /* the handler cleared the interrupt it consumed */
    assert_int_equal(dla_intr_status(session_dla(s)), 0);
    session_close(s);

    /* an interrupt nobody expects fails the test; a missing one too */
    write_file("t.cfg", "reg_write(NVDLA_GLB.S_INTR_SET_0, 0x4); // CDP_DONE_SET0\n"
                        "intr_notify(SDP_0, sync_a);\ncheck_nothing(sync_a);\n");
    memset(&cap, 0, sizeof cap);
    rep = (struct report){.print = capture, .ctx = &cap};
    s = open_trace(path, "nv_small", &rep, err, sizeof err);
    assert_non_null(s);
    run_to_end(s);
    assert_int_equal(rep.checks_failed, 2);
    assert_non_null(strstr(cap.text, "unexpected interrupt CDP_DONE_STATUS0"));
    assert_non_null(strstr(cap.text, "t.cfg:2: intr_notify(SDP_DONE_STATUS0, sync_a)"));
    session_close(s);
}

/* Sizes read from a trace are checked against the memory's range and budget
 * before anything is allocated: a huge RANDOM or ADDR mem_init once filled
 * memory up to the budget (or the machine) before failing.  RANDOM now
 * allocates nothing at all (test_mem_random). */
static void test_cfg_huge_mem_init(void **state)
{
    (void)state;
    const char *patterns[] = {"RANDOM", "ADDR", "ALL_ZERO", "ONES"};
    const char *configs[] = {"nv_small", "nv_full"}; /* 32- and 64-bit addresses */
    char text[256], path[512], err[512];
    snprintf(path, sizeof path, "%s/t.cfg", dir);
    for (size_t c = 0; c < 2; c++)
        for (size_t i = 0; i < 4; i++) {
            snprintf(text, sizeof text,
                     "mem_init(pri_mem, 0x0, 0xfffffffff, %s);\n"
                     "reg_write(NVDLA_GLB.S_INTR_SET_0, 0x1);\n"
                     "intr_notify(SDP_0, s0);\ncheck_nothing(s0);\n",
                     patterns[i]);
            write_file("t.cfg", text);
            struct captured cap = {{0}};
            struct report rep = {.print = capture, .ctx = &cap};
            struct session_opts opt = {
                .cfg = dla_config_find(configs[c]), .outdir = dir, .mem_budget = 64u << 20};
            struct session *s = session_open(path, &opt, &rep, err, sizeof err);
            assert_non_null(s);
            run_to_end(s);
            assert_int_equal(mem_resident_bytes(dla_memory(session_dla(s), DLA_DRAM)), 0);
            /* RANDOM allocates nothing (its bytes are made when read): refused
             * only beyond the 32-bit space */
            bool lazy = i == 0 && c == 1;
            assert_int_equal(rep.input_errors, lazy ? 0 : 1);
            if (!lazy && !strstr(cap.text, "t.cfg:1: mem_init of 0xfffffffff bytes at 0x0: "))
                fail_msg("%s %s: %s", configs[c], patterns[i], cap.text);
            session_close(s);
        }
}

/* dump_mem's size is checked before its buffer is allocated. */
static void test_txn_huge_dump(void **state)
{
    (void)state;
    write_file("input.txn", "dump_mem 0x80000000 0x100000000 out.dat\n");
    struct captured cap = {{0}};
    struct report rep = {.print = capture, .ctx = &cap};
    char err[512], path[512];
    snprintf(path, sizeof path, "%s/input.txn", dir);
    struct session_opts opt = {.outdir = dir, .mem_budget = 64u << 20};
    struct session *s = session_open(path, &opt, &rep, err, sizeof err);
    assert_non_null(s);
    run_to_end(s);
    assert_int_equal(rep.input_errors, 1);
    if (!strstr(cap.text, "input.txn:1: dump_mem of 0x100000000 bytes at 0x80000000: memory "
                          "budget exhausted"))
        fail_msg("%s", cap.text);
    session_close(s);
}

/* The bits whose value says how far the hardware got, in both register maps:
 * only these may differ by timing when a KMD trace is replayed. */
static void test_timing_bits(void **state)
{
    (void)state;
    static const char *const configs[] = {"nv_full", "nv_small"};
    for (int c = 0; c < 2; c++) {
        struct dla *d = dla_create(dla_config_find(configs[c]), NULL);
        assert_non_null(d);
        const struct regdb_map *map = dla_regmap(d);
        struct regdb_ref ref;
#define ADDR(name) (assert_true(regdb_resolve(map, name, &ref)), regdb_addr(ref.unit, ref.reg))
        assert_int_equal(trace_timing_bits(map, ADDR("CACC.S_POINTER")), 1u << 16);
        assert_int_equal(trace_timing_bits(map, ADDR("SDP_RDMA.S_POINTER")), 1u << 16);
        assert_int_equal(trace_timing_bits(map, ADDR("CDMA.S_STATUS")), 0xffffffffu);
        assert_int_equal(trace_timing_bits(map, ADDR("CDMA.S_CBUF_FLUSH_STATUS")), 0xffffffffu);
        assert_int_equal(trace_timing_bits(map, ADDR("SDP.D_PERF_WDMA_WRITE_STALL")), 0xffffffffu);
        assert_int_equal(trace_timing_bits(map, ADDR("SDP.D_PERF_ENABLE")), 0);
        assert_int_equal(trace_timing_bits(map, ADDR("GLB.S_INTR_MASK")), 0);
        assert_int_equal(trace_timing_bits(map, ADDR("SDP.D_DST_BASE_ADDR_LOW")), 0);
        if (c == 0)
            assert_int_equal(trace_timing_bits(map, ADDR("BDMA.STATUS")), 0xffffffffu);
#undef ADDR
        assert_int_equal(trace_timing_bits(map, 0x3fffc), 0); /* nothing there */
        dla_destroy(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_txn_malformed),
        cmocka_unit_test(test_txn_spellings),
        cmocka_unit_test(test_action_clear),
        cmocka_unit_test(test_txn_bdma_run),
        cmocka_unit_test(test_dat_hexlines_errors),
        cmocka_unit_test(test_dat_records),
        cmocka_unit_test(test_crc32),
        cmocka_unit_test(test_trace_names),
        cmocka_unit_test(test_numbers_and_places),
        cmocka_unit_test(test_make_dirs),
        cmocka_unit_test(test_cfg_malformed),
        cmocka_unit_test(test_cfg_run),
        cmocka_unit_test(test_cfg_huge_mem_init),
        cmocka_unit_test(test_txn_huge_dump),
        cmocka_unit_test(test_timing_bits),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
