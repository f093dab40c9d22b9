/* Hardware layers: one record per operation of a processor group, from the
 * first register write that programs it to its completion. */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dla_priv.h"

/* Layer records live in chunks of LAYER_CHUNK, reached through a tree of
 * nodes of LAYER_FAN children (the leftmost subtree of a deeper tree is the
 * shallower one), chunks and nodes reference counted: a checkpoint shares
 * the root with the live model, which copies a node or chunk before it
 * writes under it (layer_at).  A checkpoint thus costs one pointer, and a
 * write after it the path to one record: a run of a million layers takes a
 * checkpoint at each without copying a table of all the layers before
 * (that made such runs quadratic, issue 36). */
#define LAYER_CHUNK 8
#define LAYER_FAN 64

struct layer_chunk {
    unsigned refs;
    struct dla_layer rec[LAYER_CHUNK];
};

/* At level 1 the children are chunks, above it nodes. */
struct layer_node {
    unsigned refs;
    void *child[LAYER_FAN];
};

static _Atomic unsigned long long tree_work;
/* Trees shared so far (layers_share): a chunk made writable is the live
 * model's alone until the next. */
static _Atomic unsigned long long shares;

static bool hot(const struct dla *d, size_t chunk)
{
    return d->hot_chunk && d->hot_chunk_no == chunk &&
           d->hot_shares == atomic_load_explicit(&shares, memory_order_relaxed);
}

unsigned long long dla_layer_tree_work(void)
{
    return atomic_load_explicit(&tree_work, memory_order_relaxed);
}

static void count_work(unsigned long long slots)
{
    atomic_fetch_add_explicit(&tree_work, slots, memory_order_relaxed);
}

/* What a record points to (its counters, its LUT statistics): shared, like
 * the chunk, by every chunk holding a copy of the record, and freed with the
 * last.  A record writes its own only (layer_counter unshares first). */
struct blob {
    unsigned refs;
    size_t size;
    max_align_t payload[];
};

static struct blob *blob_of(const void *payload)
{
    return (struct blob *)(void *)((char *)(uintptr_t)payload - offsetof(struct blob, payload));
}

static void *blob_new(size_t size)
{
    struct blob *b = malloc(sizeof *b + size);
    if (!b)
        abort(); /* the model's state would be lost: do not run on without it */
    b->refs = 1;
    b->size = size;
    return b->payload;
}

static void blob_hold(const void *payload)
{
    if (payload)
        blob_of(payload)->refs++;
}

static void blob_release(const void *payload)
{
    if (payload && --blob_of(payload)->refs == 0)
        free(blob_of(payload));
}

/* Bytes of a blob, divided among its holders. */
static size_t blob_share(const void *payload)
{
    if (!payload)
        return 0;
    const struct blob *b = blob_of(payload);
    return (sizeof *b + b->size) / b->refs;
}

/* A record's description before it has one: no blob. */
static const char no_desc[] = "";

static const char *desc_blob(const char *desc)
{
    return desc == no_desc ? NULL : desc;
}

static void record_hold(const struct dla_layer *l)
{
    blob_hold(l->counters);
    blob_hold(l->lut);
    blob_hold(desc_blob(l->desc));
}

static void record_release(struct dla_layer *l)
{
    blob_release(l->counters);
    blob_release(l->lut);
    blob_release(desc_blob(l->desc));
    l->counters = NULL;
    l->lut = NULL;
    l->desc = NULL;
    l->n_counters = 0;
}

static void chunk_release(struct layer_chunk *c)
{
    if (c && --c->refs == 0) {
        for (int i = 0; i < LAYER_CHUNK; i++)
            record_release(&c->rec[i]);
        free(c);
    }
}

/* What the records of a chunk point to, each blob's share. */
static size_t chunk_blobs(const struct layer_chunk *c)
{
    size_t bytes = 0;
    for (int i = 0; i < LAYER_CHUNK; i++)
        bytes += blob_share(c->rec[i].counters) + blob_share(c->rec[i].lut) +
                 blob_share(desc_blob(c->rec[i].desc));
    return bytes;
}

