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
#include "npy.h"
#include "num/fp16.h"
#include "util/textfile.h"

static bool store(const struct runtime *rt, struct dla *d, const struct ld_tensor *t,
                  const uint8_t *buf, char *err, size_t errlen)
{
    int m = rt->input_memory;
    enum mem_status st = dla_mem_write(d, (enum dla_space)rt->mem[m].space,
                                       rt->mem[m].addr + t->offset, buf, t->size);
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

/* Element i of a source (in c, h, w order) written to dst, bpe bytes. */
typedef void (*put_element_fn)(void *ctx, uint64_t i, uint8_t *dst, unsigned bpe);

/* Every element (c, y, x) of lay, in that order, put where the runtime
 * places it in the tensor's size bytes at buf (the rest zero); false with a
 * message when a hostile layout puts one outside the tensor. */
static bool scatter(const struct tensor_layout *lay, uint8_t *buf, uint64_t size, unsigned bpe,
                    const char *path, put_element_fn put, void *ctx, char *err, size_t errlen)
{
    memset(buf, 0, size);
    uint64_t i = 0;
    for (uint32_t c = 0; c < lay->c; c++)
        for (uint32_t y = 0; y < lay->h; y++)
            for (uint32_t x = 0; x < lay->w; x++, i++) {
                uint64_t off = tensor_layout_offset(lay, c, y, x);
                if (off > size || bpe > size - off) {
                    snprintf(err, errlen,
                             "%s: element c=%u h=%u w=%u lands at offset %llu, outside the "
                             "input tensor's %llu bytes",
                             path, c, y, x, (unsigned long long)off, (unsigned long long)size);
                    return false;
                }
                put(ctx, i, buf + off, bpe);
            }
    return true;
}

static void put_packed(void *ctx, uint64_t i, uint8_t *dst, unsigned bpe)
{
    memcpy(dst, (const uint8_t *)ctx + i * bpe, bpe);
}

static bool from_dimg(const struct ld_tensor *t, const uint8_t *file, size_t flen, const char *path,
                      uint8_t *buf, char *err, size_t errlen)
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
    return scatter(&lay, buf, t->size, bpe, path, put_packed, (void *)payload, err, errlen);
}

/* Add text to the warnings in warn, "; " between two. */
static void append_warning(char *warn, size_t warnlen, const char *text)
{
    size_t used = warnlen ? strlen(warn) : 0;
    if (text[0] && used + 1 < warnlen)
        snprintf(warn + used, warnlen - used, "%s%s", used ? "; " : "", text);
}

static bool from_picture(const struct ld_tensor *t, const struct input_opts *o, const uint8_t *file,
                         size_t flen, uint8_t *buf, char *warn, size_t warnlen, char *err,
                         size_t errlen)
{
    struct host_image img;
    char decode_warn[256] = "", convert_warn[256] = "";
    bool ok = jpeg_looks_like(file, flen) ? jpeg_decode(file, flen, o->image, &img, decode_warn,
                                                        sizeof decode_warn, err, errlen)
                                          : pnm_decode(file, flen, o->image, &img, err, errlen);
    if (!ok)
        return false;
    struct tensor_layout lay;
    char why[400];
    ok = tensor_layout_input(t, &lay, why, sizeof why) &&
         input_image_convert(&img, &lay, &o->norm, buf, convert_warn, sizeof convert_warn, why,
                             sizeof why);
    host_image_free(&img);
    if (!ok) { /* the decoded image and the tensor disagree: name the file given */
        snprintf(err, errlen, "--image %.200s: %s", o->image, why);
        return false;
    }
    append_warning(warn, warnlen, decode_warn);
    append_warning(warn, warnlen, convert_warn);
    if (input_norm_given(&o->norm) && t->data_type == LD_TYPE_INT8)
        append_warning(warn, warnlen,
                       "--mean and --normalize ignored: the input tensor is int8 (nvdla_runtime "
                       "ignores them too)");
    return true;
}

static bool from_raw(const struct ld_tensor *t, const uint8_t *file, size_t flen, const char *path,
                     uint8_t *buf, char *err, size_t errlen)
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

