/* The sample networks end to end: each DLA result is compared with a plain
 * reference computed here from the sample's own input and weights (int8
 * feature layout of 32-channel atoms).  A sample whose unit the model does
 * not implement yet (it reports DLA_DIAG_UNSUPPORTED) is skipped, so these
 * tests start checking each unit as soon as its model lands. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine_rig.h"

static void on_diag(void *ctx, const struct dla_event *ev)
{
    struct rig *r = ctx;
    if (ev->kind == DLA_EV_DIAG && ev->u.diag.kind == DLA_DIAG_UNSUPPORTED)
        r->unsupported = true;
}

/* Build and run the DLA task of a sample; skips when a unit is missing. */
static void run_sample(struct rig *r, const char *name)
{
    rig_open(r, name);
    dla_listen(r->d, on_diag, r);
    uint32_t last = 0;
    engine_start(r->e, r->d, &r->rt, 0);
    while (!engine_task_done(r->e)) {
        struct eng_action a;
        while (engine_next_action(r->e, &a))
            rig_do_action(r, &a, &last);
        if (engine_task_done(r->e))
            break;
        while (!dla_intr_line(r->d))
            if (!dla_advance(r->d))
                fail_msg("%s: hardware idle without an interrupt", name);
        engine_interrupt(r->e, r->d);
    }
    assert_false(engine_task_failed(r->e));
}

/* A feature surface of the sample read back: int8, 32 channels per atom. */
struct cube {
    int c, h, w;
    int8_t *v; /* [c][h][w] */
};

static int8_t at(const struct cube *q, int c, int y, int x)
{
    return q->v[((size_t)c * q->h + y) * q->w + x];
}

static void read_cube(struct rig *r, int index, int c, int h, int w, struct cube *q)
{
    enum dla_space s;
    uint64_t base;
    assert_true(runtime_task_address(&r->rt, 0, index, &s, &base));
    q->c = c;
    q->h = h;
    q->w = w;
    q->v = calloc((size_t)c * h * w, 1);
    for (int ch = 0; ch < c; ch++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint64_t off =
                    (uint64_t)(ch / 32) * h * w * 32 + ((uint64_t)y * w + x) * 32 + ch % 32;
                dla_mem_read(r->d, s, base + off, &q->v[((size_t)ch * h + y) * w + x], 1);
            }
}

static void read_raw(struct rig *r, int index, void *buf, size_t len)
{
    enum dla_space s;
    uint64_t base;
    assert_true(runtime_task_address(&r->rt, 0, index, &s, &base));
    dla_mem_read(r->d, s, base, buf, len);
}

