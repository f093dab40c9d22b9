/* Loadable serialisation (see loadable_writer.h).
 *
 * The file is written front to back: the root offset, then each table
 * preceded by its vtable, then the table's strings, vectors and sub-tables.
 * Every uoffset therefore points forward, as flatbuffers requires, and every
 * scalar sits at a multiple of its size in the file. */
#include "loadable_writer.h"

#include <stdlib.h>
#include <string.h>

struct lw {
    bool oom;
    uint32_t n_blobs, n_memories, n_addresses, n_events, n_tasks, n_submits, n_tensors, n_relocs;
    struct ld_blob *blobs;
    struct ld_memory *memories;
    struct ld_address *addresses;
    struct ld_event *events;
    struct ld_task *tasks;
    struct ld_submit *submits;
    struct ld_tensor *tensors;
    struct ld_reloc *relocs;
};

struct lw *lw_create(void)
{
    return calloc(1, sizeof(struct lw));
}

void lw_destroy(struct lw *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < w->n_blobs; i++) {
        free((char *)w->blobs[i].name);
        free((uint8_t *)w->blobs[i].data);
    }
    for (uint32_t i = 0; i < w->n_memories; i++) {
        if (w->memories[i].n_contents)
            free((char *)w->memories[i].contents[0]);
        free(w->memories[i].contents);
        free(w->memories[i].offsets);
    }
    for (uint32_t i = 0; i < w->n_tasks; i++) {
        free(w->tasks[i].addresses);
        free(w->tasks[i].pre);
        free(w->tasks[i].post);
    }
    for (uint32_t i = 0; i < w->n_submits; i++)
        free(w->submits[i].tasks);
    for (uint32_t i = 0; i < w->n_tensors; i++)
        free((char *)w->tensors[i].name);
    free(w->blobs);
    free(w->memories);
    free(w->addresses);
    free(w->events);
    free(w->tasks);
    free(w->submits);
    free(w->tensors);
    free(w->relocs);
    free(w);
}

/* Append one zeroed element to an array; NULL when out of memory. */
static void *grow(struct lw *w, void **arr, uint32_t *n, size_t size)
{
    void *a = realloc(*arr, (*n + 1) * size);
    if (!a) {
        w->oom = true;
        return NULL;
    }
    *arr = a;
    void *e = (char *)a + size * *n;
    memset(e, 0, size);
    (*n)++;
    return e;
}

static char *dup_str(struct lw *w, const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        w->oom = true;
    return d;
}

static uint16_t *dup_ids(struct lw *w, const uint16_t *ids, uint32_t n)
{
    uint16_t *d = malloc((n ? n : 1) * sizeof *d);
    if (!d) {
        w->oom = true;
        return NULL;
    }
    if (n)
        memcpy(d, ids, n * sizeof *d);
    return d;
}

int lw_blob_take(struct lw *w, const char *name, uint32_t interface, uint32_t sub_interface,
                 struct ld_version version, uint8_t *data, size_t len)
{
    struct ld_blob *b = data ? grow(w, (void **)&w->blobs, &w->n_blobs, sizeof *b) : NULL;
    if (!b) {
        w->oom = true;
        free(data);
        return -1;
    }
    b->name = dup_str(w, name);
    b->interface = interface;
    b->sub_interface = sub_interface;
    b->version = version;
    b->size = b->data_len = len;
    b->data = data;
    return (int)w->n_blobs - 1;
}

int lw_blob(struct lw *w, const char *name, uint32_t interface, uint32_t sub_interface,
            struct ld_version version, const void *data, size_t len)
{
    uint8_t *copy = malloc(len ? len : 1);
    if (copy && len)
        memcpy(copy, data, len);
    return lw_blob_take(w, name, interface, sub_interface, version, copy, len);
}

