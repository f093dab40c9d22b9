/* Winograd F(2x2, 3x3) against plain references: with weights transformed
 * by 2G (so that they stay integers) and CACC dropping the factor 4, the
 * result is exactly the direct 3x3 convolution; a strided layer folded into
 * channels is a 6x6 stride-2 convolution; and with PRA truncation and
 * saturation the result follows the tile arithmetic written out here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "conv_harness.h"

struct wspec {
    unsigned prec;
    uint32_t w, h, c, k, stride;
    uint32_t pl, pt, pr, pb;
    uint16_t pad;
    unsigned pra, clip;
    int range; /* input values in [-range, range] */
    bool compressed;
};

/* Kernel of the equivalent convolution: 3*stride square, [k][r][s][c]. */
struct wlayer {
    struct wspec s;
    uint32_t ks;    /* kernel size 3*stride */
    int32_t *in;    /* [c][y][x] */
    int32_t *kern;  /* [k][r][s][c] */
    uint32_t ext_c; /* channels after stride folding */
    int32_t *wt4;   /* transformed [k][ext_c][16] */
};

static const int G2[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};

/* 4 G g G^T for one 3x3 kernel slice. */
static void transform_kernel(const int32_t g[3][3], int32_t out[16])
{
    int32_t t[4][3];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            t[i][j] = G2[i][0] * g[0][j] + G2[i][1] * g[1][j] + G2[i][2] * g[2][j];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            out[i * 4 + j] = t[i][0] * G2[j][0] + t[i][1] * G2[j][1] + t[i][2] * G2[j][2];
}

static void make_layer(struct wlayer *L, const struct dla_config *cfg)
{
    struct wspec *s = &L->s;
    uint32_t st = 31 + s->c + s->stride;
    L->ks = 3 * s->stride;
    L->in = malloc(sizeof *L->in * s->c * s->h * s->w);
    for (uint32_t i = 0; i < s->c * s->h * s->w; i++)
        L->in[i] = (int32_t)(lcg(&st) % (2 * s->range + 1)) - s->range;
    int kr = s->prec == 1 ? 300 : 3; /* keeps 4 G g G^T within int8 (and exact in fp16) */
    L->kern = malloc(sizeof *L->kern * s->k * L->ks * L->ks * s->c);
    for (uint32_t i = 0; i < s->k * L->ks * L->ks * s->c; i++)
        L->kern[i] = (int32_t)(lcg(&st) % (2 * kr + 1)) - kr;
    unsigned cpa = cfg->mem_atom / (s->prec ? 2 : 1);

    uint32_t cpad = (s->c + cpa - 1) / cpa * cpa;
    L->ext_c = s->stride * s->stride * cpad;
    L->wt4 = calloc((size_t)s->k * L->ext_c * 16, sizeof *L->wt4);
    /* extended channel (py*stride + px) * cpad + c holds kernel taps
     * (3r' + ..): kernel row 2r+py... i.e. r = stride*r3 + py */
    for (uint32_t k = 0; k < s->k; k++)
        for (uint32_t py = 0; py < s->stride; py++)
            for (uint32_t px = 0; px < s->stride; px++)
                for (uint32_t c = 0; c < s->c; c++) {
                    int32_t g[3][3];
                    for (int r = 0; r < 3; r++)
                        for (int t = 0; t < 3; t++)
                            g[r][t] = L->kern[((k * L->ks + r * s->stride + py) * L->ks +
                                               t * s->stride + px) *
                                                  s->c +
                                              c];
                    uint32_t e = (py * s->stride + px) * cpad + c;
                    transform_kernel(g, L->wt4 + ((size_t)k * L->ext_c + e) * 16);
                }
}

static void free_layer(struct wlayer *L)
{
    free(L->in);
    free(L->kern);
    free(L->wt4);
}

static uint32_t total(uint32_t in, uint32_t a, uint32_t b)
{
    return a + in + b;
}

/* Integer values as the layer stores them (fp16 layers: exact small integers). */
static int32_t as_stored(const struct wspec *s, int32_t v)
{
    return s->prec == 2 ? fp16_from_float((float)v) : v;
}

