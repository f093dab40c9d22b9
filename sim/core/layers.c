/* Hardware layers: one record per operation of a processor group, from the
 * first register write that programs it to its completion. */
#include <stdlib.h>
#include <string.h>

#include "dla_priv.h"

/* Layer records live in chunks of LAYER_CHUNK, reference counted so that a
 * checkpoint shares every chunk with the live model; the model copies a chunk
 * before it writes a record in it (layer_at).  A checkpoint thus costs a
 * pointer per chunk instead of a copy of every layer of the run so far. */
#define LAYER_CHUNK 8

struct layer_chunk {
    unsigned refs;
    struct dla_layer rec[LAYER_CHUNK];
};

static void chunk_release(struct layer_chunk *c)
{
    if (c && --c->refs == 0)
        free(c);
}

void layers_release(struct dla *d)
{
    for (size_t i = 0; i < d->n_chunks; i++)
        chunk_release(d->layer_chunks[i]);
    free(d->layer_chunks);
    d->layer_chunks = NULL;
    d->n_chunks = d->cap_chunks = 0;
    d->n_layers = 0;
}

bool layers_share(struct dla *dst, const struct dla *src)
{
    dst->layer_chunks = NULL;
    dst->n_chunks = dst->cap_chunks = 0;
    dst->n_layers = 0;
    if (!src->n_chunks)
        return true;
    dst->layer_chunks = malloc(src->n_chunks * sizeof *dst->layer_chunks);
    if (!dst->layer_chunks)
        return false;
    for (size_t i = 0; i < src->n_chunks; i++) {
        dst->layer_chunks[i] = src->layer_chunks[i];
        dst->layer_chunks[i]->refs++;
    }
    dst->n_chunks = dst->cap_chunks = src->n_chunks;
    dst->n_layers = src->n_layers;
    return true;
}

size_t layers_bytes_apart(struct layer_chunk *const *chunks, size_t n_chunks, size_t cap_chunks,
                          const struct dla *live)
{
    size_t n = cap_chunks * sizeof *chunks;
    for (size_t i = 0; i < n_chunks; i++)
        if (i >= live->n_chunks || live->layer_chunks[i] != chunks[i])
            n += sizeof(struct layer_chunk) / chunks[i]->refs;
    return n;
}

/* The chunk of a record, unshared for writing. */
static struct layer_chunk *writable_chunk(struct dla *d, size_t chunk)
{
    struct layer_chunk *c = d->layer_chunks[chunk];
    if (c->refs > 1) {
        struct layer_chunk *own = malloc(sizeof *own);
        if (!own)
            abort(); /* the model's state would be lost: do not run on without it */
        *own = *c;
        own->refs = 1;
        c->refs--;
        d->layer_chunks[chunk] = own;
        c = own;
    }
    return c;
}

struct dla_layer *layer_at(struct dla *d, int32_t index)
{
    if (index < 0 || (size_t)index >= d->n_layers)
        return NULL;
    return &writable_chunk(d, (size_t)index / LAYER_CHUNK)->rec[(size_t)index % LAYER_CHUNK];
}

static void add_chunk(struct dla *d)
{
    d->layer_chunks =
        dla_grow(d->layer_chunks, d->n_chunks, &d->cap_chunks, 16, sizeof *d->layer_chunks);
    struct layer_chunk *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->refs = 1;
    d->layer_chunks[d->n_chunks++] = c;
}

int32_t layer_begin(struct dla *d, enum dla_proc p, int group)
{
    if (d->n_layers == d->n_chunks * LAYER_CHUNK)
        add_chunk(d);
    int32_t li = (int32_t)d->n_layers++;
    struct dla_layer *l = layer_at(d, li);
    memset(l, 0, sizeof *l);
    l->index = (uint32_t)li;
    l->proc = (uint8_t)p;
    l->group = (uint8_t)group;
    l->state = DLA_LAYER_PROGRAMMING;
    l->fed_by = -1;
    l->program_cycle = d->now;
    if (group == 0 || group == 1)
        d->cur_layer[p][group] = li;
    struct dla_event ev = {.kind = DLA_EV_LAYER_PROGRAM, .layer = li};
    ev.u.layer.proc = (uint8_t)p;
    ev.u.layer.group = (uint8_t)group;
    ev.u.layer.unit = DLA_U_NONE;
    dla_emit(d, &ev);
    return li;
}

/* The layer being programmed on (p, group), started if the group holds none
 * or only a finished one. */
int32_t layer_ensure(struct dla *d, enum dla_proc p, int group)
{
    int32_t li = d->cur_layer[p][group];
    const struct dla_layer *l = li >= 0 ? dla_layer_get(d, (size_t)li) : NULL;
    if (l && l->state != DLA_LAYER_DONE)
        return li;
    return layer_begin(d, p, group);
}

size_t dla_layer_count(const struct dla *d)
{
    return d->n_layers;
}

const struct dla_layer *dla_layer_get(const struct dla *d, size_t index)
{
    if (index >= d->n_layers)
        return NULL;
    return &d->layer_chunks[index / LAYER_CHUNK]->rec[index % LAYER_CHUNK];
}

const struct dla_layer *dla_layer_current(const struct dla *d, enum dla_proc p, int group)
{
    if (p >= DLA_P_COUNT || group < 0 || group > 1)
        return NULL;
    int32_t li = d->cur_layer[p][group];
    return li >= 0 ? dla_layer_get(d, (size_t)li) : NULL;
}

void layer_counter(struct dla_layer *l, const char *name, uint64_t value)
{
    for (uint32_t i = 0; i < l->n_counters; i++) {
        if (strcmp(l->counters[i].name, name) == 0) {
            l->counters[i].value = value;
            return;
        }
    }
    if (l->n_counters < DLA_MAX_COUNTERS)
        l->counters[l->n_counters++] = (struct dla_counter){name, value};
}
