/* Image input (DATAIN_FORMAT = PIXEL): CDMA reads pitch-linear pixels
 * (packed or 4:4:4 semi-planar), reorders their components to R, G, B, A
 * (Y, ..., A) order, converts each one (offset or per-component mean,
 * scale, truncate; PIXEL_SIGN_OVERRIDE says how integer components widen),
 * adds the left and right padding and writes each line to CBUF as a run of
 * entries.  The pad value is inserted at the convertor's output, as is:
 * NVIDIA's RTL (NV_NVDLA_CDMA_cvt) and cmod both mask padded lanes with the
 * register value, so it must be given in the converted format.
 *
 * CSC then treats a line as a row of elements: output x takes the
 * WEIGHT_CHANNEL_EXT (= S * C) elements starting at x * stride * C of each
 * of the R kernel lines; lines above or below the image give CSC's own pad
 * value. */
#include <stdlib.h>
#include <string.h>

#include "conv.h"

enum comp_kind { COMP8, COMP16, COMP_PACKED10 };

struct pixel_format {
    uint8_t planes;
    uint8_t bpp0, bpp1; /* bytes per pixel in plane 0 / plane 1 */
    uint8_t elems;      /* components per pixel */
    uint8_t kind;       /* enum comp_kind */
    bool fp16;          /* components are fp16 */
    uint8_t src[4];     /* COMP8/16: component i is element src[i] of the pixel;
                           PACKED10: bit position of component i in the 32-bit word */
};

/* Component orders for src[] of the 8- and 16-bit formats: the element of
 * the pixel that holds R, G, B, A (Y, U, V, A).  Plain lists, used as
 * {RGBA}, so that each stays one line. */
#define RGBA 0, 1, 2, 3
#define BGRA 2, 1, 0, 3
#define ROT1 1, 2, 3, 0
#define REV  3, 2, 1, 0
#define YVU  0, 2, 1, 0
#define YUV  0, 1, 2, 0

/* Indexed by the PIXEL_FORMAT field (T_R8 = 0 ... T_Y16___V16U16_N444 = 35). */
static const struct pixel_format formats[] = {
    [0] = {1, 1, 0, 1, COMP8, false, {RGBA}},                   /* R8 */
    [1] = {1, 2, 0, 1, COMP16, false, {RGBA}},                  /* R10 */
    [2] = {1, 2, 0, 1, COMP16, false, {RGBA}},                  /* R12 */
    [3] = {1, 2, 0, 1, COMP16, false, {RGBA}},                  /* R16 */
    [4] = {1, 2, 0, 1, COMP16, false, {RGBA}},                  /* R16_I */
    [5] = {1, 2, 0, 1, COMP16, true, {RGBA}},                   /* R16_F */
    [6] = {1, 8, 0, 4, COMP16, false, {RGBA}},                  /* A16B16G16R16 */
    [7] = {1, 8, 0, 4, COMP16, false, {RGBA}},                  /* X16B16G16R16 */
    [8] = {1, 8, 0, 4, COMP16, true, {RGBA}},                   /* A16B16G16R16_F */
    [9] = {1, 8, 0, 4, COMP16, false, {BGRA}},                  /* A16Y16U16V16 */
    [10] = {1, 8, 0, 4, COMP16, false, {ROT1}},                 /* V16U16Y16A16 */
    [11] = {1, 8, 0, 4, COMP16, true, {BGRA}},                  /* A16Y16U16V16_F */
    [12] = {1, 4, 0, 4, COMP8, false, {RGBA}},                  /* A8B8G8R8 */
    [13] = {1, 4, 0, 4, COMP8, false, {BGRA}},                  /* A8R8G8B8 */
    [14] = {1, 4, 0, 4, COMP8, false, {ROT1}},                  /* B8G8R8A8 */
    [15] = {1, 4, 0, 4, COMP8, false, {REV}},                   /* R8G8B8A8 */
    [16] = {1, 4, 0, 4, COMP8, false, {RGBA}},                  /* X8B8G8R8 */
    [17] = {1, 4, 0, 4, COMP8, false, {BGRA}},                  /* X8R8G8B8 */
    [18] = {1, 4, 0, 4, COMP8, false, {ROT1}},                  /* B8G8R8X8 */
    [19] = {1, 4, 0, 4, COMP8, false, {REV}},                   /* R8G8B8X8 */
    [20] = {1, 4, 0, 4, COMP_PACKED10, false, {0, 10, 20, 30}}, /* A2B10G10R10 */
    [21] = {1, 4, 0, 4, COMP_PACKED10, false, {20, 10, 0, 30}}, /* A2R10G10B10 */
    [22] = {1, 4, 0, 4, COMP_PACKED10, false, {2, 12, 22, 0}},  /* B10G10R10A2 */
    [23] = {1, 4, 0, 4, COMP_PACKED10, false, {22, 12, 2, 0}},  /* R10G10B10A2 */
    [24] = {1, 4, 0, 4, COMP_PACKED10, false, {20, 10, 0, 30}}, /* A2Y10U10V10 */
    [25] = {1, 4, 0, 4, COMP_PACKED10, false, {2, 12, 22, 0}},  /* V10U10Y10A2 */
    [26] = {1, 4, 0, 4, COMP8, false, {BGRA}},                  /* A8Y8U8V8 */
    [27] = {1, 4, 0, 4, COMP8, false, {ROT1}},                  /* V8U8Y8A8 */
    [28] = {2, 1, 2, 3, COMP8, false, {YVU}},                   /* Y8___U8V8_N444 */
    [29] = {2, 1, 2, 3, COMP8, false, {YUV}},                   /* Y8___V8U8_N444 */
    [30] = {2, 2, 4, 3, COMP16, false, {YVU}},                  /* Y10___U10V10_N444 */
    [31] = {2, 2, 4, 3, COMP16, false, {YUV}},                  /* Y10___V10U10_N444 */
    [32] = {2, 2, 4, 3, COMP16, false, {YVU}},                  /* Y12___U12V12_N444 */
    [33] = {2, 2, 4, 3, COMP16, false, {YUV}},                  /* Y12___V12U12_N444 */
    [34] = {2, 2, 4, 3, COMP16, false, {YVU}},                  /* Y16___U16V16_N444 */
    [35] = {2, 2, 4, 3, COMP16, false, {YUV}},                  /* Y16___V16U16_N444 */
};

