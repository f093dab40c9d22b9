/* Shared by the convolution test suites: describe a small convolution
 * layer, lay its input and weights out in memory the way NVIDIA's tools do
 * (feature surfaces of one memory atom; weights [kernel group][channel
 * block][r][s][kernel][channel]), program it through the CSB, run the
 * convolution core on it, and compute the expected CACC output with a plain
 * reference convolution. */
#ifndef CONV_HARNESS_H
#define CONV_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conv/conv.h"
#include "num/fp16.h"
#include "one_stage.h"
#include "core/regdb.h"

#define FEAT_ADDR 0x100000ull
#define WT_ADDR   0x400000ull
#define WMB_ADDR  0x700000ull
#define WGS_ADDR  0x780000ull

struct spec {
    const char *config;
    unsigned prec; /* 0 int8, 1 int16, 2 fp16 */
    uint32_t w, h, c, kw, kh, k;
    uint32_t sx, sy, dx, dy;
    uint32_t pl, pr, pt, pb;
    uint32_t batches;
    uint16_t pad; /* CSC pad value (CDMA's is programmed alike) */
    unsigned clip;
    bool cvt;
    int16_t cvt_offset, cvt_scale;
    unsigned cvt_truncate;
    bool compressed;
    unsigned data_banks, weight_banks;
    bool skip_data_rls, skip_weight_rls, data_reuse, weight_reuse;
    uint32_t rls_slices;
    uint32_t seed;
    bool fp16_wide; /* fp16 values of every exponent, infinities and rare NaNs */
};

/* Values of the layer, as the reference sees them. */
struct layer_data {
    uint32_t n_in, n_wt;
    int32_t *in;        /* [b][c][y][x] raw element values (fp16: bit patterns) */
    int32_t *wt;        /* [k][r][s][c] */
    int32_t zero_every; /* weights: every n-th is 0 (compression tests), 0 = none */
};

/* One batch of a w x h x c input through k 3x3 kernels, unit stride and
 * dilation, one element of padding on every side (the output keeps the
 * input's size); the caller sets the banks and whatever its case varies. */
static inline struct spec spec_3x3_same(const char *config, unsigned prec, uint32_t w, uint32_t h,
                                        uint32_t c, uint32_t k)
{
    struct spec s = {.config = config, .prec = prec, .w = w, .h = h, .c = c, .k = k, .batches = 1};
    s.kw = s.kh = 3;
    s.sx = s.sy = s.dx = s.dy = 1;
    s.pl = s.pr = s.pt = s.pb = 1;
    return s;
}

static inline uint32_t out_size(uint32_t in, uint32_t pa, uint32_t pb, uint32_t k, uint32_t dil,
                                uint32_t stride)
{
    uint32_t eff = (k - 1) * dil + 1;
    return (pa + in + pb - eff) / stride + 1;
}

static inline uint32_t spec_ow(const struct spec *s)
{
    return out_size(s->w, s->pl, s->pr, s->kw, s->dx, s->sx);
}

static inline uint32_t spec_oh(const struct spec *s)
{
    return out_size(s->h, s->pt, s->pb, s->kh, s->dy, s->sy);
}

static inline uint32_t lcg(uint32_t *st)
{
    *st = *st * 1664525u + 1013904223u;
    return *st >> 8;
}

/* ---------------------------------------------------------------- registers */

static inline void set_field(struct dla *d, const char *reg, const char *field, uint32_t v)
{
    struct regdb_ref ref;
    if (!regdb_resolve(dla_regmap(d), reg, &ref))
        abort();
    uint32_t a = regdb_addr(ref.unit, ref.reg);
    uint32_t old = dla_csb_read(d, a);
    if (!field) {
        dla_csb_write(d, a, v);
        return;
    }
    const struct regdb_field *f = regdb_field_named(ref.reg, field);
    if (!f)
        abort();
    dla_csb_write(d, a, regdb_field_set(f, old, v));
}

static inline uint32_t get_reg(struct dla *d, const char *reg)
{
    struct regdb_ref ref;
    if (!regdb_resolve(dla_regmap(d), reg, &ref))
        abort();
    return dla_csb_read(d, regdb_addr(ref.unit, ref.reg));
}

/* ---------------------------------------------------------------- geometry */

