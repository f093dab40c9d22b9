/* The address models of the aie and sophon plugins (plugins/aie_tiling.h,
 * plugins/sophon_layout.h): AIE-ML tiling parameters as seed 003 defines
 * them (traversal order, overlap, zero padding, the 32-bit alignment rule,
 * strided accesses turned into tiling parameters), and the BM1684x layouts
 * of seed 004 with its worked examples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../plugins/aie_tiling.h"
#include "../../plugins/sophon_layout.h"

/* ---------------------------------------------------------------- aie */

/* The sequence as text: addresses, "p" for a padding element. */
struct seq {
    char text[4096];
    uint64_t n;
};

static bool seq_piece(void *ctx, bool pad, int64_t addr, uint64_t n)
{
    struct seq *s = ctx;
    for (uint64_t i = 0; i < n; i++) {
        size_t len = strlen(s->text);
        if (pad)
            snprintf(s->text + len, sizeof s->text - len, "%sp", s->n ? " " : "");
        else
            snprintf(s->text + len, sizeof s->text - len, "%s%lld", s->n ? " " : "",
                     (long long)(addr + (int64_t)i));
        s->n++;
    }
    return true;
}

static const char *sequence(const struct aie_tiling *t)
{
    static struct seq s;
    memset(&s, 0, sizeof s);
    assert_true(aie_generate(t, NULL, seq_piece, &s));
    assert_int_equal(s.n, aie_elements(t));
    return s.text;
}

static void test_aie_traversal_order(void **state)
{
    (void)state;
    /* an 4x4 buffer read in 2x2 tiles: loop 0 (dimension 0) is innermost */
    struct aie_tiling t = {.n_dims = 2,
                           .buffer_dim = {4, 4},
                           .tiling_dim = {2, 2},
                           .n_loops = 2,
                           .loop = {{0, 2, 2}, {1, 2, 2}},
                           .elem_bits = 32};
    assert_string_equal(sequence(&t), "0 1 4 5 2 3 6 7 8 9 12 13 10 11 14 15");
    /* the loops swapped: down the columns first */
    t.loop[0] = (struct aie_traversal){1, 2, 2};
    t.loop[1] = (struct aie_traversal){0, 2, 2};
    assert_string_equal(sequence(&t), "0 1 4 5 8 9 12 13 2 3 6 7 10 11 14 15");
}

static void test_aie_overlap_and_padding(void **state)
{
    (void)state;
    /* a stride (2) below the tile (3) overlaps; the last tile runs past
     * the buffer (6) and is padded */
    struct aie_tiling t = {.n_dims = 1,
                           .buffer_dim = {6},
                           .tiling_dim = {3},
                           .n_loops = 1,
                           .loop = {{0, 2, 3}},
                           .elem_bits = 32};
    assert_string_equal(sequence(&t), "0 1 2 2 3 4 4 5 p");
    /* a negative offset pads in front */
    t.offset[0] = -2;
    assert_string_equal(sequence(&t), "p p 0 0 1 2 2 3 4");
    /* the boundary: real data ends before the buffer does */
    t.offset[0] = 0;
    t.has_boundary = true;
    t.boundary_dim[0] = 4;
    assert_string_equal(sequence(&t), "0 1 2 2 3 p p p p");
    /* a row outside in dimension 1 is all padding */
    struct aie_tiling r = {.n_dims = 2,
                           .buffer_dim = {2, 2},
                           .tiling_dim = {2, 2},
                           .offset = {0, -1},
                           .elem_bits = 32};
    assert_string_equal(sequence(&r), "p p 0 1");
}