static void program(struct dla *d, const struct wlayer *L)
{
    const struct wspec *s = &L->s;
    const struct dla_config *cfg = dla_cfg(d);
    unsigned bpe = s->prec ? 2 : 1, atom = cfg->mem_atom, cpa = atom / bpe;
    unsigned surfaces = (s->c + cpa - 1) / cpa;
    uint64_t line = (uint64_t)s->w * atom, surf = line * s->h;
    uint8_t *buf = calloc(1, surf * surfaces);
    for (uint32_t c = 0; c < s->c; c++)
        for (uint32_t y = 0; y < s->h; y++)
            for (uint32_t x = 0; x < s->w; x++)
                put_elem(buf + feature_offset(c, y, x, line, surf, atom, bpe),
                         as_stored(s, L->in[(c * s->h + y) * s->w + x]), bpe);
    dla_mem_write(d, DLA_DRAM, FEAT_ADDR, buf, surf * surfaces);
    free(buf);
    /* weights: [group][4 channels][kernel][position][channel] */
    unsigned kg = s->prec ? cfg->atomic_k / 2 : cfg->atomic_k;
    size_t n = (size_t)s->k * L->ext_c * 16 * bpe, o = 0;
    uint8_t *ws = calloc(1, n + 128);
    for (uint32_t k0 = 0; k0 < s->k; k0 += kg)
        for (uint32_t c0 = 0; c0 < L->ext_c; c0 += 4)
            for (uint32_t k = k0; k < k0 + kg && k < s->k; k++)
                for (int pos = 0; pos < 16; pos++)
                    for (uint32_t c = c0; c < c0 + 4; c++, o += bpe)
                        put_elem(ws + o,
                                 as_stored(s, L->wt4[((size_t)k * L->ext_c + c) * 16 + pos]), bpe);
    uint64_t wmb_bytes = 0;
    if (s->compressed) { /* WMB bits, packed non-zero weights, WGS per kernel group */
        struct spec as = {.prec = s->prec, .k = s->k, .kh = 4, .kw = 4, .c = L->ext_c};
        for (size_t i = 0; i < n / bpe; i++) /* some zeros to drop */
            if (i % 3 == 0)
                memset(ws + i * bpe, 0, bpe);
        store_compressed(d, &as, ws, n, &wmb_bytes);
    } else {
        dla_mem_write(d, DLA_DRAM, WT_ADDR, ws, (n + 127) & ~(size_t)127);
    }
    free(ws);
    uint32_t tw = total(s->w, s->pl, s->pr), th = total(s->h, s->pt, s->pb);
    uint32_t ew = tw / s->stride, eh = th / s->stride;
    uint32_t ow = ew - 4, oh = eh - 4;
    uint32_t eps = (tw / (4 * s->stride)) * surfaces * s->stride * s->stride;
    static const char *const units[] = {"CDMA", "CSC", "CMAC_A", "CMAC_B", "CACC"};
    char name[64];
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "%s.S_POINTER", units[i]);
        set_field(d, name, NULL, 0);
        snprintf(name, sizeof name, "%s.D_MISC_CFG", units[i]);
        set_field(d, name, NULL, 1 | s->prec << 8 | s->prec << 12);
    }
    set_field(d, "CDMA.D_DATAIN_FORMAT", NULL, 0);
    set_field(d, "CDMA.D_DATAIN_SIZE_0", NULL, (s->w - 1) | (s->h - 1) << 16);
    set_field(d, "CDMA.D_DATAIN_SIZE_1", NULL, s->c - 1);
    set_field(d, "CDMA.D_DATAIN_SIZE_EXT_0", NULL, (ew - 1) | (eh - 1) << 16);
    set_field(d, "CDMA.D_DAIN_RAM_TYPE", NULL, 1);
    set_field(d, "CDMA.D_DAIN_ADDR_LOW_0", NULL, (uint32_t)FEAT_ADDR);
    set_field(d, "CDMA.D_LINE_STRIDE", NULL, (uint32_t)line);
    set_field(d, "CDMA.D_SURF_STRIDE", NULL, (uint32_t)surf);
    set_field(d, "CDMA.D_ENTRY_PER_SLICE", NULL, eps - 1);
    set_field(d, "CDMA.D_WEIGHT_SIZE_0", NULL, (uint32_t)(L->ext_c * 16 * bpe - 1));
    set_field(d, "CDMA.D_WEIGHT_SIZE_1", NULL, s->k - 1);
    set_field(d, "CDMA.D_WEIGHT_RAM_TYPE", NULL, 1);
    set_field(d, "CDMA.D_WEIGHT_ADDR_LOW", NULL, (uint32_t)WT_ADDR);
    set_field(d, "CDMA.D_WEIGHT_BYTES", NULL, (uint32_t)((n + 127) & ~(size_t)127));
    set_field(d, "CDMA.D_WEIGHT_FORMAT", NULL, s->compressed);
    set_field(d, "CSC.D_WEIGHT_FORMAT", NULL, s->compressed);
    set_field(d, "CDMA.D_WGS_ADDR_LOW", NULL, (uint32_t)WGS_ADDR);
    set_field(d, "CDMA.D_WMB_ADDR_LOW", NULL, (uint32_t)WMB_ADDR);
    set_field(d, "CDMA.D_WMB_BYTES", NULL, (uint32_t)wmb_bytes);
    set_field(d, "CSC.D_WMB_BYTES", NULL, (uint32_t)wmb_bytes);
    set_field(d, "CDMA.D_CONV_STRIDE", NULL, (s->stride - 1) | (s->stride - 1) << 16);
    set_field(d, "CDMA.D_ZERO_PADDING", NULL, s->pl | s->pr << 8 | s->pt << 16 | s->pb << 24);
    set_field(d, "CDMA.D_ZERO_PADDING_VALUE", NULL, s->pad);
    set_field(d, "CDMA.D_BANK", NULL, 3 | 7 << 16);
    set_field(d, "CSC.D_DATAIN_FORMAT", NULL, 0);
    set_field(d, "CSC.D_DATAIN_SIZE_EXT_0", NULL, (ew - 1) | (eh - 1) << 16);
    set_field(d, "CSC.D_DATAIN_SIZE_EXT_1", NULL, L->ext_c - 1);
    set_field(d, "CSC.D_ENTRY_PER_SLICE", NULL, eps - 1);
    set_field(d, "CSC.D_WEIGHT_SIZE_EXT_0", NULL, 3 | 3 << 16);
    set_field(d, "CSC.D_WEIGHT_SIZE_EXT_1", NULL, (L->ext_c - 1) | (s->k - 1) << 16);
    set_field(d, "CSC.D_WEIGHT_BYTES", NULL, (uint32_t)((n + 127) & ~(size_t)127));
    set_field(d, "CSC.D_DATAOUT_SIZE_0", NULL, (ow - 1) | (oh - 1) << 16);
    set_field(d, "CSC.D_DATAOUT_SIZE_1", NULL, s->k - 1);
    set_field(d, "CSC.D_PRA_CFG", NULL, s->pra);
    set_field(d, "CSC.D_BANK", NULL, 3 | 7 << 16);
    set_field(d, "CACC.D_DATAOUT_SIZE_0", NULL, (ow - 1) | (oh - 1) << 16);
    set_field(d, "CACC.D_DATAOUT_SIZE_1", NULL, s->k - 1);
    set_field(d, "CACC.D_CLIP_CFG", NULL, s->clip);
}

