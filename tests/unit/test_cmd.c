/* The command layer: lookup by name, alias and unique prefix; dispatch and
 * error messages that name the command and script line; repeating steps with
 * an empty line; completion; help; expressions; register display and pokes. */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dbg_fixture.h"
#include "cmd/expr.h"
#include "debug/trace_ring.h"

static int setup(void **state)
{
    (void)state;
    return fixture_bdma_setup("t3", 3);
}

static void test_lookup(void **state)
{
    (void)state;
    bool amb;
    /* gdb habits: these single letters are aliases */
    const char *pairs[][2] = {{"b", "break"},    {"c", "continue"}, {"s", "step"},
                              {"n", "next"},     {"r", "run"},      {"i", "info"},
                              {"q", "quit"},     {"p", "print"},    {"cont", "continue"},
                              {"fin", "finish"}, {"wher", "where"}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        const struct cmd_entry *e = cmd_lookup(NULL, pairs[k][0], &amb);
        assert_non_null(e);
        assert_string_equal(e->name, pairs[k][1]);
    }
    /* "i r" is info regs */
    const struct cmd_entry *info = cmd_lookup(NULL, "i", &amb);
    const struct cmd_entry *r = cmd_lookup(info->subs, "r", &amb);
    assert_non_null(r);
    assert_string_equal(r->name, "regs");
    /* "e" begins echo, enable, export: ambiguous */
    assert_null(cmd_lookup(NULL, "e", &amb));
    assert_true(amb);
    assert_null(cmd_lookup(NULL, "frobnicate", &amb));
    assert_false(amb);
    /* every entry has usage and help, and exec or subcommands */
    for (const struct cmd_entry *const *g = cmd_groups; *g; g++)
        for (const struct cmd_entry *e = *g; e->name; e++) {
            assert_non_null(e->usage);
            assert_non_null(e->help);
            assert_true(e->exec || e->subs);
        }
}

static void test_errors_name_command_and_line(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t3");
    assert_int_equal(fixture_exec(d, "frobnicate 3"), CMD_ERROR);
    assert_non_null(strstr(fixture_out.text, "unknown command \"frobnicate\""));
    assert_int_equal(fixture_exec(d, "break layer"), CMD_ERROR);
    assert_non_null(strstr(fixture_out.text, "break layer: expected a layer index"));
    assert_int_equal(fixture_exec(d, "reg CDMA.NO_SUCH_REG"), CMD_ERROR);
    assert_non_null(strstr(fixture_out.text, "reg: no register or field \"CDMA.NO_SUCH_REG\""));
    /* a script: the line is named, the first failure ends it in batch mode */
    fixture_write("script.dladbg", "step\n# comment\n\nbogus thing\nstep\n");
    char path[512];
    fixture_path(path, sizeof path, "script.dladbg");
    fixture_clear();
    assert_int_equal(dbg_source(d, path, &fixture_sink), CMD_ERROR);
    char want[600];
    snprintf(want, sizeof want, "%s:4: unknown command \"bogus\"", path);
    assert_non_null(strstr(fixture_out.text, want));
    assert_int_equal(session_writes(d->session), 1); /* the last "step" did not run */
    assert_int_equal(dbg_exit_status(d), 2);
    dbg_destroy(d);
}

static void test_empty_line_repeats_steps(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t3");
    assert_int_equal(fixture_exec(d, "step 2"), CMD_OK);
    assert_int_equal(session_writes(d->session), 2);
    assert_int_equal(fixture_exec(d, ""), CMD_OK);
    assert_int_equal(session_writes(d->session), 4);
    assert_int_equal(fixture_exec(d, "s"), CMD_OK); /* unique prefix and alias */
    assert_int_equal(session_writes(d->session), 5);
    /* a comment does not repeat; a non-step command stops the repetition */
    assert_int_equal(fixture_exec(d, "# nothing"), CMD_OK);
    assert_int_equal(session_writes(d->session), 5);
    assert_int_equal(fixture_exec(d, "info layers"), CMD_OK);
    assert_int_equal(fixture_exec(d, ""), CMD_OK);
    assert_int_equal(session_writes(d->session), 5);
    assert_int_equal(fixture_exec(d, "next"), CMD_OK);
    assert_int_equal(session_layers_done(d->session), 1);
    assert_int_equal(fixture_exec(d, ""), CMD_OK);
    assert_int_equal(session_layers_done(d->session), 2);
    dbg_destroy(d);
}


