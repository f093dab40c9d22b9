/* Decoder plugins: the shipped decoders load, read by a probe child and
 * mapped into the process only at their first use; broken ones (wrong ABI version,
 * no decoder symbol, an unusable descriptor, not a shared object, a second
 * decoder of the same name, a command set of another version or a command
 * that takes a built-in name, a constructor that exits) are refused with a message naming the file and
 * the reason, and never called.  Plugin commands (aie, sophon) join help,
 * completion and dispatch, and read the run through struct dladbg_run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <sys/wait.h>

#include "dbg_fixture.h"
#include "plugin/plugin_child.h"
#include "plugin/plugin_host.h"
#include "plugin/plugin_run.h"
#include "util/textfile.h"

static void test_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/tests/plugins/%s.so", fixture_build(), name);
}

/* "plugins load" of the test plugin called name in session d; path gets its
 * file (for messages that name it) and the command's result is returned. */
static enum cmd_status load_test_plugin(struct dbg *d, const char *name, char *path, size_t len)
{
    char cmd[700];
    test_path(path, len, name);
    snprintf(cmd, sizeof cmd, "plugins load %s", path);
    return fixture_exec(d, cmd);
}

/* A session on a trace of n BDMA layers written as name; path gets its
 * folder. */
static struct dbg *open_bdma_trace(const char *name, int n, char *path, size_t len)
{
    fixture_bdma_trace(name, n);
    fixture_path(path, len, name);
    struct dbg *d = fixture_open(path);
    assert_non_null(d);
    return d;
}

static void test_shipped_decoders(void **state)
{
    (void)state;
    struct plugin_host *ph = plugin_host_create();
    char dir[512];
    snprintf(dir, sizeof dir, "%s/plugins", fixture_build());
    assert_int_equal(plugin_host_scan(ph, dir, NULL, NULL), 8);
    const char *names[] = {"layers", "regs", "dma", "lut", "perf", "cbuf", "aie", "sophon"};
    for (size_t i = 0; i < 8; i++) {
        const struct plugin_info *p = plugin_host_find(ph, names[i]);
        assert_non_null(p);
        assert_int_equal(p->facts->abi_version, DLADBG_DECODER_ABI_VERSION);
        assert_true(p->facts->n_columns >= 1);
        /* the six decoders of version 1 add no commands and load as before */
        assert_int_equal(p->facts->n_commands != 0, i >= 6);
        /* read by the probe, not mapped here */
        assert_null(p->handle);
        assert_null(p->dec);
        /* the path it was loaded from, in a copy of its own length: a 4 KiB
         * array in each entry made the table 66 KiB in every run */
        assert_non_null(strstr(p->path, names[i]));
    }
    assert_true(sizeof(struct plugin_info) <= 64);
    uint32_t k = 99;
    const struct plugin_info *aie = plugin_host_command(ph, "aie", &k);
    assert_ptr_equal(aie, plugin_host_find(ph, "aie"));
    assert_int_equal(k, 0);
    assert_true(aie->facts->commands[0].completes);
    assert_non_null(strstr(aie->facts->commands[0].usage, "aie tiling"));
    assert_non_null(plugin_host_command(ph, "sophon", NULL));
    assert_null(plugin_host_command(ph, "layers", NULL));
    /* "layers" has the columns the issue asks for */
    const struct plugin_facts *l = plugin_host_find(ph, "layers")->facts;
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
    snprintf(want, sizeof want, "command set ABI version %d, but this dladbg speaks version %d",
             DLADBG_COMMANDS_ABI_VERSION + 41, DLADBG_COMMANDS_ABI_VERSION);
    test_path(path, sizeof path, "bad_commands");
    expect_refused(path, want);
    /* a constructor that ends the process at dlopen: tried in a child first */
    test_path(path, sizeof path, "exit_at_load");
    expect_refused(path, "loading it ends the process (a constructor exited with status 42)");
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
    /* a bare host knows no built-in commands: only "clashing", "crash"
     * (which crashes only when called), "old_layout" and "quotes" are usable;
     * "exit_at_load" would end this process at dlopen, but is tried in a
     * child first and refused */
    assert_int_equal(plugin_host_scan(ph, dir, record_refusal, &refusals), 4);
    assert_non_null(plugin_host_find(ph, "clashing"));
    assert_non_null(plugin_host_find(ph, "crash"));
    assert_int_equal(refusals, 5);
    assert_int_equal(plugin_host_scan(ph, "/nonexistent/folder", record_refusal, &refusals), 0);
    plugin_host_destroy(ph);
}

