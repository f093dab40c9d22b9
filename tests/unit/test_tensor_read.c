/* tensor_read: every element of a tensor_info out of memory, in NCHW order,
 * for feature atoms (int8 in 32-byte atoms with gaps between lines and
 * surfaces, int16 and fp16 in 16-channel atoms, batches), pitch-linear
 * pixels, BDMA-style bytes; boxes; the element helpers; and the refusals
 * (empty or absurd shapes, strides that cannot hold an element, memory
 * outside the space). */
#include <math.h>
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
#include "tensor/tensor_read.h"

static int32_t value_at(uint8_t elem, uint32_t b, uint32_t c, uint32_t y, uint32_t x)
{
    int32_t v = (int32_t)((b * 7919u + c * 131u + y * 17u + x * 3u) % 251u) - 125;
    if (elem == TENSOR_FP16)
        return fp16_from_float((float)v / 8);
    if (elem == TENSOR_INT16)
        return v * 257;
    if (elem == TENSOR_UINT8)
        return v + 125;
    return v;
}

/* Write t's elements where the layout says (independently of
 * tensor_element_addr: cube.h's feature_offset or the pitch formula). */
static void write_tensor(struct dla *d, const struct tensor_info *t, uint64_t batch_stride)
{
    unsigned bpe = tensor_elem_bytes(t->elem);
    for (uint32_t b = 0; b < t->n; b++)
        for (uint32_t c = 0; c < t->c; c++)
            for (uint32_t y = 0; y < t->h; y++)
                for (uint32_t x = 0; x < t->w; x++) {
                    uint64_t off = t->pitch
                                       ? y * t->line_stride + x * t->elem_stride + c * bpe
                                       : feature_offset(c, y, x, t->line_stride, t->surf_stride,
                                                        (unsigned)t->elem_stride, bpe);
                    uint8_t e[2];
                    feature_store(e, bpe, value_at(t->elem, b, c, y, x));
                    assert_int_equal(dla_mem_write(d, (enum dla_space)t->space,
                                                   t->addr + b * batch_stride + off, e, bpe),
                                     MEM_OK);
                }
}

static void check_all(struct dla *d, const struct tensor_info *t)
{
    struct tensor_data td;
    char err[256];
    if (!tensor_read(d, t, &td, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(td.count, (uint64_t)t->n * t->c * t->h * t->w);
    uint64_t i = 0;
    for (uint32_t b = 0; b < t->n; b++)
        for (uint32_t c = 0; c < t->c; c++)
            for (uint32_t y = 0; y < t->h; y++)
                for (uint32_t x = 0; x < t->w; x++, i++) {
                    assert_int_equal(tensor_data_index(&td, b, c, y, x), i);
                    int32_t want = value_at(t->elem, b, c, y, x);
                    if (t->elem == TENSOR_FP16)
                        want &= 0xffff;
                    assert_int_equal(tensor_elem_raw(t->elem, td.data, i), want);
                }
    tensor_data_free(&td);
    assert_null(td.data);
}

static void test_feature_int8_gaps(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    /* 40 channels: two surfaces, the second partly used; lines and surfaces
     * further apart than packed */
    struct tensor_info t = {.space = DLA_DRAM,
                            .addr = 0x80001000,
                            .n = 1,
                            .c = 40,
                            .h = 3,
                            .w = 5,
                            .elem = TENSOR_INT8,
                            .elem_stride = 32,
                            .line_stride = 5 * 32 + 64,
                            .surf_stride = 4096};
    write_tensor(d, &t, 0);
    check_all(d, &t);
    /* the same bytes as int16 in 16-channel atoms and as fp16 */
    t.elem = TENSOR_INT16;
    t.c = 20;
    write_tensor(d, &t, 0);
    check_all(d, &t);
    t.elem = TENSOR_FP16;
    write_tensor(d, &t, 0);
    check_all(d, &t);
    dla_destroy(d);
}

static void test_batches_and_small_atoms(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_find("nv_small"), NULL);
    struct tensor_info t = {.space = DLA_DRAM,
                            .addr = 0x80000000,
                            .n = 3,
                            .c = 10,
                            .h = 2,
                            .w = 3,
                            .elem = TENSOR_INT8,
                            .elem_stride = 8,
                            .line_stride = 24,
                            .surf_stride = 48,
                            .batch_stride = 1000};
    write_tensor(d, &t, 1000);
    check_all(d, &t);
    /* batch stride 0: the batches follow each other (two surfaces each) */
    t.batch_stride = 0;
    assert_int_equal(tensor_batch_stride(&t), 96);
    write_tensor(d, &t, 96);
    check_all(d, &t);
    dla_destroy(d);
}

static void test_pitch_and_bytes(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_default(), NULL);
    /* three channels in four-byte pixels, rows 64 bytes apart */
    struct tensor_info t = {.space = DLA_DRAM,
                            .addr = 0x80000100,
                            .n = 1,
                            .c = 3,
                            .h = 4,
                            .w = 7,
                            .elem = TENSOR_UINT8,
                            .pitch = true,
                            .elem_stride = 4,
                            .line_stride = 64};
    write_tensor(d, &t, 0);
    check_all(d, &t);
    assert_int_equal(tensor_element_addr(&t, 0, 2, 3, 1), 0x80000100 + 3 * 64 + 4 + 2);
    /* bytes: one byte per "atom", c counts surfaces */
    struct tensor_info bytes = {.space = DLA_DRAM,
                                .addr = 0x80010000,
                                .n = 1,
                                .c = 2,
                                .h = 3,
                                .w = 100,
                                .elem = TENSOR_UINT8,
                                .elem_stride = 1,
                                .line_stride = 128,
                                .surf_stride = 1024};
    assert_int_equal(tensor_element_addr(&bytes, 0, 1, 2, 99), 0x80010000 + 1024 + 256 + 99);
    write_tensor(d, &bytes, 0);
    check_all(d, &bytes);
    dla_destroy(d);
}