static void test_completion(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t3");
    size_t start;
    struct fixture_cands k = fixture_complete(d, "cont", &start);
    assert_string_equal(k.all, "[continue]");
    assert_int_equal(start, 0);
    k = fixture_complete(d, "info la", &start);
    assert_string_equal(k.all, "[layers]");
    assert_int_equal(start, 5);
    k = fixture_complete(d, "break reg CDMA.D_DATAIN_SI", &start);
    assert_string_equal(k.all,
                        "[CDMA.D_DATAIN_SIZE_0][CDMA.D_DATAIN_SIZE_1][CDMA.D_DATAIN_SIZE_EXT_0]");
    k = fixture_complete(d, "reg cdma.d_datain_size_0.", &start);
    assert_string_equal(k.all,
                        "[CDMA.D_DATAIN_SIZE_0.DATAIN_WIDTH][CDMA.D_DATAIN_SIZE_0.DATAIN_HEIGHT]");
    k = fixture_complete(d, "break unit s", &start);
    assert_string_equal(k.all, "[sdp]");
    k = fixture_complete(d, "break layer 3 ", &start);
    assert_string_equal(k.all, "[programmed][enabled][started][done]");
    k = fixture_complete(d, "export csv out.csv --decoder ", &start);
    assert_non_null(strstr(k.all, "[layers]"));
    assert_int_equal(fixture_exec(d, "break layer 1"), CMD_OK);
    assert_int_equal(fixture_exec(d, "break layer 2"), CMD_OK);
    k = fixture_complete(d, "delete ", &start); /* "delete display N" too */
    assert_string_equal(k.all, "[display][1][2]");
    k = fixture_complete(d, "break intr BDMA_DONE_STATUS", &start);
    assert_string_equal(k.all, "[BDMA_DONE_STATUS0][BDMA_DONE_STATUS1]");
    dbg_destroy(d);
}

static void test_help(void **state)
{
    (void)state;
    struct dbg *d = fixture_dbg();
    assert_int_equal(fixture_exec(d, "help"), CMD_OK);
    for (const struct cmd_entry *const *g = cmd_groups; *g; g++)
        for (const struct cmd_entry *e = *g; e->name; e++)
            assert_non_null(strstr(fixture_out.text, e->usage));
    assert_int_equal(fixture_exec(d, "help break layer"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "usage: break layer N"));
    assert_int_equal(fixture_exec(d, "help nothing"), CMD_ERROR);
    /* commands that need a file say so */
    assert_int_equal(fixture_exec(d, "step"), CMD_ERROR);
    assert_non_null(strstr(fixture_out.text, "no file is open"));
    dbg_destroy(d);
}

/* Plain reference: the same arithmetic in C. */
static void test_expressions(void **state)
{
    (void)state;
    struct {
        const char *text;
        int64_t want;
    } cases[] = {
        {"1 + 2 * 3", 1 + 2 * 3},
        {"(1 + 2) * 3", (1 + 2) * 3},
        {"0x10 << 4 | 3", (0x10 << 4) | 3},
        {"100 / 7 % 3", 100 / 7 % 3},
        {"-5 + ~0", -5 + ~0},
        {"1 < 2 && 3 >= 3 || 0", (1 < 2 && 3 >= 3) || 0},
        {"0b1011 ^ 0x5", 0xb ^ 0x5},
        {"!0 == 1", (!0) == 1},
        {"7 & 3 == 3", 7 & (3 == 3)},
        {"-9223372036854775807 - 1", INT64_MIN},
    };
    struct expr_env env = {.group = -1};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = 0;
        char err[128];
        assert_true(expr_eval(cases[i].text, &env, &v, err, sizeof err));
        assert_int_equal(v, cases[i].want);
    }
    const char *bad[] = {"1 +", "(2", "1 / 0", "foo", "3 $", "$nope", "0x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t v;
        char err[128] = "";
        assert_false(expr_eval(bad[i], &env, &v, err, sizeof err));
        assert_true(err[0] != 0);
    }
}

