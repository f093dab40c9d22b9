/* The model's lifecycle, listeners, diagnostics and names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_table.h"

#define DEFAULT_MEM_BUDGET (4ull << 30)
/* 2^36 element operations: several times the largest layers of common networks,
 * and still minutes, not days, of simulation. */
#define DEFAULT_WORK_BUDGET (1ull << 36)
#define DEFAULT_WORKING_BUDGET (2ull << 30)

static const char *const unit_names[DLA_U_COUNT] = {
    [DLA_U_GLB] = "GLB",           [DLA_U_GEC] = "GEC",           [DLA_U_MCIF] = "MCIF",
    [DLA_U_CVIF] = "CVIF",         [DLA_U_BDMA] = "BDMA",         [DLA_U_CDMA] = "CDMA",
    [DLA_U_CSC] = "CSC",           [DLA_U_CMAC_A] = "CMAC_A",     [DLA_U_CMAC_B] = "CMAC_B",
    [DLA_U_CACC] = "CACC",         [DLA_U_SDP_RDMA] = "SDP_RDMA", [DLA_U_SDP] = "SDP",
    [DLA_U_PDP_RDMA] = "PDP_RDMA", [DLA_U_PDP] = "PDP",           [DLA_U_CDP_RDMA] = "CDP_RDMA",
    [DLA_U_CDP] = "CDP",           [DLA_U_RBK] = "RBK",           [DLA_U_CFGROM] = "CFGROM",
};

static const char *const proc_names[DLA_P_COUNT] = {"BDMA", "CONV", "SDP", "PDP", "CDP", "RUBIK"};

static const char *const client_names[DLA_C_COUNT] = {
    [DLA_C_HOST] = "host",           [DLA_C_BDMA_RD] = "bdma.rd",
    [DLA_C_BDMA_WR] = "bdma.wr",     [DLA_C_CDMA_DAT] = "cdma.dat",
    [DLA_C_CDMA_WT] = "cdma.wt",     [DLA_C_SDP_MRDMA] = "sdp.mrdma",
    [DLA_C_SDP_BRDMA] = "sdp.brdma", [DLA_C_SDP_NRDMA] = "sdp.nrdma",
    [DLA_C_SDP_ERDMA] = "sdp.erdma", [DLA_C_SDP_WDMA] = "sdp.wdma",
    [DLA_C_PDP_RDMA] = "pdp.rdma",   [DLA_C_PDP_WDMA] = "pdp.wdma",
    [DLA_C_CDP_RDMA] = "cdp.rdma",   [DLA_C_CDP_WDMA] = "cdp.wdma",
    [DLA_C_RBK_RDMA] = "rbk.rdma",   [DLA_C_RBK_WDMA] = "rbk.wdma",
};

const char *dla_unit_name(enum dla_unit u)
{
    return u < DLA_U_COUNT ? unit_names[u] : "?";
}

const char *dla_proc_name(enum dla_proc p)
{
    return p < DLA_P_COUNT ? proc_names[p] : "?";
}

const char *dla_client_name(enum dla_client c)
{
    return c < DLA_C_COUNT ? client_names[c] : "?";
}

const char *dla_space_name(enum dla_space s)
{
    return s == DLA_DRAM ? "dram" : s == DLA_CVSRAM ? "cvsram" : "?";
}

const char *dla_layer_state_name(enum dla_layer_state s)
{
    static const char *const names[] = {"programming", "enabled", "running", "done"};
    return s <= DLA_LAYER_DONE ? names[s] : "?";
}

const char *dla_diag_kind_name(enum dla_diag_kind k)
{
    static const char *const names[] = {
        [DLA_DIAG_CSB_RESERVED] = "csb-reserved",
        [DLA_DIAG_CSB_UNMAPPED] = "csb-unmapped",
        [DLA_DIAG_CSB_HOLE] = "csb-hole",
        [DLA_DIAG_GROUP_BUSY] = "group-busy",
        [DLA_DIAG_FEATURE_ABSENT] = "feature-absent",
        [DLA_DIAG_MEM] = "memory",
        [DLA_DIAG_RULE] = "rule",
        [DLA_DIAG_CBUF] = "cbuf",
        [DLA_DIAG_UNSUPPORTED] = "unsupported",
        [DLA_DIAG_HANG] = "hang",
    };
    return k <= DLA_DIAG_HANG ? names[k] : "?";
}

