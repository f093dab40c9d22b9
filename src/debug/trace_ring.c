/* The event ring buffer: fixed records in chunks added on demand up to the
 * capacity, then overwritten oldest first. */
#include "trace_ring.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/format.h"

#define DEFAULT_CAPACITY (1u << 19)
/* Records a chunk holds (28 KiB): a run's records cost what they hold and
 * at most a chunk more, and none is ever copied to grow the ring. */
#define CHUNK_RECS 512u
#define DIAG_SLOTS 256u

struct diag_slot {
    uint64_t owner; /* seq of the record the text belongs to */
    char rule[48];
    char msg[208];
};

struct trace_ring {
    struct trace_rec **chunk; /* record i is chunk[i / CHUNK_RECS][i % CHUNK_RECS] */
    size_t n_chunks, cap_chunks;
    size_t cap;   /* records kept at most */
    size_t alloc; /* records allocated: n_chunks' worth, at most cap */
    size_t start; /* index of the oldest record */
    size_t count;
    uint64_t next_seq;
    uint64_t dropped;
    struct dla *dla;
    int listener;
    /* DIAG_SLOTS of them (66 KiB), allocated at the first diagnostic: most
     * runs raise none */
    struct diag_slot *diag;
    unsigned next_diag;
};

struct trace_ring *trace_ring_create(size_t capacity)
{
    struct trace_ring *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->cap = capacity ? capacity : DEFAULT_CAPACITY;
    r->listener = -1;
    return r;
}

void trace_ring_destroy(struct trace_ring *r)
{
    if (!r)
        return;
    trace_ring_detach(r);
    for (size_t i = 0; i < r->n_chunks; i++)
        free(r->chunk[i]);
    free(r->chunk);
    free(r->diag);
    free(r);
}

void trace_ring_attach(struct trace_ring *r, struct dla *d)
{
    trace_ring_detach(r);
    r->dla = d;
    r->listener = dla_listen(d, trace_ring_record, r);
}

void trace_ring_detach(struct trace_ring *r)
{
    if (r->dla && r->listener >= 0)
        dla_unlisten(r->dla, r->listener);
    r->dla = NULL;
    r->listener = -1;
}

static struct trace_rec *rec_at(const struct trace_ring *r, size_t i)
{
    return &r->chunk[i / CHUNK_RECS][i % CHUNK_RECS];
}

/* One more chunk of records (the last may be cut at the capacity); false
 * when there is no memory for it. */
static bool add_chunk(struct trace_ring *r)
{
    if (r->n_chunks == r->cap_chunks) {
        size_t cap = r->cap_chunks ? 2 * r->cap_chunks : 8;
        struct trace_rec **c = realloc(r->chunk, cap * sizeof *c);
        if (!c)
            return false;
        r->chunk = c;
        r->cap_chunks = cap;
    }
    size_t n = r->cap - r->alloc < CHUNK_RECS ? r->cap - r->alloc : CHUNK_RECS;
    if (!(r->chunk[r->n_chunks] = malloc(n * sizeof **r->chunk)))
        return false;
    r->n_chunks++;
    r->alloc += n;
    return true;
}

/* A slot for the next record: a chunk more while below capacity (the ring
 * has not wrapped then: its records run from index 0), so a small
 * network's few thousand events cost what they hold. */
static struct trace_rec *slot_for_next(struct trace_ring *r)
{
    if (r->count == r->alloc && r->alloc < r->cap && !add_chunk(r)) {
        if (!r->alloc)
            return NULL; /* no memory at all: recording pauses, the run goes on */
        r->cap = r->alloc; /* keep what we have as the capacity */
    }
    if (r->count < r->alloc)
        return rec_at(r, (r->start + r->count++) % r->alloc);
    struct trace_rec *rec = rec_at(r, r->start);
    r->start = (r->start + 1) % r->alloc;
    r->dropped++;
    return rec;
}

