/* Exports: CSV read back with libcsv (header = the decoder's columns, one row
 * per layer / register write, RFC 4180 quoting of fields with commas and
 * quotes), Chrome JSON checked by a small JSON parser, VCD checked for
 * declarations and time order, and an exported input.txn folder replayed by
 * dladbg to the same outputs; plus the event ring's bounds. */
#include <csv.h>
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dbg_fixture.h"
#include "debug/proglog.h"
#include "plugin/plugin_host.h"
#include "plugin/plugin_run.h"
#include "debug/trace_ring.h"

#define OPS           3
#define WRITES_PER_OP 13

static int setup(void **state)
{
    (void)state;
    return fixture_bdma_setup("t3", OPS);
}

static struct dbg *run_t3(void)
{
    struct dbg *d = fixture_open_trace("t3");
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_true(session_finished(d->session));
    return d;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    buf[n] = 0;
    fclose(fp);
    if (len)
        *len = (size_t)n;
    return buf;
}

/* ---------------------------------------------------------------- CSV */

#define MAX_ROWS 256
#define MAX_COLS 16

struct table {
    size_t rows, col;
    char *cell[MAX_ROWS][MAX_COLS];
    size_t cols[MAX_ROWS];
};

static void on_field(void *s, size_t len, void *data)
{
    struct table *t = data;
    if (t->rows < MAX_ROWS && t->col < MAX_COLS) {
        t->cell[t->rows][t->col] = strndup(s ? s : "", len);
    }
    t->col++;
}

static void on_row(int c, void *data)
{
    (void)c;
    struct table *t = data;
    if (t->rows < MAX_ROWS)
        t->cols[t->rows] = t->col;
    t->rows++;
    t->col = 0;
}

static struct table *read_csv(const char *path)
{
    size_t len;
    char *text = slurp(path, &len);
    struct table *t = calloc(1, sizeof *t);
    struct csv_parser p;
    assert_int_equal(csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL), 0);
    assert_int_equal(csv_parse(&p, text, len, on_field, on_row, t), len);
    assert_int_equal(csv_fini(&p, on_field, on_row, t), 0);
    csv_free(&p);
    free(text);
    return t;
}

static void free_table(struct table *t)
{
    for (size_t r = 0; r < t->rows && r < MAX_ROWS; r++)
        for (size_t c = 0; c < t->cols[r] && c < MAX_COLS; c++)
            free(t->cell[r][c]);
    free(t);
}

static void test_csv_layers(void **state)
{
    (void)state;
    struct dbg *d = run_t3();
    char path[512], cmd[700];
    fixture_path(path, sizeof path, "layers.csv");
    snprintf(cmd, sizeof cmd, "export csv %s --decoder layers", path);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    struct table *t = read_csv(path);
    assert_int_equal(t->rows, 1 + OPS);
    assert_string_equal(t->cell[0][0], "index");
    assert_string_equal(t->cell[0][10], "stall_cycles");
    struct dla *dla = session_dla(d->session);
    for (int i = 0; i < OPS; i++) {
        char **row = t->cell[1 + i];
        const struct dla_layer *l = dla_layer_get(dla, (size_t)i);
        char want[32];
        assert_int_equal(t->cols[1 + i], 16);
        snprintf(want, sizeof want, "%d", i);
        assert_string_equal(row[0], want);
        assert_string_equal(row[1], "BDMA");
        /* the op text has a comma: quoting kept it one field */
        assert_string_equal(row[2], l->desc);
        assert_non_null(strchr(row[2], ','));
        snprintf(want, sizeof want, "%d", i % 2); /* odd operations launch group 1 */
        assert_string_equal(row[3], want);
        snprintf(want, sizeof want, "%llu", (unsigned long long)(l->end_cycle - l->start_cycle));
        assert_string_equal(row[6], want);
        assert_string_equal(row[8], "256"); /* 8 lines of 32 bytes read ... */
        assert_string_equal(row[9], "256"); /* ... and written */
        /* "macs" holds MACs only (CONV); what BDMA counts is in work: bytes */
        assert_string_equal(row[7], "");
        assert_string_equal(row[12], "256");
        assert_string_equal(row[13], "bytes");
        /* a copy within DRAM: every byte read and written is DRAM's */
        assert_string_equal(row[14], "512");
        assert_string_equal(row[15], "0");
    }
    assert_string_equal(t->cell[0][12], "work");
    assert_string_equal(t->cell[0][13], "work_unit");
    assert_string_equal(t->cell[0][14], "bytes_dram");
    assert_string_equal(t->cell[0][15], "bytes_cvsram");
    free_table(t);
    dbg_destroy(d);
}