static inline unsigned spec_bpe(const struct spec *s)
{
    return s->prec == 0 ? 1 : 2;
}

static inline unsigned kernel_group(const struct dla_config *cfg, const struct spec *s)
{
    return s->prec == 0 ? cfg->atomic_k : cfg->atomic_k / 2;
}

/* The programming guide's entries per slice for direct convolution. */
static inline uint32_t entries_per_slice(const struct dla_config *cfg, const struct spec *s)
{
    unsigned atom = cfg->mem_atom, per_entry = cfg->cbuf_entry_bytes / atom;
    unsigned atoms = (s->c * spec_bpe(s) + atom - 1) / atom;
    uint32_t n = atoms / per_entry * s->w;
    unsigned tail = atoms % per_entry;
    if (tail) {
        unsigned slot = 1;
        while (slot < tail)
            slot <<= 1;
        unsigned share = per_entry / slot;
        n += (s->w + share - 1) / share;
    }
    return n;
}

/* ---------------------------------------------------------------- data */

static inline int32_t random_value(const struct spec *s, uint32_t *st, bool weight)
{
    uint32_t r = lcg(st);
    if (s->prec == 0)
        return (int32_t)(int8_t)(r & 0xff);
    if (s->prec == 1)
        return (int32_t)(int16_t)(r & 0xffff);
    if (s->fp16_wide) { /* every exponent, zeros, subnormals, infinities, a NaN in 4000 */
        uint32_t sign = (r & 1u) << 15, frac = (r >> 1) & 0x3ffu, pick = (r >> 11) % 4000;
        if (pick == 0)
            return (int32_t)(sign | 0x7c00u | (frac ? frac : 1));
        if (pick < 40)
            return (int32_t)(sign | 0x7c00u);
        if (pick < 200)
            return (int32_t)sign;
        if (pick < 400)
            return (int32_t)(sign | (frac ? frac : 1));
        return (int32_t)(sign | (1 + (r >> 21) % 30) << 10 | frac);
    }
    /* fp16: moderate finite values, some subnormals and signed zeros */
    float v = (float)((int32_t)(r % 2001) - 1000) / (weight ? 512.0f : 64.0f);
    if (r % 97 == 0)
        return (int32_t)(0x0001u + (r >> 20) % 0x3ff) | (int32_t)((r & 0x80000) ? 0x8000 : 0);
    return fp16_from_float(v);
}

/* Every aligned mantissa an fp16 operand can have, into out (5,120 of
 * them): normals (11 bits shifted by the exponent's low two bits) and
 * subnormals (10 bits shifted by 1); returns the count. */
static inline uint32_t fp16_aligned_mantissas(uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t sh = 0; sh < 4; sh++)
        for (uint32_t m = 0x400; m < 0x800; m++)
            out[n++] = m << sh;
    for (uint32_t m = 1; m < 0x400; m++)
        out[n++] = m << 1;
    return n;
}

static inline void make_layer_data(const struct spec *s, struct layer_data *ld)
{
    uint32_t st = s->seed ? s->seed : 12345;
    ld->n_in = s->batches * s->c * s->h * s->w;
    ld->n_wt = s->k * s->kh * s->kw * s->c;
    ld->in = malloc(sizeof *ld->in * ld->n_in);
    ld->wt = malloc(sizeof *ld->wt * ld->n_wt);
    for (uint32_t i = 0; i < ld->n_in; i++)
        ld->in[i] = random_value(s, &st, false);
    for (uint32_t i = 0; i < ld->n_wt; i++) {
        ld->wt[i] = random_value(s, &st, true);
        if (ld->zero_every && i % (uint32_t)ld->zero_every == 0)
            ld->wt[i] = 0;
    }
}

static inline void free_layer_data(struct layer_data *ld)
{
    free(ld->in);
    free(ld->wt);
}

static inline void put_elem(uint8_t *p, int32_t v, unsigned bpe)
{
    p[0] = (uint8_t)v;
    if (bpe == 2)
        p[1] = (uint8_t)((uint32_t)v >> 8);
}

struct feature_geom {
    uint64_t line_stride, surf_stride, batch_stride, bytes;
};

