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
#include <string.h>

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

/* One element of a feature surface in memory, bpe (1 or 2) bytes
 * little-endian: an int8 or int16 value sign-extended, or with fp16 the
 * binary16 bits.  The element access of the units that move features
 * through memory themselves (PDP, CDP). */
static inline int32_t feature_load(const uint8_t *p, unsigned bpe, bool fp16)
{
    if (bpe == 1)
        return (int8_t)p[0];
    uint16_t bits = (uint16_t)(p[0] | (unsigned)p[1] << 8);
    return fp16 ? (int32_t)bits : (int16_t)bits;
}

static inline void feature_store(uint8_t *p, unsigned bpe, int32_t v)
{
    p[0] = (uint8_t)v;
    if (bpe == 2)
        p[1] = (uint8_t)((uint32_t)v >> 8);
}

/* n elements `step` bytes apart from p (channel k of n atoms: p at the
 * channel's first byte, step the atom size) into out[0..n), as
 * feature_load reads each; the element size and kind are chosen once, not
 * per element, for the loops between atoms and planar cubes (PDP, SDP). */
static inline void feature_load_strided(const uint8_t *p, size_t step, size_t n, unsigned bpe,
                                        bool fp16, int32_t *out)
{
    if (bpe == 1)
        for (size_t i = 0; i < n; i++)
            out[i] = feature_load(p + i * step, 1, false);
    else if (fp16)
        for (size_t i = 0; i < n; i++)
            out[i] = feature_load(p + i * step, 2, true);
    else
        for (size_t i = 0; i < n; i++)
            out[i] = feature_load(p + i * step, 2, false);
}

/* in[0..n) stored as feature_store stores each, `step` bytes apart from p. */
static inline void feature_store_strided(uint8_t *p, size_t step, size_t n, unsigned bpe,
                                         const int32_t *in)
{
    if (bpe == 1)
        for (size_t i = 0; i < n; i++)
            feature_store(p + i * step, 1, in[i]);
    else
        for (size_t i = 0; i < n; i++)
            feature_store(p + i * step, 2, in[i]);
}

/* The fp16 NaNs and infinities among bytes of fp16 elements: NaNs are
 * added to *nan, infinities to *inf unless inf is NULL.  Every element of
 * every atom moved counts, as in PDP's and CDP's D_NAN_INPUT_NUM,
 * D_INF_INPUT_NUM and D_NAN_OUTPUT_NUM. */
static inline void feature_count_fp16_specials_scalar(const uint8_t *atoms, size_t bytes,
                                                      uint64_t *nan, uint64_t *inf)
{
    for (size_t i = 0; i + 1 < bytes; i += 2) {
        uint16_t h = (uint16_t)(atoms[i] | (unsigned)atoms[i + 1] << 8);
        if ((h & 0x7c00u) != 0x7c00u)
            continue;
        if (h & 0x3ffu)
            (*nan)++;
        else if (inf)
            (*inf)++;
    }
}

/* The same eight elements at a time (GCC/clang vector extensions) on a
 * little-endian host: every fp16 element of every moved atom is counted,
 * so this runs over whole lines per element of the layer.  The lanes'
 * 16-bit counts are summed before they can wrap. */
static inline void feature_count_fp16_specials(const uint8_t *atoms, size_t bytes, uint64_t *nan,
                                               uint64_t *inf)
{
    size_t i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    typedef uint16_t fp16x8 __attribute__((vector_size(16)));
    uint64_t n_nan = 0, n_inf = 0;
    while (i + 16 <= bytes) {
        fp16x8 nan_lanes = {0}, inf_lanes = {0};
        size_t end = bytes - i > (size_t)16 * 0xffff ? i + (size_t)16 * 0xffff : bytes;
        for (; i + 16 <= end; i += 16) {
            fp16x8 h;
            memcpy(&h, atoms + i, sizeof h);
            fp16x8 abs = h & 0x7fffu;
            nan_lanes -= (fp16x8)(abs > 0x7c00u);
            inf_lanes -= (fp16x8)(abs == 0x7c00u);
        }
        for (int l = 0; l < 8; l++) {
            n_nan += nan_lanes[l];
            n_inf += inf_lanes[l];
        }
    }
    *nan += n_nan;
    if (inf)
        *inf += n_inf;
#endif
    feature_count_fp16_specials_scalar(atoms + i, bytes - i, nan, inf);
}

#endif