/* The k-th write_reg of the trace file, as the trace wrote it. */
static void trace_write(int k, uint32_t *addr, uint32_t *value)
{
    char path[512];
    fixture_path(path, sizeof path, "t3/input.txn");
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char line[256];
    int seen = 0;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "write_reg %x %x", addr, value) == 2 && seen++ == k)
            break;
    fclose(fp);
    *addr = (*addr & 0xffff) << 2;
}

static void test_csv_regs(void **state)
{
    (void)state;
    struct dbg *d = run_t3();
    char path[512], cmd[700];
    fixture_path(path, sizeof path, "regs.csv");
    snprintf(cmd, sizeof cmd, "export csv %s --decoder=regs", path);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    struct table *t = read_csv(path);
    assert_int_equal(t->rows, 1 + OPS * WRITES_PER_OP);
    for (int k = 0; k < OPS * WRITES_PER_OP; k++) {
        uint32_t addr, value;
        trace_write(k, &addr, &value);
        char want[32];
        snprintf(want, sizeof want, "0x%05x", addr);
        assert_string_equal(t->cell[1 + k][6], want);
        snprintf(want, sizeof want, "0x%08x", value);
        assert_string_equal(t->cell[1 + k][7], want);
    }
    /* the second write of each operation: its destination, field decoded */
    assert_string_equal(t->cell[2][4], "CFG_DST_ADDR_LOW");
    assert_non_null(strchr(t->cell[2][9], '='));
    free_table(t);
    /* the other decoders write parseable files too */
    const char *decoders[] = {"dma", "perf", "lut", "cbuf"};
    for (size_t i = 0; i < 4; i++) {
        fixture_path(path, sizeof path, "other.csv");
        snprintf(cmd, sizeof cmd, "export csv %s --decoder %s", path, decoders[i]);
        assert_int_equal(fixture_exec(d, cmd), CMD_OK);
        t = read_csv(path);
        assert_true(t->rows >= 1);
        for (size_t r = 1; r < t->rows && r < MAX_ROWS; r++)
            assert_int_equal(t->cols[r], t->cols[0]);
        free_table(t);
    }
    /* a file that cannot be written is an error, and leaves nothing behind */
    assert_int_equal(fixture_exec(d, "export csv /nonexistent/dir/x.csv --decoder layers"),
                     CMD_ERROR);
    dbg_destroy(d);
}

/* ---------------------------------------------------------------- JSON */

struct json {
    const char *p;
    unsigned slices; /* objects with "ph":"X" */
};

static bool json_value(struct json *j);

static void json_ws(struct json *j)
{
    while (isspace((unsigned char)*j->p))
        j->p++;
}

static bool json_string(struct json *j)
{
    if (*j->p != '"')
        return false;
    for (j->p++; *j->p != '"'; j->p++) {
        if (!*j->p || (unsigned char)*j->p < 0x20)
            return false;
        if (*j->p == '\\') {
            j->p++;
            if (*j->p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)j->p[i]))
                        return false;
                j->p += 4;
            } else if (!strchr("\"\\/bfnrt", *j->p)) {
                return false;
            }
        }
    }
    j->p++;
    return true;
}

static bool json_number(struct json *j)
{
    char *end;
    strtod(j->p, &end);
    if (end == j->p)
        return false;
    j->p = end;
    return true;
}

static bool json_object(struct json *j)
{
    j->p++;
    json_ws(j);
    if (*j->p == '}') {
        j->p++;
        return true;
    }
    for (;;) {
        json_ws(j);
        const char *key = j->p;
        if (!json_string(j))
            return false;
        json_ws(j);
        if (*j->p++ != ':')
            return false;
        json_ws(j);
        if (!strncmp(key, "\"ph\"", 4) && !strncmp(j->p, "\"X\"", 3))
            j->slices++;
        if (!json_value(j))
            return false;
        json_ws(j);
        if (*j->p == '}') {
            j->p++;
            return true;
        }
        if (*j->p++ != ',')
            return false;
    }
}

static bool json_array(struct json *j)
{
    j->p++;
    json_ws(j);
    if (*j->p == ']') {
        j->p++;
        return true;
    }
    for (;;) {
        if (!json_value(j))
            return false;
        json_ws(j);
        if (*j->p == ']') {
            j->p++;
            return true;
        }
        if (*j->p++ != ',')
            return false;
    }
}

