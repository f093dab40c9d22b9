/* Replay of NVIDIA's v2 trace tests (<test>.cfg), as the UVM trace player
 * runs them (../shared/docs/nvdla-v2-traces.md section 1):
 *   1. every mem_* command applies at time zero, in file order;
 *   2. register commands run in file order (each unit's thread in the UVM
 *      bench; in the corpus every sync_notify precedes its sync_wait, so a
 *      single sequence is equivalent and sync_* are no-ops here);
 *   3. then, whenever the interrupt line is up: pending = status & ~mask,
 *      each pending bit consumes the next intr_notify of its block, fires its
 *      sync id (running the check_* waiting on it) and is cleared by writing
 *      pending back to S_INTR_STATUS; an unexpected interrupt is a failure;
 *   4. the test passes when every check ran and every CRC matched.
 * The file is parsed entirely when opened; a malformed statement is an error
 * naming file:line. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/crc32.h"
#include "dat.h"
#include "debug/mem_regions.h"
#include "util/textfile.h"
#include "trace.h"

enum cfg_op {
    CFG_REG_WRITE,
    CFG_POLL,
    CFG_READ_CHECK,
    CFG_MEM_INIT,
    CFG_MEM_LOAD,
    CFG_INTR,
    CFG_CHECK_CRC,
    CFG_CHECK_NOTHING,
    CFG_NOP, /* sync_notify, sync_wait, mem_reserve, mem_release, reg_read */
};

struct cfg_cmd {
    uint8_t op;
    unsigned line;
    uint32_t addr; /* CSB byte address */
    uint32_t value;
    uint8_t space; /* enum dla_space */
    bool skip;     /* memory command for a memory this configuration lacks */
    uint64_t base, size;
    uint32_t crc;
    uint8_t pattern;
    uint8_t intr_bit;
    bool fired; /* intr_notify: consumed */
    bool ran;   /* check_*: done */
    char *file;
    char sync[96];
};

enum pattern { PAT_ZERO, PAT_ONES, PAT_AFIVE, PAT_FIVEA, PAT_ADDR, PAT_RANDOM, PAT_X };

struct cfg_state {
    size_t pc;        /* next register command */
    bool mem_done;    /* memory commands applied */
    bool waiting;     /* an interrupt or poll wait is outstanding */
    bool clearing;    /* the W1C write of handled interrupts is due */
    uint32_t pending; /* bits to clear */
};

struct cfg_trace {
    struct driver base;
    const struct dla_config *cfg;
    const struct regdb_map *map;
    char dir[4096];
    char file[4096];
    struct trace_where_base where; /* "NAME.cfg:" */
    size_t n, cap;
    struct cfg_cmd *cmd;
    struct cfg_state st;
    uint32_t poll_addr, poll_value;
    uint32_t intr_status_addr, intr_mask_addr;
    struct region_list regions; /* mem_load's, mem_init's and check_crc's bytes, made at the first ask */
    bool regions_made;
};

/* ---------------------------------------------------------------- parsing */

struct stmt {
    char name[32];
    char *arg[8];
    int nargs;
};

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

/* Split "name(a, b, c);" into name and arguments; NULL error text on success. */
static const char *split_stmt(char *s, struct stmt *st)
{
    char *open = strchr(s, '(');
    if (!open)
        return "'(' after the statement name";
    *open = 0;
    snprintf(st->name, sizeof st->name, "%s", trim(s));
    char *close = strrchr(open + 1, ')');
    if (!close)
        return "')' closing the argument list";
    *close = 0;
    char *rest = trim(close + 1);
    if (*rest != ';')
        return "';' after ')'";
    rest = trim(rest + 1);
    if (*rest && strncmp(rest, "//", 2) != 0)
        return "nothing but a // comment after ';'";
    st->nargs = 0;
    char *args = trim(open + 1);
    if (!*args)
        return NULL;
    for (char *a = args;;) {
        char *comma = strchr(a, ',');
        if (comma)
            *comma = 0;
        if (st->nargs == 8)
            return "at most 8 arguments";
        st->arg[st->nargs++] = trim(a);
        if (!comma)
            break;
        a = comma + 1;
    }
    return NULL;
}

struct perr {
    const char *path;
    unsigned line;
    char *err;
    size_t errlen;
};

