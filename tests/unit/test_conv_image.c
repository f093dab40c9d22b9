/* Image input against a plain reference: pitch-linear pixel formats
 * (components named from the most significant end of the pixel word), the
 * input convertor with offset or per-component mean, scale and truncation,
 * sign override, PIXEL_X_OFFSET, left/right padding with CDMA's pad value
 * (applied in the converted format), top/bottom padding with CSC's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "conv_harness.h"

#define LINE_STRIDE 0x400u

/* A format as the test sees it: the bit position of R, G, B, A (or Y, U, V)
 * inside one little-endian pixel word, and the component width. */
struct fmt {
    const char *name;
    unsigned id;      /* PIXEL_FORMAT value */
    unsigned bytes;   /* bytes per pixel */
    unsigned comps;   /* components (channels) */
    unsigned width;   /* bits per component (10: packed, alpha 2 bits) */
    unsigned pos[4];  /* bit position of channel 0..3 in the pixel word */
    unsigned in_prec; /* IN_PRECISION */
};

static const struct fmt fmts[] = {
    {"R8", 0, 1, 1, 8, {0}, 0},
    {"R16", 3, 2, 1, 16, {0}, 1},
    /* named most significant component first: A8R8G8B8 = A[31:24] R[23:16] ... */
    {"A8R8G8B8", 13, 4, 4, 8, {16, 8, 0, 24}, 0},
    {"A8B8G8R8", 12, 4, 4, 8, {0, 8, 16, 24}, 0},
    {"B8G8R8A8", 14, 4, 4, 8, {8, 16, 24, 0}, 0},
    {"R8G8B8A8", 15, 4, 4, 8, {24, 16, 8, 0}, 0},
    {"X8R8G8B8", 17, 4, 4, 8, {16, 8, 0, 24}, 0},
    {"A8Y8U8V8", 26, 4, 4, 8, {16, 8, 0, 24}, 0},
    {"V8U8Y8A8", 27, 4, 4, 8, {8, 16, 24, 0}, 0},
    {"A16B16G16R16", 6, 8, 4, 16, {0, 16, 32, 48}, 1},
    {"A2R10G10B10", 21, 4, 4, 10, {20, 10, 0, 30}, 1},
    {"R10G10B10A2", 23, 4, 4, 10, {22, 12, 2, 0}, 1},
};

struct img_spec {
    const struct fmt *f;
    const char *config;
    unsigned prec; /* PROC_PRECISION */
    uint32_t w, h, kh, kw, k, sx, sy, pl, pr, pt, pb, x_offset;
    uint16_t cdma_pad, csc_pad;
    bool cvt, mean, sign_override;
    int16_t offset, scale;
    unsigned truncate;
    uint16_t means[4];
    unsigned clip;
    unsigned y_ext; /* POST_Y_EXTENSION field: kernel rows per operation = 1 << y_ext */
};