/* ---------------------------------------------------------------- .npy */

/* Whether the file starts with NumPy's magic string. */
static bool file_is_npy(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return false;
    uint8_t magic[6];
    bool npy = fread(magic, 1, 6, fp) == 6 && memcmp(magic, "\x93NUMPY", 6) == 0;
    fclose(fp);
    return npy;
}

static void npy_shape_text(const struct npy_array *a, char *buf, size_t len)
{
    size_t k = 0;
    k += (size_t)snprintf(buf, len, "(");
    for (unsigned i = 0; i < a->ndim && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%llu", i ? ", " : "",
                              (unsigned long long)a->shape[i]);
    if (k < len)
        snprintf(buf + k, len - k, "%s)", a->ndim == 1 ? "," : "");
}

/* The array's shape is the tensor's: (1, C, H, W), (C, H, W), or the same
 * once dimensions of 1 are left out on both sides ((10,) for 1x10x1x1,
 * (28, 28) for 1x1x28x28), or one dimension of C * H * W elements. */
static bool npy_shape_fits(const struct npy_array *a, const struct tensor_layout *lay)
{
    uint64_t want[4] = {1, lay->c, lay->h, lay->w}, have[NPY_MAX_DIMS];
    if (a->count != (uint64_t)lay->c * lay->h * lay->w)
        return false;
    if (a->ndim == 1)
        return true;
    unsigned nh = 0, nw = 0;
    for (unsigned i = 0; i < a->ndim; i++)
        if (a->shape[i] != 1)
            have[nh++] = a->shape[i];
    for (unsigned i = 0; i < 4; i++)
        if (want[i] != 1)
            want[nw++] = want[i];
    if (nh != nw)
        return false;
    for (unsigned i = 0; i < nh; i++)
        if (have[i] != want[i])
            return false;
    return true;
}

/* The element type a tensor of data type `type` takes. */
static enum npy_dtype npy_dtype_for(uint8_t type)
{
    return type == LD_TYPE_HALF ? NPY_F16 : type == LD_TYPE_INT16 ? NPY_I16 : NPY_I8;
}

static bool npy_is_float(enum npy_dtype t)
{
    return t == NPY_F16 || t == NPY_F32 || t == NPY_F64;
}

/* Element i of a as the tensor's raw element: the same type as it is,
 * float32/float64 into fp16 as the runtime rounds (ties away from zero, from
 * float), real values into int8/int16 steps of scale (*saturated counts the
 * ones beyond the type's range). */
static uint16_t npy_element(const struct npy_array *a, uint64_t i, enum npy_dtype want,
                            double scale, uint64_t *saturated)
{
    if (want != NPY_F16 && npy_is_float(a->dtype)) {
        double lim = want == NPY_I8 ? 127 : 32767;
        double q = nearbyint(npy_get(a, i) / scale);
        if (isnan(q))
            q = 0;
        if (q > lim || q < -lim - 1) {
            (*saturated)++;
            q = q > lim ? lim : -lim - 1;
        }
        return (uint16_t)(int16_t)q;
    }
    switch (a->dtype) {
    case NPY_I8:
        return (uint16_t)(uint8_t)((const int8_t *)a->data)[i];
    case NPY_I16:
        return (uint16_t)((const int16_t *)a->data)[i];
    case NPY_F16:
        return ((const uint16_t *)a->data)[i];
    case NPY_F32:
        return fp16_from_f32_bits_ties_away(f32_bits(((const float *)a->data)[i]));
    default: /* NPY_F64 */
        return fp16_from_f32_bits_ties_away(f32_bits((float)((const double *)a->data)[i]));
    }
}

/* A .npy's elements converted to the tensor's type as scatter() puts them. */
struct npy_put {
    const struct npy_array *a;
    enum npy_dtype want;
    double scale;
    uint64_t saturated;
};

static void put_npy(void *ctx, uint64_t i, uint8_t *dst, unsigned bpe)
{
    struct npy_put *p = ctx;
    uint16_t v = npy_element(p->a, i, p->want, p->scale, &p->saturated);
    dst[0] = (uint8_t)v;
    if (bpe == 2)
        dst[1] = (uint8_t)(v >> 8);
}