static int perr(const struct perr *p, const char *fmt, const char *arg)
{
    char what[256];
    snprintf(what, sizeof what, fmt, arg ? arg : "");
    snprintf(p->err, p->errlen, "%s:%u: %s", p->path, p->line, what);
    return -1;
}

static int resolve_reg(struct cfg_trace *t, const struct perr *p, const char *name, uint32_t *addr)
{
    struct regdb_ref ref;
    if (!regdb_resolve(t->map, name, &ref) || ref.field) {
        char msg[160];
        snprintf(msg, sizeof msg, "unknown register %%s in the %s register map", t->map->name);
        return perr(p, msg, name);
    }
    *addr = regdb_addr(ref.unit, ref.reg);
    return 0;
}

static int parse_space(struct cfg_trace *t, const struct perr *p, const char *tok,
                       struct cfg_cmd *c)
{
    char up[32];
    size_t i = 0;
    for (; tok[i] && i < sizeof up - 1; i++)
        up[i] = (char)toupper((unsigned char)tok[i]);
    up[i] = 0;
    /* "1" is the old player's name for primary memory (v2 doc 1.5) */
    if (strcmp(up, "PRI_MEM") == 0 || strcmp(up, "1") == 0)
        c->space = DLA_DRAM;
    else if (strcmp(up, "SEC_MEM") == 0)
        c->space = DLA_CVSRAM;
    else
        return perr(p, "expected a memory (pri_mem, sec_mem or 1), found \"%s\"", tok);
    c->skip = c->space == DLA_CVSRAM && !t->cfg->cvsram;
    return 0;
}

static int parse_pattern(const struct perr *p, const char *tok, struct cfg_cmd *c)
{
    static const char *const names[] = {"ALL_ZERO", "ONES",   "AFIVE", "FIVEA",
                                        "ADDR",     "RANDOM", "X"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(tok, names[i]) == 0) {
            c->pattern = (uint8_t)i;
            return 0;
        }
    }
    return perr(p,
                "expected a fill pattern (ALL_ZERO, ONES, AFIVE, FIVEA, ADDR, RANDOM, X), "
                "found \"%s\"",
                tok);
}

/* "file" in double quotes: letters, digits, _ . / only. */
static int parse_file_arg(const struct perr *p, const char *tok, struct cfg_cmd *c)
{
    size_t n = strlen(tok);
    if (n < 3 || tok[0] != '"' || tok[n - 1] != '"')
        return perr(p, "expected a file name in double quotes, found %s", tok);
    for (size_t i = 1; i + 1 < n; i++)
        if (!isalnum((unsigned char)tok[i]) && !strchr("_./-", tok[i]))
            return perr(p, "unexpected character in file name %s", tok);
    c->file = strndup(tok + 1, n - 2);
    return c->file ? 0 : perr(p, "out of memory", NULL);
}

/* intr_notify ids: <BLOCK>_<g>, upper-cased (SDP_0, cdma_dat_0, CACC_1 ...). */
static int parse_intr_id(const struct perr *p, const char *tok, struct cfg_cmd *c)
{
    static const struct {
        const char *block;
        unsigned bit0;
    } blocks[] = {{"SDP", 0},   {"CDP", 2},       {"PDP", 4},      {"BDMA", 6},
                  {"RUBIK", 8}, {"CDMA_DAT", 16}, {"CDMA_WT", 18}, {"CACC", 20}};
    char up[64];
    size_t i = 0;
    for (; tok[i] && i < sizeof up - 1; i++)
        up[i] = (char)toupper((unsigned char)tok[i]);
    up[i] = 0;
    char *us = strrchr(up, '_');
    if (!us || (strcmp(us, "_0") != 0 && strcmp(us, "_1") != 0))
        return perr(p, "expected an interrupt id such as SDP_0 or CDMA_DAT_1, found \"%s\"", tok);
    unsigned group = (unsigned)(us[1] - '0');
    *us = 0;
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        if (strcmp(up, blocks[b].block) == 0) {
            c->intr_bit = (uint8_t)(blocks[b].bit0 + group);
            return 0;
        }
    }
    return perr(p, "unknown interrupt block in \"%s\"", tok);
}

