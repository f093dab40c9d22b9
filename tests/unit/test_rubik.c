/* RUBIK: contract, split and merge through the whole model against plain
 * reference reshapes written here. */
#include "one_stage.h"
#include "post_harness.h"

#define SRC  0x80000000ull
#define DST  0x84000000ull
#define ATOM 32u

struct rbk_case {
    unsigned mode; /* 0 contract, 1 split, 2 merge */
    unsigned precision;
    unsigned w, h, c_in, c_out, sx, sy;
};

static void common_regs(struct harness *h, const struct rbk_case *rc)
{
    wr(h, "RBK.D_MISC_CFG.RUBIK_MODE", rc->mode);
    wr(h, "RBK.D_MISC_CFG.IN_PRECISION", rc->precision);
    wr(h, "RBK.D_DAIN_RAM_TYPE", 1);
    wr(h, "RBK.D_DAOUT_RAM_TYPE", 1);
    wr(h, "RBK.D_DATAIN_SIZE_0.DATAIN_WIDTH", rc->w - 1);
    wr(h, "RBK.D_DATAIN_SIZE_0.DATAIN_HEIGHT", rc->h - 1);
    wr(h, "RBK.D_DATAIN_SIZE_1", rc->c_in - 1);
    wr(h, "RBK.D_DATAOUT_SIZE_1", rc->c_out - 1);
    wr(h, "RBK.D_DECONV_STRIDE.DECONV_X_STRIDE", rc->sx - 1);
    wr(h, "RBK.D_DECONV_STRIDE.DECONV_Y_STRIDE", rc->sy - 1);
    wr(h, "RBK.D_DAIN_ADDR_LOW", (uint32_t)SRC);
    wr(h, "RBK.D_DAOUT_ADDR_LOW", (uint32_t)DST);
}

/* Enable the layer and run until idle; run() also expects it clean. */
static void launch(struct harness *h)
{
    wr(h, "RBK.D_OP_ENABLE", 1);
    run_idle(h);
}

static void run(struct harness *h)
{
    launch(h);
    harness_expect_clean_layer(h);
}

static uint8_t *random_bytes(size_t n, uint32_t seed)
{
    uint8_t *p = malloc(n);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)harness_rand(&seed);
    return p;
}

/* Source bytes at SRC, a destination of 0xee bytes at DST, the layer run;
 * returns the destination as the layer left it (malloc'ed).  The data
 * plumbing of every contract, split and merge case. */
static uint8_t *run_on(struct harness *h, const uint8_t *src, size_t in_bytes, size_t out_bytes)
{
    uint8_t *dst = malloc(out_bytes);
    assert_non_null(dst);
    memset(dst, 0xee, out_bytes);
    mem_put(h, SRC, src, in_bytes);
    mem_put(h, DST, dst, out_bytes);
    run(h);
    mem_get(h, DST, dst, out_bytes);
    return dst;
}

/* ---------------------------------------------------------------- contract */

/* Output (x, y) of surface s: input surface (y % sy * sx + x % sx) * s_out +
 * s, line y / sy, atom x / sx. */
static void expect_contracted(const struct rbk_case *rc, const uint8_t *src, uint64_t in_line,
                              uint64_t in_surf, const uint8_t *dst, uint64_t out_line,
                              uint64_t super_line, uint64_t out_surf)
{
    unsigned cpa = ATOM / (rc->precision ? 2 : 1);
    unsigned s_out = (rc->c_out + cpa - 1) / cpa;
    for (unsigned s = 0; s < s_out; s++)
        for (unsigned y = 0; y < rc->h * rc->sy; y++)
            for (unsigned x = 0; x < rc->w * rc->sx; x++) {
                unsigned si = ((y % rc->sy) * rc->sx + x % rc->sx) * s_out + s;
                const uint8_t *want =
                    src + si * in_surf + (y / rc->sy) * in_line + (x / rc->sx) * ATOM;
                const uint8_t *got = dst + s * out_surf + (y / rc->sy) * super_line +
                                     (y % rc->sy) * out_line + x * ATOM;
                assert_memory_equal(got, want, ATOM);
            }
}

