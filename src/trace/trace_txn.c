/* Replay of NVIDIA's nvdlav1 traceplayer traces (input.txn).
 *
 * The whole file is parsed when opened, so a malformed line is reported
 * (file:line, what was expected) before anything runs.  Commands:
 *   write_reg ADDR DATA        CSB write; ADDR is a word address (0xffffNNNN)
 *   read_reg ADDR MASK EXP     read and compare the masked value; retried
 *                              while the hardware still has events to process
 *   wait                       until the interrupt line is asserted
 *   until ADDR VALUE           poll until the register equals VALUE
 *   load_mem ADDR SIZE FILE    fill memory from a hex-line .dat file
 *   dump_mem ADDR SIZE FILE    compare with the golden FILE in the trace
 *                              folder, or write it to the output folder
 * Memory addresses with bit 31 set are DRAM, others CV-SRAM (0x5xxxxxxx).
 *
 * A trace that polls GLB.S_INTR_STATUS with "until" is a trace of NVIDIA's
 * KMD on its virtual platform, whose cmod has no timing of its own: its
 * polls record the order in which that simulator raised interrupts, which
 * need not be the model's.  Such a trace is replayed as its driver ran, not
 * by the clock:
 *   - a read of S_INTR_STATUS waits until the bits the trace saw are up and
 *     shows the status as the trace saw it; bits the model raised earlier
 *     than the VP are deferred (they stay pending in the hardware, where the
 *     trace finds them when it waits for them) and noted as timing;
 *   - a read whose value differs only in bits that say how far the hardware
 *     got (trace_timing_bits) is a note, not a failure;
 *   - every other bit is checked as before, and a deferred bit the trace
 *     never waits for is a failure: an interrupt the VP never raised is not
 *     a matter of timing. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dat.h"
#include "debug/mem_regions.h"
#include "trace.h"
#include "txn_prog.h"

struct txn_state {
    size_t pc;         /* next command */
    bool retrying;     /* a read_reg/until is waiting for hardware events */
    bool ended;        /* the end of the trace was checked */
    uint32_t deferred; /* interrupt bits up in the model that the trace has not seen yet */
    unsigned timing;   /* timing differences noted */
};

struct txn {
    struct driver base;
    const struct dla_config *cfg;
    char dir[4096];  /* folder holding the trace and its data files */
    char file[4096]; /* the trace file */
    struct trace_where_base where; /* "input.txn:" */
    char outdir[4096];
    int retries;
    struct txn_prog *prog; /* the parsed commands (n of them) */
    size_t n;
    struct txn_state st;
    uint32_t wait_addr, wait_value, wait_mask; /* condition of the current poll */
    bool kmd_known;       /* intr_status and kmd below are set (on the first next()) */
    bool kmd;             /* a trace of NVIDIA's KMD: follow the driver (see the top) */
    uint32_t intr_status; /* GLB.S_INTR_STATUS in the model's register map */
    struct region_list regions; /* load_mem's and dump_mem's bytes, made at the first ask */
    bool regions_made;
};

/* "+read_reg_poll_retries=N" in plusargs.txt next to the trace */
static int read_retries(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/plusargs.txt", dir);
    FILE *fp = fopen(path, "r");
    int retries = 10; /* the Verilator bench's fixed retry count */
    if (!fp)
        return retries;
    char buf[512];
    while (fgets(buf, sizeof buf, fp)) {
        char *p = strstr(buf, "+read_reg_poll_retries=");
        if (p)
            retries = atoi(p + strlen("+read_reg_poll_retries="));
    }
    fclose(fp);
    return retries;
}

/* ---------------------------------------------------------------- running */

static enum dla_space space_of(uint64_t addr)
{
    return (addr & 0x80000000u) ? DLA_DRAM : DLA_CVSRAM;
}