static void test_box(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_default(), NULL);
    struct tensor_info t = {.space = DLA_DRAM,
                            .addr = 0x80000000,
                            .n = 1,
                            .c = 40,
                            .h = 6,
                            .w = 9,
                            .elem = TENSOR_INT8,
                            .elem_stride = 32,
                            .line_stride = 9 * 32,
                            .surf_stride = 6 * 9 * 32};
    write_tensor(d, &t, 0);
    struct tensor_box box = {0, 1, 30, 35, 2, 5, 4, 9};
    assert_int_equal(tensor_box_count(&box), 5 * 3 * 5);
    struct tensor_data td;
    char err[256];
    assert_true(tensor_read_box(d, &t, &box, &td, err, sizeof err));
    assert_int_equal(td.c, 5);
    assert_int_equal(td.h, 3);
    assert_int_equal(td.w, 5);
    for (uint32_t c = 30; c < 35; c++)
        for (uint32_t y = 2; y < 5; y++)
            for (uint32_t x = 4; x < 9; x++)
                assert_int_equal(
                    tensor_elem_raw(t.elem, td.data, tensor_data_index(&td, 0, c, y, x)),
                    value_at(t.elem, 0, c, y, x));
    tensor_data_free(&td);
    /* outside the shape, or empty */
    box.c1 = 41;
    assert_false(tensor_read_box(d, &t, &box, &td, err, sizeof err));
    assert_non_null(strstr(err, "c=30:41"));
    assert_non_null(strstr(err, "1x40x6x9"));
    box = (struct tensor_box){0, 1, 3, 3, 0, 1, 0, 1};
    assert_false(tensor_read_box(d, &t, &box, &td, err, sizeof err));
    dla_destroy(d);
}