static void check_contract(const struct rbk_case *rc)
{
    struct harness *h = harness_new("nv_full");
    unsigned cpa = ATOM / (rc->precision ? 2 : 1);
    unsigned s_out = (rc->c_out + cpa - 1) / cpa, s_in = s_out * rc->sx * rc->sy;
    uint64_t in_line = (uint64_t)(rc->w + 1) * ATOM, in_surf = in_line * rc->h;
    uint64_t out_line = (uint64_t)(rc->w * rc->sx + 1) * ATOM;
    uint64_t super_line = out_line * rc->sy + ATOM * 2, out_surf = super_line * rc->h;
    common_regs(h, rc);
    wr(h, "RBK.D_DAIN_LINE_STRIDE", (uint32_t)in_line);
    wr(h, "RBK.D_DAIN_SURF_STRIDE", (uint32_t)in_surf);
    wr(h, "RBK.D_DAOUT_LINE_STRIDE", (uint32_t)out_line);
    wr(h, "RBK.D_CONTRACT_STRIDE_1", (uint32_t)super_line);
    wr(h, "RBK.D_DAOUT_SURF_STRIDE", (uint32_t)out_surf);
    size_t in_bytes = in_surf * s_in, out_bytes = out_surf * s_out;
    uint8_t *src = random_bytes(in_bytes, rc->w + rc->sx);
    uint8_t *dst = run_on(h, src, in_bytes, out_bytes);
    expect_contracted(rc, src, in_line, in_surf, dst, out_line, super_line, out_surf);
    /* gaps between lines and super lines untouched */
    assert_int_equal(dst[rc->w * rc->sx * ATOM], 0xee);
    assert_int_equal(dst[out_line * rc->sy], 0xee);
    free(src);
    free(dst);
    harness_free(h);
}