static int set_sync(const struct perr *p, const char *tok, struct cfg_cmd *c)
{
    for (const char *s = tok; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return perr(p, "expected a sync id (letters, digits, _), found \"%s\"", tok);
    snprintf(c->sync, sizeof c->sync, "%s", tok);
    return 0;
}

static int want_args(const struct perr *p, const struct stmt *st, int lo, int hi, const char *usage)
{
    if (st->nargs < lo || st->nargs > hi)
        return perr(p, "expected %s", usage);
    return 0;
}

static int parse_mem(struct cfg_trace *t, const struct perr *p, const struct stmt *st,
                     struct cfg_cmd *c)
{
    if (strcmp(st->name, "mem_load") == 0) {
        c->op = CFG_MEM_LOAD;
        if (want_args(p, st, 3, 4, "mem_load(mem, base, \"file\")") ||
            parse_space(t, p, st->arg[0], c))
            return -1;
        if (!trace_parse_u64(st->arg[1], &c->base))
            return perr(p, "expected a 0x base address, found \"%s\"", st->arg[1]);
        return parse_file_arg(p, st->arg[2], c);
    }
    c->op = CFG_MEM_INIT;
    if (want_args(p, st, 4, 5, "mem_init(mem, base, size, PATTERN)") ||
        parse_space(t, p, st->arg[0], c))
        return -1;
    if (!trace_parse_u64(st->arg[1], &c->base))
        return perr(p, "expected a 0x base address, found \"%s\"", st->arg[1]);
    if (st->arg[2][0] == '"') {
        if (parse_file_arg(p, st->arg[2], c))
            return -1; /* size comes from the file's extent */
    } else if (!trace_parse_u64(st->arg[2], &c->size)) {
        return perr(p, "expected a size, found \"%s\"", st->arg[2]);
    }
    return parse_pattern(p, st->arg[3], c);
}

static int parse_stmt(struct cfg_trace *t, const struct perr *p, struct stmt *st, struct cfg_cmd *c)
{
    const char *n = st->name;
    if (strcmp(n, "reg_write") == 0 || strcmp(n, "poll_reg_equal") == 0 ||
        strcmp(n, "reg_read_check") == 0) {
        c->op = n[0] == 'p' ? CFG_POLL : n[4] == 'w' ? CFG_REG_WRITE : CFG_READ_CHECK;
        if (want_args(p, st, 2, 2, "(NVDLA_UNIT.REG_0, value)"))
            return -1;
        if (!trace_parse_u32(st->arg[1], &c->value))
            return perr(p, "expected a 32-bit value, found \"%s\"", st->arg[1]);
        return resolve_reg(t, p, st->arg[0], &c->addr);
    }
    if (strcmp(n, "mem_load") == 0 || strcmp(n, "mem_init") == 0)
        return parse_mem(t, p, st, c);
    if (strcmp(n, "intr_notify") == 0) {
        c->op = CFG_INTR;
        if (want_args(p, st, 2, 2, "intr_notify(UNIT_g, sync_id)"))
            return -1;
        return parse_intr_id(p, st->arg[0], c) || set_sync(p, st->arg[1], c);
    }
    if (strcmp(n, "check_crc") == 0) {
        c->op = CFG_CHECK_CRC;
        if (want_args(p, st, 5, 5, "check_crc(sync_id, mem, base, size, crc)") ||
            set_sync(p, st->arg[0], c) || parse_space(t, p, st->arg[1], c))
            return -1;
        if (!trace_parse_u64(st->arg[2], &c->base) || !trace_parse_u64(st->arg[3], &c->size) ||
            !trace_parse_u32(st->arg[4], &c->crc) || c->size > (1ull << 32))
            return perr(p, "expected check_crc(sync_id, mem, 0xBASE, 0xSIZE, 0xCRC)", NULL);
        return 0;
    }
    if (strcmp(n, "check_nothing") == 0) {
        c->op = CFG_CHECK_NOTHING;
        return want_args(p, st, 1, 1, "check_nothing(sync_id)") || set_sync(p, st->arg[0], c);
    }
    if (strcmp(n, "sync_notify") == 0 || strcmp(n, "sync_wait") == 0 ||
        strcmp(n, "mem_reserve") == 0 || strcmp(n, "mem_release") == 0 ||
        strcmp(n, "reg_read") == 0) {
        c->op = CFG_NOP;
        return 0;
    }
    return perr(p, "unrecognized statement \"%s\"", n);
}

/* One line of the file (textfile_each_line calls it with the trace as ctx). */
static int parse_line(void *ctx, char *line, unsigned lineno, char *err, size_t errlen)
{
    struct cfg_trace *t = ctx;
    const struct perr pe = {.path = t->file, .line = lineno, .err = err, .errlen = errlen};
    const struct perr *p = &pe;
    char *s = trim(line);
    if (!*s || strncmp(s, "//", 2) == 0)
        return 0;
    struct stmt st;
    const char *why = split_stmt(s, &st);
    if (why)
        return perr(p, "expected %s", why);
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 512;
        struct cfg_cmd *c = realloc(t->cmd, cap * sizeof *c);
        if (!c)
            return perr(p, "out of memory", NULL);
        t->cmd = c;
        t->cap = cap;
    }
    struct cfg_cmd *c = &t->cmd[t->n];
    memset(c, 0, sizeof *c);
    c->line = p->line;
    if (parse_stmt(t, p, &st, c) != 0) {
        free(c->file);
        return -1;
    }
    t->n++;
    return 0;
}

