/* Flatbuffers reader for the NVDLA loadable, written for this one schema in
 * each of its formats (0.5, 0.6, 0.7: see struct ld_format), which
 * Loadable.version, the root's first field, names before anything else is
 * read.
 *
 * Layout facts relied on (flatbuffers binary format): the file starts with a
 * uoffset to the root table; a table starts with an soffset to its vtable
 * (vtable = table - soffset); a vtable holds its own size, the table's size
 * and one uint16 per field (0 = absent, else the field's offset in the
 * table); offsets to strings, vectors and tables are uint32 counted from
 * where they are stored; vectors and strings start with a uint32 length and
 * strings end with a NUL byte.
 *
 * Every access is bounds-checked against the file; the reader walks the
 * schema, which has a fixed depth, so hostile offsets (cycles, overlaps) can
 * only make a check fail, never loop. */
#include "loadable.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/le_bytes.h"
#include "util/textfile.h"

struct reader {
    const uint8_t *buf;
    size_t len;
    size_t copied; /* bytes of nested vectors copied out so far (copy_budget) */
    const char *name;
    char *err;
    size_t errlen;
    bool failed;
    const struct ld_format *fmt; /* the file's format, from Loadable.version */
};

/* A table found in the file: its position and its vtable. */
struct fb_table {
    size_t pos;
    size_t vt;
    uint16_t vt_size, t_size;
};

static void fail_at(struct reader *r, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail_at(struct reader *r, size_t off, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = true;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errlen, "%s: offset %zu: %s", r->name, off, what);
}

static bool in_file(const struct reader *r, size_t pos, size_t n)
{
    return pos <= r->len && n <= r->len - pos;
}

static uint16_t rd16(const struct reader *r, size_t pos)
{
    return le_get16(r->buf + pos);
}

static uint32_t rd32(const struct reader *r, size_t pos)
{
    return le_get32(r->buf + pos);
}

static uint64_t rd64(const struct reader *r, size_t pos)
{
    return (uint64_t)rd32(r, pos) | ((uint64_t)rd32(r, pos + 4) << 32);
}

/* Follow the uoffset stored at pos. */
static bool follow(struct reader *r, size_t pos, size_t *target, const char *what)
{
    if (!in_file(r, pos, 4)) {
        fail_at(r, pos, "expected a 4-byte offset to %s inside the file (%zu bytes)", what, r->len);
        return false;
    }
    uint32_t off = rd32(r, pos);
    if (off == 0 || (uint64_t)pos + off >= r->len) {
        fail_at(r, pos, "expected an offset to %s inside the file (%zu bytes), found %u", what,
                r->len, off);
        return false;
    }
    *target = pos + off;
    return true;
}

static bool open_table(struct reader *r, size_t pos, struct fb_table *t, const char *what)
{
    if (!in_file(r, pos, 4)) {
        fail_at(r, pos, "expected table %s (4-byte vtable offset) inside the file", what);
        return false;
    }
    int32_t soff = (int32_t)rd32(r, pos);
    int64_t vt = (int64_t)pos - soff;
    if (vt < 0 || !in_file(r, (size_t)vt, 4)) {
        fail_at(r, pos, "expected the vtable of table %s inside the file, found it at %lld", what,
                (long long)vt);
        return false;
    }
    t->pos = pos;
    t->vt = (size_t)vt;
    t->vt_size = rd16(r, t->vt);
    t->t_size = rd16(r, t->vt + 2);
    if (t->vt_size < 4 || (t->vt_size & 1) || !in_file(r, t->vt, t->vt_size)) {
        fail_at(r, t->vt, "expected a vtable of table %s: even size >= 4 inside the file, found %u",
                what, t->vt_size);
        return false;
    }
    if (t->t_size < 4 || !in_file(r, pos, t->t_size)) {
        fail_at(r, t->vt + 2, "expected the size of table %s (>= 4, inside the file), found %u",
                what, t->t_size);
        return false;
    }
    return true;
}

/* Position of field id in the table, 0 when absent. */
static size_t field_pos(struct reader *r, const struct fb_table *t, unsigned id, size_t size,
                        const char *what)
{
    size_t slot = 4 + 2 * (size_t)id;
    if (slot + 2 > t->vt_size)
        return 0;
    uint16_t off = rd16(r, t->vt + slot);
    if (off == 0)
        return 0;
    /* The table size in the vtable is not a bound: NVIDIA's older writer
     * places the Version struct past it (flatbuffers' own verifier only
     * checks fields against the buffer), so fields are checked against the
     * file. */
    if (off < 4 || !in_file(r, t->pos + off, size)) {
        fail_at(r, t->vt + slot,
                "expected field %s (%zu bytes) inside the file, found it at table offset %u", what,
                size, off);
        return 0;
    }
    return t->pos + off;
}

