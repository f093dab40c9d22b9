/* The tensor command on the built-in LeNet sample: a small tensor shown
 * whole (the 10 probabilities on one line), a large one in a default
 * window that says what is left, "all", NumPy windows checked element by
 * element against memory, real and hex values, stats text, save and
 * npy_read back (raw and float), hardware layers' surfaces, every bad
 * argument refused with a message, completion of names and options; a
 * loadable's tensors whose shape and strides reach past their memory are
 * refused, as tensors described by hand are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dbg_fixture.h"
#include "tensor_loadable.h"
#include "tensor/npy.h"
#include "tensor/tensor_read.h"

static unsigned long long tensor_base(void)
{
    const char *at = strstr(fixture_out.text, "dram 0x");
    assert_non_null(at);
    unsigned long long base;
    assert_int_equal(sscanf(at, "dram 0x%llx", &base), 1);
    return base;
}

static int8_t byte_at(struct dbg *d, uint64_t addr)
{
    int8_t v;
    assert_int_equal(dla_mem_read(session_dla(d->session), DLA_DRAM, addr, &v, 1), MEM_OK);
    return v;
}

static unsigned count_lines(const char *text, const char *prefix)
{
    unsigned n = 0;
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, prefix, strlen(prefix)))
            n++;
    return n;
}

static struct dbg *lenet_run(void)
{
    struct dbg *d = fixture_open("sample:lenet");
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    return d;
}

/* The 10 probabilities: one line, every value, as memory holds them. */
static void test_small_tensor_whole(void **state)
{
    (void)state;
    struct dbg *d = lenet_run();
    assert_int_equal(fixture_exec(d, "tensor probabilities"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "N=1 C=10 H=1 W=1 int8"));
    uint64_t base = tensor_base();
    char want[256] = "  c=0   ";
    for (unsigned c = 0; c < 10; c++) {
        size_t n = strlen(want);
        snprintf(want + n, sizeof want - n, " %7d", byte_at(d, base + c)); /* one atom */
    }
    assert_non_null(strstr(fixture_out.text, want));
    assert_null(strstr(fixture_out.text, "more"));
    dbg_destroy(d);
}

/* 40x40 int8 by hand: 8 rows of 16 columns, then what is left and how to
 * see it; "all" shows the 40 rows, each in three lines of 16 values that
 * say their row and first column. */
static void test_default_window_and_all(void **state)
{
    (void)state;
    struct dbg *d = lenet_run();
    assert_int_equal(fixture_exec(d, "tensor 0x80000000 40x40x1 int8"), CMD_OK);
    assert_int_equal(count_lines(fixture_out.text, "  h="), 8);
    assert_non_null(strstr(fixture_out.text, "showing h=0:8 w=0:16"));
    assert_non_null(strstr(fixture_out.text, "... 32 more rows (h=8:16 next), 24 more columns "
                                             "(w=16:32 next); \"tensor 0x80000000 40x40x1 int8 "
                                             "all\" shows every element"));
    assert_int_equal(fixture_exec(d, "tensor 0x80000000 40x40x1 int8 all"), CMD_OK);
    assert_int_equal(count_lines(fixture_out.text, "  h="), 120);
    assert_non_null(strstr(fixture_out.text, "  h=39  w=32  "));
    assert_int_equal(count_lines(fixture_out.text, "  h=39  w=16  "), 1);
    assert_null(strstr(fixture_out.text, "more"));
    assert_null(strstr(fixture_out.text, "showing"));
    dbg_destroy(d);
}