static const struct pixel_format *format_of(const struct conv_params *p)
{
    if (p->pixel_format >= sizeof formats / sizeof formats[0])
        return NULL;
    return &formats[p->pixel_format];
}

/* Component i of a pixel (bytes of plane 0 followed by plane 1) as the
 * convertor's 17-bit input, or the raw bit pattern when not converting. */
static int32_t component(const struct pixel_format *f, const uint8_t *px, unsigned i,
                         bool sign_override, bool *is_fp16)
{
    *is_fp16 = f->fp16;
    bool sgn = sign_override; /* the override alone decides, even for R16_I */
    if (f->kind == COMP8) {
        uint8_t v = px[f->src[i]];
        return sgn ? (int8_t)v : v;
    }
    uint16_t v;
    if (f->kind == COMP16) {
        v = (uint16_t)(px[2 * f->src[i]] | px[2 * f->src[i] + 1] << 8);
    } else { /* 10-bit components (and a 2-bit alpha) moved to the top of 16 bits */
        uint32_t w = (uint32_t)(px[0] | px[1] << 8 | px[2] << 16 | (uint32_t)px[3] << 24);
        unsigned pos = f->src[i];
        v = i == 3 ? (uint16_t)(((w >> pos) & 3u) << 14) : (uint16_t)(((w >> pos) & 0x3ffu) << 6);
    }
    if (f->fp16)
        return v;
    return sgn ? (int16_t)v : v;
}

/* One component into the CBUF element (1 or 2 bytes at out). */
static void convert_component(const struct conv_params *p, int32_t v, bool is_fp16, unsigned i,
                              uint8_t *out, uint64_t *sat)
{
    uint16_t r = (uint16_t)v;
    if (p->cvt_en && !is_fp16) {
        int16_t offset = p->mean_en ? (int16_t)p->mean[i & 3] : p->cvt_offset;
        bool s;
        r = conv_cvt(v, offset, p->cvt_scale, p->cvt_truncate, (enum conv_prec)p->prec, &s);
        *sat += s;
    }
    feature_store(out, p->bpe, r);
}

