/* Image -> input tensor, as nvdla_runtime converts (see input_image.h). */
#include "input_image.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "num/fp16.h"
#include "util/le_bytes.h"

/* The runtime's arithmetic, in its types: the scaling in double (the
 * constants are doubles), the rounding constant 0.5f widened. */
int8_t input_image_int8(uint8_t p)
{
    return (int8_t)floor(p * 127.0 / 255.0 + 0.5f);
}

uint16_t input_image_fp16(uint8_t p, const struct input_norm *norm, unsigned k)
{
    float mean = k < 4 ? norm->mean[k] : 0.0f;
    float divisor = (float)(norm->normalize ? norm->normalize : 1);
    float v = ((float)p - mean) / divisor;
    return fp16_from_f32_bits_ties_away(f32_bits(v));
}

/* Does img fit lay the way the runtime requires?  err names both shapes. */
static bool image_fits(const struct host_image *img, const struct tensor_layout *lay, char *err,
                       size_t errlen)
{
    char tensor[96];
    tensor_layout_shape(lay, tensor, sizeof tensor);
    const char *why = NULL;
    if (img->width != lay->w || img->height != lay->h)
        why = "the width and height must be the tensor's";
    else if (img->channels > lay->c)
        why = "the image has more channels than the tensor";
    else if (lay->surface == TSURF_R8 && img->channels != 1)
        why = "an R8 tensor takes one channel";
    else if (lay->c > 16)
        why = "nvdla_runtime converts images into tensors of at most 16 channels";
    else if (lay->data_type != LD_TYPE_INT8 && lay->data_type != LD_TYPE_HALF)
        why = "nvdla_runtime writes image pixels as int8 or fp16 only";
    else if ((uint64_t)img->width * img->channels > lay->line_stride ||
             (uint64_t)(img->height - 1) * lay->line_stride +
                     (uint64_t)img->width * img->channels >
                 lay->size)
        /* the runtime decodes the rows into a buffer with the tensor's line
         * stride and size: they would overlap or overflow */
        why = "a row of the image is longer than the tensor's line stride";
    if (!why)
        return true;
    snprintf(err, errlen, "image 1x%ux%ux%u (NCHW) does not fit the input tensor %s: %s",
             img->channels, img->height, img->width, tensor, why);
    return false;
}

bool input_image_convert(const struct host_image *img, const struct tensor_layout *lay,
                         const struct input_norm *norm, uint8_t *buf, char *warn, size_t warnlen,
                         char *err, size_t errlen)
{
    if (warnlen)
        warn[0] = '\0';
    if (!image_fits(img, lay, err, errlen))
        return false;
    memset(buf, 0, lay->size);
    unsigned bytes = tensor_type_bytes(lay->data_type);
    for (uint32_t y = 0; y < img->height; y++)
        for (uint32_t x = 0; x < img->width; x++)
            for (uint32_t k = 0; k < img->channels; k++) {
                uint64_t off = tensor_layout_offset(lay, k, y, x);
                if (off > lay->size || bytes > lay->size - off) {
                    snprintf(err, errlen,
                             "input tensor: element c=%u h=%u w=%u at offset %llu is outside "
                             "its %llu bytes (line stride %llu, surface stride %llu)",
                             k, y, x, (unsigned long long)off, (unsigned long long)lay->size,
                             (unsigned long long)lay->line_stride,
                             (unsigned long long)lay->surf_stride);
                    return false;
                }
                uint8_t p = img->pixels[((size_t)y * img->width + x) * img->channels + k];
                if (lay->data_type == LD_TYPE_HALF)
                    le_put16(buf + off, input_image_fp16(p, norm, k));
                else
                    buf[off] = (uint8_t)input_image_int8(p);
            }
    if (img->channels < lay->c && warnlen)
        snprintf(warn, warnlen,
                 "the image has %u channel%s, the input tensor %u: channels %u to %u stay zero",
                 img->channels, img->channels == 1 ? "" : "s", lay->c, img->channels, lay->c - 1);
    return true;
}