static uint8_t get_u8(struct reader *r, const struct fb_table *t, unsigned id, uint8_t def,
                      const char *what)
{
    size_t p = field_pos(r, t, id, 1, what);
    return p ? r->buf[p] : def;
}

static uint16_t get_u16(struct reader *r, const struct fb_table *t, unsigned id, uint16_t def,
                        const char *what)
{
    size_t p = field_pos(r, t, id, 2, what);
    return p ? rd16(r, p) : def;
}

static uint32_t get_u32(struct reader *r, const struct fb_table *t, unsigned id, uint32_t def,
                        const char *what)
{
    size_t p = field_pos(r, t, id, 4, what);
    return p ? rd32(r, p) : def;
}

static uint64_t get_u64(struct reader *r, const struct fb_table *t, unsigned id, const char *what)
{
    size_t p = field_pos(r, t, id, 8, what);
    return p ? rd64(r, p) : 0;
}

static struct ld_version get_version(struct reader *r, const struct fb_table *t, unsigned id,
                                     bool *present, const char *what)
{
    struct ld_version v = {0, 0, 0};
    size_t p = field_pos(r, t, id, 3, what);
    if (present)
        *present = p != 0;
    if (p) {
        v.major = r->buf[p];
        v.minor = r->buf[p + 1];
        v.sub_minor = r->buf[p + 2];
    }
    return v;
}

/* A vector field: position of its first element and its length (0, 0 when absent). */
static bool get_vector(struct reader *r, const struct fb_table *t, unsigned id, size_t elem,
                       size_t *first, uint32_t *n, const char *what)
{
    *first = 0;
    *n = 0;
    size_t p = field_pos(r, t, id, 4, what);
    if (!p)
        return !r->failed;
    size_t v;
    if (!follow(r, p, &v, what))
        return false;
    if (!in_file(r, v, 4)) {
        fail_at(r, v, "expected the length of vector %s inside the file", what);
        return false;
    }
    uint32_t count = rd32(r, v);
    if ((uint64_t)count * elem > r->len - v - 4) {
        fail_at(r, v, "expected vector %s of %u x %zu bytes to fit in the file (%zu bytes left)",
                what, count, elem, r->len - v - 4);
        return false;
    }
    *first = v + 4;
    *n = count;
    return true;
}

/* A NUL-terminated string at pos (the target of an offset). */
static const char *string_at(struct reader *r, size_t s, const char *what)
{
    if (!in_file(r, s, 4)) {
        fail_at(r, s, "expected the length of string %s inside the file", what);
        return NULL;
    }
    uint32_t n = rd32(r, s);
    if ((uint64_t)n + 1 > r->len - s - 4) {
        fail_at(r, s, "expected string %s of %u bytes plus its NUL inside the file", what, n);
        return NULL;
    }
    const char *str = (const char *)r->buf + s + 4;
    if (str[n] != 0) {
        fail_at(r, s + 4 + n, "expected the NUL terminating string %s", what);
        return NULL;
    }
    if (memchr(str, 0, n)) {
        fail_at(r, s + 4, "expected string %s without NUL bytes inside", what);
        return NULL;
    }
    return str;
}

static const char *get_string(struct reader *r, const struct fb_table *t, unsigned id,
                              const char *what)
{
    size_t p = field_pos(r, t, id, 4, what);
    if (!p)
        return r->failed ? NULL : "";
    size_t s;
    if (!follow(r, p, &s, what))
        return NULL;
    return string_at(r, s, what);
}

/* The vectors of entries (a task's ids, a memory's contents) are copied out
 * of the file.  A file holds each one once, so all copies together are at
 * most the file's size; entries that share one table would copy its vector
 * again and again (a 2 MB file became 4 GB).  Each copy is counted against
 * the file's size before it is made. */
static bool copy_budget(struct reader *r, size_t first, uint64_t bytes, const char *what)
{
    if (bytes > r->len - r->copied) {
        fail_at(r, first,
                "expected the file's vectors to be copied at most once (%zu bytes in all), found "
                "%s bringing the copies to %llu bytes (entries sharing one table)",
                r->len, what, (unsigned long long)r->copied + bytes);
        return false;
    }
    r->copied += (size_t)bytes;
    return true;
}