static void test_refusals(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_default(), NULL);
    struct tensor_data td;
    char err[256];
    struct tensor_info t = {.name = "big",
                            .space = DLA_DRAM,
                            .addr = 0x80000000,
                            .n = 1,
                            .c = 65536,
                            .h = 65536,
                            .w = 2,
                            .elem = TENSOR_FP16,
                            .elem_stride = 32,
                            .line_stride = 64,
                            .surf_stride = 4096};
    assert_false(tensor_read(d, &t, &td, err, sizeof err));
    assert_non_null(strstr(err, "tensor big: 17179869184 bytes"));
    assert_null(td.data);
    /* just over the bound: 8193 x 8192 x 2 int16 is 256 MiB and 32 KiB */
    t.c = 8193;
    t.h = 8192;
    t.elem = TENSOR_INT16;
    assert_false(tensor_read(d, &t, &td, err, sizeof err));
    assert_non_null(strstr(err, "at most 256 MiB are read"));
    t.elem = TENSOR_FP16;
    t.c = 0;
    assert_false(tensor_read(d, &t, &td, err, sizeof err));
    assert_non_null(strstr(err, "empty dimension"));
    t.c = 4;
    t.h = 2;
    t.elem_stride = 1; /* an fp16 element does not fit */
    assert_false(tensor_read(d, &t, &td, err, sizeof err));
    assert_non_null(strstr(err, "cannot hold"));
    t.elem_stride = 32;
    t.line_stride = 1ull << 41;
    assert_false(tensor_read(d, &t, &td, err, sizeof err));
    assert_non_null(strstr(err, "2^40"));
    /* past the end of the address space */
    struct tensor_info far = {.space = DLA_DRAM,
                              .addr = 0xffffffffffffff00ull,
                              .n = 1,
                              .c = 1,
                              .h = 1,
                              .w = 16,
                              .elem = TENSOR_INT8,
                              .elem_stride = 32,
                              .line_stride = 512,
                              .surf_stride = 512};
    assert_false(tensor_read(d, &far, &td, err, sizeof err));
    assert_non_null(strstr(err, "past the end of 64-bit addresses"));
    /* inside 64 bits, beyond nv_small's 32-bit addresses */
    struct dla *small = dla_create(dla_config_find("nv_small"), NULL);
    far.addr = 0xfffffff0ull;
    assert_false(tensor_read(small, &far, &td, err, sizeof err));
    assert_non_null(strstr(err, "dram 0xfffffff0 + 512 bytes is outside the memory space"));
    dla_destroy(small);
    far.elem = 9;
    assert_false(tensor_read(d, &far, &td, err, sizeof err));
    assert_non_null(strstr(err, "element type 9"));
    dla_destroy(d);
}

static void test_elements(void **state)
{
    (void)state;
    assert_int_equal(tensor_elem_bytes(TENSOR_INT8), 1);
    assert_int_equal(tensor_elem_bytes(TENSOR_UINT8), 1);
    assert_int_equal(tensor_elem_bytes(TENSOR_INT16), 2);
    assert_int_equal(tensor_elem_bytes(TENSOR_FP16), 2);
    uint8_t e = 0;
    assert_true(tensor_elem_parse("FP16", &e));
    assert_int_equal(e, TENSOR_FP16);
    assert_true(tensor_elem_parse("float16", &e));
    assert_int_equal(e, TENSOR_FP16);
    assert_true(tensor_elem_parse("uint8", &e));
    assert_int_equal(e, TENSOR_UINT8);
    assert_false(tensor_elem_parse("int32", &e));
    assert_string_equal(tensor_elem_name(TENSOR_INT16), "int16");
    const uint16_t halves[] = {0x3c00, 0xc500, 0x7c00, 0xfc00, 0x7e00, 0x0001};
    char buf[32];
    assert_true(tensor_elem_value(TENSOR_FP16, halves, 0) == 1.0);
    assert_true(tensor_elem_value(TENSOR_FP16, halves, 1) == -5.0);
    assert_true(isinf(tensor_elem_value(TENSOR_FP16, halves, 2)));
    assert_true(tensor_elem_value(TENSOR_FP16, halves, 3) < 0);
    assert_true(isnan(tensor_elem_value(TENSOR_FP16, halves, 4)));
    assert_true(tensor_elem_value(TENSOR_FP16, halves, 5) == ldexp(1.0, -24));
    assert_int_equal(tensor_elem_raw(TENSOR_FP16, halves, 1), 0xc500);
    tensor_elem_format(TENSOR_FP16, halves, 1, buf, sizeof buf);
    assert_string_equal(buf, "-5");
    tensor_elem_format(TENSOR_FP16, halves, 2, buf, sizeof buf);
    assert_string_equal(buf, "inf");
    const int8_t i8[] = {-128, 127};
    tensor_elem_format(TENSOR_INT8, i8, 0, buf, sizeof buf);
    assert_string_equal(buf, "-128");
    const uint8_t u8[] = {255};
    assert_true(tensor_elem_value(TENSOR_UINT8, u8, 0) == 255);
    const int16_t i16[] = {-32768};
    assert_int_equal(tensor_elem_raw(TENSOR_INT16, i16, 0), -32768);
    assert_true(tensor_real_value(TENSOR_INT8, -12, 0.5) == -6);
    assert_true(tensor_real_value(TENSOR_INT8, -12, 0) == -12);
    assert_true(tensor_real_value(TENSOR_FP16, 1.5, 0.5) == 1.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_feature_int8_gaps), cmocka_unit_test(test_batches_and_small_atoms),
        cmocka_unit_test(test_pitch_and_bytes),   cmocka_unit_test(test_box),
        cmocka_unit_test(test_refusals),          cmocka_unit_test(test_elements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
