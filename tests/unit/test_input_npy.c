/* --input FILE.npy through input_tensor_fill: int8 into x32 atoms in each
 * accepted shape, int16, fp16 bits as they are and float32/float64 rounded
 * as the runtime rounds (ties away from zero), real values into int8 with
 * --input-scale (round to nearest, saturation warned), and the refusals:
 * another dtype, another shape, real values without a scale, a malformed
 * file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/cube.h"
#include "num/fp16.h"
#include "runtime/runtime.h"
#include "tensor/input_tensor.h"
#include "tensor/npy.h"
#include "tensor_loadable.h"


/* A .npy file of the array; its path in path (at least 32 bytes). */
static void npy_file(char *path, enum npy_dtype t, unsigned ndim, const uint64_t *shape,
                     const void *data)
{
    temp_file_with(path, "", 0);
    char err[256];
    if (!npy_write(path, t, ndim, shape, data, err, sizeof err))
        fail_msg("%s", err);
}

static bool fill(struct placed *p, const char *path, double scale, char *warn, char *err)
{
    struct input_opts o = {.raw = path, .scale = scale};
    return input_tensor_fill(&p->rt, p->d, &o, warn, 256, err, 512);
}

/* 3 channels, 2 lines, 5 columns of int8 in 32-byte atoms. */
static const struct tensor_spec int8_spec = {LD_TYPE_INT8, LD_PIXEL_FEATURE, 3, 2, 5, 160, 320,
                                             320};

static void check_int8(struct placed *p, const int8_t *v)
{
    uint8_t mem[320];
    dla_mem_read(p->d, DLA_DRAM, p->rt.mem[1].addr, mem, sizeof mem);
    uint8_t want[320] = {0};
    for (unsigned c = 0; c < 3; c++)
        for (unsigned y = 0; y < 2; y++)
            for (unsigned x = 0; x < 5; x++)
                want[feature_offset(c, y, x, 160, 320, 32, 1)] = (uint8_t)v[(c * 2 + y) * 5 + x];
    assert_memory_equal(mem, want, sizeof want);
}

static void test_int8_shapes(void **state)
{
    (void)state;
    int8_t v[30];
    for (int i = 0; i < 30; i++)
        v[i] = (int8_t)(i * 9 - 128);
    /* (N,C,H,W), (C,H,W), flat, and any shape that is (C,H,W) without its 1s */
    static const struct {
        unsigned ndim;
        uint64_t shape[4];
    } shapes[] = {{4, {1, 3, 2, 5}}, {3, {3, 2, 5}}, {1, {30}}, {4, {3, 1, 2, 5}}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        struct placed p;
        place(&p, &int8_spec);
        char path[32], warn[256], err[512];
        npy_file(path, NPY_I8, shapes[i].ndim, shapes[i].shape, v);
        if (!fill(&p, path, 0, warn, err))
            fail_msg("%s", err);
        assert_string_equal(warn, "");
        check_int8(&p, v);
        unlink(path);
        unplace(&p);
    }
}

static void test_int16_and_fp16(void **state)
{
    (void)state;
    struct tensor_spec sp = {LD_TYPE_INT16, LD_PIXEL_FEATURE, 2, 1, 3, 96, 96, 96};
    struct placed p;
    place(&p, &sp);
    char path[32], warn[256], err[512];
    const int16_t v16[6] = {-32768, 32767, 1, -1, 300, 0};
    uint64_t shape[4] = {1, 2, 1, 3};
    npy_file(path, NPY_I16, 4, shape, v16);
    assert_true(fill(&p, path, 0, warn, err));
    for (unsigned c = 0; c < 2; c++)
        for (unsigned x = 0; x < 3; x++) {
            uint8_t b[2];
            dla_mem_read(p.d, DLA_DRAM, p.rt.mem[1].addr + feature_offset(c, 0, x, 96, 96, 32, 2),
                         b, 2);
            assert_int_equal(feature_load(b, 2, false), v16[c * 3 + x]);
        }
    unlink(path);
    unplace(&p);

    sp.data_type = LD_TYPE_HALF;
    place(&p, &sp);
    /* 1 + 2^-11 lies halfway between two halves: away from zero is 0x3c01,
     * to even would be 0x3c00 */
    const float f32[6] = {1.0f + 0x1p-11f, -(1.0f + 0x1p-11f), 0.5f, 65504.0f, 1e6f, -0.0f};
    const uint16_t want[6] = {0x3c01, 0xbc01, 0x3800, 0x7bff, 0x7c00, 0x8000};
    for (int kind = 0; kind < 3; kind++) {
        if (kind == 0) {
            npy_file(path, NPY_F32, 4, shape, f32);
        } else if (kind == 1) {
            double f64[6];
            for (int i = 0; i < 6; i++)
                f64[i] = f32[i];
            npy_file(path, NPY_F64, 3, shape + 1, f64);
        } else {
            npy_file(path, NPY_F16, 4, shape, want);
        }
        if (!fill(&p, path, 0, warn, err))
            fail_msg("%s", err);
        for (unsigned c = 0; c < 2; c++)
            for (unsigned x = 0; x < 3; x++) {
                uint8_t b[2];
                dla_mem_read(p.d, DLA_DRAM,
                             p.rt.mem[1].addr + feature_offset(c, 0, x, 96, 96, 32, 2), b, 2);
                assert_int_equal(feature_load(b, 2, true), want[c * 3 + x]);
            }
        unlink(path);
    }
    unplace(&p);
}