static bool read_line(struct dla_exec *x, const struct conv_params *p, const struct pixel_format *f,
                      unsigned atom, uint32_t y, uint8_t *pix, uint8_t *tmp)
{
    uint64_t a0 =
        p->dat_addr + (uint64_t)y * p->line_stride + (uint64_t)p->pixel_x_offset * f->bpp0;
    size_t n0 = (size_t)p->in_w * f->bpp0;
    if (!exec_read(x, DLA_C_CDMA_DAT, p->dat_space, a0, tmp, n0))
        return false;
    unsigned bpp = f->bpp0 + f->bpp1;
    for (uint32_t i = 0; i < p->in_w; i++)
        memcpy(pix + (size_t)i * bpp, tmp + (size_t)i * f->bpp0, f->bpp0);
    if (f->planes == 1)
        return true;
    /* the second plane's base already skips the atoms the x offset covers */
    unsigned es = f->kind == COMP8 ? 1 : 2;
    uint32_t skip = (uint32_t)p->pixel_x_offset * 2 * es >= atom ? atom / (2 * es) : 0;
    uint64_t a1 = p->dat_addr_uv + (uint64_t)y * p->uv_line_stride +
                  (uint64_t)(p->pixel_x_offset - skip) * f->bpp1;
    size_t n1 = (size_t)p->in_w * f->bpp1;
    if (!exec_read(x, DLA_C_CDMA_DAT, p->dat_space, a1, tmp, n1))
        return false;
    for (uint32_t i = 0; i < p->in_w; i++)
        memcpy(pix + (size_t)i * bpp + f->bpp0, tmp + (size_t)i * f->bpp1, f->bpp1);
    return true;
}

int conv_image_load(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                    const struct conv_cbuf_plan *plan, int32_t layer, uint64_t *sat)
{
    const struct pixel_format *f = format_of(p);
    if (!f) {
        dla_rule(d, DLA_U_CDMA, "cdma.pixel_format", "reserved PIXEL_FORMAT %u", p->pixel_format);
        return -1;
    }
    if (p->y_extension > 2 ||
        (p->y_extension && (uint64_t)p->k_c << p->y_extension > p->atomic_c)) {
        dla_rule(d, DLA_U_CSC, "csc.post_extension",
                 "POST_Y_EXTENSION %u needs %u channels x %u lines within one atomic "
                 "operation of %u",
                 p->y_extension, p->k_c, 1u << (p->y_extension & 3), p->atomic_c);
        return -1;
    }
    if (p->batches > 1) { /* the guide's feature crossing: no multi-batch image input */
        dla_rule(d, DLA_U_CDMA, "cdma.image_batch", "image input cannot have %u batches",
                 p->batches);
        return -1;
    }
    if (p->pixel_y_offset)
        dla_rule(d, DLA_U_CDMA, "cdma.pixel_y_offset",
                 "PIXEL_Y_OFFSET must be 0 for pitch-linear input (is %u)", p->pixel_y_offset);
    const unsigned eb = d->cfg->cbuf_entry_bytes, bpp = f->bpp0 + f->bpp1;
    const uint32_t padded = p->pad_l + p->in_w + p->pad_r;
    const size_t line_bytes = (size_t)padded * f->elems * p->bpe;
    if ((line_bytes + eb - 1) / eb > p->entry_per_slice)
        dla_rule(d, DLA_U_CDMA, "cdma.entry_per_slice",
                 "a padded line needs %zu entries but ENTRY_PER_SLICE is %u",
                 (line_bytes + eb - 1) / eb, p->entry_per_slice);
    uint8_t *pix = malloc((size_t)p->in_w * bpp),
            *tmp = malloc((size_t)p->in_w * (bpp > 8 ? bpp : 8));
    uint8_t *line = calloc((size_t)p->entry_per_slice, eb);
    const struct cbuf_region dr = conv_data_region(p);
    uint64_t nan = 0, inf = 0;
    bool ok = pix && tmp && line;
    for (uint32_t y = 0; ok && y < p->in_h; y++) {
        ok = read_line(x, p, f, d->cfg->mem_atom, y, pix, tmp);
        if (f->fp16)
            cdma_fp16_input(p, pix, (size_t)p->in_w * bpp, &nan, &inf);
        memset(line, 0, (size_t)p->entry_per_slice * eb);
        size_t n = 0;
        for (uint32_t px = 0; px < padded && n + p->bpe <= (size_t)p->entry_per_slice * eb; px++) {
            bool inside = px >= p->pad_l && px < p->pad_l + p->in_w;
            for (unsigned i = 0; i < f->elems; i++, n += p->bpe) {
                if (!inside) {
                    feature_store(line + n, p->bpe, p->cdma_pad_value);
                    continue;
                }
                bool is_fp16;
                int32_t v =
                    component(f, pix + (size_t)(px - p->pad_l) * bpp, i, p->pixel_signed, &is_fp16);
                convert_component(p, v, is_fp16, i, line + n, sat);
            }
        }
        uint64_t off = ((uint64_t)plan->data_start + (uint64_t)y * p->entry_per_slice) * eb;
        cbuf_write(d->cbuf, &dr, off, line, (size_t)p->entry_per_slice * eb, layer, CBUF_DATA);
    }
    dla_reg_hw_set(d, DLA_U_CDMA, p->group, "D_NAN_INPUT_DATA_NUM", (uint32_t)nan);
    dla_reg_hw_set(d, DLA_U_CDMA, p->group, "D_INF_INPUT_DATA_NUM", (uint32_t)inf);
    free(pix);
    free(tmp);
    free(line);
    if (!pix || !tmp || !line)
        dla_diag(d, DLA_DIAG_MEM, DLA_SEV_ERROR, DLA_U_CDMA, 0, NULL, "out of host memory");
    return ok ? 0 : -1;
}