static uint64_t pixel_word(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Channel c of a pixel as the convertor's input (or raw element value). */
static int32_t channel_value(const struct img_spec *s, const uint8_t *px, unsigned c)
{
    const struct fmt *f = s->f;
    uint64_t w = pixel_word(px, f->bytes);
    uint32_t v;
    if (f->width == 10) /* 10-bit colour to the top of 16 bits, 2-bit alpha likewise */
        v = c == 3 ? (uint32_t)((w >> f->pos[c]) & 3u) << 14
                   : (uint32_t)((w >> f->pos[c]) & 0x3ffu) << 6;
    else
        v = (uint32_t)(w >> f->pos[c]) & ((1u << f->width) - 1);
    unsigned bits = f->width == 8 ? 8 : 16;
    if (s->sign_override)
        return bits == 8 ? (int8_t)v : (int16_t)v;
    return (int32_t)v;
}

static int32_t as_element(const struct img_spec *s, int32_t raw)
{
    return s->prec == 0 ? (int8_t)(raw & 0xff) : (int16_t)(raw & 0xffff);
}

static int32_t converted(const struct img_spec *s, int32_t v, unsigned c)
{
    if (!s->cvt)
        return as_element(s, v);
    int64_t off = s->mean ? (int16_t)s->means[c] : s->offset;
    int64_t r = ref_round_shift((v - off) * s->scale, s->truncate);
    int64_t lo = s->prec == 0 ? -128 : -32768, hi = s->prec == 0 ? 127 : 32767;
    return (int32_t)(r < lo ? lo : r > hi ? hi : r);
}

static uint32_t out_w(const struct img_spec *s)
{
    return (s->pl + s->w + s->pr - s->kw) / s->sx + 1;
}

static uint32_t out_h(const struct img_spec *s)
{
    return (s->pt + s->h + s->pb - s->kh) / s->sy + 1;
}

static void run_image(const struct img_spec *s)
{
    const struct fmt *f = s->f;
    struct dla *d = dla_create(dla_config_find(s->config), NULL);
    const struct dla_config *cfg = dla_cfg(d);
    uint32_t st = 77 + f->id;
    /* pixels */
    size_t img_bytes = (size_t)LINE_STRIDE * s->h;
    uint8_t *img = malloc(img_bytes);
    for (size_t i = 0; i < img_bytes; i++)
        img[i] = (uint8_t)lcg(&st);
    dla_mem_write(d, DLA_DRAM, FEAT_ADDR, img, img_bytes);
    /* weights: kernel 1 x R x (S*C), stream [group][block][r][k][channel] */
    unsigned c = f->comps, kc = s->kw * c, bpe = s->prec == 0 ? 1 : 2;
    int32_t *wt = malloc(sizeof *wt * s->k * s->kh * kc);
    for (uint32_t i = 0; i < s->k * s->kh * kc; i++)
        wt[i] = s->prec == 0 ? (int8_t)lcg(&st) : (int16_t)(lcg(&st) % 2001 - 1000);
    unsigned kg = s->prec == 0 ? cfg->atomic_k : cfg->atomic_k / 2, cb = cfg->atomic_c;
    uint8_t *ws = calloc(1, (size_t)s->k * s->kh * kc * bpe + 256);
    size_t n = 0;
    uint32_t lines = 1u << s->y_ext;
    for (uint32_t k0 = 0; k0 < s->k; k0 += kg) {
        if (s->y_ext) { /* [operation of `lines` rows][kernel][row][channel] */
            for (uint32_t r0 = 0; r0 < s->kh; r0 += lines)
                for (uint32_t k = k0; k < k0 + kg && k < s->k; k++)
                    for (uint32_t r = r0; r < r0 + lines && r < s->kh; r++)
                        for (uint32_t j = 0; j < kc; j++, n += bpe)
                            put_elem(ws + n, wt[(k * s->kh + r) * kc + j], bpe);
            continue;
        }
        for (uint32_t c0 = 0; c0 < kc; c0 += cb)
            for (uint32_t r = 0; r < s->kh; r++)
                for (uint32_t k = k0; k < k0 + kg && k < s->k; k++)
                    for (uint32_t j = c0; j < c0 + cb && j < kc; j++, n += bpe)
                        put_elem(ws + n, wt[(k * s->kh + r) * kc + j], bpe);
    }
    dla_mem_write(d, DLA_DRAM, WT_ADDR, ws, (n + 127) & ~(size_t)127);
    /* registers */
    uint32_t ow = out_w(s), oh = out_h(s);
    size_t line_bytes = (size_t)(s->pl + s->w + s->pr) * c * bpe;
    uint32_t eps = (uint32_t)((line_bytes + cfg->cbuf_entry_bytes - 1) / cfg->cbuf_entry_bytes);
    static const char *const units[] = {"CDMA", "CSC", "CMAC_A", "CMAC_B", "CACC"};
    char name[64];
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "%s.S_POINTER", units[i]);
        set_field(d, name, NULL, 0);
    }
    set_field(d, "CDMA.D_MISC_CFG", NULL, f->in_prec << 8 | s->prec << 12);
    set_field(d, "CDMA.D_DATAIN_FORMAT", NULL, 1 | f->id << 8 | (unsigned)s->sign_override << 20);
    set_field(d, "CDMA.D_DATAIN_SIZE_0", NULL, (s->w - 1) | (s->h - 1) << 16);
    set_field(d, "CDMA.D_DATAIN_SIZE_1", NULL, c - 1);
    set_field(d, "CDMA.D_PIXEL_OFFSET", NULL, s->x_offset);
    set_field(d, "CDMA.D_DAIN_RAM_TYPE", NULL, 1);
    set_field(d, "CDMA.D_DAIN_ADDR_LOW_0", NULL, (uint32_t)FEAT_ADDR);
    set_field(d, "CDMA.D_LINE_STRIDE", NULL, LINE_STRIDE);
    set_field(d, "CDMA.D_ENTRY_PER_SLICE", NULL, eps - 1);
    set_field(d, "CDMA.D_WEIGHT_SIZE_0", NULL, s->kh * kc * bpe - 1);
    set_field(d, "CDMA.D_WEIGHT_SIZE_1", NULL, s->k - 1);
    set_field(d, "CDMA.D_WEIGHT_RAM_TYPE", NULL, 1);
    set_field(d, "CDMA.D_WEIGHT_ADDR_LOW", NULL, (uint32_t)WT_ADDR);
    set_field(d, "CDMA.D_WEIGHT_BYTES", NULL, (uint32_t)((n + 127) & ~(size_t)127));
    set_field(d, "CDMA.D_MEAN_FORMAT", NULL, s->mean);
    set_field(d, "CDMA.D_MEAN_GLOBAL_0", NULL, s->means[0] | (uint32_t)s->means[1] << 16);
    set_field(d, "CDMA.D_MEAN_GLOBAL_1", NULL, s->means[2] | (uint32_t)s->means[3] << 16);
    set_field(d, "CDMA.D_CVT_CFG", NULL, s->cvt | s->truncate << 4);
    set_field(d, "CDMA.D_CVT_OFFSET", NULL, (uint16_t)s->offset);
    set_field(d, "CDMA.D_CVT_SCALE", NULL, (uint16_t)s->scale);
    set_field(d, "CDMA.D_CONV_STRIDE", NULL, (s->sx - 1) | (s->sy - 1) << 16);
    set_field(d, "CDMA.D_ZERO_PADDING", NULL, s->pl | s->pr << 8 | s->pt << 16 | s->pb << 24);
    set_field(d, "CDMA.D_ZERO_PADDING_VALUE", NULL, s->cdma_pad);
    set_field(d, "CDMA.D_BANK", NULL, 3 | 3 << 16);
    set_field(d, "CSC.D_MISC_CFG", NULL, get_reg(d, "CDMA.D_MISC_CFG"));
    set_field(d, "CSC.D_DATAIN_FORMAT", NULL, 1);
    set_field(d, "CSC.D_DATAIN_SIZE_EXT_0", NULL, (s->w - 1) | (s->h - 1) << 16);
    set_field(d, "CSC.D_DATAIN_SIZE_EXT_1", NULL, c - 1);
    set_field(d, "CSC.D_ENTRY_PER_SLICE", NULL, eps - 1);
    set_field(d, "CSC.D_WEIGHT_SIZE_EXT_0", NULL, (s->kh - 1) << 16);
    set_field(d, "CSC.D_WEIGHT_SIZE_EXT_1", NULL, (kc - 1) | (s->k - 1) << 16);
    set_field(d, "CSC.D_WEIGHT_BYTES", NULL, (uint32_t)((n + 127) & ~(size_t)127));
    set_field(d, "CSC.D_DATAOUT_SIZE_0", NULL, (ow - 1) | (oh - 1) << 16);
    set_field(d, "CSC.D_DATAOUT_SIZE_1", NULL, s->k - 1);
    set_field(d, "CSC.D_ATOMICS", NULL, ow * oh - 1);
    set_field(d, "CSC.D_CONV_STRIDE_EXT", NULL, (s->sx - 1) | (s->sy - 1) << 16);
    set_field(d, "CSC.D_ZERO_PADDING", NULL, s->pl | s->pt << 16);
    set_field(d, "CSC.D_ZERO_PADDING_VALUE", NULL, s->csc_pad);
    set_field(d, "CSC.D_BANK", NULL, 3 | 3 << 16);
    set_field(d, "CSC.D_POST_Y_EXTENSION", NULL, s->y_ext);
    set_field(d, "CACC.D_MISC_CFG", NULL, s->prec << 12);
    set_field(d, "CACC.D_DATAOUT_SIZE_0", NULL, (ow - 1) | (oh - 1) << 16);
    set_field(d, "CACC.D_DATAOUT_SIZE_1", NULL, s->k - 1);
    set_field(d, "CACC.D_CLIP_CFG", NULL, s->clip);

    struct dla_cube out;
    int rc = run_conv(d, &out);
    assert_int_equal(rc, 0);
    int32_t cdma_pad = as_element(s, s->cdma_pad), csc_pad = as_element(s, s->csc_pad);
    for (uint32_t k = 0; k < s->k; k++)
        for (uint32_t oy = 0; oy < oh; oy++)
            for (uint32_t ox = 0; ox < ow; ox++) {
                int64_t acc = 0;
                for (uint32_t r = 0; r < s->kh; r++)
                    for (uint32_t t = 0; t < s->kw; t++)
                        for (unsigned ch = 0; ch < c; ch++) {
                            int64_t y = (int64_t)oy * s->sy + r - s->pt;
                            int64_t x = (int64_t)ox * s->sx + t - s->pl;
                            int32_t v;
                            if (y < 0 || y >= s->h)
                                v = csc_pad;
                            else if (x < 0 || x >= s->w)
                                v = cdma_pad;
                            else
                                v = converted(s,
                                              channel_value(s,
                                                            img + y * LINE_STRIDE +
                                                                (x + s->x_offset) * f->bytes,
                                                            ch),
                                              ch);
                            acc += (int64_t)v * wt[(k * s->kh + r) * kc + t * c + ch];
                        }
                int64_t want = ref_round_shift(acc, s->clip);
                int32_t got = out.v[cube_index(&out, 0, k, oy, ox)];
                if (got != want)
                    fail_msg("%s k%u y%u x%u: want %lld got %d", f->name, k, oy, ox,
                             (long long)want, got);
            }
    cube_free(&out);
    free(img);
    free(wt);
    free(ws);
    dla_destroy(d);
}

