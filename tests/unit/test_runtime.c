/* Runtime: deterministic, aligned, non-overlapping placement; blobs copied
 * to their offsets; task address resolution; the output DIMG gathered with
 * the goldens' x32 rules and, for FEATURE_X8 tensors, x8 (checked against
 * reference gathers written here); fp16 stable hashing as nvdla_runtime's
 * code does it; loadables of format 0.5 and 0.6 loaded, run and written
 * out as their 0.7 twins are; DLA descriptor versions nobody wrote refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tensor/dimg.h"
#include "num/fp16.h"
#include "loadable/loadable_tensors.h"
#include "core/mem.h"
#include "runtime/runtime.h"
#include "tensor_loadable.h"
#include "engine_rig.h"
#include "sdp_net.h"

static struct loadable *build(uint8_t data_type, int32_t c, int32_t h, int32_t w, uint32_t line,
                              uint32_t surf, uint64_t size)
{
    struct tensor_spec sp = {data_type, LD_PIXEL_FEATURE, c, h, w, line, surf, size};
    return tensor_loadable(&sp);
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

/* nvdla_runtime compares each half with the integer 0x8000 and assigns the
 * integers 0 and 0x7C00, as numbers: 32768.0 becomes +0, a NaN 31744.0, and
 * -0 and infinities stay as they are. */
static void test_fp16_stable_hash(void **state)
{
    (void)state;
    struct tensor_layout lay = {.surface = TSURF_X16_FP16,
                                .data_type = LD_TYPE_HALF,
                                .pixel_format = LD_PIXEL_FEATURE,
                                .c = 1,
                                .h = 1,
                                .w = 6,
                                .bpe = 2,
                                .group = 16,
                                .line_stride = 192,
                                .surf_stride = 192,
                                .size = 192};
    uint8_t buf[192] = {0};
    uint16_t in[6] = {0x8000, 0x7e01, 0xfc01, 0x3c00, 0x7800, 0x7c00};
    for (int x = 0; x < 6; x++)
        memcpy(buf + 32 * x, &in[x], 2);
    uint8_t *out;
    size_t n;
    assert_true(dimg_pack(&lay, buf, sizeof buf, &out, &n));
    assert_int_equal(n, 12);
    uint16_t v[6];
    memcpy(v, out, 12);
    assert_int_equal(v[0], 0x8000); /* -0 kept */
    assert_int_equal(v[1], 0x77c0); /* NaN -> 31744.0 */
    assert_int_equal(v[2], 0x77c0);
    assert_int_equal(v[3], 0x3c00);
    assert_int_equal(v[4], 0x0000); /* 32768.0 -> 0 */
    assert_int_equal(v[5], 0x7c00); /* +inf kept */
    free(out);
    lay.c = 70000;
    lay.h = 70000;
    assert_false(dimg_pack(&lay, buf, sizeof buf, &out, &n)); /* absurd sizes refused */
}

/* An nv_small output (FEATURE_X8 int8): 8 channels per 8-byte atom, tagged
 * with the newer runtime's D_F8_CxHWx_x8_I (41). */
static void test_output_dimg_x8(void **state)
{
    (void)state;
    enum { C = 10, H = 2, W = 3, LINE = 24, SURF = 48, SIZE = 96 };
    struct tensor_spec sp = {LD_TYPE_INT8, LD_PIXEL_FEATURE_X8, C, H, W, LINE, SURF, SIZE};
    struct loadable *l = tensor_loadable(&sp);
    struct dla *d = dla_create(dla_config_default(), NULL);
    struct runtime rt;
    char err[256], path[32];
    assert_true(runtime_load(&rt, l, d, err, sizeof err));
    uint8_t mem[SIZE];
    for (int i = 0; i < SIZE; i++)
        mem[i] = (uint8_t)(i * 13 + 1);
    dla_mem_write(d, DLA_DRAM, rt.mem[2].addr, mem, SIZE);
    temp_file_with(path, "", 0);
    assert_true(runtime_write_output(&rt, d, path, err, sizeof err));
    size_t len;
    const uint8_t *f = slurp(path, &len);
    assert_int_equal(len, 36 + C * H * W);
    uint32_t hdr[9];
    memcpy(hdr, f, sizeof hdr);
    assert_int_equal(hdr[2], 41);
    assert_int_equal(hdr[5], C);
    size_t k = 36;
    for (int c = 0; c < C; c++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++, k++)
                assert_int_equal(f[k], mem[(c / 8) * SURF + y * LINE + x * 8 + c % 8]);
    remove(path);
    runtime_free(&rt);
    dla_destroy(d);
    loadable_free(l);
}