static inline struct feature_geom feature_geom(const struct dla_config *cfg, const struct spec *s)
{
    struct feature_geom g;
    unsigned atom = cfg->mem_atom;
    unsigned surfaces = (s->c * spec_bpe(s) + atom - 1) / atom;
    g.line_stride = (uint64_t)s->w * atom;
    g.surf_stride = g.line_stride * s->h;
    g.batch_stride = g.surf_stride * surfaces;
    g.bytes = g.batch_stride * s->batches;
    return g;
}

static inline void store_feature(struct dla *d, const struct spec *s, const struct layer_data *ld)
{
    const struct dla_config *cfg = dla_cfg(d);
    struct feature_geom g = feature_geom(cfg, s);
    uint8_t *buf = calloc(1, g.bytes);
    unsigned bpe = spec_bpe(s);
    for (uint32_t b = 0; b < s->batches; b++)
        for (uint32_t c = 0; c < s->c; c++)
            for (uint32_t y = 0; y < s->h; y++)
                for (uint32_t x = 0; x < s->w; x++) {
                    uint64_t off =
                        b * g.batch_stride +
                        feature_offset(c, y, x, g.line_stride, g.surf_stride, cfg->mem_atom, bpe);
                    put_elem(buf + off, ld->in[((b * s->c + c) * s->h + y) * s->w + x], bpe);
                }
    dla_mem_write(d, DLA_DRAM, FEAT_ADDR, buf, g.bytes);
    free(buf);
}

/* Weight stream in the hardware's order; returns its size. */
static inline uint64_t weight_stream(const struct dla_config *cfg, const struct spec *s,
                                     const struct layer_data *ld, uint8_t *out)
{
    unsigned bpe = spec_bpe(s), kg = kernel_group(cfg, s), cb = cfg->atomic_c;
    uint64_t n = 0;
    for (uint32_t k0 = 0; k0 < s->k; k0 += kg)
        for (uint32_t c0 = 0; c0 < s->c; c0 += cb)
            for (uint32_t r = 0; r < s->kh; r++)
                for (uint32_t t = 0; t < s->kw; t++)
                    for (uint32_t k = k0; k < k0 + kg && k < s->k; k++)
                        for (uint32_t c = c0; c < c0 + cb && c < s->c; c++) {
                            if (out)
                                put_elem(out + n, ld->wt[((k * s->kh + r) * s->kw + t) * s->c + c],
                                         bpe);
                            n += bpe;
                        }
    return n;
}

/* Compression: one WMB bit per weight (LSB first), the non-zero weights
 * packed, and per kernel group the packed byte count in WGS. */
static inline void store_compressed(struct dla *d, const struct spec *s, const uint8_t *stream,
                                    uint64_t n, uint64_t *wmb_bytes)
{
    const struct dla_config *cfg = dla_cfg(d);
    unsigned bpe = spec_bpe(s), kg = kernel_group(cfg, s);
    uint64_t elems = n / bpe;
    uint8_t *mask = calloc(1, elems / 8 + 128);
    uint8_t *packed = calloc(1, n + 128);
    uint32_t groups = (s->k + kg - 1) / kg;
    uint32_t *wgs = calloc(groups + 8, 4);
    uint64_t group_elems = (uint64_t)kg * s->kh * s->kw * s->c, np = 0;
    for (uint64_t i = 0; i < elems; i++) {
        bool nz = stream[i * bpe] || (bpe == 2 && stream[i * bpe + 1]);
        if (!nz)
            continue;
        mask[i / 8] |= (uint8_t)(1u << (i % 8));
        memcpy(packed + np * bpe, stream + i * bpe, bpe);
        np++;
        wgs[i / group_elems] += bpe;
    }
    dla_mem_write(d, DLA_DRAM, WT_ADDR, packed, np * bpe);
    *wmb_bytes = (elems + 7) / 8;
    *wmb_bytes = (*wmb_bytes + 127) & ~127ull;
    dla_mem_write(d, DLA_DRAM, WMB_ADDR, mask, *wmb_bytes);
    uint8_t wb[4];
    for (uint32_t g = 0; g < groups; g++) {
        put_elem(wb, (int32_t)(wgs[g] & 0xffff), 2);
        put_elem(wb + 2, (int32_t)(wgs[g] >> 16), 2);
        dla_mem_write(d, DLA_DRAM, WGS_ADDR + 4ull * g, wb, 4);
    }
    free(mask);
    free(packed);
    free(wgs);
}