static int parse_file(struct cfg_trace *t, char *err, size_t errlen)
{
    return textfile_each_line(t->file, parse_line, t, err, errlen);
}

/* Every check must wait on a sync id that some intr_notify fires. */
static int check_sync_ids(struct cfg_trace *t, char *err, size_t errlen)
{
    bool any_check = false;
    for (size_t i = 0; i < t->n; i++) {
        const struct cfg_cmd *c = &t->cmd[i];
        if (c->op != CFG_CHECK_CRC && c->op != CFG_CHECK_NOTHING)
            continue;
        any_check = true;
        bool found = false;
        for (size_t j = 0; j < t->n && !found; j++)
            found = t->cmd[j].op == CFG_INTR && strcmp(t->cmd[j].sync, c->sync) == 0;
        if (!found) {
            snprintf(err, errlen, "%s:%u: no intr_notify fires sync id \"%s\"", t->file, c->line,
                     c->sync);
            return -1;
        }
    }
    if (!any_check) {
        snprintf(err, errlen, "%s: a trace test needs at least one check_crc or check_nothing",
                 t->file);
        return -1;
    }
    return 0;
}

/* NVIDIA's snapshot lacks some data files (v2 doc 6.3): say so before running. */
static int check_files(struct cfg_trace *t, char *err, size_t errlen)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct cfg_cmd *c = &t->cmd[i];
        if (!c->file || c->skip)
            continue;
        char path[8300];
        snprintf(path, sizeof path, "%s/%s", t->dir, c->file);
        FILE *fp = fopen(path, "r");
        if (!fp) {
            snprintf(err, errlen, "%s:%u: missing input file %s: %s", t->file, c->line, c->file,
                     strerror(errno));
            return -1;
        }
        fclose(fp);
    }
    return 0;
}

/* ---------------------------------------------------------------- memory */

struct load_ctx {
    struct dla *d;
    enum dla_space space;
    uint64_t base;
    enum mem_status status;
};

static int load_record(void *ctx, uint64_t offset, const uint8_t *bytes, size_t n)
{
    struct load_ctx *lc = ctx;
    lc->status = dla_mem_write(lc->d, lc->space, lc->base + offset, bytes, n);
    return lc->status == MEM_OK ? 0 : 1;
}

static void where(const struct cfg_trace *t, const struct cfg_cmd *c, char *buf, size_t len)
{
    trace_where_at(&t->where, c->line, buf, len);
}

static void do_load(struct cfg_trace *t, struct dla *d, const struct cfg_cmd *c)
{
    char path[8300], err[512], loc[96];
    where(t, c, loc, sizeof loc);
    snprintf(path, sizeof path, "%s/%s", t->dir, c->file);
    struct load_ctx lc = {d, (enum dla_space)c->space, c->base, MEM_OK};
    uint64_t extent;
    int rc = dat_read_records(path, load_record, &lc, &extent, err, sizeof err);
    if (rc < 0) {
        report_msg(t->base.rep, REPORT_ERROR, "%s: mem_load: %s", loc, err);
        t->base.rep->input_errors++;
    } else if (rc > 0) {
        report_msg(t->base.rep, REPORT_ERROR, "%s: mem_load at 0x%llx: %s", loc,
                   (unsigned long long)c->base, mem_status_str(lc.status));
        t->base.rep->input_errors++;
    }
}

