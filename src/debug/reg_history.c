/* Register values at a point of the event ring (reg_history.h). */
#include "reg_history.h"

#include <stdlib.h>
#include <string.h>

/* An open-addressing table from (address, group) to a value. */
struct reg_table {
    size_t cap, n;
    uint32_t *key; /* 0: empty */
    uint32_t *value;
};

struct reg_history {
    const struct trace_ring *ring;
    size_t n_layers;
    long *start;           /* per layer: ring index of its LAYER_START, -1 */
    struct reg_table base; /* before the ring's oldest write: the first write's old value */
    struct reg_table now;  /* values written in [0, cursor) */
    size_t cursor;
};

static uint32_t key_of(uint32_t addr, uint8_t group)
{
    /* +1: key 0 marks an empty slot */
    return ((addr << 2) | (group == 0xff ? 2u : group & 1u)) + 1u;
}

static bool table_init(struct reg_table *t, size_t cap)
{
    t->cap = cap;
    t->n = 0;
    t->key = calloc(cap, sizeof *t->key);
    t->value = calloc(cap, sizeof *t->value);
    return t->key && t->value;
}

static void table_free(struct reg_table *t)
{
    free(t->key);
    free(t->value);
}

static size_t slot(const struct reg_table *t, uint32_t key)
{
    size_t i = (key * 2654435761u) & (t->cap - 1);
    while (t->key[i] && t->key[i] != key)
        i = (i + 1) & (t->cap - 1);
    return i;
}

/* Registers number a few thousand at most: a table of 2^14 never fills. */
#define TABLE_CAP (1u << 14)

static void table_put(struct reg_table *t, uint32_t key, uint32_t value, bool overwrite)
{
    size_t i = slot(t, key);
    if (t->key[i] && !overwrite)
        return;
    if (!t->key[i]) {
        if (t->n + 1 >= t->cap / 2)
            return; /* cannot happen with real register maps; never loop forever */
        t->n++;
    }
    t->key[i] = key;
    t->value[i] = value;
}

static bool table_get(const struct reg_table *t, uint32_t key, uint32_t *value)
{
    size_t i = slot(t, key);
    if (!t->key[i])
        return false;
    *value = t->value[i];
    return true;
}

struct reg_history *reg_history_create(const struct trace_ring *ring, size_t n_layers)
{
    struct reg_history *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->ring = ring;
    h->n_layers = n_layers;
    h->start = malloc((n_layers ? n_layers : 1) * sizeof *h->start);
    if (!h->start || !table_init(&h->base, TABLE_CAP) || !table_init(&h->now, TABLE_CAP)) {
        reg_history_destroy(h);
        return NULL;
    }
    for (size_t i = 0; i < n_layers; i++)
        h->start[i] = -1;
    size_t n = ring ? trace_ring_count(ring) : 0;
    for (size_t i = 0; i < n; i++) {
        struct trace_rec rec;
        const struct trace_rec *r = &rec;
        trace_ring_get(ring, i, &rec);
        if (r->kind == DLA_EV_REG_WRITE)
            table_put(&h->base, key_of(r->x, r->b), r->z, false);
        else if (r->kind == DLA_EV_LAYER_START && r->layer >= 0 && (size_t)r->layer < n_layers)
            h->start[r->layer] = (long)i;
    }
    return h;
}

void reg_history_destroy(struct reg_history *h)
{
    if (!h)
        return;
    free(h->start);
    table_free(&h->base);
    table_free(&h->now);
    free(h);
}

bool reg_history_layer_start(const struct reg_history *h, uint32_t layer, size_t *index)
{
    if (layer >= h->n_layers || h->start[layer] < 0)
        return false;
    *index = (size_t)h->start[layer];
    return true;
}

uint32_t reg_history_value_at(struct reg_history *h, size_t at, uint32_t addr, uint8_t group,
                              uint32_t live)
{
    if (at < h->cursor) { /* back in time: replay from the ring's start */
        memset(h->now.key, 0, h->now.cap * sizeof *h->now.key);
        h->now.n = 0;
        h->cursor = 0;
    }
    for (; h->cursor < at; h->cursor++) {
        struct trace_rec r;
        trace_ring_get(h->ring, h->cursor, &r);
        if (r.kind == DLA_EV_REG_WRITE)
            table_put(&h->now, key_of(r.x, r.b), r.y, true);
    }
    uint32_t key = key_of(addr, group), v;
    if (table_get(&h->now, key, &v) || table_get(&h->base, key, &v))
        return v;
    return live;
}