static void test_reg_show_and_poke(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t3");
    struct dla *dla = session_dla(d->session);
    /* a poke is a CSB write: stored, in the event ring, fields decoded */
    assert_int_equal(fixture_exec(d, "reg CDMA.D_DATAIN_SIZE_0_0 = 0x00070005"), CMD_OK);
    struct regdb_ref ref;
    assert_true(regdb_resolve(dla_regmap(dla), "CDMA.D_DATAIN_SIZE_0", &ref));
    uint32_t addr = regdb_addr(ref.unit, ref.reg);
    assert_int_equal(dla_csb_peek(dla, addr), 0x00070005);
    struct trace_rec last;
    assert_true(trace_ring_get(d->ring, trace_ring_count(d->ring) - 1, &last));
    assert_int_equal(last.kind, DLA_EV_REG_WRITE);
    assert_int_equal(last.x, addr);
    assert_non_null(strstr(fixture_out.text, "DATAIN_WIDTH"));
    assert_non_null(strstr(fixture_out.text, "= 5 (0x5)"));
    assert_non_null(strstr(fixture_out.text, "= 7 (0x7)"));
    /* a field poke keeps the other fields */
    assert_int_equal(fixture_exec(d, "reg CDMA.D_DATAIN_SIZE_0.DATAIN_HEIGHT = 9"), CMD_OK);
    assert_int_equal(dla_csb_peek(dla, addr), (9u << 16) | 5u);
    /* enum names: write by name, shown by name */
    assert_int_equal(fixture_exec(d, "reg SDP.D_FEATURE_MODE_CFG.FLYING_MODE = ON"), CMD_OK);
    assert_int_equal(fixture_exec(d, "print SDP.D_FEATURE_MODE_CFG.FLYING_MODE == ON"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "= 1 (0x1)"));
    assert_int_equal(fixture_exec(d, "reg SDP.D_FEATURE_MODE_CFG"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "FLYING_MODE                  [0]      = 1 (ON)"));
    /* group 1 cannot be written while the producer is group 0 */
    assert_int_equal(fixture_exec(d, "reg CDMA.D_DATAIN_SIZE_0@1 = 1"), CMD_ERROR);
    assert_int_equal(fixture_exec(d, "print 6 * 7"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "= 42 (0x2a)"));
    dbg_destroy(d);
}

static void test_examine_memory(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t3");
    assert_int_equal(fixture_exec(d, "step"), CMD_OK); /* the trace loads its source first */
    assert_int_equal(fixture_exec(d, "x/4bx 0x80000000"), CMD_OK);
    char want[128];
    snprintf(want, sizeof want, "dram:0x80000000: 0x%02x 0x%02x 0x%02x 0x%02x", 5, 18, 31, 44);
    assert_non_null(strstr(fixture_out.text, want));
    assert_int_equal(fixture_exec(d, "x/2w 0x80000000"), CMD_OK);
    uint32_t w0 = 5u | 18u << 8 | 31u << 16 | 44u << 24;
    snprintf(want, sizeof want, "0x%08x", w0);
    assert_non_null(strstr(fixture_out.text, want));
    /* absurd sizes and addresses are refused, not attempted */
    assert_int_equal(fixture_exec(d, "x/100000000g 0x80000000"), CMD_ERROR);
    assert_int_equal(fixture_exec(d, "x/4w 0xfffffffffffffffc"), CMD_ERROR);
    assert_int_equal(fixture_exec(d, "x/4q 0x80000000"), CMD_ERROR);
    /* the tensor view of the same bytes: int8, 8 bytes per line of one channel */
    assert_int_equal(fixture_exec(d, "tensor 0x80000000 4x1x1 int8 32"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "N=1 C=1 H=1 W=4 int8"));
    assert_int_equal(fixture_exec(d, "tensor 0x80000000 0x1x1 int8"), CMD_ERROR);
    dbg_destroy(d);
}

static void test_where_and_info(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t3");
    const char *topics[] = {"layers", "tasks", "regs GLB",    "cbuf",        "lut",
                            "perf",   "mem",   "breakpoints", "checkpoints", "trace 5",
                            "intr",   "units", "hang",        "rules"};
    assert_int_equal(fixture_exec(d, "next"), CMD_OK);
    for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "info %s", topics[i]);
        assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    }
    assert_int_equal(fixture_exec(d, "info layers"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "BDMA"));
    assert_int_equal(fixture_exec(d, "where"), CMD_OK);
    /* what the hardware does next, then where the driver is */
    assert_non_null(strstr(fixture_out.text, "next: "));
    assert_non_null(strstr(fixture_out.text, "  driver: input.txn:"));
    assert_int_equal(fixture_exec(d, "info regs NOPE"), CMD_ERROR);
    dbg_destroy(d);
}

/* A loadable's tensors by name: the image of the LeNet sample, element
 * (c=0, h=0, w=x) of an int8 feature surface at base + x * 32. */
