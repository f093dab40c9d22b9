/* The convolution core's internal interfaces (sim/ only): the layer
 * description read from the CDMA/CSC/CACC registers, and the stages the core
 * is made of.
 *
 *   conv_params.c  registers -> struct conv_params, programming-guide rules
 *   cdma.c         memory -> CBUF (feature data, weights, WMB), reuse, OP_EN order
 *   conv_cvt.c     CDMA input convertor arithmetic
 *   conv_image.c   image input: pixel formats into CBUF, and CSC's line reading
 *   conv_layout.c  where a slice, pixel and channel group sit in CBUF
 *   conv_wino.c    Winograd: CDMA layout, PRA transform, MAC output transform
 *   csc.c          CBUF -> MAC operands (padding, dilation, strides, decompression)
 *   cmac.c         exact integer dot products (portable kernel)
 *   cmac_simd.c    the same with x86 SIMD, chosen at run time
 *   cacc.c         integer accumulation, clip/truncate, saturation -> cube for SDP
 *   cacc_fp16.c    the fp16 MAC cell and CACC's float accumulator
 *   conv.c         conv_execute(): the stages in order, timing, description
 */
#ifndef DLA_CONV_H
#define DLA_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "cbuf.h"
#include "core/unit_table.h"

/* The convolution core's entry of the unit table (conv.c), listed by
 * sim/units.c: CDMA, CSC, CMAC_A, CMAC_B and CACC, feeding SDP on the fly. */
extern const struct dla_unit_entry conv_unit;
/* The register behaviour of CDMA, CSC and the MAC arrays (cdma.c). */
extern const struct dla_unit_hooks cdma_hooks, csc_hooks, cmac_a_hooks, cmac_b_hooks;

/* A layer of group: CDMA, CBUF, CSC, CMAC and CACC, CACC's output to SDP in
 * out.  0 on success, -1 when the layer cannot be computed (a diagnostic
 * has been emitted; the layer still completes so nothing hangs). */
int conv_execute(struct dla *d, struct dla_exec *x, int group, struct dla_cube *out);

enum conv_prec { CONV_INT8 = 0, CONV_INT16 = 1, CONV_FP16 = 2 };

struct conv_params {
    int group;
    bool winograd;
    bool image;      /* DATAIN_FORMAT = PIXEL */
    uint8_t in_prec; /* CDMA IN_PRECISION */
    uint8_t prec;    /* PROC_PRECISION (CSC, CMAC, CACC) */
    unsigned bpe;    /* bytes per element in CBUF */

    /* CDMA's view of the input cube */
    uint32_t in_w, in_h, in_c;
    uint32_t batches;
    uint64_t dat_addr, dat_addr_uv, line_stride, uv_line_stride, surf_stride, batch_stride;
    enum dla_space dat_space;
    bool line_packed, surf_packed;
    uint32_t entry_per_slice;
    uint8_t pixel_format, pixel_x_offset, pixel_y_offset;
    bool pixel_signed;
    bool mean_en;
    uint16_t mean[4]; /* RY, GU, BV, AX */
    bool cvt_en;
    int16_t cvt_offset, cvt_scale;
    uint8_t cvt_truncate;
    uint16_t cdma_pad_value;
    bool nan_to_zero;
    uint32_t cdma_stride_x, cdma_stride_y;
    uint32_t pad_l, pad_r, pad_t, pad_b;

    /* CSC's view */
    uint32_t ext_w, ext_h, ext_c;
    /* kernels: CSC's WEIGHT_KERNEL, the kernels CSC sequences and CMAC/CACC
     * compute (nvdla/hw cmod NV_NVDLA_csc: kernel_num = csc_weight_kernel_ + 1);
     * CDMA fetches its own count (cdma_kernels, below) into CBUF. */
    uint32_t k_w, k_h, k_c, kernels;
    uint32_t out_w, out_h, out_k;
    uint32_t stride_x, stride_y, dil_x, dil_y;
    uint32_t csc_pad_l, csc_pad_t;
    uint16_t csc_pad_value;
    uint32_t y_extension;
    uint32_t atomics;
    uint32_t rls_slices;
    uint8_t pra_truncate;

    /* weights */
    bool compressed;
    uint64_t wt_addr, wgs_addr, wmb_addr;
    enum dla_space wt_space;
    uint64_t wt_bytes, wmb_bytes;
    uint32_t byte_per_kernel;
    uint32_t cdma_kernels; /* CDMA's WEIGHT_KERNEL: the kernels fetched into CBUF */

    /* CBUF */
    uint32_t data_banks, weight_banks;
    bool data_reuse, weight_reuse, skip_data_rls, skip_weight_rls;

    /* CACC */
    uint8_t clip_truncate;
    uint32_t cacc_w, cacc_h, cacc_k;