static void test_commands(void **state)
{
    (void)state;
    char path[600];
    struct dbg *d = open_bdma_trace("t1", 1, path, sizeof path);
    assert_int_equal(fixture_exec(d, "plugins"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "layers"));
    assert_non_null(strstr(fixture_out.text, "columns: index,unit,op,group"));
    assert_int_equal(load_test_plugin(d, "broken_abi", path, sizeof path), CMD_ERROR);
    assert_non_null(strstr(fixture_out.text, "decoder ABI version"));
    assert_int_equal(fixture_exec(d, "export csv x.csv --decoder broken"), CMD_ERROR);
    assert_non_null(strstr(fixture_out.text, "no decoder named \"broken\""));
    dbg_destroy(d);
}

struct cands {
    char all[4096];
};

static void add_cand(void *ctx, const char *c)
{
    struct cands *k = ctx;
    size_t n = strlen(k->all);
    snprintf(k->all + n, sizeof k->all - n, "[%s]", c);
}

static struct cands complete(struct dbg *d, const char *line)
{
    struct cands k = {{0}};
    size_t start;
    dbg_complete(d, line, strlen(line), &start, add_cand, &k);
    return k;
}

static void expect_text(const char *want)
{
    if (!strstr(fixture_out.text, want))
        fail_msg("output does not hold \"%s\":\n%s", want, fixture_out.text);
}

/* aie and sophon add commands: help lists and describes them, Tab completes
 * them and their words, their output reaches the command's sink (the TUI's
 * console pane is one), and a failure names what is wrong. */
static void test_plugin_commands(void **state)
{
    (void)state;
    struct dbg *d = fixture_dbg();
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "help"), CMD_OK);
    expect_text("aie tiling BUFFER_DIM TILING_DIM OFFSET");
    expect_text("Sophon BM1684x local-memory layouts");
    assert_int_equal(fixture_exec(d, "help aie"), CMD_OK);
    expect_text("usage: aie tiling");
    expect_text("16-bit data move in pairs");
    assert_int_equal(fixture_exec(d, "plugins"), CMD_OK);
    expect_text("commands: aie");
    assert_string_equal(complete(d, "ai").all, "[aie]");
    assert_string_equal(complete(d, "sop").all, "[sophon]");
    assert_string_equal(complete(d, "aie ").all, "[tiling][streams]");
    assert_string_equal(complete(d, "aie t").all, "[tiling]");
    assert_string_equal(complete(d, "aie tiling {8} {4} {0} type int1").all, "[int16]");
    assert_string_equal(complete(d, "sophon layout 2,3,4,5 dt").all, "[dtype]");
    assert_string_equal(complete(d, "sophon layout 2,3,4,5 dtype b").all, "[bf16]");
    /* unique prefixes work as for built-in commands */
    assert_int_equal(fixture_exec(d, "ai tiling {8} {4} {0} {0,4,2}"), CMD_OK);
    expect_text("tile 0 at (0): 0 1 2 3");
    expect_text("tile 1 at (4): 4 5 6 7");
    assert_int_equal(fixture_exec(d, "aie tiling {8} {3} {0} type int16"), CMD_ERROR);
    expect_text("aie: tiling_dimension[0] = 3 is not a multiple of 2");
    assert_int_equal(fixture_exec(d, "aie streams"), CMD_OK);
    expect_text("No hardware layer");
    assert_int_equal(fixture_exec(d, "sophon layout 2,3,4,5 dtype fp16 npus 4 npu 2"), CMD_OK);
    expect_text("strides (elements): N 64, C 32, H 5, W 1; 2 channels per NPU");
    assert_int_equal(fixture_exec(d, "sophon layout 2,3"), CMD_ERROR);
    expect_text("usage: sophon layout");
    dbg_destroy(d);
}