/* "tensor NAME" and "info tensors" address a tensor with the atom of its
 * surface: 8 bytes for FEATURE_X8 int8, 32 for FEATURE (int8 x32, fp16 x16). */
static void test_tensor_info_atoms(void **state)
{
    (void)state;
    static const struct {
        uint8_t type, pixel_format;
        uint64_t atom;
    } cases[] = {{LD_TYPE_INT8, LD_PIXEL_FEATURE_X8, 8},
                 {LD_TYPE_INT8, LD_PIXEL_FEATURE, 32},
                 {LD_TYPE_HALF, LD_PIXEL_FEATURE, 32}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct tensor_spec sp = {cases[i].type, cases[i].pixel_format, 3, 2, 2, 64, 128, 128};
        uint8_t *bytes;
        size_t len;
        tensor_loadable_bytes(&sp, &bytes, &len);
        char path[32], err[256];
        temp_file_with(path, bytes, len);
        free(bytes);
        struct tensor_info *t;
        size_t n;
        assert_true(loadable_tensors(path, dla_config_default(), &t, &n, err, sizeof err));
        assert_int_equal(n, 2);
        assert_false(t[0].pitch);
        assert_int_equal(t[0].elem_stride, cases[i].atom);
        assert_int_equal(t[0].line_stride, 64);
        free(t);
        remove(path);
    }
}

/* Every resident page of a memory, (base, bytes) records, for comparing. */
struct pages {
    uint8_t *rec;
    size_t n;
};

static bool keep_page(void *ctx, uint64_t base, const uint8_t *p)
{
    struct pages *pg = ctx;
    size_t size = 8 + MEM_PAGE_SIZE;
    pg->rec = realloc(pg->rec, (pg->n + 1) * size);
    memcpy(pg->rec + pg->n * size, &base, 8);
    memcpy(pg->rec + pg->n++ * size + 8, p, MEM_PAGE_SIZE);
    return true;
}

static void assert_same_memory(struct dla *a, struct dla *b)
{
    struct pages pa = {0}, pb = {0};
    mem_each_page(dla_memory(a, DLA_DRAM), keep_page, &pa);
    mem_each_page(dla_memory(b, DLA_DRAM), keep_page, &pb);
    assert_true(pa.n > 0);
    assert_int_equal(pa.n, pb.n);
    assert_memory_equal(pa.rec, pb.rec, pa.n * (8 + MEM_PAGE_SIZE));
    assert_int_equal(dla_client_bytes(a, DLA_C_HOST), dla_client_bytes(b, DLA_C_HOST));
    assert_int_equal(dla_client_transactions(a, DLA_C_HOST),
                     dla_client_transactions(b, DLA_C_HOST));
    free(pa.rec);
    free(pb.rec);
}

/* A loadable of a big blob (weights over several simulated pages) and a
 * small "dep_graph" one, each filling a memory of its own, and a third
 * memory filled from the weights too. */