static int32_t padded_input(const struct wlayer *L, int64_t y, int64_t x, uint32_t c)
{
    const struct wspec *s = &L->s;
    int64_t iy = y - s->pt, ix = x - s->pl;
    if (iy < 0 || ix < 0 || iy >= s->h || ix >= s->w)
        return s->prec == 2   ? (int32_t)fp16_to_float(s->pad)
               : s->prec == 1 ? (int16_t)s->pad
                              : (int8_t)(s->pad & 0xff);
    return L->in[(c * s->h + iy) * s->w + ix];
}

/* A layer made, programmed and run on nv_full; wrun_finish() frees it all. */
struct wrun {
    struct dla *d;
    struct wlayer L;
    struct dla_cube out;
};

static void wrun_start(struct wrun *r, const char *name, const struct wspec *ws)
{
    r->d = dla_create(dla_config_find("nv_full"), NULL);
    r->L = (struct wlayer){.s = *ws};
    make_layer(&r->L, dla_cfg(r->d));
    program(r->d, &r->L);
    if (run_conv(r->d, &r->out) != 0)
        fail_msg("%s: the convolution core refused the layer", name);
}

static void wrun_finish(struct wrun *r)
{
    cube_free(&r->out);
    free_layer(&r->L);
    dla_destroy(r->d);
}