static uint8_t pattern_byte(enum pattern p, uint64_t addr, uint64_t *rng)
{
    switch (p) {
    case PAT_ONES:
        return 0xff;
    case PAT_AFIVE:
        return 0xa5;
    case PAT_FIVEA:
        return 0x5a;
    case PAT_ADDR:
        return (uint8_t)addr;
    case PAT_RANDOM:
        /* deterministic: the same bytes on every run */
        *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
        return (uint8_t)(*rng >> 56);
    default:
        return 0; /* ALL_ZERO, and X (unknown) which we make zero */
    }
}

static uint64_t record_extent(const struct cfg_trace *t, const struct cfg_cmd *c)
{
    char path[8300], err[512];
    snprintf(path, sizeof path, "%s/%s", t->dir, c->file);
    uint64_t extent = 0;
    if (dat_read_records(path, NULL, NULL, &extent, err, sizeof err) != 0)
        return 0;
    return extent;
}

static void do_init(struct cfg_trace *t, struct dla *d, const struct cfg_cmd *c)
{
    char loc[96];
    where(t, c, loc, sizeof loc);
    uint64_t size = c->file ? record_extent(t, c) : c->size;
    struct dla_mem *mem = dla_memory(d, (enum dla_space)c->space);
    /* the size comes from the file: range and budget first, then the bytes;
     * RANDOM allocates nothing (its blocks are made when read) */
    enum mem_status st = c->pattern == PAT_RANDOM && !c->file
                             ? mem_fill_random(mem, c->base, size, c->base ^ 0x9e3779b97f4a7c15ull)
                             : mem_check_extent(mem, c->base, size);
    if (st != MEM_OK || (c->pattern == PAT_RANDOM && !c->file)) {
        /* a failure is reported below; RANDOM is done */
    } else if (c->pattern <= PAT_FIVEA) { /* one byte value: filled at once */
        uint8_t v = pattern_byte((enum pattern)c->pattern, 0, NULL);
        st = mem_fill(dla_memory(d, (enum dla_space)c->space), c->base, v, size);
    } else {
        uint64_t rng = c->base ^ 0x9e3779b97f4a7c15ull;
        uint8_t buf[4096];
        for (uint64_t off = 0; off < size && st == MEM_OK; off += sizeof buf) {
            size_t n = size - off < sizeof buf ? (size_t)(size - off) : sizeof buf;
            for (size_t i = 0; i < n; i++)
                buf[i] = pattern_byte((enum pattern)c->pattern, c->base + off + i, &rng);
            st = dla_mem_write(d, (enum dla_space)c->space, c->base + off, buf, n);
        }
    }
    if (st != MEM_OK) {
        report_msg(t->base.rep, REPORT_ERROR, "%s: mem_init of 0x%llx bytes at 0x%llx: %s", loc,
                   (unsigned long long)size, (unsigned long long)c->base, mem_status_str(st));
        t->base.rep->input_errors++;
    }
}

static void apply_memory(struct cfg_trace *t, struct dla *d)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct cfg_cmd *c = &t->cmd[i];
        if ((c->op != CFG_MEM_INIT && c->op != CFG_MEM_LOAD))
            continue;
        if (c->skip) {
            char loc[96];
            where(t, c, loc, sizeof loc);
            report_msg(t->base.rep, REPORT_NOTE, "%s: %s has no secondary memory; command ignored",
                       loc, t->cfg->name);
            continue;
        }
        if (c->op == CFG_MEM_INIT)
            do_init(t, d, c);
        else
            do_load(t, d, c);
    }
}

/* ---------------------------------------------------------------- checks */