static void keep_diag(struct trace_ring *r, struct trace_rec *rec, const struct dla_event *ev)
{
    rec->a = ev->u.diag.kind;
    rec->b = ev->u.diag.severity;
    rec->c = ev->u.diag.unit;
    rec->x = ev->u.diag.addr;
    rec->z = DIAG_SLOTS; /* no text: out of memory for the slots */
    if (!r->diag && !(r->diag = calloc(DIAG_SLOTS, sizeof *r->diag)))
        return;
    unsigned i = r->next_diag++ % DIAG_SLOTS;
    struct diag_slot *s = &r->diag[i];
    s->owner = rec->seq;
    snprintf(s->rule, sizeof s->rule, "%s", ev->u.diag.rule ? ev->u.diag.rule : "");
    snprintf(s->msg, sizeof s->msg, "%s", ev->u.diag.msg ? ev->u.diag.msg : "");
    rec->z = i;
}

static void fill(struct trace_ring *r, struct trace_rec *rec, const struct dla_event *ev)
{
    switch (ev->kind) {
    case DLA_EV_REG_WRITE:
    case DLA_EV_REG_READ:
        rec->a = ev->u.reg.unit;
        rec->b = ev->u.reg.group;
        rec->x = ev->u.reg.addr;
        rec->y = ev->u.reg.value;
        rec->z = ev->u.reg.old;
        break;
    case DLA_EV_LAYER_PROGRAM:
    case DLA_EV_LAYER_ENABLE:
    case DLA_EV_LAYER_START:
    case DLA_EV_LAYER_DONE:
        rec->a = ev->u.layer.proc;
        rec->b = ev->u.layer.group;
        rec->c = ev->u.layer.unit;
        break;
    case DLA_EV_INTR:
        rec->a = ev->u.intr.bit;
        rec->b = ev->u.intr.line;
        rec->x = ev->u.intr.status;
        break;
    case DLA_EV_DMA:
        rec->a = ev->u.dma.client;
        rec->b = ev->u.dma.space;
        rec->c = ev->u.dma.write;
        rec->p = ev->u.dma.addr;
        rec->q = ev->u.dma.bytes;
        rec->r = ev->u.dma.start;
        rec->s = ev->u.dma.end;
        break;
    case DLA_EV_CBUF:
        rec->a = ev->u.cbuf.first_bank;
        rec->b = ev->u.cbuf.n_banks;
        rec->c = ev->u.cbuf.kind;
        rec->q = ev->u.cbuf.bytes;
        break;
    case DLA_EV_LUT:
        rec->a = ev->u.lut.unit;
        break;
    case DLA_EV_PERF:
        break;
    case DLA_EV_DIAG:
        keep_diag(r, rec, ev);
        break;
    default:
        break;
    }
}

void trace_ring_record(void *ring, const struct dla_event *ev)
{
    struct trace_ring *r = ring;
    struct trace_rec *rec = slot_for_next(r);
    if (!rec)
        return;
    memset(rec, 0, sizeof *rec);
    rec->seq = r->next_seq++;
    rec->cycle = ev->cycle;
    rec->layer = ev->layer;
    rec->kind = ev->kind;
    fill(r, rec, ev);
}

size_t trace_ring_capacity(const struct trace_ring *r)
{
    return r->cap;
}

size_t trace_ring_bytes(const struct trace_ring *r)
{
    return sizeof *r + r->alloc * sizeof **r->chunk + r->cap_chunks * sizeof *r->chunk +
           (r->diag ? DIAG_SLOTS * sizeof *r->diag : 0);
}

size_t trace_ring_count(const struct trace_ring *r)
{
    return r->count;
}

const struct trace_rec *trace_ring_get(const struct trace_ring *r, size_t i)
{
    return i < r->count ? rec_at(r, (r->start + i) % r->alloc) : NULL;
}

uint64_t trace_ring_next_seq(const struct trace_ring *r)
{
    return r->next_seq;
}

uint64_t trace_ring_dropped(const struct trace_ring *r)
{
    return r->dropped;
}

void trace_ring_truncate(struct trace_ring *r, uint64_t seq)
{
    while (r->count && trace_ring_get(r, r->count - 1)->seq >= seq)
        r->count--;
    if (seq < r->next_seq)
        r->next_seq = seq;
}

void trace_ring_clear(struct trace_ring *r)
{
    r->count = r->start = 0;
    r->next_seq = r->dropped = 0;
}

