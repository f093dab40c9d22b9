/* Runtime: memory placement, blobs, address lists, tensors (see runtime.h). */
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube.h"
#include "dimg.h"
#include "fp16.h"
#include "le_bytes.h"
#include "textfile.h"

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

static bool write_blob(const struct runtime *rt, struct dla *d, uint32_t m, uint32_t k, char *err,
                       size_t errlen)
{
    const struct ld_memory *mm = &rt->ld->memories[m];
    const struct ld_blob *b = &rt->ld->blobs[mm->content_blob[k]];
    enum mem_status st = dla_mem_write(d, (enum dla_space)rt->mem[m].space,
                                       rt->mem[m].addr + mm->offsets[k], b->data, b->data_len);
    if (st != MEM_OK) {
        snprintf(err, errlen, "%s: memory %u (file offset 0x%x): cannot store blob \"%s\": %s",
                 rt->ld->name, mm->id, mm->at, b->name, mem_status_str(st));
        return false;
    }
    return true;
}

static bool place_memories(struct runtime *rt, struct dla *d, char *err, size_t errlen)
{
    const struct loadable *l = rt->ld;
    uint64_t next[DLA_SPACE_COUNT] = {RT_DRAM_BASE, RT_CVSRAM_BASE};
    bool has_sram = dla_cfg(d)->cvsram;
    for (uint32_t i = 0; i < l->n_memories; i++) {
        const struct ld_memory *m = &l->memories[i];
        /* bindable memories are the application's; this runtime is the
         * application too, so it places them like the others */
        if (!(m->flags & (LD_MEM_ALLOC | LD_MEM_INPUT | LD_MEM_OUTPUT)))
            continue;
        enum dla_space s = (m->domain == LD_DOMAIN_SRAM && has_sram) ? DLA_CVSRAM : DLA_DRAM;
        uint64_t a = m->alignment > RT_DEFAULT_ALIGN ? m->alignment : RT_DEFAULT_ALIGN;
        uint64_t at = align_up(next[s], a);
        rt->mem[i].addr = at;
        rt->mem[i].space = (uint8_t)s;
        rt->mem[i].placed = true;
        next[s] = at + (m->size ? m->size : 1);
        if (!dla_memory(d, s) || !mem_in_range(dla_memory(d, s), at, m->size ? m->size : 1)) {
            snprintf(err, errlen, "%s: memory %u (file offset 0x%x): %llu bytes do not fit in %s",
                     l->name, m->id, m->at, (unsigned long long)m->size, dla_space_name(s));
            return false;
        }
        if (m->flags & LD_MEM_SET)
            for (uint32_t k = 0; k < m->n_contents; k++)
                if (!write_blob(rt, d, i, k, err, errlen))
                    return false;
    }
    return true;
}

static void find_bindings(struct runtime *rt)
{
    const struct loadable *l = rt->ld;
    rt->input_tensor = rt->output_tensor = rt->input_memory = rt->output_memory = -1;
    for (uint32_t i = 0; i < l->n_memories; i++) {
        const struct ld_memory *m = &l->memories[i];
        int t = loadable_tensor_index(l, m->tensor_desc_id);
        if ((m->flags & LD_MEM_INPUT) && rt->input_tensor < 0) {
            rt->input_tensor = t;
            rt->input_memory = (int)i;
        }
        if ((m->flags & LD_MEM_OUTPUT) && rt->output_tensor < 0) {
            rt->output_tensor = t;
            rt->output_memory = (int)i;
        }
    }
}

bool runtime_load(struct runtime *rt, const struct loadable *l, struct dla *d, char *err,
                  size_t errlen)
{
    memset(rt, 0, sizeof *rt);
    rt->ld = l;
    rt->mem = calloc(l->n_memories ? l->n_memories : 1, sizeof *rt->mem);
    if (!rt->mem) {
        snprintf(err, errlen, "%s: out of memory", l->name);
        return false;
    }
    find_bindings(rt);
    return place_memories(rt, d, err, errlen);
}

void runtime_free(struct runtime *rt)
{
    free(rt->mem);
    rt->mem = NULL;
}

bool runtime_reload_dep_graphs(const struct runtime *rt, struct dla *d, char *err, size_t errlen)
{
    const struct loadable *l = rt->ld;
    for (uint32_t i = 0; i < l->n_memories; i++) {
        const struct ld_memory *m = &l->memories[i];
        if (!(m->flags & LD_MEM_SET) || !rt->mem[i].placed)
            continue;
        for (uint32_t k = 0; k < m->n_contents; k++)
            if (strstr(m->contents[k], "dep_graph") && !write_blob(rt, d, i, k, err, errlen))
                return false;
    }
    return true;
}