static inline void store_weights(struct dla *d, const struct spec *s, const struct layer_data *ld,
                                 uint64_t *bytes, uint64_t *wmb_bytes)
{
    const struct dla_config *cfg = dla_cfg(d);
    uint64_t n = weight_stream(cfg, s, ld, NULL);
    uint8_t *buf = calloc(1, n + 128);
    weight_stream(cfg, s, ld, buf);
    *wmb_bytes = 0;
    if (s->compressed)
        store_compressed(d, s, buf, n, wmb_bytes);
    else
        dla_mem_write(d, DLA_DRAM, WT_ADDR, buf, (n + 127) & ~127ull);
    free(buf);
    *bytes = n;
}

/* ---------------------------------------------------------------- programming */

static inline void program_layer(struct dla *d, const struct spec *s, uint64_t wt_bytes,
                                 uint64_t wmb_bytes)
{
    const struct dla_config *cfg = dla_cfg(d);
    struct feature_geom g = feature_geom(cfg, s);
    uint32_t ow = spec_ow(s), oh = spec_oh(s);
    static const char *const conv_units[] = {"CDMA", "CSC", "CMAC_A", "CMAC_B", "CACC"};
    char name[64];
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "%s.S_POINTER", conv_units[i]);
        set_field(d, name, NULL, 0);
    }
    /* CDMA */
    set_field(d, "CDMA.D_MISC_CFG", "CONV_MODE", 0);
    set_field(d, "CDMA.D_MISC_CFG", "IN_PRECISION", s->prec);
    set_field(d, "CDMA.D_MISC_CFG", "PROC_PRECISION", s->prec);
    set_field(d, "CDMA.D_MISC_CFG", "DATA_REUSE", s->data_reuse);
    set_field(d, "CDMA.D_MISC_CFG", "WEIGHT_REUSE", s->weight_reuse);
    set_field(d, "CDMA.D_MISC_CFG", "SKIP_DATA_RLS", s->skip_data_rls);
    set_field(d, "CDMA.D_MISC_CFG", "SKIP_WEIGHT_RLS", s->skip_weight_rls);
    set_field(d, "CDMA.D_DATAIN_FORMAT", "DATAIN_FORMAT", 0);
    set_field(d, "CDMA.D_DATAIN_SIZE_0", NULL, (s->w - 1) | (s->h - 1) << 16);
    set_field(d, "CDMA.D_DATAIN_SIZE_1", NULL, s->c - 1);
    set_field(d, "CDMA.D_DATAIN_SIZE_EXT_0", NULL, (s->w - 1) | (s->h - 1) << 16);
    set_field(d, "CDMA.D_DAIN_RAM_TYPE", NULL, 1);
    set_field(d, "CDMA.D_DAIN_ADDR_HIGH_0", NULL, 0);
    set_field(d, "CDMA.D_DAIN_ADDR_LOW_0", NULL, (uint32_t)FEAT_ADDR);
    set_field(d, "CDMA.D_LINE_STRIDE", NULL, (uint32_t)g.line_stride);
    set_field(d, "CDMA.D_SURF_STRIDE", NULL, (uint32_t)g.surf_stride);
    set_field(d, "CDMA.D_BATCH_NUMBER", NULL, s->batches - 1);
    set_field(d, "CDMA.D_BATCH_STRIDE", NULL, (uint32_t)g.batch_stride);
    set_field(d, "CDMA.D_ENTRY_PER_SLICE", NULL, entries_per_slice(cfg, s) - 1);
    set_field(d, "CDMA.D_WEIGHT_FORMAT", NULL, s->compressed);
    set_field(d, "CDMA.D_WEIGHT_SIZE_0", NULL, s->kw * s->kh * s->c * spec_bpe(s) - 1);
    set_field(d, "CDMA.D_WEIGHT_SIZE_1", NULL, s->k - 1);
    set_field(d, "CDMA.D_WEIGHT_RAM_TYPE", NULL, 1);
    set_field(d, "CDMA.D_WEIGHT_ADDR_HIGH", NULL, 0);
    set_field(d, "CDMA.D_WEIGHT_ADDR_LOW", NULL, (uint32_t)WT_ADDR);
    set_field(d, "CDMA.D_WEIGHT_BYTES", NULL, (uint32_t)((wt_bytes + 127) & ~127ull));
    set_field(d, "CDMA.D_WGS_ADDR_LOW", NULL, (uint32_t)WGS_ADDR);
    set_field(d, "CDMA.D_WMB_ADDR_LOW", NULL, (uint32_t)WMB_ADDR);
    set_field(d, "CDMA.D_WMB_BYTES", NULL, (uint32_t)wmb_bytes);
    set_field(d, "CDMA.D_CVT_CFG", "CVT_EN", s->cvt);
    set_field(d, "CDMA.D_CVT_CFG", "CVT_TRUNCATE", s->cvt_truncate);
    set_field(d, "CDMA.D_CVT_OFFSET", NULL, (uint16_t)s->cvt_offset);
    set_field(d, "CDMA.D_CVT_SCALE", NULL, (uint16_t)s->cvt_scale);
    set_field(d, "CDMA.D_CONV_STRIDE", NULL, (s->sx - 1) | (s->sy - 1) << 16);
    set_field(d, "CDMA.D_ZERO_PADDING", NULL, s->pl | s->pr << 8 | s->pt << 16 | s->pb << 24);
    set_field(d, "CDMA.D_ZERO_PADDING_VALUE", NULL, s->pad);
    set_field(d, "CDMA.D_BANK", NULL, (s->data_banks - 1) | (s->weight_banks - 1) << 16);
    /* CSC */
    set_field(d, "CSC.D_MISC_CFG", NULL, get_reg(d, "CDMA.D_MISC_CFG"));
    set_field(d, "CSC.D_DATAIN_FORMAT", NULL, 0);
    set_field(d, "CSC.D_DATAIN_SIZE_EXT_0", NULL, (s->w - 1) | (s->h - 1) << 16);
    set_field(d, "CSC.D_DATAIN_SIZE_EXT_1", NULL, s->c - 1);
    set_field(d, "CSC.D_BATCH_NUMBER", NULL, s->batches - 1);
    set_field(d, "CSC.D_ENTRY_PER_SLICE", NULL, entries_per_slice(cfg, s) - 1);
    set_field(d, "CSC.D_WEIGHT_FORMAT", NULL, s->compressed);
    set_field(d, "CSC.D_WEIGHT_SIZE_EXT_0", NULL, (s->kw - 1) | (s->kh - 1) << 16);
    set_field(d, "CSC.D_WEIGHT_SIZE_EXT_1", NULL, (s->c - 1) | (s->k - 1) << 16);
    set_field(d, "CSC.D_WEIGHT_BYTES", NULL, (uint32_t)((wt_bytes + 127) & ~127ull));
    set_field(d, "CSC.D_WMB_BYTES", NULL, (uint32_t)wmb_bytes);
    set_field(d, "CSC.D_DATAOUT_SIZE_0", NULL, (ow - 1) | (oh - 1) << 16);
    set_field(d, "CSC.D_DATAOUT_SIZE_1", NULL, s->k - 1);
    set_field(d, "CSC.D_ATOMICS", NULL, ow * oh - 1);
    set_field(d, "CSC.D_RELEASE", NULL, (s->rls_slices ? s->rls_slices : s->h) - 1);
    set_field(d, "CSC.D_CONV_STRIDE_EXT", NULL, (s->sx - 1) | (s->sy - 1) << 16);
    set_field(d, "CSC.D_DILATION_EXT", NULL, (s->dx - 1) | (s->dy - 1) << 16);
    set_field(d, "CSC.D_ZERO_PADDING", NULL, s->pl | s->pt << 16);
    set_field(d, "CSC.D_ZERO_PADDING_VALUE", NULL, s->pad);
    set_field(d, "CSC.D_BANK", NULL, (s->data_banks - 1) | (s->weight_banks - 1) << 16);
    /* CMAC, CACC */
    set_field(d, "CMAC_A.D_MISC_CFG", "PROC_PRECISION", s->prec);
    set_field(d, "CMAC_B.D_MISC_CFG", "PROC_PRECISION", s->prec);
    set_field(d, "CACC.D_MISC_CFG", "PROC_PRECISION", s->prec);
    set_field(d, "CACC.D_DATAOUT_SIZE_0", NULL, (ow - 1) | (oh - 1) << 16);
    set_field(d, "CACC.D_DATAOUT_SIZE_1", NULL, s->k - 1);
    set_field(d, "CACC.D_BATCH_NUMBER", NULL, s->batches - 1);
    set_field(d, "CACC.D_CLIP_CFG", NULL, s->clip);
}