    /* derived */
    unsigned atomic_c;     /* input channels per atomic operation */
    unsigned kernel_group; /* kernels per group (atomic K, halved for int16/fp16) */
};

/* Element i of a run of CBUF bytes as a MAC operand: int8 or int16
 * sign-extended, fp16 as its bit pattern (CSC's reads of data and weights). */
static inline int16_t conv_element(const uint8_t *b, size_t i, const struct conv_params *p)
{
    return (int16_t)feature_load(b + i * p->bpe, p->bpe, false);
}

/* CSC's pad value as an operand: applied as is, the low byte (signed) for int8. */
/* True when CSC reads kernel group g: CDMA may fetch more groups than CSC uses. */
static inline bool conv_csc_uses_group(const struct conv_params *p, uint32_t g)
{
    return (uint64_t)g * p->kernel_group < p->kernels;
}

static inline int16_t csc_pad_operand(const struct conv_params *p)
{
    return p->prec == CONV_INT8 ? (int8_t)p->csc_pad_value : (int16_t)p->csc_pad_value;
}

/* conv_params.c: read the group's registers; false (diagnostics emitted)
 * when the layer cannot be computed. */
bool conv_params_read(struct dla *d, int group, struct conv_params *p);
/* The work the layer asks of the model, in integer-MAC equivalents (for
 * exec_budget); only meaningful once conv_params_read() accepted it. */
uint64_t conv_work(const struct conv_params *p);

/* conv_layout.c: where CDMA puts (and CSC finds) the feature data of a
 * direct-convolution slice.  group = index of the run of entry_bytes of
 * channels; returns the entry relative to the slice start and the byte
 * offset and length inside it. */
struct conv_slot {
    uint32_t entry, byte, len;
};
unsigned conv_channel_groups(const struct conv_params *p, unsigned entry_bytes);
struct conv_slot conv_feature_slot(const struct conv_params *p, unsigned entry_bytes,
                                   unsigned atom_bytes, uint32_t x, unsigned cgroup);

/* conv_cvt.c: CDMA input convertor.  in is the value widened to 17 bits as
 * the pixel format's signedness says; returns the output bit pattern (int8 in
 * the low byte, int16 or fp16 in the low half) and sets *sat when the value
 * was clamped. */
uint16_t conv_cvt(int32_t in, int16_t offset, int16_t scale, unsigned truncate, enum conv_prec out,
                  bool *sat);

/* conv_image.c: image input.  CDMA side: fetch, reorder, convert and pad
 * the pixel lines into CBUF; CSC side: operand rows from those lines. */
struct conv_cbuf_plan;
int conv_image_load(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                    const struct conv_cbuf_plan *plan, int32_t layer, uint64_t *sat);
struct conv_operands;
bool csc_image_rows(struct dla *d, const struct conv_params *p, const struct conv_cbuf_plan *plan,
                    struct conv_operands *ops);

/* The CBUF regions of a layer. */
struct cbuf_region conv_data_region(const struct conv_params *p);
struct cbuf_region conv_weight_region(const struct conv_params *p);
struct cbuf_region conv_wmb_region(const struct dla *d);

/* Where this layer's data and weights start in their regions (set by CDMA). */
struct conv_cbuf_plan {
    uint32_t data_start;   /* entry */
    uint64_t weight_start; /* byte */
    bool fetch_data, fetch_weight;
};

/* cdma.c */
/* Decide reuse and placement from what the previous layer left. */
void cdma_plan(struct dla *d, const struct conv_params *p, struct conv_cbuf_plan *plan);
/* fp16 input as CDMA fetches it: NaNs and infinities added to *nan and
 * *inf, NaNs flushed to zero when NAN_TO_ZERO is set (feature and image). */
void cdma_fp16_input(const struct conv_params *p, uint8_t *b, size_t n, uint64_t *nan,
                     uint64_t *inf);
/* Fetch the input cube (feature or image) into CBUF data banks. */
bool cdma_load_data(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                    const struct conv_cbuf_plan *plan, int32_t layer);
/* The weight stream, kernel group by kernel group: CDMA writes a group into
 * the weight ring (when it fetches at all), CSC reads it back from there
 * before the next group may overwrite it, as in hardware. */
struct conv_wt_stream {
    uint32_t groups;
    uint64_t *bytes;    /* stream bytes of each kernel group */
    uint64_t total;     /* sum of bytes */
    uint64_t fetched;   /* stream bytes before the current group */
    uint64_t group_off; /* ring byte offset of the current group */
    bool fp16;
    uint64_t nan, inf;
};
bool cdma_weights_begin(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                        const struct conv_cbuf_plan *plan, int32_t layer,
                        struct conv_wt_stream *ws);
bool cdma_weight_group(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                       const struct conv_cbuf_plan *plan, int32_t layer, struct conv_wt_stream *ws,
                       uint32_t g);
