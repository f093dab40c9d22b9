/* The .npy reader and writer: round trips of every element type and rank,
 * the header NumPy expects (64-byte alignment, a 1-tuple's comma), files
 * NumPy writes (big-endian, format 2.0), and every malformed file refused
 * with the file, the offset and what was expected.  When a Python with
 * NumPy is at hand, numpy.load() reads what we wrote and we read what
 * numpy.save() wrote. */
#include <math.h>
#include <sys/wait.h>

#include "dbg_fixture.h"
#include "tensor/npy.h"
#include "util/textfile.h"

static int setup(void **state)
{
    return fixture_group_setup(state);
}

static int teardown(void **state)
{
    return fixture_group_teardown(state);
}

static void write_bytes(const char *name, const void *buf, size_t len, char *path, size_t plen)
{
    fixture_path(path, plen, name);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(buf, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
}

/* A file of the given header text (padded as NumPy pads it) and data. */
static size_t make_npy(uint8_t *out, unsigned major, const char *dict, const void *data,
                       size_t data_len)
{
    size_t pre = major == 1 ? 10 : 12;
    size_t text = strlen(dict) + 1;
    size_t total = (pre + text + 63) / 64 * 64;
    size_t hlen = total - pre;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (uint8_t)major;
    out[7] = 0;
    if (major == 1) {
        out[8] = (uint8_t)hlen;
        out[9] = (uint8_t)(hlen >> 8);
    } else {
        for (int i = 0; i < 4; i++)
            out[8 + i] = (uint8_t)(hlen >> (8 * i));
    }
    memset(out + pre, ' ', hlen);
    memcpy(out + pre, dict, strlen(dict));
    out[pre + hlen - 1] = '\n';
    memcpy(out + total, data, data_len);
    return total + data_len;
}

static void test_round_trip_every_type(void **state)
{
    (void)state;
    const enum npy_dtype types[] = {NPY_I8, NPY_U8, NPY_I16, NPY_U16,
                                    NPY_I32, NPY_F16, NPY_F32, NPY_F64};
    uint8_t data[2 * 3 * 4 * 8];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 37 + 11);
    const uint64_t shape[4] = {1, 2, 3, 4};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        char path[512], err[512];
        fixture_path(path, sizeof path, "rt.npy");
        assert_true(npy_write(path, types[t], 4, shape, data, err, sizeof err));
        struct npy_array a;
        if (!npy_read(path, 1 << 20, &a, err, sizeof err))
            fail_msg("%s: %s", npy_dtype_name(types[t]), err);
        assert_int_equal(a.dtype, types[t]);
        assert_int_equal(a.ndim, 4);
        assert_int_equal(a.count, 24);
        for (unsigned i = 0; i < 4; i++)
            assert_int_equal(a.shape[i], shape[i]);
        assert_memory_equal(a.data, data, 24 * npy_dtype_size(types[t]));
        npy_free(&a);
        /* NumPy's rule: the data starts at a multiple of 64 bytes */
        uint8_t *buf;
        size_t len;
        assert_true(file_read_all(path, 1 << 20, &buf, &len, err, sizeof err));
        assert_int_equal((len - 24 * npy_dtype_size(types[t])) % 64, 0);
        assert_int_equal(buf[len - 24 * npy_dtype_size(types[t]) - 1], '\n');
        free(buf);
    }
}

static void test_ranks_and_values(void **state)
{
    (void)state;
    char path[512], err[512];
    fixture_path(path, sizeof path, "v.npy");
    const uint16_t halves[3] = {0x3c00 /* 1 */, 0xc000 /* -2 */, 0x3555 /* 0.333 */};
    const uint64_t three = 3;
    assert_true(npy_write(path, NPY_F16, 1, &three, halves, err, sizeof err));
    uint8_t *buf;
    size_t len;
    assert_true(file_read_all(path, 4096, &buf, &len, err, sizeof err));
    /* a 1-tuple keeps its comma, or NumPy would read an int */
    assert_non_null(strstr((const char *)buf + 10, "'shape': (3,)"));
    assert_non_null(strstr((const char *)buf + 10, "'descr': '<f2'"));
    free(buf);
    struct npy_array a;
    assert_true(npy_read(path, 4096, &a, err, sizeof err));
    assert_int_equal(a.ndim, 1);
    assert_true(npy_get(&a, 0) == 1.0);
    assert_true(npy_get(&a, 1) == -2.0);
    assert_true(fabs(npy_get(&a, 2) - 0.33325195) < 1e-7);
    npy_free(&a);
    /* a scalar: shape () and one element */
    const float pi = 3.25f;
    assert_true(npy_write(path, NPY_F32, 0, NULL, &pi, err, sizeof err));
    assert_true(npy_read(path, 4096, &a, err, sizeof err));
    assert_int_equal(a.ndim, 0);
    assert_int_equal(a.count, 1);
    assert_true(npy_get(&a, 0) == 3.25);
    npy_free(&a);
}