/* The command table has a fixed number of rows for plugin commands: a
 * plugin that would overflow them is refused by name, not loaded with its
 * commands silently missing. */
static void test_command_rows_limit(void **state)
{
    (void)state;
    struct plugin_host *ph = plugin_host_create();
    plugin_host_limit_commands(ph, 1);
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/plugins/aie.so", fixture_build());
    assert_true(plugin_host_load(ph, path, err, sizeof err));
    snprintf(path, sizeof path, "%s/plugins/sophon.so", fixture_build());
    assert_false(plugin_host_load(ph, path, err, sizeof err));
    assert_non_null(strstr(err, "sophon.so: refused: 1 more command would pass the 1 plugin "
                                "commands dladbg holds"));
    assert_null(plugin_host_find(ph, "sophon"));
    plugin_host_destroy(ph);
}

/* A plugin command may not take a built-in command's name. */
static void test_command_clash(void **state)
{
    (void)state;
    struct dbg *d = fixture_dbg();
    assert_non_null(d);
    char path[600];
    assert_int_equal(load_test_plugin(d, "clashing_command", path, sizeof path), CMD_ERROR);
    expect_text("command \"break\" is already taken");
    assert_int_equal(fixture_exec(d, "help break"), CMD_OK);
    expect_text("usage: break");
    dbg_destroy(d);
}

/* A plugin command's exec and complete run in a child process: a crash in
 * either is a failed command (or no candidates) naming the plugin and the
 * callback, what the command printed before still shows, and the session
 * goes on. */
static void test_command_crash_is_survived(void **state)
{
    (void)state;
    struct dbg *d = fixture_dbg();
    assert_non_null(d);
    char path[600];
    assert_int_equal(load_test_plugin(d, "crash", path, sizeof path), CMD_OK);
    assert_int_equal(fixture_exec(d, "crashnow"), CMD_ERROR);
    expect_text("crashnow: about to crash");
    char want[800];
    snprintf(want, sizeof want, "plugin crash (%s) crashed in its exec() callback", path);
    expect_text(want);
    unsetenv("DLADBG_TEST_CRASH");
    assert_string_equal(complete(d, "crashnow ").all, "[fine]");
    setenv("DLADBG_TEST_CRASH", "complete", 1);
    fixture_clear();
    assert_string_equal(complete(d, "crashnow ").all, "");
    snprintf(want, sizeof want, "plugin crash (%s) crashed in its complete() callback", path);
    expect_text(want);
    unsetenv("DLADBG_TEST_CRASH");
    assert_int_equal(fixture_exec(d, "print 6*7"), CMD_OK);
    expect_text("= 42");
    dbg_destroy(d);
}