static struct loadable *blob_loadable(void)
{
    size_t big = 3 * MEM_PAGE_SIZE + 123;
    uint8_t *w = malloc(big), graph[40];
    uint32_t x = 1;
    for (size_t i = 0; i < big; i++)
        w[i] = (uint8_t)((x = x * 1664525u + 1013904223u) >> 24);
    for (size_t i = 0; i < sizeof graph; i++)
        graph[i] = (uint8_t)(i + 1);
    struct lw *lw = lw_create();
    lw_blob(lw, "weights", 0, 0, (struct ld_version){0, 0, 0}, w, big);
    lw_blob(lw, "task-0-dep_graph", 0, 0, (struct ld_version){0, 0, 0}, graph, sizeof graph);
    lw_memory(lw, 0, LD_MEM_ALLOC | LD_MEM_SET, 64, 4096, "task-0-dep_graph", 0, 0);
    lw_memory(lw, 0, LD_MEM_ALLOC | LD_MEM_SET, big, 4096, "weights", 0, 0);
    lw_memory(lw, 0, LD_MEM_ALLOC | LD_MEM_SET, big, 4096, "weights", 0, 0);
    lw_address(lw, 0, 0, 64);
    lw_address(lw, 1, 0, big);
    lw_address(lw, 2, 0, big);
    uint16_t addrs[3] = {0, 1, 2}, task = 0;
    lw_task(lw, LD_IF_DLA1, addrs, 3, NULL, 0, NULL, 0);
    lw_submit(lw, &task, 1);
    uint8_t *buf;
    size_t len;
    assert_true(lw_finish(lw, (struct ld_version){0, 7, 0}, &buf, &len));
    lw_destroy(lw);
    free(w);
    char err[256];
    struct loadable *l = loadable_parse_owned(buf, len, "blobs", err, sizeof err);
    if (!l)
        fail_msg("%s", err);
    return l;
}

/* The weights are not held twice: the first bound load gives the loadable's
 * blob bytes back, and a second load (a restart) takes them from the image
 * of the first, sharing its pages; both fill memory exactly as a load from
 * the loadable's bytes does. */
static void test_bound_blobs_released_and_reloaded(void **state)
{
    (void)state;
    char err[256];
    struct loadable *plain = blob_loadable();
    struct loadable *l = blob_loadable();
    uint32_t big = 0;
    for (uint32_t i = 0; i < l->n_blobs; i++)
        if (l->blobs[i].data_len > l->blobs[big].data_len)
            big = i;
    assert_true(l->blobs[big].data_len >= 2 * MEM_PAGE_SIZE);

    struct dla *d0 = dla_create(dla_config_default(), NULL);
    struct dla *d1 = dla_create(dla_config_default(), NULL);
    struct dla *d2 = dla_create(dla_config_default(), NULL);
    struct runtime r0, r1, r2;
    assert_true(runtime_load(&r0, plain, d0, err, sizeof err));
    struct rt_bound *b = runtime_bound_create();
    assert_false(runtime_bound_holds(b));
    const uint8_t *file = l->buf;
    assert_true(runtime_load_bound(&r1, l, d1, b, err, sizeof err));
    assert_true(runtime_bound_holds(b));
    assert_null(l->blobs[big].data); /* given back */
    /* and the file's buffer with it: the names moved to an allocation of
     * their own (made before the buffer was freed, so at another address) */
    assert_ptr_not_equal(l->buf, file);
    for (uint32_t i = 0; i < l->n_blobs; i++)
        assert_string_equal(l->blobs[i].name, plain->blobs[i].name);
    assert_non_null(plain->blobs[big].data);
    assert_true(runtime_load_bound(&r2, l, d2, b, err, sizeof err));
    assert_same_memory(d0, d1);
    assert_same_memory(d0, d2);

    /* the restart's weights are the first load's pages, not copies */
    uint32_t m = 0;
    while (m < l->n_memories && !(l->memories[m].n_contents && l->memories[m].content_blob[0] == big))
        m++;
    assert_true(m < l->n_memories);
    uint64_t inside = (r2.mem[m].addr + l->memories[m].offsets[0] + MEM_PAGE_SIZE - 1) &
                      ~(uint64_t)(MEM_PAGE_SIZE - 1);
    assert_true(mem_page_shared(dla_memory(d1, DLA_DRAM), dla_memory(d2, DLA_DRAM), inside));
    assert_false(mem_page_shared(dla_memory(d0, DLA_DRAM), dla_memory(d2, DLA_DRAM), inside));

    /* the dependency graphs re-copied before a submit come from the image too */
    assert_true(runtime_reload_dep_graphs(&r2, d2, err, sizeof err));
    assert_true(runtime_reload_dep_graphs(&r0, d0, err, sizeof err));
    assert_same_memory(d0, d2);

    runtime_free(&r0);
    runtime_free(&r1);
    runtime_free(&r2);
    runtime_bound_free(b);
    dla_destroy(d0);
    dla_destroy(d1);
    dla_destroy(d2);
    loadable_free(plain);
    loadable_free(l);
}

