/* DIMG writing and reading (see dimg.h for the layout and the old
 * numbering the goldens use). */
#include "dimg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/afile.h"
#include "util/le_bytes.h"

struct dimg_header dimg_header_for(const struct tensor_layout *lay)
{
    bool x8_era = lay->pixel_format == LD_PIXEL_FEATURE_X8;
    uint32_t format;
    switch (lay->surface) {
    case TSURF_X32_INT8:
        format = DIMG_FMT_INT8_X32;
        break;
    case TSURF_X8_INT8:
        format = DIMG_FMT_INT8_X8;
        break;
    case TSURF_X16_INT16:
        format = x8_era ? DIMG_FMT_INT16_X16 : DIMG_FMT_OLD_INT16_X16;
        break;
    default:
        format = x8_era ? DIMG_FMT_FP16_X16 : DIMG_FMT_OLD_FP16_X16;
        break;
    }
    return (struct dimg_header){
        .format = format,
        .width = lay->w,
        .height = lay->h,
        .channel = lay->c,
        .line_stride = (uint32_t)lay->line_stride,
        .surf_stride = (uint32_t)lay->surf_stride,
        .size = (uint32_t)lay->size,
    };
}

bool dimg_format_has_bpe(uint32_t format, unsigned bpe)
{
    switch (format) {
    case DIMG_FMT_INT8_X32:
        return bpe == 1;
    case DIMG_FMT_INT8_X8: /* = DIMG_FMT_OLD_INT16_X16 */
        return bpe == 1 || bpe == 2;
    case DIMG_FMT_INT16_X16: /* = DIMG_FMT_OLD_FP16_X16 */
    case DIMG_FMT_FP16_X16:
        return bpe == 2;
    default:
        return false;
    }
}

/* nvdla_runtime's "stable hash" of fp16 output as its code behaves, not as
 * its comments say: it compares the half with the integer 0x8000 and assigns
 * the integers 0 and 0x7C00, all as numbers (half_float converts through
 * float).  So an element equal to 32768.0 becomes +0, every NaN becomes
 * 31744.0 (0x77c0), and -0 stays -0. */
static uint16_t stable_fp16(uint16_t v)
{
    if (v == 0x7800u) /* 32768.0 */
        return 0;
    if ((v & 0x7c00u) == 0x7c00u && (v & 0x03ffu))
        return 0x77c0u; /* 31744.0 */
    return v;
}

bool dimg_pack(const struct tensor_layout *lay, const uint8_t *buf, uint64_t len, uint8_t **out,
               size_t *out_len)
{
    unsigned bpe = lay->bpe;
    uint64_t n = (uint64_t)lay->c * lay->h * lay->w;
    if (n > DIMG_MAX_PAYLOAD / bpe)
        return false;
    uint8_t *p = malloc(n ? n * bpe : 1);
    if (!p)
        return false;
    bool fp16 = lay->surface == TSURF_X16_FP16 || lay->surface == TSURF_A16B16G16R16_F;
    size_t k = 0;
    for (uint32_t c = 0; c < lay->c; c++)
        for (uint32_t y = 0; y < lay->h; y++)
            for (uint32_t x = 0; x < lay->w; x++) {
                uint64_t off = tensor_layout_offset(lay, c, y, x);
                for (unsigned b = 0; b < bpe; b++)
                    p[k + b] = off + b < len ? buf[off + b] : 0;
                if (fp16)
                    le_put16(p + k, stable_fp16(le_get16(p + k)));
                k += bpe;
            }
    *out = p;
    *out_len = k;
    return true;
}

bool dimg_write(const char *path, const struct dimg_header *h, const uint8_t *payload,
                size_t payload_len, char *err, size_t errlen)
{
    uint8_t hdr[DIMG_HEADER_SIZE];
    memcpy(hdr, "DIMG", 4);
    le_put32(hdr + 4, 0);
    le_put32(hdr + 8, h->format);
    le_put32(hdr + 12, h->width);
    le_put32(hdr + 16, h->height);
    le_put32(hdr + 20, h->channel);
    le_put32(hdr + 24, h->line_stride);
    le_put32(hdr + 28, h->surf_stride);
    le_put32(hdr + 32, h->size);
    struct afile af;
    if (!afile_open(&af, path, err, errlen))
        return false;
    if (fwrite(hdr, 1, sizeof hdr, af.fp) != sizeof hdr ||
        (payload_len && fwrite(payload, 1, payload_len, af.fp) != payload_len)) {
        snprintf(err, errlen, "%s: write error", path);
        afile_abort(&af);
        return false;
    }
    return afile_commit(&af, err, errlen);
}

bool dimg_parse(const uint8_t *file, size_t len, const char *name, struct dimg_header *h,
                const uint8_t **payload, size_t *payload_len, char *err, size_t errlen)
{
    if (len < DIMG_HEADER_SIZE || memcmp(file, "DIMG", 4) != 0) {
        snprintf(err, errlen, "%s: offset 0: expected the DIMG magic and a 36-byte header", name);
        return false;
    }
    if (le_get32(file + 4) != 0) {
        snprintf(err, errlen, "%s: offset 4: DIMG version %u, expected 0", name, le_get32(file + 4));
        return false;
    }
    h->format = le_get32(file + 8);
    h->width = le_get32(file + 12);
    h->height = le_get32(file + 16);
    h->channel = le_get32(file + 20);
    h->line_stride = le_get32(file + 24);
    h->surf_stride = le_get32(file + 28);
    h->size = le_get32(file + 32);
    *payload = file + DIMG_HEADER_SIZE;
    *payload_len = len - DIMG_HEADER_SIZE;
    return true;
}