void cdma_weights_end(struct dla *d, const struct conv_params *p, const struct conv_cbuf_plan *plan,
                      int32_t layer, struct conv_wt_stream *ws);
/* Record what this layer leaves in CBUF for the next one. */
void cdma_finish(struct dla *d, const struct conv_params *p, const struct conv_cbuf_plan *plan);

/* The MAC operands CSC prepares: rows of int16 values (integer modes) or
 * fp16 bit patterns, one row per output position (data) or kernel (weights),
 * in the order [channel block][r][s][channel in block], so that each run of
 * atomic_c values is one atomic operation's partial sum. */
struct conv_operands {
    uint32_t rows;     /* output positions: out_w * out_h * batches */
    uint32_t kernels;  /* weight rows: the kernels of one pass */
    uint32_t k_first;  /* the layer's kernel in weight row 0 */
    uint32_t depth;    /* values per row (padded to a multiple of 16) */
    uint32_t taps;     /* kernel positions r*s */
    uint32_t seg_len;  /* values per atomic operation (atomic_c) */
    uint32_t c;        /* channels */
    int16_t *data;     /* rows x depth, in the model's scratch (SCRATCH_CSC_DATA) */
    int16_t *weight;   /* kernels x depth, in the model's scratch (SCRATCH_CSC_WEIGHT) */
    struct dla *model; /* whose scratch CMAC may use (SCRATCH_CMAC_FP16); NULL: malloc */
};

/* conv.c: CSC hands CMAC a layer's weights in passes of whole kernel
 * groups: the kernels of a pass for data operands of rows x depth values and
 * weight rows of depth values.  conv_set_weight_pass_values caps a pass at
 * that many weight values (0: as many as the data operands); tests force
 * small passes with it. */
uint32_t conv_kernels_per_pass(const struct conv_params *p, uint64_t rows, uint32_t depth);
void conv_set_weight_pass_values(size_t values);
/* Whether kernel group g is the last of its pass of per_pass kernels (the
 * layer's last group always is): the pass is computed once it is in. */
static inline bool conv_group_ends_pass(const struct conv_params *p, uint32_t g, uint32_t per_pass)
{
    uint64_t end = ((uint64_t)g + 1) * p->kernel_group;
    return end >= p->kernels || end % per_pass == 0;
}

/* csc.c */
/* Data operands from the CBUF data banks; allocates ops->data. */
bool csc_prepare_data(struct dla *d, const struct conv_params *p, const struct conv_cbuf_plan *plan,
                      struct conv_operands *ops);
/* Weight operands of kernel group g from the weight ring (decompressing
 * with the WMB bits when the weights are compressed), into the rows of
 * ops->weight from kernel ops->k_first on. */
struct csc_decomp {
    uint64_t mask_bit; /* next WMB bit */
    uint64_t packed;   /* next element of the compressed stream */
};
bool csc_weight_group(struct dla *d, const struct conv_params *p, const struct conv_cbuf_plan *plan,
                      const struct conv_wt_stream *ws, uint32_t g, struct csc_decomp *dec,
                      struct conv_operands *ops);
/* The next weight of a compressed stream: a WMB bit, then the next packed
 * weight when it is set, else zero. */
int16_t csc_decompress_next(struct dla *d, const struct conv_params *p,
                            const struct conv_cbuf_plan *plan, struct csc_decomp *dec);

/* cmac.c + cacc.c: out[k][row] accumulators -> CACC output values. */
struct cacc_stats {
    uint64_t saturated;
    uint64_t nan_out;
};
/* conv_image.c: weights of an image layer with channel post-extension. */
bool csc_image_weight_group(struct dla *d, const struct conv_params *p,
                            const struct conv_wt_stream *ws, uint32_t g, struct conv_operands *ops);

/* Integer modes: exact accumulation (48-bit saturating in hardware order when
 * it can matter), truncation and saturation into the cube. */
void cmac_cacc_int(const struct conv_params *p, const struct conv_operands *ops,
                   struct dla_cube *out, struct cacc_stats *st);
/* fp16 mode: the MAC cell's products and sums, CACC's fp accumulation
 * (cmac_fp16.c; on dla_threads() workers). */
void cmac_cacc_fp16(const struct conv_params *p, const struct conv_operands *ops,
                    struct dla_cube *out, struct cacc_stats *st);

/* cacc_fp16.c: the bit-level reference of the fp16 MAC cell and CACC.
 * One output of an fp16 layer from n channel pairs in atomic operations of
 * seg channels: the fp32 bit pattern CACC delivers. */