/* Exact: the direct convolution (kernel 3*stride, stride) over the padded input. */
static void check_direct_equivalent(const char *name, const struct wspec *ws)
{
    struct wrun r;
    wrun_start(&r, name, ws);
    const struct wlayer *L = &r.L;
    for (uint32_t k = 0; k < ws->k; k++)
        for (uint32_t y = 0; y < r.out.h; y++)
            for (uint32_t x = 0; x < r.out.w; x++) {
                int64_t acc = 0;
                for (uint32_t rr = 0; rr < L->ks; rr++)
                    for (uint32_t t = 0; t < L->ks; t++)
                        for (uint32_t c = 0; c < ws->c; c++)
                            acc += (int64_t)padded_input(L, (int64_t)y * ws->stride + rr,
                                                         (int64_t)x * ws->stride + t, c) *
                                   L->kern[((k * L->ks + rr) * L->ks + t) * ws->c + c];
                int32_t got = r.out.v[cube_index(&r.out, 0, k, y, x)];
                if (ws->prec == 2) { /* no CACC truncation in fp16: 4 x the convolution */
                    float want = (float)(4 * acc);
                    if ((uint32_t)got != f32_bits(want))
                        fail_msg("%s: k%u y%u x%u: want %g got %g", name, k, y, x, (double)want,
                                 (double)f32_from_bits((uint32_t)got));
                } else if (got != acc) {
                    fail_msg("%s: k%u y%u x%u: want %lld got %d", name, k, y, x, (long long)acc,
                             got);
                }
            }
    wrun_finish(&r);
}

/* Fields in struct wspec's order: prec, w, h, c, k, stride, pl, pt, pr, pb,
 * pad, pra, clip, range, compressed. */
static const struct {
    const char *name;
    struct wspec s;
} direct_cases[] = {
    {"int16", {1, 8, 8, 32, 20, 1, 1, 1, 3, 3, 0, 0, 2, 3000, false}},
    /* |B^T d B| <= 4 |d|: inputs within 31 stay inside int8 */
    {"int8", {0, 12, 8, 32, 40, 1, 2, 1, 2, 3, 5, 0, 2, 31, false}},
    {"int16 stride 2 folded", {1, 18, 17, 16, 5, 2, 3, 2, 3, 5, 0, 0, 2, 1000, false}},
    /* fp16: small integers keep every transform and sum exact; pad 1.0 */
    {"fp16", {2, 8, 12, 16, 7, 1, 1, 3, 3, 1, 0x3c00, 0, 0, 8, false}},
    {"fp16 stride 2 folded", {2, 18, 17, 16, 7, 2, 3, 2, 3, 5, 0x3c00, 0, 0, 8, false}},
};

static void test_direct_equivalent(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof direct_cases / sizeof direct_cases[0]; i++)
        check_direct_equivalent(direct_cases[i].name, &direct_cases[i].s);
}

/* The F(2x2, 3x3) tile arithmetic written out, against the 2x2 outputs of
 * every tile: B^T d B per channel, PRA truncation by s.pra (saturated to
 * int8 in an int8 layer), times the transformed weights, then A^T m A. */