static const char *reg_label(struct dla *d, uint32_t addr, char *buf, size_t len)
{
    const struct regdb_unit *u;
    const struct regdb_reg *r = regdb_reg_at(dla_regmap(d), addr, &u);
    if (r)
        snprintf(buf, len, "%s.%s (0x%05x)", u->name, r->name, addr);
    else
        snprintf(buf, len, "0x%05x", addr);
    return buf;
}

static void where(struct txn *t, const struct txn_cmd *c, char *buf, size_t len)
{
    trace_where_next(&t->where, c->line, buf, len);
}

static void do_load(struct txn *t, struct dla *d, const struct txn_cmd *c)
{
    char path[8300], err[512], loc[96];
    snprintf(path, sizeof path, "%s/%s", t->dir, c->file);
    where(t, c, loc, sizeof loc);
    uint8_t *buf;
    size_t len;
    if (dat_read_hexlines(path, c->size, &buf, &len, err, sizeof err) != 0) {
        report_msg(t->base.rep, REPORT_ERROR, "%s: load_mem: %s", loc, err);
        t->base.rep->input_errors++;
        return;
    }
    enum mem_status st = dla_mem_write(d, space_of(c->mem_addr), c->mem_addr, buf, len);
    if (st != MEM_OK) {
        report_msg(t->base.rep, REPORT_ERROR, "%s: load_mem at 0x%llx: %s", loc,
                   (unsigned long long)c->mem_addr, mem_status_str(st));
        t->base.rep->input_errors++;
    }
    free(buf);
}

/* Compare with the golden file of that name in the trace folder, or write it out. */
static void do_dump(struct txn *t, struct dla *d, const struct txn_cmd *c)
{
    char golden[8300], loc[96];
    where(t, c, loc, sizeof loc);
    /* the size comes from the file: range and budget before the buffer */
    enum mem_status st = mem_check_extent(dla_memory(d, space_of(c->mem_addr)), c->mem_addr, c->size);
    if (st != MEM_OK) {
        report_msg(t->base.rep, REPORT_ERROR, "%s: dump_mem of 0x%llx bytes at 0x%llx: %s", loc,
                   (unsigned long long)c->size, (unsigned long long)c->mem_addr,
                   mem_status_str(st));
        t->base.rep->input_errors++;
        return;
    }
    uint8_t *mem = malloc((size_t)c->size);
    if (!mem || dla_mem_read(d, space_of(c->mem_addr), c->mem_addr, mem, (size_t)c->size)) {
        report_msg(t->base.rep, REPORT_ERROR, "%s: dump_mem of 0x%llx bytes at 0x%llx failed", loc,
                   (unsigned long long)c->size, (unsigned long long)c->mem_addr);
        t->base.rep->input_errors++;
        free(mem);
        return;
    }
    snprintf(golden, sizeof golden, "%s/%s", t->dir, c->file);
    if (trace_is_file(golden))
        trace_compare_golden(t->base.rep, loc, golden, c->mem_addr, mem, (size_t)c->size);
    else
        trace_write_dump(t->base.rep, loc, t->outdir, c->file, c->mem_addr,
                         dla_space_name(space_of(c->mem_addr)), mem, (size_t)c->size);
    free(mem);
}

static bool poll_ready(void *ctx, struct dla *d)
{
    struct txn *t = ctx;
    return (dla_csb_peek(d, t->wait_addr) & t->wait_mask) == (t->wait_value & t->wait_mask);
}