uint32_t cacc_fp16_dot(const int16_t *dat, const int16_t *wt, uint32_t n, uint32_t seg);
/* One output of the layer's operands (data row a, weight row w). */
uint32_t cacc_fp16_output(const struct conv_operands *ops, const int16_t *a, const int16_t *w);
/* One atomic operation of n channel pairs: the cell's packed partial sum
 * (6-bit exponent, 38-bit mantissa), and the pieces it is made of: the
 * Booth multiplier's product of two aligned mantissas shifted right by
 * shift, and the packing. */
uint64_t cacc_fp16_mac_cell(const int16_t *dat, const int16_t *wt, uint32_t n);
int32_t cacc_fp16_booth(unsigned neg, uint32_t wt, uint32_t dat, unsigned shift);
uint64_t cacc_fp16_mac_pack(unsigned exp6, int64_t mant);
/* CACC's 48-bit float accumulator plus a packed partial sum. */
uint64_t cacc_fp16_acc_add(uint64_t acc, uint64_t mac);

/* cmac_fp16.c: the fast fp16 path, bit-identical to the reference.  One
 * output (as cacc_fp16_output) and one Winograd operation (as
 * cacc_fp16_wino_op). */
uint32_t cmac_fp16_output(const struct conv_operands *ops, const int16_t *a, const int16_t *w);
void cmac_fp16_wino_op(const int16_t dat[64], const int16_t wt[64], uint64_t acc[4]);
/* A product aligned by 8 bits as the fast path computes it (from its carry
 * table), for the test against cacc_fp16_booth(neg, wt, dat, 8). */
int32_t cmac_fp16_shift8(unsigned neg, uint32_t wt, uint32_t dat);
/* CACC's add as the fast path does it, for the test against
 * cacc_fp16_acc_add(acc, cacc_fp16_mac_pack(exp6, mant)); exp6 < 63. */
uint64_t cmac_fp16_acc_add(uint64_t acc, unsigned exp6, int64_t mant);
/* cmac_fp16_x86.c: the cell's easy products with AVX-512BW when the host has
 * it (and DLADBG_NO_SIMD is unset): decoded operands of n <= 64 channels ->
 * their sum, the cell's exponent (*mx), the products left out (*hard, one
 * bit per channel) and those aligned by 8 bits, summed as floor(P / 256)
 * without their Booth carries (*shift8). */
bool cmac_fp16_simd(void);
int64_t cmac_fp16_cell_avx512(const int16_t *dm, const int8_t *dh, const int16_t *wm,
                              const int8_t *wh, uint32_t n, int32_t *mx, uint64_t *hard,
                              uint64_t *shift8);
/* CACC's adds of eight outputs side by side (cell c of lane l at stride * c
 * + l), as acc_add_lane in cmac_fp16.c, with AVX-512F/CD. */
void cmac_fp16_acc_cells_avx512(const int64_t *mx, const int64_t *total, uint32_t cells,
                                uint32_t stride, uint64_t acc[8]);
/* Products the fast fp16 cells leave to the Booth array (aligned by 12
 * bits or more): signed mantissas, the alignment and the slot of the cell's
 * sum they add to; r their results; room for cap of them (it grows: a row
 * rarely has more than a few percent). */
struct fp16_hard {
    uint32_t n, cap;
    int32_t *w, *d;
    uint32_t *shift, *cell;
    int32_t *r;
};
/* The key of a signed aligned mantissa in carry8's rows: sign << 8 | low
 * byte of the magnitude. */
static inline uint32_t cmac_fp16_carry_key(int16_t m)
{
    return (uint32_t)(m < 0) << 8 | ((uint32_t)(m < 0 ? -m : m) & 0xffu);
}
/* The 16-kernel cells' word of a weight (see below). */
static inline int32_t cmac_fp16_wide_mk(int16_t m)
{
    uint32_t key = cmac_fp16_carry_key(m);
    return (int32_t)((uint32_t)(uint16_t)m << 16 | (key >> 3) << 8 | (8u + (key & 7u)));
}
/* The cells of one row against 16 kernels with AVX-512F/BW (VBMI when vbmi):
 * dm the row's mantissas in the high half of 32 bits, dh its exponent parts
 * (fp16_decoded's h), dk their rows of carry8 (16 x (sign << 8 | low byte of
 * the magnitude)), live the offsets of a cell's nonzero values in it (from
 * the cell's first value on; nlive[c] of them for cell c); wmk, wh the
 * kernels' interleaved (value i of kernel l at 16 * i + l; wmk = mantissa <<
 * 16 | (key >> 3) << 8 | 8 + (key & 7), key = sign << 8 | low byte of the
 * magnitude: cmac_fp16_wide_mk); carry8 the Booth carries of products
 * aligned by 8 bits, 512 bits per data sign and low byte, indexed by the
 * weight's key.  Cell c of kernel l gets its exponent in mx[16 * c + l] and
 * in total[16 * c + l] the sum of its products aligned by 0, 4 or 8 bits;
 * the products aligned by 12 bits or more are appended to hard (slot 16 * c
 * + l), where those aligned by 32 or more give 0. */