static struct img_spec base(const struct fmt *f)
{
    struct img_spec s = {.f = f,
                         .config = "nv_full",
                         .prec = 0,
                         .w = 9,
                         .h = 6,
                         .kh = 3,
                         .kw = 3,
                         .k = 5,
                         .sx = 2,
                         .sy = 1,
                         .pl = 1,
                         .pr = 2,
                         .pt = 1,
                         .pb = 1,
                         .cdma_pad = 0x05,
                         .csc_pad = 0xfd};
    return s;
}

static void test_formats_raw(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        struct img_spec s = base(&fmts[i]);
        s.prec = fmts[i].in_prec; /* no convertor: elements keep their width */
        s.cdma_pad = s.prec ? 0xff05 : 0x05;
        run_image(&s);
    }
}

static void test_formats_converted(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        struct img_spec s = base(&fmts[i]);
        s.cvt = true;
        s.offset = 100;
        s.scale = 3;
        s.truncate = fmts[i].width == 8 ? 2 : 9;
        s.clip = 1;
        run_image(&s);
        s.prec = 1; /* to int16 */
        s.cdma_pad = 0x8001;
        run_image(&s);
    }
}

static void test_mean_and_sign_override(void **state)
{
    (void)state;
    struct img_spec s = base(&fmts[2]); /* A8R8G8B8 */
    s.cvt = true;
    s.mean = true;
    s.means[0] = 124;
    s.means[1] = 117;
    s.means[2] = 104;
    s.means[3] = 0xfff0;
    s.scale = 1;
    run_image(&s);
    s.sign_override = true;
    s.scale = 5;
    s.truncate = 1;
    run_image(&s);
}