/* Bytes of a chunk and what its records point to, divided among holders. */
static size_t chunk_share(const struct layer_chunk *c)
{
    return (sizeof *c + chunk_blobs(c)) / c->refs;
}

static void node_release(struct layer_node *n, unsigned level)
{
    if (!n || --n->refs)
        return;
    for (int i = 0; i < LAYER_FAN; i++)
        if (level > 1)
            node_release(n->child[i], level - 1);
        else
            chunk_release(n->child[i]);
    free(n);
}

void layers_release(struct dla *d)
{
    node_release(d->layer_root, d->layer_depth);
    d->hot_chunk = NULL;
    d->layer_root = NULL;
    d->layer_depth = 0;
    d->n_chunks = 0;
    d->n_layers = 0;
}

bool layers_share(struct dla *dst, const struct dla *src)
{
    atomic_fetch_add_explicit(&shares, 1, memory_order_relaxed);
    dst->hot_chunk = NULL;
    dst->layer_root = src->layer_root;
    dst->layer_depth = src->layer_depth;
    dst->n_chunks = src->n_chunks;
    dst->n_layers = src->n_layers;
    count_work(1);
    if (dst->layer_root)
        dst->layer_root->refs++;
    return true;
}

/* Bytes of the snapshot's node n that live's node at the same place (l,
 * NULL when none) does not share, each divided among its holders. */
static size_t node_apart(const struct layer_node *n, const struct layer_node *l, unsigned level)
{
    if (n == l)
        return 0;
    count_work(LAYER_FAN);
    size_t bytes = sizeof *n / n->refs;
    for (int i = 0; i < LAYER_FAN; i++) {
        const void *c = n->child[i], *lc = l ? l->child[i] : NULL;
        if (!c || c == lc)
            continue;
        if (level > 1)
            bytes += node_apart(c, lc, level - 1);
        else
            bytes += chunk_share(c);
    }
    return bytes;
}

size_t layers_bytes_apart(const struct layer_node *root, unsigned depth, const struct dla *live)
{
    if (!root)
        return 0;
    const struct layer_node *l = live->layer_root;
    unsigned ldepth = live->layer_depth;
    for (; l && ldepth > depth; ldepth--) /* the snapshot's tree is live's leftmost subtree */
        l = l->child[0];
    return node_apart(root, ldepth == depth ? l : NULL, depth);
}

/* Everything under node n, whole, but for the blobs' shares. */
static size_t node_bytes(const struct layer_node *n, unsigned level)
{
    if (!n)
        return 0;
    size_t bytes = sizeof *n;
    for (int i = 0; i < LAYER_FAN; i++) {
        const void *c = n->child[i];
        if (c && level > 1)
            bytes += node_bytes(c, level - 1);
        else if (c)
            bytes += sizeof(struct layer_chunk) + chunk_blobs(c);
    }
    return bytes;
}

size_t dla_layer_bytes(const struct dla *d)
{
    return node_bytes(d->layer_root, d->layer_depth);
}

/* *slot's node, unshared for writing. */
static struct layer_node *writable_node(struct layer_node **slot, unsigned level)
{
    struct layer_node *n = *slot;
    if (!n) {
        n = calloc(1, sizeof *n);
        if (!n)
            abort(); /* the model's state would be lost: do not run on without it */
        n->refs = 1;
    } else if (n->refs > 1) {
        struct layer_node *own = malloc(sizeof *own);
        if (!own)
            abort();
        count_work(LAYER_FAN);
        *own = *n;
        own->refs = 1;
        for (int i = 0; i < LAYER_FAN; i++)
            if (own->child[i]) {
                if (level > 1)
                    ((struct layer_node *)own->child[i])->refs++;
                else
                    ((struct layer_chunk *)own->child[i])->refs++;
            }
        n->refs--;
        n = own;
    }
    *slot = n;
    return n;
}

