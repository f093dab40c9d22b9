/* The run as plugins see it: events in the ABI's terms, and struct
 * dladbg_run (layers, the registers a layer ran with, events, memory). */
#include "plugin_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/format.h"
#include "debug/reg_history.h"

/* Storage for the strings an event points to while it is being decoded. */
struct scratch {
    char fields[1024];
    struct dladbg_counter counters[DLA_MAX_COUNTERS];
    struct dladbg_lut_stats lut;
};

static void reg_event(struct dla *d, const struct trace_rec *r, struct dladbg_event *ev,
                      struct scratch *sc)
{
    const struct regdb_unit *u = NULL;
    const struct regdb_reg *reg = regdb_reg_at(dla_regmap(d), r->x, &u);
    sc->fields[0] = 0;
    if (reg)
        format_fields_inline(reg, r->y, sc->fields, sizeof sc->fields);
    ev->u.reg = (struct dladbg_reg_event){.addr = r->x,
                                          .value = r->y,
                                          .old = r->z,
                                          .group = r->b == 0xff ? -1 : r->b,
                                          /* the register database's own
                                           * strings live as long as the program */
                                          .unit = reg ? u->name : "",
                                          .name = reg ? reg->name : "",
                                          .fields = sc->fields};
}

/* A layer's record in the ABI's terms; strings point into l or are static. */
static void plugin_layer_from_record(const struct dla_layer *l, struct dladbg_layer *out,
                                     struct dladbg_counter *counters, struct dladbg_lut_stats *lut)
{
    memset(out, 0, sizeof *out);
    out->index = l->index;
    out->unit = dla_proc_name((enum dla_proc)l->proc);
    out->op = l->desc;
    out->state = dla_layer_state_name((enum dla_layer_state)l->state);
    out->group = l->group;
    out->fed_by = l->fed_by;
    out->program_cycle = l->program_cycle;
    out->enable_cycle = l->enable_cycle;
    out->start_cycle = l->start_cycle;
    out->end_cycle = l->end_cycle;
    out->cycles = l->state == DLA_LAYER_DONE && l->end_cycle >= l->start_cycle
                      ? l->end_cycle - l->start_cycle
                      : 0;
    out->macs = l->macs;
    out->work_unit = format_work_unit((enum dla_proc)l->proc);
    out->compute_cycles = l->compute_cycles;
    out->stall_cycles = l->stall_cycles;
    out->bytes_read = l->bytes_read;
    out->bytes_written = l->bytes_written;
    out->bytes_cvsram = l->bytes_cvsram;
    out->reg_writes = l->reg_writes;
    uint32_t n = l->n_counters < DLA_MAX_COUNTERS ? l->n_counters : DLA_MAX_COUNTERS;
    for (uint32_t i = 0; i < n; i++)
        counters[i] = (struct dladbg_counter){l->counters[i].name, l->counters[i].value};
    out->n_counters = n;
    out->counters = counters;
    if (l->lut) {
        const struct dla_lut_stats *s = l->lut;
        *lut = (struct dladbg_lut_stats){
            s->lookups, s->le_hit,       s->lo_hit,      s->underflow,    s->overflow,
            s->hybrid,  s->le_underflow, s->le_overflow, s->lo_underflow, s->lo_overflow};
        out->lut = lut;
        out->lut_unit = l->proc == DLA_P_CDP ? "CDP" : "SDP";
    }
}

static const uint32_t kind_map[DLA_EV_KIND_COUNT] = {
    [DLA_EV_REG_WRITE] = DLADBG_EV_REG_WRITE,
    [DLA_EV_REG_READ] = DLADBG_EV_REG_READ,
    [DLA_EV_LAYER_PROGRAM] = DLADBG_EV_LAYER_PROGRAM,
    [DLA_EV_LAYER_ENABLE] = DLADBG_EV_LAYER_ENABLE,
    [DLA_EV_LAYER_START] = DLADBG_EV_LAYER_START,
    [DLA_EV_LAYER_DONE] = DLADBG_EV_LAYER_DONE,
    [DLA_EV_INTR] = DLADBG_EV_INTR,
    [DLA_EV_DMA] = DLADBG_EV_DMA,
    [DLA_EV_CBUF] = DLADBG_EV_CBUF,
    [DLA_EV_LUT] = DLADBG_EV_LUT,
    [DLA_EV_PERF] = DLADBG_EV_PERF,
    [DLA_EV_DIAG] = DLADBG_EV_DIAG,
};

static const char *cbuf_kind(uint8_t k)
{
    return k == 0 ? "data" : k == 1 ? "weight" : "wmb";
}

/* Whether events of ABI kind k are wanted (kinds 0: all). */
static bool wanted(uint32_t kinds, uint32_t k)
{
    return kinds == 0 || (k < 32 && (kinds & DLADBG_EV_BIT(k)));
}

/* The ring kinds (bit k: enum dla_event_kind k) whose records reach
 * decoders that want kinds. */