/* Cells from first on; returns the cell it stopped at (every cell done: the
 * row's count of them) when the queue lacked room for 16 x that cell's
 * nonzero values plus 16 (the caller grows it and calls again from there). */
uint32_t cmac_fp16_cells16_avx512(const struct conv_operands *ops, uint32_t first,
                                  const int32_t *dm, const int8_t *dh, const int32_t *dk,
                                  const uint8_t *live, const uint8_t *nlive, const int32_t *wmk,
                                  const int8_t *wh, const uint32_t *carry8, int64_t *total,
                                  int64_t *mx, struct fp16_hard *hard, bool vbmi);
/* Kernels [0, kn) (kn <= 16, the rest zeros) of depth values from raw on
 * interleaved for those cells: value i of kernel l at 16 * i + l of wmk
 * (cmac_fp16_wide_mk) and wh (the exponent part); AVX-512BW, for
 * cmac_fp16_simd() hosts. */
void cmac_fp16_wide_layout(const int16_t *raw, size_t depth, size_t kn, int32_t *wmk, int8_t *wh);
/* True when the AVX-512 cells can fetch carries with VBMI's byte permute
 * (and DLADBG_NO_VBMI is unset: the tests run the other way too). */
bool cmac_fp16_vbmi(void);
/* cmac_fp16_fma.c: the cells as double FMAs rounding down, 8 rows against
 * 32 kernels at a time (AVX-512F/BW/VL/VBMI/VPOPCNTDQ; cmac_fp16_fma() says whether
 * the host runs them). */
#define CMAC_FP16_FMA_LANES 32
#define CMAC_FP16_FMA_ROWS  8
#define CMAC_FP16_FMA_CELL  64 /* channels of one atomic operation, at most */
/* A data row's values in one cell (the values of an atomic operation, bit v
 * for the cell's value v): the largest exponent part of its nonzero values
 * (0 when none), the values holding it (mask; every bit when none), those 4
 * below it (mid), 8 or more below (small) and exactly 8 below (by8, among
 * small), and the nonzero values. */
struct cmac_fp16_row_cell {
    uint64_t mask, mid, small, by8, nonzero;
    int8_t top;
};
/* Data rows, each from its first value on: the mantissa m (as
 * fp16_decoded's), exponent part h (fp16_decoded's, but 64 for a zero:
 * cmac_fp16_fma_decode) and d = m * 2^(h - 25), the value as a double;
 * cell[ROWS * c + r], row r's cell c (cmac_fp16_fma_row_cells). */
struct cmac_fp16_fma_rows {
    const int16_t *m[CMAC_FP16_FMA_ROWS];
    const int8_t *h[CMAC_FP16_FMA_ROWS];
    const double *d[CMAC_FP16_FMA_ROWS];
    const struct cmac_fp16_row_cell *cell;
};
/* Kernels interleaved (value i of kernel l at LANES * i + l): w = m * 2^(h
 * + 25) as a double (the data's doubles are m * 2^(h - 25), the values) (0 for a zero; w alone by halves of 16 kernels, value i of
 * kernel l at 16 * (depth * (l / 16) + i) + l % 16, so that the FMAs of a
 * half read one stream), h + 64 (0x80 for a zero), the byte of carry8's
 * row that holds the weight's carry bit, key >> 3, and that bit, 1 << (key
 * & 7) (key = sign << 8 | low byte of |m|), and m. */