/* Copy a vector of uint16 / uint64 into a fresh array (NULL-safe for n = 0). */
static uint16_t *copy_u16s(struct reader *r, size_t first, uint32_t n, const char *what)
{
    if (!copy_budget(r, first, 2 * (uint64_t)n, what))
        return NULL;
    uint16_t *a = calloc(n ? n : 1, sizeof *a);
    if (!a) {
        fail_at(r, first, "out of memory");
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        a[i] = rd16(r, first + 2 * (size_t)i);
    return a;
}

static bool u16_vector(struct reader *r, const struct fb_table *t, unsigned id, uint16_t **out,
                       uint32_t *n, const char *what)
{
    size_t first;
    if (!get_vector(r, t, id, 2, &first, n, what))
        return false;
    *out = copy_u16s(r, first, *n, what);
    return *out != NULL;
}

/* Iterate a vector of tables: fn(r, table, index, ctx) for each element. */
typedef bool (*table_fn)(struct reader *r, const struct fb_table *t, uint32_t i, void *ctx);

static bool each_table(struct reader *r, const struct fb_table *parent, unsigned id,
                       const char *what, void **arr, size_t elem_size, uint32_t *n, table_fn fn)
{
    size_t first;
    uint32_t count;
    *arr = NULL;
    *n = 0;
    if (!get_vector(r, parent, id, 4, &first, &count, what))
        return false;
    *arr = calloc(count ? count : 1, elem_size);
    if (!*arr) {
        fail_at(r, first, "out of memory for %u entries of %s", count, what);
        return false;
    }
    *n = count;
    for (uint32_t i = 0; i < count; i++) {
        size_t tpos;
        struct fb_table t;
        if (!follow(r, first + 4 * (size_t)i, &tpos, what) || !open_table(r, tpos, &t, what))
            return false;
        void *elem = (char *)*arr + elem_size * i;
        memcpy(elem, &(uint32_t){(uint32_t)tpos},
               sizeof(uint32_t)); /* every entry starts with "at" */
        if (!fn(r, &t, i, elem))
            return false;
    }
    return true;
}

/* ---------------------------------------------------------------- formats */

static const struct ld_format formats[] = {
    {.major = 0, .minor = 5},
    {.major = 0, .minor = 6, .blob_sub_interface = true, .tensor_strides8 = true,
     .reloc_list = true},
    {.major = 0, .minor = 7, .blob_sub_interface = true, .tensor_name = true,
     .tensor_strides8 = true, .reloc_list = true},
};

const struct ld_format *loadable_format(struct ld_version v)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].major == v.major && formats[i].minor == v.minor)
            return &formats[i];
    return NULL;
}

const char *loadable_formats_known(void)
{
    return "0.5.x, 0.6.x and 0.7.x";
}

/* ---------------------------------------------------------------- tables */

static bool read_blob(struct reader *r, const struct fb_table *t, uint32_t i, void *out)
{
    (void)i;
    struct ld_blob *b = out;
    b->name = get_string(r, t, 0, "Blob.name");
    b->size = get_u64(r, t, 1, "Blob.size");
    b->interface = get_u32(r, t, 2, 0, "Blob.interface");
    /* before format 0.6 there is no sub_interface: version and data sit
     * one field earlier (reading them at 4 and 5 finds no data at all) */
    unsigned next = 3;
    if (r->fmt->blob_sub_interface)
        b->sub_interface = get_u32(r, t, next++, 0, "Blob.sub_interface");
    b->version = get_version(r, t, next++, NULL, "Blob.version");
    size_t first;
    uint32_t n;
    if (!b->name || !get_vector(r, t, next, 1, &first, &n, "Blob.data"))
        return false;
    b->data = r->buf + first;
    b->data_len = n;
    b->data_at = first;
    if (b->interface > LD_IF_EMU1) {
        fail_at(r, t->pos, "expected Blob.interface NONE, DLA1 or EMU1 (0..2), found %u",
                b->interface);
        return false;
    }
    if (b->size != b->data_len) {
        fail_at(r, t->pos, "expected Blob.size of \"%s\" to equal its data length %llu, found %llu",
                b->name, (unsigned long long)b->data_len, (unsigned long long)b->size);
        return false;
    }
    return !r->failed;
}

static bool read_memory(struct reader *r, const struct fb_table *t, uint32_t i, void *out)
{
    (void)i;
    struct ld_memory *m = out;
    m->id = get_u16(r, t, 0, 0, "MemoryListEntry.id");
    m->domain = get_u8(r, t, 1, 0, "MemoryListEntry.domain");
    m->flags = get_u16(r, t, 2, 0, "MemoryListEntry.flags");
    m->size = get_u64(r, t, 3, "MemoryListEntry.size");
    m->alignment = get_u32(r, t, 4, 0, "MemoryListEntry.alignment");
    m->bind_id = get_u16(r, t, 7, 0, "MemoryListEntry.bind_id");
    m->tensor_desc_id = get_u16(r, t, 8, 0, "MemoryListEntry.tensor_desc_id");
    size_t first, ofirst;
    uint32_t n, no;
    if (!get_vector(r, t, 5, 4, &first, &n, "MemoryListEntry.contents") ||
        !get_vector(r, t, 6, 8, &ofirst, &no, "MemoryListEntry.offsets"))
        return false;
    if (n != no) {
        fail_at(r, t->pos, "expected one offset per content in memory %u (%u contents), found %u",
                m->id, n, no);
        return false;
    }
    if (!copy_budget(r, first, 12 * (uint64_t)n, "MemoryListEntry.contents"))
        return false;
    m->n_contents = n;
    m->contents = calloc(n ? n : 1, sizeof *m->contents);
    m->offsets = calloc(n ? n : 1, sizeof *m->offsets);
    m->content_blob = calloc(n ? n : 1, sizeof *m->content_blob);
    if (!m->contents || !m->offsets || !m->content_blob) {
        fail_at(r, t->pos, "out of memory");
        return false;
    }
    for (uint32_t k = 0; k < n; k++) {
        size_t s;
        if (!follow(r, first + 4 * (size_t)k, &s, "MemoryListEntry.contents") ||
            !(m->contents[k] = string_at(r, s, "MemoryListEntry.contents")))
            return false;
        m->offsets[k] = rd64(r, ofirst + 8 * (size_t)k);
    }
    return !r->failed;
}

