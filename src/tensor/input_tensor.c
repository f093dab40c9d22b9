/* The input tensor filled from --image or --input (see input_tensor.h). */
#include "input_tensor.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dimg.h"
#include "image_jpeg.h"
#include "image_pnm.h"
#include "util/textfile.h"

static bool store(const struct runtime *rt, struct dla *d, const struct ld_tensor *t,
                  const uint8_t *buf, char *err, size_t errlen)
{
    int m = rt->input_memory;
    enum mem_status st =
        dla_mem_write(d, (enum dla_space)rt->mem[m].space, rt->mem[m].addr + t->offset, buf, t->size);
    if (st != MEM_OK) {
        snprintf(err, errlen, "input tensor \"%s\": %s", t->name ? t->name : "",
                 mem_status_str(st));
        return false;
    }
    return true;
}

/* The surface a DIMG's elements go to: the runtime's image surface for pixel
 * formats, the feature surface of the tensor's data type otherwise. */
static bool dimg_target(const struct ld_tensor *t, struct tensor_layout *lay, char *err,
                        size_t errlen)
{
    if (t->pixel_format >= LD_FIRST_FEATURE_FORMAT)
        return tensor_layout_output(t, lay, err, errlen);
    return tensor_layout_input(t, lay, err, errlen);
}

static bool from_dimg(const struct ld_tensor *t, const uint8_t *file, size_t flen,
                      const char *path, uint8_t *buf, char *err, size_t errlen)
{
    struct dimg_header h;
    const uint8_t *payload;
    size_t plen;
    struct tensor_layout lay;
    if (!dimg_parse(file, flen, path, &h, &payload, &plen, err, errlen) ||
        !dimg_target(t, &lay, err, errlen))
        return false;
    unsigned bpe = tensor_type_bytes(t->data_type);
    uint64_t n = (uint64_t)h.channel * h.height * h.width;
    if (h.channel != lay.c || h.height != lay.h || h.width != lay.w ||
        !dimg_format_has_bpe(h.format, bpe) || n * bpe != plen) {
        char tensor[96];
        tensor_layout_shape(&lay, tensor, sizeof tensor);
        snprintf(err, errlen,
                 "%s: DIMG 1x%ux%ux%u (NCHW), pixel format %u, %zu bytes of elements, does not "
                 "fit the input tensor %s (%llu bytes of %u-byte elements)",
                 path, h.channel, h.height, h.width, h.format, plen, tensor,
                 (unsigned long long)lay.c * lay.h * lay.w * bpe, bpe);
        return false;
    }
    memset(buf, 0, t->size);
    size_t k = 0;
    for (uint32_t c = 0; c < lay.c; c++)
        for (uint32_t y = 0; y < lay.h; y++)
            for (uint32_t x = 0; x < lay.w; x++, k += bpe) {
                uint64_t off = tensor_layout_offset(&lay, c, y, x);
                if (off > t->size || bpe > t->size - off) {
                    snprintf(err, errlen, "%s: element c=%u h=%u w=%u lands at offset %llu, "
                             "outside the input tensor's %llu bytes",
                             path, c, y, x, (unsigned long long)off,
                             (unsigned long long)t->size);
                    return false;
                }
                memcpy(buf + off, payload + k, bpe);
            }
    return true;
}

/* Add text to the warnings in warn, "; " between two. */
static void append_warning(char *warn, size_t warnlen, const char *text)
{
    size_t used = warnlen ? strlen(warn) : 0;
    if (text[0] && used + 1 < warnlen)
        snprintf(warn + used, warnlen - used, "%s%s", used ? "; " : "", text);
}

static bool from_picture(const struct ld_tensor *t, const struct input_opts *o,
                         const uint8_t *file, size_t flen, uint8_t *buf, char *warn,
                         size_t warnlen, char *err, size_t errlen)
{
    struct host_image img;
    char decode_warn[256] = "", convert_warn[256] = "";
    bool ok = jpeg_looks_like(file, flen)
                  ? jpeg_decode(file, flen, o->image, &img, decode_warn, sizeof decode_warn, err,
                                errlen)
                  : pnm_decode(file, flen, o->image, &img, err, errlen);
    if (!ok)
        return false;
    struct tensor_layout lay;
    ok = tensor_layout_input(t, &lay, err, errlen) &&
         input_image_convert(&img, &lay, &o->norm, buf, convert_warn, sizeof convert_warn, err,
                             errlen);
    host_image_free(&img);
    if (!ok)
        return false;
    append_warning(warn, warnlen, decode_warn);
    append_warning(warn, warnlen, convert_warn);
    if (input_norm_given(&o->norm) && t->data_type == LD_TYPE_INT8)
        append_warning(warn, warnlen,
                       "--mean and --normalize ignored: the input tensor is int8 (nvdla_runtime "
                       "ignores them too)");
    return true;
}

