/* Tensor surfaces as NVIDIA's runtime addresses them (see tensor_layout.h). */
#include "tensor_layout.h"

#include <stdio.h>

static const struct {
    unsigned bpe, group;
} surface_shape[] = {
    [TSURF_R8] = {1, 1},
    [TSURF_A8B8G8R8] = {1, 4},
    [TSURF_A16B16G16R16_F] = {2, 4},
    [TSURF_X32_INT8] = {1, 32},
    [TSURF_X8_INT8] = {1, 8},
    [TSURF_X16_INT16] = {2, 16},
    [TSURF_X16_FP16] = {2, 16},
};

unsigned tensor_type_bytes(uint8_t data_type)
{
    switch (data_type) {
    case LD_TYPE_INT16:
    case LD_TYPE_HALF:
        return 2;
    case LD_TYPE_FLOAT:
        return 4;
    default:
        return 1;
    }
}

const char *tensor_type_name(uint8_t data_type)
{
    switch (data_type) {
    case LD_TYPE_INT8:
        return "int8";
    case LD_TYPE_INT16:
        return "int16";
    case LD_TYPE_HALF:
        return "fp16";
    case LD_TYPE_FLOAT:
        return "fp32";
    default:
        return "unknown";
    }
}

/* Bytes of elements (c * h * w * bpe), or false when that passes limit: a
 * hostile loadable's dimensions (each up to 2^31) would otherwise wrap the
 * products every caller sizes its buffers and loops from. */
static bool elements_fit(const struct tensor_layout *lay, uint64_t limit)
{
    uint64_t n = (uint64_t)lay->c * lay->h; /* < 2^62: no wrap */
    if (lay->w && n > limit / lay->w)
        return false;
    n *= lay->w;
    return n <= limit / lay->bpe;
}

static bool fill(const struct ld_tensor *t, enum tensor_surface s, const char *role,
                 struct tensor_layout *lay, char *err, size_t errlen)
{
    lay->surface = (uint8_t)s;
    lay->data_type = t->data_type;
    lay->pixel_format = t->pixel_format;
    lay->c = t->c > 0 ? (uint32_t)t->c : 0;
    lay->h = t->h > 0 ? (uint32_t)t->h : 0;
    lay->w = t->w > 0 ? (uint32_t)t->w : 0;
    lay->bpe = surface_shape[s].bpe;
    lay->group = surface_shape[s].group;
    lay->line_stride = t->stride[1];
    lay->surf_stride = t->stride[2];
    lay->size = t->size;
    if (elements_fit(lay, TENSOR_LAYOUT_MAX_BYTES))
        return true;
    char shape[96];
    tensor_layout_shape(lay, shape, sizeof shape);
    snprintf(err, errlen, "%s tensor \"%s\": %s is more than %llu bytes of elements", role,
             t->name ? t->name : "", shape, (unsigned long long)TENSOR_LAYOUT_MAX_BYTES);
    return false;
}

/* Feature surfaces by data type, the same for input and output; false for
 * a type the runtime has no surface for. */
static bool feature_surface(const struct ld_tensor *t, enum tensor_surface *s)
{
    switch (t->data_type) {
    case LD_TYPE_INT8:
        *s = t->pixel_format == LD_PIXEL_FEATURE_X8 ? TSURF_X8_INT8 : TSURF_X32_INT8;
        return true;
    case LD_TYPE_INT16:
        *s = TSURF_X16_INT16;
        return true;
    case LD_TYPE_HALF:
        *s = TSURF_X16_FP16;
        return true;
    default:
        return false;
    }
}

bool tensor_layout_input(const struct ld_tensor *t, struct tensor_layout *lay, char *err,
                         size_t errlen)
{
    enum tensor_surface s;
    bool ok = true;
    switch (t->pixel_format) {
    case LD_PIXEL_R8:
        s = TSURF_R8;
        break;
    case LD_PIXEL_A8B8G8R8:
        s = TSURF_A8B8G8R8;
        break;
    case LD_PIXEL_A16B16G16R16_F:
        s = TSURF_A16B16G16R16_F;
        break;
    case LD_PIXEL_FEATURE:
        /* the runtime converts images to int8 or fp16 feature cubes only */
        ok = (t->data_type == LD_TYPE_INT8 || t->data_type == LD_TYPE_HALF) &&
             feature_surface(t, &s);
        break;
    case LD_PIXEL_FEATURE_X8:
        ok = t->data_type == LD_TYPE_INT8 && feature_surface(t, &s);
        break;
    default:
        snprintf(err, errlen,
                 "input tensor \"%s\": pixel format %u, which nvdla_runtime cannot convert an "
                 "image into",
                 t->name ? t->name : "", t->pixel_format);
        return false;
    }
    if (!ok) {
        snprintf(err, errlen,
                 "input tensor \"%s\": nvdla_runtime converts images into int8 or fp16 feature "
                 "tensors (int8 only for FEATURE_X8), not pixel format %u with %s elements",
                 t->name ? t->name : "", t->pixel_format, tensor_type_name(t->data_type));
        return false;
    }
    return fill(t, s, "input", lay, err, errlen);
}

bool tensor_layout_output(const struct ld_tensor *t, struct tensor_layout *lay, char *err,
                          size_t errlen)
{
    enum tensor_surface s = TSURF_X16_FP16;
    bool feature = t->pixel_format == LD_PIXEL_FEATURE || t->pixel_format == LD_PIXEL_FEATURE_X8;
    if (feature && !feature_surface(t, &s)) {
        snprintf(err, errlen,
                 "output tensor \"%s\": data type %u (%s) cannot be read or dumped (nvdla_runtime "
                 "shows int8, int16 and fp16 tensors only)",
                 t->name ? t->name : "", t->data_type, tensor_type_name(t->data_type));
        return false;
    }
    return fill(t, s, "output", lay, err, errlen);
}

void tensor_layout_shape(const struct tensor_layout *lay, char *buf, size_t len)
{
    snprintf(buf, len, "1x%ux%ux%u %s (NCHW)", lay->c, lay->h, lay->w,
             tensor_type_name(lay->data_type));
}
