/* "export csv FILE --decoder NAME": events of the run through a decoder
 * plugin, rows written with libcsv's quoting (RFC 4180) and CRLF line ends,
 * to a temporary file renamed when complete. */
#include <csv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afile.h"
#include "export.h"
#include "format.h"
#include "plugin_host.h"
#include "trace_ring.h"

struct csv_out {
    struct dladbg_host host; /* first: the decoder gets a pointer to it */
    const struct dladbg_decoder *dec;
    FILE *fp;
    char *line; /* one row, quoted, written with one fwrite */
    size_t line_cap;
    size_t rows;
    bool failed;
    char error[256];
};

static struct csv_out *out_of(const struct dladbg_host *h)
{
    return (struct csv_out *)h->host_private;
}

/* Room for need more bytes of the row being built. */
static bool line_room(struct csv_out *o, size_t used, size_t need)
{
    if (used + need <= o->line_cap)
        return true;
    size_t cap = o->line_cap ? o->line_cap : 256;
    while (cap < used + need)
        cap *= 2;
    char *p = realloc(o->line, cap);
    if (!p)
        return false;
    o->line = p;
    o->line_cap = cap;
    return true;
}

/* A row of cells quoted by libcsv (csv_write quotes as csv_fwrite does),
 * built in memory and written at once: per-character stdio calls made the
 * export slower than the decoders. */
static bool write_row(struct csv_out *o, const char *const *cells, uint32_t n)
{
    size_t used = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *c = cells[i] ? cells[i] : "";
        size_t len = strlen(c), need = 2 * len + 3; /* quotes doubled, two around, ',' */
        if (!line_room(o, used, need + 2))
            return false;
        if (i)
            o->line[used++] = ',';
        used += csv_write(o->line + used, o->line_cap - used, c, len);
    }
    o->line[used++] = '\r';
    o->line[used++] = '\n';
    return fwrite(o->line, 1, used, o->fp) == used;
}

static void host_row(const struct dladbg_host *h, const char *const *cells)
{
    struct csv_out *o = out_of(h);
    if (o->failed || !cells)
        return;
    if (!write_row(o, cells, o->dec->n_columns)) {
        o->failed = true;
        snprintf(o->error, sizeof o->error, "write error");
        return;
    }
    o->rows++;
}

static void host_error(const struct dladbg_host *h, const char *message)
{
    struct csv_out *o = out_of(h);
    if (!o->failed)
        snprintf(o->error, sizeof o->error, "decoder %s: %s", o->dec->name,
                 message ? message : "failed");
    o->failed = true;
}

/* ---------------------------------------------------------------- events */

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

static void layer_from_record(const struct dla_layer *l, struct dladbg_layer *out,
                              struct scratch *sc)
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
    out->compute_cycles = l->compute_cycles;
    out->stall_cycles = l->stall_cycles;
    out->bytes_read = l->bytes_read;
    out->bytes_written = l->bytes_written;
    out->reg_writes = l->reg_writes;
    uint32_t n = l->n_counters < DLA_MAX_COUNTERS ? l->n_counters : DLA_MAX_COUNTERS;
    for (uint32_t i = 0; i < n; i++)
        sc->counters[i] = (struct dladbg_counter){l->counters[i].name, l->counters[i].value};
    out->n_counters = n;
    out->counters = sc->counters;
    if (l->has_lut) {
        const struct dla_lut_stats *s = &l->lut;
        sc->lut = (struct dladbg_lut_stats){
            s->lookups, s->le_hit,       s->lo_hit,      s->underflow,    s->overflow,
            s->hybrid,  s->le_underflow, s->le_overflow, s->lo_underflow, s->lo_overflow};
        out->lut = &sc->lut;
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

/* Fill ev from a ring record; false for records decoders do not see. */
static bool ring_event(struct dla *d, const struct trace_ring *ring, const struct trace_rec *r,
                       struct dladbg_event *ev, struct scratch *sc)
{
    if (r->kind >= DLA_EV_KIND_COUNT || !kind_map[r->kind])
        return false;
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
        layer_from_record(l, &ev->u.layer, sc);
        if (r->kind != DLA_EV_LUT && r->kind != DLA_EV_PERF)
            ev->u.layer.state = r->kind == DLA_EV_LAYER_DONE ? "done" : ev->u.layer.state;
        break;
    }
    return true;
}

static void feed(struct csv_out *o, void *state, struct dla *d, const struct trace_ring *ring)
{
    struct scratch *sc = malloc(sizeof *sc);
    if (!sc) {
        o->failed = true;
        snprintf(o->error, sizeof o->error, "out of memory");
        return;
    }
    struct dladbg_event ev;
    size_t n = ring ? trace_ring_count(ring) : 0;
    for (size_t i = 0; i < n && !o->failed; i++)
        if (ring_event(d, ring, trace_ring_get(ring, i), &ev, sc))
            o->dec->event(state, &o->host, &ev);
    for (size_t i = 0; i < dla_layer_count(d) && !o->failed; i++) {
        const struct dla_layer *l = dla_layer_get(d, i);
        memset(&ev, 0, sizeof ev);
        ev.struct_size = sizeof ev;
        ev.kind = DLADBG_EV_LAYER_RECORD;
        ev.cycle = l->end_cycle;
        ev.layer = (int32_t)l->index;
        layer_from_record(l, &ev.u.layer, sc);
        o->dec->event(state, &o->host, &ev);
    }
    free(sc);
}

bool export_csv(struct plugin_host *ph, const char *decoder, struct session *s,
                struct trace_ring *ring, const char *path, struct export_result *res, char *err,
                size_t errlen)
{
    memset(res, 0, sizeof *res);
    const struct plugin_info *pi = plugin_host_find(ph, decoder);
    if (!pi) {
        snprintf(err, errlen, "no decoder named \"%s\" (\"plugins\" lists them)", decoder);
        return false;
    }
    struct afile af;
    if (!afile_open(&af, path, err, errlen))
        return false;
    struct dla *d = session_dla(s);
    struct csv_out o = {.dec = pi->dec, .fp = af.fp};
    o.host = (struct dladbg_host){.struct_size = sizeof o.host,
                                  .row = host_row,
                                  .error = host_error,
                                  .config = dla_cfg(d)->name,
                                  .host_private = &o};
    if (!write_row(&o, pi->dec->columns, pi->dec->n_columns)) {
        o.failed = true;
        snprintf(o.error, sizeof o.error, "write error");
    }
    void *state = o.failed ? NULL : pi->dec->open(&o.host);
    if (!o.failed) {
        feed(&o, state, d, ring);
        pi->dec->close(state, &o.host);
    }
    free(o.line);
    if (o.failed) {
        afile_abort(&af);
        snprintf(err, errlen, "%s: %s", path, o.error);
        return false;
    }
    if (!afile_commit(&af, err, errlen))
        return false;
    res->rows = o.rows;
    res->files = 1;
    if (ring && trace_ring_dropped(ring))
        snprintf(res->note, sizeof res->note,
                 "the event ring kept the newest %zu events; %llu older ones were dropped",
                 trace_ring_count(ring), (unsigned long long)trace_ring_dropped(ring));
    return true;
}