static void run_crc(struct cfg_trace *t, struct dla *d, const struct cfg_cmd *c)
{
    char loc[96];
    where(t, c, loc, sizeof loc);
    uint32_t crc = 0xffffffffu;
    uint8_t buf[65536];
    for (uint64_t off = 0; off < c->size; off += sizeof buf) {
        size_t n = c->size - off < sizeof buf ? (size_t)(c->size - off) : sizeof buf;
        if (dla_mem_read(d, (enum dla_space)c->space, c->base + off, buf, n) != MEM_OK) {
            report_msg(t->base.rep, REPORT_ERROR,
                       "%s: check_crc: region 0x%llx+0x%llx is "
                       "outside memory",
                       loc, (unsigned long long)c->base, (unsigned long long)c->size);
            t->base.rep->input_errors++;
            return;
        }
        crc = crc32_update(crc, buf, n);
    }
    crc ^= 0xffffffffu;
    if (crc == c->crc) {
        t->base.rep->checks_passed++;
        report_msg(t->base.rep, REPORT_INFO, "%s: check_crc %s 0x%llx+0x%llx: 0x%08x matches", loc,
                   c->sync, (unsigned long long)c->base, (unsigned long long)c->size, crc);
    } else {
        t->base.rep->checks_failed++;
        report_msg(t->base.rep, REPORT_ERROR,
                   "%s: check_crc %s 0x%llx+0x%llx: expected 0x%08x, got 0x%08x", loc, c->sync,
                   (unsigned long long)c->base, (unsigned long long)c->size, c->crc, crc);
    }
}

static void fire(struct cfg_trace *t, struct dla *d, const char *sync)
{
    for (size_t i = 0; i < t->n; i++) {
        struct cfg_cmd *c = &t->cmd[i];
        if ((c->op != CFG_CHECK_CRC && c->op != CFG_CHECK_NOTHING) || c->ran ||
            strcmp(c->sync, sync) != 0)
            continue;
        c->ran = true;
        if (c->op == CFG_CHECK_CRC && !c->skip)
            run_crc(t, d, c);
    }
}

static bool all_checks_ran(const struct cfg_trace *t)
{
    for (size_t i = 0; i < t->n; i++)
        if ((t->cmd[i].op == CFG_CHECK_CRC || t->cmd[i].op == CFG_CHECK_NOTHING) && !t->cmd[i].ran)
            return false;
    return true;
}

/* The next unconsumed intr_notify for a status bit; NULL when none expects it. */
static struct cfg_cmd *expected_intr(struct cfg_trace *t, unsigned bit)
{
    for (size_t i = 0; i < t->n; i++) {
        struct cfg_cmd *c = &t->cmd[i];
        if (c->op == CFG_INTR && !c->fired && c->intr_bit == bit)
            return c;
    }
    return NULL;
}

static uint32_t handle_interrupts(struct cfg_trace *t, struct dla *d)
{
    uint32_t status = dla_csb_read(d, t->intr_status_addr);
    uint32_t mask = dla_csb_read(d, t->intr_mask_addr);
    uint32_t pending = status & ~mask;
    for (unsigned bit = 0; bit < 32; bit++) {
        if (!(pending & (1u << bit)))
            continue;
        struct cfg_cmd *c = expected_intr(t, bit);
        if (!c) {
            t->base.rep->checks_failed++;
            report_msg(t->base.rep, REPORT_ERROR,
                       "%s: unexpected interrupt %s (no intr_notify "
                       "left for it)",
                       t->base.name, dla_intr_bit_name(bit));
            continue;
        }
        c->fired = true;
        fire(t, d, c->sync);
    }
    return pending;
}

/* ---------------------------------------------------------------- running */

static bool poll_ready(void *ctx, struct dla *d)
{
    struct cfg_trace *t = ctx;
    return dla_csb_peek(d, t->poll_addr) == t->poll_value;
}

static void report_missing(struct cfg_trace *t)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct cfg_cmd *c = &t->cmd[i];
        if (c->op == CFG_INTR && !c->fired) {
            char loc[96];
            where(t, c, loc, sizeof loc);
            report_msg(t->base.rep, REPORT_ERROR,
                       "%s: intr_notify(%s, %s): the hardware went idle without this interrupt",
                       loc, dla_intr_bit_name(c->intr_bit), c->sync);
            t->base.rep->checks_failed++;
        }
    }
}

