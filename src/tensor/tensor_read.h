/* A tensor (struct tensor_info, loadable_tensors.h) read out of the model's
 * memory into a dense array: every element, or a box of them, in NCHW order
 * (index ((n * C + c) * H + y) * W + x of the box read), each the raw value
 * of its type in host order:
 *   TENSOR_INT8   int8_t      TENSOR_UINT8  uint8_t
 *   TENSOR_INT16  int16_t     TENSOR_FP16   uint16_t (the binary16 bits)
 * so that a tensor keeps its bits on its way to a file or a comparison.
 *
 * Where element (b, c, y, x) lives:
 *   feature atoms (pitch false): elem_stride is the atom (bytes), holding
 *     G = elem_stride / bytes-per-element channels; the element is at
 *     addr + b * batch_stride + (c / G) * surf_stride + y * line_stride
 *          + x * elem_stride + (c % G) * bpe
 *     (NVDLA's feature surfaces, cube.h feature_offset; a BDMA transfer read
 *     as bytes is the case G = 1: c counts its surfaces);
 *   pitch-linear pixels (pitch true): elem_stride bytes per pixel, channels
 *     side by side in it:
 *     addr + b * batch_stride + y * line_stride + x * elem_stride + c * bpe.
 * batch_stride 0 means the batches follow each other: the default is the
 * surfaces of one batch (feature) or its lines (pitch).
 *
 * Reads are bounded: a tensor (or box) of more than TENSOR_READ_MAX_BYTES of
 * elements is refused with a message before anything is allocated, as is a
 * tensor whose dimensions or strides are zero where they cannot be, or whose
 * elements lie outside the memory space. */
#ifndef DLADBG_TENSOR_READ_H
#define DLADBG_TENSOR_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dla.h"
#include "loadable/loadable_tensors.h"
#include "tensor_layout.h"

/* Largest dense array a read produces (elements times their bytes): far
 * more than any layer's output (ResNet-50's largest is 1.6 MB in fp16), as
 * much as "dump memory" writes at once. */
#define TENSOR_READ_MAX_BYTES (256ull << 20)

/* Bytes of one element: 1 (int8, uint8) or 2 (int16, fp16). */
unsigned tensor_elem_bytes(uint8_t elem);
/* "int8", "uint8", "int16", "fp16" ("?" for a value outside enum tensor_elem). */
const char *tensor_elem_name(uint8_t elem);
/* An element type by name, case-insensitive: the names above, and "float16"
 * / "half" for fp16.  false for anything else. */
bool tensor_elem_parse(const char *name, uint8_t *elem);

/* Byte address of element (b, c, y, x) of t (see above; no bounds check). */
uint64_t tensor_element_addr(const struct tensor_info *t, uint32_t b, uint32_t c, uint32_t y,
                             uint32_t x);
/* Bytes from t's first element's byte to past its last one's, as its
 * shape, strides and layout place them (the gaps between included); false
 * when that does not fit 64 bits. */
bool tensor_span(const struct tensor_info *t, uint64_t *span);
/* The batch stride t uses (its own, or the default when it holds 0). */
uint64_t tensor_batch_stride(const struct tensor_info *t);

/* Half-open ranges of each dimension: [n0, n1) x [c0, c1) x [h0, h1) x [w0, w1). */
struct tensor_box {
    uint32_t n0, n1, c0, c1, h0, h1, w0, w1;
};

/* The whole tensor as a box. */
struct tensor_box tensor_box_all(const struct tensor_info *t);
/* Elements in the box (0 when any range is empty). */
uint64_t tensor_box_count(const struct tensor_box *b);

/* What a read produced. */
struct tensor_data {
    struct tensor_info info; /* the tensor read (a copy) */
    struct tensor_box box;   /* the part read */
    uint32_t n, c, h, w;     /* the box's extent: the dense array's shape */
    uint64_t count;          /* n * c * h * w */
    void *data;              /* count raw elements of info.elem, NCHW, malloc'ed */
};

/* Read every element of t from d's memory.  false with a message (naming
 * the tensor and what is wrong) for an absurd shape, a read outside memory
 * or memory running out; *out is then empty. */
bool tensor_read(struct dla *d, const struct tensor_info *t, struct tensor_data *out, char *err,
                 size_t errlen);
/* Only the elements of box (which must lie inside t's shape: refused with a
 * message otherwise). */
bool tensor_read_box(struct dla *d, const struct tensor_info *t, const struct tensor_box *box,
                     struct tensor_data *out, char *err, size_t errlen);
void tensor_data_free(struct tensor_data *td);

/* Element i of a dense array of elem as a double: integers as they are,
 * fp16 widened exactly (NaN and infinities kept). */
double tensor_elem_value(uint8_t elem, const void *data, uint64_t i);
/* Element i's raw value: the integer, or for fp16 its 16 bits. */
int32_t tensor_elem_raw(uint8_t elem, const void *data, uint64_t i);
/* Element i as text: "-12", "255", "0.5", "-inf", "nan" (fp16 with %g). */
void tensor_elem_format(uint8_t elem, const void *data, uint64_t i, char *buf, size_t len);
/* Element (b, c, y, x) of a read, as an index into td->data (coordinates of
 * the tensor, inside td->box). */
static inline uint64_t tensor_data_index(const struct tensor_data *td, uint32_t b, uint32_t c,
                                         uint32_t y, uint32_t x)
{
    return (((uint64_t)(b - td->box.n0) * td->c + (c - td->box.c0)) * td->h + (y - td->box.h0)) *
               td->w +
           (x - td->box.w0);
}

/* A real value from a raw one: raw * scale for integer types when scale is
 * not 0, the value itself for fp16 (and for integers without a scale). */
double tensor_real_value(uint8_t elem, double raw, double scale);

#endif