struct cmac_fp16_fma_block {
    double *w;
    uint8_t *h, *idx, *bit;
    int16_t *m;
    /* Per cell c and lane l (at LANES * c + l): kmax, the largest h + 64
     * of the lane's nonzero weights in the cell (64 when it has none), and
     * kmask, the cell's values holding it (bit v for value v of the cell;
     * all bits for a lane without a nonzero weight).  A row's cell against
     * the lane has its top exponent at the row's largest plus the kernel's
     * when a value holds both (one AND), and then a product's alignment is
     * the data value's distance below the row's largest plus the weight's
     * below the kernel's. */
    uint8_t *kmax;
    uint64_t *kmask;
    /* Per value the lanes whose weight is 8 or more below its lane's kmax
     * (small), nonzero weights only, but for the quiet ones: exactly 8
     * below, with the low byte of |m| clear.  Their products with the data
     * values at their row's largest and 4 below (aligned by 8 and 12) take
     * no Booth carry (tests/unit/test_cmac_fp16.c checks every mantissa),
     * so only the values 8 or more below settle them, as the weights that
     * are not small.  by8: the lanes whose products with a data value
     * exactly 8 below its row's largest may take a carry: at kmax with one
     * of |m|'s low four bits set (aligned by 8), 4 below with one of its
     * low byte's set (aligned by 12) and the quiet ones (aligned by 16);
     * the rules are mid8's and the quiet weights' (the weights of few
     * significant bits of quantised layers have none but the quiet ones).
     * The small ones
     * are aligned by 8 bits or more against every data value: cell by cell
     * (entries small_first[c] to small_first[c + 1]) each one's value in
     * the cell, lane, m and h + 64, which the cells settle cell by cell for
     * each row instead of value by value.  A cell's entries are lane-major:
     * lane l's from small_lanes[(LANES + 1) c + l] to the next lane's
     * start (counted from the cell's first entry; the last, LANES, is the
     * cell's count).  mid8: the mid weights whose |m| has one of its low
     * four bits set, the only ones whose products aligned by 8 bits can
     * take a Booth carry (below four zero bits the array's rows have none
     * of their low byte's bits below 4, and the low bytes never carry:
     * checked for every mantissa pair by tests/unit/test_cmac_fp16.c). */
    uint32_t *small, *by8, *mid8, *small_first;
    /* Per cell c the values (bit v for value v of the cell) with a mid8
     * lane ([2c]) and with a by8 lane ([2c + 1]). */
    uint64_t *cell_values;
    uint8_t *small_at, *small_lane, *small_h;
    int16_t *small_m;
    uint16_t *small_lanes;
    /* The weights as the bit-sliced cells read them
     * (cmac_fp16_sliced_layout): CMAC_FP16_SLICED_FIELDS lane masks per
     * value, planes_stride values a field; NULL when no cell of the pass
     * is worth running bit-sliced. */
    uint32_t *planes;
    size_t planes_stride;
    /* Every cell bit-sliced, whatever it costs (DLADBG_ALL_SLICED set: the
     * tests run that way too). */
    bool all_sliced;
};
bool cmac_fp16_fma(void);
/* The cells of the rows against one block from first on, as
 * cmac_fp16_cells16_avx512 but with cell c of row r, kernel l at slot
 * LANES * (ROWS * c + r) + l: total gets each cell's exact sum and mx its
 * exponent (a byte: 0 to 56), except for the sums' products aligned by 20
 * bits or more (counted there as floor(P / 2^s) and
 * queued for the Booth array: cmac_fp16_hard_carries settles any aligned
 * by 8 to 16 or by 32 or more the queue holds, the 32-bit array the rest);
 * stops when the queue lacks room for ROWS x LANES x (the cell's values +
 * 1).  k's per-cell maxima and small, mid8 and by8 weights must be filled. */
uint32_t cmac_fp16_cells_fma(const struct conv_operands *ops, uint32_t first,
                             const struct cmac_fp16_fma_rows *rows,
                             const struct cmac_fp16_fma_block *k, const uint32_t *carry8,
                             int64_t *total, uint8_t *mx, struct fp16_hard *hard);
/* CACC's exact case (cmac_fp16_acc_exact_avx512's) for the FMA cells' 32
 * lanes of one row, their exponents as cmac_fp16_cells_fma's bytes (cell c
 * of lane l at stride * c + l in mx and total); AVX-512, for
 * cmac_fp16_fma() hosts. */
uint32_t cmac_fp16_fma_acc_exact(const uint8_t *mx, const int64_t *total, uint32_t cells,
                                 size_t stride, uint64_t acc[CMAC_FP16_FMA_LANES]);
/* Kernels [0, kn) (kn <= LANES, the rest zeros) of depth values from raw
 * on in the block's layout, from its arrays' starts on: w, h, idx, bit and
 * m (the per-cell maxima and the lists of small weights are the caller's,
 * cmac_fp16.c); AVX-512, for cmac_fp16_fma() hosts. */
void cmac_fp16_fma_layout(const int16_t *raw, size_t depth, size_t kn,
                          const struct cmac_fp16_fma_block *k);
/* The block's small, by8 and mid8 weights and cell_values (struct
 * cmac_fp16_fma_block) of cell `cell`, nj values from off on, from its h, m
 * and kmax; AVX-512, for cmac_fp16_fma() hosts. */
void cmac_fp16_fma_classify(const struct cmac_fp16_fma_block *k, size_t off, uint32_t nj,
                            uint32_t cell);
/* The results of a block of ROWS rows that lie side by side in an output
 * line (res[LANES * i + l] row i's for kernel l) stored for kernels [0,
 * kernels), kernels <= LANES: kernel l's ROWS results at out + l * plane
 * on, one store each (a store per result took 2% of the bench layer);
 * returns how many are NaNs; AVX-512, for cmac_fp16_fma() hosts. */