static uint32_t ring_kinds_wanted(uint32_t kinds)
{
    uint32_t ring_kinds = 0;
    for (int k = 0; k < DLA_EV_KIND_COUNT; k++)
        if (kind_map[k] && wanted(kinds, kind_map[k]))
            ring_kinds |= 1u << k;
    return ring_kinds;
}

/* Fill ev from a ring record of a kind ring_kinds_wanted let through;
 * false for a layer event whose layer is gone. */
static bool ring_event(struct dla *d, const struct trace_ring *ring, const struct trace_rec *r,
                       struct dladbg_event *ev, struct scratch *sc)
{
    memset(ev, 0, sizeof *ev);
    ev->struct_size = sizeof *ev;
    ev->kind = kind_map[r->kind];
    ev->seq = r->seq;
    ev->cycle = r->cycle;
    ev->layer = r->layer;
    const struct dla_layer *l = r->layer >= 0 ? dla_layer_get(d, (size_t)r->layer) : NULL;
    switch (r->kind) {
    case DLA_EV_REG_WRITE:
    case DLA_EV_REG_READ:
        reg_event(d, r, ev, sc);
        break;
    case DLA_EV_INTR:
        ev->u.intr = (struct dladbg_intr_event){.bit = r->a, .status = r->x, .line = r->b};
        ev->u.intr.name = dla_intr_bit_name(r->a) ? dla_intr_bit_name(r->a) : "";
        break;
    case DLA_EV_DMA:
        ev->u.dma = (struct dladbg_dma_event){.client = dla_client_name((enum dla_client)r->a),
                                              .space = dla_space_name((enum dla_space)r->b),
                                              .write = r->c,
                                              .addr = r->p,
                                              .bytes = r->q,
                                              .start_cycle = r->r,
                                              .end_cycle = r->s};
        break;
    case DLA_EV_CBUF:
        ev->u.cbuf = (struct dladbg_cbuf_event){
            .first_bank = r->a, .n_banks = r->b, .kind = cbuf_kind(r->c), .bytes = r->q};
        break;
    case DLA_EV_DIAG:
        ev->u.diag = (struct dladbg_diag_event){
            .kind = dla_diag_kind_name((enum dla_diag_kind)r->a),
            .severity = dla_severity_name((enum dla_severity)r->b),
            .unit = r->c == DLA_U_NONE ? "" : dla_unit_name((enum dla_unit)r->c),
            .rule = trace_ring_diag_rule(ring, r),
            .message = trace_ring_diag_msg(ring, r),
            .addr = r->x};
        break;
    default: /* layer events, LUT, PERF: the layer as it is recorded */
        if (!l)
            return false;
        plugin_layer_from_record(l, &ev->u.layer, sc->counters, &sc->lut);
        if (r->kind != DLA_EV_LUT && r->kind != DLA_EV_PERF)
            ev->u.layer.state = r->kind == DLA_EV_LAYER_DONE ? "done" : ev->u.layer.state;
        break;
    }
    return true;
}

bool plugin_events_each(struct dla *d, const struct trace_ring *ring, bool run_over, uint32_t kinds,
                        plugin_event_fn fn, void *ctx)
{
    /* on the stack (1.3 KB), not malloc'd: in export csv's child a malloc
     * writes the heap's bookkeeping, a copy-on-write page fault each */
    struct scratch scratch, *sc = &scratch;
    struct dladbg_event ev;
    bool go = true;
    size_t n = ring ? trace_ring_count(ring) : 0;
    struct trace_rec rec;
    /* the kind is read before the record is unpacked: a decoder of one
     * kind (dma) wants one record in seven, and unpacking the others was
     * the largest cost of its export */
    uint32_t ring_kinds = ring_kinds_wanted(kinds);
    for (size_t i = n ? trace_ring_next_of(ring, 0, ring_kinds) : 0; i < n && go;
         i = trace_ring_next_of(ring, i + 1, ring_kinds))
        if (trace_ring_get(ring, i, &rec) && ring_event(d, ring, &rec, &ev, sc))
            go = fn(ctx, &ev);
    size_t records = wanted(kinds, DLADBG_EV_LAYER_RECORD) ? dla_layer_count(d) : 0;
    for (size_t i = 0; i < records && go; i++) {
        const struct dla_layer *l = dla_layer_get(d, i);
        if (format_layer_never_enabled(l, run_over))
            continue;
        memset(&ev, 0, sizeof ev);
        ev.struct_size = sizeof ev;
        ev.kind = DLADBG_EV_LAYER_RECORD;
        ev.cycle = l->end_cycle;
        ev.layer = (int32_t)l->index;
        plugin_layer_from_record(l, &ev.u.layer, sc->counters, &sc->lut);
        go = fn(ctx, &ev);
    }
    return go;
}

/* ---------------------------------------------------------------- struct dladbg_run */

static struct plugin_run *run_of(const struct dladbg_run *run)
{
    return run->host_private;
}

static struct dla *run_dla(const struct dladbg_run *run)
{
    struct plugin_run *pr = run_of(run);
    return pr->session ? session_dla(pr->session) : NULL;
}

