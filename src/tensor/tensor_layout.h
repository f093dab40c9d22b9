/* Where each element of a loadable's input or output tensor lives in memory,
 * as NVIDIA's runtime (nvdla_runtime, its NvDlaImage surfaces) addresses it.
 *
 * The tensor descriptor's pixel format and data type select a surface:
 *   FEATURE (36):    int8 -> x32 (32 channels per atom), int16/fp16 -> x16
 *   FEATURE_X8 (37): int8 -> x8 (the small configurations' 8-byte atoms),
 *                    int16/fp16 -> x16
 *   R8 (0) one byte per pixel, A8B8G8R8 (12) four bytes per pixel,
 *   A16B16G16R16_F (8) four halves per pixel (pitch-linear rows).
 * With G channels per group (an atom, or a pixel) and bpe bytes per
 * element, element (c, y, x) is at
 *   (c / G) * surface_stride + y * line_stride + x * G * bpe + (c % G) * bpe
 * and the strides are the descriptor's stride[1] and stride[2]. */
#ifndef DLADBG_TENSOR_LAYOUT_H
#define DLADBG_TENSOR_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loadable/loadable.h"

#define LD_PIXEL_R8             0
#define LD_PIXEL_A16B16G16R16_F 8
#define LD_PIXEL_A8B8G8R8       12
#define LD_PIXEL_FEATURE        36
#define LD_PIXEL_FEATURE_X8     37

enum tensor_surface {
    TSURF_R8,
    TSURF_A8B8G8R8,
    TSURF_A16B16G16R16_F,
    TSURF_X32_INT8,
    TSURF_X8_INT8,
    TSURF_X16_INT16,
    TSURF_X16_FP16,
};

/* Largest tensor (c * h * w elements times their bytes) the layouts accept:
 * more than any DLA memory holds, small enough that no product of a
 * coordinate and a stride wraps 64 bits. */
#define TENSOR_LAYOUT_MAX_BYTES (1ull << 32)

struct tensor_layout {
    uint8_t surface;   /* enum tensor_surface */
    uint8_t data_type; /* LD_TYPE_* of the descriptor */
    uint8_t pixel_format;
    uint32_t c, h, w;
    unsigned bpe;   /* bytes per element of the surface */
    unsigned group; /* channels per atom (feature surfaces) or per pixel */
    uint64_t line_stride, surf_stride, size;
};

/* The surface the runtime converts an input image into (its createImageCopy):
 * false with a message for the combinations it refuses. */
bool tensor_layout_input(const struct ld_tensor *t, struct tensor_layout *lay, char *err,
                         size_t errlen);

/* The surface the runtime reads the output tensor with (its Tensor2DIMG):
 * feature formats by data type; any other pixel format is read as fp16 x16,
 * as the runtime does after printing an error.  false for a feature tensor of
 * a data type it cannot read.  Both refuse shapes of more than
 * TENSOR_LAYOUT_MAX_BYTES, so c * h * w and every offset fit 64 bits. */
bool tensor_layout_output(const struct ld_tensor *t, struct tensor_layout *lay, char *err,
                          size_t errlen);

static inline uint64_t tensor_layout_offset(const struct tensor_layout *lay, uint32_t c,
                                            uint32_t y, uint32_t x)
{
    return (uint64_t)(c / lay->group) * lay->surf_stride + (uint64_t)y * lay->line_stride +
           (uint64_t)x * lay->group * lay->bpe + (uint64_t)(c % lay->group) * lay->bpe;
}

/* Bytes of one element of a descriptor data type (int8 1, int16/fp16 2, fp32 4). */
unsigned tensor_type_bytes(uint8_t data_type);
/* "int8", "int16", "fp16", "fp32" or "unknown". */
const char *tensor_type_name(uint8_t data_type);

/* The tensor's shape for messages: "1x3x32x32 int8 (NCHW)". */
void tensor_layout_shape(const struct tensor_layout *lay, char *buf, size_t len);

#endif