static bool read_address(struct reader *r, const struct fb_table *t, uint32_t i, void *out)
{
    (void)i;
    struct ld_address *a = out;
    a->id = get_u16(r, t, 0, 0, "AddressListEntry.id");
    a->mem_id = get_u16(r, t, 1, 0, "AddressListEntry.mem_id");
    a->offset = get_u64(r, t, 2, "AddressListEntry.offset");
    a->size = get_u64(r, t, 3, "AddressListEntry.size");
    return !r->failed;
}

static bool read_task(struct reader *r, const struct fb_table *t, uint32_t i, void *out)
{
    (void)i;
    struct ld_task *k = out;
    k->id = get_u16(r, t, 0, 0, "TaskListEntry.id");
    k->interface = get_u32(r, t, 1, 0, "TaskListEntry.interface");
    k->instance = (int16_t)get_u16(r, t, 2, 0xffff, "TaskListEntry.instance");
    return u16_vector(r, t, 3, &k->addresses, &k->n_addresses, "TaskListEntry.address_list") &&
           u16_vector(r, t, 4, &k->pre, &k->n_pre, "TaskListEntry.pre_actions") &&
           u16_vector(r, t, 5, &k->post, &k->n_post, "TaskListEntry.post_actions");
}

static bool read_submit(struct reader *r, const struct fb_table *t, uint32_t i, void *out)
{
    (void)i;
    struct ld_submit *s = out;
    s->id = get_u16(r, t, 0, 0, "SubmitListEntry.id");
    return u16_vector(r, t, 1, &s->tasks, &s->n_tasks, "SubmitListEntry.task_id");
}

static bool read_event(struct reader *r, const struct fb_table *t, uint32_t i, void *out)
{
    (void)i;
    struct ld_event *e = out;
    e->id = get_u16(r, t, 0, 0, "EventListEntry.id");
    e->type = get_u8(r, t, 1, 0, "EventListEntry.type");
    e->target = get_u16(r, t, 2, 0, "EventListEntry.target");
    e->val = get_u32(r, t, 3, 0, "EventListEntry.val");
    e->op = get_u8(r, t, 4, 0, "EventListEntry.op");
    return !r->failed;
}

/* Format 0.5's pitch-linear strides land where 0.6 put them (stride_1..3,
 * as NVIDIA's compiler fills stride[] later); it has no element stride. */
static void read_strides(struct reader *r, const struct fb_table *t, unsigned first,
                         struct ld_tensor *d)
{
    if (r->fmt->tensor_strides8) {
        for (unsigned s = 0; s < 8; s++)
            d->stride[s] = get_u32(r, t, first + s, 0, "TensorDescListEntry.stride");
        return;
    }
    d->stride[1] = get_u32(r, t, first, 0, "TensorDescListEntry.line_stride");
    d->stride[2] = get_u32(r, t, first + 1, 0, "TensorDescListEntry.surf_stride");
    d->stride[3] = get_u32(r, t, first + 2, 0, "TensorDescListEntry.plane_stride");
}

static bool read_tensor(struct reader *r, const struct fb_table *t, uint32_t i, void *out)
{
    (void)i;
    struct ld_tensor *d = out;
    /* the name came first with format 0.7: every later field moved one on */
    unsigned f = 0;
    d->name = r->fmt->tensor_name ? get_string(r, t, f++, "TensorDescListEntry.name") : "";
    d->id = get_u16(r, t, f++, 0, "TensorDescListEntry.id");
    d->mem_id = get_u16(r, t, f++, 0, "TensorDescListEntry.mem_id");
    d->size = get_u64(r, t, f++, "TensorDescListEntry.size");
    d->offset = get_u64(r, t, f++, "TensorDescListEntry.offset");
    d->data_format = get_u8(r, t, f++, 0, "TensorDescListEntry.data_format");
    d->data_type = get_u8(r, t, f++, 0, "TensorDescListEntry.data_type");
    d->data_category = get_u8(r, t, f++, 0, "TensorDescListEntry.data_category");
    d->pixel_format = get_u8(r, t, f++, 0, "TensorDescListEntry.pixel_format");
    d->pixel_mapping = get_u8(r, t, f++, 0, "TensorDescListEntry.pixel_mapping");
    d->n = (int32_t)get_u32(r, t, f++, 0, "TensorDescListEntry.n");
    d->c = (int32_t)get_u32(r, t, f++, 0, "TensorDescListEntry.c");
    d->h = (int32_t)get_u32(r, t, f++, 0, "TensorDescListEntry.h");
    d->w = (int32_t)get_u32(r, t, f++, 0, "TensorDescListEntry.w");
    read_strides(r, t, f, d);
    return d->name && !r->failed;
}

