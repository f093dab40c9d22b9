/* The event ring buffer: fixed records in chunks added on demand up to the
 * capacity, then overwritten oldest first. */
#include "trace_ring.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/format.h"
#include "util/grow.h"

#define DEFAULT_CAPACITY (1u << 19)
/* Records a chunk holds: a run's records cost what they hold and at most
 * a chunk more, and none is ever copied to grow the ring. */
#define CHUNK_RECS 512u
/* The most bytes one record encodes to: kind, cycle and layer, three raw
 * bytes, four 64-bit varints. */
#define MAX_ENCODED 64u
#define DIAG_SLOTS  256u

struct diag_slot {
    uint64_t owner; /* seq of the record the text belongs to */
    char rule[48];
    char msg[208];
};

/* Records are kept encoded, not as struct trace_rec (56 bytes): the kind,
 * the cycle and layer as the difference from the chunk's first record's,
 * the kind's small fields as bytes and its words as varints.  A register
 * write, most of a run's events, takes some 14 bytes and its offset 2 (the
 * programming log holds the same writes again, in 16 bytes each).  The
 * sequence numbers are implicit: consecutive, the newest next_seq - 1. */
struct chunk {
    uint64_t cycle0;
    int32_t layer0;
    unsigned n;    /* records */
    uint32_t used; /* bytes of data */
    uint8_t *data; /* the ring's stage while this is the newest chunk and not
                      full, else its own `used` bytes */
    uint16_t off[CHUNK_RECS];
};

