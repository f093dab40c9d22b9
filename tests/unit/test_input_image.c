/* Images into input tensors as nvdla_runtime converts them: the int8 scaling
 * floor(p*127/255+0.5) against an integer reference; fp16 (p-mean)/normalize
 * rounded with ties away from zero; the x8, x32 and x16 surfaces; channels
 * B, G, R with mean[k] on channel k; shapes that do not fit refused naming
 * both; and the whole path through input_tensor_fill: PGM, PPM, DIMG and raw
 * bytes into the placed tensor, --mean/--normalize parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "num/fp16.h"
#include "tensor/input_image.h"
#include "tensor/input_tensor.h"
#include "tensor_loadable.h"

static void test_int8_scaling(void **state)
{
    (void)state;
    /* floor(p * 127 / 255 + 1/2) = floor((254 p + 255) / 510), in integers */
    for (unsigned p = 0; p < 256; p++)
        assert_int_equal(input_image_int8((uint8_t)p), (int)((254 * p + 255) / 510));
    assert_int_equal(input_image_int8(255), 127);
    assert_int_equal(input_image_int8(1), 0);
    assert_int_equal(input_image_int8(2), 1);
}

static void test_fp16_ties_away(void **state)
{
    (void)state;
    struct input_norm n = {{-2048.0f, 0.0f, 0.5f, 0.0f}, 0};
    /* 1 + 2048 = 2049, halfway between the halves 2048 and 2050: away -> 2050 */
    assert_int_equal(input_image_fp16(1, &n, 0), 0x6801);
    assert_int_equal(fp16_from_float(2049.0f), 0x6800); /* where ties-to-even differs */
    assert_int_equal(input_image_fp16(3, &n, 0), 0x6802); /* 2051 -> 2052 */
    assert_int_equal(input_image_fp16(255, &n, 1), fp16_from_float(255.0f));
    assert_int_equal(input_image_fp16(255, &n, 2), fp16_from_float(254.5f));
    n.normalize = 2;
    assert_int_equal(input_image_fp16(255, &n, 1), fp16_from_float(127.5f));
    assert_int_equal(input_image_fp16(0, &n, 3), 0x0000);
}

static struct tensor_layout layout(uint8_t type, uint8_t pixel_format, uint32_t c, uint32_t h,
                                   uint32_t w, uint64_t line, uint64_t surf, uint64_t size)
{
    struct ld_tensor t = {.name = "in",
                          .size = size,
                          .data_type = type,
                          .pixel_format = pixel_format,
                          .n = 1,
                          .c = (int32_t)c,
                          .h = (int32_t)h,
                          .w = (int32_t)w};
    t.stride[1] = (uint32_t)line;
    t.stride[2] = (uint32_t)surf;
    struct tensor_layout lay;
    char err[256];
    if (!tensor_layout_input(&t, &lay, err, sizeof err))
        fail_msg("%s", err);
    return lay;
}

/* An image whose pixel (x, y) channel k is 10 * k + y * w + x + 1. */
static struct host_image ramp(uint32_t w, uint32_t h, uint32_t channels)
{
    struct host_image img = {w, h, channels, malloc((size_t)w * h * channels)};
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t k = 0; k < channels; k++)
                img.pixels[(y * w + x) * channels + k] = (uint8_t)(10 * k + y * w + x + 1);
    return img;
}

