/* PDP pooling arithmetic on one channel plane, bit-exact with NVIDIA's C
 * model (cmod/pdp/NV_NVDLA_pdp.cpp: LineOperation, PoolingStage0Calc,
 * PoolingStage1Calc).  No registers, no memory: sim/pdp/pdp.c decodes the
 * configuration and moves the data; the unit tests drive this directly.
 *
 * The hardware pools in two passes.  Stage 0 walks the input row by row;
 * each input element is folded into every output window it belongs to,
 * first along the row into a line-operation buffer, then, when a window's
 * row part is complete, into the line buffer entry of the output element
 * (max, min, or sum for average).  Padded taps add the programmed padding
 * sums (D_POOLING_PADDING_VALUE_nX = n pad values) in average mode only.
 * Stage 1 reads the line buffer; average divides by multiplying with the
 * programmed reciprocals (0x10000 / k) twice, rounding half away from zero
 * each time.  Integer precisions keep int16 (int8 input) or int32 (int16
 * input) partial results, with the hardware's wrap-around; fp16 keeps
 * maxima and minima in fp16 and sums in fp17 (the cmod's float arithmetic,
 * fpnum.c, via cmod/hls_wrapper/pdp_hls_wrapper.cpp), the padding values and
 * reciprocals being fp17 numbers. */
#ifndef DLA_PDP_POOL_H
#define DLA_PDP_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pdp_method { PDP_AVERAGE = 0, PDP_MAX = 1, PDP_MIN = 2 };
enum pdp_precision { PDP_INT8 = 0, PDP_INT16 = 1, PDP_FP16 = 2 };

#define PDP_KERNEL_MAX 8
#define PDP_PAD_VALUES 7

/* What is common to every split and channel of a layer. */
struct pdp_pool_cfg {
    uint8_t method;              /* enum pdp_method */
    uint8_t precision;           /* enum pdp_precision (integer ones here) */
    unsigned kernel_w, kernel_h; /* 1..8 */
    unsigned stride_w, stride_h; /* 1..16 */
    unsigned pad_top, pad_bottom;
    int32_t pad_value[PDP_PAD_VALUES]; /* padding sums for 1..7 padded taps, sign-extended */
    uint32_t recip_w, recip_h;         /* reciprocals in 1/65536 units */
    unsigned in_h, out_h;
};

/* One split of the width (the whole width when not split). */
struct pdp_pool_split {
    unsigned in_w, out_w; /* input elements read (including overlap), outputs written */
    unsigned pad_left, pad_right;
};

/* Padding value register contents as the hardware sign-extends them: the
 * nX value's sign bit is bit 7/8/9/9/10/10/10 (int8) or 15/16/17/17/18/18/18
 * (int16); the result is held in 16 (int8) or 32 (int16) bits. */
int32_t pdp_pad_value(uint32_t field, unsigned n, enum pdp_precision precision);

/* Scratch space pdp_pool_plane needs, in int32 elements. */
size_t pdp_pool_scratch(const struct pdp_pool_cfg *c, const struct pdp_pool_split *s);

/* Pool one plane of one split: in[h * s->in_w + w] (integer values, or
 * fp16 bits) to out[oy * s->out_w + ox] (int8/int16 values, fp16 bits).  scratch holds at least
 * pdp_pool_scratch() elements.  Returns the number of output elements no
 * input window reached (the hardware would wait for them forever: a
 * programming error the caller reports); those are 0. */
unsigned pdp_pool_plane(const struct pdp_pool_cfg *c, const struct pdp_pool_split *s,
                        const int32_t *in, int32_t *out, int32_t *scratch);

/* Max or min pooling of every channel of a block of atoms at once: element
 * (h, w, k) of the split at in[((h * s->in_w + w) * lanes + k) * bpe],
 * outputs likewise at out (s->out_w wide, c->out_h high), bpe 1 (int8) or
 * 2 (int16, fp16 bits; little-endian).  The same bits as pdp_pool_plane on
 * each channel, computed separably (the order of a max or min's taps does
 * not matter).  False, with out partly written, when an fp16 element is a
 * NaN: which NaN wins depends on the hardware's order, which only
 * pdp_pool_plane follows.  scratch holds pdp_pool_extreme_scratch()
 * elements. */
struct pdp_extreme_tally {
    unsigned missing;    /* outputs no window reached (written 0) */
    uint64_t infinities; /* fp16: the block's elements that are +-inf, every row's */
};
bool pdp_pool_extreme(const struct pdp_pool_cfg *c, const struct pdp_pool_split *s,
                      const uint8_t *in, unsigned lanes, uint8_t *out, int32_t *scratch,
                      struct pdp_extreme_tally *tally);
size_t pdp_pool_extreme_scratch(const struct pdp_pool_cfg *c, const struct pdp_pool_split *s,
                                unsigned lanes);

/* Stage 1 of average pooling for one line-buffer sum. */
int32_t pdp_average(int32_t sum, uint32_t recip_w, uint32_t recip_h, enum pdp_precision precision);

#endif