static void test_named_tensor(void **state)
{
    (void)state;
    struct dbg *d = fixture_open("sample:lenet");
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "info tensors"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "image"));
    assert_int_equal(fixture_exec(d, "step"), CMD_OK); /* the runtime has placed the input */
    assert_int_equal(fixture_exec(d, "tensor image"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "N=1 C=1 H=12 W=12 int8"));
    unsigned long long base;
    const char *at = strstr(fixture_out.text, "dram 0x");
    assert_non_null(at);
    assert_int_equal(sscanf(at, "dram 0x%llx", &base), 1);
    char want[256] = "  h=0  ";
    for (int x = 0; x < 12; x++) {
        int8_t v;
        assert_int_equal(
            dla_mem_read(session_dla(d->session), DLA_DRAM, base + 32u * (unsigned)x, &v, 1),
            MEM_OK);
        size_t n = strlen(want);
        snprintf(want + n, sizeof want - n, " %7d", v);
    }
    assert_non_null(strstr(fixture_out.text, want));
    assert_int_equal(fixture_exec(d, "tensor 0"), CMD_OK);
    assert_int_equal(fixture_exec(d, "tensor nosuchtensor"), CMD_ERROR);
    dbg_destroy(d);
    /* a trace names no tensors */
    char path[512];
    fixture_path(path, sizeof path, "t3");
    d = fixture_open(path);
    assert_int_equal(fixture_exec(d, "tensor input"), CMD_ERROR);
    assert_non_null(strstr(fixture_out.text, "has no named tensors (it is a register trace); "));
    dbg_destroy(d);
}

/* Every command and subcommand with hostile arguments: a message, never a
 * crash, hang or huge allocation (the sanitizer build checks the memory). */
static void each_with(struct dbg *d, const char *prefix, const struct cmd_entry *table)
{
    static const char *const args[] = {
        "",
        "0",
        "-1",
        "18446744073709551615",
        "0xffffffffffffffff",
        "1 2 3 4 5 6 7 8 9",
        "\"unclosed",
        "==",
        "if",
        "if 1 ==",
        "CDMA.",
        "GLB.S_INTR_STATUS.",
        "@@@",
        "$cycle",
        "(((((((((((1)))))))))))",
        "1/0",
        "x/0 0",
        "--decoder",
        "done if 1",
        "0x80000000 0xffffffffffff",
        "0x80000000 99999999x99999999x1 int8",
    };
    char long_arg[1200];
    memset(long_arg, 'A', sizeof long_arg - 1);
    long_arg[sizeof long_arg - 1] = 0;
    for (const struct cmd_entry *e = table; e->name; e++) {
        char name[128];
        snprintf(name, sizeof name, "%s%s", prefix, e->name);
        if (!strcmp(e->name, "quit") || !strcmp(e->name, "file") || !strcmp(e->name, "source") ||
            !strcmp(e->name, "shell"))
            continue; /* leaving, replacing the file, reading files, running /bin/sh on its
                         odd arguments: tested elsewhere (shell: tests/batch/shell.sh) */
        if (e->subs) {
            char sub[140];
            snprintf(sub, sizeof sub, "%s ", name);
            each_with(d, sub, e->subs);
        }
        for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
            char line[256];
            snprintf(line, sizeof line, "%s %s", name, args[i]);
            fixture_exec(d, line);
        }
        char line[1400];
        snprintf(line, sizeof line, "%s %s", name, long_arg);
        fixture_exec(d, line);
    }
}

static void test_hostile_arguments(void **state)
{
    (void)state;
    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    struct dbg *d = fixture_open_trace("t3");
    assert_int_equal(chdir(fixture_dir), 0); /* exports of odd names land here */
    for (const struct cmd_entry *const *g = cmd_groups; *g; g++)
        each_with(d, "", *g);
    assert_int_equal(chdir(cwd), 0);
    /* still usable afterwards */
    assert_int_equal(fixture_exec(d, "restart"), CMD_OK);
    assert_int_equal(fixture_exec(d, "delete"), CMD_OK);
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK);
    assert_true(session_finished(d->session));
    dbg_destroy(d);
}

/* A word longer than any fixed buffer, followed by more words, is kept whole
 * (it once overflowed the tokenizer's storage); too many words is an error,
 * not a silently shortened command. */
static void test_long_and_many_words(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t3");
    static char line[4200];
    int n = snprintf(line, sizeof line, "echo ");
    memset(line + n, 'A', 4000);
    snprintf(line + n + 4000, sizeof line - (size_t)n - 4000, " b c");
    fixture_clear();
    assert_int_equal(fixture_exec(d, line), CMD_OK);
    assert_int_equal(strlen(fixture_out.text), 4000 + strlen(" b c\n"));
    assert_non_null(strstr(fixture_out.text, "AAAA b c\n"));
    char many[512] = "echo";
    for (int i = 0; i < 70; i++)
        strcat(many, " w");
    fixture_clear();
    assert_int_equal(fixture_exec(d, many), CMD_ERROR);
    assert_non_null(strstr(fixture_out.text, "too many words (at most 64)"));
    dbg_destroy(d);
}