static void test_x8_int8_surface(void **state)
{
    (void)state;
    /* nv_small: 3 channels in 8-byte atoms, 4x2 pixels, line 32, surface 64 */
    struct tensor_layout lay = layout(LD_TYPE_INT8, LD_PIXEL_FEATURE_X8, 3, 2, 4, 32, 64, 64);
    assert_int_equal(lay.group, 8);
    struct host_image img = ramp(4, 2, 3);
    struct input_norm norm = {{100, 100, 100, 100}, 7}; /* ignored for int8 */
    uint8_t buf[64];
    memset(buf, 0xee, sizeof buf);
    char warn[128], err[256];
    assert_true(input_image_convert(&img, &lay, &norm, buf, warn, sizeof warn, err, sizeof err));
    assert_string_equal(warn, "");
    for (uint32_t y = 0; y < 2; y++)
        for (uint32_t x = 0; x < 4; x++)
            for (uint32_t a = 0; a < 8; a++) {
                uint8_t want = a < 3 ? (uint8_t)input_image_int8(
                                           img.pixels[(y * 4 + x) * 3 + a])
                                     : 0; /* the atom's spare channels are zero */
                assert_int_equal(buf[y * 32 + x * 8 + a], want);
            }
    host_image_free(&img);
}

static void test_x16_fp16_surface(void **state)
{
    (void)state;
    /* nv_full fp16: 16 channels to a 32-byte atom; a 2-channel image with a
     * mean per channel and a divisor; channels 2..3 stay zero (warned) */
    struct tensor_layout lay = layout(LD_TYPE_HALF, LD_PIXEL_FEATURE, 4, 1, 2, 64, 64, 128);
    struct host_image img = ramp(2, 1, 2);
    struct input_norm norm = {{1.0f, 3.0f, 0, 0}, 2};
    uint8_t buf[128];
    char warn[128], err[256];
    assert_true(input_image_convert(&img, &lay, &norm, buf, warn, sizeof warn, err, sizeof err));
    assert_non_null(strstr(warn, "channels 2 to 3 stay zero"));
    for (uint32_t x = 0; x < 2; x++)
        for (uint32_t k = 0; k < 2; k++) {
            uint16_t v = (uint16_t)(buf[x * 32 + k * 2] | buf[x * 32 + k * 2 + 1] << 8);
            float want = ((float)img.pixels[x * 2 + k] - norm.mean[k]) / 2.0f;
            assert_int_equal(v, fp16_from_float(want));
        }
    for (size_t i = 0; i < 128; i++)
        if (i % 32 >= 4)
            assert_int_equal(buf[i], 0); /* channels 2..15 and the rest */
    host_image_free(&img);
}

static void test_x32_int8_and_pitch_surfaces(void **state)
{
    (void)state;
    struct tensor_layout lay = layout(LD_TYPE_INT8, LD_PIXEL_FEATURE, 1, 2, 2, 64, 128, 128);
    assert_int_equal(lay.group, 32);
    struct host_image img = ramp(2, 2, 1);
    uint8_t buf[128];
    char warn[128], err[256];
    struct input_norm norm = {{0}, 0};
    assert_true(input_image_convert(&img, &lay, &norm, buf, warn, sizeof warn, err, sizeof err));
    assert_int_equal(buf[64 + 32], input_image_int8(img.pixels[3])); /* (x 1, y 1) */
    /* A8B8G8R8: four bytes a pixel, channel k at byte k */
    lay = layout(LD_TYPE_INT8, LD_PIXEL_A8B8G8R8, 3, 2, 2, 8, 0, 16);
    host_image_free(&img);
    img = ramp(2, 2, 3);
    assert_true(input_image_convert(&img, &lay, &norm, buf, warn, sizeof warn, err, sizeof err));
    assert_int_equal(buf[8 + 4 + 2], input_image_int8(img.pixels[(2 + 1) * 3 + 2]));
    assert_int_equal(buf[3], 0);
    host_image_free(&img);
}

static void expect_misfit(struct host_image img, struct tensor_layout lay, const char *want)
{
    uint8_t *buf = calloc(lay.size ? lay.size : 1, 1);
    char warn[128], err[256] = "";
    struct input_norm norm = {{0}, 0};
    assert_false(input_image_convert(&img, &lay, &norm, buf, warn, sizeof warn, err, sizeof err));
    if (!strstr(err, want))
        fail_msg("\"%s\" does not say \"%s\"", err, want);
    free(buf);
    host_image_free(&img);
}