/* The output DIMG of a tensor written in format f, its memory filled with
 * a pattern; the file's bytes in out (malloc'ed). */
static void dimg_of_format(struct ld_version f, uint8_t **out, size_t *out_len)
{
    enum { C = 20, H = 2, W = 3, LINE = 128, SURF = 512, SIZE = 1024 };
    struct tensor_spec sp = {LD_TYPE_INT16, LD_PIXEL_FEATURE, C, H, W, LINE, SURF, SIZE};
    uint8_t *buf;
    size_t len;
    tensor_loadable_bytes_as(&sp, f, &buf, &len);
    char err[512], path[] = "/tmp/dladbg-dimg-XXXXXX";
    struct loadable *l = loadable_parse(buf, len, "rt", err, sizeof err);
    free(buf);
    if (!l)
        fail_msg("%s", err);
    assert_int_equal(l->version.minor, f.minor);
    struct dla *d = dla_create(dla_config_default(), NULL);
    struct runtime rt;
    assert_true(runtime_load(&rt, l, d, err, sizeof err));
    uint8_t mem[SIZE];
    for (int i = 0; i < SIZE; i++)
        mem[i] = (uint8_t)(i * 29 + 3);
    dla_mem_write(d, DLA_DRAM, rt.mem[2].addr, mem, SIZE);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    if (!runtime_write_output(&rt, d, path, err, sizeof err))
        fail_msg("%s", err);
    const uint8_t *f_bytes = slurp(path, out_len);
    *out = malloc(*out_len);
    memcpy(*out, f_bytes, *out_len);
    remove(path);
    runtime_free(&rt);
    dla_destroy(d);
    loadable_free(l);
}

/* Format 0.5 keeps the output tensor's line and surface strides in fields
 * of their own: the DIMG (its header carries them, and the gather follows
 * them) is the 0.7 twin's, byte for byte; 0.6's too. */
static void test_output_dimg_every_format(void **state)
{
    (void)state;
    uint8_t *want, *got;
    size_t want_len, got_len;
    dimg_of_format((struct ld_version){0, 7, 0}, &want, &want_len);
    static const struct ld_version older[] = {{0, 5, 0}, {0, 6, 0}};
    for (size_t i = 0; i < 2; i++) {
        dimg_of_format(older[i], &got, &got_len);
        assert_int_equal(got_len, want_len);
        assert_memory_equal(got, want, want_len);
        free(got);
    }
    uint32_t line, surf;
    memcpy(&line, want + 24, 4);
    memcpy(&surf, want + 28, 4);
    assert_int_equal(line, 128);
    assert_int_equal(surf, 512);
    free(want);
}

/* One SDP operation, memory to memory, run by the engine from a loadable of
 * format f: the bytes it wrote to the destination (512). */