static void test_aie_alignment_rule(void **state)
{
    (void)state;
    char why[256];
    struct aie_tiling t = {.n_dims = 2,
                           .buffer_dim = {8, 4},
                           .tiling_dim = {4, 2},
                           .n_loops = 1,
                           .loop = {{0, 4, 2}},
                           .elem_bits = 16};
    assert_false(aie_tiling_invalid(&t, why, sizeof why));
    t.tiling_dim[0] = 3; /* 16-bit data in pairs */
    assert_true(aie_tiling_invalid(&t, why, sizeof why));
    assert_non_null(strstr(why, "tiling_dimension[0] = 3 is not a multiple of 2"));
    assert_non_null(strstr(why, "16-bit data are accessed as pairs"));
    t.tiling_dim[0] = 4;
    t.elem_bits = 8; /* 8-bit in fours: the stride 4 is fine, offset 2 is not */
    t.offset[0] = 2;
    assert_true(aie_tiling_invalid(&t, why, sizeof why));
    assert_non_null(strstr(why, "offset[0] = 2 is not a multiple of 4"));
    t.offset[0] = 0;
    t.elem_bits = 4; /* 4-bit in eights */
    assert_true(aie_tiling_invalid(&t, why, sizeof why));
    assert_non_null(strstr(why, "tiling_dimension[0] = 4 is not a multiple of 8"));
    assert_non_null(strstr(why, "4-bit data are accessed as eights"));
    t.elem_bits = 32;
    t.loop[0].dimension = 2; /* the buffer has two */
    assert_true(aie_tiling_invalid(&t, why, sizeof why));
    assert_non_null(strstr(why, "tile_traversal[0].dimension = 2"));
    t.elem_bits = 16;
    t.loop[0] = (struct aie_traversal){0, 3, 2};
    assert_true(aie_tiling_invalid(&t, why, sizeof why));
    assert_non_null(strstr(why, "tile_traversal[0].stride = 3 is not a multiple of 2"));
}

/* The byte addresses of an access, walked directly. */
struct flat {
    uint64_t addr[4096];
    size_t n;
};

static void walk_access(const struct aie_access *a, unsigned elem, struct flat *f)
{
    uint64_t k[AIE_MAX_LOOPS] = {0};
    f->n = 0;
    for (;;) {
        int64_t at = (int64_t)a->base + a->offset_bytes;
        for (unsigned i = 0; i < a->n_loops; i++)
            at += (int64_t)k[i] * a->loop[i].stride;
        for (uint64_t b = 0; b < a->run_bytes; b += elem)
            f->addr[f->n++] = (uint64_t)at + b;
        unsigned i = 0;
        while (i < a->n_loops && ++k[i] == a->loop[i].count)
            k[i++] = 0;
        if (i >= a->n_loops)
            return;
    }
}

struct from_tiling {
    struct flat *f;
    uint64_t base;
    unsigned elem;
};

static bool collect_piece(void *ctx, bool pad, int64_t addr, uint64_t n)
{
    struct from_tiling *c = ctx;
    assert_false(pad);
    for (uint64_t i = 0; i < n; i++)
        c->f->addr[c->f->n++] = c->base + (uint64_t)(addr + (int64_t)i) * c->elem;
    return true;
}

static void expect_same_addresses(const struct aie_access *a, unsigned elem)
{
    static struct flat want, got;
    walk_access(a, elem, &want);
    struct aie_tiling t;
    assert_true(aie_from_access_natural(a, elem, &t));
    char why[256];
    assert_false(aie_tiling_invalid(&t, why, sizeof why));
    got.n = 0;
    struct from_tiling c = {&got, a->base, elem};
    assert_true(aie_generate(&t, NULL, collect_piece, &c));
    assert_int_equal(got.n, want.n);
    assert_memory_equal(got.addr, want.addr, want.n * sizeof want.addr[0]);
}

/* NVDLA's walks (a line of atoms, lines, surfaces; CDP's lines outside
 * surfaces; PDP's overlapping width splits; strides that do not divide)
 * give tiling parameters that generate exactly those addresses. */