const char *dla_severity_name(enum dla_severity s)
{
    return s == DLA_SEV_INFO ? "info" : s == DLA_SEV_WARNING ? "warning" : "error";
}

/* ---------------------------------------------------------------- the unit table */

/* The board's entries indexed by register unit and by processor, built once
 * before main (the table is constant data), so that a CSB access or a launch
 * finds its entry without a search. */
static const struct dla_unit_entry *entry_by_unit[DLA_U_COUNT];
static const struct dla_unit_entry *entry_by_proc[DLA_P_COUNT];
static const struct dla_unit_hooks *hooks_by_unit[DLA_U_COUNT];

__attribute__((constructor)) static void index_unit_table(void)
{
    unsigned states = 0;
    for (size_t i = 0; dla_unit_table[i]; i++) {
        const struct dla_unit_entry *e = dla_unit_table[i];
        if (e->state_of && ++states > DLA_UNIT_STATES) {
            fprintf(stderr, "dladbg: more units own state than DLA_UNIT_STATES (%s)\n", e->name);
            abort(); /* checkpoints would lose that state: raise DLA_UNIT_STATES */
        }
        if (e->proc < DLA_P_COUNT)
            entry_by_proc[e->proc] = e;
        for (unsigned k = 0; k < e->n_ports; k++) {
            entry_by_unit[e->ports[k].unit] = e;
            hooks_by_unit[e->ports[k].unit] = e->ports[k].hooks;
        }
    }
}

const struct dla_unit_entry *dla_unit_entry_of(enum dla_unit u)
{
    return u < DLA_U_COUNT ? entry_by_unit[u] : NULL;
}

const struct dla_unit_entry *dla_proc_entry(enum dla_proc p)
{
    return p < DLA_P_COUNT ? entry_by_proc[p] : NULL;
}

const struct dla_unit_hooks *dla_hooks(enum dla_unit u)
{
    return u < DLA_U_COUNT ? hooks_by_unit[u] : NULL;
}

/* The processor of the entry serving the unit. */
enum dla_proc dla_unit_proc(enum dla_unit u)
{
    const struct dla_unit_entry *e = dla_unit_entry_of(u);
    return e ? e->proc : DLA_P_NONE;
}

/* Whether the configuration's CSB master decodes a unit at all: a unit
 * table entry's units when the entry is present, the bus interfaces here. */
static bool unit_present(const struct dla_config *cfg, enum dla_unit u)
{
    const struct dla_unit_entry *e = dla_unit_entry_of(u);
    if (e)
        return !e->present || e->present(cfg);
    switch (u) {
    case DLA_U_CVIF:
        return cfg->cvsram;
    case DLA_U_GEC:
        /* GEC is decoded by the nvdlav1 CSB master only */
        return strcmp(cfg->regmap, "nv_full") == 0;
    default:
        return true;
    }
}

static uint16_t reg_offset_or_none(const struct regdb_unit *ru, const char *name)
{
    const struct regdb_reg *r = ru ? regdb_reg_named(ru, name) : NULL;
    return r ? r->offset : 0xffff;
}