static bool read_reloc(struct reader *r, const struct fb_table *t, uint32_t i, void *out)
{
    (void)i;
    struct ld_reloc *x = out;
    x->address_id = get_u16(r, t, 0, 0, "RelocListEntry.address_id");
    x->write_id = get_u16(r, t, 1, 0, "RelocListEntry.write_id");
    x->offset = get_u64(r, t, 2, "RelocListEntry.offset");
    x->interface = get_u32(r, t, 3, 0, "RelocListEntry.interface");
    x->sub_interface = get_u32(r, t, 4, 0, "RelocListEntry.sub_interface");
    x->reloc_type = get_u8(r, t, 5, 0, "RelocListEntry.reloc_type");
    return !r->failed;
}

static bool read_root(struct reader *r, struct loadable *l)
{
    if (r->len < 8) {
        fail_at(r, 0, "expected a flatbuffers file of at least 8 bytes, found %zu", r->len);
        return false;
    }
    size_t root;
    struct fb_table t;
    if (!follow(r, 0, &root, "the root table") || !open_table(r, root, &t, "Loadable"))
        return false;
    bool has_version;
    l->version = get_version(r, &t, 0, &has_version, "Loadable.version");
    if (!r->failed && !has_version) {
        fail_at(r, root, "expected the required field Loadable.version");
        return false;
    }
    if (r->failed)
        return false;
    /* NVIDIA's runtime never looks at the version and misreads older files;
     * every table after the root depends on it here */
    r->fmt = l->format = loadable_format(l->version);
    if (!r->fmt) {
        fail_at(r, root,
                "expected a loadable format this reader knows (%s), found Loadable.version "
                "%u.%u.%u",
                loadable_formats_known(), l->version.major, l->version.minor,
                l->version.sub_minor);
        return false;
    }
    void *p;
    bool ok;
#define READ_LIST(id, field, count, what, fn)                                                      \
    ok = each_table(r, &t, id, what, &p, sizeof *l->field, &l->count, fn);                         \
    l->field = p;                                                                                  \
    if (!ok)                                                                                       \
        return false;
    READ_LIST(1, tasks, n_tasks, "Loadable.task_list", read_task)
    READ_LIST(2, memories, n_memories, "Loadable.memory_list", read_memory)
    READ_LIST(3, addresses, n_addresses, "Loadable.address_list", read_address)
    READ_LIST(4, events, n_events, "Loadable.event_list", read_event)
    READ_LIST(5, blobs, n_blobs, "Loadable.blobs", read_blob)
    READ_LIST(6, tensors, n_tensors, "Loadable.tensor_desc_list", read_tensor)
    if (r->fmt->reloc_list) {
        READ_LIST(7, relocs, n_relocs, "Loadable.reloc_list", read_reloc)
        READ_LIST(8, submits, n_submits, "Loadable.submit_list", read_submit)
    } else { /* before format 0.6: no relocations, the submit list one field earlier */
        READ_LIST(7, submits, n_submits, "Loadable.submit_list", read_submit)
    }
#undef READ_LIST
    return true;
}

/* ---------------------------------------------------------------- validation */

static bool is_pow2(uint32_t v)
{
    return v && !(v & (v - 1));
}

