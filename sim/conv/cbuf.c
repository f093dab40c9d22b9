/* CONV_BUF: banks of entries holding real bytes (see cbuf.h).  A bank's
 * bytes are reference-counted chunks of 4 KiB (a smaller bank is one
 * chunk), each allocated on its first write (a chunk never written reads as
 * zeros) and copied on the first write after a clone, so a checkpoint costs
 * only the chunks written after it, and a layer that writes a few entries of
 * nv_full's 32 KiB banks holds those entries' chunks, not whole banks (a
 * small network's CBUF took 100-260 KiB of whole banks, issue 34).  Plus
 * per-bank bookkeeping for the debugger's bank map and the carry-over state
 * of the previous layer. */
#include "cbuf.h"

#include <stdlib.h>
#include <string.h>

#include "conv.h"

#define CBUF_MAX_BANKS       64
#define CBUF_MAX_ENTRY_BYTES 256
#define CHUNK_BYTES          4096u
#define MAX_CHUNKS_PER_BANK  8u

struct bank_store {
    unsigned refs;
    uint8_t bytes[];
};

struct cbuf {
    unsigned banks, bank_bytes, entry_bytes;
    unsigned chunk_bytes, chunks_per_bank; /* chunks of whole entries */
    /* bank b's chunk k is store[b * chunks_per_bank + k]; NULL: all zeros */
    struct bank_store *store[CBUF_MAX_BANKS * MAX_CHUNKS_PER_BANK];
    struct dla_cbuf_bank bank[CBUF_MAX_BANKS];
    struct cbuf_carry carry;
};

static const uint8_t zero_entry[CBUF_MAX_ENTRY_BYTES];

struct cbuf *cbuf_create(const struct dla_config *cfg)
{
    if (cfg->cbuf_banks == 0 || cfg->cbuf_banks > CBUF_MAX_BANKS || cfg->cbuf_entry_bytes == 0 ||
        cfg->cbuf_entry_bytes > CBUF_MAX_ENTRY_BYTES ||
        cfg->cbuf_bank_bytes % cfg->cbuf_entry_bytes != 0)
        return NULL;
    struct cbuf *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->banks = cfg->cbuf_banks;
    c->bank_bytes = cfg->cbuf_bank_bytes;
    c->entry_bytes = cfg->cbuf_entry_bytes;
    bool chunked = c->bank_bytes % CHUNK_BYTES == 0 && CHUNK_BYTES % c->entry_bytes == 0 &&
                   c->bank_bytes / CHUNK_BYTES <= MAX_CHUNKS_PER_BANK;
    c->chunk_bytes = chunked ? CHUNK_BYTES : c->bank_bytes;
    c->chunks_per_bank = c->bank_bytes / c->chunk_bytes;
    cbuf_reset(c);
    return c;
}

struct cbuf *cbuf_clone(const struct cbuf *c)
{
    struct cbuf *n = malloc(sizeof *n);
    if (!n)
        return NULL;
    *n = *c;
    for (unsigned i = 0; i < n->banks * n->chunks_per_bank; i++)
        if (n->store[i])
            n->store[i]->refs++;
    return n;
}

static void release_store(struct bank_store *s)
{
    if (s && --s->refs == 0)
        free(s);
}

void cbuf_destroy(struct cbuf *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < c->banks * c->chunks_per_bank; i++)
        release_store(c->store[i]);
    free(c);
}

bool cbuf_bank_shared(const struct cbuf *a, const struct cbuf *b, unsigned bank)
{
    if (bank >= a->banks)
        return false;
    bool any = false;
    for (unsigned k = 0; k < a->chunks_per_bank; k++) {
        unsigned i = bank * a->chunks_per_bank + k;
        if (a->store[i] != b->store[i])
            return false;
        any |= a->store[i] != NULL;
    }
    return any;
}

