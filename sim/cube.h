/* A data cube passed between units on the fly (CACC -> SDP, SDP -> PDP), and
 * the in-memory feature-surface layout helpers every unit uses.
 *
 * Values are held one per element as 32-bit words: signed integers for the
 * integer paths, IEEE bit patterns for floating point, so that no arithmetic
 * happens in the container itself. */
#ifndef DLA_CUBE_H
#define DLA_CUBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum dla_cube_kind {
    DLA_CUBE_INT,  /* signed integer values */
    DLA_CUBE_FP32, /* IEEE binary32 bit patterns */
    DLA_CUBE_FP16, /* IEEE binary16 bit patterns in the low half */
};

struct dla_cube {
    uint32_t w, h, c, n; /* width, height, channels, batches */
    uint8_t kind;        /* enum dla_cube_kind */
    int32_t *v;          /* index: ((b * c + ch) * h + y) * w + x */
};

/* Allocate a zeroed cube; false when the size is absurd or memory is short. */
bool cube_alloc(struct dla_cube *cb, uint32_t w, uint32_t h, uint32_t c, uint32_t n,
                enum dla_cube_kind kind);
void cube_free(struct dla_cube *cb);

static inline size_t cube_index(const struct dla_cube *cb, uint32_t b, uint32_t ch, uint32_t y,
                                uint32_t x)
{
    return (((size_t)b * cb->c + ch) * cb->h + y) * cb->w + x;
}

static inline size_t cube_elems(const struct dla_cube *cb)
{
    return (size_t)cb->w * cb->h * cb->c * cb->n;
}

/* Byte offset of element (c, y, x) in a feature surface made of memory atoms
 * of atom bytes, with bpe bytes per element: channels are grouped atom/bpe
 * at a time into surfaces (reference doc 2.4). */
static inline uint64_t feature_offset(uint32_t c, uint32_t y, uint32_t x, uint64_t line_stride,
                                      uint64_t surf_stride, unsigned atom, unsigned bpe)
{
    unsigned cpa = atom / bpe;
    return (uint64_t)(c / cpa) * surf_stride + (uint64_t)y * line_stride + (uint64_t)x * atom +
           (uint64_t)(c % cpa) * bpe;
}

#endif