static bool check_memories(struct reader *r, struct loadable *l)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < l->n_memories; i++) {
        struct ld_memory *m = &l->memories[i];
        if (loadable_memory_index(l, m->id) != (int)i) {
            fail_at(r, m->at, "memory_list[%u]: expected a unique id, found %u again", i, m->id);
            return false;
        }
        if (m->domain > LD_DOMAIN_SRAM) {
            fail_at(r, m->at, "memory_list[%u]: expected domain SYSTEM or SRAM (0..1), found %u", i,
                    m->domain);
            return false;
        }
        if (m->flags & ~0xfu) {
            fail_at(r, m->at,
                    "memory_list[%u]: expected flags ALLOC|SET|INPUT|OUTPUT (0..15), found %u", i,
                    m->flags);
            return false;
        }
        if (m->size > LD_MAX_MEMORY_BYTES) {
            fail_at(r, m->at, "memory_list[%u]: expected a size of at most %llu bytes, found %llu",
                    i, (unsigned long long)LD_MAX_MEMORY_BYTES, (unsigned long long)m->size);
            return false;
        }
        total += m->size;
        if (total > LD_MAX_TOTAL_BYTES) {
            fail_at(r, m->at, "memory_list: expected at most %llu bytes in all, found more",
                    (unsigned long long)LD_MAX_TOTAL_BYTES);
            return false;
        }
        if (m->alignment && (!is_pow2(m->alignment) || m->alignment > LD_MAX_ALIGNMENT)) {
            fail_at(r, m->at,
                    "memory_list[%u]: expected an alignment of 0 or a power of two up to %u, "
                    "found %u",
                    i, LD_MAX_ALIGNMENT, m->alignment);
            return false;
        }
        /* contents matter only with SET (outputs carry an empty name) */
        for (uint32_t k = 0; (m->flags & LD_MEM_SET) && k < m->n_contents; k++) {
            int b = loadable_blob_index(l, m->contents[k]);
            if (b < 0) {
                fail_at(r, m->at, "memory_list[%u]: expected content \"%s\" to name a blob", i,
                        m->contents[k]);
                return false;
            }
            m->content_blob[k] = (uint32_t)b;
            uint64_t len = l->blobs[b].data_len;
            if (m->offsets[k] > m->size || len > m->size - m->offsets[k]) {
                fail_at(r, m->at,
                        "memory_list[%u]: expected blob \"%s\" (%llu bytes) at offset %llu to fit "
                        "in the memory's %llu bytes",
                        i, m->contents[k], (unsigned long long)len,
                        (unsigned long long)m->offsets[k], (unsigned long long)m->size);
                return false;
            }
        }
        if ((m->flags & (LD_MEM_INPUT | LD_MEM_OUTPUT)) &&
            loadable_tensor_index(l, m->tensor_desc_id) < 0) {
            fail_at(r, m->at, "memory_list[%u]: expected tensor_desc_id %u to name a tensor", i,
                    m->tensor_desc_id);
            return false;
        }
    }
    return true;
}

static bool check_addresses(struct reader *r, struct loadable *l)
{
    for (uint32_t i = 0; i < l->n_addresses; i++) {
        struct ld_address *a = &l->addresses[i];
        if (loadable_address_index(l, a->id) != (int)i) {
            fail_at(r, a->at, "address_list[%u]: expected a unique id, found %u again", i, a->id);
            return false;
        }
        int m = loadable_memory_index(l, a->mem_id);
        if (m < 0) {
            fail_at(r, a->at, "address_list[%u]: expected mem_id %u to name a memory", i,
                    a->mem_id);
            return false;
        }
        a->mem = (uint32_t)m;
        if (a->offset > l->memories[m].size) {
            fail_at(
                r, a->at, "address_list[%u]: expected offset %llu inside memory %u (%llu bytes)", i,
                (unsigned long long)a->offset, a->mem_id, (unsigned long long)l->memories[m].size);
            return false;
        }
    }
    return true;
}

static bool check_ids(struct reader *r, const struct loadable *l, uint32_t at, const uint16_t *ids,
                      uint32_t n, int (*lookup)(const struct loadable *, uint16_t),
                      const char *where, const char *what)
{
    for (uint32_t k = 0; k < n; k++) {
        if (lookup(l, ids[k]) < 0) {
            fail_at(r, at, "%s[%u]: expected %s id, found %u which names none", where, k, what,
                    ids[k]);
            return false;
        }
    }
    return true;
}

static bool check_tasks(struct reader *r, const struct loadable *l)
{
    char where[64];
    for (uint32_t i = 0; i < l->n_tasks; i++) {
        const struct ld_task *t = &l->tasks[i];
        if (loadable_task_index(l, t->id) != (int)i) {
            fail_at(r, t->at, "task_list[%u]: expected a unique id, found %u again", i, t->id);
            return false;
        }
        if (t->interface != LD_IF_DLA1 && t->interface != LD_IF_EMU1) {
            fail_at(r, t->at, "task_list[%u]: expected interface DLA1 or EMU1 (1..2), found %u", i,
                    t->interface);
            return false;
        }
        if (t->n_addresses == 0) {
            fail_at(r, t->at,
                    "task_list[%u]: expected an address list (entry 0 = network descriptor)", i);
            return false;
        }
        snprintf(where, sizeof where, "task_list[%u].address_list", i);
        if (!check_ids(r, l, t->at, t->addresses, t->n_addresses, loadable_address_index, where,
                       "an address"))
            return false;
        snprintf(where, sizeof where, "task_list[%u].pre_actions", i);
        if (!check_ids(r, l, t->at, t->pre, t->n_pre, loadable_event_index, where, "an event"))
            return false;
        snprintf(where, sizeof where, "task_list[%u].post_actions", i);
        if (!check_ids(r, l, t->at, t->post, t->n_post, loadable_event_index, where, "an event"))
            return false;
    }
    for (uint32_t i = 0; i < l->n_submits; i++) {
        snprintf(where, sizeof where, "submit_list[%u].task_id", i);
        if (!check_ids(r, l, l->submits[i].at, l->submits[i].tasks, l->submits[i].n_tasks,
                       loadable_task_index, where, "a task"))
            return false;
    }
    return true;
}