static void timing_note(struct txn *t, const char *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A timing difference: a note, counted for the summary. */
static void timing_note(struct txn *t, const char *loc, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    report_msg(t->base.rep, REPORT_NOTE, "%s: timing: %s", loc, msg);
    t->st.timing++;
}

static void check_read(struct txn *t, struct dla *d, const struct txn_cmd *c)
{
    char loc[96], label[128];
    uint32_t got = dla_csb_read(d, c->addr);
    where(t, c, loc, sizeof loc);
    if ((got & c->mask) == (c->value & c->mask)) {
        t->base.rep->checks_passed++;
        return;
    }
    uint32_t timing = t->kmd ? trace_timing_bits(dla_regmap(d), c->addr) : 0;
    if (((got ^ c->value) & c->mask & ~timing) == 0) {
        t->base.rep->checks_passed++;
        timing_note(t, loc, "%s %s reads 0x%08x in the model, 0x%08x in the trace",
                    c->op == TXN_UNTIL ? "until" : "read_reg",
                    reg_label(d, c->addr, label, sizeof label), got & c->mask, c->value & c->mask);
        return;
    }
    t->base.rep->checks_failed++;
    report_msg(t->base.rep, REPORT_ERROR, "%s: %s %s: expected 0x%08x (mask 0x%08x), got 0x%08x",
               loc, c->op == TXN_UNTIL ? "until" : "read_reg",
               reg_label(d, c->addr, label, sizeof label), c->value & c->mask, c->mask,
               got & c->mask);
}

/* The KMD's read of S_INTR_STATUS, once the bits it saw are up (see the
 * top): passes when all are; the other bits up are deferred. */
static void check_intr_read(struct txn *t, struct dla *d, const struct txn_cmd *c)
{
    char loc[96], label[128];
    uint32_t seen = c->value & c->mask;
    uint32_t got = dla_csb_read(d, c->addr);
    where(t, c, loc, sizeof loc);
    reg_label(d, c->addr, label, sizeof label);
    if ((got & seen) != seen) {
        t->base.rep->checks_failed++;
        report_msg(t->base.rep, REPORT_ERROR,
                   "%s: %s %s: expected the interrupt bits 0x%08x, but the hardware went idle "
                   "with 0x%08x",
                   loc, c->op == TXN_UNTIL ? "until" : "read_reg", label, seen, got & c->mask);
        return;
    }
    t->base.rep->checks_passed++;
    uint32_t early = got & c->mask & ~seen;
    if (early & ~t->st.deferred)
        timing_note(t, loc,
                    "%s: the trace saw 0x%08x; the model had also raised 0x%08x, deferred "
                    "until the trace waits for it",
                    label, seen, early & ~t->st.deferred);
    t->st.deferred = early;
}

/* At the end of a KMD trace: a deferred bit the trace never waited for was
 * raised by the model alone. */
static void check_end(struct txn *t, struct dla *d)
{
    t->st.ended = true;
    uint32_t left = t->kmd ? t->st.deferred & dla_csb_peek(d, t->intr_status) : 0;
    if (!left)
        return;
    char label[128];
    t->base.rep->checks_failed++;
    report_msg(t->base.rep, REPORT_ERROR,
               "%s: %s: the model raised the interrupt bits 0x%08x, which the trace never "
               "waited for: not a matter of timing",
               t->base.name, reg_label(d, t->intr_status, label, sizeof label), left);
}

/* Whether the trace polls GLB.S_INTR_STATUS with "until": NVIDIA's KMD on
 * its virtual platform. */
static void detect_kmd(struct txn *t, struct dla *d)
{
    struct regdb_ref ref;
    t->kmd_known = true;
    if (!regdb_resolve(dla_regmap(d), "GLB.S_INTR_STATUS", &ref))
        return;
    t->intr_status = regdb_addr(ref.unit, ref.reg);
    for (size_t i = 0; i < t->n && !t->kmd; i++) {
        struct txn_cmd c;
        txn_prog_get(t->prog, i, &c);
        t->kmd = c.op == TXN_UNTIL && c.addr == t->intr_status;
    }
}

static void wait_action(struct txn *t, const struct txn_cmd *c, struct drv_action *act,
                        int64_t max_events, bool (*ready)(void *, struct dla *), const char *what)
{
    act->kind = DRV_WAIT;
    act->wait.ready = ready;
    act->wait.ctx = t;
    act->wait.max_events = max_events;
    snprintf(act->wait.what, sizeof act->wait.what, "%s", what);
    where(t, c, act->where, sizeof act->where);
}

/* A KMD trace's read of S_INTR_STATUS: wait, however long, until the bits
 * it saw are up (an "until" or a plain read alike: the KMD read it because
 * an interrupt came), then check. */
static bool run_intr_read(struct txn *t, struct dla *d, const struct txn_cmd *c,
                          struct drv_action *act)
{
    t->wait_addr = c->addr;
    t->wait_value = c->value & c->mask;
    t->wait_mask = c->value & c->mask;
    if (!t->st.retrying && !poll_ready(t, d)) {
        t->st.retrying = true;
        wait_action(t, c, act, -1, poll_ready, "interrupt bits the trace saw");
        return true;
    }
    t->st.retrying = false;
    check_intr_read(t, d, c);
    t->st.pc++;
    return false;
}

/* Returns true when it produced an action; false when the command was done on the host. */
static bool run_cmd(struct txn *t, struct dla *d, const struct txn_cmd *c,
                    const struct drv_result *prev, struct drv_action *act)
{
    char loc[96];
    switch (c->op) {
    case TXN_WRITE:
        act->kind = DRV_WRITE;
        act->addr = c->addr;
        act->value = c->value;
        where(t, c, act->where, sizeof act->where);
        t->st.pc++;
        return true;
    case TXN_READ:
    case TXN_UNTIL:
        if (t->kmd && c->addr == t->intr_status)
            return run_intr_read(t, d, c, act);
        t->wait_addr = c->addr;
        t->wait_value = c->value;
        t->wait_mask = c->mask;
        if (!t->st.retrying && !poll_ready(t, d)) {
            t->st.retrying = true;
            wait_action(t, c, act, c->op == TXN_UNTIL ? -1 : t->retries, poll_ready,
                        c->op == TXN_UNTIL ? "until poll" : "read_reg retry");
            return true;
        }
        t->st.retrying = false;
        check_read(t, d, c);
        t->st.pc++;
        return false;
    case TXN_WAIT:
        if (!t->st.retrying) {
            t->st.retrying = true;
            wait_action(t, c, act, -1, drv_intr_line_ready, "interrupt");
            return true;
        }
        t->st.retrying = false;
        if (prev && !prev->wait_ok) {
            where(t, c, loc, sizeof loc);
            report_msg(t->base.rep, REPORT_ERROR,
                       "%s: wait: the hardware went idle without raising an interrupt", loc);
            t->base.rep->checks_failed++;
        }
        t->st.pc++;
        return false;
    case TXN_LOAD:
        do_load(t, d, c);
        t->st.pc++;
        return false;
    case TXN_DUMP:
        do_dump(t, d, c);
        t->st.pc++;
        return false;
    case TXN_OP_COUNT:
        break;
    }
    t->st.pc++;
    return false;
}

static void txn_next(struct driver *drv, struct dla *d, const struct drv_result *prev,
                     struct drv_action *act)
{
    struct txn *t = (struct txn *)drv;
    drv_action_clear(act);
    if (!t->kmd_known)
        detect_kmd(t, d);
    while (t->st.pc < t->n) {
        struct txn_cmd c;
        txn_prog_get(t->prog, t->st.pc, &c);
        /* writes and waits become actions, which carry their own place;
         * only the others touch the model here (most of a trace is writes) */
        if (c.op != TXN_WRITE && c.op != TXN_WAIT)
            where(t, &c, t->base.host_where, sizeof t->base.host_where);
        bool produced = run_cmd(t, d, &c, prev, act);
        t->base.host_where[0] = 0;
        if (produced)
            return;
        prev = NULL;
    }
    if (!t->st.ended)
        check_end(t, d);
    act->kind = DRV_DONE;
}

static void txn_destroy(struct driver *drv)
{
    struct txn *t = (struct txn *)drv;
    txn_prog_free(t->prog);
    region_list_free(&t->regions);
    free(t);
}

static void *txn_save(const struct driver *drv)
{
    const struct txn *t = (const struct txn *)drv;
    struct txn_state *s = malloc(sizeof *s);
    if (s)
        *s = t->st;
    return s;
}

static size_t txn_saved_bytes(const void *saved)
{
    (void)saved;
    return sizeof(struct txn_state);
}

static void txn_restore(struct driver *drv, const void *saved)
{
    ((struct txn *)drv)->st = *(const struct txn_state *)saved;
}

static void txn_describe(const struct driver *drv, struct dla *d, FILE *out)
{
    const struct txn *t = (const struct txn *)drv;
    (void)d;
    if (t->st.pc >= t->n) {
        fprintf(out, "  trace: finished (%zu commands)\n", t->n);
        return;
    }
    char loc[96];
    struct txn_cmd c;
    txn_prog_get(t->prog, t->st.pc, &c);
    trace_where_at(&t->where, c.line, loc, sizeof loc);
    fprintf(out, "  trace: at %s (%s), command %zu of %zu\n", loc, txn_op_name(c.op), t->st.pc + 1,
            t->n);
}

/* The traces' summary, and the timing differences of a KMD trace. */
static void txn_summary(const struct driver *drv, char *buf, size_t len)
{
    const struct txn *t = (const struct txn *)drv;
    trace_summary(drv, buf, len);
    size_t n = strlen(buf);
    if (t->st.timing && n < len)
        snprintf(buf + n, len - n, "; %u timing difference%s (notes)", t->st.timing,
                 t->st.timing == 1 ? "" : "s");
}

/* The bytes load_mem fills and dump_mem checks or writes: what the trace
 * says its memory is (the rest is what its DMA writes). */
static size_t txn_regions(struct driver *drv, struct dla *d, const struct drv_region **out)
{
    struct txn *t = (struct txn *)drv;
    (void)d;
    for (size_t i = 0; !t->regions_made && i < t->n; i++) {
        struct txn_cmd c;
        txn_prog_get(t->prog, i, &c);
        if (c.op != TXN_LOAD && c.op != TXN_DUMP)
            continue;
        char loc[96];
        trace_where_at(&t->where, c.line, loc, sizeof loc);
        if (!region_list_add(&t->regions, space_of(c.mem_addr), c.mem_addr, c.size, "%s %s", loc,
                             txn_op_name(c.op)))
            break; /* out of memory: the regions so far */
    }
    if (!t->regions_made)
        region_list_sort(&t->regions);
    t->regions_made = true;
    *out = t->regions.r;
    return t->regions.n;
}

static const struct driver_ops txn_ops = {
    .kind = "txn",
    .next = txn_next,
    .destroy = txn_destroy,
    .save = txn_save,
    .restore = txn_restore,
    .free_saved = free,
    .saved_bytes = txn_saved_bytes,
    .summary = txn_summary,
    .describe = txn_describe,
    .regions = txn_regions,
};

struct driver *trace_txn_open_prog(struct txn_prog *prog, const char *path,
                                   const struct trace_opts *opt, struct report *rep, char *err,
                                   size_t errlen)
{
    struct txn *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "%s: out of memory", path);
        txn_prog_free(prog);
        return NULL;
    }
    t->base.ops = &txn_ops;
    t->base.rep = rep;
    trace_split_path(path, t->dir, sizeof t->dir, t->file, sizeof t->file, "input.txn");
    trace_name(t->dir, t->file, t->base.name, sizeof t->base.name);
    trace_where_base(t->file, &t->where);
    snprintf(t->outdir, sizeof t->outdir, "%s", opt && opt->outdir ? opt->outdir : "");
    t->retries = read_retries(t->dir);
    t->prog = prog ? prog : txn_prog_parse(t->file, err, errlen);
    if (!t->prog) {
        txn_destroy(&t->base);
        return NULL;
    }
    t->n = txn_prog_count(t->prog);
    return &t->base;
}

struct driver *trace_txn_open(const char *path, const struct trace_opts *opt, struct report *rep,
                              char *err, size_t errlen)
{
    return trace_txn_open_prog(NULL, path, opt, rep, err, errlen);
}
