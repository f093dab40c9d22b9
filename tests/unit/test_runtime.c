/* Runtime: deterministic, aligned, non-overlapping placement; blobs copied
 * to their offsets; task address resolution; the output DIMG gathered with
 * the goldens' x32 rules (checked against a reference gather written here);
 * fp16 stable hashing; the input tensor filled from raw bytes, PGM and DIMG. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dimg.h"
#include "fp16.h"
#include "loadable_writer.h"
#include "runtime.h"

/* Memories: 0 blob-filled (alignment 64), 1 input tensor, 2 output tensor. */
static struct loadable *build(uint8_t data_type, int32_t c, int32_t h, int32_t w, uint32_t line,
                              uint32_t surf, uint64_t size)
{
    struct lw *lw = lw_create();
    uint8_t blob[100];
    for (int i = 0; i < 100; i++)
        blob[i] = (uint8_t)(i * 7);
    lw_blob(lw, "b", 0, 0, (struct ld_version){0, 0, 0}, blob, sizeof blob);
    struct ld_tensor t = {.name = "in",
                          .mem_id = 1,
                          .size = size,
                          .data_type = data_type,
                          .pixel_format = 36,
                          .n = 1,
                          .c = c,
                          .h = h,
                          .w = w};
    t.stride[0] = data_type == LD_TYPE_INT8 ? 1 : 2;
    t.stride[1] = line;
    t.stride[2] = surf;
    lw_tensor(lw, &t);
    t.name = "out";
    t.mem_id = 2;
    lw_tensor(lw, &t);
    struct {
        uint16_t flags;
        uint64_t size;
        uint32_t align;
        const char *content;
        uint16_t tensor;
    } mems[] = {{3, 300, 64, "b", 0}, {5, size, 0, NULL, 0}, {9, size, 0, NULL, 1}};
    for (int i = 0; i < 3; i++)
        lw_memory(lw, 0, mems[i].flags, mems[i].size, mems[i].align, mems[i].content, 0,
                  mems[i].tensor);
    lw_address(lw, 0, 0, 300);
    lw_address(lw, 0, 44, 10); /* an address inside memory 0 */
    lw_address(lw, 1, 0, size);
    lw_address(lw, 2, 0, size);
    uint16_t addrs[4] = {0, 1, 2, 3}, task = 0;
    lw_task(lw, LD_IF_DLA1, addrs, 4, NULL, 0, NULL, 0);
    lw_submit(lw, &task, 1);
    uint8_t *buf;
    size_t len;
    assert_true(lw_finish(lw, (struct ld_version){0, 7, 0}, &buf, &len));
    lw_destroy(lw);
    char err[512];
    struct loadable *l = loadable_parse(buf, len, "rt", err, sizeof err);
    free(buf);
    if (!l)
        fail_msg("%s", err);
    return l;
}

static void test_placement(void **state)
{
    (void)state;
    struct loadable *l = build(LD_TYPE_INT16, 20, 2, 3, 96, 192, 384);
    struct dla *d = dla_create(dla_config_default(), NULL);
    struct runtime a, b;
    char err[256];
    assert_true(runtime_load(&a, l, d, err, sizeof err));
    assert_true(runtime_load(&b, l, d, err, sizeof err));
    for (uint32_t i = 0; i < l->n_memories; i++) {
        assert_int_equal(a.mem[i].addr, b.mem[i].addr); /* deterministic */
        assert_int_equal(a.mem[i].space, DLA_DRAM);
        assert_true(a.mem[i].addr >= RT_DRAM_BASE);
        assert_int_equal(a.mem[i].addr % RT_DEFAULT_ALIGN, 0);
        if (i > 0)
            assert_true(a.mem[i].addr >= a.mem[i - 1].addr + l->memories[i - 1].size);
    }
    uint8_t got[100];
    dla_mem_read(d, DLA_DRAM, a.mem[0].addr, got, sizeof got);
    for (int i = 0; i < 100; i++)
        assert_int_equal(got[i], (uint8_t)(i * 7));
    enum dla_space s;
    uint64_t addr, base, size;
    assert_true(runtime_task_address(&a, 0, 1, &s, &addr));
    assert_int_equal(addr, a.mem[0].addr + 44); /* DMA view: with the entry's offset */
    assert_true(runtime_task_buffer(&a, 0, 1, &s, &base, &size));
    assert_int_equal(base, a.mem[0].addr); /* processor view: without it */
    assert_false(runtime_task_address(&a, 0, 4, &s, &addr));
    assert_false(runtime_task_address(&a, 0, -1, &s, &addr));
    assert_int_equal(a.input_tensor, 0);
    assert_int_equal(a.output_tensor, 1);
    runtime_free(&a);
    runtime_free(&b);
    dla_destroy(d);
    loadable_free(l);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    static uint8_t buf[1 << 16];
    *len = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    return buf;
}