static bool json_value(struct json *j)
{
    json_ws(j);
    switch (*j->p) {
    case '{':
        return json_object(j);
    case '[':
        return json_array(j);
    case '"':
        return json_string(j);
    case 't':
        return !strncmp(j->p, "true", 4) ? (j->p += 4, true) : false;
    case 'f':
        return !strncmp(j->p, "false", 5) ? (j->p += 5, true) : false;
    case 'n':
        return !strncmp(j->p, "null", 4) ? (j->p += 4, true) : false;
    default:
        return json_number(j);
    }
}

static void test_chrome_json(void **state)
{
    (void)state;
    struct dbg *d = run_t3();
    char path[512], cmd[700];
    fixture_path(path, sizeof path, "trace.json");
    snprintf(cmd, sizeof cmd, "export chrome %s", path);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    char *text = slurp(path, NULL);
    struct json j = {.p = text};
    assert_true(json_value(&j));
    json_ws(&j);
    assert_int_equal(*j.p, 0); /* nothing after the document */
    assert_int_equal(j.slices, OPS);
    assert_non_null(strstr(text, "\"traceEvents\""));
    assert_non_null(strstr(text, "\"name\":\"dram bandwidth\",\"ph\":\"C\""));
    assert_non_null(strstr(text, "\"name\":\"BDMA_DONE_STATUS1\""));
    /* BDMA layers count bytes, not MACs */
    assert_non_null(strstr(text, "\"work\":256,\"work_unit\":\"bytes\""));
    assert_null(strstr(text, "\"macs\""));
    free(text);
    /* the checker itself rejects broken JSON */
    struct json bad = {.p = "{\"a\":[1,2,}"};
    assert_false(json_value(&bad));
    dbg_destroy(d);
}

/* ---------------------------------------------------------------- VCD */

static void test_vcd(void **state)
{
    (void)state;
    struct dbg *d = run_t3();
    char path[512], cmd[700];
    fixture_path(path, sizeof path, "trace.vcd");
    snprintf(cmd, sizeof cmd, "export vcd %s", path);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char line[256], ids[64] = "", bdma_id = 0;
    bool defs_done = false;
    long long last_time = -1;
    unsigned bdma_rises = 0, line_rises = 0;
    char line_id = 0;
    while (fgets(line, sizeof line, fp)) {
        char id, name[64];
        int width;
        if (sscanf(line, "$var wire %d %c %63s $end", &width, &id, name) == 3) {
            assert_false(defs_done);
            assert_null(strchr(ids, id)); /* identifiers are unique */
            size_t n = strlen(ids);
            ids[n] = id;
            ids[n + 1] = 0;
            if (!strcmp(name, "bdma_busy"))
                bdma_id = id;
            if (!strcmp(name, "intr_line"))
                line_id = id;
            continue;
        }
        if (strstr(line, "$enddefinitions")) {
            defs_done = true;
            continue;
        }
        if (!defs_done || line[0] == '$')
            continue;
        if (line[0] == '#') {
            long long t = atoll(line + 1);
            assert_true(t > last_time); /* strictly increasing */
            last_time = t;
        } else if (line[0] == '0' || line[0] == '1') {
            assert_non_null(strchr(ids, line[1]));
            if (line[0] == '1' && line[1] == bdma_id && last_time > 0)
                bdma_rises++;
            if (line[0] == '1' && line[1] == line_id)
                line_rises++;
        } else if (line[0] == 'b') {
            char bits[64], vid;
            assert_int_equal(sscanf(line, "b%63s %c", bits, &vid), 2);
            assert_int_equal(strspn(bits, "01"), strlen(bits));
            assert_non_null(strchr(ids, vid));
        }
    }
    fclose(fp);
    assert_true(defs_done);
    assert_int_not_equal(bdma_id, 0);
    /* three operations: busy rises three times (the first may start at 0) */
    assert_true(bdma_rises >= OPS - 1);
    assert_int_equal(line_rises, OPS); /* each interrupt raised, then cleared */
    dbg_destroy(d);
}

/* ---------------------------------------------------------------- txn replay */