uint32_t cmac_fp16_fma_store8(const uint32_t *res, int32_t *out, size_t plane, uint32_t kernels);
/* cmac_fp16_sliced.c: the Booth corrections of a whole cell, bit-sliced
 * (AVX-512F/BW, for cmac_fp16_fma() hosts).  The layout: n values of 32
 * kernels (m, h + 64 as struct cmac_fp16_fma_block's; 0x80 a zero) in
 * CMAC_FP16_SLICED_FIELDS 32-bit words per value and stride, stride >= n
 * + 2 (the values past n zeros): lane masks of the sign, the nonzero
 * weights and the exponent group, and each Booth digit's table of lane
 * masks (cmac_fp16_sliced.c). */
#define CMAC_FP16_SLICED_FIELDS 69
/* The FMA cells' estimates, in vector operations for a block of rows, of a
 * cell of nj values run bit-sliced (about 660 for each pair of values: the
 * 560 of a batch measured, scaled as the 800 of the 680 before) and of
 * settling `smalls` small weights value by value (200 for each 32 of them
 * and row): cmac_fp16_fma.c's choice between the two. */
static inline uint32_t cmac_fp16_sliced_cost(uint32_t nj)
{
    return 660 * ((nj + 1) / 2) + 400;
}
static inline uint32_t cmac_fp16_small_cost(uint32_t smalls)
{
    return CMAC_FP16_FMA_ROWS * 200 * ((smalls + 31) / 32);
}
void cmac_fp16_sliced_layout(const int16_t *m, const uint8_t *h, size_t n, size_t stride,
                             uint32_t *planes);
/* One cell of nj <= CMAC_FP16_FMA_CELL values: data rows dm[r], dh[r] (the
 * cell's mantissas and exponent parts as struct cmac_fp16_fma_rows', a
 * zero's h 64), the kernels' planes (cmac_fp16_sliced_layout's, the
 * cell's values from `first` on) -> top[r][l], the cell's top per row and
 * kernel (largest h + 64 of its products with no zero operand, 64 when
 * none: what the FMA cells' tops_exact gives), and carried[r][l], what row
 * r's sum against kernel l must take off the FMA cells' sum of floor(P /
 * 2^s) to be the hardware's (every product's Booth carries and the
 * alignments of 32 and more, which the hardware drops). */
void cmac_fp16_sliced_cell(const int16_t *const dm[CMAC_FP16_FMA_ROWS],
                           const int8_t *const dh[CMAC_FP16_FMA_ROWS], uint32_t nj,
                           const uint32_t *planes, size_t first, size_t stride,
                           uint8_t top[CMAC_FP16_FMA_ROWS][CMAC_FP16_FMA_LANES],
                           int8_t carried[CMAC_FP16_FMA_ROWS][CMAC_FP16_FMA_LANES]);
/* Every cell of the rows (their m, h) into out[ROWS * c + r]: what the
 * cells of every kernel block read; AVX-512, for cmac_fp16_fma() hosts. */
void cmac_fp16_fma_row_cells(const struct conv_operands *ops, const struct cmac_fp16_fma_rows *rows,
                             struct cmac_fp16_row_cell *out);
/* The queue's products aligned by 8, 12 or 16 bits settled: their Booth
 * carries taken off total[cell] (the cells counted floor(P / 2^s)); those
 * aligned by 32 or more too (the array gives 0, the cells counted -1 for a
 * negative product); the others (aligned by 20 to 28) are moved to the
 * front of the queue, in order, and their count returned (q->n). */
uint32_t cmac_fp16_hard_carries(struct fp16_hard *q, int64_t *total);
/* fp16 values decoded for the MAC cells (cmac_fp16.c): m the signed
 * mantissa aligned by the exponent's low two bits (0 for a zero), h 4 x
 * (exponent >> 2) (-128 for a zero); for the AVX-512 cells m32 = m << 16
 * (not stored when NULL: the FMA cells do without) and key = 16 x (sign <<
 * 8 | low byte of |m|). */
struct fp16_decoded {
    int16_t *m;
    int8_t *h;
    int32_t *m32, *key;
};
/* n raw values decoded with AVX-512BW; true when one of them is a NaN. */
bool cmac_fp16_decode_avx512(const int16_t *raw, size_t n, struct fp16_decoded *out);
/* The same for the FMA cells' data rows (struct cmac_fp16_fma_rows) in one
 * pass: m and h (a zero's 64) into out (m32 and key unused), d[i] = m *
 * 2^(h - 25), the value (an exponent field of 31 read as a number);
 * AVX-512, for cmac_fp16_fma() hosts. */
bool cmac_fp16_fma_decode(const int16_t *raw, size_t n, struct fp16_decoded *out, double *d);
/* CACC's exact case (cmac_fp16.c explains it): an output's partial sums
 * within +-CMAC_FP16_EXACT_LIMIT at the scale of its smallest nonzero cell,
 * cells at most CMAC_FP16_EXACT_SPAN bits apart; CMAC_FP16_NO_BASE marks a
 * lane with no nonzero cell yet. */