int lw_memory(struct lw *w, uint8_t domain, uint16_t flags, uint64_t size, uint32_t alignment,
              const char *content, uint16_t bind_id, uint16_t tensor_desc_id)
{
    struct ld_memory *m = grow(w, (void **)&w->memories, &w->n_memories, sizeof *m);
    if (!m)
        return -1;
    m->id = (uint16_t)(w->n_memories - 1);
    m->domain = domain;
    m->flags = flags;
    m->size = size;
    m->alignment = alignment;
    m->bind_id = bind_id;
    m->tensor_desc_id = tensor_desc_id;
    m->n_contents = content ? 1 : 0;
    m->contents = calloc(1, sizeof *m->contents);
    m->offsets = calloc(1, sizeof *m->offsets);
    if (!m->contents || !m->offsets) {
        w->oom = true;
        return -1;
    }
    if (content)
        m->contents[0] = dup_str(w, content);
    return m->id;
}

int lw_address(struct lw *w, uint16_t mem_id, uint64_t offset, uint64_t size)
{
    struct ld_address *a = grow(w, (void **)&w->addresses, &w->n_addresses, sizeof *a);
    if (!a)
        return -1;
    a->id = (uint16_t)(w->n_addresses - 1);
    a->mem_id = mem_id;
    a->offset = offset;
    a->size = size;
    return a->id;
}

int lw_event(struct lw *w, uint8_t type, uint16_t target, uint32_t val, uint8_t op)
{
    struct ld_event *e = grow(w, (void **)&w->events, &w->n_events, sizeof *e);
    if (!e)
        return -1;
    e->id = (uint16_t)(w->n_events - 1);
    e->type = type;
    e->target = target;
    e->val = val;
    e->op = op;
    return e->id;
}

int lw_task(struct lw *w, uint32_t interface, const uint16_t *addresses, uint32_t n_addresses,
            const uint16_t *pre, uint32_t n_pre, const uint16_t *post, uint32_t n_post)
{
    struct ld_task *t = grow(w, (void **)&w->tasks, &w->n_tasks, sizeof *t);
    if (!t)
        return -1;
    t->id = (uint16_t)(w->n_tasks - 1);
    t->interface = interface;
    t->instance = -1;
    t->addresses = dup_ids(w, addresses, t->n_addresses = n_addresses);
    t->pre = dup_ids(w, pre, t->n_pre = n_pre);
    t->post = dup_ids(w, post, t->n_post = n_post);
    return t->id;
}

int lw_submit(struct lw *w, const uint16_t *tasks, uint32_t n)
{
    struct ld_submit *s = grow(w, (void **)&w->submits, &w->n_submits, sizeof *s);
    if (!s)
        return -1;
    s->id = (uint16_t)(w->n_submits - 1);
    s->tasks = dup_ids(w, tasks, s->n_tasks = n);
    return s->id;
}

int lw_tensor(struct lw *w, const struct ld_tensor *t)
{
    struct ld_tensor *d = grow(w, (void **)&w->tensors, &w->n_tensors, sizeof *d);
    if (!d)
        return -1;
    *d = *t;
    d->id = (uint16_t)(w->n_tensors - 1);
    d->name = dup_str(w, t->name);
    return d->id;
}

int lw_reloc(struct lw *w, const struct ld_reloc *r)
{
    struct ld_reloc *d = grow(w, (void **)&w->relocs, &w->n_relocs, sizeof *d);
    if (!d)
        return -1;
    *d = *r;
    return (int)w->n_relocs - 1;
}

/* ---------------------------------------------------------------- serialiser */

struct out {
    uint8_t *b;
    size_t len, cap;
    bool oom;
    bool consume; /* free each blob's bytes once serialised (lw_finish_consume) */
    const struct ld_format *fmt; /* which fields the tables have */
};

/* n more bytes at the end, their contents left as they are: for a caller
 * that writes every one of them (a blob's megabytes are written once, by
 * their copy, not zeroed first). */
static size_t reserve_unset(struct out *o, size_t n)
{
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->len + n)
            cap *= 2;
        uint8_t *b = realloc(o->b, cap);
        if (!b) {
            o->oom = true;
            return o->len;
        }
        o->b = b;
        o->cap = cap;
    }
    size_t at = o->len;
    o->len += n;
    return at;
}

/* n more bytes at the end, zeroed. */
static size_t reserve(struct out *o, size_t n)
{
    size_t at = reserve_unset(o, n);
    if (!o->oom)
        memset(o->b + at, 0, n);
    return at;
}

static void align_to(struct out *o, size_t a)
{
    while (!o->oom && o->len % a)
        reserve(o, 1);
}