static bool check_events(struct reader *r, const struct loadable *l)
{
    for (uint32_t i = 0; i < l->n_events; i++) {
        const struct ld_event *e = &l->events[i];
        if (loadable_event_index(l, e->id) != (int)i) {
            fail_at(r, e->at, "event_list[%u]: expected a unique id, found %u again", i, e->id);
            return false;
        }
        if (e->type > 2 || e->op > LD_EVENT_SIGNAL) {
            fail_at(r, e->at, "event_list[%u]: expected type 0..2 and op WAIT/SIGNAL, found %u/%u",
                    i, e->type, e->op);
            return false;
        }
    }
    return true;
}

static bool check_tensors(struct reader *r, const struct loadable *l)
{
    for (uint32_t i = 0; i < l->n_tensors; i++) {
        const struct ld_tensor *d = &l->tensors[i];
        if (d->data_format > 3 || d->data_type > LD_TYPE_INT8 || d->data_category > 4 ||
            d->pixel_format > 37 || d->pixel_mapping > 1) {
            fail_at(r, d->at,
                    "tensor_desc_list[%u]: expected data_format 0..3, data_type 0..4, "
                    "data_category 0..4, pixel_format 0..37, pixel_mapping 0..1, found "
                    "%u/%u/%u/%u/%u",
                    i, d->data_format, d->data_type, d->data_category, d->pixel_format,
                    d->pixel_mapping);
            return false;
        }
        if (d->n < 0 || d->c < 0 || d->h < 0 || d->w < 0) {
            fail_at(r, d->at, "tensor_desc_list[%u]: expected non-negative dimensions", i);
            return false;
        }
        int m = loadable_memory_index(l, d->mem_id);
        if (m < 0) {
            fail_at(r, d->at, "tensor_desc_list[%u]: expected mem_id %u to name a memory", i,
                    d->mem_id);
            return false;
        }
        uint64_t msize = l->memories[m].size;
        if (d->offset > msize || d->size > msize - d->offset) {
            fail_at(r, d->at,
                    "tensor_desc_list[%u]: expected %llu bytes at offset %llu to fit in memory %u "
                    "(%llu bytes)",
                    i, (unsigned long long)d->size, (unsigned long long)d->offset, d->mem_id,
                    (unsigned long long)msize);
            return false;
        }
    }
    return true;
}