static void test_misfits_name_both_shapes(void **state)
{
    (void)state;
    struct tensor_layout lay = layout(LD_TYPE_INT8, LD_PIXEL_FEATURE_X8, 1, 28, 28, 224, 6272,
                                      6272);
    expect_misfit(ramp(32, 32, 3), lay,
                  "image 1x3x32x32 (NCHW) does not fit the input tensor 1x1x28x28 int8 (NCHW)");
    expect_misfit(ramp(28, 28, 3), lay, "more channels than the tensor");
    lay = layout(LD_TYPE_INT8, LD_PIXEL_R8, 3, 2, 2, 2, 0, 4);
    expect_misfit(ramp(2, 2, 3), lay, "an R8 tensor takes one channel");
    lay = layout(LD_TYPE_INT8, LD_PIXEL_A8B8G8R8, 3, 2, 2, 5, 0, 12);
    expect_misfit(ramp(2, 2, 3), lay, "longer than the tensor's line stride");
    /* beyond 16 channels nvdla_runtime converts no image */
    expect_misfit(ramp(2, 2, 1), layout(LD_TYPE_HALF, LD_PIXEL_FEATURE, 17, 2, 2, 64, 128, 256),
                  "at most 16 channels");
}

/* ---------------------------------------------------------------- whole path */


static void read_input(struct placed *p, uint8_t *buf, size_t len)
{
    dla_mem_read(p->d, DLA_DRAM, p->rt.mem[1].addr, buf, len);
}

static void test_fill_pgm_ppm(void **state)
{
    (void)state;
    struct tensor_spec sp = {LD_TYPE_INT8, LD_PIXEL_FEATURE_X8, 3, 2, 3, 24, 48, 48};
    struct placed p;
    place(&p, &sp);
    char path[32], warn[256], err[256];
    const char pgm[] = "P5\n3 2\n255\n\x00\x01\x02\x80\xfe\xff";
    temp_file_with(path, pgm, sizeof pgm - 1);
    struct input_opts o = {.image = path, .norm = {{5, 5, 5, 5}, 0}};
    assert_true(input_tensor_fill(&p.rt, p.d, &o, warn, sizeof warn, err, sizeof err));
    assert_non_null(strstr(warn, "channels 1 to 2 stay zero"));
    assert_non_null(strstr(warn, "--mean and --normalize ignored: the input tensor is int8"));
    uint8_t got[48];
    read_input(&p, got, sizeof got);
    static const uint8_t want_c0[6] = {0, 0, 1, 64, 127, 127};
    for (int i = 0; i < 6; i++)
        assert_int_equal(got[(i / 3) * 24 + (i % 3) * 8], want_c0[i]);
    remove(path);
    /* a PPM fills B, G, R into channels 0, 1, 2 */
    const char ppm[] = "P6\n3 2\n255\n"
                       "\xff\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00";
    temp_file_with(path, ppm, sizeof ppm - 1);
    assert_true(input_tensor_fill(&p.rt, p.d, &o, warn, sizeof warn, err, sizeof err));
    read_input(&p, got, sizeof got);
    assert_int_equal(got[0], 1);   /* B = 2 -> 1 */
    assert_int_equal(got[1], 0);   /* G */
    assert_int_equal(got[2], 127); /* R = 255 */
    remove(path);
    /* an image that does not fit: both shapes */
    const char big[] = "P5\n4 2\n255\n12345678";
    temp_file_with(path, big, sizeof big - 1);
    assert_false(input_tensor_fill(&p.rt, p.d, &o, warn, sizeof warn, err, sizeof err));
    assert_non_null(strstr(err, "image 1x1x2x4 (NCHW) does not fit the input tensor 1x3x2x3 int8"));
    remove(path);
    unplace(&p);
}