/* No child of this process is left, running or unreaped. */
static void assert_no_child_left(void)
{
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static void give_answer(void *ctx, void *out)
{
    (void)ctx;
    plugin_child_say(7, "working");
    *(int *)out = 42;
}

/* What the parent heard, in order. */
static void note_heard(void *ctx, int kind, const char *text)
{
    char *heard = ctx;
    size_t n = strlen(heard);
    snprintf(heard + n, 64 - n, "%d:%s;", kind, text);
}

static void die_working(void *ctx, void *out)
{
    (void)ctx;
    (void)out;
    abort();
}

/* plugin_child_run_overlapped hands back the work's result as soon as the
 * child says it is done and leaves the child's exit to the caller, who
 * reaps it afterwards (export csv's fsyncs run meanwhile): the child is
 * there to be waited for, and ended well.  What the child says while it
 * works reaches the parent meanwhile (export csv's rows written so far,
 * whose writes to the disk the parent starts).  A child that dies working
 * is reaped already and named. */
static void test_child_left_exiting(void **state)
{
    (void)state;
    int answer = 0;
    pid_t exiting = 0;
    char err[256] = "", heard[64] = "";
    assert_true(plugin_child_run_overlapped(give_answer, NULL, &answer, sizeof answer, note_heard,
                                            heard, &exiting, err, sizeof err));
    assert_int_equal(answer, 42);
    assert_string_equal(heard, "7:working;");
    assert_true(exiting > 0);
    int status;
    assert_int_equal(waitpid(exiting, &status, 0), exiting);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_no_child_left();

    assert_true(plugin_child_run_overlapped(give_answer, NULL, &answer, sizeof answer, NULL, NULL,
                                            &exiting, err, sizeof err));
    plugin_child_reap(exiting);
    assert_no_child_left();

    assert_false(plugin_child_run_overlapped(die_working, NULL, &answer, sizeof answer, NULL, NULL,
                                             &exiting, err, sizeof err));
    assert_int_equal(exiting, 0);
    assert_non_null(strstr(err, "SIGABRT"));
    assert_no_child_left();
}

/* An export csv leaves no child behind, whether it wrote its file, its
 * decoder failed it (host->error) or crashed. */
static void test_export_reaps_its_child(void **state)
{
    (void)state;
    char path[600], so[600], csv[512], cmd[1300];
    struct dbg *d = open_bdma_trace("tr", 2, path, sizeof path);
    assert_int_equal(load_test_plugin(d, "crash", so, sizeof so), CMD_OK);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    fixture_path(csv, sizeof csv, "reaped.csv");
    snprintf(cmd, sizeof cmd, "export csv %s --decoder layers", csv);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    assert_no_child_left();
    snprintf(cmd, sizeof cmd, "export csv %s --decoder crash", csv);
    setenv("DLADBG_TEST_CRASH", "error", 1);
    assert_int_equal(fixture_exec(d, cmd), CMD_ERROR);
    expect_text("decoder crash: told to fail");
    assert_no_child_left();
    unsetenv("DLADBG_TEST_CRASH");
    assert_int_equal(fixture_exec(d, cmd), CMD_ERROR);
    expect_text("crashed in its event() callback");
    assert_no_child_left();
    dbg_destroy(d);
}

/* struct dladbg_run: a layer's registers are the ones it started with, not
 * what later layers wrote; the streams the aie plugin derives from them are
 * the addresses the model's DMA accessed. */
static void test_run_access(void **state)
{
    (void)state;
    char path[600];
    struct dbg *d = open_bdma_trace("t4", 4, path, sizeof path);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    struct plugin_run pr;
    plugin_run_init(&pr, d->session, d->ring);
    const struct dladbg_run *run = &pr.run;
    assert_int_equal(run->layer_count(run), 4);
    assert_string_equal(run->config, "nv_full");
    assert_int_equal(run->atom_bytes, 32);
    for (uint32_t l = 0; l < 4; l++) {
        uint32_t v = 0;
        assert_int_equal(run->layer_reg(run, l, "BDMA", "CFG_DST_ADDR_LOW", NULL, &v), 0);
        assert_int_equal(v, 0x80100000u + l * 0x1000u);
        assert_int_equal(run->layer_reg(run, l, "BDMA", "CFG_LINE_REPEAT", "NUMBER", &v), 0);
        assert_int_equal(v, 7);
    }
    uint32_t v;
    /* back to an earlier layer after a later one: the replay starts over */
    assert_int_equal(run->layer_reg(run, 1, "BDMA", "CFG_DST_ADDR_LOW", NULL, &v), 0);
    assert_int_equal(v, 0x80101000u);
    assert_int_equal(run->layer_reg(run, 9, "BDMA", "CFG_LINE", NULL, &v), -1);
    assert_int_equal(run->layer_reg(run, 0, "BDMA", "NO_SUCH_REG", NULL, &v), -1);
    assert_int_equal(run->layer_reg(run, 0, "BDMA", "CFG_LINE", "NO_FIELD", &v), -1);
    uint8_t byte;
    assert_int_equal(run->read_mem(run, "dram", 0x80100000, &byte, 1), 0);
    assert_int_equal(byte, 5); /* source.dat's first byte, copied by layer 0 */
    assert_int_equal(run->read_mem(run, "flash", 0, &byte, 1), -1);
    struct dladbg_layer info;
    assert_int_equal(run->layer(run, 3, &info), 0);
    assert_string_equal(info.unit, "BDMA");
    assert_int_equal(run->layer(run, 4, &info), -1);
    assert_int_equal(fixture_exec(d, "aie streams"), CMD_OK);
    expect_text("8 streams: 8 match the model's transfers, 0 do not");
    assert_int_equal(fixture_exec(d, "aie streams 2"), CMD_OK);
    expect_text("layer 2 (BDMA) bdma.wr write, destination 1 operation, 256 bytes:");
    expect_text("2 streams: 2 match");
    assert_string_equal(complete(d, "aie streams ").all, "[0][1][2][3]");
    assert_int_equal(fixture_exec(d, "aie streams 4"), CMD_ERROR);
    expect_text("no layer \"4\" (the run has 4)");
    plugin_run_release(&pr);
    dbg_destroy(d);
    /* a ring too short to reach back to layer 0's start: that is said, not guessed */
    struct dbg_options opt = {.batch = true, .no_builtin_plugins = true, .trace_ring_events = 24};
    d = dbg_create(&opt, &fixture_sink);
    char err[256];
    assert_true(dbg_open(d, path, err, sizeof err));
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_true(trace_ring_dropped(d->ring) > 0);
    plugin_run_init(&pr, d->session, d->ring);
    assert_int_equal(run->layer_reg(run, 0, "BDMA", "CFG_DST_ADDR_LOW", NULL, &v), -1);
    assert_int_equal(run->layer_reg(run, 3, "BDMA", "CFG_DST_ADDR_LOW", NULL, &v), 0);
    assert_int_equal(v, 0x80103000u);
    plugin_run_release(&pr);
    dbg_destroy(d);
}

static bool record_event(void *ctx, const struct dladbg_event *ev)
{
    if (ev->kind == DLADBG_EV_LAYER_RECORD && ev->layer == 0)
        *(struct dladbg_event *)ctx = *ev;
    return true;
}

/* A layer's bytes by memory (ABI 1.3) reach plugins without breaking one
 * built before: layer() writes the record as 1.2 had it and not a byte
 * past it, layer_sized() the whole record, bytes_cvsram too, and zeros
 * where a later header's record is longer; layer events hold it and say so
 * by their struct_size.  traces/bdma_copy: layer 0 copies 2048 bytes DRAM
 * -> CV-SRAM, layer 1 1024 bytes CV-SRAM -> DRAM. */
static void test_layer_record_sizes(void **state)
{
    (void)state;
    struct dbg *d = fixture_open("traces/bdma_copy");
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    struct plugin_run pr;
    plugin_run_init(&pr, d->session, d->ring);
    const struct dladbg_run *run = &pr.run;
    assert_true(run->struct_size >= DLADBG_RUN_HAS_LAYER_SIZED);
    const size_t old = offsetof(struct dladbg_layer, bytes_cvsram);
    union {
        struct dladbg_layer layer;
        unsigned char bytes[sizeof(struct dladbg_layer) + 16];
    } buf;
    memset(&buf, 0xa5, sizeof buf);
    assert_int_equal(run->layer(run, 1, &buf.layer), 0);
    assert_int_equal(buf.layer.bytes_read, 1024);
    for (size_t i = old; i < sizeof buf.bytes; i++)
        assert_int_equal(buf.bytes[i], 0xa5);

    struct dladbg_layer whole;
    assert_int_equal(run->layer_sized(run, 0, &whole, sizeof whole), 0);
    assert_int_equal(whole.bytes_read + whole.bytes_written, 4096);
    assert_int_equal(whole.bytes_cvsram, 2048);
    assert_int_equal(run->layer_sized(run, 2, &whole, sizeof whole), -1);
    memset(&buf, 0xa5, sizeof buf);
    assert_int_equal(run->layer_sized(run, 1, &buf.layer, sizeof buf.bytes), 0);
    assert_int_equal(buf.layer.bytes_cvsram, 1024);
    for (size_t i = sizeof(struct dladbg_layer); i < sizeof buf.bytes; i++)
        assert_int_equal(buf.bytes[i], 0);

    struct dladbg_event ev = {0};
    plugin_events_each(session_dla(d->session), d->ring, true,
                       DLADBG_EV_BIT(DLADBG_EV_LAYER_RECORD), record_event, &ev);
    assert_int_equal(ev.kind, DLADBG_EV_LAYER_RECORD);
    assert_true(ev.struct_size >= DLADBG_EVENT_HAS_CVSRAM);
    assert_int_equal(ev.u.layer.bytes_cvsram, 2048);
    plugin_run_release(&pr);
    dbg_destroy(d);
}

/* Whether this process has the file path mapped (/proc/self/maps names
 * every mapped file by its absolute path). */
static bool mapped_now(const char *path)
{
    char real[PATH_MAX];
    assert_non_null(realpath(path, real));
    FILE *fp = fopen("/proc/self/maps", "r");
    assert_non_null(fp);
    char line[PATH_MAX + 128];
    bool found = false;
    while (!found && fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = 0;
        const char *slash = strchr(line, '/');
        found = slash && !strcmp(slash, real);
    }
    fclose(fp);
    return found;
}

/* A file's bytes (freed by the caller). */
static char *whole_file(const char *path, size_t *len)
{
    uint8_t *buf = NULL;
    char err[256];
    if (!file_read_all(path, 64u << 20, &buf, len, err, sizeof err))
        fail_msg("%s", err);
    return (char *)buf;
}

static void shipped_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/plugins/%s.so", fixture_build(), name);
}