/* The slot of chunk `chunk`, every node above it unshared. */
static struct layer_chunk **chunk_slot(struct dla *d, size_t chunk)
{
    struct layer_node **slot = &d->layer_root;
    for (unsigned level = d->layer_depth; level >= 1; level--) {
        struct layer_node *n = writable_node(slot, level);
        size_t span = 1;
        for (unsigned k = 1; k < level; k++)
            span *= LAYER_FAN;
        size_t i = chunk / span % LAYER_FAN;
        if (level == 1)
            return (struct layer_chunk **)&n->child[i];
        slot = (struct layer_node **)&n->child[i];
    }
    abort(); /* depth 0 holds no chunk: callers add one first */
}

/* The chunk of a record, unshared for writing. */
static struct layer_chunk *writable_chunk(struct dla *d, size_t chunk)
{
    struct layer_chunk **slot = chunk_slot(d, chunk);
    struct layer_chunk *c = *slot;
    if (c->refs > 1) {
        struct layer_chunk *own = malloc(sizeof *own);
        if (!own)
            abort(); /* the model's state would be lost: do not run on without it */
        *own = *c;
        own->refs = 1;
        for (int i = 0; i < LAYER_CHUNK; i++)
            record_hold(&own->rec[i]);
        c->refs--;
        *slot = own;
        c = own;
    }
    return c;
}

struct dla_layer *layer_at(struct dla *d, int32_t index)
{
    if (index < 0 || (size_t)index >= d->n_layers)
        return NULL;
    size_t chunk = (size_t)index / LAYER_CHUNK;
    if (!hot(d, chunk)) {
        d->hot_chunk = writable_chunk(d, chunk);
        d->hot_chunk_no = chunk;
        d->hot_shares = atomic_load_explicit(&shares, memory_order_relaxed);
    }
    return &d->hot_chunk->rec[(size_t)index % LAYER_CHUNK];
}

static size_t chunk_capacity(unsigned depth)
{
    size_t cap = depth ? 1 : 0;
    for (unsigned k = 0; k < depth; k++)
        cap *= LAYER_FAN;
    return cap;
}

static void add_chunk(struct dla *d)
{
    if (d->n_chunks == chunk_capacity(d->layer_depth)) { /* a new root above the old */
        struct layer_node *root = calloc(1, sizeof *root);
        if (!root)
            abort();
        root->refs = 1;
        root->child[0] = d->layer_root; /* its reference moves to the new root */
        d->layer_root = root;
        d->layer_depth++;
    }
    struct layer_chunk *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->refs = 1;
    *chunk_slot(d, d->n_chunks++) = c;
}

int32_t layer_begin(struct dla *d, enum dla_proc p, int group)
{
    if (d->n_layers == d->n_chunks * LAYER_CHUNK)
        add_chunk(d);
    int32_t li = (int32_t)d->n_layers++;
    struct dla_layer *l = layer_at(d, li);
    record_release(l); /* a slot a restored state left behind */
    memset(l, 0, sizeof *l);
    l->index = (uint32_t)li;
    l->proc = (uint8_t)p;
    l->group = (uint8_t)group;
    l->state = DLA_LAYER_PROGRAMMING;
    l->fed_by = -1;
    l->desc = no_desc;
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
    size_t chunk = index / LAYER_CHUNK;
    if (hot(d, chunk))
        return &d->hot_chunk->rec[index % LAYER_CHUNK];
    const struct layer_node *n = d->layer_root;
    for (unsigned level = d->layer_depth; level > 1; level--)
        n = n->child[chunk / chunk_capacity(level - 1) % LAYER_FAN];
    const struct layer_chunk *c = n->child[chunk % LAYER_FAN];
    return &c->rec[index % LAYER_CHUNK];
}

const struct dla_layer *dla_layer_current(const struct dla *d, enum dla_proc p, int group)
{
    if (p >= DLA_P_COUNT || group < 0 || group > 1)
        return NULL;
    int32_t li = d->cur_layer[p][group];
    return li >= 0 ? dla_layer_get(d, (size_t)li) : NULL;
}

