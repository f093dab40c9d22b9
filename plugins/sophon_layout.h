/* Sophon BM1684x local-memory tensor layouts (seed 004, "Memory and Data
 * Alignment"): the N/C/H/W strides of the aligned, compact, line-aligned,
 * matrix, vector and 64IC/32IC layouts, and where element (n, c, h, w) lands:
 * which NPU lane, which of the 16 banks, which byte.  Header-only, shared by
 * the sophon plugin and its unit test; not part of the plugin ABI.
 *
 * The seed's rules, as implemented here:
 *   - local memory is 64 lanes (one per NPU) of 256 KiB, each lane split
 *     into 16 banks (16 KiB per lane); NPU k owns addresses
 *     [k * 256 KiB, (k + 1) * 256 KiB);
 *   - a tensor starting at NPU Q puts channel c in lane (Q + c) mod X at
 *     channel row (Q + c) / X, and a lane holds ceil((Q + C) / X) channels
 *     per batch ("channels per NPU");
 *   - strides count elements; C_stride steps a channel row inside a lane,
 *     N_stride a batch;
 *   - aligned: W 1, H W, C = H*W rounded up to 64 bytes (16 32-bit, 32
 *     16-bit, 64 8-bit elements), N = C * channels per NPU; address % 64 == 0;
 *   - compact: C = H*W, the rest as aligned; address % 4 == 0;
 *   - line aligned: H = W rounded up to 64 bytes, C = H * H_stride;
 *   - matrix n x m with w: shape (n, ceil(m / w), 1, w), aligned;
 *     vector 1 x m: (1, ceil(m / w), 1, w), aligned;
 *   - 64IC (int8) / 32IC (fp16, bf16) kernel (ic, oc, kh, kw): W 64|32,
 *     H 64|32 * kw, C = N = 64|32 * kw * kh * ceil(ic / 64|32); the input
 *     channels of one group of 64|32 are the innermost elements, and group g
 *     starts g * 64|32 * kw * kh elements further. */
#ifndef DLADBG_SOPHON_LAYOUT_H
#define DLADBG_SOPHON_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define SOPHON_NPUS       64
#define SOPHON_BANKS      16
#define SOPHON_LANE_BYTES (256u * 1024u)
#define SOPHON_BANK_BYTES (SOPHON_LANE_BYTES / SOPHON_BANKS)

enum sophon_layout {
    SOPHON_ALIGNED,
    SOPHON_COMPACT,
    SOPHON_LINE_ALIGNED,
    SOPHON_STRIDES, /* strides given by the user */
    SOPHON_IC,      /* 64IC (1-byte) / 32IC (2-byte) convolution kernel */
};

struct sophon_tensor {
    uint64_t n, c, h, w;
    unsigned bytes; /* element size: 1, 2 or 4 */
    unsigned npus;  /* lanes X (64 on BM1684x; the seed's figures use 4) */
    unsigned start; /* start NPU Q */
    uint64_t addr;  /* byte address of the tensor inside its start lane */
    enum sophon_layout layout;
    uint64_t stride[4]; /* N, C, H, W in elements (computed, or given) */
    uint64_t valid;     /* elements that hold data (matrix/vector: n*m); 0: all */
    uint64_t row_len;   /* matrix/vector: m, the elements of one row; 0 otherwise */
};

struct sophon_place {
    unsigned lane, bank;
    uint64_t offset;  /* byte inside the lane */
    uint64_t address; /* lane * 256 KiB + offset */
};

static inline uint64_t sophon_align(uint64_t v, uint64_t to)
{
    return (v + to - 1) / to * to;
}

/* Elements in 64 bytes: the C (or line) alignment of the aligned layouts. */
static inline uint64_t sophon_eu(unsigned bytes)
{
    return 64 / bytes;
}

static inline uint64_t sophon_channels_per_npu(const struct sophon_tensor *t)
{
    return (t->start + t->c + t->npus - 1) / t->npus;
}

static inline unsigned sophon_ic_group(const struct sophon_tensor *t)
{
    return t->bytes == 1 ? 64 : 32;
}

/* tpu_aligned_stride, tpu_compact_stride, tpu_line_aligned_stride and the
 * 64IC/32IC strides; SOPHON_STRIDES keeps the given ones. */