/* An array of another shape than the tensor's: what it holds and what fits. */
static void shape_misfit(const char *path, const struct npy_array *a, const char *tensor,
                         const struct tensor_layout *lay, char *err, size_t errlen)
{
    char shape[160];
    npy_shape_text(a, shape, sizeof shape);
    snprintf(err, errlen,
             "%s: holds %s %s; the input tensor is %s: expected shape (1, %u, %u, %u) or "
             "(%u, %u, %u)",
             path, npy_dtype_name(a->dtype), shape, tensor, lay->c, lay->h, lay->w, lay->c,
             lay->h, lay->w);
}

static bool from_npy(const struct ld_tensor *t, const char *path, double scale, uint8_t *buf,
                     char *warn, size_t warnlen, char *err, size_t errlen)
{
    struct tensor_layout lay;
    if (!dimg_target(t, &lay, err, errlen))
        return false;
    char tensor[96];
    tensor_layout_shape(&lay, tensor, sizeof tensor);
    struct npy_array a;
    uint64_t elements = (uint64_t)lay.c * lay.h * lay.w;
    if (!npy_read(path, elements * 8 + 4096, &a, err, errlen)) {
        /* too large for the tensor (another network's blob): its shape is wrong */
        if (a.count && !a.data && !npy_shape_fits(&a, &lay))
            shape_misfit(path, &a, tensor, &lay, err, errlen);
        return false;
    }
    enum npy_dtype want = npy_dtype_for(t->data_type);
    bool float_to_half = want == NPY_F16 && (a.dtype == NPY_F32 || a.dtype == NPY_F64);
    bool quantize = want != NPY_F16 && npy_is_float(a.dtype) && scale > 0;
    char shape[160];
    npy_shape_text(&a, shape, sizeof shape);
    const char *hint = "";
    if (want != NPY_F16 && npy_is_float(a.dtype))
        hint = want == NPY_I8
                   ? " values, or real values with --input-scale S (the calibration table's scale "
                     "of the input: each becomes round(x / S)); the loadable carries no scale "
                     "(nvdla_runtime feeds pixel p as floor(p * 127 / 255 + 0.5))"
                   : " values, or real values with --input-scale S (the real value of one step); "
                     "the loadable carries no scale";
    if (a.dtype != want && !float_to_half && !quantize) {
        snprintf(err, errlen, "%s: holds %s %s; the input tensor is %s: expected %s%s%s", path,
                 npy_dtype_name(a.dtype), shape, tensor, npy_dtype_name(want),
                 want == NPY_F16 ? " (or float32/float64, rounded to float16 as nvdla_runtime "
                                   "rounds)"
                                 : "",
                 hint);
        npy_free(&a);
        return false;
    }
    if (!npy_shape_fits(&a, &lay)) {
        shape_misfit(path, &a, tensor, &lay, err, errlen);
        npy_free(&a);
        return false;
    }
    if (scale > 0 && !quantize) {
        char text[160];
        snprintf(text, sizeof text, "--input-scale ignored: %s holds %s values for an %s tensor",
                 path, npy_dtype_name(a.dtype), npy_dtype_name(want));
        append_warning(warn, warnlen, text);
    }
    struct npy_put put = {&a, want, scale, 0};
    if (!scatter(&lay, buf, t->size, tensor_type_bytes(t->data_type), path, put_npy, &put, err,
                 errlen)) {
        npy_free(&a);
        return false;
    }
    uint64_t saturated = put.saturated;
    if (saturated) {
        char text[160];
        snprintf(text, sizeof text,
                 "%s: %llu of %llu values beyond the %s range at scale %g saturated", path,
                 (unsigned long long)saturated, (unsigned long long)a.count, npy_dtype_name(want),
                 scale);
        append_warning(warn, warnlen, text);
    }
    npy_free(&a);
    return true;
}

/* The input tensor's bytes from the file of o, into *out (the tensor's
 * size, freed by the caller); warn gets what the runtime only warns about. */