static void test_files_numpy_writes(void **state)
{
    (void)state;
    uint8_t buf[512];
    char path[512], err[512];
    struct npy_array a;
    /* big-endian int16, as numpy.save of a '>i2' array writes it */
    const uint8_t be[4] = {0x01, 0x02, 0xff, 0xfe};
    size_t n = make_npy(buf, 1, "{'descr': '>i2', 'fortran_order': False, 'shape': (2,), }", be,
                        sizeof be);
    write_bytes("be.npy", buf, n, path, sizeof path);
    assert_true(npy_read(path, 4096, &a, err, sizeof err));
    assert_true(npy_get(&a, 0) == 0x0102);
    assert_true(npy_get(&a, 1) == -2);
    npy_free(&a);
    /* format 2.0 (a 4-byte header length), keys in another order, double quotes */
    const float f[2] = {0.5f, -1.5f};
    n = make_npy(buf, 2, "{\"shape\": (1, 2), \"fortran_order\": False, \"descr\": \"<f4\"}", f,
                 sizeof f);
    write_bytes("v2.npy", buf, n, path, sizeof path);
    assert_true(npy_read(path, 4096, &a, err, sizeof err));
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.shape[1], 2);
    assert_true(npy_get(&a, 1) == -1.5);
    npy_free(&a);
}

/* Each malformed file is refused with the file, an offset and the reason. */
static void expect_refusal(const void *file, size_t len, uint64_t max_bytes, const char *want)
{
    char err[512];
    struct npy_array a;
    if (npy_parse("bad.npy", file, len, max_bytes, &a, err, sizeof err))
        fail_msg("accepted a file that should fail with \"%s\"", want);
    if (!strstr(err, "bad.npy") || !strstr(err, "offset") || !strstr(err, want))
        fail_msg("message \"%s\" lacks the file, an offset or \"%s\"", err, want);
}

static void test_malformed_files(void **state)
{
    (void)state;
    uint8_t buf[512];
    const uint8_t data[8] = {0};
    expect_refusal("PK\x03\x04 not numpy", 16, 4096, "not a NumPy");
    size_t n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", data,
                        8);
    expect_refusal(buf, n, 4096, "file ends after 8 data bytes; the shape needs 16");
    expect_refusal(buf, 40, 4096, "file ends inside");
    n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", data, 8);
    expect_refusal(buf, n, 4096, "after the array's data");
    n = make_npy(buf, 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", data, 8);
    expect_refusal(buf, n, 4096, "dtype '<c8'");
    n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", data, 8);
    expect_refusal(buf, n, 4096, "fortran_order is True");
    n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, x), }", data,
                 8);
    expect_refusal(buf, n, 4096, "expected a dimension");
    n = make_npy(buf, 1,
                 "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }",
                 data, 8);
    expect_refusal(buf, n, 4096, "overflows");
    /* a huge but representable shape is refused before anything is allocated */
    n = make_npy(buf, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,), }",
                 data, 8);
    expect_refusal(buf, n, 1 << 20, "more than the 1048576 bytes taken");
    n = make_npy(buf, 1, "{'descr': '<f4', 'shape': (2,), }", data, 8);
    expect_refusal(buf, n, 4096, "lacks 'fortran_order'");
    n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", data,
                 8);
    expect_refusal(buf, n, 4096, "unexpected key 'x'");
    n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data, 8);
    buf[6] = 9;
    expect_refusal(buf, n, 4096, "format version 9.0");
}

/* The Python with NumPy that tests/run.sh found ($DLADBG_PYTHON), or NULL. */
static const char *python_with_numpy(void)
{
    const char *py = getenv("DLADBG_PYTHON");
    return py && *py ? py : NULL;
}

static void test_numpy_reads_ours_and_we_read_numpys(void **state)
{
    (void)state;
    const char *py = python_with_numpy();
    if (!py)
        skip();
    char ours[512], theirs[512], err[512], cmd[2048];
    fixture_path(ours, sizeof ours, "ours.npy");
    fixture_path(theirs, sizeof theirs, "theirs.npy");
    const int8_t q[6] = {-128, -1, 0, 1, 64, 127};
    const uint64_t shape[4] = {1, 3, 1, 2};
    assert_true(npy_write(ours, NPY_I8, 4, shape, q, err, sizeof err));
    snprintf(cmd, sizeof cmd,
             "%s -c 'import numpy as np, sys\n"
             "a = np.load(\"%s\")\n"
             "assert a.dtype == np.int8 and a.shape == (1, 3, 1, 2), (a.dtype, a.shape)\n"
             "assert a.ravel().tolist() == [-128, -1, 0, 1, 64, 127], a\n"
             "np.save(\"%s\", (np.arange(6, dtype=np.float16) - 2.5).reshape(2, 3))\n'",
             py, ours, theirs);
    int rc = system(cmd);
    assert_true(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    struct npy_array a;
    assert_true(npy_read(theirs, 4096, &a, err, sizeof err));
    assert_int_equal(a.dtype, NPY_F16);
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.shape[0], 2);
    for (uint64_t i = 0; i < 6; i++)
        assert_true(npy_get(&a, i) == (double)i - 2.5);
    npy_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_type),
        cmocka_unit_test(test_ranks_and_values),
        cmocka_unit_test(test_files_numpy_writes),
        cmocka_unit_test(test_malformed_files),
        cmocka_unit_test(test_numpy_reads_ours_and_we_read_numpys),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