static void sdp_run_in_format(struct ld_version f, uint8_t out[512])
{
    struct sdp_net n;
    sdp_net_init(&n);
    uint8_t *buf;
    size_t len;
    sdp_net_encode_format(&n, FW_LAYOUT_LEGACY, (struct ld_version){0, 10, 0}, f, &buf, &len);
    struct rig r;
    rig_open_buf(&r, buf, len);
    free(buf);
    uint8_t in[512];
    for (int i = 0; i < 512; i++)
        in[i] = (uint8_t)(i * 13 + 1);
    enum dla_space s;
    uint64_t src, dst;
    assert_true(runtime_task_address(&r.rt, 0, 4, &s, &src));
    assert_true(runtime_task_address(&r.rt, 0, 5, &s, &dst));
    dla_mem_write(r.d, s, src, in, sizeof in);
    assert_true(rig_run(&r, 0));
    assert_int_equal(dla_mem_read(r.d, s, dst, out, 512), MEM_OK);
    rig_close(&r);
}

/* NVIDIA's first loadables (format 0.5, descriptors tagged 0.10.0) run as
 * their 0.7 twins: the engine finds the descriptors behind the blobs that
 * sit one field earlier. */
static void test_v05_network_runs(void **state)
{
    (void)state;
    uint8_t want[512], got[512];
    sdp_run_in_format((struct ld_version){0, 7, 0}, want);
    sdp_run_in_format((struct ld_version){0, 5, 0}, got);
    assert_memory_equal(got, want, sizeof want);
    bool nonzero = false;
    for (int i = 0; i < 512; i++)
        nonzero |= want[i] != 0;
    assert_true(nonzero);
}

/* A DLA task whose descriptors carry a version no producer wrote is refused
 * at load, naming the blob, the version and the known ones. */
static void test_descriptor_version_checked(void **state)
{
    (void)state;
    static const struct ld_version good[] = {{0, 10, 0}, {0, 11, 0}, {0, 12, 3},
                                             {0, 12, 5}, {1, 2, 0},  {1, 3, 0}};
    static const struct ld_version bad[] = {{0, 13, 0}, {0, 9, 0}, {1, 1, 0}, {2, 0, 0}};
    struct sdp_net n;
    sdp_net_init(&n);
    for (size_t i = 0; i < sizeof good / sizeof good[0] + sizeof bad / sizeof bad[0]; i++) {
        bool ok = i < sizeof good / sizeof good[0];
        struct ld_version v = ok ? good[i] : bad[i - sizeof good / sizeof good[0]];
        uint8_t *buf;
        size_t len;
        sdp_net_encode_as(&n, FW_LAYOUT_CURRENT, v, &buf, &len);
        char err[512] = "";
        struct loadable *l = loadable_parse(buf, len, "net", err, sizeof err);
        free(buf);
        assert_non_null(l);
        struct dla *d = dla_create(dla_config_default(), NULL);
        struct runtime rt;
        bool loaded = runtime_load(&rt, l, d, err, sizeof err);
        if (loaded != ok)
            fail_msg("version %u.%u.%u: %s", v.major, v.minor, v.sub_minor,
                     loaded ? "accepted" : err);
        if (!ok) {
            char want[64];
            snprintf(want, sizeof want, "tagged DLA descriptor version %u.%u.%u", v.major, v.minor,
                     v.sub_minor);
            assert_non_null(strstr(err, want));
            assert_non_null(strstr(err, "blob \"nd\""));
            assert_non_null(strstr(err, "NVIDIA's 0.10.x and 0.11.x"));
        }
        runtime_free(&rt);
        dla_destroy(d);
        loadable_free(l);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placement),
        cmocka_unit_test(test_output_dimg),
        cmocka_unit_test(test_fp16_stable_hash),
        cmocka_unit_test(test_output_dimg_x8),
        cmocka_unit_test(test_tensor_info_atoms),
        cmocka_unit_test(test_bound_blobs_released_and_reloaded),
        cmocka_unit_test(test_output_dimg_every_format),
        cmocka_unit_test(test_v05_network_runs),
        cmocka_unit_test(test_descriptor_version_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
