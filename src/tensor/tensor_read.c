/* A tensor out of the model's memory into a dense NCHW array. */
#include "tensor_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "num/fp16.h"
#include "util/le_bytes.h"

static const char *const elem_names[] = {"int8", "uint8", "int16", "fp16"};

unsigned tensor_elem_bytes(uint8_t elem)
{
    return elem == TENSOR_INT16 || elem == TENSOR_FP16 ? 2 : 1;
}

const char *tensor_elem_name(uint8_t elem)
{
    return elem < 4 ? elem_names[elem] : "?";
}

bool tensor_elem_parse(const char *name, uint8_t *elem)
{
    for (uint8_t i = 0; i < 4; i++)
        if (!strcasecmp(name, elem_names[i])) {
            *elem = i;
            return true;
        }
    if (!strcasecmp(name, "float16") || !strcasecmp(name, "half")) {
        *elem = TENSOR_FP16;
        return true;
    }
    return false;
}

/* Channels side by side in one atom (feature) or pixel (pitch). */
static uint64_t channels_per_group(const struct tensor_info *t)
{
    if (t->pitch)
        return t->c ? t->c : 1;
    uint64_t per = t->elem_stride / tensor_elem_bytes(t->elem);
    return per ? per : 1;
}

uint64_t tensor_batch_stride(const struct tensor_info *t)
{
    if (t->batch_stride)
        return t->batch_stride;
    if (t->pitch)
        return (uint64_t)t->h * t->line_stride;
    uint64_t per = channels_per_group(t);
    return (t->c + per - 1) / per * t->surf_stride;
}

uint64_t tensor_element_addr(const struct tensor_info *t, uint32_t b, uint32_t c, uint32_t y,
                             uint32_t x)
{
    unsigned bpe = tensor_elem_bytes(t->elem);
    uint64_t at = t->addr + (uint64_t)b * tensor_batch_stride(t) + (uint64_t)y * t->line_stride +
                  (uint64_t)x * t->elem_stride;
    if (t->pitch)
        return at + (uint64_t)c * bpe;
    uint64_t per = channels_per_group(t);
    return at + (c / per) * t->surf_stride + (c % per) * bpe;
}

struct tensor_box tensor_box_all(const struct tensor_info *t)
{
    return (struct tensor_box){0, t->n, 0, t->c, 0, t->h, 0, t->w};
}

uint64_t tensor_box_count(const struct tensor_box *b)
{
    if (b->n1 <= b->n0 || b->c1 <= b->c0 || b->h1 <= b->h0 || b->w1 <= b->w0)
        return 0;
    return (uint64_t)(b->n1 - b->n0) * (b->c1 - b->c0) * (b->h1 - b->h0) * (b->w1 - b->w0);
}

static void tensor_label(const struct tensor_info *t, char *buf, size_t len)
{
    if (t->name[0])
        snprintf(buf, len, "tensor %s", t->name);
    else
        snprintf(buf, len, "the tensor at %s 0x%llx", dla_space_name((enum dla_space)t->space),
                 (unsigned long long)t->addr);
}

/* The shape and strides can be walked: no zero extent, strides that keep
 * elements apart, offsets that cannot wrap. */
static bool check_shape(const struct tensor_info *t, char *err, size_t errlen)
{
    char what[96];
    tensor_label(t, what, sizeof what);
    if (t->elem > TENSOR_FP16) {
        snprintf(err, errlen, "%s: element type %u is none of int8, uint8, int16, fp16", what,
                 t->elem);
        return false;
    }
    if (!t->n || !t->c || !t->h || !t->w) {
        snprintf(err, errlen, "%s: shape %ux%ux%ux%u (NCHW) has an empty dimension", what, t->n,
                 t->c, t->h, t->w);
        return false;
    }
    if (t->space >= DLA_SPACE_COUNT) {
        snprintf(err, errlen, "%s: memory space %u is none of the model's", what, t->space);
        return false;
    }
    unsigned bpe = tensor_elem_bytes(t->elem);
    uint64_t group = t->pitch ? (uint64_t)t->c * bpe : bpe;
    if (t->elem_stride < group) {
        snprintf(err, errlen, "%s: %s of %llu bytes cannot hold %s%s elements", what,
                 t->pitch ? "a pixel" : "an atom", (unsigned long long)t->elem_stride,
                 t->pitch ? "every channel's " : "one of its ", tensor_elem_name(t->elem));
        return false;
    }
    /* every product below stays under 2^62: no offset wraps */
    const uint64_t lim = 1ull << 40;
    if (t->elem_stride > lim || t->line_stride > lim || t->surf_stride > lim ||
        t->batch_stride > lim) {
        snprintf(err, errlen,
                 "%s: a stride over 2^40 bytes (element %llu, line %llu, surface %llu)", what,
                 (unsigned long long)t->elem_stride, (unsigned long long)t->line_stride,
                 (unsigned long long)t->surf_stride);
        return false;
    }
    return true;
}