/* export csv quotes every cell as RFC 4180 says, byte for byte: a quote
 * doubled (also past the row buffer's end, in a cell longer than it),
 * commas kept inside, missing cells empty, CRLF line ends; a cell longer
 * than the buffer without a quote is whole too. */
static void test_csv_quoting(void **state)
{
    (void)state;
    char path[600], so[600], cmd[1300];
    struct dbg *d = open_bdma_trace("tq", 2, path, sizeof path);
    assert_int_equal(load_test_plugin(d, "quotes", so, sizeof so), CMD_OK);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    char csv[512];
    fixture_path(csv, sizeof csv, "quotes.csv");
    snprintf(cmd, sizeof cmd, "export csv %s --decoder quotes", csv);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    enum { LONG_CELL = 40000 }; /* plugins/test_quotes.c's */
    static char want[2 * 3 * LONG_CELL], xs[LONG_CELL - 1], ys[LONG_CELL + 1];
    memset(xs, 'x', LONG_CELL - 2);
    memset(ys, 'y', LONG_CELL);
    int n = snprintf(want, sizeof want, "\"plain\",\"say \"\"hi\"\"\",\"long, quoted\"\r\n");
    for (int layer = 0; layer < 2; layer++)
        n += snprintf(want + n, sizeof want - (size_t)n,
                      "\"a\"\"b\"\"\"\"c\",\"\",\"%s\"\",\"\r\n"
                      "\"\",\"\"\"\",\"no quote, a comma\"\r\n"
                      "\"z\",\"%s\",\"after\"\r\n",
                      xs, ys);
    size_t len;
    char *got = whole_file(csv, &len);
    assert_int_equal(len, (size_t)n);
    assert_memory_equal(got, want, len);
    free(got);
    dbg_destroy(d);
}