/* Bytes each DMA client moved in the last run_conv(). */
static uint64_t conv_last_bytes[DLA_C_COUNT];

/* Run the convolution core of group 0 directly (as the pipeline launcher
 * would) and return its CACC output cube. */
static inline int run_conv(struct dla *d, struct dla_cube *out)
{
    struct one_stage f;
    one_stage_open(&f, d, DLA_P_CONV, layer_ensure(d, DLA_P_CONV, 0), 0);
    memset(out, 0, sizeof *out);
    int rc = conv_execute(d, &f.x, 0, out);
    memcpy(conv_last_bytes, f.pipe.stage[0].client_bytes, sizeof conv_last_bytes);
    one_stage_close(&f);
    return rc;
}

/* Set up memory and registers for a spec on an existing model. */
static inline void prepare(struct dla *d, const struct spec *s, struct layer_data *ld)
{
    make_layer_data(s, ld);
    store_feature(d, s, ld);
    uint64_t wt_bytes, wmb_bytes;
    store_weights(d, s, ld, &wt_bytes, &wmb_bytes);
    program_layer(d, s, wt_bytes, wmb_bytes);
}

/* ---------------------------------------------------------------- reference */

static inline int64_t ref_round_shift(int64_t v, unsigned clip)
{
    if (!clip)
        return v;
    int64_t m = v < 0 ? -v : v;
    m = (m + (1ll << (clip - 1))) >> clip;
    return v < 0 ? -m : m;
}