static bool convert(const struct loadable *ld, int input_tensor, const struct input_opts *o,
                    uint8_t **out, char *warn, size_t warnlen, char *err, size_t errlen)
{
    const char *path = o->image ? o->image : o->raw;
    *out = NULL;
    if (o->image && o->raw) {
        snprintf(err, errlen, "--image and --input both give the input tensor: use one");
        return false;
    }
    if (input_tensor < 0) {
        snprintf(err, errlen, "%s: %s given, but the loadable has no input tensor", ld->name,
                 o->image ? "--image" : "--input");
        return false;
    }
    const struct ld_tensor *t = &ld->tensors[input_tensor];
    if (t->size > DIMG_MAX_PAYLOAD) {
        snprintf(err, errlen, "%s: input tensor \"%s\" of %llu bytes; dladbg fills at most %u",
                 ld->name, t->name ? t->name : "", (unsigned long long)t->size, DIMG_MAX_PAYLOAD);
        return false;
    }
    uint8_t *buf = calloc(t->size ? t->size : 1, 1);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    if (o->raw && file_is_npy(path)) {
        bool ok = from_npy(t, path, o->scale, buf, warn, warnlen, err, errlen);
        if (ok)
            *out = buf;
        else
            free(buf);
        return ok;
    }
    uint8_t *file;
    size_t flen;
    if (!file_read_all(path, DIMG_MAX_PAYLOAD + DIMG_HEADER_SIZE + 1, &file, &flen, err, errlen)) {
        free(buf);
        return false;
    }
    bool ok;
    bool dimg = flen >= 4 && memcmp(file, "DIMG", 4) == 0;
    if (dimg)
        ok = from_dimg(t, file, flen, path, buf, err, errlen);
    else if (o->image && (jpeg_looks_like(file, flen) || pnm_looks_like(file, flen)))
        ok = from_picture(t, o, file, flen, buf, warn, warnlen, err, errlen);
    else if (o->image) {
        snprintf(err, errlen,
                 "%s: offset 0: expected a JPEG, a binary PGM (P5) or PPM (P6), or "
                 "a DIMG%s",
                 path,
                 flen >= 6 && !memcmp(file, "\x93NUMPY", 6) ? " (a .npy? give it with --input)"
                                                            : "");
        ok = false;
    } else
        ok = from_raw(t, file, flen, path, buf, err, errlen);
    if (ok && o->scale > 0)
        append_warning(warn, warnlen,
                       "--input-scale ignored: it quantizes the real values of a .npy file");
    free(file);
    if (ok)
        *out = buf;
    else
        free(buf);
    return ok;
}

bool input_tensor_fill(const struct runtime *rt, struct dla *d, const struct input_opts *o,
                       char *warn, size_t warnlen, char *err, size_t errlen)
{
    if (warnlen)
        warn[0] = '\0';
    if (!o->image && !o->raw)
        return true;
    uint8_t *buf;
    if (!convert(rt->ld, rt->input_tensor, o, &buf, warn, warnlen, err, errlen))
        return false;
    bool ok = store(rt, d, &rt->ld->tensors[rt->input_tensor], buf, err, errlen);
    free(buf);
    return ok;
}

/* The tensor the runtime binds the input to: the first memory flagged as
 * input (runtime.c's find_bindings). */
static int bound_input_tensor(const struct loadable *ld)
{
    for (uint32_t i = 0; i < ld->n_memories; i++)
        if (ld->memories[i].flags & LD_MEM_INPUT)
            return loadable_tensor_index(ld, ld->memories[i].tensor_desc_id);
    return -1;
}

bool input_tensor_check(const struct loadable *ld, const struct input_opts *o, char *err,
                        size_t errlen)
{
    if (!o->image && !o->raw)
        return true;
    char warn[512];
    uint8_t *buf;
    if (!convert(ld, bound_input_tensor(ld), o, &buf, warn, sizeof warn, err, errlen))
        return false;
    free(buf);
    return true;
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

bool input_parse_scale(const char *text, double *scale, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v) || !(v > 0)) {
        snprintf(err, errlen,
                 "--input-scale: expected a number > 0 (the real value of one int8/int16 step of "
                 "the input tensor), not \"%s\"",
                 text);
        return false;
    }
    *scale = v;
    return true;
}