/* A session that uses no plugin maps none (0.2 MiB of the eight shipped
 * ones' pages in every run, issue 34); listing them, help and completing
 * their command names map none either; an export through a decoder, or a
 * plugin command run or completed, maps that plugin only, and its output is
 * the same as once it is mapped. */
static void test_mapped_at_first_use(void **state)
{
    (void)state;
    char path[600];
    struct dbg *d = open_bdma_trace("t2", 2, path, sizeof path);
    const char *names[] = {"layers", "regs", "dma", "lut", "perf", "cbuf", "aie", "sophon"};
    char so[600];
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_int_equal(fixture_exec(d, "plugins"), CMD_OK);
    assert_int_equal(fixture_exec(d, "help aie"), CMD_OK);
    assert_string_equal(complete(d, "sop").all, "[sophon]");
    assert_string_equal(complete(d, "export csv x.csv --decoder la").all, "[layers]");
    for (size_t i = 0; i < 8; i++) {
        shipped_path(so, sizeof so, names[i]);
        if (mapped_now(so))
            fail_msg("%s is mapped before any use", so);
        assert_null(plugin_host_find(d->plugins, names[i])->handle);
    }
    shipped_path(so, sizeof so, "layers");
    char want[800];
    snprintf(want, sizeof want, "from %s (ABI 1, not mapped until first used)", so);
    fixture_clear();
    assert_int_equal(fixture_exec(d, "plugins"), CMD_OK);
    expect_text(want);

    char first[512], second[512];
    fixture_path(first, sizeof first, "first.csv");
    fixture_path(second, sizeof second, "second.csv");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "export csv %s --decoder layers", first);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    assert_true(mapped_now(so));
    assert_non_null(plugin_host_find(d->plugins, "layers")->dec);
    snprintf(cmd, sizeof cmd, "export csv %s --decoder layers", second);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    size_t n1, n2;
    char *a = whole_file(first, &n1), *b = whole_file(second, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    assert_non_null(strstr(a, "stall_cycles")); /* the header, from the mapped decoder */
    free(a);
    free(b);
    snprintf(want, sizeof want, "from %s (ABI 1, mapped)", so);
    fixture_clear();
    assert_int_equal(fixture_exec(d, "plugins"), CMD_OK);
    expect_text(want);
    shipped_path(so, sizeof so, "dma");
    assert_false(mapped_now(so));

    /* a command run maps its plugin; completing a command's words too */
    shipped_path(so, sizeof so, "aie");
    assert_int_equal(fixture_exec(d, "aie tiling {8} {4} {0} {0,4,2}"), CMD_OK);
    expect_text("tile 1 at (4): 4 5 6 7");
    assert_true(mapped_now(so));
    shipped_path(so, sizeof so, "sophon");
    assert_false(mapped_now(so));
    assert_string_equal(complete(d, "sophon layout 2,3,4,5 dt").all, "[dtype]");
    assert_true(mapped_now(so));
    dbg_destroy(d);
}