struct trace_ring {
    /* what recording a record reads and writes, in one cache line: the
     * simulation between two events (a BDMA line is 4 KiB) pushes the
     * ring's lines out of L1, and each line it needs again is a miss */
    struct chunk *open; /* the newest chunk while it is on the stage and not
                           full; NULL: the next record asks chunk_for_next */
    size_t count;       /* records held */
    size_t cap;         /* records kept at most */
    uint64_t next_seq;
    struct chunk **chunk; /* oldest first; all but the newest full */
    size_t n_chunks, cap_chunks;
    struct chunk *spare; /* a chunk dropped or forgotten, without data, for the next */
    /* The newest chunk's records are encoded here, a whole chunk's worst
     * case, and copied to an allocation of their size once the chunk is
     * full.  Encoding into room allocated per chunk and giving back what
     * the records did not use (realloc) left a hole in the heap at every
     * chunk, where the model's held writes then landed and, growing by
     * realloc, had to move: on make bench's BDMA trace they moved 4 times
     * as often as without the ring (19.6 MB a run, not 7.0), which cost
     * about as much as the recording (share/performance-history.md).
     * Kept from the first record to the ring's end. */
    uint8_t *stage;
    size_t hidden; /* records of chunk[0] already dropped (overwritten) */
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

/* The chunk's data, unless it is the stage. */
static void chunk_free_data(struct trace_ring *r, struct chunk *c)
{
    if (c->data != r->stage)
        free(c->data);
    c->data = NULL;
}

static void chunk_free(struct trace_ring *r, struct chunk *c)
{
    if (c)
        chunk_free_data(r, c);
    free(c);
}

void trace_ring_destroy(struct trace_ring *r)
{
    if (!r)
        return;
    trace_ring_detach(r);
    for (size_t i = 0; i < r->n_chunks; i++)
        chunk_free(r, r->chunk[i]);
    chunk_free(r, r->spare);
    free(r->stage);
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

/* ---------------------------------------------------------------- encoding */

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static const uint8_t *get_varint(const uint8_t *p, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0;; shift += 7) {
        uint8_t b = *p++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    *v = x;
    return p;
}

/* Signed differences as small unsigned numbers (0, -1, 1, -2, ...). */
static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static uint8_t *put3(uint8_t *p, uint8_t a, uint8_t b, uint8_t c)
{
    p[0] = a;
    p[1] = b;
    p[2] = c;
    return p + 3;
}

/* The fields of the event each kind keeps (see struct trace_rec). */
static uint8_t *encode_fields(struct trace_ring *r, uint8_t *p, uint64_t seq,
                              const struct dla_event *ev);

static uint8_t *encode(struct trace_ring *r, const struct chunk *c, uint8_t *p, uint64_t seq,
                       const struct dla_event *ev)
{
    *p++ = ev->kind;
    p = put_varint(p, zigzag((int64_t)(ev->cycle - c->cycle0)));
    p = put_varint(p, zigzag((int64_t)ev->layer - c->layer0));
    return encode_fields(r, p, seq, ev);
}

static void keep_diag(struct trace_ring *r, uint64_t seq, const struct dla_event *ev,
                      uint32_t *slot)
{
    *slot = DIAG_SLOTS; /* no text: out of memory for the slots */
    if (!r->diag && !(r->diag = calloc(DIAG_SLOTS, sizeof *r->diag)))
        return;
    unsigned i = r->next_diag++ % DIAG_SLOTS;
    struct diag_slot *s = &r->diag[i];
    s->owner = seq;
    snprintf(s->rule, sizeof s->rule, "%s", ev->u.diag.rule ? ev->u.diag.rule : "");
    snprintf(s->msg, sizeof s->msg, "%s", ev->u.diag.msg ? ev->u.diag.msg : "");
    *slot = i;
}

static uint8_t *encode_fields(struct trace_ring *r, uint8_t *p, uint64_t seq,
                              const struct dla_event *ev)
{
    switch (ev->kind) {
    case DLA_EV_REG_WRITE:
    case DLA_EV_REG_READ:
        p = put3(p, ev->u.reg.unit, ev->u.reg.group, 0);
        p = put_varint(p, ev->u.reg.addr);
        p = put_varint(p, ev->u.reg.value);
        return put_varint(p, ev->u.reg.old);
    case DLA_EV_LAYER_PROGRAM:
    case DLA_EV_LAYER_ENABLE:
    case DLA_EV_LAYER_START:
    case DLA_EV_LAYER_DONE:
        return put3(p, ev->u.layer.proc, ev->u.layer.group, ev->u.layer.unit);
    case DLA_EV_INTR:
        p = put3(p, ev->u.intr.bit, ev->u.intr.line, 0);
        return put_varint(p, ev->u.intr.status);
    case DLA_EV_DMA:
        p = put3(p, ev->u.dma.client, ev->u.dma.space, ev->u.dma.write);
        p = put_varint(p, ev->u.dma.addr);
        p = put_varint(p, ev->u.dma.bytes);
        p = put_varint(p, ev->u.dma.start);
        return put_varint(p, ev->u.dma.end);
    case DLA_EV_CBUF:
        p = put3(p, ev->u.cbuf.first_bank, ev->u.cbuf.n_banks, ev->u.cbuf.kind);
        return put_varint(p, ev->u.cbuf.bytes);
    case DLA_EV_LUT:
        return put3(p, ev->u.lut.unit, 0, 0);
    case DLA_EV_DIAG: {
        uint32_t slot;
        keep_diag(r, seq, ev, &slot);
        p = put3(p, ev->u.diag.kind, ev->u.diag.severity, ev->u.diag.unit);
        p = put_varint(p, ev->u.diag.addr);
        return put_varint(p, slot);
    }
    default: /* DLA_EV_PERF and any other: the layer says it */
        return p;
    }
}

static const uint8_t *get3(const uint8_t *p, struct trace_rec *out)
{
    out->a = p[0];
    out->b = p[1];
    out->c = p[2];
    return p + 3;
}

static const uint8_t *get_u32(const uint8_t *p, uint32_t *v)
{
    uint64_t x;
    p = get_varint(p, &x);
    *v = (uint32_t)x;
    return p;
}

/* encode_fields read back, kind by kind. */
static void decode_fields(const uint8_t *p, struct trace_rec *out)
{
    switch (out->kind) {
    case DLA_EV_REG_WRITE:
    case DLA_EV_REG_READ:
        p = get_u32(get3(p, out), &out->x);
        get_u32(get_u32(p, &out->y), &out->z);
        break;
    case DLA_EV_LAYER_PROGRAM:
    case DLA_EV_LAYER_ENABLE:
    case DLA_EV_LAYER_START:
    case DLA_EV_LAYER_DONE:
    case DLA_EV_LUT:
        get3(p, out);
        break;
    case DLA_EV_INTR:
        get_u32(get3(p, out), &out->x);
        break;
    case DLA_EV_DMA:
        p = get_varint(get3(p, out), &out->p);
        p = get_varint(p, &out->q);
        get_varint(get_varint(p, &out->r), &out->s);
        break;
    case DLA_EV_CBUF:
        get_varint(get3(p, out), &out->q);
        break;
    case DLA_EV_DIAG:
        get_u32(get_u32(get3(p, out), &out->x), &out->z);
        break;
    default:
        break;
    }
}

static void decode(const struct chunk *c, unsigned k, uint64_t seq, struct trace_rec *out)
{
    const uint8_t *p = c->data + c->off[k];
    uint64_t v;
    memset(out, 0, sizeof *out);
    out->seq = seq;
    out->kind = *p++;
    p = get_varint(p, &v);
    out->cycle = c->cycle0 + (uint64_t)unzigzag(v);
    p = get_varint(p, &v);
    out->layer = (int32_t)(c->layer0 + unzigzag(v));
    decode_fields(p, out);
}

/* ---------------------------------------------------------------- chunks */

/* c, the newest chunk and not full, records into the stage: its records
 * so far are copied there (a chunk stepped back into); false when there is
 * no memory for the stage. */
static bool onto_stage(struct trace_ring *r, struct chunk *c)
{
    if (c->data && c->data == r->stage)
        return true;
    if (!r->stage && !(r->stage = malloc(CHUNK_RECS * MAX_ENCODED)))
        return false;
    if (c->used)
        memcpy(r->stage, c->data, c->used);
    free(c->data);
    c->data = r->stage;
    return true;
}

/* A full chunk takes its records off the stage into an allocation of their
 * size; false when there is no memory for it. */
static bool off_stage(struct trace_ring *r, struct chunk *c)
{
    if (c->data != r->stage)
        return true;
    uint8_t *d = malloc(c->used ? c->used : 1);
    if (!d)
        return false;
    memcpy(d, r->stage, c->used);
    c->data = d;
    return true;
}

/* An empty chunk: the spare, or a new one; NULL when there is no memory. */
static struct chunk *fresh_chunk(struct trace_ring *r)
{
    struct chunk *c = r->spare;
    r->spare = NULL;
    if (!c && (c = malloc(sizeof *c)) != NULL)
        c->data = NULL;
    if (!c)
        return NULL;
    c->n = 0;
    c->used = 0;
    return c;
}

/* c, out of the ring, is kept as the spare (without its data). */
static void keep_spare(struct trace_ring *r, struct chunk *c)
{
    chunk_free_data(r, c);
    if (r->spare)
        chunk_free(r, r->spare);
    r->spare = c;
}

static bool push_chunk(struct trace_ring *r, struct chunk *c)
{
    struct chunk **v = grow_for_one(r->chunk, r->n_chunks, &r->cap_chunks, 8, sizeof *v);
    if (!v)
        return false;
    r->chunk = v;
    r->chunk[r->n_chunks++] = c;
    return true;
}

/* The oldest record held is dropped (overwritten); a chunk all dropped
 * becomes the spare. */
static void drop_oldest(struct trace_ring *r)
{
    r->count--;
    r->dropped++;
    if (++r->hidden < r->chunk[0]->n)
        return;
    struct chunk *old = r->chunk[0];
    if (old == r->open)
        r->open = NULL;
    memmove(r->chunk, r->chunk + 1, (r->n_chunks - 1) * sizeof *r->chunk);
    r->n_chunks--;
    r->hidden = 0;
    keep_spare(r, old);
}

/* The chunk the next record goes to; NULL when there is no memory at all
 * (recording pauses, the run goes on). */
static struct chunk *chunk_for_next(struct trace_ring *r)
{
    if (r->count >= r->cap && r->count)
        drop_oldest(r);
    struct chunk *last = r->n_chunks ? r->chunk[r->n_chunks - 1] : NULL;
    if (last && last->n < CHUNK_RECS) /* (a chunk stepped back into grows again) */
        return onto_stage(r, last) ? (r->open = last) : NULL;
    struct chunk *c = fresh_chunk(r);
    if (c && (!last || off_stage(r, last)) && push_chunk(r, c) && onto_stage(r, c))
        return r->open = c;
    if (c && r->n_chunks && r->chunk[r->n_chunks - 1] == c)
        r->n_chunks--; /* pushed, but no stage: out again */
    chunk_free(r, c);
    if (!last || r->n_chunks < 2)
        return NULL;
    /* no memory for more: what is held is the capacity, the oldest chunk
     * is reused */
    r->cap = r->count - (r->chunk[0]->n - r->hidden);
    while (r->n_chunks > 1 && r->count > r->cap)
        drop_oldest(r);
    return chunk_for_next(r);
}

void trace_ring_record(void *ring, const struct dla_event *ev)
{
    struct trace_ring *r = ring;
    struct chunk *c = r->open;
    if (!c || r->count >= r->cap)
        c = chunk_for_next(r);
    if (!c)
        return;
    if (c->n == 0) {
        c->cycle0 = ev->cycle;
        c->layer0 = ev->layer;
    }
    c->off[c->n] = (uint16_t)c->used;
    uint8_t *end = encode(r, c, c->data + c->used, r->next_seq, ev);
    c->used = (uint32_t)(end - c->data);
    if (++c->n == CHUNK_RECS)
        r->open = NULL;
    r->count++;
    r->next_seq++;
}

size_t trace_ring_capacity(const struct trace_ring *r)
{
    return r->cap;
}

size_t trace_ring_bytes(const struct trace_ring *r)
{
    size_t n =
        sizeof *r + r->cap_chunks * sizeof *r->chunk + (r->diag ? DIAG_SLOTS * sizeof *r->diag : 0);
    for (size_t i = 0; i < r->n_chunks; i++) {
        const struct chunk *c = r->chunk[i];
        n += sizeof *c + (c->data == r->stage ? 0 : c->used);
    }
    if (r->spare)
        n += sizeof *r->spare;
    if (r->stage)
        n += CHUNK_RECS * MAX_ENCODED;
    return n;
}

size_t trace_ring_count(const struct trace_ring *r)
{
    return r->count;
}

/* The chunk holding record i (i < count) and the record's place in it. */
static const struct chunk *chunk_of(const struct trace_ring *r, size_t i, unsigned *k)
{
    size_t at = r->hidden + i;
    *k = (unsigned)(at % CHUNK_RECS);
    return r->chunk[at / CHUNK_RECS];
}

bool trace_ring_get(const struct trace_ring *r, size_t i, struct trace_rec *out)
{
    if (i >= r->count)
        return false;
    unsigned k;
    const struct chunk *c = chunk_of(r, i, &k);
    decode(c, k, r->next_seq - r->count + i, out);
    return true;
}

/* Record k's kind, read in place: encode() puts it first. */
static inline uint8_t kind_at(const struct chunk *c, unsigned k)
{
    return c->data[c->off[k]];
}

int trace_ring_kind(const struct trace_ring *r, size_t i)
{
    if (i >= r->count)
        return -1;
    unsigned k;
    const struct chunk *c = chunk_of(r, i, &k);
    return kind_at(c, k);
}

/* Chunk by chunk, each record's kind byte read in place: chunk_of's
 * division and a call for each of a run's 10,000 records were most of a
 * one-kind walk's cost. */
size_t trace_ring_next_of(const struct trace_ring *r, size_t i, uint32_t kinds)
{
    _Static_assert(DLA_EV_KIND_COUNT <= 32, "a kind is a bit of kinds");
    size_t at = r->hidden + i, end = r->hidden + r->count;
    while (at < end) {
        const struct chunk *c = r->chunk[at / CHUNK_RECS];
        unsigned k = (unsigned)(at % CHUNK_RECS);
        size_t stop = end - at < CHUNK_RECS - k ? end : at + (CHUNK_RECS - k);
        for (; at < stop; at++, k++) {
            uint8_t kind = kind_at(c, k);
            if (kind < 32 && (kinds >> kind & 1u))
                return at - r->hidden;
        }
    }
    return r->count;
}

uint64_t trace_ring_next_seq(const struct trace_ring *r)
{
    return r->next_seq;
}

uint64_t trace_ring_dropped(const struct trace_ring *r)
{
    return r->dropped;
}

/* The newest record held is forgotten. */
static void forget_newest(struct trace_ring *r)
{
    struct chunk *c = r->chunk[r->n_chunks - 1];
    r->open = NULL; /* chunk_for_next finds the newest again */
    c->n--;
    c->used = c->off[c->n];
    r->count--;
    r->next_seq--;
    if (c->n > (r->n_chunks == 1 ? r->hidden : 0))
        return;
    /* emptied: it goes, and the one before, full, is the newest again (it
     * goes back onto the stage when it next records, chunk_for_next) */
    r->n_chunks--;
    if (r->n_chunks == 0)
        r->hidden = 0;
    keep_spare(r, c);
}

void trace_ring_truncate(struct trace_ring *r, uint64_t seq)
{
    while (r->count && r->next_seq - 1 >= seq)
        forget_newest(r);
    if (seq < r->next_seq)
        r->next_seq = seq;
}

void trace_ring_clear(struct trace_ring *r)
{
    while (r->count)
        forget_newest(r);
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