struct dla *dla_create(const struct dla_config *cfg, const struct dla_options *opt)
{
    const struct regdb_map *map = regdb_map(cfg->regmap);
    if (!map)
        return NULL;
    struct dla *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->cfg = cfg;
    d->map = map;
    d->mem_budget = opt && opt->mem_budget ? opt->mem_budget : DEFAULT_MEM_BUDGET;
    d->work_budget = opt && opt->work_budget ? opt->work_budget : DEFAULT_WORK_BUDGET;
    d->working_budget =
        opt && opt->working_budget ? opt->working_budget : DEFAULT_WORKING_BUDGET;
    d->scratch.keep_min = SCRATCH_KEEP_MIN;
    for (int u = 0; u < DLA_U_COUNT; u++) {
        d->udb[u] = regdb_unit_named(map, unit_names[u]);
        d->present[u] = d->udb[u] && unit_present(cfg, (enum dla_unit)u);
        d->off_pointer[u] = reg_offset_or_none(d->udb[u], "S_POINTER");
        d->off_status[u] = reg_offset_or_none(d->udb[u], "S_STATUS");
    }
    d->mem[DLA_DRAM] = mem_create("dram", cfg->addr_bits, d->mem_budget);
    d->mem[DLA_CVSRAM] = mem_create("cvsram", cfg->addr_bits, d->mem_budget);
    bool states = true;
    for (size_t i = 0; dla_unit_table[i]; i++)
        if (dla_unit_table[i]->state_create && !dla_unit_table[i]->state_create(d))
            states = false;
    if (!d->mem[DLA_DRAM] || !d->mem[DLA_CVSRAM] || !states) {
        dla_destroy(d);
        return NULL;
    }
    dla_reset(d);
    return d;
}

static void free_pipes(struct dla *d)
{
    for (int i = 0; i < DLA_MAX_PIPES; i++)
        pipeline_free(&d->pipe[i]);
}

void dla_free_owned(struct dla *d)
{
    free_pipes(d);
    mem_destroy(d->mem[DLA_DRAM]);
    mem_destroy(d->mem[DLA_CVSRAM]);
    for (size_t i = 0; dla_unit_table[i]; i++)
        if (dla_unit_table[i]->state_destroy)
            dla_unit_table[i]->state_destroy(d);
    free(d->sched);
    layers_release(d);
    dla_scratch_release(&d->scratch);
}

void dla_destroy(struct dla *d)
{
    if (!d)
        return;
    dla_free_owned(d);
    free(d);
}

static void reset_registers(struct dla *d)
{
    memset(d->regs, 0, sizeof d->regs);
    memset(d->dregs, 0, sizeof d->dregs);
    for (int u = 0; u < DLA_U_COUNT; u++) {
        const struct regdb_unit *ru = d->udb[u];
        if (!ru)
            continue;
        for (unsigned i = 0; i < ru->n_regs; i++) {
            const struct regdb_reg *r = &ru->regs[i];
            unsigned w = r->offset / 4u;
            if (w >= DLA_REG_WORDS) { /* a register database this build cannot hold */
                fprintf(stderr, "dladbg: %s.%s at 0x%03x is past the model's register storage\n",
                        ru->name, r->name, r->offset);
                abort();
            }
            d->regs[u][w] = r->reset;
            d->dregs[u][0][w] = r->reset;
            d->dregs[u][1][w] = r->reset;
        }
    }
}

void dla_reset(struct dla *d)
{
    free_pipes(d);
    sched_clear(d);
    reset_registers(d);
    mem_clear(d->mem[DLA_DRAM]);
    mem_clear(d->mem[DLA_CVSRAM]);
    d->now = 0;
    d->seq = 0;
    d->csb_debt = 0;
    /* after the clock: a unit's reset may start a timer (CBUF's flush) */
    for (size_t i = 0; dla_unit_table[i]; i++)
        if (dla_unit_table[i]->state_reset)
            dla_unit_table[i]->state_reset(d);
    memset(d->bus_free_at, 0, sizeof d->bus_free_at);
    memset(d->client_bytes, 0, sizeof d->client_bytes);
    memset(d->client_transactions, 0, sizeof d->client_transactions);
    memset(d->client_cvsram_bytes, 0, sizeof d->client_cvsram_bytes);
    memset(d->proc_busy, 0, sizeof d->proc_busy);
    memset(d->proc_idle_at, 0, sizeof d->proc_idle_at);
    memset(d->op_enable_at, 0, sizeof d->op_enable_at);
    memset(d->rule_hits, 0, sizeof d->rule_hits);
    layers_release(d);
    for (int p = 0; p < DLA_P_COUNT; p++)
        d->cur_layer[p][0] = d->cur_layer[p][1] = -1;
    /* the units' plain state in struct dla (BDMA's queue, the LUT RAMs) is
     * reset by their hooks */
    for (int u = 0; u < DLA_U_COUNT; u++) {
        const struct dla_unit_hooks *h = dla_hooks((enum dla_unit)u);
        if (h && h->reset)
            h->reset(d);
    }
}

