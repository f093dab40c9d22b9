/* Image files decoded as nvdla_runtime decodes them: PGM and PPM headers,
 * comments and errors with their offset; PPM and colour JPEG samples in the
 * runtime's B, G, R order; grayscale JPEG as one channel; broken and
 * truncated JPEGs refused or warned about, never fatal.  The JPEGs are made
 * here with libjpeg. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jpeglib.h>

#include "tensor/image_jpeg.h"
#include "tensor/image_pnm.h"

static void test_pgm(void **state)
{
    (void)state;
    const char pgm[] = "P5\n# made by hand\n3 2\n255\n\x01\x02\x03\x04\x05\xff";
    struct host_image img;
    char err[256];
    assert_true(pnm_decode((const uint8_t *)pgm, sizeof pgm - 1, "a.pgm", &img, err, sizeof err));
    assert_int_equal(img.width, 3);
    assert_int_equal(img.height, 2);
    assert_int_equal(img.channels, 1);
    assert_memory_equal(img.pixels, "\x01\x02\x03\x04\x05\xff", 6);
    host_image_free(&img);
}

static void test_ppm_is_bgr(void **state)
{
    (void)state;
    /* two pixels: pure red, then (10, 20, 30) */
    const char ppm[] = "P6 2 1 255\n\xff\x00\x00\x0a\x14\x1e";
    struct host_image img;
    char err[256];
    assert_true(pnm_decode((const uint8_t *)ppm, sizeof ppm - 1, "a.ppm", &img, err, sizeof err));
    assert_int_equal(img.channels, 3);
    static const uint8_t bgr[6] = {0x00, 0x00, 0xff, 0x1e, 0x14, 0x0a};
    assert_memory_equal(img.pixels, bgr, 6);
    host_image_free(&img);
}

static void expect_pnm_error(const char *text, const char *want)
{
    struct host_image img;
    char err[256] = "";
    assert_false(pnm_decode((const uint8_t *)text, strlen(text), "bad.pgm", &img, err, sizeof err));
    if (!strstr(err, want))
        fail_msg("\"%s\" does not say \"%s\"", err, want);
    assert_null(img.pixels);
}

static void test_pnm_errors(void **state)
{
    (void)state;
    expect_pnm_error("P2\n3 2\n255\n", "offset 0: expected a binary PGM (P5) or PPM (P6)");
    expect_pnm_error("P5\n3 2\n65535\n", "offset 7: maximum value 65535");
    expect_pnm_error("P5\n3 x\n255\n", "offset 5: expected the height");
    expect_pnm_error("P5\n3 2\n255\nabc", "offset 11: expected 6 bytes of pixels, found 3");
    expect_pnm_error("P5\n0 2\n255\n", "image of 0x2 pixels");
    expect_pnm_error("P5\n100000 100000\n255\n", "image of 100000x100000 pixels");
    expect_pnm_error("P5\n99999999999 2\n255\n", "expected the width");
}

/* ---------------------------------------------------------------- JPEG */

/* Encode w x h pixels of the given colour space (3 samples R, G, B or one
 * gray sample per pixel) at quality 100; *out is malloc'ed by libjpeg. */
static void encode_jpeg(const uint8_t *pixels, unsigned w, unsigned h, J_COLOR_SPACE space,
                        uint8_t **out, size_t *len)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    unsigned long n = 0;
    *out = NULL;
    jpeg_mem_dest(&c, out, &n);
    c.image_width = w;
    c.image_height = h;
    c.input_components = space == JCS_GRAYSCALE ? 1 : space == JCS_CMYK ? 4 : 3;
    c.in_color_space = space;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 100, TRUE);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < h) {
        JSAMPROW row = (JSAMPROW)pixels + (size_t)c.next_scanline * w * c.input_components;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    *len = n;
}

static void test_jpeg_colour_is_bgr(void **state)
{
    (void)state;
    enum { W = 16, H = 16 };
    uint8_t rgb[W * H * 3];
    for (int i = 0; i < W * H; i++) { /* a flat colour: R 200, G 100, B 20 */
        rgb[3 * i] = 200;
        rgb[3 * i + 1] = 100;
        rgb[3 * i + 2] = 20;
    }
    uint8_t *jpg;
    size_t len;
    encode_jpeg(rgb, W, H, JCS_RGB, &jpg, &len);
    assert_true(jpeg_looks_like(jpg, len));
    struct host_image img;
    char warn[256], err[256];
    assert_true(jpeg_decode(jpg, len, "c.jpg", &img, warn, sizeof warn, err, sizeof err));
    assert_string_equal(warn, "");
    assert_int_equal(img.width, W);
    assert_int_equal(img.height, H);
    assert_int_equal(img.channels, 3);
    /* a flat block survives JPEG within a step or two of YCbCr rounding */
    for (int i = 0; i < W * H; i++) {
        assert_in_range(img.pixels[3 * i], 18, 22);    /* B first */
        assert_in_range(img.pixels[3 * i + 1], 98, 102);
        assert_in_range(img.pixels[3 * i + 2], 198, 202); /* R last */
    }
    host_image_free(&img);
    free(jpg);
}