/* c=, h=, w= windows: exactly the elements of memory they name. */
static void test_windows(void **state)
{
    (void)state;
    struct dbg *d = lenet_run();
    assert_int_equal(fixture_exec(d, "tensor image h=2:4 w=-3:"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "showing h=2:4 w=9:12"));
    uint64_t base = tensor_base();
    for (unsigned y = 2; y < 4; y++) {
        char want[128];
        snprintf(want, sizeof want, "  h=%-3u", y);
        for (unsigned x = 9; x < 12; x++) {
            size_t n = strlen(want);
            snprintf(want + n, sizeof want - n, " %7d", byte_at(d, base + y * 384 + x * 32));
        }
        assert_non_null(strstr(fixture_out.text, want));
    }
    assert_int_equal(count_lines(fixture_out.text, "  h="), 2);
    /* a single index, and :B */
    assert_int_equal(fixture_exec(d, "tensor image h=5 w=:2"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "showing h=5 w=0:2"));
    /* hex and real values */
    assert_int_equal(fixture_exec(d, "tensor/x image h=0 w=0"), CMD_OK);
    char hex[16];
    snprintf(hex, sizeof hex, "0x%02x", (uint8_t)byte_at(d, base));
    assert_non_null(strstr(fixture_out.text, hex));
    assert_int_equal(fixture_exec(d, "tensor image h=0 w=0 scale=0.5"), CMD_OK);
    char real[32];
    snprintf(real, sizeof real, " %.6g\n", byte_at(d, base) * 0.5);
    assert_non_null(strstr(fixture_out.text, real));
    assert_non_null(strstr(fixture_out.text, ", scale 0.5"));
    dbg_destroy(d);
}

static void test_stats_text(void **state)
{
    (void)state;
    struct dbg *d = lenet_run();
    assert_int_equal(fixture_exec(d, "tensor image stats bins=4"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "144 elements"));
    assert_non_null(strstr(fixture_out.text, "min "));
    assert_non_null(strstr(fixture_out.text, "  at -128: "));
    assert_non_null(strstr(fixture_out.text, "histogram: 4 bins over ["));
    assert_int_equal(count_lines(fixture_out.text, "  ["), 4);
    assert_non_null(strstr(fixture_out.text, "#"));
    assert_int_equal(fixture_exec(d, "tensor image stats scale=2"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "(real values: raw x scale)"));
    assert_int_equal(count_lines(fixture_out.text, "  ["), 20);
    dbg_destroy(d);
}

/* save: the file numpy.load would read, element for element. */
static void test_save_round_trip(void **state)
{
    (void)state;
    struct dbg *d = lenet_run();
    char path[512], cmd[600];
    fixture_path(path, sizeof path, "pool.npy");
    snprintf(cmd, sizeof cmd, "tensor layer 4 save %s", path);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "Wrote 1x8x4x4 int8 (NCHW) to "));
    struct npy_array a;
    char err[512];
    if (!npy_read(path, 1 << 20, &a, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(a.dtype, NPY_I8);
    assert_int_equal(a.ndim, 4);
    assert_int_equal(a.shape[0], 1);
    assert_int_equal(a.shape[1], 8);
    assert_int_equal(a.shape[2], 4);
    assert_int_equal(a.shape[3], 4);
    /* the layer's output as its registers say, read directly */
    assert_int_equal(fixture_exec(d, "tensor layer 4 c=0 h=0 w=0"), CMD_OK);
    uint64_t base = tensor_base();
    for (unsigned c = 0; c < 8; c++)
        for (unsigned y = 0; y < 4; y++)
            for (unsigned x = 0; x < 4; x++)
                assert_int_equal(((int8_t *)a.data)[(c * 4 + y) * 4 + x],
                                 byte_at(d, base + c + y * 128 + x * 32));
    /* a window as float32 real values */
    snprintf(cmd, sizeof cmd, "tensor layer 4 c=1:3 save %s float scale=0.25", path);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "Wrote 1x2x4x4 float32 (NCHW, raw x scale)"));
    struct npy_array f;
    assert_true(npy_read(path, 1 << 20, &f, err, sizeof err));
    assert_int_equal(f.dtype, NPY_F32);
    assert_int_equal(f.count, 32);
    for (unsigned i = 0; i < 32; i++)
        assert_true(npy_get(&f, i) == npy_get(&a, 16 + i) * 0.25);
    npy_free(&a);
    npy_free(&f);
    /* float of an int8 tensor without a scale is refused */
    snprintf(cmd, sizeof cmd, "tensor layer 4 save %s float", path);
    assert_int_equal(fixture_exec(d, cmd), CMD_ERROR);
    assert_non_null(strstr(fixture_out.text, "give scale=X"));
    dbg_destroy(d);
}

