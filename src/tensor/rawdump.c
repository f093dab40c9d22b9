/* nvdla_runtime's --rawdump text (see rawdump.h). */
#include "rawdump.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num/fp16.h"
#include "util/le_bytes.h"
#include "tensor_layout.h"

#define RAWDUMP_MAX_TEXT    (64u << 20)
#define RAWDUMP_ELEMENT_MAX 16 /* bytes of one element and its space, at most */

void rawdump_half(uint16_t h, char *out, size_t len)
{
    float v = fp16_to_float(h);
    if (isnan(v))
        v = 31744.0f; /* the runtime assigns 0x7C00 as a number */
    else if (v == 32768.0f)
        v = 0.0f; /* its negative-zero test compares the value with 0x8000 */
    snprintf(out, len, "%g", (double)v);
}

static void format_element(const struct tensor_layout *lay, const uint8_t *p, char *out,
                           size_t len)
{
    if (lay->surface == TSURF_X16_FP16)
        rawdump_half(le_get16(p), out, len);
    else if (lay->bpe == 2)
        snprintf(out, len, "%d", (int)(int16_t)le_get16(p));
    else
        snprintf(out, len, "%d", (int)(int8_t)p[0]);
}

bool rawdump_text(const struct ld_tensor *t, const uint8_t *buf, uint64_t len, char **text,
                  size_t *text_len, char *err, size_t errlen)
{
    /* the runtime's image view of the tensor (its Tensor2DIMG) */
    struct tensor_layout lay;
    *text = NULL;
    *text_len = 0;
    if (!tensor_layout_output(t, &lay, err, errlen))
        return false;
    uint64_t n = (uint64_t)lay.c * lay.h * lay.w;
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
    for (uint32_t c = 0; c < lay.c; c++)
        for (uint32_t y = 0; y < lay.h; y++)
            for (uint32_t x = 0; x < lay.w; x++) {
                uint64_t off = tensor_layout_offset(&lay, c, y, x);
                if (off >= t->size || off + lay.bpe > len) {
                    snprintf(err, errlen,
                             "output tensor: element (c %u, h %u, w %u) lies at byte %llu, "
                             "beyond the tensor's %llu bytes",
                             c, y, x, (unsigned long long)off, (unsigned long long)t->size);
                    free(s);
                    return false;
                }
                char one[RAWDUMP_ELEMENT_MAX];
                format_element(&lay, buf + off, one, sizeof one);
                at += snprintf(at, cap - (size_t)(at - s), "%s ", one);
            }
    *at = 0;
    *text = s;
    *text_len = (size_t)(at - s);
    return true;
}
