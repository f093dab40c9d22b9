/* A decoded image converted into an input tensor's bytes exactly as
 * nvdla_runtime converts one (its createImageCopy):
 *   - the image's width and height must equal the tensor's; it may have
 *     fewer channels than the tensor (the others stay zero; the runtime only
 *     warns), not more;
 *   - int8 tensors: pixel p becomes floor(p * 127 / 255 + 0.5) (0..127);
 *     --mean and --normalize are ignored;
 *   - fp16 tensors: (p - mean[channel]) / normalize, in float, rounded to
 *     fp16 to nearest with ties away from zero (the half_float library's
 *     default);
 *   - every other byte of the tensor's buffer is zero.
 * Channel k of the image is channel k of the tensor: for colour images
 * that is B, G, R (see host_image.h), and mean[0] applies to B. */
#ifndef DLADBG_INPUT_IMAGE_H
#define DLADBG_INPUT_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host_image.h"
#include "tensor_layout.h"

/* nvdla_runtime's --mean (up to four values, one per image channel) and
 * --normalize (an 8-bit integer; 0 here means its default, 1). */
struct input_norm {
    float mean[4];
    unsigned normalize;
};

/* Fill buf (lay->size bytes) from img.  false with a message naming both
 * shapes when the image does not fit the tensor; warn (empty when none) says
 * what the runtime would only warn about. */
bool input_image_convert(const struct host_image *img, const struct tensor_layout *lay,
                         const struct input_norm *norm, uint8_t *buf, char *warn, size_t warnlen,
                         char *err, size_t errlen);

/* One pixel as the runtime stores it in an int8 tensor. */
int8_t input_image_int8(uint8_t p);
/* One pixel of channel k as the runtime stores it in an fp16 tensor (bits). */
uint16_t input_image_fp16(uint8_t p, const struct input_norm *norm, unsigned k);

#endif