static void put_le(struct out *o, size_t at, uint64_t v, size_t n)
{
    if (o->oom)
        return;
    for (size_t i = 0; i < n; i++)
        o->b[at + i] = (uint8_t)(v >> (8 * i));
}

/* A uoffset at `at` pointing at `target` (always forward). */
static void patch(struct out *o, size_t at, size_t target)
{
    put_le(o, at, (uint64_t)(target - at), 4);
}

enum { F_SCALAR, F_OFFSET, F_VERSION };

struct field {
    uint8_t kind, size;
    uint64_t value;
    struct ld_version version;
    size_t pos; /* filled by emit_table */
};

struct table {
    unsigned n;
    struct field f[24];
};

static void scalar(struct table *t, uint64_t v, uint8_t size)
{
    t->f[t->n++] = (struct field){.kind = F_SCALAR, .size = size, .value = v};
}

static unsigned offset_field(struct table *t)
{
    t->f[t->n] = (struct field){.kind = F_OFFSET, .size = 4};
    return t->n++;
}

/* vtable, then the table with its fields in declaration order, each at a
 * multiple of its size; returns the table's position. */
static size_t emit_table(struct out *o, struct table *t)
{
    align_to(o, 2);
    size_t vt = reserve(o, 4 + 2 * (size_t)t->n);
    align_to(o, 8);
    size_t tab = reserve(o, 4);
    for (unsigned i = 0; i < t->n; i++) {
        struct field *f = &t->f[i];
        size_t a = f->kind == F_VERSION ? 1 : f->size;
        align_to(o, a);
        f->pos = reserve(o, f->size);
        if (f->kind == F_SCALAR)
            put_le(o, f->pos, f->value, f->size);
        else if (f->kind == F_VERSION && !o->oom) {
            o->b[f->pos] = f->version.major;
            o->b[f->pos + 1] = f->version.minor;
            o->b[f->pos + 2] = f->version.sub_minor;
        }
        put_le(o, vt + 4 + 2 * i, f->pos - tab, 2);
    }
    align_to(o, 4);
    put_le(o, vt, 4 + 2 * (uint64_t)t->n, 2);
    put_le(o, vt + 2, o->len - tab, 2);
    put_le(o, tab, (uint64_t)(tab - vt), 4); /* soffset: vtable precedes the table */
    return tab;
}

static void emit_string(struct out *o, size_t at, const char *s)
{
    align_to(o, 4);
    size_t n = strlen(s);
    size_t p = reserve(o, 4 + n + 1);
    put_le(o, p, n, 4);
    if (!o->oom)
        memcpy(o->b + p + 4, s, n);
    patch(o, at, p);
}

/* A vector of n scalars of `size` bytes: length then elements aligned. */
static void emit_scalars(struct out *o, size_t at, const void *v, uint32_t n, size_t size)
{
    while (!o->oom && (o->len + 4) % (size < 4 ? 4 : size))
        reserve(o, 1);
    size_t p = reserve_unset(o, 4 + (size_t)n * size); /* every byte written below */
    put_le(o, p, n, 4);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (!o->oom && n) /* the file's byte order: one copy (weights run to megabytes) */
        memcpy(o->b + p + 4, v, (size_t)n * size);
#else
    for (uint32_t i = 0; i < n; i++) {
        uint64_t x = 0;
        memcpy(&x, (const uint8_t *)v + i * size, size);
        put_le(o, p + 4 + i * size, x, size);
    }
#endif
    patch(o, at, p);
}

static void emit_ids(struct out *o, size_t at, const uint16_t *ids, uint32_t n)
{
    emit_scalars(o, at, ids, n, 2);
}

/* Vector of tables: the offsets first, each table after. */
typedef void (*emit_fn)(struct out *o, size_t at, const void *elem);

static void emit_tables(struct out *o, size_t at, const void *arr, uint32_t n, size_t size,
                        emit_fn fn)
{
    align_to(o, 4);
    size_t p = reserve(o, 4 + 4 * (size_t)n);
    put_le(o, p, n, 4);
    patch(o, at, p);
    for (uint32_t i = 0; i < n && !o->oom; i++)
        fn(o, p + 4 + 4 * (size_t)i, (const uint8_t *)arr + size * i);
}