static bool from_raw(const struct ld_tensor *t, const uint8_t *file, size_t flen,
                     const char *path, uint8_t *buf, char *err, size_t errlen)
{
    if (flen != t->size) {
        struct tensor_layout lay;
        char tensor[96] = "";
        if (dimg_target(t, &lay, err, errlen))
            tensor_layout_shape(&lay, tensor, sizeof tensor);
        bool picture = jpeg_looks_like(file, flen) || pnm_looks_like(file, flen);
        snprintf(err, errlen,
                 "%s: %zu bytes of raw input do not fit the input tensor %s, a buffer of %llu "
                 "bytes%s",
                 path, flen, tensor, (unsigned long long)t->size,
                 picture ? " (an image? give it with --image)" : "");
        return false;
    }
    memcpy(buf, file, flen);
    return true;
}

bool input_tensor_fill(const struct runtime *rt, struct dla *d, const struct input_opts *o,
                       char *warn, size_t warnlen, char *err, size_t errlen)
{
    if (warnlen)
        warn[0] = '\0';
    const char *path = o->image ? o->image : o->raw;
    if (!path)
        return true;
    if (o->image && o->raw) {
        snprintf(err, errlen, "--image and --input both give the input tensor: use one");
        return false;
    }
    if (rt->input_tensor < 0) {
        snprintf(err, errlen, "%s: %s given, but the loadable has no input tensor", rt->ld->name,
                 o->image ? "--image" : "--input");
        return false;
    }
    const struct ld_tensor *t = &rt->ld->tensors[rt->input_tensor];
    if (t->size > DIMG_MAX_PAYLOAD) {
        snprintf(err, errlen, "%s: input tensor \"%s\" of %llu bytes; dladbg fills at most %u",
                 rt->ld->name, t->name ? t->name : "", (unsigned long long)t->size,
                 DIMG_MAX_PAYLOAD);
        return false;
    }
    uint8_t *file;
    size_t flen;
    if (!file_read_all(path, DIMG_MAX_PAYLOAD + DIMG_HEADER_SIZE + 1, &file, &flen, err, errlen))
        return false;
    uint8_t *buf = calloc(t->size ? t->size : 1, 1);
    bool ok = buf != NULL;
    bool dimg = flen >= 4 && memcmp(file, "DIMG", 4) == 0;
    if (!ok)
        snprintf(err, errlen, "out of memory");
    else if (dimg)
        ok = from_dimg(t, file, flen, path, buf, err, errlen);
    else if (o->image && (jpeg_looks_like(file, flen) || pnm_looks_like(file, flen)))
        ok = from_picture(t, o, file, flen, buf, warn, warnlen, err, errlen);
    else if (o->image) {
        snprintf(err, errlen, "%s: offset 0: expected a JPEG, a binary PGM (P5) or PPM (P6), or "
                 "a DIMG", path);
        ok = false;
    } else
        ok = from_raw(t, file, flen, path, buf, err, errlen);
    ok = ok && store(rt, d, t, buf, err, errlen);
    free(buf);
    free(file);
    return ok;
}

bool input_norm_given(const struct input_norm *norm)
{
    bool given = norm->normalize != 0;
    for (int k = 0; k < 4; k++)
        given |= norm->mean[k] != 0.0f;
    return given;
}

bool input_parse_mean(const char *text, struct input_norm *norm, char *err, size_t errlen)
{
    float mean[4] = {0, 0, 0, 0};
    unsigned n = 0;
    const char *p = text;
    while (*p) {
        if (*p == ',' || *p == '\n') { /* the runtime skips empty fields */
            p++;
            continue;
        }
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || (*end && *end != ',' && *end != '\n') || errno || !isfinite(v)) {
            snprintf(err, errlen, "--mean: expected comma-separated numbers, not \"%s\"", text);
            return false;
        }
        if (n == 4) {
            snprintf(err, errlen, "--mean: at most four values (one per image channel)");
            return false;
        }
        mean[n++] = (float)v;
        p = end;
    }
    memcpy(norm->mean, mean, sizeof mean);
    return true;
}

bool input_parse_normalize(const char *text, struct input_norm *norm, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < 1 || v > 255) {
        snprintf(err, errlen,
                 "--normalize: expected an integer from 1 to 255 (nvdla_runtime keeps it in 8 "
                 "bits), not \"%s\"",
                 text);
        return false;
    }
    norm->normalize = (unsigned)v;
    return true;
}