static void compare_outputs(struct dbg *a, struct dbg *b)
{
    for (int i = 0; i < OPS; i++) {
        uint8_t x[256], y[256];
        uint64_t at = 0x80100000u + (uint64_t)i * 0x1000u;
        assert_int_equal(dla_mem_read(session_dla(a->session), DLA_DRAM, at, x, 256), MEM_OK);
        assert_int_equal(dla_mem_read(session_dla(b->session), DLA_DRAM, at, y, 256), MEM_OK);
        assert_memory_equal(x, y, 256);
        for (int k = 0; k < 256; k++) /* and both equal the source, as the trace copies it */
            assert_int_equal(x[k], (k * 13 + 5) & 0xff);
    }
}

static void test_txn_replay(void **state)
{
    (void)state;
    struct dbg *d = run_t3();
    char dir[512], cmd[700];
    fixture_path(dir, sizeof dir, "replay");
    snprintf(cmd, sizeof cmd, "export txn %s", dir);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    struct dbg *r = fixture_open(dir);
    assert_non_null(r);
    assert_int_equal(fixture_exec(r, "run"), CMD_OK);
    assert_true(session_finished(r->session));
    assert_int_equal(r->rep.checks_failed, 0);
    assert_int_equal(r->rep.dumps_failed, 0);
    assert_true(r->rep.dumps_matched >= 1);
    assert_int_equal(dla_layer_count(session_dla(r->session)), OPS);
    compare_outputs(d, r);
    dbg_destroy(r);
    /* exported from the middle of the run, after stepping back */
    assert_int_equal(fixture_exec(d, "back layer"), CMD_OK);
    fixture_path(dir, sizeof dir, "replay2");
    snprintf(cmd, sizeof cmd, "export txn %s", dir);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    r = fixture_open(dir);
    assert_int_equal(fixture_exec(r, "run"), CMD_OK);
    assert_int_equal(r->rep.dumps_failed, 0);
    assert_int_equal(dla_layer_count(session_dla(r->session)), OPS);
    dbg_destroy(r);
    dbg_destroy(d);
}

/* What each completed layer wrote is kept for export txn's checks without a
 * copy: the checks share the simulated memory's blocks, so a megabyte-sized
 * output costs nothing until the run overwrites it (issue 34: the copies
 * were a fifth of a small network's heap, 9 MB of sample:resnet50's peak);
 * a small output is copied, which costs less. */
static void test_checks_share_memory(void **state)
{
    (void)state;
    struct dbg *d = fixture_open("sample:resnet18");
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "break layer 20"), CMD_OK);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    uint64_t covered = 0, apart = proglog_check_bytes_apart(d->log, &covered);
    /* 112x112x64 fp16 outputs and more: megabytes covered (2.4 MB) */
    assert_true(covered > 2u << 20);
    /* besides the live memory: only blocks the run has overwritten since (a
     * buffer used again by a later layer), the partial blocks at the ends
     * of each output and the tables (7% here); copies would hold it all */
    assert_true(apart < covered / 4);
    dbg_destroy(d);

    /* small outputs are copied: sharing would copy a partial 4 KiB block
     * and make a page table for each, more than the bytes themselves */
    d = fixture_open("sample:lenet");
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    apart = proglog_check_bytes_apart(d->log, &covered);
    assert_true(covered > 0 && covered < 16384);
    assert_true(apart <= covered);
    dbg_destroy(d);
}

/* Two BDMA copies of 64 KiB to one place, each from its own source: the
 * second overwrites what export txn checks of the first. */
static void write_overwrite_trace(const char *name)
{
    char path[512], buf[256];
    fixture_path(path, sizeof path, name);
    mkdir(path, 0777);
    snprintf(buf, sizeof buf, "%s/source.dat", name);
    fixture_path(path, sizeof path, buf);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    for (unsigned i = 0; i < 2u << 16; i++) /* two sources, bytes in runs: they pack */
        fprintf(fp, "0x%02x%s", i < 1u << 16 ? (i / 64) & 0xff : (i / 32 * 7) & 0xff,
                i % 32 == 31 ? "\n" : " ");
    fclose(fp);
    snprintf(buf, sizeof buf, "%s/input.txn", name);
    fixture_path(path, sizeof path, buf);
    fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "load_mem 0x80000000 0x20000 source.dat\n");
    for (int i = 0; i < 2; i++)
        fprintf(fp,
                "write_reg 0xffff1000 0x%08x\n"
                "write_reg 0xffff1002 0x80200000\n"
                "write_reg 0xffff1004 0x1ff\n"  /* lines of 16 KiB */
                "write_reg 0xffff1005 0x3\n"
                "write_reg 0xffff1006 0x3\n"    /* 4 of them */
                "write_reg 0xffff1007 0x4000\n"
                "write_reg 0xffff1008 0x4000\n"
                "write_reg 0xffff1009 0x0\n"
                "write_reg 0xffff100a 0x10000\n"
                "write_reg 0xffff100b 0x10000\n"
                "write_reg 0xffff100c 0x1\n"
                "write_reg 0xffff%s 0x1\n"
                "wait\n"
                "write_reg 0xffff0003 0xffffffff\n",
                0x80000000u + (unsigned)i * 0x10000u, i % 2 ? "100e" : "100d");
    fclose(fp);
}