static void check_tiles(const char *name, const struct wrun *r)
{
    const struct wlayer *L = &r->L;
    const struct wspec *s = &L->s;
    static const int A[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
    for (uint32_t k = 0; k < s->k; k++)
        for (uint32_t by = 0; by < r->out.h / 2; by++)
            for (uint32_t bx = 0; bx < r->out.w / 2; bx++) {
                int64_t m[16] = {0};
                for (uint32_t c = 0; c < s->c; c++) {
                    int32_t dt[4][4], bt[4][4], t[4][4];
                    for (int i = 0; i < 4; i++)
                        for (int j = 0; j < 4; j++)
                            dt[i][j] = padded_input(L, 2 * by + i, 2 * bx + j, c);
                    /* B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1] */
                    for (int j = 0; j < 4; j++) {
                        bt[0][j] = dt[0][j] - dt[2][j];
                        bt[1][j] = dt[1][j] + dt[2][j];
                        bt[2][j] = dt[2][j] - dt[1][j];
                        bt[3][j] = dt[1][j] - dt[3][j];
                    }
                    for (int i = 0; i < 4; i++) {
                        t[i][0] = bt[i][0] - bt[i][2];
                        t[i][1] = bt[i][1] + bt[i][2];
                        t[i][2] = bt[i][2] - bt[i][1];
                        t[i][3] = bt[i][1] - bt[i][3];
                    }
                    for (int i = 0; i < 16; i++) {
                        int64_t v = ref_round_shift(t[i / 4][i % 4], s->pra);
                        if (s->prec == 0)
                            v = v > 127 ? 127 : v < -128 ? -128 : v;
                        m[i] += v * L->wt4[((size_t)k * L->ext_c + c) * 16 + i];
                    }
                }
                /* A^T = [1 1 1 0; 0 1 -1 -1] on both sides */
                for (int oy = 0; oy < 2; oy++)
                    for (int ox = 0; ox < 2; ox++) {
                        int64_t acc = 0;
                        for (int i = 0; i < 4; i++)
                            for (int j = 0; j < 4; j++)
                                acc += A[oy][i] * A[ox][j] * m[i * 4 + j];
                        int32_t got = r->out.v[cube_index(&r->out, 0, k, 2 * by + oy, 2 * bx + ox)];
                        if (got != acc)
                            fail_msg("%s: k%u y%u x%u: want %lld got %d", name, k, 2 * by + oy,
                                     2 * bx + ox, (long long)acc, got);
                    }
            }
}

/* Compressed pre-transformed weights (every third weight dropped). */
static void check_compressed(const char *name)
{
    struct wspec s = {.prec = 1,
                      .w = 8,
                      .h = 8,
                      .c = 16,
                      .k = 20,
                      .stride = 1,
                      .pl = 1,
                      .pt = 1,
                      .pr = 3,
                      .pb = 3,
                      .range = 500,
                      .compressed = true};
    struct wrun r;
    wrun_start(&r, name, &s);
    /* the stream order was [group][4 channels][kernel][position][channel]:
     * rebuild which weights were dropped and check the tile arithmetic */
    unsigned kg = dla_cfg(r.d)->atomic_k / 2;
    size_t i = 0;
    for (uint32_t k0 = 0; k0 < s.k; k0 += kg)
        for (uint32_t c0 = 0; c0 < r.L.ext_c; c0 += 4)
            for (uint32_t k = k0; k < k0 + kg && k < s.k; k++)
                for (int pos = 0; pos < 16; pos++)
                    for (uint32_t c = c0; c < c0 + 4; c++, i++)
                        if (i % 3 == 0)
                            r.L.wt4[((size_t)k * r.L.ext_c + c) * 16 + pos] = 0;
    check_tiles(name, &r);
    wrun_finish(&r);
}

static void test_compressed(void **state)
{
    (void)state;
    check_compressed("compressed");
}

/* Forced to one kernel group a pass, a Winograd layer's outputs stay the
 * direct convolution's: kernel counts of two groups and more (with a
 * partial last one) in each precision, and compressed weights. */
static void test_weight_passes(void **state)
{
    (void)state;
    static const struct wspec passes[] = {
        {1, 8, 8, 32, 20, 1, 1, 1, 3, 3, 0, 0, 2, 3000, false},
        {0, 12, 8, 32, 72, 1, 2, 1, 2, 3, 5, 0, 2, 31, false},
        {2, 8, 12, 16, 37, 1, 1, 3, 3, 1, 0x3c00, 0, 0, 8, false},
    };
    conv_set_weight_pass_values(1);
    for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
        check_direct_equivalent("passes", &passes[i]);
    check_compressed("compressed passes");
    conv_set_weight_pass_values(0);
}

/* PRA truncation and saturation: the tile arithmetic, written out. */
static void test_pra_truncation(void **state)
{
    (void)state;
    struct wspec s = {.prec = 0,
                      .w = 8,
                      .h = 8,
                      .c = 32,
                      .k = 8,
                      .stride = 1,
                      .pl = 1,
                      .pt = 1,
                      .pr = 3,
                      .pb = 3,
                      .pra = 1,
                      .clip = 0,
                      .range = 127};
    struct wrun r;
    wrun_start(&r, "pra truncation", &s);
    check_tiles("pra truncation", &r);
    wrun_finish(&r);
}

static void test_winograd_absent_on_small(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_find("nv_small"), NULL);
    set_field(d, "CDMA.S_POINTER", NULL, 0);
    set_field(d, "CDMA.D_MISC_CFG", NULL, 1);
    set_field(d, "CSC.D_MISC_CFG", NULL, 1);
    struct dla_cube out;
    assert_int_equal(run_conv(d, &out), -1);
    dla_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_direct_equivalent),
        cmocka_unit_test(test_pra_truncation),
        cmocka_unit_test(test_winograd_absent_on_small),
        cmocka_unit_test(test_compressed),
        cmocka_unit_test(test_weight_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