static inline int32_t ref_cvt_int(int32_t x, const struct spec *s)
{
    int64_t v = ((int64_t)x - s->cvt_offset) * s->cvt_scale;
    v = ref_round_shift(v, s->cvt_truncate);
    int64_t lo = s->prec == 0 ? -128 : -32768, hi = s->prec == 0 ? 127 : 32767;
    return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

static inline int32_t ref_pad(const struct spec *s)
{
    return s->prec == 0 ? (int8_t)(s->pad & 0xff) : (int16_t)s->pad;
}

/* The plain convolution, integer modes: returns saturation count. */
static inline uint64_t ref_conv_int(const struct spec *s, const struct layer_data *ld, int32_t *out)
{
    uint32_t ow = spec_ow(s), oh = spec_oh(s);
    uint64_t sat = 0;
    for (uint32_t b = 0; b < s->batches; b++)
        for (uint32_t k = 0; k < s->k; k++)
            for (uint32_t oy = 0; oy < oh; oy++)
                for (uint32_t ox = 0; ox < ow; ox++) {
                    int64_t acc = 0;
                    for (uint32_t r = 0; r < s->kh; r++)
                        for (uint32_t t = 0; t < s->kw; t++)
                            for (uint32_t c = 0; c < s->c; c++) {
                                int64_t iy = (int64_t)oy * s->sy + r * s->dy - s->pt;
                                int64_t ix = (int64_t)ox * s->sx + t * s->dx - s->pl;
                                int32_t v;
                                if (iy < 0 || ix < 0 || iy >= s->h || ix >= s->w) {
                                    v = ref_pad(s);
                                } else {
                                    v = ld->in[((b * s->c + c) * s->h + iy) * s->w + ix];
                                    if (s->cvt)
                                        v = ref_cvt_int(v, s);
                                }
                                acc +=
                                    (int64_t)v * ld->wt[((k * s->kh + r) * s->kw + t) * s->c + c];
                            }
                    int64_t o = ref_round_shift(acc, s->clip);
                    if (o > INT32_MAX || o < INT32_MIN)
                        sat++;
                    o = o > INT32_MAX ? INT32_MAX : o < INT32_MIN ? INT32_MIN : o;
                    out[((b * s->k + k) * oh + oy) * ow + ox] = (int32_t)o;
                }
    return sat;
}

/* The plain convolution, fp16: exact products summed in double, with the
 * sum of |products| of each output (to bound the hardware's alignment
 * truncation).  NaN inputs are not expected here. */
static inline void ref_conv_fp16(const struct spec *s, const struct layer_data *ld, double *out,
                                 double *mag)
{
    uint32_t ow = spec_ow(s), oh = spec_oh(s);
    for (uint32_t b = 0; b < s->batches; b++)
        for (uint32_t k = 0; k < s->k; k++)
            for (uint32_t oy = 0; oy < oh; oy++)
                for (uint32_t ox = 0; ox < ow; ox++) {
                    double acc = 0, m = 0;
                    for (uint32_t r = 0; r < s->kh; r++)
                        for (uint32_t t = 0; t < s->kw; t++)
                            for (uint32_t c = 0; c < s->c; c++) {
                                int64_t iy = (int64_t)oy * s->sy + r * s->dy - s->pt;
                                int64_t ix = (int64_t)ox * s->sx + t * s->dx - s->pl;
                                uint16_t v =
                                    (iy < 0 || ix < 0 || iy >= s->h || ix >= s->w)
                                        ? s->pad
                                        : (uint16_t)
                                              ld->in[((b * s->c + c) * s->h + iy) * s->w + ix];
                                uint16_t w =
                                    (uint16_t)ld->wt[((k * s->kh + r) * s->kw + t) * s->c + c];
                                double pr = (double)fp16_to_float(v) * fp16_to_float(w);
                                acc += pr;
                                m += pr < 0 ? -pr : pr;
                            }
                    size_t i = ((b * s->k + k) * oh + oy) * ow + ox;
                    out[i] = acc;
                    mag[i] = m;
                }
}

/* The operands of output (b, k, oy, ox) of an fp16 layer in the order the
 * MAC cells take them (atomic operations of seg channels, each tap by tap):
 * the data row into a and the weight row into w, kh * kw * c values each.
 * The data row depends on (b, oy, ox) only and the weight row on k only, so
 * a caller checking every output gathers each once. */
static inline void ref_fp16_operands(const struct spec *s, const struct layer_data *ld,
                                     uint32_t seg, uint32_t b, uint32_t k, uint32_t oy, uint32_t ox,
                                     int16_t *a, int16_t *w)
{
    uint32_t i = 0;
    for (uint32_t c0 = 0; c0 < s->c; c0 += seg) {
        uint32_t nj = s->c - c0 < seg ? s->c - c0 : seg;
        for (uint32_t r = 0; r < s->kh; r++)
            for (uint32_t t = 0; t < s->kw; t++)
                for (uint32_t c = c0; c < c0 + nj; c++, i++) {
                    int64_t iy = (int64_t)oy * s->sy + r * s->dy - s->pt;
                    int64_t ix = (int64_t)ox * s->sx + t * s->dx - s->pl;
                    a[i] = (int16_t)((iy < 0 || ix < 0 || iy >= s->h || ix >= s->w)
                                         ? s->pad
                                         : ld->in[((b * s->c + c) * s->h + iy) * s->w + ix]);
                    w[i] = (int16_t)ld->wt[((k * s->kh + r) * s->kw + t) * s->c + c];
                }
    }
}

/* The bit-level reference's output of rows a and w (ref_fp16_operands). */
static inline uint32_t ref_fp16_output_of(const struct spec *s, uint32_t seg, const int16_t *a,
                                          const int16_t *w)
{
    uint32_t taps = s->kh * s->kw;
    struct conv_operands ops = {
        .rows = 1, .kernels = 1, .depth = taps * s->c, .taps = taps, .seg_len = seg, .c = s->c};
    return cacc_fp16_output(&ops, a, w);
}

/* One output of an fp16 layer as the bit-level reference model computes it
 * (cacc_fp16_output on the operands in CSC order: channel blocks of seg, then
 * kernel taps, then channels): the fp32 bit pattern. */
static inline uint32_t ref_fp16_output_bits(const struct spec *s, const struct layer_data *ld,
                                            uint32_t seg, uint32_t b, uint32_t k, uint32_t oy,
                                            uint32_t ox)
{
    uint32_t n = s->kh * s->kw * s->c;
    int16_t *a = malloc(sizeof *a * n), *w = malloc(sizeof *w * n);
    ref_fp16_operands(s, ld, seg, b, k, oy, ox, a, w);
    uint32_t f = ref_fp16_output_of(s, seg, a, w);
    free(a);
    free(w);
    return f;
}

#endif