static const struct ld_address *task_entry(const struct runtime *rt, uint32_t task, int32_t index)
{
    const struct loadable *l = rt->ld;
    if (task >= l->n_tasks || index < 0 || (uint32_t)index >= l->tasks[task].n_addresses)
        return NULL;
    int a = loadable_address_index(l, l->tasks[task].addresses[index]);
    if (a < 0 || !rt->mem[l->addresses[a].mem].placed)
        return NULL;
    return &l->addresses[a];
}

bool runtime_task_address(const struct runtime *rt, uint32_t task, int32_t index,
                          enum dla_space *space, uint64_t *addr)
{
    const struct ld_address *a = task_entry(rt, task, index);
    if (!a)
        return false;
    *space = (enum dla_space)rt->mem[a->mem].space;
    *addr = rt->mem[a->mem].addr + a->offset;
    return true;
}

bool runtime_task_buffer(const struct runtime *rt, uint32_t task, int32_t index,
                         enum dla_space *space, uint64_t *base, uint64_t *size)
{
    const struct ld_address *a = task_entry(rt, task, index);
    if (!a)
        return false;
    *space = (enum dla_space)rt->mem[a->mem].space;
    *base = rt->mem[a->mem].addr;
    *size = rt->ld->memories[a->mem].size;
    return true;
}

void runtime_locate(const struct runtime *rt, uint32_t task, int32_t index, uint64_t mem_offset,
                    char *buf, size_t len)
{
    const struct loadable *l = rt->ld;
    const struct ld_address *a = task_entry(rt, task, index);
    if (!a) {
        snprintf(buf, len, "address list entry %d", index);
        return;
    }
    const struct ld_memory *m = &l->memories[a->mem];
    int n = snprintf(buf, len, "address list entry %d (memory %u", index, m->id);
    for (uint32_t k = 0; k < m->n_contents && n >= 0 && (size_t)n < len; k++) {
        const struct ld_blob *b = &l->blobs[m->content_blob[k]];
        if (mem_offset < m->offsets[k] || mem_offset - m->offsets[k] >= b->data_len)
            continue;
        uint64_t in_blob = mem_offset - m->offsets[k];
        n += snprintf(buf + n, len - (size_t)n, ", blob \"%s\" + 0x%llx, file offset 0x%llx",
                      b->name, (unsigned long long)in_blob,
                      (unsigned long long)((size_t)(b->data - l->buf) + in_blob));
        break;
    }
    if (n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ")");
}

void runtime_tensor_place(const struct runtime *rt, int index, char *buf, size_t len)
{
    const struct ld_tensor *t = &rt->ld->tensors[index];
    snprintf(buf, len, "%s: tensor %u \"%s\" (file offset 0x%x)", rt->ld->name, t->id,
             t->name ? t->name : "", t->at);
}

bool runtime_task_blob_version(const struct runtime *rt, uint32_t task, struct ld_version *v)
{
    const struct ld_address *a = task_entry(rt, task, 0);
    if (!a)
        return false;
    const struct ld_memory *m = &rt->ld->memories[a->mem];
    if (!(m->flags & LD_MEM_SET) || m->n_contents == 0)
        return false;
    *v = rt->ld->blobs[m->content_blob[0]].version;
    return true;
}

/* ---------------------------------------------------------------- tensors */

static unsigned type_bpe(uint8_t data_type)
{
    switch (data_type) {
    case LD_TYPE_INT8:
        return 1;
    case LD_TYPE_INT16:
    case LD_TYPE_HALF:
        return 2;
    case LD_TYPE_FLOAT:
        return 4;
    default:
        return 1;
    }
}

/* The old runtime's output PixelFormat numbering (see dimg.h). */
static uint32_t old_dimg_format(uint8_t data_type)
{
    switch (data_type) {
    case LD_TYPE_HALF:
        return DIMG_FMT_FP16_X16;
    case LD_TYPE_INT16:
        return DIMG_FMT_INT16_X16;
    default:
        return DIMG_FMT_INT8_X32;
    }
}