/* Register commands, in file order; true when an action was produced. */
static bool run_register_cmd(struct cfg_trace *t, struct dla *d, const struct drv_result *prev,
                             struct drv_action *act)
{
    struct cfg_cmd *c = &t->cmd[t->st.pc];
    char loc[96];
    switch (c->op) {
    case CFG_REG_WRITE:
        act->kind = DRV_WRITE;
        act->addr = c->addr;
        act->value = c->value;
        where(t, c, act->where, sizeof act->where);
        t->st.pc++;
        return true;
    case CFG_POLL:
        if (!t->st.waiting) {
            t->poll_addr = c->addr;
            t->poll_value = c->value;
            if (!poll_ready(t, d)) {
                t->st.waiting = true;
                act->kind = DRV_WAIT;
                act->wait = (struct drv_wait){.ready = poll_ready, .ctx = t, .max_events = -1};
                snprintf(act->wait.what, sizeof act->wait.what, "poll_reg_equal");
                where(t, c, act->where, sizeof act->where);
                return true;
            }
        } else if (prev && !prev->wait_ok) {
            where(t, c, loc, sizeof loc);
            report_msg(t->base.rep, REPORT_ERROR,
                       "%s: poll_reg_equal: the register never reached 0x%08x", loc, c->value);
            t->base.rep->checks_failed++;
        }
        t->st.waiting = false;
        t->st.pc++;
        return false;
    case CFG_READ_CHECK: {
        uint32_t got = dla_csb_read(d, c->addr);
        where(t, c, loc, sizeof loc);
        if (got == c->value) {
            t->base.rep->checks_passed++;
        } else {
            t->base.rep->checks_failed++;
            report_msg(t->base.rep, REPORT_ERROR, "%s: reg_read_check: expected 0x%08x, got 0x%08x",
                       loc, c->value, got);
        }
        t->st.pc++;
        return false;
    }
    default:
        t->st.pc++;
        return false;
    }
}

static void cfg_next(struct driver *drv, struct dla *d, const struct drv_result *prev,
                     struct drv_action *act)
{
    struct cfg_trace *t = (struct cfg_trace *)drv;
    drv_action_clear(act);
    if (!t->st.mem_done) {
        apply_memory(t, d);
        t->st.mem_done = true;
    }
    while (t->st.pc < t->n) {
        where(t, &t->cmd[t->st.pc], t->base.host_where, sizeof t->base.host_where);
        bool produced = run_register_cmd(t, d, prev, act);
        t->base.host_where[0] = 0;
        if (produced)
            return;
        prev = NULL;
    }
    /* interrupt phase */
    if (t->st.clearing) {
        t->st.clearing = false;
        act->kind = DRV_WRITE;
        act->addr = t->intr_status_addr;
        act->value = t->st.pending;
        snprintf(act->where, sizeof act->where, "%s: interrupt handler", t->base.name);
        return;
    }
    if (all_checks_ran(t)) {
        act->kind = DRV_DONE;
        return;
    }
    if (t->st.waiting) {
        t->st.waiting = false;
        if (prev && !prev->wait_ok) {
            report_missing(t);
            act->kind = DRV_DONE;
            return;
        }
        t->st.pending = handle_interrupts(t, d);
        t->st.clearing = t->st.pending != 0;
        cfg_next(drv, d, NULL, act);
        return;
    }
    t->st.waiting = true;
    act->kind = DRV_WAIT;
    act->wait = (struct drv_wait){.ready = drv_intr_line_ready, .ctx = t, .max_events = -1};
    snprintf(act->wait.what, sizeof act->wait.what, "interrupt");
    snprintf(act->where, sizeof act->where, "%s: waiting for interrupts", t->base.name);
}

/* Driver state that changes while running: the cursor and per-command flags. */
struct cfg_saved {
    struct cfg_state st;
    size_t n;
    bool flags[];
};

static void *cfg_save(const struct driver *drv)
{
    const struct cfg_trace *t = (const struct cfg_trace *)drv;
    struct cfg_saved *s = malloc(sizeof *s + 2 * t->n * sizeof(bool));
    if (!s)
        return NULL;
    s->st = t->st;
    s->n = t->n;
    for (size_t i = 0; i < t->n; i++) {
        s->flags[2 * i] = t->cmd[i].fired;
        s->flags[2 * i + 1] = t->cmd[i].ran;
    }
    return s;
}

static size_t cfg_saved_bytes(const void *saved)
{
    const struct cfg_saved *s = saved;
    return sizeof *s + 2 * s->n * sizeof(bool);
}