static void test_jpeg_gray(void **state)
{
    (void)state;
    enum { W = 64, H = 64 };
    uint8_t gray[W * H];
    memset(gray, 77, sizeof gray);
    uint8_t noisy[W * H];
    for (int i = 0; i < W * H; i++)
        noisy[i] = (uint8_t)(i * 7919u >> 3);
    uint8_t *jpg;
    size_t len;
    encode_jpeg(gray, W, H, JCS_GRAYSCALE, &jpg, &len);
    struct host_image img;
    char warn[256], err[256];
    assert_true(jpeg_decode(jpg, len, "g.jpg", &img, warn, sizeof warn, err, sizeof err));
    assert_int_equal(img.channels, 1);
    for (int i = 0; i < W * H; i++)
        assert_int_equal(img.pixels[i], 77); /* flat gray is exact at quality 100 */
    host_image_free(&img);
    /* truncated in its entropy-coded data: libjpeg fills in the missing
     * rows and warns */
    uint8_t *noisy_jpg;
    size_t noisy_len;
    encode_jpeg(noisy, W, H, JCS_GRAYSCALE, &noisy_jpg, &noisy_len);
    assert_true(jpeg_decode(noisy_jpg, noisy_len - 100, "t.jpg", &img, warn, sizeof warn, err,
                            sizeof err));
    assert_non_null(strstr(warn, "t.jpg: "));
    host_image_free(&img);
    free(noisy_jpg);
    /* broken header: an error naming the file, and the process goes on */
    uint8_t broken[64] = {0xff, 0xd8, 0xff, 0xc0, 0x00, 0x02};
    assert_false(jpeg_decode(broken, sizeof broken, "b.jpg", &img, warn, sizeof warn, err,
                             sizeof err));
    assert_non_null(strstr(err, "b.jpg: not a JPEG nvdla_runtime can read"));
    assert_null(img.pixels);
    assert_false(jpeg_decode(jpg, 2, "e.jpg", &img, warn, sizeof warn, err, sizeof err));
    free(jpg);
}

/* nvdla_runtime refuses CMYK (and YCCK) JPEGs: so do we, by name */
static void test_jpeg_cmyk_refused(void **state)
{
    (void)state;
    uint8_t cmyk[8 * 8 * 4];
    memset(cmyk, 40, sizeof cmyk);
    uint8_t *jpg;
    size_t len;
    encode_jpeg(cmyk, 8, 8, JCS_CMYK, &jpg, &len);
    struct host_image img;
    char warn[256], err[256];
    assert_false(jpeg_decode(jpg, len, "k.jpg", &img, warn, sizeof warn, err, sizeof err));
    assert_non_null(strstr(err, "k.jpg: JPEG colour space"));
    assert_non_null(strstr(err, "grayscale, YCbCr and RGB JPEGs only"));
    assert_null(img.pixels);
    free(jpg);
}

/* A 16x16 gray progressive JPEG of the given scan script (NULL: libjpeg's
 * ordinary progression); *out is malloc'ed by libjpeg. */
static void encode_progressive(const jpeg_scan_info *scans, int n, uint8_t **out,
                               unsigned long *len)
{
    enum { W = 16, H = 16 };
    uint8_t gray[W * H];
    for (int i = 0; i < W * H; i++)
        gray[i] = (uint8_t)(i * 37);
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    *out = NULL;
    *len = 0;
    jpeg_mem_dest(&c, out, len);
    c.image_width = W;
    c.image_height = H;
    c.input_components = 1;
    c.in_color_space = JCS_GRAYSCALE;
    jpeg_set_defaults(&c);
    if (scans) {
        c.scan_info = scans;
        c.num_scans = n;
    } else {
        jpeg_simple_progression(&c);
    }
    jpeg_start_compress(&c, TRUE);
    for (JSAMPROW row = gray; c.next_scanline < H; row += W)
        jpeg_write_scanlines(&c, &row, 1);
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
}

/* A progressive JPEG walks the whole image once a scan; one of 694 valid
 * scans (each AC coefficient alone, refined bit by bit) stands for the
 * hostile files of thousands: refused by name instead of decoded for
 * minutes.  An ordinary progressive JPEG still decodes. */
static void test_jpeg_too_many_scans(void **state)
{
    (void)state;
    enum { MAX_AL = 10 }; /* libjpeg's limit for 8-bit samples */
    static jpeg_scan_info scans[1 + 63 * (MAX_AL + 1)];
    int n = 0;
    scans[n++] = (jpeg_scan_info){.comps_in_scan = 1, .Ss = 0, .Se = 0, .Ah = 0, .Al = 0};
    for (int k = 1; k <= 63; k++)
        for (int al = MAX_AL; al >= 0; al--)
            scans[n++] = (jpeg_scan_info){
                .comps_in_scan = 1, .Ss = k, .Se = k, .Ah = al == MAX_AL ? 0 : al + 1, .Al = al};
    uint8_t *jpg;
    unsigned long len;
    struct host_image img;
    char warn[256], err[256];
    encode_progressive(scans, n, &jpg, &len);
    assert_false(jpeg_decode(jpg, len, "p.jpg", &img, warn, sizeof warn, err, sizeof err));
    assert_string_equal(err, "p.jpg: not a JPEG nvdla_runtime can read: more than 500 progressive "
                             "scans");
    assert_null(img.pixels);
    free(jpg);
    encode_progressive(NULL, 0, &jpg, &len);
    assert_true(jpeg_decode(jpg, len, "q.jpg", &img, warn, sizeof warn, err, sizeof err));
    assert_int_equal(img.width, 16);
    host_image_free(&img);
    free(jpg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pgm),
        cmocka_unit_test(test_ppm_is_bgr),
        cmocka_unit_test(test_pnm_errors),
        cmocka_unit_test(test_jpeg_colour_is_bgr),
        cmocka_unit_test(test_jpeg_gray),
        cmocka_unit_test(test_jpeg_cmyk_refused),
        cmocka_unit_test(test_jpeg_too_many_scans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