/* Store one element value (a number) in the tensor's data type. */
static void encode_value(uint8_t data_type, double v, uint8_t *out)
{
    if (data_type == LD_TYPE_HALF) {
        le_put16(out, fp16_from_float((float)v));
    } else if (data_type == LD_TYPE_INT16) {
        int32_t x = v > 32767 ? 32767 : v < -32768 ? -32768 : (int32_t)v;
        le_put16(out, (uint16_t)x);
    } else {
        int32_t x = v > 127 ? 127 : v < -128 ? -128 : (int32_t)v;
        out[0] = (uint8_t)x;
    }
}

/* Offset of element (c, y, x) in the tensor: feature layout of one 32-byte
 * atom group, or plain pitch-linear rows for pixel formats. */
static uint64_t tensor_offset(const struct ld_tensor *t, uint32_t c, uint32_t y, uint32_t x)
{
    unsigned bpe = type_bpe(t->data_type);
    if (t->pixel_format < LD_FIRST_FEATURE_FORMAT)
        return (uint64_t)y * t->stride[1] + (uint64_t)x * t->stride[0] + c * bpe;
    return feature_offset(c, y, x, t->stride[1], t->stride[2], 32, bpe);
}

struct pgm {
    uint32_t width, height;
    const uint8_t *pixels;
};