static void cfg_restore(struct driver *drv, const void *saved)
{
    struct cfg_trace *t = (struct cfg_trace *)drv;
    const struct cfg_saved *s = saved;
    t->st = s->st;
    for (size_t i = 0; i < t->n && i < s->n; i++) {
        t->cmd[i].fired = s->flags[2 * i];
        t->cmd[i].ran = s->flags[2 * i + 1];
    }
}

static void cfg_destroy(struct driver *drv)
{
    struct cfg_trace *t = (struct cfg_trace *)drv;
    for (size_t i = 0; i < t->n; i++)
        free(t->cmd[i].file);
    free(t->cmd);
    region_list_free(&t->regions);
    free(t);
}

static void cfg_describe(const struct driver *drv, struct dla *d, FILE *out)
{
    const struct cfg_trace *t = (const struct cfg_trace *)drv;
    (void)d;
    if (t->st.pc < t->n) {
        fprintf(out, "  trace: at line %u, statement %zu of %zu\n", t->cmd[t->st.pc].line,
                t->st.pc + 1, t->n);
        return;
    }
    fprintf(out, "  trace: programming done; waiting for interrupts:\n");
    for (size_t i = 0; i < t->n; i++)
        if (t->cmd[i].op == CFG_INTR && !t->cmd[i].fired)
            fprintf(out, "    line %u: intr_notify(%s, %s)\n", t->cmd[i].line,
                    dla_intr_bit_name(t->cmd[i].intr_bit), t->cmd[i].sync);
}

/* The bytes mem_load and mem_init fill and check_crc checks: what the test
 * says its memory is (the rest is what its DMA writes). */
static size_t cfg_regions(struct driver *drv, struct dla *d, const struct drv_region **out)
{
    struct cfg_trace *t = (struct cfg_trace *)drv;
    (void)d;
    for (size_t i = 0; !t->regions_made && i < t->n; i++) {
        const struct cfg_cmd *c = &t->cmd[i];
        if ((c->op != CFG_MEM_LOAD && c->op != CFG_MEM_INIT && c->op != CFG_CHECK_CRC) || c->skip)
            continue;
        uint64_t size = c->op == CFG_MEM_LOAD || c->file ? record_extent(t, c) : c->size;
        const char *name = c->op == CFG_MEM_LOAD   ? "mem_load"
                           : c->op == CFG_MEM_INIT ? "mem_init"
                                                   : "check_crc";
        char loc[96];
        where(t, c, loc, sizeof loc);
        if (!region_list_add(&t->regions, (enum dla_space)c->space, c->base, size, "%s %s", loc,
                             name))
            break; /* out of memory: the regions so far */
    }
    if (!t->regions_made)
        region_list_sort(&t->regions);
    t->regions_made = true;
    *out = t->regions.r;
    return t->regions.n;
}

static const struct driver_ops cfg_ops = {
    .kind = "cfg",
    .next = cfg_next,
    .destroy = cfg_destroy,
    .save = cfg_save,
    .restore = cfg_restore,
    .saved_bytes = cfg_saved_bytes,
    .free_saved = free,
    .summary = trace_summary,
    .describe = cfg_describe,
    .regions = cfg_regions,
};

struct driver *trace_cfg_open(const char *path, const struct trace_opts *opt, struct report *rep,
                              char *err, size_t errlen)
{
    struct cfg_trace *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    t->base.ops = &cfg_ops;
    t->base.rep = rep;
    t->cfg = opt->cfg;
    t->map = regdb_map(t->cfg->regmap);
    trace_split_path(path, t->dir, sizeof t->dir, t->file, sizeof t->file, "");
    trace_name(t->dir, t->file, t->base.name, sizeof t->base.name);
    trace_where_base(t->file, &t->where);
    struct regdb_ref ref;
    regdb_resolve(t->map, "GLB.S_INTR_STATUS", &ref);
    t->intr_status_addr = regdb_addr(ref.unit, ref.reg);
    regdb_resolve(t->map, "GLB.S_INTR_MASK", &ref);
    t->intr_mask_addr = regdb_addr(ref.unit, ref.reg);
    if (parse_file(t, err, errlen) != 0 || check_sync_ids(t, err, errlen) != 0 ||
        check_files(t, err, errlen) != 0) {
        cfg_destroy(&t->base);
        return NULL;
    }
    return &t->base;
}