static void test_aie_from_access(void **state)
{
    (void)state;
    /* SDP: 4 atoms of 32 bytes per line, 3 lines of 256, 2 surfaces of 1024 */
    struct aie_access a = {.base = 0x1000, .run_bytes = 128, .n_loops = 2};
    a.loop[0].count = 3, a.loop[0].stride = 256;
    a.loop[1].count = 2, a.loop[1].stride = 1024;
    expect_same_addresses(&a, 1);
    expect_same_addresses(&a, 2);
    struct aie_tiling t;
    assert_true(aie_from_access_natural(&a, 1, &t));
    assert_int_equal(t.n_dims, 3);
    assert_int_equal(t.buffer_dim[0], 256);
    assert_int_equal(t.buffer_dim[1], 4);
    assert_int_equal(t.tiling_dim[0], 128);
    assert_int_equal(t.tiling_dim[1], 3); /* the line loop became part of the tile */
    assert_int_equal(t.tiling_dim[2], 2);
    assert_int_equal(t.n_loops, 0);
    assert_int_equal(aie_bd_count(&t, 3), 1);
    /* CDP: surfaces inside lines stay a traversal loop */
    a.loop[0].count = 2, a.loop[0].stride = 1024;
    a.loop[1].count = 3, a.loop[1].stride = 256;
    expect_same_addresses(&a, 1);
    assert_true(aie_from_access_natural(&a, 1, &t));
    assert_int_equal(t.n_loops, 1);
    assert_int_equal(t.loop[0].dimension, 1);
    assert_int_equal(t.loop[0].wrap, 3);
    /* PDP's middle splits: 3 tiles of 5 atoms every 4 atoms overlap */
    struct aie_access p = {.base = 0, .offset_bytes = 96, .run_bytes = 160, .n_loops = 3};
    p.loop[0].count = 4, p.loop[0].stride = 640;
    p.loop[1].count = 2, p.loop[1].stride = 2560;
    p.loop[2].count = 3, p.loop[2].stride = 128;
    expect_same_addresses(&p, 1);
    assert_true(aie_from_access_natural(&p, 1, &t));
    assert_int_equal(t.offset[0], 96);
    assert_int_equal(t.loop[t.n_loops - 1].stride, 128);
    assert_true(t.tiling_dim[0] > t.loop[t.n_loops - 1].stride); /* overlapping tiles */
    /* a surface stride that is no multiple of the line stride */
    struct aie_access o = {.base = 0x40, .run_bytes = 64, .n_loops = 2};
    o.loop[0].count = 5, o.loop[0].stride = 96;
    o.loop[1].count = 3, o.loop[1].stride = 544;
    expect_same_addresses(&o, 2);
    /* five loops: more than a 3D BD with one iteration holds */
    struct aie_access m = {.base = 0, .run_bytes = 4, .n_loops = 5};
    for (unsigned i = 0; i < 5; i++)
        m.loop[i].count = 2, m.loop[i].stride = (int64_t)(8u << (2 * i)) + 4;
    expect_same_addresses(&m, 4);
    assert_true(aie_from_access_natural(&m, 4, &t));
    assert_true(aie_bd_count(&t, 3) > 1);
}

/* ---------------------------------------------------------------- sophon */

static struct sophon_tensor tensor(uint64_t n, uint64_t c, uint64_t h, uint64_t w, unsigned bytes,
                                   unsigned npus, unsigned start, enum sophon_layout layout)
{
    struct sophon_tensor t = {.n = n,
                              .c = c,
                              .h = h,
                              .w = w,
                              .bytes = bytes,
                              .npus = npus,
                              .start = start,
                              .layout = layout};
    sophon_strides(&t);
    return t;
}

static void expect_strides(const struct sophon_tensor *t, uint64_t n, uint64_t c, uint64_t h,
                           uint64_t w)
{
    assert_int_equal(t->stride[0], n);
    assert_int_equal(t->stride[1], c);
    assert_int_equal(t->stride[2], h);
    assert_int_equal(t->stride[3], w);
}