static bool parse_pgm(const uint8_t *b, size_t len, struct pgm *p)
{
    if (len < 2 || b[0] != 'P' || b[1] != '5')
        return false;
    size_t i = 2;
    uint32_t vals[3];
    for (int k = 0; k < 3; k++) {
        while (i < len &&
               (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n' || b[i] == '#')) {
            if (b[i] == '#')
                while (i < len && b[i] != '\n')
                    i++;
            else
                i++;
        }
        uint64_t v = 0;
        size_t start = i;
        while (i < len && b[i] >= '0' && b[i] <= '9' && v < 100000)
            v = v * 10 + (uint64_t)(b[i++] - '0');
        if (i == start)
            return false;
        vals[k] = (uint32_t)v;
    }
    if (i >= len || vals[2] != 255)
        return false;
    i++; /* the single whitespace after maxval */
    p->width = vals[0];
    p->height = vals[1];
    p->pixels = b + i;
    return (uint64_t)p->width * p->height <= len - i;
}

static bool store_elements(const struct runtime *rt, struct dla *d, const struct ld_tensor *t,
                           uint8_t *buf, uint64_t len, char *err, size_t errlen)
{
    int m = rt->input_memory;
    enum mem_status st =
        dla_mem_write(d, (enum dla_space)rt->mem[m].space, rt->mem[m].addr + t->offset, buf, len);
    if (st != MEM_OK) {
        char place[512];
        runtime_tensor_place(rt, rt->input_tensor, place, sizeof place);
        snprintf(err, errlen, "%s: input tensor: %s", place, mem_status_str(st));
        return false;
    }
    return true;
}

static bool fill_from_pgm(const struct runtime *rt, struct dla *d, const struct pgm *p,
                          uint8_t *img, uint64_t len, char *err, size_t errlen)
{
    const struct ld_tensor *t = &rt->ld->tensors[rt->input_tensor];
    unsigned bpe = type_bpe(t->data_type);
    for (uint32_t y = 0; y < p->height && y < (uint32_t)t->h; y++)
        for (uint32_t x = 0; x < p->width && x < (uint32_t)t->w; x++) {
            uint64_t off = tensor_offset(t, 0, y, x);
            if (off + bpe <= len)
                encode_value(t->data_type, p->pixels[(uint64_t)y * p->width + x], img + off);
        }
    return store_elements(rt, d, t, img, len, err, errlen);
}

static bool fill_from_dimg(const struct runtime *rt, struct dla *d, const struct dimg_header *h,
                           const uint8_t *payload, size_t plen, uint8_t *img, uint64_t len,
                           char *err, size_t errlen)
{
    const struct ld_tensor *t = &rt->ld->tensors[rt->input_tensor];
    unsigned bpe = type_bpe(t->data_type);
    /* a DIMG payload is packed c, h, w; copy element by element into the
     * tensor's own layout.  The walk is over the payload's elements, so
     * header dimensions (a zero width with a huge height) cannot make it long. */
    uint64_t elems = (uint64_t)h->channel * h->height * h->width; /* 0: nothing to copy */
    if (h->width && h->height && elems / h->width / h->height != h->channel)
        elems = UINT64_MAX; /* overflowed: the payload bounds the walk anyway */
    uint64_t plane = (uint64_t)h->width * h->height;
    for (uint64_t i = 0; i < elems && (i + 1) * bpe <= plen; i++) {
        uint64_t c = i / plane, y = i % plane / h->width, x = i % h->width;
        if (c >= (uint64_t)t->c || y >= (uint64_t)t->h || x >= (uint64_t)t->w)
            continue;
        uint64_t off = tensor_offset(t, (uint32_t)c, (uint32_t)y, (uint32_t)x);
        if (off + bpe <= len)
            memcpy(img + off, payload + i * bpe, bpe);
    }
    return store_elements(rt, d, t, img, len, err, errlen);
}

/* Tensors are copied whole through host buffers: beyond DIMG_MAX_PAYLOAD is refused. */
static bool tensor_too_large(const struct runtime *rt, int index, const char *what, char *err,
                             size_t errlen)
{
    uint64_t len = rt->ld->tensors[index].size;
    if (len <= DIMG_MAX_PAYLOAD)
        return false;
    char place[512];
    runtime_tensor_place(rt, index, place, sizeof place);
    snprintf(err, errlen, "%s: %s tensor of %llu bytes is too large", place, what,
             (unsigned long long)len);
    return true;
}

bool runtime_fill_input(const struct runtime *rt, struct dla *d, const char *path, char *err,
                        size_t errlen)
{
    if (!path)
        return true;
    if (rt->input_tensor < 0) {
        snprintf(err, errlen, "%s: --input given, but the loadable has no input tensor",
                 rt->ld->name);
        return false;
    }
    const struct ld_tensor *t = &rt->ld->tensors[rt->input_tensor];
    uint64_t len = t->size;
    if (tensor_too_large(rt, rt->input_tensor, "input", err, errlen))
        return false;
    uint8_t *file;
    size_t flen;
    if (!file_read_all(path, DIMG_MAX_PAYLOAD, &file, &flen, err, errlen))
        return false;
    uint8_t *img = calloc(len ? len : 1, 1);
    bool ok = img != NULL;
    struct pgm pgm;
    struct dimg_header h;
    const uint8_t *payload;
    size_t plen;
    if (!ok) {
        snprintf(err, errlen, "out of memory");
    } else if (flen >= 2 && file[0] == 'P' && file[1] == '5') {
        ok = parse_pgm(file, flen, &pgm);
        if (!ok)
            snprintf(err, errlen, "%s: offset 0: expected a binary PGM (P5) with maxval 255", path);
        else
            ok = fill_from_pgm(rt, d, &pgm, img, len, err, errlen);
    } else if (flen >= 4 && memcmp(file, "DIMG", 4) == 0) {
        ok = dimg_parse(file, flen, path, &h, &payload, &plen, err, errlen) &&
             fill_from_dimg(rt, d, &h, payload, plen, img, len, err, errlen);
    } else {
        memcpy(img, file, flen < len ? flen : len); /* raw bytes in the tensor's layout */
        ok = store_elements(rt, d, t, img, len, err, errlen);
    }
    free(img);
    free(file);
    return ok;
}

bool runtime_write_output(const struct runtime *rt, struct dla *d, const char *path, char *err,
                          size_t errlen)
{
    if (rt->output_tensor < 0) {
        snprintf(err, errlen, "%s: the loadable has no output tensor to write", rt->ld->name);
        return false;
    }
    const struct ld_tensor *t = &rt->ld->tensors[rt->output_tensor];
    struct dimg_header h = {
        .format = old_dimg_format(t->data_type),
        .width = (uint32_t)t->w,
        .height = (uint32_t)t->h,
        .channel = (uint32_t)t->c,
        .line_stride = t->stride[1],
        .surf_stride = t->stride[2],
        .size = (uint32_t)t->size,
    };
    uint64_t len = t->size;
    if (tensor_too_large(rt, rt->output_tensor, "output", err, errlen))
        return false;
    char place[512];
    runtime_tensor_place(rt, rt->output_tensor, place, sizeof place);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    int m = rt->output_memory;
    enum mem_status st =
        dla_mem_read(d, (enum dla_space)rt->mem[m].space, rt->mem[m].addr + t->offset, buf, len);
    uint8_t *payload = NULL;
    size_t plen = 0;
    bool ok = st == MEM_OK && dimg_pack(&h, buf, len, &payload, &plen);
    if (!ok)
        snprintf(err, errlen, "%s: output tensor %ux%ux%u cannot be gathered (%s)", place,
                 h.channel, h.height, h.width, st == MEM_OK ? "too large" : mem_status_str(st));
    else
        ok = dimg_write(path, &h, payload, plen, err, errlen);
    free(payload);
    free(buf);
    return ok;
}