static bool check_relocs(struct reader *r, const struct loadable *l)
{
    for (uint32_t i = 0; i < l->n_relocs; i++) {
        const struct ld_reloc *x = &l->relocs[i];
        int m = loadable_memory_index(l, x->write_id);
        if (loadable_address_index(l, x->address_id) < 0 || m < 0) {
            fail_at(r, x->at,
                    "reloc_list[%u]: expected address_id %u and write_id %u to name an address "
                    "and a memory",
                    i, x->address_id, x->write_id);
            return false;
        }
        if (x->reloc_type < 1 || x->reloc_type > 2) {
            fail_at(r, x->at,
                    "reloc_list[%u]: expected reloc_type 1 (line) or 2 (surface), found %u", i,
                    x->reloc_type);
            return false;
        }
        if (x->offset > l->memories[m].size || l->memories[m].size - x->offset < 4) {
            fail_at(r, x->at, "reloc_list[%u]: expected offset %llu + 4 bytes inside memory %u", i,
                    (unsigned long long)x->offset, x->write_id);
            return false;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- lifecycle */

void loadable_free(struct loadable *l)
{
    if (!l)
        return;
    for (uint32_t i = 0; l->tasks && i < l->n_tasks; i++) {
        free(l->tasks[i].addresses);
        free(l->tasks[i].pre);
        free(l->tasks[i].post);
    }
    for (uint32_t i = 0; l->memories && i < l->n_memories; i++) {
        free(l->memories[i].contents);
        free(l->memories[i].offsets);
        free(l->memories[i].content_blob);
    }
    for (uint32_t i = 0; l->submits && i < l->n_submits; i++)
        free(l->submits[i].tasks);
    free(l->tasks);
    free(l->memories);
    free(l->addresses);
    free(l->events);
    free(l->blobs);
    free(l->tensors);
    free(l->relocs);
    free(l->submits);
    loadable_index_free(l);
    free(l->buf);
    free(l);
}

struct loadable *loadable_parse_owned(uint8_t *buf, size_t len, const char *name, char *err,
                                      size_t errlen)
{
    struct loadable *l = calloc(1, sizeof *l);
    if (!l || !buf || len > LD_MAX_FILE_BYTES) {
        snprintf(err, errlen, "%s: %s", name,
                 len > LD_MAX_FILE_BYTES ? "file too large" : "out of memory");
        free(l);
        free(buf);
        return NULL;
    }
    l->buf = buf;
    l->len = len;
    snprintf(l->name, sizeof l->name, "%s", name);
    struct reader r = {.buf = l->buf, .len = len, .name = l->name, .err = err, .errlen = errlen};
    bool ok = read_root(&r, l);
    if (ok && !loadable_index_build(l)) {
        fail_at(&r, 0, "out of memory for the lookup tables of the lists");
        ok = false;
    }
    ok = ok && check_memories(&r, l) && check_addresses(&r, l) && check_tasks(&r, l) &&
         check_events(&r, l) && check_tensors(&r, l) && check_relocs(&r, l);
    if (!ok) {
        if (!r.failed)
            fail_at(&r, 0, "invalid loadable");
        loadable_free(l);
        return NULL;
    }
    return l;
}

struct loadable *loadable_parse(const void *buf, size_t len, const char *name, char *err,
                                size_t errlen)
{
    uint8_t *copy = len <= LD_MAX_FILE_BYTES ? malloc(len ? len : 1) : NULL;
    if (copy && len)
        memcpy(copy, buf, len);
    if (!copy && len > LD_MAX_FILE_BYTES) {
        snprintf(err, errlen, "%s: file too large", name);
        return NULL;
    }
    return loadable_parse_owned(copy, len, name, err, errlen);
}

struct loadable *loadable_read_file(const char *path, char *err, size_t errlen)
{
    uint8_t *buf;
    size_t len;
    if (!file_read_all(path, LD_MAX_FILE_BYTES, &buf, &len, err, errlen))
        return NULL;
    const char *base = strrchr(path, '/');
    return loadable_parse_owned(buf, len, base ? base + 1 : path, err, errlen);
}

/* Bytes of s and its terminator (0 for none). */
static size_t kept_string(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

static const char *keep_string(uint8_t **to, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    memcpy(*to, s, n);
    const char *moved = (const char *)*to;
    *to += n;
    return moved;
}

size_t loadable_detach_buffer(struct loadable *l)
{
    size_t need = 0;
    for (uint32_t i = 0; i < l->n_blobs; i++)
        need += kept_string(l->blobs[i].name) + (l->blobs[i].data ? l->blobs[i].data_len : 0);
    for (uint32_t i = 0; i < l->n_memories; i++)
        for (uint32_t k = 0; k < l->memories[i].n_contents; k++)
            need += kept_string(l->memories[i].contents[k]);
    for (uint32_t i = 0; i < l->n_tensors; i++)
        need += kept_string(l->tensors[i].name);
    uint8_t *pool = need < l->len ? malloc(need ? need : 1) : NULL;
    if (!pool)
        return 0; /* nothing to gain, or no memory: the file's buffer stays */
    uint8_t *to = pool;
    for (uint32_t i = 0; i < l->n_blobs; i++) {
        struct ld_blob *b = &l->blobs[i];
        b->name = keep_string(&to, b->name);
        if (b->data) { /* a blob no memory took: its bytes are still wanted */
            memcpy(to, b->data, b->data_len);
            b->data = to;
            to += b->data_len;
        }
    }
    for (uint32_t i = 0; i < l->n_memories; i++)
        for (uint32_t k = 0; k < l->memories[i].n_contents; k++)
            l->memories[i].contents[k] = keep_string(&to, l->memories[i].contents[k]);
    for (uint32_t i = 0; i < l->n_tensors; i++)
        l->tensors[i].name = keep_string(&to, l->tensors[i].name);
    free(l->buf);
    l->buf = pool;
    return l->len - need;
}

uint64_t loadable_release_blob(struct loadable *l, uint32_t blob)
{
    if (blob >= l->n_blobs || !l->blobs[blob].data)
        return 0;
    struct ld_blob *b = &l->blobs[blob];
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t from = ((uintptr_t)b->data + page - 1) & ~(page - 1);
    uintptr_t to = ((uintptr_t)b->data + b->data_len) & ~(page - 1);
    b->data = NULL;
    /* only whole pages inside the blob: the rest of the buffer (tables,
     * strings, the allocator's own words) is untouched; a page given back
     * reads as zeros if anything touched it again, and nothing does now */
    if (to <= from || madvise((void *)from, to - from, MADV_DONTNEED) != 0)
        return 0;
    return (uint64_t)(to - from);
}