/* Shape (4,3,2,2), 1-byte elements, with the seed's four stride choices. */
static void test_sophon_given_strides(void **state)
{
    (void)state;
    static const uint64_t strides[4][4] = {
        {12, 4, 2, 1}, {24, 4, 2, 1}, {24, 8, 4, 2}, {24, 8, 4, 1}};
    /* where element (3, 2, 1, 1) lands with each: n*N + h*H + w*W (C = 3
     * channels fit the 64 lanes, so each is in its own lane, row 0) */
    static const uint64_t offset[4] = {36 + 2 + 1, 72 + 2 + 1, 72 + 4 + 2, 72 + 4 + 1};
    for (int i = 0; i < 4; i++) {
        struct sophon_tensor t = tensor(4, 3, 2, 2, 1, SOPHON_NPUS, 0, SOPHON_STRIDES);
        memcpy(t.stride, strides[i], sizeof t.stride);
        struct sophon_place p = sophon_place(&t, 3, 2, 1, 1);
        assert_int_equal(p.lane, 2);
        assert_int_equal(p.offset, offset[i]);
        assert_int_equal(p.address, 2ull * SOPHON_LANE_BYTES + offset[i]);
        assert_int_equal(p.bank, 0);
    }
    /* (24, 8, 4, 2): every other byte is a gap, so the last element of a
     * lane ends 3*24 + 4 + 2 + 1 bytes in */
    struct sophon_tensor t = tensor(4, 3, 2, 2, 1, SOPHON_NPUS, 0, SOPHON_STRIDES);
    memcpy(t.stride, strides[2], sizeof t.stride);
    assert_int_equal(sophon_lane_bytes(&t), 79);
}

/* (2,3,4,5) fp16 over the seed's 4 NPUs, aligned and compact, from NPU 0 and 2. */
static void test_sophon_aligned_compact(void **state)
{
    (void)state;
    struct sophon_tensor t = tensor(2, 3, 4, 5, 2, 4, 0, SOPHON_ALIGNED);
    expect_strides(&t, 32, 32, 5, 1); /* H*W = 20 rounded to 32 16-bit elements */
    assert_int_equal(sophon_channels_per_npu(&t), 1);
    assert_int_equal(sophon_place(&t, 1, 2, 3, 4).lane, 2);
    assert_int_equal(sophon_place(&t, 1, 2, 3, 4).offset, (32 + 15 + 4) * 2);
    t = tensor(2, 3, 4, 5, 2, 4, 2, SOPHON_ALIGNED);
    expect_strides(&t, 64, 32, 5, 1); /* ceil((2 + 3) / 4) = 2 channels per NPU */
    assert_int_equal(sophon_channels_per_npu(&t), 2);
    struct sophon_place c2 = sophon_place(&t, 0, 2, 0, 0); /* wraps to NPU 0, row 1 */
    assert_int_equal(c2.lane, 0);
    assert_int_equal(c2.offset, 32 * 2);
    assert_int_equal(sophon_place(&t, 1, 0, 0, 0).lane, 2);
    assert_int_equal(sophon_place(&t, 1, 0, 0, 0).offset, 64 * 2);
    t = tensor(2, 3, 4, 5, 2, 4, 0, SOPHON_COMPACT);
    expect_strides(&t, 20, 20, 5, 1);
    t = tensor(2, 3, 4, 5, 2, 4, 2, SOPHON_COMPACT);
    expect_strides(&t, 40, 20, 5, 1);
    assert_int_equal(sophon_place(&t, 1, 2, 3, 4).offset, (40 + 20 + 15 + 4) * 2);
    assert_int_equal(sophon_addr_alignment(&t), 4);
    /* 8- and 32-bit elements align C to 64 and 16 elements */
    t = tensor(1, 1, 3, 7, 1, 64, 0, SOPHON_ALIGNED);
    expect_strides(&t, 64, 64, 7, 1);
    t = tensor(1, 1, 3, 7, 4, 64, 0, SOPHON_ALIGNED);
    expect_strides(&t, 32, 32, 7, 1);
    t = tensor(1, 1, 3, 7, 2, 64, 0, SOPHON_LINE_ALIGNED);
    expect_strides(&t, 96, 96, 32, 1);
    /* the seed's cases 3 and 4: C = X + 2 from NPU 0 and from NPU X - 1 */
    t = tensor(1, 66, 1, 1, 1, 64, 0, SOPHON_ALIGNED);
    assert_int_equal(sophon_channels_per_npu(&t), 2);
    t = tensor(1, 66, 1, 1, 1, 64, 63, SOPHON_ALIGNED);
    assert_int_equal(sophon_channels_per_npu(&t), 3);
}