/* A checked output the run has overwritten is kept deflated, not as the
 * 4 KiB blocks the live memory no longer holds (issue 34: resnet18-cifar10
 * overwrote nearly all of its checked outputs, which then took more than
 * its working set); export txn still checks the very bytes, also after
 * stepping back and running again. */
static void test_checks_overwritten_packed(void **state)
{
    (void)state;
    write_overwrite_trace("over");
    struct dbg *d = fixture_open_trace("over");
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_true(session_finished(d->session));
    uint64_t covered = 0, apart = proglog_check_bytes_apart(d->log, &covered);
    assert_true(covered >= 2u << 16);
    /* the first output, overwritten: a few KiB packed, where its blocks
     * took 64 KiB; the second is still the live memory's */
    assert_true(apart < covered / 8);
    for (int round = 0; round < 2; round++) {
        char dir[512], cmd[700];
        fixture_path(dir, sizeof dir, round ? "over-again" : "over-out");
        snprintf(cmd, sizeof cmd, "export txn %s", dir);
        assert_int_equal(fixture_exec(d, cmd), CMD_OK);
        struct dbg *r = fixture_open(dir);
        assert_non_null(r);
        assert_int_equal(fixture_exec(r, "run"), CMD_OK);
        assert_int_equal(r->rep.dumps_failed, 0);
        assert_true(r->rep.dumps_matched >= 2);
        dbg_destroy(r);
        /* back over the second copy and on again: its check is kept anew */
        assert_int_equal(fixture_exec(d, "back layer"), CMD_OK);
        assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    }
    dbg_destroy(d);
}

/* A loadable's run exported: the KMD's reads are in the trace with the
 * writes (the consumer pointer before a group is chosen, GLB.S_INTR_MASK
 * before it is written, the interrupt handler's), and the replay checks
 * each of them. */
static void test_txn_kmd_reads(void **state)
{
    (void)state;
    struct dbg *d = fixture_open("sample:conv");
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    char dir[512], cmd[700], path[600];
    fixture_path(dir, sizeof dir, "kmd");
    snprintf(cmd, sizeof cmd, "export txn %s", dir);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    snprintf(path, sizeof path, "%s/input.txn", dir);
    char *text = slurp(path, NULL);
    char *first_write = strstr(text, "write_reg");
    /* CONSUMER (bit 16) says how far the hardware got: not checked */
    char *pointer = strstr(text, "read_reg 0xffff2401 0xfffeffff 0x00000000 #CACC.S_POINTER");
    assert_non_null(first_write);
    assert_non_null(pointer);
    assert_true(pointer < first_write); /* read before the group is chosen */
    /* the export's waits change the mask: the KMD's reads of it check nothing */
    char *mask_read = strstr(text, "read_reg 0xffff0001 0x00000000 0x00000000 #GLB.S_INTR_MASK");
    assert_non_null(mask_read);
    assert_non_null(strstr(mask_read, "\nwrite_reg 0xffff0001 "));
    assert_non_null(strstr(text, "#CDMA.S_CBUF_FLUSH_STATUS"));
    assert_non_null(strstr(text, "#GLB.S_INTR_STATUS"));
    size_t reads = 0;
    for (char *p = strstr(text, "\nread_reg "); p; p = strstr(p + 1, "\nread_reg "))
        reads++;
    free(text);
    struct dbg *r = fixture_open(dir);
    assert_non_null(r);
    assert_int_equal(fixture_exec(r, "run"), CMD_OK);
    assert_true(session_finished(r->session));
    assert_int_equal(r->rep.checks_failed, 0);
    assert_true(r->rep.checks_passed >= reads);
    assert_int_equal(r->rep.dumps_failed, 0);
    dbg_destroy(r);
    dbg_destroy(d);
}