static void test_fill_dimg_and_raw(void **state)
{
    (void)state;
    enum { C = 1, H = 2, W = 3, LINE = 96, SURF = 192 };
    struct tensor_spec sp = {LD_TYPE_HALF, LD_PIXEL_FEATURE, C, H, W, LINE, SURF, SURF};
    struct placed p;
    place(&p, &sp);
    char path[32], warn[256], err[256];
    /* DIMG (old fp16 number 42): packed c,h,w elements placed at x16 offsets */
    uint8_t dimg[36 + 12] = "DIMG";
    uint32_t hdr[7] = {42, W, H, C, LINE, SURF, SURF};
    memcpy(dimg + 8, hdr, sizeof hdr);
    for (int i = 0; i < 6; i++) {
        uint16_t v = (uint16_t)(0x3c00 + i);
        memcpy(dimg + 36 + 2 * i, &v, 2);
    }
    temp_file_with(path, dimg, sizeof dimg);
    struct input_opts o = {.raw = path};
    assert_true(input_tensor_fill(&p.rt, p.d, &o, warn, sizeof warn, err, sizeof err));
    uint16_t v;
    dla_mem_read(p.d, DLA_DRAM, p.rt.mem[1].addr + 1 * LINE + 2 * 32, &v, 2);
    assert_int_equal(v, 0x3c05);
    remove(path);
    /* a DIMG of another shape: both named */
    hdr[1] = 4;
    memcpy(dimg + 8, hdr, sizeof hdr);
    temp_file_with(path, dimg, sizeof dimg);
    assert_false(input_tensor_fill(&p.rt, p.d, &o, warn, sizeof warn, err, sizeof err));
    assert_non_null(strstr(err, "DIMG 1x1x2x4 (NCHW)"));
    assert_non_null(strstr(err, "the input tensor 1x1x2x3 fp16 (NCHW)"));
    remove(path);
    /* raw bytes: copied as they are, exactly the tensor's buffer */
    uint8_t raw[SURF];
    for (int i = 0; i < SURF; i++)
        raw[i] = (uint8_t)(255 - i);
    temp_file_with(path, raw, sizeof raw);
    assert_true(input_tensor_fill(&p.rt, p.d, &o, warn, sizeof warn, err, sizeof err));
    uint8_t got[SURF];
    read_input(&p, got, SURF);
    assert_memory_equal(got, raw, SURF);
    remove(path);
    temp_file_with(path, raw, sizeof raw - 1);
    assert_false(input_tensor_fill(&p.rt, p.d, &o, warn, sizeof warn, err, sizeof err));
    assert_non_null(strstr(err, "191 bytes of raw input do not fit the input tensor 1x1x2x3 fp16"));
    remove(path);
    /* --image on something that is no image */
    temp_file_with(path, raw, sizeof raw);
    o = (struct input_opts){.image = path};
    assert_false(input_tensor_fill(&p.rt, p.d, &o, warn, sizeof warn, err, sizeof err));
    assert_non_null(strstr(err, "offset 0: expected a JPEG"));
    remove(path);
    unplace(&p);
}

/* A DIMG written from an output tensor reads back into an input tensor of the
 * same surface element for element: x8 int8 (nv_small), x32 int8, x16 fp16. */