static void test_output_dimg(void **state)
{
    (void)state;
    enum { C = 20, H = 2, W = 3, LINE = 128, SURF = 512, SIZE = 1024 };
    struct loadable *l = build(LD_TYPE_INT16, C, H, W, LINE, SURF, SIZE);
    struct dla *d = dla_create(dla_config_default(), NULL);
    struct runtime rt;
    char err[256], path[] = "/tmp/dladbg-dimg-XXXXXX";
    assert_true(runtime_load(&rt, l, d, err, sizeof err));
    uint8_t mem[SIZE];
    for (int i = 0; i < SIZE; i++)
        mem[i] = (uint8_t)(i * 31 + 5);
    dla_mem_write(d, DLA_DRAM, rt.mem[2].addr, mem, SIZE);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_true(runtime_write_output(&rt, d, path, err, sizeof err));
    size_t len;
    const uint8_t *f = slurp(path, &len);
    assert_int_equal(len, 36 + C * H * W * 2);
    uint32_t hdr[9];
    memcpy(hdr, f, sizeof hdr);
    assert_memory_equal(f, "DIMG", 4);
    assert_int_equal(hdr[2], 41); /* INT16 in the old numbering */
    assert_int_equal(hdr[3], W);
    assert_int_equal(hdr[4], H);
    assert_int_equal(hdr[5], C);
    assert_int_equal(hdr[6], LINE);
    assert_int_equal(hdr[7], SURF);
    assert_int_equal(hdr[8], SIZE);
    /* reference gather: 16 int16 channels per 32-byte group */
    size_t k = 36;
    for (int c = 0; c < C; c++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++, k += 2) {
                size_t off = (size_t)(c / 16) * SURF + (size_t)y * LINE + (size_t)x * 32 +
                             (size_t)(c % 16) * 2;
                assert_int_equal(f[k], mem[off]);
                assert_int_equal(f[k + 1], mem[off + 1]);
            }
    remove(path);
    runtime_free(&rt);
    dla_destroy(d);
    loadable_free(l);
}

static void test_fp16_stable_hash(void **state)
{
    (void)state;
    struct dimg_header h = {.format = DIMG_FMT_FP16_X16,
                            .width = 4,
                            .height = 1,
                            .channel = 1,
                            .line_stride = 128,
                            .surf_stride = 128,
                            .size = 128};
    uint8_t buf[128] = {0};
    uint16_t in[4] = {0x8000, 0x7e01, 0xfc01, 0x3c00};
    for (int x = 0; x < 4; x++)
        memcpy(buf + 32 * x, &in[x], 2);
    uint8_t *out;
    size_t n;
    assert_true(dimg_pack(&h, buf, sizeof buf, &out, &n));
    assert_int_equal(n, 8);
    uint16_t v[4];
    memcpy(v, out, 8);
    assert_int_equal(v[0], 0x0000);
    assert_int_equal(v[1], 0x7c00);
    assert_int_equal(v[2], 0x7c00);
    assert_int_equal(v[3], 0x3c00);
    free(out);
    h.channel = 70000;
    h.height = 70000;
    assert_false(dimg_pack(&h, buf, sizeof buf, &out, &n)); /* absurd sizes refused */
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    fclose(fp);
}

static void test_input_files(void **state)
{
    (void)state;
    enum { C = 1, H = 2, W = 3, LINE = 96, SURF = 192 };
    struct loadable *l = build(LD_TYPE_HALF, C, H, W, LINE, SURF, SURF);
    struct dla *d = dla_create(dla_config_default(), NULL);
    struct runtime rt;
    char err[256], path[] = "/tmp/dladbg-input-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_true(runtime_load(&rt, l, d, err, sizeof err));
    /* PGM: pixel values become fp16 numbers at the feature offsets */
    const char pgm[] = "P5\n# comment\n3 2\n255\n\x01\x02\x03\x04\x05\xff";
    write_file(path, pgm, sizeof pgm - 1);
    assert_true(runtime_fill_input(&rt, d, path, err, sizeof err));
    static const int px[2][3] = {{1, 2, 3}, {4, 5, 255}};
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint16_t v;
            dla_mem_read(d, DLA_DRAM, rt.mem[1].addr + (uint64_t)y * LINE + (uint64_t)x * 32, &v,
                         2);
            assert_int_equal(v, fp16_from_float((float)px[y][x]));
        }
    /* raw bytes: copied as they are */
    uint8_t raw[SURF];
    for (int i = 0; i < SURF; i++)
        raw[i] = (uint8_t)(255 - i);
    write_file(path, raw, sizeof raw);
    assert_true(runtime_fill_input(&rt, d, path, err, sizeof err));
    uint8_t got[SURF];
    dla_mem_read(d, DLA_DRAM, rt.mem[1].addr, got, SURF);
    assert_memory_equal(got, raw, SURF);
    /* DIMG: packed c,h,w elements placed at the tensor's offsets */
    uint8_t dimg[36 + 12] = "DIMG";
    uint32_t hdr[7] = {42, W, H, C, LINE, SURF, SURF};
    memcpy(dimg + 8, hdr, sizeof hdr);
    for (int i = 0; i < 6; i++) {
        uint16_t v = (uint16_t)(0x3c00 + i);
        memcpy(dimg + 36 + 2 * i, &v, 2);
    }
    write_file(path, dimg, sizeof dimg);
    assert_true(runtime_fill_input(&rt, d, path, err, sizeof err));
    uint16_t v;
    dla_mem_read(d, DLA_DRAM, rt.mem[1].addr + 1 * LINE + 2 * 32, &v, 2);
    assert_int_equal(v, 0x3c05);
    /* a broken PGM is an error, not a crash */
    write_file(path, "P5\n3 2\n65535\n", 13);
    assert_false(runtime_fill_input(&rt, d, path, err, sizeof err));
    assert_non_null(strstr(err, "offset 0: expected"));
    remove(path);
    runtime_free(&rt);
    dla_destroy(d);
    loadable_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placement),
        cmocka_unit_test(test_output_dimg),
        cmocka_unit_test(test_fp16_stable_hash),
        cmocka_unit_test(test_input_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