bool tensor_span(const struct tensor_info *t, uint64_t *span)
{
    unsigned bpe = tensor_elem_bytes(t->elem);
    uint64_t per = channels_per_group(t);
    uint64_t groups = t->pitch ? 1 : (t->c + per - 1) / per;
    uint64_t last = t->pitch ? (uint64_t)t->c * bpe : t->elem_stride;
    uint64_t parts[4][2] = {{t->n - 1, tensor_batch_stride(t)},
                            {groups - 1, t->surf_stride},
                            {t->h - 1, t->line_stride},
                            {t->w - 1, t->elem_stride}};
    uint64_t sum = last;
    for (int i = 0; i < 4; i++) {
        uint64_t p;
        if (__builtin_mul_overflow(parts[i][0], parts[i][1], &p) ||
            __builtin_add_overflow(sum, p, &sum))
            return false;
    }
    *span = sum;
    return true;
}

/* The elements lie inside the memory space's addresses. */
static bool check_extent(struct dla *d, const struct tensor_info *t, char *err, size_t errlen)
{
    char what[96];
    tensor_label(t, what, sizeof what);
    uint64_t span;
    if (!tensor_span(t, &span) || t->addr + span < t->addr) {
        snprintf(err, errlen, "%s: its shape and strides reach past the end of 64-bit addresses",
                 what);
        return false;
    }
    struct dla_mem *m = dla_memory(d, (enum dla_space)t->space);
    if (!m || !mem_in_range(m, t->addr, span)) {
        snprintf(err, errlen, "%s: %s 0x%llx + %llu bytes is outside the memory space", what,
                 dla_space_name((enum dla_space)t->space), (unsigned long long)t->addr,
                 (unsigned long long)span);
        return false;
    }
    return true;
}

static bool check_box(const struct tensor_info *t, const struct tensor_box *b, char *err,
                      size_t errlen)
{
    char what[96];
    tensor_label(t, what, sizeof what);
    if (b->n1 > t->n || b->c1 > t->c || b->h1 > t->h || b->w1 > t->w || !tensor_box_count(b)) {
        snprintf(err, errlen,
                 "%s: n=%u:%u c=%u:%u h=%u:%u w=%u:%u is not a part of its %ux%ux%ux%u (NCHW)",
                 what, b->n0, b->n1, b->c0, b->c1, b->h0, b->h1, b->w0, b->w1, t->n, t->c, t->h,
                 t->w);
        return false;
    }
    uint64_t bytes = tensor_box_count(b) * tensor_elem_bytes(t->elem);
    if (bytes > TENSOR_READ_MAX_BYTES) {
        snprintf(err, errlen,
                 "%s: %llu bytes of elements (%ux%ux%ux%u %s); at most %llu MiB are read", what,
                 (unsigned long long)bytes, b->n1 - b->n0, b->c1 - b->c0, b->h1 - b->h0,
                 b->w1 - b->w0, tensor_elem_name(t->elem),
                 (unsigned long long)(TENSOR_READ_MAX_BYTES >> 20));
        return false;
    }
    return true;
}

static void store_elem(uint8_t elem, void *data, uint64_t i, const uint8_t *p)
{
    switch (elem) {
    case TENSOR_INT8:
        ((int8_t *)data)[i] = (int8_t)p[0];
        break;
    case TENSOR_UINT8:
        ((uint8_t *)data)[i] = p[0];
        break;
    case TENSOR_INT16:
        ((int16_t *)data)[i] = (int16_t)le_get16(p);
        break;
    default:
        ((uint16_t *)data)[i] = le_get16(p);
        break;
    }
}

/* One run of memory: the elements of row y of batch b, columns [w0, w1),
 * for the channels that share an atom (feature) or every channel (pitch):
 * run_bytes from the first one's group. */