#define CMAC_FP16_EXACT_LIMIT (1ll << 38)
#define CMAC_FP16_EXACT_SPAN  24
#define CMAC_FP16_NO_BASE     1024
/* The exact case for `lanes` outputs, a multiple of 8 up to 64 (cell c of
 * lane l at stride * c + l) with AVX-512F/CD: bit l of the result set when
 * lane l qualified, acc[l] then CACC's result (the lanes that did not are
 * left to the adds one by one). */
uint64_t cmac_fp16_acc_exact_avx512(const int64_t *mx, const int64_t *total, uint32_t cells,
                                    uint32_t lanes, size_t stride, uint64_t *acc);
/* CACC's results of n accumulators (a multiple of 8) as cacc_fp16_result
 * gives them, with AVX-512F. */
void cmac_fp16_results_avx512(const uint64_t *acc, uint32_t n, uint32_t *res);
/* cmac_fp16.c: CACC's adds of eight outputs from zero when no add rounds:
 * bit l of the result set when lane l qualified and acc[l] is CACC's result
 * (for the test against the reference). */
uint32_t cmac_fp16_acc_exact(const int64_t *mx, const int64_t *total, uint32_t cells,
                             uint64_t acc[8]);
/* cmac_fp16.c: the same adds the way the current host runs them (for the test). */
void cmac_fp16_acc_cells(const int64_t *mx, const int64_t *total, uint32_t cells, uint64_t acc[8]);

/* conv_wino.c: a whole Winograd layer (CDMA fetch with padding and stride
 * folding, PRA transform, MAC with the output transform, CACC). */
bool conv_wino_run(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                   const struct conv_cbuf_plan *plan, int32_t layer, struct dla_cube *out,
                   struct cacc_stats *st);
/* The PRA cell on one 4x4 tile (row-major): B^T d B, PRA_TRUNCATE bits off
 * rounding half away from zero, saturated to the precision. */
void csc_pra_transform(const int16_t in[16], unsigned truncate, enum conv_prec prec,
                       int16_t out[16]);
/* The MAC cell's output transform A^T M A (A^T = [1 1 1 0; 0 1 -1 -1]) of
 * the 16 position sums m (row-major): the 2x2 outputs, row-major, exact. */
void cmac_wino_output_transform(const int64_t m[16], int64_t o[4]);

/* cacc_fp16.c, Winograd: one atomic operation (16 positions x 4 channels,
 * lane = position * 4 + channel) added into the 2x2 outputs' 48-bit float
 * accumulators (start them at 0), and an accumulator as the fp32 for SDP. */
void cacc_fp16_wino_op(const int16_t dat[64], const int16_t wt[64], uint64_t acc[4]);
uint32_t cacc_fp16_result(uint64_t acc);

/* cmac.c: dot products of int16 rows, exact. */
int64_t cmac_dot_i16(const int16_t *a, const int16_t *b, uint32_t n);
/* The weights as the fast kernel uses them: as they are when every operand
 * fits in int8 (narrow), else split into high and low bytes. parts == 0
 * means the split could not be allocated. */
struct cmac_weights {
    int parts;
    const int16_t *w[2];
    int64_t scale[2];
    uint32_t chunk;
    int16_t *owned[2];
    unsigned lanes;     /* SIMD kernels per block, 0 when the portable kernel runs */
    int16_t *packed[2]; /* w[] packed for the SIMD kernel */
};
void cmac_split_weights(const struct conv_operands *ops, bool narrow, struct cmac_weights *cw);
void cmac_weights_free(struct cmac_weights *cw);
/* Block of exact dot products: acc[k * rows_n + r] for rows r0.. and
 * kernels k0.. of the operands. */
void cmac_block(const struct conv_operands *ops, const struct cmac_weights *cw, uint32_t r0,
                uint32_t rows_n, uint32_t k0, uint32_t kern_n, int64_t *acc);

/* cmac_simd.c: the x86 SIMD kernel (0 lanes: not available here). */
unsigned cmac_simd_lanes(void);
int16_t *cmac_simd_pack(const int16_t *w, uint32_t kernels, uint32_t depth, unsigned lanes);
void cmac_simd_block(const int16_t *a, uint32_t depth, uint32_t rows_n, const int16_t *packed,
                     uint32_t k0, uint32_t kern_n, unsigned lanes, uint32_t chunk, int64_t scale,
                     int64_t *acc);

/* cacc.c: the clip/truncate of one accumulator (round half away from zero)
 * and saturation to int32. */
int32_t cacc_truncate(int64_t acc, unsigned clip, bool *sat);
int64_t cacc_sat48(int64_t v);

#endif