static bool stop_now(void *ctx)
{
    (*(int *)ctx)++;
    return true;
}

/* A frontend's poll hook is called during long runs and can interrupt them. */
static void test_poll_interrupts(void **state)
{
    (void)state;
    fixture_bdma_trace("t400", 400); /* 5200 register writes: more than one poll period */
    char path[512];
    fixture_path(path, sizeof path, "t400");
    int calls = 0;
    struct dbg_options opt = {.no_builtin_plugins = true, .poll = stop_now, .poll_ctx = &calls};
    struct dbg *d = dbg_create(&opt, &fixture_sink);
    char err[256];
    assert_true(dbg_open(d, path, err, sizeof err));
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_int_equal(calls, 1);
    assert_false(session_finished(d->session));
    assert_non_null(strstr(fixture_out.text, "Interrupted."));
    assert_int_equal(fixture_exec(d, "info layers"), CMD_OK);
    dbg_destroy(d);
}

/* Every "file" (dbg_open) replaces the model and the listeners on it: the
 * count of opens is how a front end knows to listen again, even when the new
 * model lands at the old one's address. */
static void test_opens_counted(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t3");
    unsigned first = d->opens;
    assert_true(first >= 1);
    assert_int_equal(fixture_exec(d, "file sample:lenet"), CMD_OK);
    assert_int_equal(d->opens, first + 1);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK); /* a restart keeps the model */
    assert_int_equal(d->opens, first + 1);
    dbg_destroy(d);
}

/* A "file" that cannot be opened (a typo) keeps the session it was typed in:
 * the same model, where the run was, and no new open for a front end to
 * follow; the failure is the command's and counts nothing against the run. */
static void test_failed_open_keeps_session(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t3");
    assert_int_equal(fixture_exec(d, "step layer"), CMD_OK);
    struct session *before = d->session;
    uint64_t cycle = dla_now(session_dla(d->session));
    unsigned opens = d->opens;
    fixture_clear();
    assert_int_equal(fixture_exec(d, "file /nonexistent/x.nvdla"), CMD_ERROR);
    assert_non_null(strstr(fixture_out.text, "/nonexistent/x.nvdla: cannot open"));
    assert_ptr_equal(d->session, before);
    assert_int_equal(d->opens, opens);
    assert_int_equal(dla_now(session_dla(d->session)), cycle);
    assert_int_equal(report_exit_status(&d->rep), 0);
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK); /* the run goes on */
    assert_true(session_finished(d->session));
    dbg_destroy(d);
}

/* The ring grows with what it records, a chunk of 512 records at a time: 9,000
 * events take their own size and at most a chunk more (growing by half at
 * a time held 13,122 records' room for them, issue 34), not a preallocated
 * array; once at capacity (not a whole number of chunks) it overwrites the
 * oldest, in order, across the chunks. */
static void test_ring_grows_with_its_records(void **state)
{
    (void)state;
    struct trace_ring *r = trace_ring_create(20000);
    size_t empty = trace_ring_bytes(r), rec = sizeof(struct trace_rec);
    struct dla_event ev = {.kind = DLA_EV_REG_WRITE, .layer = -1};
    for (uint64_t i = 0; i < 9000; i++) {
        ev.cycle = i;
        trace_ring_record(r, &ev);
    }
    assert_int_equal(trace_ring_count(r), 9000);
    assert_true(trace_ring_bytes(r) - empty <= 9000 * rec + 512 * rec + 1024);
    for (uint64_t i = 9000; i < 50000; i++) {
        ev.cycle = i;
        trace_ring_record(r, &ev);
    }
    assert_int_equal(trace_ring_count(r), 20000);
    assert_int_equal(trace_ring_dropped(r), 30000);
    struct trace_rec got;
    for (size_t i = 0; i < 20000; i++) {
        assert_true(trace_ring_get(r, i, &got));
        assert_int_equal(got.cycle, 30000 + i);
        assert_int_equal(got.seq, 30000 + i);
    }
    assert_false(trace_ring_get(r, 20000, &got));
    assert_int_equal(trace_ring_kind(r, 19999), DLA_EV_REG_WRITE);
    assert_int_equal(trace_ring_kind(r, 20000), -1);
    assert_true(trace_ring_bytes(r) - empty <= 20000 * rec + 1024);
    trace_ring_destroy(r);
}

/* The event of number i of ring_mixed_event's sequence: every kind, with
 * values of every size (64-bit addresses and cycles going back too). */