size_t cbuf_bytes_apart(const struct cbuf *c, const struct cbuf *live)
{
    size_t n = 0;
    for (unsigned i = 0; i < c->banks * c->chunks_per_bank; i++)
        if (c->store[i] && c->store[i] != live->store[i])
            n += c->chunk_bytes / c->store[i]->refs;
    return n;
}

/* The chunk of bank b at in_bank for writing, at that byte: this cbuf's own
 * copy, created on first use. */
static uint8_t *writable_at(struct cbuf *c, unsigned b, uint64_t in_bank)
{
    unsigned i = b * c->chunks_per_bank + (unsigned)(in_bank / c->chunk_bytes);
    struct bank_store *s = c->store[i];
    if (!s || s->refs > 1) {
        struct bank_store *own = malloc(sizeof *own + c->chunk_bytes);
        if (!own)
            abort(); /* a few KiB; without them the model's state is lost anyway */
        if (s)
            memcpy(own->bytes, s->bytes, c->chunk_bytes);
        else
            memset(own->bytes, 0, c->chunk_bytes);
        own->refs = 1;
        release_store(s);
        c->store[i] = s = own;
    }
    return s->bytes + in_bank % c->chunk_bytes;
}

/* The bytes of bank b at in_bank for reading; NULL: never written, zeros. */
static const uint8_t *readable_at(const struct cbuf *c, unsigned b, uint64_t in_bank)
{
    const struct bank_store *s =
        c->store[b * c->chunks_per_bank + (unsigned)(in_bank / c->chunk_bytes)];
    return s ? s->bytes + in_bank % c->chunk_bytes : NULL;
}

void cbuf_reset(struct cbuf *c)
{
    for (unsigned i = 0; i < c->banks * c->chunks_per_bank; i++) {
        release_store(c->store[i]);
        c->store[i] = NULL;
    }
    for (unsigned i = 0; i < c->banks; i++)
        c->bank[i] = (struct dla_cbuf_bank){.layer = -1};
    c->carry = (struct cbuf_carry){0};
}

size_t cbuf_describe(const struct cbuf *c, struct dla_cbuf_bank *out, size_t max)
{
    size_t n = c->banks < max ? c->banks : max;
    if (n)
        memcpy(out, c->bank, n * sizeof *out);
    return c->banks;
}

size_t dla_cbuf_banks(const struct dla *d, struct dla_cbuf_bank *out, size_t max)
{
    return cbuf_describe(d->cbuf, out, max);
}

bool cbuf_state_create(struct dla *d)
{
    d->cbuf = cbuf_create(d->cfg);
    return d->cbuf != NULL;
}

void cbuf_state_destroy(struct dla *d)
{
    cbuf_destroy(d->cbuf);
}

/* Reset empties the buffer, and CDMA's S_CBUF_FLUSH_STATUS reads FLUSH_DONE
 * only once the hardware's flush has had its cycles. */
void cbuf_state_reset(struct dla *d)
{
    cbuf_reset(d->cbuf);
    d->cbuf_flushed = false;
    dla_unit_timer_at(d, &conv_unit, d->cfg->cbuf_flush_cycles);
}

void cbuf_flush_done(struct dla *d)
{
    d->cbuf_flushed = true;
}

/* dst->cbuf still names src's buffer: replace it, by NULL on failure. */
bool cbuf_state_clone(struct dla *dst, const struct dla *src)
{
    dst->cbuf = cbuf_clone(src->cbuf);
    return dst->cbuf != NULL;
}

const void *cbuf_state_of(const struct dla *d)
{
    return d->cbuf;
}

size_t cbuf_state_bytes_apart(const void *state, const void *live)
{
    return cbuf_bytes_apart(state, live);
}

uint64_t cbuf_region_bytes(const struct cbuf *c, const struct cbuf_region *r)
{
    return (uint64_t)r->n_banks * c->bank_bytes;
}

struct cbuf_carry *cbuf_carry(struct cbuf *c)
{
    return &c->carry;
}