static void test_pixel_x_offset(void **state)
{
    (void)state;
    struct img_spec s = base(&fmts[0]); /* R8 */
    s.x_offset = 7;
    s.kw = 7;
    s.kh = 2;
    s.sx = 1;
    s.pl = 3;
    s.pr = 3;
    run_image(&s);
    s = base(&fmts[3]);
    s.x_offset = 3;
    run_image(&s);
}

/* Channel post-extension: two or four kernel rows per atomic operation. */
static void test_post_extension(void **state)
{
    (void)state;
    struct img_spec s = base(&fmts[0]); /* R8: 1 channel, 7 taps per row */
    s.kw = 7;
    s.kh = 5;
    s.sx = 2;
    s.sy = 2;
    s.pl = 3;
    s.pr = 3;
    s.pt = 2;
    s.pb = 2;
    s.w = 20;
    s.h = 11;
    s.y_ext = 1;
    run_image(&s);
    s.y_ext = 2;
    run_image(&s);
    s = base(&fmts[2]); /* A8R8G8B8: 12 elements per row, 4 rows per operation */
    s.kh = 7;
    s.pt = 3;
    s.pb = 3;
    s.y_ext = 2;
    s.cvt = true;
    s.offset = 9;
    s.scale = 2;
    s.truncate = 1;
    run_image(&s);
    s.prec = 1; /* to int16 */
    s.cdma_pad = 0x8001;
    run_image(&s);
    s.k = 40; /* kernel groups of 16, 16 and 8, each a pass of its own */
    conv_set_weight_pass_values(1);
    run_image(&s);
    conv_set_weight_pass_values(0);
}

static void test_image_small_config(void **state)
{
    (void)state;
    struct img_spec s = base(&fmts[2]);
    s.config = "nv_small";
    s.k = 12;
    run_image(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formats_raw),
        cmocka_unit_test(test_formats_converted),
        cmocka_unit_test(test_mean_and_sign_override),
        cmocka_unit_test(test_pixel_x_offset),
        cmocka_unit_test(test_post_extension),
        cmocka_unit_test(test_image_small_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