static void emit_blob(struct out *o, size_t at, const void *elem)
{
    const struct ld_blob *b = elem;
    struct table t = {0};
    unsigned name = offset_field(&t);
    scalar(&t, b->size, 8);
    scalar(&t, b->interface, 4);
    if (o->fmt->blob_sub_interface)
        scalar(&t, b->sub_interface, 4);
    t.f[t.n++] = (struct field){.kind = F_VERSION, .size = 3, .version = b->version};
    unsigned data = offset_field(&t);
    patch(o, at, emit_table(o, &t));
    emit_string(o, t.f[name].pos, b->name);
    emit_scalars(o, t.f[data].pos, b->data, (uint32_t)b->data_len, 1);
    if (o->consume) {
        free((uint8_t *)b->data);
        ((struct ld_blob *)elem)->data = NULL; /* the writer's own entry: lw_destroy skips it */
    }
}

static void emit_memory(struct out *o, size_t at, const void *elem)
{
    const struct ld_memory *m = elem;
    struct table t = {0};
    scalar(&t, m->id, 2);
    scalar(&t, m->domain, 1);
    scalar(&t, m->flags, 2);
    scalar(&t, m->size, 8);
    scalar(&t, m->alignment, 4);
    unsigned contents = offset_field(&t);
    unsigned offsets = offset_field(&t);
    scalar(&t, m->bind_id, 2);
    scalar(&t, m->tensor_desc_id, 2);
    patch(o, at, emit_table(o, &t));
    align_to(o, 4);
    size_t v = reserve(o, 4 + 4 * (size_t)m->n_contents);
    put_le(o, v, m->n_contents, 4);
    patch(o, t.f[contents].pos, v);
    for (uint32_t k = 0; k < m->n_contents; k++)
        emit_string(o, v + 4 + 4 * k, m->contents[k]);
    emit_scalars(o, t.f[offsets].pos, m->offsets, m->n_contents, 8);
}

static void emit_address(struct out *o, size_t at, const void *elem)
{
    const struct ld_address *a = elem;
    struct table t = {0};
    scalar(&t, a->id, 2);
    scalar(&t, a->mem_id, 2);
    scalar(&t, a->offset, 8);
    scalar(&t, a->size, 8);
    patch(o, at, emit_table(o, &t));
}

static void emit_event(struct out *o, size_t at, const void *elem)
{
    const struct ld_event *e = elem;
    struct table t = {0};
    scalar(&t, e->id, 2);
    scalar(&t, e->type, 1);
    scalar(&t, e->target, 2);
    scalar(&t, e->val, 4);
    scalar(&t, e->op, 1);
    patch(o, at, emit_table(o, &t));
}

static void emit_task(struct out *o, size_t at, const void *elem)
{
    const struct ld_task *k = elem;
    struct table t = {0};
    scalar(&t, k->id, 2);
    scalar(&t, k->interface, 4);
    scalar(&t, (uint16_t)k->instance, 2);
    unsigned a = offset_field(&t), pre = offset_field(&t), post = offset_field(&t);
    patch(o, at, emit_table(o, &t));
    emit_ids(o, t.f[a].pos, k->addresses, k->n_addresses);
    emit_ids(o, t.f[pre].pos, k->pre, k->n_pre);
    emit_ids(o, t.f[post].pos, k->post, k->n_post);
}

static void emit_submit(struct out *o, size_t at, const void *elem)
{
    const struct ld_submit *s = elem;
    struct table t = {0};
    scalar(&t, s->id, 2);
    unsigned tasks = offset_field(&t);
    patch(o, at, emit_table(o, &t));
    emit_ids(o, t.f[tasks].pos, s->tasks, s->n_tasks);
}