static bool region_ok(const struct cbuf *c, const struct cbuf_region *r)
{
    return r->n_banks > 0 && r->first_bank + r->n_banks <= c->banks;
}

/* A layer takes a bank over: the map shows the new owner from now on. */
static void claim(struct cbuf *c, unsigned b, int32_t layer, enum cbuf_kind kind)
{
    struct dla_cbuf_bank *bk = &c->bank[b];
    if (bk->layer != layer || bk->kind != (uint8_t)kind) {
        bk->layer = layer;
        bk->kind = (uint8_t)kind;
        bk->bytes_used = 0;
    }
}

/* One step of a read or write at region byte offset off (wrapped): the bank
 * it falls in, the offset inside that bank, and how many of the len bytes
 * left fit before the next entry boundary.  Reads and writes never cross an
 * entry in one step, so the banks' read and write counts are per entry. */
struct cbuf_step {
    unsigned bank;
    uint64_t in_bank;
    size_t len;
};

static inline struct cbuf_step step_at(const struct cbuf *c, const struct cbuf_region *r,
                                       uint64_t off, size_t len)
{
    uint64_t in_region = off % cbuf_region_bytes(c, r);
    uint64_t in_bank = in_region % c->bank_bytes;
    uint64_t room = c->entry_bytes - in_bank % c->entry_bytes;
    return (struct cbuf_step){.bank = r->first_bank + (unsigned)(in_region / c->bank_bytes),
                              .in_bank = in_bank,
                              .len = len < room ? len : (size_t)room};
}

void cbuf_write(struct cbuf *c, const struct cbuf_region *r, uint64_t off, const void *src,
                size_t len, int32_t layer, enum cbuf_kind kind)
{
    if (!region_ok(c, r))
        return;
    const uint8_t *s = src;
    while (len > 0) {
        struct cbuf_step st = step_at(c, r, off, len);
        size_t n = st.len;
        memcpy(writable_at(c, st.bank, st.in_bank), s, n);
        claim(c, st.bank, layer, kind);
        struct dla_cbuf_bank *bk = &c->bank[st.bank];
        bk->writes++;
        if (st.in_bank + n > bk->bytes_used)
            bk->bytes_used = st.in_bank + n;
        s += n;
        off += n;
        len -= n;
    }
}

void cbuf_read(struct cbuf *c, const struct cbuf_region *r, uint64_t off, void *dst, size_t len)
{
    uint8_t *o = dst;
    if (!region_ok(c, r)) {
        memset(dst, 0, len);
        return;
    }
    while (len > 0) {
        struct cbuf_step st = step_at(c, r, off, len);
        size_t n = st.len;
        const uint8_t *from = readable_at(c, st.bank, st.in_bank);
        if (from)
            memcpy(o, from, n);
        else
            memset(o, 0, n);
        c->bank[st.bank].reads++;
        o += n;
        off += n;
        len -= n;
    }
}

const uint8_t *cbuf_entry_ptr(const struct cbuf *c, const struct cbuf_region *r, uint64_t entry)
{
    struct cbuf_step st = step_at(c, r, entry * c->entry_bytes, c->entry_bytes);
    const uint8_t *at = readable_at(c, st.bank, st.in_bank);
    return at ? at : zero_entry;
}

void cbuf_publish(struct dla *d, const struct cbuf_region *r, enum cbuf_kind kind, uint64_t bytes,
                  int32_t layer)
{
    struct dla_event ev = {.kind = DLA_EV_CBUF, .cycle = d->now, .layer = layer};
    ev.u.cbuf.first_bank = (uint8_t)r->first_bank;
    ev.u.cbuf.n_banks = (uint8_t)r->n_banks;
    ev.u.cbuf.kind = (uint8_t)kind;
    ev.u.cbuf.bytes = bytes;
    dla_emit(d, &ev);
}
