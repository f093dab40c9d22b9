/* DIMG writing and reading (see dimg.h for the layout and the old
 * numbering the goldens use). */
#include "dimg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afile.h"
#include "cube.h"
#include "le_bytes.h"

unsigned dimg_bpe(uint32_t format)
{
    switch (format) {
    case DIMG_FMT_INT8_X32:
        return 1;
    case DIMG_FMT_INT16_X16:
    case DIMG_FMT_FP16_X16:
        return 2;
    default:
        return 0;
    }
}

/* Hashing-stable fp16: one zero and one NaN. */
static uint16_t stable_fp16(uint16_t v)
{
    if (v == 0x8000u)
        return 0;
    if ((v & 0x7c00u) == 0x7c00u && (v & 0x03ffu))
        return 0x7c00u;
    return v;
}

bool dimg_pack(const struct dimg_header *h, const uint8_t *buf, uint64_t len, uint8_t **out,
               size_t *out_len)
{
    unsigned bpe = dimg_bpe(h->format);
    uint64_t n = (uint64_t)h->channel * h->height * h->width;
    if (bpe == 0 || n > DIMG_MAX_PAYLOAD / bpe)
        return false;
    uint8_t *p = malloc(n ? n * bpe : 1);
    if (!p)
        return false;
    size_t k = 0;
    for (uint32_t c = 0; c < h->channel; c++)
        for (uint32_t y = 0; y < h->height; y++)
            for (uint32_t x = 0; x < h->width; x++) {
                uint64_t off = feature_offset(c, y, x, h->line_stride, h->surf_stride, 32, bpe);
                for (unsigned b = 0; b < bpe; b++)
                    p[k + b] = off + b < len ? buf[off + b] : 0;
                if (h->format == DIMG_FMT_FP16_X16)
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