const struct dla_config *dla_cfg(const struct dla *d)
{
    return d->cfg;
}

const struct regdb_map *dla_regmap(const struct dla *d)
{
    return d->map;
}

/* ---------------------------------------------------------------- listeners */

int dla_listen(struct dla *d, dla_listener_fn fn, void *ctx)
{
    if (d->n_listeners == DLA_MAX_LISTENERS)
        return -1;
    int h = ++d->next_handle;
    d->listeners[d->n_listeners] = (struct dla_listener){fn, ctx};
    d->listener_handle[d->n_listeners] = h;
    d->n_listeners++;
    return h;
}

void dla_unlisten(struct dla *d, int handle)
{
    for (size_t i = 0; i < d->n_listeners; i++) {
        if (d->listener_handle[i] != handle)
            continue;
        memmove(&d->listeners[i], &d->listeners[i + 1],
                (d->n_listeners - i - 1) * sizeof d->listeners[0]);
        memmove(&d->listener_handle[i], &d->listener_handle[i + 1],
                (d->n_listeners - i - 1) * sizeof d->listener_handle[0]);
        d->n_listeners--;
        return;
    }
}

void *dla_grow(void *v, size_t n, size_t *cap, size_t first, size_t elem)
{
    if (n != *cap)
        return v;
    size_t grown = *cap ? *cap * 2 : first;
    void *g = realloc(v, grown * elem);
    if (!g)
        abort();
    *cap = grown;
    return g;
}

void dla_emit(struct dla *d, struct dla_event *ev)
{
    ev->cycle = d->now;
    for (size_t i = 0; i < d->n_listeners; i++)
        d->listeners[i].fn(d->listeners[i].ctx, ev);
}

/* ---------------------------------------------------------------- diagnostics */

void dla_vdiag(struct dla *d, enum dla_diag_kind kind, enum dla_severity sev, enum dla_unit unit,
               uint32_t addr, const char *rule, const char *fmt, va_list ap)
{
    vsnprintf(d->diag_buf, sizeof d->diag_buf, fmt, ap);
    struct dla_event ev = {.kind = DLA_EV_DIAG, .layer = -1};
    ev.u.diag.kind = (uint8_t)kind;
    ev.u.diag.severity = (uint8_t)sev;
    ev.u.diag.unit = (uint8_t)unit;
    ev.u.diag.addr = addr;
    ev.u.diag.rule = rule;
    ev.u.diag.msg = d->diag_buf;
    enum dla_proc p = dla_unit_proc(unit);
    if (p != DLA_P_NONE) {
        int g = dla_consumer_group(d, unit);
        ev.layer = d->cur_layer[p][g];
    }
    dla_emit(d, &ev);
}

void dla_diag(struct dla *d, enum dla_diag_kind kind, enum dla_severity sev, enum dla_unit unit,
              uint32_t addr, const char *rule, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dla_vdiag(d, kind, sev, unit, addr, rule, fmt, ap);
    va_end(ap);
}