static uint32_t run_layer_count(const struct dladbg_run *run)
{
    struct dla *d = run_dla(run);
    return d ? (uint32_t)dla_layer_count(d) : 0;
}

/* The record as a plugin built against the header of 1.2 holds it: a record
 * written whole past its end would overwrite what follows it there. */
#define LAYER_SIZE_1_2 offsetof(struct dladbg_layer, bytes_cvsram)

static int run_layer_sized(const struct dladbg_run *run, uint32_t index, struct dladbg_layer *out,
                           size_t size)
{
    struct dla *d = run_dla(run);
    const struct dla_layer *l = d ? dla_layer_get(d, index) : NULL;
    if (!l || !out)
        return -1;
    struct plugin_run *pr = run_of(run);
    struct dladbg_layer whole;
    plugin_layer_from_record(l, &whole, pr->counters, &pr->lut);
    size_t known = size < sizeof whole ? size : sizeof whole;
    memcpy(out, &whole, known);
    memset((char *)out + known, 0, size - known); /* a later header's fields */
    return 0;
}

static int run_layer(const struct dladbg_run *run, uint32_t index, struct dladbg_layer *out)
{
    return run_layer_sized(run, index, out, LAYER_SIZE_1_2);
}

/* What the register held when the layer started: the live value when the
 * layer has not started yet, else the register file replayed up to its
 * LAYER_START record (reg_history.h). */
static int run_layer_reg(const struct dladbg_run *run, uint32_t layer, const char *unit,
                         const char *reg, const char *field, uint32_t *value)
{
    struct plugin_run *pr = run_of(run);
    struct dla *d = run_dla(run);
    const struct dla_layer *l = d ? dla_layer_get(d, layer) : NULL;
    if (!l || !unit || !reg || !value)
        return -1;
    const struct regdb_unit *ru = regdb_unit_named(dla_regmap(d), unit);
    const struct regdb_reg *rr = ru ? regdb_reg_named(ru, reg) : NULL;
    const struct regdb_field *rf = rr && field ? regdb_field_named(rr, field) : NULL;
    if (!rr || (field && !rf))
        return -1;
    int group = rr->dual ? l->group : -1;
    if (rr->dual && group > 1)
        return -1; /* a BDMA group still being queued */
    uint32_t v = dla_reg_value(d, dla_unit_of(d, ru), group < 0 ? 0 : group, rr->offset);
    if (l->state != DLA_LAYER_PROGRAMMING && l->state != DLA_LAYER_ENABLED) {
        if (!pr->history)
            pr->history = reg_history_create(pr->ring, dla_layer_count(d));
        size_t start;
        if (!pr->history || !reg_history_layer_start(pr->history, layer, &start))
            return -1; /* out of memory, or the ring no longer reaches back to the start */
        v = reg_history_value_at(pr->history, start, regdb_addr(ru, rr),
                                 group < 0 ? 0xff : (uint8_t)group, v);
    }
    *value = rf ? regdb_field_get(rf, v) : v;
    return 0;
}

struct each_ctx {
    dladbg_event_fn fn;
    void *ctx;
};

static bool each_one(void *ctx, const struct dladbg_event *ev)
{
    struct each_ctx *e = ctx;
    e->fn(e->ctx, ev);
    return true;
}

static void run_each_event(const struct dladbg_run *run, dladbg_event_fn fn, void *ctx)
{
    struct dla *d = run_dla(run);
    if (!d || !fn)
        return;
    struct each_ctx e = {fn, ctx};
    const struct plugin_run *pr = run_of(run);
    plugin_events_each(d, pr->ring, pr->session && session_finished(pr->session), 0, each_one, &e);
}

static int run_read_mem(const struct dladbg_run *run, const char *space, uint64_t addr, void *buf,
                        size_t len)
{
    struct dla *d = run_dla(run);
    if (!d || !space || !buf)
        return -1;
    for (int s = 0; s < DLA_SPACE_COUNT; s++)
        if (!strcmp(space, dla_space_name((enum dla_space)s)))
            return dla_mem_read(d, (enum dla_space)s, addr, buf, len) == MEM_OK ? 0 : -1;
    return -1;
}

void plugin_run_release(struct plugin_run *pr)
{
    reg_history_destroy(pr->history);
    pr->history = NULL;
}

void plugin_run_init(struct plugin_run *pr, struct session *s, const struct trace_ring *ring)
{
    memset(pr, 0, sizeof *pr);
    pr->session = s;
    pr->ring = ring;
    struct dla *d = s ? session_dla(s) : NULL;
    pr->run = (struct dladbg_run){.struct_size = sizeof pr->run,
                                  .config = d ? dla_cfg(d)->name : "",
                                  .atom_bytes = d ? dla_cfg(d)->mem_atom : 0,
                                  .layer_count = run_layer_count,
                                  .layer = run_layer,
                                  .layer_reg = run_layer_reg,
                                  .each_event = run_each_event,
                                  .read_mem = run_read_mem,
                                  .host_private = pr,
                                  .layer_sized = run_layer_sized};
}