/* The 2x40 fp16 matrix over 4 NPUs with w = 40, 20, 15, 8, 6. */
static void test_sophon_matrix(void **state)
{
    (void)state;
    static const struct {
        uint64_t w, c, c_stride, per_npu;
    } want[] = {{40, 1, 64, 1}, {20, 2, 32, 1}, {15, 3, 32, 1}, {8, 5, 32, 2}, {6, 7, 32, 2}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct sophon_tensor t = {.bytes = 2, .npus = 4};
        sophon_matrix(&t, 2, 40, want[i].w);
        sophon_strides(&t);
        assert_int_equal(t.n, 2);
        assert_int_equal(t.c, want[i].c);
        assert_int_equal(t.h, 1);
        expect_strides(&t, want[i].c_stride * want[i].per_npu, want[i].c_stride, want[i].w, 1);
        /* element 39 of row 1 is column (39 % w) of channel 39 / w */
        uint64_t c = 39 / want[i].w, x = 39 % want[i].w;
        struct sophon_place p = sophon_place(&t, 1, c, 0, x);
        assert_int_equal(p.lane, c % 4);
        assert_int_equal(p.offset, (t.stride[0] + (c / 4) * t.stride[1] + x) * 2);
    }
    /* w = 15: the third channel holds 10 elements, the rest is padding */
    struct sophon_tensor t = {.bytes = 2, .npus = 4};
    sophon_matrix(&t, 2, 40, 15);
    assert_true(sophon_holds_data(&t, 2, 0, 9));
    assert_false(sophon_holds_data(&t, 2, 0, 10));
    /* a vector is a 1-row matrix */
    sophon_matrix(&t, 1, 100, 30);
    sophon_strides(&t);
    assert_int_equal(t.c, 4);
    expect_strides(&t, 32, 32, 30, 1);
}

/* 64IC (int8) and 32IC (fp16) kernels. */
static void test_sophon_kernel(void **state)
{
    (void)state;
    struct sophon_tensor t = tensor(70, 2, 3, 3, 1, 64, 0, SOPHON_IC);
    expect_strides(&t, 64 * 9 * 2, 64 * 9 * 2, 64 * 3, 64);
    /* input channel 65 is in the second group of 64, element 1 of it */
    assert_int_equal(sophon_place(&t, 65, 1, 2, 1).offset, 64 * 9 + 2 * 192 + 64 + 1);
    assert_int_equal(sophon_place(&t, 65, 1, 2, 1).lane, 1);
    t = tensor(40, 1, 1, 2, 2, 64, 0, SOPHON_IC);
    expect_strides(&t, 32 * 2 * 2, 32 * 2 * 2, 32 * 2, 32);
    assert_int_equal(sophon_place(&t, 33, 0, 0, 1).offset, (32 * 2 + 32 + 1) * 2);
    /* banks: 16 KiB of a lane each */
    t = tensor(1, 1, 1, 8192, 4, 64, 0, SOPHON_ALIGNED);
    t.addr = 0x3000;
    assert_int_equal(sophon_place(&t, 0, 0, 0, 0).bank, 0);
    assert_int_equal(sophon_place(&t, 0, 0, 0, 4096).bank, 1);
    assert_int_equal(sophon_place(&t, 0, 0, 0, 8191).bank, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aie_traversal_order),  cmocka_unit_test(test_aie_overlap_and_padding),
        cmocka_unit_test(test_aie_alignment_rule),   cmocka_unit_test(test_aie_from_access),
        cmocka_unit_test(test_sophon_given_strides), cmocka_unit_test(test_sophon_aligned_compact),
        cmocka_unit_test(test_sophon_matrix),        cmocka_unit_test(test_sophon_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