void dla_rule(struct dla *d, enum dla_unit unit, const char *rule, const char *fmt, ...)
{
    rule_count_hit(d, rule);
    va_list ap;
    va_start(ap, fmt);
    dla_vdiag(d, DLA_DIAG_RULE, DLA_SEV_WARNING, unit, 0, rule, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- memory */

struct dla_mem *dla_memory(struct dla *d, enum dla_space s)
{
    return s < DLA_SPACE_COUNT ? d->mem[s] : NULL;
}

/* A host write is one transaction of the host client, its bytes of the
 * memory it went to. */
static void count_host_write(struct dla *d, enum dla_space s, uint64_t len)
{
    d->client_bytes[DLA_C_HOST] += len;
    d->client_transactions[DLA_C_HOST]++;
    if (s == DLA_CVSRAM)
        d->client_cvsram_bytes[DLA_C_HOST] += len;
}

enum mem_status dla_mem_write(struct dla *d, enum dla_space s, uint64_t addr, const void *buf,
                              size_t len)
{
    enum mem_status st = mem_write(d->mem[s], addr, buf, len);
    if (st == MEM_OK)
        count_host_write(d, s, len);
    return st;
}

enum mem_status dla_mem_write_from(struct dla *d, enum dla_space s, const struct dla_mem *src,
                                   uint64_t addr, uint64_t len)
{
    enum mem_status st = mem_copy_from(d->mem[s], src, addr, len);
    if (st == MEM_OK)
        count_host_write(d, s, len);
    return st;
}

enum mem_status dla_mem_read(struct dla *d, enum dla_space s, uint64_t addr, void *buf, size_t len)
{
    return mem_read(d->mem[s], addr, buf, len);
}

uint64_t dla_client_bytes(const struct dla *d, enum dla_client c)
{
    return c < DLA_C_COUNT ? d->client_bytes[c] : 0;
}

uint64_t dla_client_transactions(const struct dla *d, enum dla_client c)
{
    return c < DLA_C_COUNT ? d->client_transactions[c] : 0;
}

uint64_t dla_client_cvsram_bytes(const struct dla *d, enum dla_client c)
{
    return c < DLA_C_COUNT ? d->client_cvsram_bytes[c] : 0;
}

enum dla_space dla_ram_space(struct dla *d, enum dla_unit u, uint32_t ram_type)
{
    if (ram_type == 1)
        return DLA_DRAM;
    if (!d->cfg->cvsram) {
        dla_diag(d, DLA_DIAG_FEATURE_ABSENT, DLA_SEV_ERROR, u, 0, NULL,
                 "%s selects CV-SRAM (RAM_TYPE 0) but %s has no CV-SRAM; using DRAM",
                 dla_unit_name(u), d->cfg->name);
        return DLA_DRAM;
    }
    return DLA_CVSRAM;
}

/* ---------------------------------------------------------------- time */

uint64_t dla_now(const struct dla *d)
{
    return d->now;
}

/* A pipeline in flight; a unit's timer (the post-reset CBUF flush) alone does not count. */
bool dla_busy(const struct dla *d)
{
    for (int i = 0; i < DLA_MAX_PIPES; i++)
        if (d->pipe[i].active)
            return true;
    return false;
}

uint64_t dla_next_event_cycle(const struct dla *d)
{
    const struct dla_sched_item *it = sched_peek(d);
    return it ? it->at : UINT64_MAX;
}

void dla_csb_settle(struct dla *d)
{
    uint64_t cycles = d->csb_debt;
    d->csb_debt = 0;
    dla_idle(d, cycles);
}

void dla_idle(struct dla *d, uint64_t cycles)
{
    uint64_t target = d->now + cycles;
    while (dla_next_event_cycle(d) <= target)
        dla_advance(d);
    if (d->now < target)
        d->now = target;
}

void dla_unit_timer_at(struct dla *d, const struct dla_unit_entry *e, uint64_t at)
{
    for (uint8_t i = 0; dla_unit_table[i]; i++)
        if (dla_unit_table[i] == e)
            sched_push(d, at, SCHED_TIMER, i);
}

/* A unit's timer fires: ms is its entry's index in the table. */
static void process_timer(struct dla *d, uint8_t ms)
{
    dla_unit_table[ms]->timer(d);
}

bool dla_advance(struct dla *d)
{
    struct dla_sched_item it;
    if (!sched_pop(d, &it))
        return false;
    if (it.at > d->now)
        d->now = it.at;
    if (it.pipe == SCHED_TIMER)
        process_timer(d, it.ms);
    else
        pipeline_process_milestone(d, it.pipe, it.ms);
    return true;
}