static struct dla_event ring_mixed_event(uint64_t i)
{
    static const uint8_t kinds[] = {DLA_EV_REG_WRITE, DLA_EV_REG_READ, DLA_EV_LAYER_START,
                                    DLA_EV_INTR,      DLA_EV_DMA,      DLA_EV_CBUF,
                                    DLA_EV_LUT,       DLA_EV_PERF,     DLA_EV_LAYER_DONE};
    uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull;
    struct dla_event ev = {.kind = kinds[i % sizeof kinds],
                           .cycle = i % 7 == 3 ? h : 1000 + i * 3 - (i % 5),
                           .layer = i % 11 == 0 ? -1 : (int32_t)(i / 9 + (h >> 60))};
    switch (ev.kind) {
    case DLA_EV_REG_WRITE:
    case DLA_EV_REG_READ:
        ev.u.reg.addr = (uint32_t)(h >> 40);
        ev.u.reg.value = (uint32_t)h;
        ev.u.reg.old = i % 3 ? (uint32_t)(h >> 17) : 0;
        ev.u.reg.unit = (uint8_t)(i % 20);
        ev.u.reg.group = i % 4 ? (uint8_t)(i & 1) : 0xff;
        break;
    case DLA_EV_LAYER_START:
    case DLA_EV_LAYER_DONE:
        ev.u.layer.proc = (uint8_t)(i % 8);
        ev.u.layer.group = (uint8_t)(i & 1);
        ev.u.layer.unit = (uint8_t)(h >> 56);
        break;
    case DLA_EV_INTR:
        ev.u.intr.bit = (uint8_t)(i % 32);
        ev.u.intr.status = (uint32_t)(h >> 32);
        ev.u.intr.line = i & 1;
        break;
    case DLA_EV_DMA:
        ev.u.dma.client = (uint8_t)(i % 13);
        ev.u.dma.space = (uint8_t)(i & 1);
        ev.u.dma.write = (i >> 1) & 1;
        ev.u.dma.addr = h;
        ev.u.dma.bytes = h >> 20;
        ev.u.dma.start = ev.cycle;
        ev.u.dma.end = ev.cycle + (h >> 50);
        break;
    case DLA_EV_CBUF:
        ev.u.cbuf.first_bank = (uint8_t)(i % 16);
        ev.u.cbuf.n_banks = (uint8_t)(h >> 59);
        ev.u.cbuf.kind = (uint8_t)(i % 3);
        ev.u.cbuf.bytes = h >> 3;
        break;
    case DLA_EV_LUT:
        ev.u.lut.unit = (uint8_t)(i % 20);
        break;
    default:
        break;
    }
    return ev;
}

/* What the ring gives back for event i, field by field as it kept it; its
 * kind read alone (trace_ring_kind, the plugin event walk's filter) agrees. */
static void assert_ring_holds(const struct trace_ring *r, size_t at, uint64_t i)
{
    struct dla_event ev = ring_mixed_event(i);
    struct trace_rec rec;
    assert_int_equal(trace_ring_kind(r, at), ev.kind);
    assert_true(trace_ring_get(r, at, &rec));
    assert_int_equal(rec.seq, i);
    assert_int_equal(rec.kind, ev.kind);
    assert_int_equal(rec.cycle, ev.cycle);
    assert_int_equal(rec.layer, ev.layer);
    switch (ev.kind) {
    case DLA_EV_REG_WRITE:
    case DLA_EV_REG_READ:
        assert_true(rec.a == ev.u.reg.unit && rec.b == ev.u.reg.group);
        assert_true(rec.x == ev.u.reg.addr && rec.y == ev.u.reg.value && rec.z == ev.u.reg.old);
        break;
    case DLA_EV_LAYER_START:
    case DLA_EV_LAYER_DONE:
        assert_true(rec.a == ev.u.layer.proc && rec.b == ev.u.layer.group &&
                    rec.c == ev.u.layer.unit);
        break;
    case DLA_EV_INTR:
        assert_true(rec.a == ev.u.intr.bit && rec.b == ev.u.intr.line &&
                    rec.x == ev.u.intr.status);
        break;
    case DLA_EV_DMA:
        assert_true(rec.a == ev.u.dma.client && rec.b == ev.u.dma.space &&
                    rec.c == ev.u.dma.write);
        assert_true(rec.p == ev.u.dma.addr && rec.q == ev.u.dma.bytes &&
                    rec.r == ev.u.dma.start && rec.s == ev.u.dma.end);
        break;
    case DLA_EV_CBUF:
        assert_true(rec.a == ev.u.cbuf.first_bank && rec.b == ev.u.cbuf.n_banks &&
                    rec.c == ev.u.cbuf.kind && rec.q == ev.u.cbuf.bytes);
        break;
    case DLA_EV_LUT:
        assert_int_equal(rec.a, ev.u.lut.unit);
        break;
    default:
        break;
    }
}