/* What runs is what was probed: a plugin file changed after its probe is
 * not mapped in its place, and the use says why. */
static void test_changed_file_not_mapped(void **state)
{
    (void)state;
    char src[600], copy[600];
    shipped_path(src, sizeof src, "layers");
    fixture_path(copy, sizeof copy, "mine.so");
    size_t len;
    char *bytes = whole_file(src, &len);
    assert_true(fixture_write_bytes("mine.so", bytes, len));
    struct plugin_host *ph = plugin_host_create();
    char err[1024];
    assert_true(plugin_host_load(ph, copy, err, sizeof err));
    const struct plugin_info *pi = plugin_host_find(ph, "layers");
    assert_non_null(pi);
    FILE *fp = fopen(copy, "ab"); /* rebuilt, say: a byte more */
    assert_non_null(fp);
    fputc(0, fp);
    fclose(fp);
    assert_false(plugin_host_map(ph, pi, err, sizeof err));
    char want[800];
    snprintf(want, sizeof want, "%s: changed since dladbg read it at start", copy);
    if (!strstr(err, want))
        fail_msg("\"%s\" does not say \"%s\"", err, want);
    assert_null(pi->handle);
    assert_false(mapped_now(copy));
    plugin_host_destroy(ph);
    free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_decoders),
        cmocka_unit_test(test_broken_plugins_refused),
        cmocka_unit_test(test_scan_reports_refusals),
        cmocka_unit_test(test_commands),
        cmocka_unit_test(test_plugin_commands),
        cmocka_unit_test(test_command_clash),
        cmocka_unit_test(test_command_crash_is_survived),
        cmocka_unit_test(test_child_left_exiting),
        cmocka_unit_test(test_export_reaps_its_child),
        cmocka_unit_test(test_command_rows_limit),
        cmocka_unit_test(test_run_access),
        cmocka_unit_test(test_layer_record_sizes),
        cmocka_unit_test(test_mapped_at_first_use),
        cmocka_unit_test(test_csv_quoting),
        cmocka_unit_test(test_changed_file_not_mapped),
    };
    return cmocka_run_group_tests(tests, fixture_group_setup, fixture_group_teardown);
}