/* ---------------------------------------------------------------- ring */

static void test_ring_bounds(void **state)
{
    (void)state;
    char path[512];
    fixture_path(path, sizeof path, "t3");
    struct dbg_options opt = {.trace_ring_events = 16, .no_builtin_plugins = true};
    struct dbg *d = dbg_create(&opt, &fixture_sink);
    char err[256];
    assert_true(dbg_open(d, path, err, sizeof err));
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    size_t n = trace_ring_count(d->ring);
    assert_int_equal(n, 16);
    uint64_t total = trace_ring_next_seq(d->ring);
    assert_true(total > 16);
    assert_int_equal(trace_ring_dropped(d->ring), total - 16);
    struct trace_rec rec;
    for (size_t i = 0; i < n; i++) { /* the newest events, in order */
        assert_true(trace_ring_get(d->ring, i, &rec));
        assert_int_equal(rec.seq, total - 16 + i);
    }
    /* every register write of the run was recorded: count them in a big ring */
    struct dbg_options big = {.no_builtin_plugins = true};
    struct dbg *e = dbg_create(&big, &fixture_sink);
    assert_true(dbg_open(e, path, err, sizeof err));
    assert_int_equal(fixture_exec(e, "run"), CMD_OK);
    size_t writes = 0, layers_done = 0;
    for (size_t i = 0; i < trace_ring_count(e->ring); i++) {
        assert_true(trace_ring_get(e->ring, i, &rec));
        writes += rec.kind == DLA_EV_REG_WRITE;
        layers_done += rec.kind == DLA_EV_LAYER_DONE;
    }
    assert_int_equal(writes, OPS * WRITES_PER_OP);
    assert_int_equal(layers_done, OPS);
    trace_ring_truncate(e->ring, 5);
    assert_int_equal(trace_ring_count(e->ring), 5);
    assert_int_equal(trace_ring_next_seq(e->ring), 5);
    dbg_destroy(e);
    dbg_destroy(d);
}

/* Events by ABI kind, as plugin_events_each passes them. */
struct kind_counts {
    size_t n[32];
};

static bool count_kind(void *ctx, const struct dladbg_event *ev)
{
    struct kind_counts *c = ctx;
    assert_true(ev->kind < 32);
    c->n[ev->kind]++;
    return true;
}

/* A decoder's event_kinds: only those kinds are built and passed, as many
 * of each as without the filter; a descriptor too old to hold the field
 * gets every kind whatever lies past its end. */
static void test_event_kinds(void **state)
{
    (void)state;
    struct dbg *d = run_t3();
    struct dla *dla = session_dla(d->session);
    struct kind_counts all = {0}, some = {0};
    assert_true(plugin_events_each(dla, d->ring, true, 0, count_kind, &all));
    uint32_t kinds = DLADBG_EV_BIT(DLADBG_EV_DMA) | DLADBG_EV_BIT(DLADBG_EV_LAYER_RECORD);
    assert_true(plugin_events_each(dla, d->ring, true, kinds, count_kind, &some));
    assert_true(all.n[DLADBG_EV_REG_WRITE] >= OPS * WRITES_PER_OP);
    assert_true(all.n[DLADBG_EV_DMA] > 0);
    for (uint32_t k = 0; k < 32; k++)
        assert_int_equal(some.n[k], (kinds & DLADBG_EV_BIT(k)) ? all.n[k] : 0);
    dbg_destroy(d);

    struct dladbg_decoder dec = {.struct_size = sizeof dec,
                                 .event_kinds = DLADBG_EV_BIT(DLADBG_EV_DMA)};
    assert_int_equal(plugin_decoder_kinds(&dec), DLADBG_EV_BIT(DLADBG_EV_DMA));
    dec.struct_size = (uint32_t)offsetof(struct dladbg_decoder, event_kinds);
    assert_int_equal(plugin_decoder_kinds(&dec), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_layers),  cmocka_unit_test(test_csv_regs),
        cmocka_unit_test(test_chrome_json), cmocka_unit_test(test_vcd),
        cmocka_unit_test(test_txn_replay),  cmocka_unit_test(test_txn_kmd_reads),
        cmocka_unit_test(test_ring_bounds), cmocka_unit_test(test_event_kinds),
        cmocka_unit_test(test_checks_share_memory), cmocka_unit_test(test_checks_overwritten_packed),
    };
    return cmocka_run_group_tests(tests, setup, fixture_group_teardown);
}