/* Records are kept encoded (issue 34: the ring of resnet18-cifar10's 9,800
 * events took 0.55 MiB, 56 bytes each, more than half its working set): a
 * register write costs under 20 bytes, and every field of every kind reads
 * back as recorded, across chunks, after the ring has wrapped, after
 * stepping back (truncate) into an earlier chunk and recording on, and
 * after a clear. */
static void test_ring_keeps_records_encoded(void **state)
{
    (void)state;
    struct trace_ring *r = trace_ring_create(0);
    size_t empty = trace_ring_bytes(r);
    struct dla_event w = {.kind = DLA_EV_REG_WRITE, .layer = 3};
    for (uint32_t i = 0; i < 9000; i++) { /* a driver's writes: CSB addresses, small values */
        w.cycle = 5000 + 7ull * i;
        w.u.reg.addr = 0x5000 + 4 * (i % 60);
        w.u.reg.value = i % 4 ? 0x1f : 0x00070005;
        w.u.reg.old = 0;
        w.u.reg.unit = 4;
        trace_ring_record(r, &w);
    }
    assert_true(trace_ring_bytes(r) - empty <= 9000 * 20 + 512 * 64 + 4096);
    trace_ring_destroy(r);

    r = trace_ring_create(1500);
    for (uint64_t i = 0; i < 4000; i++) {
        struct dla_event ev = ring_mixed_event(i);
        trace_ring_record(r, &ev);
    }
    assert_int_equal(trace_ring_count(r), 1500);
    assert_int_equal(trace_ring_dropped(r), 2500);
    for (size_t k = 0; k < 1500; k++)
        assert_ring_holds(r, k, 2500 + k);
    trace_ring_truncate(r, 3100); /* back over the newest chunk into the one before */
    assert_int_equal(trace_ring_count(r), 600);
    assert_int_equal(trace_ring_next_seq(r), 3100);
    for (uint64_t i = 3100; i < 5000; i++) { /* on again, the same events */
        struct dla_event ev = ring_mixed_event(i);
        trace_ring_record(r, &ev);
    }
    assert_int_equal(trace_ring_count(r), 1500);
    for (size_t k = 0; k < 1500; k++)
        assert_ring_holds(r, k, 3500 + k);
    trace_ring_truncate(r, 10); /* before the oldest held: none left */
    assert_int_equal(trace_ring_count(r), 0);
    trace_ring_clear(r);
    for (uint64_t i = 0; i < 700; i++) {
        struct dla_event ev = ring_mixed_event(i);
        trace_ring_record(r, &ev);
    }
    for (size_t k = 0; k < 700; k++)
        assert_ring_holds(r, k, k);
    trace_ring_destroy(r);
}

/* trace_ring_next_of from every start agrees with the records' kinds read
 * one at a time, for each set of kinds: none, one, several, all, and one
 * the ring holds no record of. */
static void assert_next_of_agrees(const struct trace_ring *r)
{
    static const uint32_t masks[] = {0,
                                     1u << DLA_EV_DMA,
                                     1u << DLA_EV_REG_WRITE | 1u << DLA_EV_LAYER_DONE,
                                     1u << DLA_EV_DIAG,
                                     0xffffffffu};
    size_t n = trace_ring_count(r);
    for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
        size_t expect = n; /* the first match at or after i, found walking back */
        for (size_t i = n + 1; i-- > 0;) {
            if (i < n && (masks[m] >> trace_ring_kind(r, i) & 1u))
                expect = i;
            assert_int_equal(trace_ring_next_of(r, i, masks[m]), expect);
        }
    }
}

/* The walk of a few kinds (export csv through one decoder) skips the other
 * records chunk by chunk: the same records as reading every kind, in a ring
 * that has wrapped (its oldest chunk partly dropped), been stepped back into
 * an earlier chunk and recorded on, and emptied. */
static void test_ring_next_of_kinds(void **state)
{
    (void)state;
    struct trace_ring *r = trace_ring_create(1500);
    assert_next_of_agrees(r);
    for (uint64_t i = 0; i < 4000; i++) {
        struct dla_event ev = ring_mixed_event(i);
        trace_ring_record(r, &ev);
    }
    assert_int_equal(trace_ring_dropped(r), 2500);
    assert_next_of_agrees(r);
    /* record 6 is event 2506, the first DMA one held (kinds[2506 % 9]) */
    assert_int_equal(trace_ring_next_of(r, 0, 1u << DLA_EV_DMA), 6);
    trace_ring_truncate(r, 3100);
    assert_next_of_agrees(r);
    for (uint64_t i = 3100; i < 5000; i++) {
        struct dla_event ev = ring_mixed_event(i);
        trace_ring_record(r, &ev);
    }
    assert_next_of_agrees(r);
    trace_ring_clear(r);
    assert_int_equal(trace_ring_next_of(r, 0, 0xffffffffu), 0);
    trace_ring_destroy(r);
}