static void test_dimg_round_trip(void **state)
{
    (void)state;
    static const struct tensor_spec specs[] = {
        {LD_TYPE_INT8, LD_PIXEL_FEATURE_X8, 10, 2, 3, 24, 48, 96},
        {LD_TYPE_INT8, LD_PIXEL_FEATURE, 10, 2, 3, 96, 192, 192},
        {LD_TYPE_HALF, LD_PIXEL_FEATURE, 10, 2, 3, 96, 192, 192},
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        struct placed p;
        place(&p, &specs[i]);
        struct tensor_layout lay;
        char path[32], warn[256], err[256];
        struct ld_tensor t = p.l->tensors[0];
        assert_true(tensor_layout_output(&t, &lay, err, sizeof err));
        uint8_t out[192] = {0};
        unsigned bpe = lay.bpe;
        for (uint32_t c = 0; c < lay.c; c++)
            for (uint32_t y = 0; y < lay.h; y++)
                for (uint32_t x = 0; x < lay.w; x++)
                    for (unsigned b = 0; b < bpe; b++) /* finite fp16 values: high byte < 0x7c */
                        out[tensor_layout_offset(&lay, c, y, x) + b] =
                            (uint8_t)((b ? 0x30 : 0) + c * 7 + y * 3 + x);
        dla_mem_write(p.d, DLA_DRAM, p.rt.mem[2].addr, out, specs[i].size);
        temp_file_with(path, "", 0);
        assert_true(runtime_write_output(&p.rt, p.d, path, err, sizeof err));
        struct input_opts o = {.raw = path};
        assert_true(input_tensor_fill(&p.rt, p.d, &o, warn, sizeof warn, err, sizeof err));
        uint8_t in[192];
        read_input(&p, in, specs[i].size);
        assert_memory_equal(in, out, specs[i].size);
        remove(path);
        unplace(&p);
    }
}

/* A tensor larger than dladbg fills or reads is refused by name, with the
 * limit, before any file is read or buffer allocated. */
static void test_tensor_too_large(void **state)
{
    (void)state;
    struct tensor_spec sp = {LD_TYPE_INT8, LD_PIXEL_FEATURE, 1, 1, 1, 32, 32, 300u << 20};
    struct placed p;
    place(&p, &sp);
    char warn[256], err[256];
    struct input_opts o = {.raw = "/nonexistent/input.bin"};
    assert_false(input_tensor_fill(&p.rt, p.d, &o, warn, sizeof warn, err, sizeof err));
    assert_non_null(strstr(err, "rt: input tensor \"in\" of 314572800 bytes; dladbg fills at "
                                "most 268435456"));
    uint8_t *buf;
    uint64_t len;
    assert_false(runtime_read_output(&p.rt, p.d, &buf, &len, err, sizeof err));
    /* names the loadable, the tensor and its file offset, the size and the limit */
    assert_non_null(strstr(err, "rt: tensor "));
    assert_non_null(strstr(err, "\"out\" (file offset 0x"));
    assert_non_null(strstr(err, "output tensor of 314572800 bytes; dladbg reads at most"));
    unplace(&p);
}

static void test_parse_options(void **state)
{
    (void)state;
    struct input_norm n = {{0}, 0};
    char err[256];
    assert_true(input_parse_mean("104,117.5,,123", &n, err, sizeof err));
    assert_true(n.mean[0] == 104.0f && n.mean[1] == 117.5f && n.mean[2] == 123.0f);
    assert_true(n.mean[3] == 0.0f);
    assert_false(input_parse_mean("1,2,3,4,5", &n, err, sizeof err));
    assert_non_null(strstr(err, "at most four"));
    assert_false(input_parse_mean("1,x", &n, err, sizeof err));
    assert_false(input_parse_mean("nan", &n, err, sizeof err));
    assert_true(input_parse_normalize("255", &n, err, sizeof err));
    assert_int_equal(n.normalize, 255);
    assert_false(input_parse_normalize("256", &n, err, sizeof err));
    assert_false(input_parse_normalize("0", &n, err, sizeof err));
    assert_false(input_parse_normalize("2x", &n, err, sizeof err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int8_scaling),
        cmocka_unit_test(test_fp16_ties_away),
        cmocka_unit_test(test_x8_int8_surface),
        cmocka_unit_test(test_x16_fp16_surface),
        cmocka_unit_test(test_x32_int8_and_pitch_surfaces),
        cmocka_unit_test(test_misfits_name_both_shapes),
        cmocka_unit_test(test_fill_pgm_ppm),
        cmocka_unit_test(test_fill_dimg_and_raw),
        cmocka_unit_test(test_dimg_round_trip),
        cmocka_unit_test(test_parse_options),
        cmocka_unit_test(test_tensor_too_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