static void test_layers(void **state)
{
    (void)state;
    struct dbg *d = lenet_run();
    /* layer 0 is a convolution: no output in memory, its input is the image */
    assert_int_equal(fixture_exec(d, "tensor layer 0"), CMD_ERROR);
    assert_non_null(strstr(fixture_out.text, "CONV's output goes to SDP on the fly"));
    assert_non_null(strstr(fixture_out.text, "layer 2's input"));
    assert_int_equal(fixture_exec(d, "tensor layer 0 in"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "tensor layer 0 input dram 0x80005000: N=1 C=1 H=12 "
                                             "W=12 int8"));
    assert_int_equal(fixture_exec(d, "tensor layer 3 out"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "N=1 C=10 H=1 W=1 int8"));
    assert_non_null(strstr(fixture_out.text, "  c=0 "));
    assert_int_equal(fixture_exec(d, "tensor layer 9"), CMD_ERROR);
    assert_non_null(strstr(fixture_out.text, "no hardware layer 9: the run has layers 0..4"));
    dbg_destroy(d);
}

static void test_refusals(void **state)
{
    (void)state;
    struct dbg *d = lenet_run();
    static const struct {
        const char *cmd, *msg;
    } bad[] = {
        {"tensor", "expected NAME|ID, layer N"},
        {"tensor imag", "(did you mean \"image\"?)"},
        {"tensor image alll", "unknown option \"alll\" (did you mean \"all\"?)"},
        {"tensor image c=1", "c=1 is outside 0..0 (the tensor has c=1)"},
        {"tensor image h=4:4", "h=4:4 selects nothing of the tensor's h=12"},
        {"tensor image w=0:8:2", "no steps"},
        {"tensor image w=x", "expected an index or a half-open range"},
        {"tensor image real", "holds int8 values and its scale is not known"},
        {"tensor image scale=-1", "expected a positive number"},
        {"tensor image bins=0", "expected 1..200 bins"},
        {"tensor image save", "save: expected FILE.npy"},
        {"tensor image float", "\"float\" goes after \"save FILE.npy\""},
        {"tensor image stats save x.npy", "stats and save are separate commands"},
        {"tensor/q image", "expected /r (real values) or /x (raw hex)"},
        {"tensor/rx image", "does not go with real values"},
        {"tensor layer", "expected \"layer N [out|in]\""},
        {"tensor layer x", "not \"x\""},
        {"tensor 0x80000000 0x1x1 int8", "expected dimensions WxHxC"},
        {"tensor 0x80000000 4x4x4 int32", "expected int8, uint8, int16 or fp16"},
        {"tensor 0x80000000 65536x65536x65536 fp16 all", "at most 4194304 are printed"},
        {"tensor 0x80000000 65536x65536x65536 fp16 stats", "at most 256 MiB are read"},
        {"tensor image save /nonexistent-dir/x.npy", "/nonexistent-dir/x.npy"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (fixture_exec(d, bad[i].cmd) != CMD_ERROR || !strstr(fixture_out.text, bad[i].msg))
            fail_msg("\"%s\": expected an error with \"%s\", got:\n%s", bad[i].cmd, bad[i].msg,
                     fixture_out.text);
    }
    dbg_destroy(d);
}

static void test_completion(void **state)
{
    (void)state;
    struct dbg *d = lenet_run();
    size_t start;
    struct fixture_cands k = fixture_complete(d, "tensor pro", &start);
    assert_string_equal(k.all, "[probabilities]");
    k = fixture_complete(d, "tensor la", &start);
    assert_string_equal(k.all, "[layer]");
    k = fixture_complete(d, "tensor image c", &start);
    assert_string_equal(k.all, "[c=]");
    assert_true(dbg_completion_continues("c="));
    k = fixture_complete(d, "tensor image s", &start);
    assert_string_equal(k.all, "[stats][save][scale=]");
    k = fixture_complete(d, "tensor image save x.npy f", &start);
    assert_string_equal(k.all, "[float]");
    k = fixture_complete(d, "tensor layer 4 o", &start);
    assert_string_equal(k.all, "[out]");
    dbg_destroy(d);
}

/* The plan and the tensors come from the session's own parse of the file,
 * not from reading (or building) it again: a file removed after the open
 * still has its tensors named, its operations on its layers and its names
 * completed (issue 34: a sample was built twice, its weights copied again). */
static void test_from_the_session_parse(void **state)
{
    (void)state;
    char from[512], path[512], cmd[1200];
    snprintf(from, sizeof from, "%s/samples/lenet.nvdla", fixture_build());
    fixture_path(path, sizeof path, "gone.nvdla");
    snprintf(cmd, sizeof cmd, "cp %s %s", from, path);
    assert_int_equal(system(cmd), 0);
    struct dbg *d = fixture_open(path);
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(fixture_exec(d, "info tensors"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "probabilities"));
    assert_int_equal(fixture_exec(d, "info layers"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "[task 0 op 0: image ->]"));
    size_t start;
    struct fixture_cands k = fixture_complete(d, "tensor prob", &start);
    assert_string_equal(k.all, "[probabilities]");
    dbg_destroy(d);
}

/* A hostile loadable: its tensors "in" and "out" hold 320 bytes each, but
 * their 40 channels (two surfaces of 32-channel atoms) are 1 MiB apart.
 * Every byte of the extent is asked for, as of a tensor by hand: refused,
 * naming the tensor and the first byte outside, never read as zeros. */
static void test_hostile_tensor_extent(void **state)
{
    (void)state;
    struct tensor_spec sp = {LD_TYPE_INT8, LD_PIXEL_FEATURE, 40, 2, 5, 160, 0x100000, 320};
    uint8_t *bytes;
    size_t len;
    tensor_loadable_bytes(&sp, &bytes, &len);
    assert_true(fixture_write_bytes("hostile.nvdla", bytes, len));
    free(bytes);
    char path[512];
    fixture_path(path, sizeof path, "hostile.nvdla");
    struct dbg *d = fixture_open(path);
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "info tensors"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "NCHW 1x40x2x5 int8"));
    static const char *const names[] = {"in", "out"};
    for (int i = 0; i < 2; i++) {
        char cmd[64], want[128];
        snprintf(cmd, sizeof cmd, "tensor %s stats", names[i]);
        assert_int_equal(fixture_exec(d, cmd), CMD_ERROR);
        snprintf(want, sizeof want,
                 "tensor \"%s\" (id %d), as the loadable places it: Cannot access memory at "
                 "address dram:0x",
                 names[i], i);
        assert_non_null(strstr(fixture_out.text, want));
        assert_non_null(strstr(fixture_out.text, " (the tensor spans dram:0x"));
        assert_null(strstr(fixture_out.text, "elements"));
    }
    dbg_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_tensor_whole),
        cmocka_unit_test(test_default_window_and_all),
        cmocka_unit_test(test_windows),
        cmocka_unit_test(test_stats_text),
        cmocka_unit_test(test_save_round_trip),
        cmocka_unit_test(test_layers),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_completion),
        cmocka_unit_test(test_from_the_session_parse),
        cmocka_unit_test(test_hostile_tensor_extent),
    };
    return cmocka_run_group_tests(tests, fixture_group_setup, fixture_group_teardown);
}