/* A record takes 56 bytes (no kind uses both the register words and the DMA
 * ones), and a ring that has recorded no diagnostic holds no room for their
 * texts (256 slots, 66 KiB, were in every ring): the first diagnostic
 * allocates them and its text reads back. */
static void test_ring_costs_what_it_records(void **state)
{
    (void)state;
    assert_true(sizeof(struct trace_rec) <= 56);
    struct trace_ring *r = trace_ring_create(0);
    assert_true(trace_ring_bytes(r) < 4096);
    struct dla_event ev = {.kind = DLA_EV_DIAG, .layer = 2, .cycle = 7};
    ev.u.diag.msg = "a message";
    ev.u.diag.rule = "rule-1";
    ev.u.diag.addr = 0x1234;
    trace_ring_record(r, &ev);
    assert_true(trace_ring_bytes(r) > 256 * 256);
    struct trace_rec got;
    const struct trace_rec *rec = &got;
    assert_true(trace_ring_get(r, 0, &got));
    assert_string_equal(trace_ring_diag_msg(r, rec), "a message");
    assert_string_equal(trace_ring_diag_rule(r, rec), "rule-1");
    assert_int_equal(rec->x, 0x1234);
    struct dla_event dma = {.kind = DLA_EV_DMA, .cycle = 9};
    dma.u.dma.addr = 0x80000000ull;
    dma.u.dma.bytes = 4096;
    dma.u.dma.start = 10;
    dma.u.dma.end = 20;
    trace_ring_record(r, &dma);
    assert_true(trace_ring_get(r, 1, &got));
    assert_true(rec->p == 0x80000000ull && rec->q == 4096 && rec->r == 10 && rec->s == 20);
    trace_ring_destroy(r);
}

/* The ring leaves no holes in the heap as it fills chunks: its records were
 * encoded into room for a whole chunk's worst case (32 KiB) which a full
 * chunk then gave back (realloc), 24 KiB or so left free between it and
 * the next chunk at every chunk; the model's held writes landed there and,
 * growing by realloc, had to move: 4 times as often as without the ring on
 * make bench's BDMA trace (share/performance-history.md).
 * The free bytes inside glibc's heap grow by less than a chunk's room over
 * 40 chunks of records.  (ASan's allocator is not glibc's: skipped there.) */
static void test_ring_leaves_no_holes(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip();
#else
    struct trace_ring *r = trace_ring_create(0);
    struct dla_event w = {.kind = DLA_EV_REG_WRITE, .layer = 3};
    trace_ring_record(r, &w); /* the first chunk and what stays with the ring */
    size_t free_before = mallinfo2().fordblks;
    for (uint32_t i = 0; i < 40 * 512; i++) {
        w.cycle = 7ull * i;
        w.u.reg.addr = 0x5000 + 4 * (i % 60);
        w.u.reg.value = i;
        trace_ring_record(r, &w);
    }
    size_t free_after = mallinfo2().fordblks;
    assert_true(free_after < free_before + 32768);
    trace_ring_destroy(r);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_ring_grows_with_its_records),
        cmocka_unit_test(test_ring_keeps_records_encoded),
        cmocka_unit_test(test_ring_next_of_kinds),
        cmocka_unit_test(test_ring_costs_what_it_records),
        cmocka_unit_test(test_ring_leaves_no_holes),
        cmocka_unit_test(test_errors_name_command_and_line),
        cmocka_unit_test(test_empty_line_repeats_steps),
        cmocka_unit_test(test_completion),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_expressions),
        cmocka_unit_test(test_reg_show_and_poke),
        cmocka_unit_test(test_examine_memory),
        cmocka_unit_test(test_where_and_info),
        cmocka_unit_test(test_named_tensor),
        cmocka_unit_test(test_hostile_arguments),
        cmocka_unit_test(test_long_and_many_words),
        cmocka_unit_test(test_poll_interrupts),
        cmocka_unit_test(test_opens_counted),
        cmocka_unit_test(test_failed_open_keeps_session),
    };
    return cmocka_run_group_tests(tests, setup, fixture_group_teardown);
}
