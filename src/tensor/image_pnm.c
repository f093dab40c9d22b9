/* Binary PGM and PPM decoding (see image_pnm.h). */
#include "image_pnm.h"

#include <stdio.h>
#include <string.h>

bool pnm_looks_like(const uint8_t *buf, size_t len)
{
    return len >= 2 && buf[0] == 'P' && (buf[1] == '5' || buf[1] == '6');
}

static bool is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Skip whitespace and '#' comments (to the end of their line). */
static size_t skip_blanks(const uint8_t *b, size_t len, size_t i)
{
    while (i < len && (is_space(b[i]) || b[i] == '#')) {
        if (b[i] == '#')
            while (i < len && b[i] != '\n')
                i++;
        else
            i++;
    }
    return i;
}

/* One decimal header number at *i; false when there is none or it is
 * absurdly long. */
static bool header_number(const uint8_t *b, size_t len, size_t *i, uint32_t *v)
{
    *i = skip_blanks(b, len, *i);
    size_t start = *i;
    uint64_t n = 0;
    while (*i < len && b[*i] >= '0' && b[*i] <= '9' && n <= 0xffffffffu)
        n = n * 10 + (uint64_t)(b[(*i)++] - '0');
    if (*i == start || n > 0xffffffffu)
        return false;
    *v = (uint32_t)n;
    return true;
}

bool pnm_decode(const uint8_t *buf, size_t len, const char *name, struct host_image *img,
                char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    if (!pnm_looks_like(buf, len)) {
        snprintf(err, errlen, "%s: offset 0: expected a binary PGM (P5) or PPM (P6)", name);
        return false;
    }
    uint32_t channels = buf[1] == '6' ? 3 : 1;
    static const char *const what[3] = {"the width", "the height", "the maximum value"};
    uint32_t v[3];
    size_t i = 2, maxval_at = 0;
    for (int k = 0; k < 3; k++) {
        maxval_at = skip_blanks(buf, len, i);
        if (!header_number(buf, len, &i, &v[k])) {
            snprintf(err, errlen, "%s: offset %zu: expected %s (a decimal number)", name, i,
                     what[k]);
            return false;
        }
    }
    if (v[2] != 255) {
        snprintf(err, errlen,
                 "%s: offset %zu: maximum value %u; nvdla_runtime reads 8-bit images (255) only",
                 name, maxval_at, v[2]);
        return false;
    }
    if (i >= len || !is_space(buf[i])) {
        snprintf(err, errlen, "%s: offset %zu: expected one whitespace before the pixels", name, i);
        return false;
    }
    i++;
    uint64_t bytes = (uint64_t)v[0] * v[1] * channels;
    if (v[0] == 0 || v[1] == 0 || bytes > HOST_IMAGE_MAX_BYTES) {
        snprintf(err, errlen, "%s: offset %zu: image of %ux%u pixels (1 to %u bytes expected)",
                 name, i, v[0], v[1], HOST_IMAGE_MAX_BYTES);
        return false;
    }
    if (bytes > len - i) {
        snprintf(err, errlen, "%s: offset %zu: expected %llu bytes of pixels, found %zu", name, i,
                 (unsigned long long)bytes, len - i);
        return false;
    }
    img->pixels = malloc((size_t)bytes);
    if (!img->pixels) {
        snprintf(err, errlen, "%s: out of memory", name);
        return false;
    }
    const uint8_t *src = buf + i;
    for (uint64_t p = 0; p < (uint64_t)v[0] * v[1]; p++)
        for (uint32_t c = 0; c < channels; c++) /* PPM: R, G, B -> B, G, R */
            img->pixels[p * channels + c] = src[p * channels + (channels - 1 - c)];
    img->width = v[0];
    img->height = v[1];
    img->channels = channels;
    return true;
}
