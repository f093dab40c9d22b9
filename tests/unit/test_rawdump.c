/* --rawdump text: nvdla_runtime's element order (channel, row, column),
 * one space after every element, the x32 / x8 / x16 image views it takes
 * of feature tensors, fp16 printed like a C++ stream prints a float with
 * the runtime's stable-hash substitutions, and its refusals. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "num/fp16.h"
#include "tensor/rawdump.h"
#include "tensor/tensor_layout.h"

static struct ld_tensor feature(uint8_t pixel_format, uint8_t data_type, int c, int h, int w,
                                uint32_t line, uint32_t surf, uint64_t size)
{
    struct ld_tensor t = {.name = "out", .pixel_format = pixel_format, .data_type = data_type,
                          .n = 1, .c = c, .h = h, .w = w, .size = size};
    t.stride[1] = line;
    t.stride[2] = surf;
    return t;
}

static char *dump(const struct ld_tensor *t, const void *buf, uint64_t len)
{
    char *text, err[256];
    size_t n;
    if (!rawdump_text(t, buf, len, &text, &n, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(n, strlen(text));
    return text;
}

static void expect_dump(const struct ld_tensor *t, const void *buf, uint64_t len, const char *want)
{
    char *s = dump(t, buf, len);
    assert_string_equal(s, want);
    free(s);
}

/* ResNet-18 on nv_small: 10 int8 classes in FEATURE_X8, line and surface
 * stride 8: channels 8 and 9 sit in the second surface. */
static void test_int8_x8(void **state)
{
    (void)state;
    int8_t buf[16] = {0, 0, 0, 0, 126, 0, 0, 0, -3, 0, 99, 99, 99, 99, 99, 99};
    struct ld_tensor t = feature(37, LD_TYPE_INT8, 10, 1, 1, 8, 8, 16);
    expect_dump(&t, buf, sizeof buf, "0 0 0 0 126 0 0 0 -3 0 ");
}

/* int8 FEATURE: 32-byte atoms; order is channel, then row, then column. */
static void test_int8_x32_order(void **state)
{
    (void)state;
    enum { W = 2, H = 2 };
    int8_t buf[2 * H * W * 32] = {0};
    for (int c = 0; c < 33; c += 32)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                buf[(c / 32) * H * W * 32 + y * W * 32 + x * 32 + c % 32] =
                    (int8_t)(c + 10 * y + x);
    struct ld_tensor t = feature(36, LD_TYPE_INT8, 33, H, W, W * 32, H * W * 32, sizeof buf);
    char *s = dump(&t, buf, sizeof buf);
    /* channels 0..31 of every pixel first (all zero but channel 0), 32 last */
    assert_int_equal(strncmp(s, "0 1 10 11 ", 10), 0);
    const char *tail = " 32 33 42 43 ";
    assert_string_equal(s + strlen(s) - strlen(tail), tail);
    assert_int_equal(strlen(s), strlen("0 1 10 11 ") + 31 * 4 * strlen("0 ") + strlen(tail) - 1);
    free(s);
}

static void test_int16(void **state)
{
    (void)state;
    int16_t buf[16] = {-32768, 32767, 5};
    struct ld_tensor t = feature(36, LD_TYPE_INT16, 3, 1, 1, 32, 32, 32);
    expect_dump(&t, buf, sizeof buf, "-32768 32767 5 ");
}

static void test_half_text(void **state)
{
    (void)state;
    char s[32];
    rawdump_half(0x2c31, s, sizeof s); /* NN_L0_0's first probability */
    assert_string_equal(s, "0.0654907");
    rawdump_half(0x3c00, s, sizeof s);
    assert_string_equal(s, "1");
    rawdump_half(0x8000, s, sizeof s); /* the runtime compares values: -0 stays */
    assert_string_equal(s, "-0");
    rawdump_half(0x7800, s, sizeof s); /* 32768 == 0x8000 as numbers: printed 0 */
    assert_string_equal(s, "0");
    rawdump_half(0x7e00, s, sizeof s); /* NaN becomes the number 0x7C00 */
    assert_string_equal(s, "31744");
    rawdump_half(0xfc00, s, sizeof s);
    assert_string_equal(s, "-inf");
    rawdump_half(0x8001, s, sizeof s); /* the longest text */
    assert_string_equal(s, "-5.96046e-08");
    rawdump_half(0x7bff, s, sizeof s);
    assert_string_equal(s, "65504");
}

static void test_fp16_tensor(void **state)
{
    (void)state;
    uint16_t buf[32] = {0};
    buf[0] = fp16_from_float(0.5f);
    buf[1] = fp16_from_float(-2.0f);
    buf[16] = fp16_from_float(0.25f); /* channel 16: second x16 surface */
    struct ld_tensor t = feature(36, LD_TYPE_HALF, 17, 1, 1, 32, 32, 64);
    char *s = dump(&t, buf, sizeof buf);
    assert_int_equal(strncmp(s, "0.5 -2 0 ", 9), 0);
    assert_string_equal(s + strlen(s) - 6, " 0.25 ");
    free(s);
}

/* A pixel-format output: the runtime warns and reads it as fp16 x16. */
static void test_pixel_format_read_as_fp16(void **state)
{
    (void)state;
    uint16_t buf[16] = {0x3c00, 0x4000};
    struct ld_tensor t = feature(0, LD_TYPE_INT8, 2, 1, 1, 32, 32, 32);
    expect_dump(&t, buf, sizeof buf, "1 2 ");
}

static void test_refusals(void **state)
{
    (void)state;
    char *text, err[256];
    size_t n;
    uint8_t buf[64] = {0};
    struct ld_tensor t = feature(36, LD_TYPE_FLOAT, 2, 1, 1, 32, 32, 64);
    assert_false(rawdump_text(&t, buf, sizeof buf, &text, &n, err, sizeof err));
    assert_non_null(strstr(err, "data type 1 (fp32) cannot be read or dumped"));
    /* channel 8 of an x8 int8 tensor lies at the surface stride: beyond 8 bytes */
    t = feature(37, LD_TYPE_INT8, 10, 1, 1, 8, 8, 8);
    assert_false(rawdump_text(&t, buf, sizeof buf, &text, &n, err, sizeof err));
    assert_non_null(strstr(err, "element (c 8, h 0, w 0) lies at byte 8, beyond"));
    assert_null(text);
}

/* A hostile loadable's shape whose element count does not fit 64 bits
 * (2^21 x 2^21 x 2^22 = 2^64) must be refused by its size, before any
 * buffer is sized from the wrapped product. */
static void test_shape_overflow(void **state)
{
    (void)state;
    char *text, err[256];
    size_t n;
    uint8_t buf[64] = {0};
    struct ld_tensor t = feature(36, LD_TYPE_INT8, 1 << 21, 1 << 21, 1 << 22, 0, 0, 64);
    assert_false(rawdump_text(&t, buf, sizeof buf, &text, &n, err, sizeof err));
    assert_non_null(strstr(err, "2097152x2097152x4194304"));
    assert_non_null(strstr(err, "more than"));
    assert_null(text);
    /* the same rule guards an input tensor filled from --image or --input */
    struct tensor_layout lay;
    assert_false(tensor_layout_input(&t, &lay, err, sizeof err));
    assert_non_null(strstr(err, "input tensor \"out\": 1x2097152x2097152x4194304 int8"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int8_x8),
        cmocka_unit_test(test_int8_x32_order),
        cmocka_unit_test(test_int16),
        cmocka_unit_test(test_half_text),
        cmocka_unit_test(test_fp16_tensor),
        cmocka_unit_test(test_pixel_format_read_as_fp16),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_shape_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