static void emit_tensor(struct out *o, size_t at, const void *elem)
{
    const struct ld_tensor *d = elem;
    struct table t = {0};
    unsigned name = o->fmt->tensor_name ? offset_field(&t) : 0;
    scalar(&t, d->id, 2);
    scalar(&t, d->mem_id, 2);
    scalar(&t, d->size, 8);
    scalar(&t, d->offset, 8);
    scalar(&t, d->data_format, 1);
    scalar(&t, d->data_type, 1);
    scalar(&t, d->data_category, 1);
    scalar(&t, d->pixel_format, 1);
    scalar(&t, d->pixel_mapping, 1);
    scalar(&t, (uint32_t)d->n, 4);
    scalar(&t, (uint32_t)d->c, 4);
    scalar(&t, (uint32_t)d->h, 4);
    scalar(&t, (uint32_t)d->w, 4);
    if (o->fmt->tensor_strides8) {
        for (int s = 0; s < 8; s++)
            scalar(&t, d->stride[s], 4);
    } else { /* line, surface and plane strides; the reserved fields stay absent */
        for (int s = 1; s <= 3; s++)
            scalar(&t, d->stride[s], 4);
    }
    patch(o, at, emit_table(o, &t));
    if (o->fmt->tensor_name)
        emit_string(o, t.f[name].pos, d->name ? d->name : "");
}

static void emit_reloc(struct out *o, size_t at, const void *elem)
{
    const struct ld_reloc *r = elem;
    struct table t = {0};
    scalar(&t, r->address_id, 2);
    scalar(&t, r->write_id, 2);
    scalar(&t, r->offset, 8);
    scalar(&t, r->interface, 4);
    scalar(&t, r->sub_interface, 4);
    scalar(&t, r->reloc_type, 1);
    patch(o, at, emit_table(o, &t));
}

static bool finish(struct lw *w, struct ld_version version, bool consume, uint8_t **buf,
                   size_t *len)
{
    const struct ld_format *fmt = loadable_format(version);
    if (w->oom || !fmt || (w->n_relocs && !fmt->reloc_list))
        return false;
    struct out o = {.consume = consume, .fmt = fmt};
    /* room for the blobs up front: no doubling copies of tens of MB (pages
     * not written yet cost nothing) */
    size_t room = 1u << 16;
    for (uint32_t i = 0; i < w->n_blobs; i++)
        room += (size_t)w->blobs[i].data_len + 64;
    if ((o.b = malloc(room)) != NULL)
        o.cap = room;
    reserve(&o, 8); /* root offset, and 4 bytes where a file identifier may go */
    struct table t = {0};
    t.f[t.n++] = (struct field){.kind = F_VERSION, .size = 3, .version = version};
    unsigned lists[8];
    int n_lists = fmt->reloc_list ? 8 : 7;
    for (int i = 0; i < n_lists; i++)
        lists[i] = offset_field(&t);
    patch(&o, 0, emit_table(&o, &t));
    emit_tables(&o, t.f[lists[0]].pos, w->tasks, w->n_tasks, sizeof *w->tasks, emit_task);
    emit_tables(&o, t.f[lists[1]].pos, w->memories, w->n_memories, sizeof *w->memories,
                emit_memory);
    emit_tables(&o, t.f[lists[2]].pos, w->addresses, w->n_addresses, sizeof *w->addresses,
                emit_address);
    emit_tables(&o, t.f[lists[3]].pos, w->events, w->n_events, sizeof *w->events, emit_event);
    emit_tables(&o, t.f[lists[4]].pos, w->blobs, w->n_blobs, sizeof *w->blobs, emit_blob);
    emit_tables(&o, t.f[lists[5]].pos, w->tensors, w->n_tensors, sizeof *w->tensors, emit_tensor);
    if (fmt->reloc_list)
        emit_tables(&o, t.f[lists[6]].pos, w->relocs, w->n_relocs, sizeof *w->relocs, emit_reloc);
    emit_tables(&o, t.f[lists[n_lists - 1]].pos, w->submits, w->n_submits, sizeof *w->submits,
                emit_submit);
    if (o.oom) {
        free(o.b);
        return false;
    }
    memcpy(o.b + 4, "NVDA", 4);
    /* what is left of the room: a loadable keeps the buffer */
    uint8_t *fit = realloc(o.b, o.len);
    *buf = fit ? fit : o.b;
    *len = o.len;
    return true;
}

bool lw_finish(struct lw *w, struct ld_version version, uint8_t **buf, size_t *len)
{
    return finish(w, version, false, buf, len);
}

bool lw_finish_consume(struct lw *w, struct ld_version version, uint8_t **buf, size_t *len)
{
    return finish(w, version, true, buf, len);
}