/* Real values into int8 need the scale: refused without, quantized with. */
static void test_int8_from_real(void **state)
{
    (void)state;
    struct placed p;
    place(&p, &int8_spec);
    float f[30];
    int8_t q[30];
    for (int i = 0; i < 30; i++) {
        f[i] = (float)(i - 15) * 0.5f + 0.01f;
        q[i] = (int8_t)(i - 15);
    }
    f[29] = 100.0f; /* 200 steps: saturates */
    q[29] = 127;
    uint64_t shape[4] = {1, 3, 2, 5};
    char path[32], warn[256], err[512];
    npy_file(path, NPY_F32, 4, shape, f);
    assert_false(fill(&p, path, 0, warn, err));
    assert_non_null(strstr(err, "holds float32 (1, 3, 2, 5); the input tensor is 1x3x2x5 int8 "
                                "(NCHW): expected int8 values, or real values with "
                                "--input-scale S"));
    assert_true(fill(&p, path, 0.5, warn, err));
    check_int8(&p, q);
    assert_non_null(strstr(warn, "1 of 30 values beyond the int8 range at scale 0.5 saturated"));
    unlink(path);
    /* int8 values with a scale: the scale is not needed, and said so */
    npy_file(path, NPY_I8, 4, shape, q);
    assert_true(fill(&p, path, 0.5, warn, err));
    assert_non_null(strstr(warn, "--input-scale ignored"));
    unlink(path);
    unplace(&p);
}

static void test_refusals(void **state)
{
    (void)state;
    struct placed p;
    place(&p, &int8_spec);
    char path[32], warn[256], err[512];
    int16_t v[30] = {0};
    uint64_t shape[4] = {1, 3, 2, 5};
    npy_file(path, NPY_I16, 4, shape, v);
    assert_false(fill(&p, path, 0, warn, err));
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "holds int16 (1, 3, 2, 5); the input tensor is 1x3x2x5 int8 "
                                "(NCHW): expected int8"));
    unlink(path);
    uint64_t other[4] = {1, 3, 5, 2};
    npy_file(path, NPY_I8, 4, other, v);
    assert_false(fill(&p, path, 0, warn, err));
    assert_non_null(strstr(err, "holds int8 (1, 3, 5, 2); the input tensor is 1x3x2x5 int8 "
                                "(NCHW): expected shape (1, 3, 2, 5) or (3, 2, 5)"));
    unlink(path);
    uint64_t fewer[1] = {29};
    npy_file(path, NPY_I8, 1, fewer, v);
    assert_false(fill(&p, path, 0, warn, err));
    assert_non_null(strstr(err, "holds int8 (29,)"));
    unlink(path);
    /* a file cut short: the npy reader's message, naming the file */
    npy_file(path, NPY_I8, 4, shape, v);
    assert_int_equal(truncate(path, 140), 0);
    assert_false(fill(&p, path, 0, warn, err));
    assert_non_null(strstr(err, path));
    /* nothing was written */
    uint8_t mem[320], zero[320] = {0};
    dla_mem_read(p.d, DLA_DRAM, p.rt.mem[1].addr, mem, sizeof mem);
    assert_memory_equal(mem, zero, sizeof mem);
    unlink(path);
    /* a .npy given as --image says where it goes */
    npy_file(path, NPY_I8, 4, shape, v);
    struct input_opts o = {.image = path};
    assert_false(input_tensor_fill(&p.rt, p.d, &o, warn, sizeof warn, err, sizeof err));
    assert_non_null(strstr(err, "(a .npy? give it with --input)"));
    unlink(path);
    unplace(&p);
    double s;
    assert_false(input_parse_scale("0", &s, err, sizeof err));
    assert_false(input_parse_scale("nan", &s, err, sizeof err));
    assert_true(input_parse_scale("0.0078", &s, err, sizeof err));
    assert_true(s == 0.0078);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int8_shapes),
        cmocka_unit_test(test_int16_and_fp16),
        cmocka_unit_test(test_int8_from_real),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