/* l's counters, unshared, with room for n of them. */
static struct dla_counter *own_counters(struct dla_layer *l, uint32_t n)
{
    struct dla_counter *c = blob_new(n * sizeof *c);
    if (l->n_counters)
        memcpy(c, l->counters, l->n_counters * sizeof *c);
    blob_release(l->counters);
    l->counters = c;
    return c;
}

void layer_counter(struct dla_layer *l, const char *name, uint64_t value)
{
    for (uint32_t i = 0; i < l->n_counters; i++) {
        if (strcmp(l->counters[i].name, name) == 0) {
            struct dla_counter *c = blob_of(l->counters)->refs > 1
                                        ? own_counters(l, l->n_counters)
                                        : (struct dla_counter *)(uintptr_t)l->counters;
            c[i].value = value;
            return;
        }
    }
    if (l->n_counters < DLA_MAX_COUNTERS) {
        /* sized to what the layer has: BDMA's two, not DLA_MAX_COUNTERS */
        struct dla_counter *c = own_counters(l, l->n_counters + 1);
        c[l->n_counters++] = (struct dla_counter){name, value};
    }
}

static bool same_counters(const struct dla_layer *a, const struct dla_layer *b)
{
    if (a->n_counters != b->n_counters)
        return false;
    for (uint32_t i = 0; i < a->n_counters; i++)
        if (a->counters[i].value != b->counters[i].value ||
            strcmp(a->counters[i].name, b->counters[i].name) != 0)
            return false;
    return true;
}

void layer_counters_settle(struct dla *d, struct dla_layer *l)
{
    /* the layer before, or the one before it (two groups taking turns) */
    for (uint32_t back = 1; back <= 2 && back <= l->index && l->n_counters; back++) {
        const struct dla_layer *prev = dla_layer_get(d, l->index - back);
        if (prev->counters == l->counters)
            return;
        if (same_counters(prev, l)) {
            blob_hold(prev->counters);
            blob_release(l->counters);
            l->counters = prev->counters;
            return;
        }
    }
}

void layer_lut_stats(struct dla_layer *l, const struct dla_lut_stats *s)
{
    struct dla_lut_stats *own = blob_new(sizeof *own);
    *own = *s;
    blob_release(l->lut);
    l->lut = own;
}

void layer_desc(struct dla *d, struct dla_layer *l, const char *text)
{
    /* a run of a million alike layers keeps one text, not a million */
    const struct dla_layer *prev = l->index ? dla_layer_get(d, l->index - 1) : NULL;
    const char *desc;
    if (prev && desc_blob(prev->desc) && strcmp(prev->desc, text) == 0) {
        desc = prev->desc;
        blob_hold(desc);
    } else {
        size_t n = strlen(text) + 1;
        desc = memcpy(blob_new(n), text, n);
    }
    blob_release(desc_blob(l->desc));
    l->desc = desc;
}

static int client_slot(const struct dla_layer *l, enum dla_client c)
{
    for (int i = 0; i < l->n_clients; i++)
        if (l->client[i] == c)
            return i;
    return -1;
}

void layer_client_add(struct dla_layer *l, enum dla_client c, uint64_t bytes, uint64_t transactions)
{
    int i = client_slot(l, c);
    if (i < 0) {
        if (l->n_clients == DLA_LAYER_CLIENTS)
            abort(); /* a layer moves data through its unit's clients only (SDP's five at most) */
        i = l->n_clients++;
        l->client[i] = (uint8_t)c;
    }
    l->client_bytes[i] += bytes;
    l->client_transactions[i] += transactions;
}

uint64_t dla_layer_client_bytes(const struct dla_layer *l, enum dla_client c)
{
    int i = client_slot(l, c);
    return i < 0 ? 0 : l->client_bytes[i];
}

uint64_t dla_layer_client_transactions(const struct dla_layer *l, enum dla_client c)
{
    int i = client_slot(l, c);
    return i < 0 ? 0 : l->client_transactions[i];
}

uint64_t dla_layer_dram_bytes(const struct dla_layer *l)
{
    return l->bytes_read + l->bytes_written - l->bytes_cvsram;
}
