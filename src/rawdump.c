/* nvdla_runtime's --rawdump text (see rawdump.h). */
#include "rawdump.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube.h"
#include "fp16.h"
#include "le_bytes.h"

#define PIXEL_FORMAT_FEATURE    36 /* TENSOR_PIXEL_FORMAT_FEATURE */
#define PIXEL_FORMAT_FEATURE_X8 37
#define RAWDUMP_MAX_TEXT        (64u << 20)
#define RAWDUMP_ELEMENT_MAX     16 /* bytes of one element and its space, at most */

/* How the runtime's NvDlaImage sees the tensor. */
struct image_view {
    unsigned bpe, atom;
    bool fp16;
};

static bool view_of(const struct ld_tensor *t, struct image_view *v, char *err, size_t errlen)
{
    bool feature = t->pixel_format == PIXEL_FORMAT_FEATURE ||
                   t->pixel_format == PIXEL_FORMAT_FEATURE_X8;
    /* other pixel formats: the runtime warns and takes fp16 x16 */
    *v = (struct image_view){.bpe = 2, .atom = 32, .fp16 = true};
    if (!feature || t->data_type == LD_TYPE_HALF)
        return true;
    if (t->data_type == LD_TYPE_INT16) {
        v->fp16 = false;
        return true;
    }
    if (t->data_type == LD_TYPE_INT8) {
        *v = (struct image_view){.bpe = 1, .fp16 = false,
                                 .atom = t->pixel_format == PIXEL_FORMAT_FEATURE_X8 ? 8u : 32u};
        return true;
    }
    snprintf(err, errlen, "output tensor \"%s\": data type %u cannot be dumped (the runtime "
             "shows int8, int16 and fp16 tensors only)", t->name ? t->name : "", t->data_type);
    return false;
}

void rawdump_half(uint16_t h, char *out, size_t len)
{
    float v = fp16_to_float(h);
    if (isnan(v))
        v = 31744.0f; /* the runtime assigns 0x7C00 as a number */
    else if (v == 32768.0f)
        v = 0.0f; /* its negative-zero test compares the value with 0x8000 */
    snprintf(out, len, "%g", (double)v);
}

static void format_element(const struct image_view *v, const uint8_t *p, char *out, size_t len)
{
    if (v->fp16)
        rawdump_half(le_get16(p), out, len);
    else if (v->bpe == 2)
        snprintf(out, len, "%d", (int)(int16_t)le_get16(p));
    else
        snprintf(out, len, "%d", (int)(int8_t)p[0]);
}

bool rawdump_text(const struct ld_tensor *t, const uint8_t *buf, uint64_t len, char **text,
                  size_t *text_len, char *err, size_t errlen)
{
    struct image_view v;
    *text = NULL;
    *text_len = 0;
    if (!view_of(t, &v, err, errlen))
        return false;
    uint64_t n = (uint64_t)(t->c > 0 ? t->c : 0) * (uint64_t)(t->h > 0 ? t->h : 0) *
                 (uint64_t)(t->w > 0 ? t->w : 0);
    /* the longest element, "-5.96046e-08 ", takes 13 bytes */
    if (n * RAWDUMP_ELEMENT_MAX + 1 > RAWDUMP_MAX_TEXT) {
        snprintf(err, errlen, "output tensor of %llu elements is too large to dump as text",
                 (unsigned long long)n);
        return false;
    }
    size_t cap = (size_t)n * RAWDUMP_ELEMENT_MAX + 1;
    char *s = malloc(cap), *at = s;
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    for (uint32_t c = 0; c < (uint32_t)t->c; c++)
        for (uint32_t y = 0; y < (uint32_t)t->h; y++)
            for (uint32_t x = 0; x < (uint32_t)t->w; x++) {
                uint64_t off = feature_offset(c, y, x, t->stride[1], t->stride[2], v.atom, v.bpe);
                if (off >= t->size || off + v.bpe > len) {
                    snprintf(err, errlen,
                             "output tensor: element (c %u, h %u, w %u) lies at byte %llu, "
                             "beyond the tensor's %llu bytes",
                             c, y, x, (unsigned long long)off, (unsigned long long)t->size);
                    free(s);
                    return false;
                }
                char one[RAWDUMP_ELEMENT_MAX];
                format_element(&v, buf + off, one, sizeof one);
                at += snprintf(at, cap - (size_t)(at - s), "%s ", one);
            }
    *at = 0;
    *text = s;
    *text_len = (size_t)(at - s);
    return true;
}