bool tensor_read_box(struct dla *d, const struct tensor_info *t, const struct tensor_box *box,
                     struct tensor_data *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!check_shape(t, err, errlen) || !check_box(t, box, err, errlen) ||
        !check_extent(d, t, err, errlen))
        return false;
    unsigned bpe = tensor_elem_bytes(t->elem);
    uint64_t per = channels_per_group(t);
    uint32_t n = box->n1 - box->n0, c = box->c1 - box->c0, h = box->h1 - box->h0,
             w = box->w1 - box->w0;
    uint64_t count = tensor_box_count(box);
    uint64_t run = (uint64_t)(w - 1) * t->elem_stride + per * bpe;
    if (run > (64u << 20)) /* a row this long is a stride gone wrong; go element by element */
        run = 0;
    void *data = malloc((size_t)(count * bpe));
    uint8_t *buf = run ? malloc((size_t)run) : NULL;
    if (!data || (run && !buf)) {
        free(data);
        free(buf);
        snprintf(err, errlen, "out of memory for %llu elements", (unsigned long long)count);
        return false;
    }
    enum dla_space space = (enum dla_space)t->space;
    out->info = *t;
    out->box = *box;
    out->n = n;
    out->c = c;
    out->h = h;
    out->w = w;
    out->count = count;
    out->data = data;
    for (uint32_t b = box->n0; b < box->n1; b++)
        for (uint32_t y = box->h0; y < box->h1; y++)
            for (uint32_t ch = box->c0; ch < box->c1;) {
                /* the channels of this atom (or pixel) inside the box */
                uint32_t first = (uint32_t)(ch - ch % per);
                uint32_t end = first + per < box->c1 ? (uint32_t)(first + per) : box->c1;
                uint64_t base = tensor_element_addr(t, b, first, y, box->w0);
                bool whole = run && dla_mem_read(d, space, base, buf, (size_t)run) == MEM_OK;
                for (; ch < end; ch++)
                    for (uint32_t x = box->w0; x < box->w1; x++) {
                        uint64_t i = tensor_data_index(out, b, ch, y, x);
                        uint64_t off =
                            (uint64_t)(x - box->w0) * t->elem_stride + (uint64_t)(ch - first) * bpe;
                        if (whole) {
                            store_elem(t->elem, data, i, buf + off);
                            continue;
                        }
                        uint8_t e[2] = {0, 0};
                        uint64_t at = tensor_element_addr(t, b, ch, y, x);
                        enum mem_status st = dla_mem_read(d, space, at, e, bpe);
                        if (st != MEM_OK) {
                            char what[96];
                            tensor_label(t, what, sizeof what);
                            snprintf(err, errlen,
                                     "%s: element n=%u c=%u h=%u w=%u at %s 0x%llx: %s", what, b,
                                     ch, y, x, dla_space_name(space), (unsigned long long)at,
                                     mem_status_str(st));
                            free(buf);
                            tensor_data_free(out);
                            return false;
                        }
                        store_elem(t->elem, data, i, e);
                    }
            }
    free(buf);
    return true;
}

bool tensor_read(struct dla *d, const struct tensor_info *t, struct tensor_data *out, char *err,
                 size_t errlen)
{
    struct tensor_box all = tensor_box_all(t);
    return tensor_read_box(d, t, &all, out, err, errlen);
}

void tensor_data_free(struct tensor_data *td)
{
    free(td->data);
    memset(td, 0, sizeof *td);
}

int32_t tensor_elem_raw(uint8_t elem, const void *data, uint64_t i)
{
    switch (elem) {
    case TENSOR_INT8:
        return ((const int8_t *)data)[i];
    case TENSOR_UINT8:
        return ((const uint8_t *)data)[i];
    case TENSOR_INT16:
        return ((const int16_t *)data)[i];
    default:
        return ((const uint16_t *)data)[i];
    }
}

double tensor_elem_value(uint8_t elem, const void *data, uint64_t i)
{
    int32_t raw = tensor_elem_raw(elem, data, i);
    if (elem == TENSOR_FP16)
        return (double)f32_from_bits(fp16_to_f32_bits((uint16_t)raw));
    return raw;
}

void tensor_elem_format(uint8_t elem, const void *data, uint64_t i, char *buf, size_t len)
{
    if (elem == TENSOR_FP16)
        snprintf(buf, len, "%g", tensor_elem_value(elem, data, i));
    else
        snprintf(buf, len, "%d", tensor_elem_raw(elem, data, i));
}

double tensor_real_value(uint8_t elem, double raw, double scale)
{
    if (elem == TENSOR_FP16 || scale == 0)
        return raw;
    return raw * scale;
}