static int8_t sat8(int64_t v)
{
    return (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
}

/* ReLU, then the output converter's rounding right shift (half away from zero). */
static int8_t relu_shift(int64_t acc, unsigned shift)
{
    if (acc < 0)
        acc = 0;
    if (shift)
        acc = (acc + (1ll << (shift - 1))) >> shift;
    return sat8(acc);
}

/* Direct convolution, no padding, stride 1; weights of K kernels of
 * R x S x C in the single-group layout [r][s][k][c] (K <= 32, C <= 64). */
static int64_t conv_at(const struct cube *in, const int8_t *wt, int K, int R, int S, int k, int y,
                       int x)
{
    int64_t acc = 0;
    for (int r = 0; r < R; r++)
        for (int s = 0; s < S; s++)
            for (int c = 0; c < in->c; c++)
                acc += (int64_t)at(in, c, y + r, x + s) *
                       wt[(((size_t)r * S + s) * K + k) * in->c + c];
    return acc;
}

static void test_bdma_sample(void **state)
{
    (void)state;
    struct rig r;
    run_sample(&r, "bdma");
    if (r.unsupported)
        skip();
    struct cube a, b;
    read_cube(&r, 5, 32, 4, 8, &a);
    read_cube(&r, 6, 32, 4, 8, &b);
    assert_memory_equal(a.v, b.v, 32 * 4 * 8);
    free(a.v);
    free(b.v);
    rig_close(&r);
}

static void test_sdp_sample(void **state)
{
    (void)state;
    struct rig r;
    run_sample(&r, "sdp");
    if (r.unsupported)
        skip();
    struct cube in, out;
    read_cube(&r, 5, 16, 4, 4, &in);
    read_cube(&r, 6, 16, 4, 4, &out);
    for (int c = 0; c < 16; c++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++)
                assert_int_equal(at(&out, c, y, x), relu_shift(at(&in, c, y, x), 0));
    free(in.v);
    free(out.v);
    rig_close(&r);
}

static void test_pdp_sample(void **state)
{
    (void)state;
    struct rig r;
    run_sample(&r, "pdp");
    if (r.unsupported)
        skip();
    struct cube in, out;
    read_cube(&r, 5, 16, 8, 8, &in);
    read_cube(&r, 6, 16, 4, 4, &out);
    for (int c = 0; c < 16; c++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++) {
                int m = -128;
                for (int dy = 0; dy < 2; dy++)
                    for (int dx = 0; dx < 2; dx++)
                        if (at(&in, c, 2 * y + dy, 2 * x + dx) > m)
                            m = at(&in, c, 2 * y + dy, 2 * x + dx);
                assert_int_equal(at(&out, c, y, x), m);
            }
    free(in.v);
    free(out.v);
    rig_close(&r);
}

static void test_conv_sample(void **state)
{
    (void)state;
    struct rig r;
    run_sample(&r, "conv");
    if (r.unsupported)
        skip();
    struct cube in, out;
    int8_t wt[3 * 3 * 8 * 16];
    read_cube(&r, 5, 16, 6, 6, &in);
    read_cube(&r, 6, 8, 4, 4, &out);
    read_raw(&r, 7, wt, sizeof wt);
    for (int k = 0; k < 8; k++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++)
                assert_int_equal(at(&out, k, y, x),
                                 relu_shift(conv_at(&in, wt, 8, 3, 3, k, y, x), 4));
    free(in.v);
    free(out.v);
    rig_close(&r);
}

static void test_rubik_sample(void **state)
{
    (void)state;
    struct rig r;
    run_sample(&r, "rubik");
    if (r.unsupported)
        skip();
    struct cube in, out;
    read_cube(&r, 5, 128, 4, 4, &in);
    read_cube(&r, 6, 32, 8, 8, &out);
    /* contract with stride 2x2: the 4 phases of each input pixel's
     * channel groups become a 2x2 block of output pixels */
    for (int co = 0; co < 32; co++)
        for (int y = 0; y < 8; y++)
            for (int x = 0; x < 8; x++)
                assert_int_equal(at(&out, co, y, x),
                                 at(&in, ((y % 2) * 2 + x % 2) * 32 + co, y / 2, x / 2));
    free(in.v);
    free(out.v);
    rig_close(&r);
}

/* LeNet's DLA part: conv 5x5 x8 + ReLU >> 8, max pool 2x2/2, fc 4x4x8 -> 10
 * + ReLU >> 6. */
static void test_lenet_sample(void **state)
{
    (void)state;
    struct rig r;
    run_sample(&r, "lenet");
    if (r.unsupported)
        skip();
    struct cube img, fc;
    static int8_t w1[5 * 5 * 8 * 1], w2[4 * 4 * 10 * 8];
    read_cube(&r, 5, 1, 12, 12, &img);
    read_cube(&r, 8, 10, 1, 1, &fc);
    read_raw(&r, 9, w1, sizeof w1);
    read_raw(&r, 10, w2, sizeof w2);
    struct cube c1 = {8, 8, 8, calloc(8 * 8 * 8, 1)}, p1 = {8, 4, 4, calloc(8 * 4 * 4, 1)};
    for (int k = 0; k < 8; k++)
        for (int y = 0; y < 8; y++)
            for (int x = 0; x < 8; x++)
                c1.v[((size_t)k * 8 + y) * 8 + x] =
                    relu_shift(conv_at(&img, w1, 8, 5, 5, k, y, x), 8);
    for (int k = 0; k < 8; k++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++) {
                int m = -128;
                for (int d = 0; d < 4; d++)
                    if (at(&c1, k, 2 * y + d / 2, 2 * x + d % 2) > m)
                        m = at(&c1, k, 2 * y + d / 2, 2 * x + d % 2);
                p1.v[((size_t)k * 4 + y) * 4 + x] = (int8_t)m;
            }
    for (int k = 0; k < 10; k++)
        assert_int_equal(at(&fc, k, 0, 0), relu_shift(conv_at(&p1, w2, 10, 4, 4, k, 0, 0), 6));
    free(img.v);
    free(fc.v);
    free(c1.v);
    free(p1.v);
    rig_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bdma_sample),  cmocka_unit_test(test_sdp_sample),
        cmocka_unit_test(test_pdp_sample),   cmocka_unit_test(test_conv_sample),
        cmocka_unit_test(test_rubik_sample), cmocka_unit_test(test_lenet_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