/* ---------------------------------------------------------------- CSC side */

bool csc_image_rows(struct dla *d, const struct conv_params *p, const struct conv_cbuf_plan *plan,
                    struct conv_operands *ops)
{
    const unsigned eb = d->cfg->cbuf_entry_bytes;
    const size_t line_bytes = (size_t)p->entry_per_slice * eb;
    const size_t line_elems = line_bytes / p->bpe;
    const struct cbuf_region dr = conv_data_region(p);
    uint8_t *lines = malloc(line_bytes * p->ext_h);
    if (!lines)
        return false;
    for (uint32_t y = 0; y < p->ext_h; y++)
        cbuf_read(d->cbuf, &dr,
                  ((uint64_t)plan->data_start + (uint64_t)y * p->entry_per_slice) * eb,
                  lines + y * line_bytes, line_bytes);
    int16_t pad = csc_pad_operand(p);
    /* with post-extension an atomic operation covers `lines` kernel rows of
     * k_c elements each: lane L is row t * lines + L / k_c, element L % k_c */
    const uint32_t kc = ops->c, taps = ops->taps, lines_per_op = 1u << p->y_extension;
    const uint32_t per_row = p->y_extension ? p->k_c : kc;
    for (uint32_t oy = 0; oy < p->out_h; oy++)
        for (uint32_t ox = 0; ox < p->out_w; ox++) {
            int16_t *row = ops->data + ((size_t)oy * p->out_w + ox) * ops->depth;
            size_t e0 = (size_t)ox * p->stride_x * p->ext_c;
            for (uint32_t c0 = 0; c0 < kc; c0 += p->atomic_c) {
                uint32_t nj = kc - c0 < p->atomic_c ? kc - c0 : p->atomic_c;
                for (uint32_t t = 0; t < taps; t++) {
                    int16_t *dst = row + (size_t)taps * c0 + (size_t)t * nj;
                    for (uint32_t j = 0; j < nj; j++) {
                        uint32_t lane = c0 + j, r = t * lines_per_op + lane / per_row;
                        size_t e = e0 + lane % per_row;
                        int64_t y = (int64_t)oy * p->stride_y + r - (int64_t)p->csc_pad_t;
                        if (r >= p->k_h)
                            dst[j] = 0; /* rows past the kernel in the last operation */
                        else if (y < 0 || y >= p->ext_h)
                            dst[j] = pad;
                        else
                            dst[j] = e < line_elems
                                         ? conv_element(lines + (size_t)y * line_bytes, e, p)
                                         : 0;
                    }
                }
            }
        }
    free(lines);
    return true;
}

/* Weights of kernel group g with post-extension: the stream holds, per
 * operation of `lines` kernel rows, each kernel's rows back to back
 * ([operation][kernel][row][channel]; the last operation has the remaining
 * rows only). */
bool csc_image_weight_group(struct dla *d, const struct conv_params *p,
                            const struct conv_wt_stream *ws, uint32_t g, struct conv_operands *ops)
{
    const uint32_t lines = 1u << p->y_extension, kc = p->k_c;
    uint32_t k0 = g * p->kernel_group;
    uint32_t n = p->kernels - k0 < p->kernel_group ? p->kernels - k0 : p->kernel_group;
    size_t need = (size_t)n * p->k_h * kc * p->bpe;
    uint8_t *b = calloc(need ? need : 1, 1);
    if (!b)
        return false;
    const struct cbuf_region wr = conv_weight_region(p);
    cbuf_read(d->cbuf, &wr, ws->group_off, b, ws->bytes[g] < need ? (size_t)ws->bytes[g] : need);
    size_t i = 0;
    for (uint32_t t = 0; t < ops->taps; t++) {
        uint32_t rows = p->k_h - t * lines < lines ? p->k_h - t * lines : lines;
        for (uint32_t k = 0; k < n; k++)
            for (uint32_t u = 0; u < rows; u++)
                for (uint32_t c = 0; c < kc; c++, i++)
                    ops->weight[(size_t)(k0 - ops->k_first + k) * ops->depth + (size_t)t * ops->c +
                                u * kc + c] = conv_element(b, i, p);
    }
    free(b);
    return true;
}