static inline void sophon_strides(struct sophon_tensor *t)
{
    uint64_t *s = t->stride;
    switch (t->layout) {
    case SOPHON_ALIGNED:
        s[3] = 1;
        s[2] = t->w;
        s[1] = sophon_align(t->h * t->w, sophon_eu(t->bytes));
        s[0] = s[1] * sophon_channels_per_npu(t);
        break;
    case SOPHON_COMPACT:
        s[3] = 1;
        s[2] = t->w;
        s[1] = t->h * t->w;
        s[0] = s[1] * sophon_channels_per_npu(t);
        break;
    case SOPHON_LINE_ALIGNED:
        s[3] = 1;
        s[2] = sophon_align(t->w, sophon_eu(t->bytes));
        s[1] = t->h * s[2];
        s[0] = s[1] * sophon_channels_per_npu(t);
        break;
    case SOPHON_IC: {
        /* (ic, oc, kh, kw) held as (n, c, h, w) */
        uint64_t g = sophon_ic_group(t);
        s[3] = g;
        s[2] = g * t->w;
        s[1] = g * t->w * t->h * ((t->n + g - 1) / g);
        s[0] = s[1];
        break;
    }
    case SOPHON_STRIDES:
        break;
    }
}

/* The address alignment the layout asks for, in bytes (1: none). */
static inline unsigned sophon_addr_alignment(const struct sophon_tensor *t)
{
    return t->layout == SOPHON_ALIGNED || t->layout == SOPHON_LINE_ALIGNED ? 64
           : t->layout == SOPHON_COMPACT                                   ? 4
                                                                           : 1;
}

/* Element offset of (n, c, h, w) inside its lane, from the tensor's address. */
static inline uint64_t sophon_elem_offset(const struct sophon_tensor *t, uint64_t n, uint64_t c,
                                          uint64_t h, uint64_t w)
{
    uint64_t row = (t->start + c) / t->npus;
    if (t->layout == SOPHON_IC) {
        uint64_t g = sophon_ic_group(t);
        return row * t->stride[1] + (n / g) * g * t->w * t->h + h * t->stride[2] +
               w * t->stride[3] + n % g;
    }
    return n * t->stride[0] + row * t->stride[1] + h * t->stride[2] + w * t->stride[3];
}

static inline struct sophon_place sophon_place(const struct sophon_tensor *t, uint64_t n,
                                               uint64_t c, uint64_t h, uint64_t w)
{
    struct sophon_place p;
    p.lane = (unsigned)((t->start + c) % t->npus);
    p.offset = t->addr + sophon_elem_offset(t, n, c, h, w) * t->bytes;
    p.bank = (unsigned)(p.offset / SOPHON_BANK_BYTES);
    p.address = (uint64_t)p.lane * SOPHON_LANE_BYTES + p.offset;
    return p;
}

/* Bytes from the tensor's address to the end of its furthest element in a
 * lane: every stride is non-negative and the channel row grows with c, so
 * that is element (N-1, C-1, H-1, W-1). */
static inline uint64_t sophon_lane_bytes(const struct sophon_tensor *t)
{
    if (!t->n || !t->c || !t->h || !t->w)
        return 0;
    return (sophon_elem_offset(t, t->n - 1, t->c - 1, t->h - 1, t->w - 1) + 1) * t->bytes;
}

/* Matrix n x m (vector: n = 1) viewed with w columns per channel. */
static inline void sophon_matrix(struct sophon_tensor *t, uint64_t rows, uint64_t cols, uint64_t w)
{
    t->n = rows;
    t->c = (cols + w - 1) / w;
    t->h = 1;
    t->w = w;
    t->layout = SOPHON_ALIGNED;
    t->valid = rows * cols;
    t->row_len = cols;
}

/* Whether element (n, c, h, w) of a matrix/vector view holds data (the last
 * channel of a row may be partly empty). */
static inline bool sophon_holds_data(const struct sophon_tensor *t, uint64_t c, uint64_t h,
                                     uint64_t w)
{
    if (!t->row_len)
        return true;
    return (c * t->h + h) * t->w + w < t->row_len;
}

#endif