static const struct diag_slot *diag_of(const struct trace_ring *r, const struct trace_rec *rec)
{
    if (rec->kind != DLA_EV_DIAG || !r->diag || rec->z >= DIAG_SLOTS ||
        r->diag[rec->z].owner != rec->seq)
        return NULL;
    return &r->diag[rec->z];
}

const char *trace_ring_diag_msg(const struct trace_ring *r, const struct trace_rec *rec)
{
    const struct diag_slot *s = diag_of(r, rec);
    return s ? s->msg : "";
}

const char *trace_ring_diag_rule(const struct trace_ring *r, const struct trace_rec *rec)
{
    const struct diag_slot *s = diag_of(r, rec);
    return s ? s->rule : "";
}

static const char *layer_verb(uint8_t kind)
{
    switch (kind) {
    case DLA_EV_LAYER_PROGRAM:
        return "programmed";
    case DLA_EV_LAYER_ENABLE:
        return "enabled";
    case DLA_EV_LAYER_START:
        return "started";
    default:
        return "done";
    }
}

void trace_ring_describe(const struct trace_ring *r, const struct trace_rec *rec,
                         const struct regdb_map *map, char *buf, size_t len)
{
    char name[96];
    int n = snprintf(buf, len, "#%llu cycle %llu: ", (unsigned long long)rec->seq,
                     (unsigned long long)rec->cycle);
    if (n < 0 || (size_t)n >= len)
        return;
    buf += n;
    len -= (size_t)n;
    switch (rec->kind) {
    case DLA_EV_REG_WRITE:
        format_reg_name(map, rec->x, name, sizeof name);
        snprintf(buf, len, "write %s = 0x%08x (was 0x%08x)", name, rec->y, rec->z);
        break;
    case DLA_EV_REG_READ:
        format_reg_name(map, rec->x, name, sizeof name);
        snprintf(buf, len, "read %s -> 0x%08x", name, rec->y);
        break;
    case DLA_EV_LAYER_PROGRAM:
    case DLA_EV_LAYER_ENABLE:
    case DLA_EV_LAYER_START:
    case DLA_EV_LAYER_DONE:
        format_layer_event(rec->layer, (enum dla_proc)rec->a, rec->b, layer_verb(rec->kind), buf,
                           len);
        break;
    case DLA_EV_INTR:
        snprintf(buf, len, "interrupt %s, status 0x%08x, line %s",
                 dla_intr_bit_name(rec->a) ? dla_intr_bit_name(rec->a) : "?", rec->x,
                 rec->b ? "asserted" : "masked");
        break;
    case DLA_EV_DMA:
        snprintf(buf, len, "layer %d %s %s %s 0x%llx %llu bytes (cycles %llu-%llu)", rec->layer,
                 dla_client_name((enum dla_client)rec->a), rec->c ? "write" : "read",
                 dla_space_name((enum dla_space)rec->b), (unsigned long long)rec->p,
                 (unsigned long long)rec->q, (unsigned long long)rec->r,
                 (unsigned long long)rec->s);
        break;
    case DLA_EV_CBUF:
        snprintf(buf, len, "layer %d CBUF banks %u-%u %s, %llu bytes", rec->layer, rec->a,
                 rec->a + rec->b - (rec->b ? 1 : 0),
                 rec->c == 0   ? "data"
                 : rec->c == 1 ? "weight"
                               : "wmb",
                 (unsigned long long)rec->q);
        break;
    case DLA_EV_LUT:
        snprintf(buf, len, "layer %d LUT statistics (%s)", rec->layer,
                 dla_unit_name((enum dla_unit)rec->a));
        break;
    case DLA_EV_PERF:
        snprintf(buf, len, "layer %d performance counters", rec->layer);
        break;
    case DLA_EV_DIAG: {
        const char *rule = trace_ring_diag_rule(r, rec);
        snprintf(buf, len, "%s: %s%s%s%s", dla_severity_name((enum dla_severity)rec->b),
                 trace_ring_diag_msg(r, rec), rule[0] ? " [" : "", rule, rule[0] ? "]" : "");
        break;
    }
    default:
        snprintf(buf, len, "event %u", rec->kind);
        break;
    }
}