static void test_contract(void **state)
{
    (void)state;
    static const struct rbk_case cases[] = {
        {0, 0, 5, 3, 0, 40, 2, 3},  /* int8, two output surfaces */
        {0, 1, 4, 2, 0, 16, 3, 1},  /* int16 */
        {0, 0, 9, 2, 0, 32, 10, 1}, /* stride_x above 8: the chunked write path */
        {0, 2, 1, 1, 0, 20, 1, 2},  /* fp16, height-only contraction */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_contract(&cases[i]);
}

/* A contraction's output lines, written one after another when its lines
 * and super lines are packed, are held in one buffer sized for all of them
 * at the first line: grown line by line (doubling) it had room for 10,240
 * bytes of 5,760 here and moved whenever the heap held something just after
 * it (share/performance-history.md).  Surfaces with gaps between them get a
 * buffer each; the bytes are the same either way. */
static void test_contract_held_whole(void **state)
{
    (void)state;
    const struct rbk_case rc = {0, 0, 5, 3, 0, 40, 2, 3};
    const unsigned s_out = 2, s_in = s_out * rc.sx * rc.sy;
    uint64_t in_line = (uint64_t)rc.w * ATOM, in_surf = in_line * rc.h;
    uint64_t out_line = (uint64_t)rc.w * rc.sx * ATOM, super_line = out_line * rc.sy;
    size_t in_bytes = in_surf * s_in, surf_bytes = super_line * rc.h;
    uint8_t *src = random_bytes(in_bytes, 17);
    for (uint64_t gap = 0; gap <= ATOM; gap += ATOM) {
        struct harness *h = harness_new("nv_full");
        uint64_t out_surf = surf_bytes + gap;
        common_regs(h, &rc);
        wr(h, "RBK.D_DAIN_LINE_STRIDE", (uint32_t)in_line);
        wr(h, "RBK.D_DAIN_SURF_STRIDE", (uint32_t)in_surf);
        wr(h, "RBK.D_DAOUT_LINE_STRIDE", (uint32_t)out_line);
        wr(h, "RBK.D_CONTRACT_STRIDE_1", (uint32_t)super_line);
        wr(h, "RBK.D_DAOUT_SURF_STRIDE", (uint32_t)out_surf);
        mem_put(h, SRC, src, in_bytes);
        wr(h, "RBK.D_OP_ENABLE", 1);
        const struct dla_pipe *p = one_stage_launched(h->d);
        assert_non_null(p);
        size_t runs = gap ? s_out : 1;
        assert_int_equal(p->n_writes, runs);
        for (size_t r = 0; r < runs; r++) {
            assert_int_equal(p->writes[r].len, surf_bytes * s_out / runs);
            assert_int_equal(p->writes[r].cap, p->writes[r].len);
        }
        run_idle(h);
        harness_expect_clean_layer(h);
        uint8_t *dst = malloc(out_surf * s_out);
        assert_non_null(dst);
        mem_get(h, DST, dst, out_surf * s_out);
        expect_contracted(&rc, src, in_line, in_surf, dst, out_line, super_line, out_surf);
        free(dst);
        harness_free(h);
    }
    free(src);
}

/* ---------------------------------------------------------------- split and merge */

struct planar_layout {
    unsigned bpe, cpa, surfaces;
    uint64_t cube_line, cube_surf, plane_line, plane_stride;
};

static struct planar_layout planar_of(const struct rbk_case *rc)
{
    struct planar_layout p;
    p.bpe = rc->precision ? 2 : 1;
    p.cpa = ATOM / p.bpe;
    p.surfaces = (rc->c_in + p.cpa - 1) / p.cpa;
    p.cube_line = (uint64_t)(rc->w + 1) * ATOM;
    p.cube_surf = p.cube_line * (rc->h + 1);
    /* planar lines padded to 64 bytes, as the guide asks */
    p.plane_line = ((uint64_t)rc->w * p.bpe + 64 + 63) / 64 * 64;
    p.plane_stride = p.plane_line * (rc->h + 1);
    return p;
}

/* A split reads the cube and writes the planes ... */
static void split_strides(struct harness *h, const struct planar_layout *p)
{
    wr(h, "RBK.D_DAIN_LINE_STRIDE", (uint32_t)p->cube_line);
    wr(h, "RBK.D_DAIN_SURF_STRIDE", (uint32_t)p->cube_surf);
    wr(h, "RBK.D_DAOUT_LINE_STRIDE", (uint32_t)p->plane_line);
    wr(h, "RBK.D_DAOUT_PLANAR_STRIDE", (uint32_t)p->plane_stride);
}

/* ... and a merge the other way round. */
static void merge_strides(struct harness *h, const struct planar_layout *p)
{
    wr(h, "RBK.D_DAIN_LINE_STRIDE", (uint32_t)p->plane_line);
    wr(h, "RBK.D_DAIN_PLANAR_STRIDE", (uint32_t)p->plane_stride);
    wr(h, "RBK.D_DAOUT_LINE_STRIDE", (uint32_t)p->cube_line);
    wr(h, "RBK.D_DAOUT_SURF_STRIDE", (uint32_t)p->cube_surf);
}

static void check_split(const struct rbk_case *rc)
{
    struct harness *h = harness_new("nv_full");
    struct planar_layout p = planar_of(rc);
    common_regs(h, rc);
    split_strides(h, &p);
    size_t in_bytes = p.cube_surf * p.surfaces, out_bytes = p.plane_stride * rc->c_in;
    uint8_t *src = random_bytes(in_bytes, rc->w * 3 + rc->c_in);
    uint8_t *dst = run_on(h, src, in_bytes, out_bytes);
    size_t line_bytes = (size_t)rc->w * p.bpe;
    size_t written = line_bytes < ATOM ? ATOM : (line_bytes + ATOM - 1) / ATOM * ATOM;
    for (unsigned c = 0; c < rc->c_in; c++)
        for (unsigned y = 0; y < rc->h; y++) {
            const uint8_t *plane = dst + c * p.plane_stride + y * p.plane_line;
            for (unsigned x = 0; x < rc->w; x++)
                assert_memory_equal(
                    plane + x * p.bpe,
                    src + feature_offset(c, y, x, p.cube_line, p.cube_surf, ATOM, p.bpe), p.bpe);
            for (size_t b = line_bytes; b < written; b++) /* the last atom is zero-filled */
                assert_int_equal(plane[b], 0);
            for (size_t b = written; b < p.plane_line; b++)
                assert_int_equal(plane[b], 0xee);
        }
    free(src);
    free(dst);
    harness_free(h);
}

static void check_merge(const struct rbk_case *rc)
{
    struct harness *h = harness_new("nv_full");
    struct planar_layout p = planar_of(rc);
    common_regs(h, rc);
    merge_strides(h, &p);
    size_t in_bytes = p.plane_stride * (rc->c_in + 1), out_bytes = p.cube_surf * p.surfaces;
    uint8_t *src = random_bytes(in_bytes, rc->w * 5 + rc->c_in);
    uint8_t *dst = run_on(h, src, in_bytes, out_bytes);
    for (unsigned c = 0; c < p.surfaces * p.cpa; c++)
        for (unsigned y = 0; y < rc->h; y++)
            for (unsigned x = 0; x < rc->w; x++) {
                const uint8_t *got =
                    dst + feature_offset(c, y, x, p.cube_line, p.cube_surf, ATOM, p.bpe);
                if (c < rc->c_in) {
                    const uint8_t *want = src + c * p.plane_stride + y * p.plane_line + x * p.bpe;
                    assert_memory_equal(got, want, p.bpe);
                } else {
                    for (unsigned b = 0; b < p.bpe; b++) /* channels past the planes: zero */
                        assert_int_equal(got[b], 0);
                }
            }
    assert_int_equal(dst[rc->w * ATOM], 0xee);
    free(src);
    free(dst);
    harness_free(h);
}

static void test_split(void **state)
{
    (void)state;
    static const struct rbk_case cases[] = {
        {1, 0, 70, 3, 37, 37, 1, 1}, /* int8: a 64-element chunk and a 6-element one */
        {1, 1, 20, 2, 20, 20, 1, 1}, /* int16 */
        {1, 0, 5, 2, 3, 3, 1, 1},    /* lines shorter than an atom */
        {1, 0, 128, 1, 32, 32, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_split(&cases[i]);
}

static void test_merge(void **state)
{
    (void)state;
    static const struct rbk_case cases[] = {
        {2, 0, 70, 3, 37, 37, 1, 1},
        {2, 1, 20, 2, 20, 20, 1, 1},
        {2, 0, 5, 2, 3, 3, 1, 1},
        {2, 2, 65, 1, 16, 16, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_merge(&cases[i]);
}

/* Split then merge gives the cube back. */
static void test_split_merge_round_trip(void **state)
{
    (void)state;
    struct rbk_case sp = {1, 0, 33, 4, 45, 45, 1, 1};
    struct planar_layout p = planar_of(&sp);
    struct harness *h = harness_new("nv_full");
    size_t cube = p.cube_surf * p.surfaces;
    uint8_t *orig = random_bytes(cube, 1234), *back = malloc(cube);
    assert_non_null(back);
    mem_put(h, SRC, orig, cube);
    common_regs(h, &sp);
    split_strides(h, &p);
    run(h);
    /* merge from DST back to SRC + 64 MiB, in the other register group */
    wr(h, "RBK.S_POINTER", 1);
    struct rbk_case mg = sp;
    mg.mode = 2;
    common_regs(h, &mg);
    wr(h, "RBK.D_DAIN_ADDR_LOW", (uint32_t)DST);
    wr(h, "RBK.D_DAOUT_ADDR_LOW", (uint32_t)(SRC + (64u << 20)));
    merge_strides(h, &p);
    h->n_done = 0;
    run(h);
    mem_get(h, SRC + (64u << 20), back, cube);
    for (unsigned c = 0; c < sp.c_in; c++)
        for (unsigned y = 0; y < sp.h; y++)
            for (unsigned x = 0; x < sp.w; x++) {
                uint64_t o = feature_offset(c, y, x, p.cube_line, p.cube_surf, ATOM, 1);
                assert_int_equal(back[o], orig[o]);
            }
    free(orig);
    free(back);
    harness_free(h);
}

/* ---------------------------------------------------------------- diagnostics */

static void test_rules_and_absence(void **state)
{
    (void)state;
    struct harness *h = harness_new("nv_full");
    struct rbk_case sp = {1, 0, 8, 1, 8, 8, 1, 1};
    common_regs(h, &sp);
    wr(h, "RBK.D_DAOUT_ADDR_LOW", (uint32_t)DST + 32); /* planar output not 64-byte aligned */
    wr(h, "RBK.D_DAIN_LINE_STRIDE", 256);
    wr(h, "RBK.D_DAOUT_LINE_STRIDE", 64);
    wr(h, "RBK.D_DAOUT_PLANAR_STRIDE", 64);
    launch(h);
    harness_expect_diag_and_done(h, "rbk.planar_align", 0);
    harness_free(h);

    h = harness_new("nv_full");
    wr(h, "RBK.D_MISC_CFG.RUBIK_MODE", 3);
    launch(h);
    harness_expect_diag_and_done(h, "rbk.mode", 0);
    harness_free(h);

    h = harness_new("nv_full"); /* a contraction far too large */
    struct rbk_case big = {0, 0, 8192, 8192, 0, 8192, 32, 32};
    common_regs(h, &big);
    launch(h);
    harness_expect_diag_once(h, "rbk.contract_width", 0);
    harness_expect_diag_and_done(h, NULL, DLA_DIAG_UNSUPPORTED);
    harness_free(h);

    /* nv_small has no RUBIK: programming it is a clear diagnostic */
    h = harness_new("nv_small");
    launch(h);
    assert_true(harness_count(h, NULL, DLA_DIAG_FEATURE_ABSENT) +
                    harness_count(h, NULL, DLA_DIAG_CSB_UNMAPPED) >=
                1);
    assert_int_equal(h->n_done, 0);
    harness_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contract),
        cmocka_unit_test(test_contract_held_whole),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_split_merge_round_trip),
        cmocka_unit_test(test_rules_and_absence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
