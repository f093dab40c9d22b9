/* Layer-by-layer comparison (src/compare/, src/cmd/cmd_compare.c): the
 * calibration table reader, tolerances, measures, the reference folder's
 * checks, and whole runs of the sample networks against references written
 * with dladbg's own "dump tensors" and npy writer (one layer corrupted, a
 * float reference with a calibration table, map.txt, malformed folders). */
#include "dbg_fixture.h"

#include <math.h>

#include "compare/calib_json.h"
#include "compare/compare.h"
#include "compare/metrics.h"
#include "compare/refdir.h"
#include "loadable/loadable_tensors.h"
#include "tensor/npy.h"

/* ---------------------------------------------------------------- helpers */

static void path_in(char *buf, size_t len, const char *dir, const char *name)
{
    snprintf(buf, len, "%s/%s/%s", fixture_dir, dir, name);
}

static void make_dir(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", fixture_dir, dir);
    mkdir(path, 0777);
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[700];
    path_in(path, sizeof path, dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static void write_f32(const char *dir, const char *name, unsigned ndim, const uint64_t *shape,
                      const float *v)
{
    char path[700], err[256];
    path_in(path, sizeof path, dir, name);
    assert_true(npy_write(path, NPY_F32, ndim, shape, v, err, sizeof err));
}

static void read_blob(const char *dir, const char *name, struct npy_array *a)
{
    char path[700], err[256];
    path_in(path, sizeof path, dir, name);
    assert_true(npy_read(path, 1u << 26, a, err, sizeof err));
}

static void rewrite_blob(const char *dir, const char *name, const struct npy_array *a)
{
    char path[700], err[256];
    path_in(path, sizeof path, dir, name);
    assert_true(npy_write(path, a->dtype, a->ndim, a->shape, a->data, err, sizeof err));
}

/* "dump tensors" of a sample into DIR of the fixture folder. */
static void dump_sample(const char *sample, const char *dir)
{
    struct dbg *d = fixture_open(sample);
    assert_non_null(d);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "dump tensors %s/%s", fixture_dir, dir);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "Wrote "));
    dbg_destroy(d);
}

/* "compare DIR" of a sample: the batch exit status (dbg_exit_status). */
static int compare_sample(const char *sample, const char *dir, const char *extra, struct dbg **keep)
{
    struct dbg *d = fixture_open(sample);
    assert_non_null(d);
    char cmd[900];
    snprintf(cmd, sizeof cmd, "compare %s/%s%s%s", fixture_dir, dir, extra ? " " : "",
             extra ? extra : "");
    fixture_exec(d, cmd);
    int st = dbg_exit_status(d);
    if (keep)
        *keep = d;
    else
        dbg_destroy(d);
    return st;
}

static void assert_contains(const char *text, const char *what)
{
    if (!strstr(text, what)) {
        fprintf(stderr, "expected \"%s\" in:\n%s\n", what, text);
        fail();
    }
}

/* ---------------------------------------------------------------- calibration table */

static void test_calib_parse(void **state)
{
    (void)state;
    static const char text[] = "{\n  \"data\": {\"scale\": 0.0078, \"min\": 0, \"max\": 0, "
                               "\"offset\": 0},\n  \"conv1\": {\"scale\": 1.5e-2, \"note\": [1, "
                               "{\"x\": null}], \"max\": -3}\n}\n";
    struct calib_table t;
    char err[300];
    assert_true(calib_parse("c.json", text, strlen(text), &t, err, sizeof err));
    assert_int_equal(t.n, 2);
    assert_true(fabs(calib_find(&t, "data")->scale - 0.0078) < 1e-12);
    assert_true(fabs(calib_find(&t, "conv1")->scale - 0.015) < 1e-12);
    assert_true(calib_find(&t, "conv1")->max == -3);
    assert_null(calib_find(&t, "conv2"));
    calib_free(&t);
}

static void test_calib_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"", "c.json:1:1 (byte 0): expected a JSON object"},
        {"[]", "expected a JSON object"},
        {"{\"a\": {\"min\": 1}}", "c.json:1:7 (byte 6): expected a \"scale\" member"},
        {"{\"a\": {\"scale\": 0}}", "expected a scale greater than 0"},
        {"{\"a\": {\"scale\": 1,}}", "expected another member after ','"},
        {"{\"a\": {\"scale\": 1, \"min\": 01}}", "expected ',' or '}' after a member"},
        {"{\"a\": {\"scale\": .5}}", "expected a number"},
        {"{\"a\": {\"scale\": 1e}}", "expected the exponent's digits"},
        {"{\"a\": {\"scale\": 1}, \"a\": {\"scale\": 2}}", "\"a\" is there already"},
        {"{\"a\": {\"scale\": 1}} x", "expected nothing after the table's closing '}'"},
        {"{\n\"a\": {\"scale\": 1e999}}", "c.json:2:16 (byte 17): expected a number within"},
        {"{\"a\": {\"scale\": \"1\"}}", "expected a number"},
        {"{\"a\" {\"scale\": 1}}", "expected ':' after a blob name"},
        {"{\"a\": {\"scale\": 1}", "expected ',' or '}' after a blob's object, found the end"},
        {"{\"a\": 5}", "expected an object of numbers"},
        {"{\"a\": {\"scale\": 1, \"x\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
         "[[[[[[[[[[[[[[[[[[[[[]]]]}}",
         "expected values nested at most 64 deep"},
        {"{\"a\\q\": {\"scale\": 1}}", "expected an escape"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct calib_table t = {0};
        char err[300] = "";
        assert_false(
            calib_parse("c.json", cases[i].text, strlen(cases[i].text), &t, err, sizeof err));
        assert_contains(err, cases[i].want);
        assert_null(t.e);
    }
}

/* ---------------------------------------------------------------- tolerances and measures */

static void test_tolerance_parse(void **state)
{
    (void)state;
    struct cmp_tolerance t;
    char err[400], text[96];
    assert_true(cmp_tolerance_parse("cos=0.9,lsb=30", &t, err, sizeof err));
    assert_true(t.cos == 0.9 && t.lsb == 30 && isnan(t.rel));
    cmp_tolerance_format(&t, text, sizeof text);
    assert_string_equal(text, "cos=0.9,lsb=30");
    struct cmp_tolerance f = cmp_tolerance_for(&t, CMP_FLOAT);
    assert_true(f.rel == CMP_DEFAULT_REL_FLOAT && f.cos == 0.9);
    assert_true(cmp_tolerance_parse("default", &t, err, sizeof err));
    assert_true(cmp_tolerance_for(&t, CMP_SCALED).lsb == CMP_DEFAULT_LSB_SCALED);
    assert_true(cmp_tolerance_for(&t, CMP_RAW).lsb == CMP_DEFAULT_LSB_RAW);
    assert_false(cmp_tolerance_parse("cos=2", &t, err, sizeof err));
    assert_contains(err, "cos=2: expected a number from -1 to 1");
    assert_false(cmp_tolerance_parse("lsb=x", &t, err, sizeof err));
    assert_contains(err, "lsb=x: expected a number");
    assert_false(cmp_tolerance_parse("angle=1", &t, err, sizeof err));
    assert_contains(err, "\"angle=1\": expected cos=C");
    assert_false(cmp_tolerance_parse("rel=0.1,", &t, err, sizeof err));
    assert_contains(err, "expected another item");
    assert_false(cmp_tolerance_parse("", &t, err, sizeof err));
    assert_false(cmp_tolerance_parse("rel=", &t, err, sizeof err));
}

static void test_measure_int8(void **state)
{
    (void)state;
    enum { N = 64 };
    int8_t q[N];
    float ref[N];
    for (int i = 0; i < N; i++) {
        ref[i] = (float)((i * 37) % 200 - 100) * 0.1f; /* -10 .. 9.9 */
        double x = ref[i] / 0.05;
        q[i] = (int8_t)(x > 127 ? 127 : x < -128 ? -128 : lrint(x));
    }
    uint64_t shape[4] = {1, 4, 4, 4};
    struct npy_array a = {.dtype = NPY_F32, .ndim = 4, .count = N, .data = ref};
    memcpy(a.shape, shape, sizeof shape);
    struct cmp_got g = {.elem = TENSOR_INT8, .data = q, .n = 1, .c = 4, .h = 4, .w = 4};
    struct cmp_tolerance tol;
    cmp_tolerance_default(&tol);
    struct cmp_metrics m;
    assert_true(cmp_measure(&g, &a, CMP_SCALED, 0.05, &tol, &m));
    assert_false(m.departed);
    assert_true(m.saturated > 0); /* |ref| up to 10 is beyond 127 * 0.05: saturates, not departs */
    assert_true(m.lsb_p99 <= 0.5 + 1e-9);
    assert_true(m.cosine > 0.999);
    assert_true(fabs(cmp_fit_scale(&g, &a) - 0.05) < 0.002);
    /* one channel wrong: the first element beyond the tolerance is named */
    for (int i = 32; i < 48; i++)
        q[i] = (int8_t)-q[i];
    assert_true(cmp_measure(&g, &a, CMP_SCALED, 0.05, &tol, &m));
    assert_true(m.departed);
    int first = 32;
    while (fabs(ref[first] / 0.05) < 12.5)
        first++;
    assert_int_equal(m.at[1], first / 16);
    assert_int_equal(m.at[2], first / 4 % 4);
    assert_int_equal(m.at[3], first % 4);
    assert_true(m.at_got == -m.at_expected);
    /* raw against raw: LSB */
    int8_t q2[N];
    memcpy(q2, q, sizeof q2);
    q2[5] = (int8_t)(q2[5] > 0 ? q2[5] - 1 : q2[5] + 1);
    struct npy_array raw = {.dtype = NPY_I8, .ndim = 4, .count = N, .data = q2};
    memcpy(raw.shape, shape, sizeof shape);
    assert_true(cmp_measure(&g, &raw, CMP_RAW, 0, &tol, &m));
    assert_false(m.departed);
    assert_true(m.max_abs == 1 && m.lsb_max == 1);
    /* fp16-style float comparison: relative to the largest magnitude */
    uint16_t h[N];
    float near[N];
    for (int i = 0; i < N; i++) {
        h[i] = (uint16_t)(0x3c00 + i); /* 1.0 + i ulp */
        near[i] = 1.0f + (float)i / 1024.0f;
    }
    struct cmp_got gh = {.elem = TENSOR_FP16, .data = h, .n = 1, .c = 4, .h = 4, .w = 4};
    struct npy_array fa = {.dtype = NPY_F32, .ndim = 4, .count = N, .data = near};
    memcpy(fa.shape, shape, sizeof shape);
    assert_true(cmp_measure(&gh, &fa, CMP_FLOAT, 0, &tol, &m));
    assert_false(m.departed);
    assert_true(m.max_abs < 1e-6);
    near[10] = 1.5f;
    assert_true(cmp_measure(&gh, &fa, CMP_FLOAT, 0, &tol, &m));
    assert_true(m.departed);
    assert_int_equal(m.at[3], 2); /* element 10: (0,0,2,2) */
    assert_int_equal(m.at[2], 2);
    assert_contains(m.why, "max error");
}

/* ---------------------------------------------------------------- reference folders */

static void good_folder(const char *dir)
{
    make_dir(dir);
    write_text(dir, "order.txt", "# blobs\ndata 1 2 1 1\n\nconv1 1 3 2 2 extra words\n");
    float data[2] = {1, 2}, conv[12] = {0};
    uint64_t s1[1] = {2}, s3[3] = {3, 2, 2};
    write_f32(dir, "data.npy", 1, s1, data);
    write_f32(dir, "conv1.npy", 3, s3, conv);
}

static bool load(const char *dir, char *err, size_t len)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", fixture_dir, dir);
    struct ref_dir r;
    bool ok = ref_dir_load(path, NULL, &r, err, len);
    if (ok)
        ref_dir_free(&r);
    return ok;
}

static void test_refdir(void **state)
{
    (void)state;
    good_folder("ref_ok");
    write_text("ref_ok", "calib.json", "{\"conv1\": {\"scale\": 0.5}}");
    write_text("ref_ok", "map.txt", "# layer blob\n2 conv1\n");
    char path[600], err[600];
    snprintf(path, sizeof path, "%s/ref_ok", fixture_dir);
    struct ref_dir r;
    assert_true(ref_dir_load(path, NULL, &r, err, sizeof err));
    assert_int_equal(r.n_blobs, 2);
    assert_true(r.blobs[0].n == 1 && r.blobs[0].c == 2 && r.blobs[0].h == 1 && r.blobs[0].w == 1);
    assert_true(r.blobs[1].n == 1 && r.blobs[1].c == 3 && r.blobs[1].h == 2 && r.blobs[1].w == 2);
    assert_int_equal(r.blobs[1].line, 4);
    assert_true(ref_dir_scale(&r, "conv1") == 0.5);
    assert_int_equal(r.n_map, 1);
    assert_true(r.map[0].layer == 2 && r.map[0].blob == 1);
    ref_dir_free(&r);

    static const struct {
        const char *file, *text, *want;
    } bad[] = {
        {"order.txt", "data\ndata\n", "order.txt:2: blob \"data\" is listed already (line 1)"},
        {"order.txt", "\n# nothing\n", "order.txt: no blob names"},
        {"order.txt", "../etc/passwd\n", "order.txt:1: expected a blob name inside the folder"},
        {"order.txt", "data\nmissing\n", "missing.npy: no such file; expected the values of blob"},
        {"map.txt", "2 conv9\n",
         "map.txt:1: no blob \"conv9\" in order.txt (did you mean \"conv1\"?)"},
        {"map.txt", "two conv1\n", "map.txt:1: expected \"LAYER BLOB\""},
        {"map.txt", "2 conv1\n3 conv1\n", "map.txt:2: blob conv1 is mapped already (line 1)"},
        {"calib.json", "{\"conv1\": {\"scale\": -1}}",
         "calib.json:1:21 (byte 20): expected a scale"},
        {"conv1.npy", "\x93NUMPY", "conv1.npy"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char dir[32];
        snprintf(dir, sizeof dir, "ref_bad%zu", i);
        good_folder(dir);
        write_text(dir, bad[i].file, bad[i].text);
        err[0] = 0;
        assert_false(load(dir, err, sizeof err));
        assert_contains(err, bad[i].want);
    }
    /* a truncated .npy names the file and the offset */
    good_folder("ref_trunc");
    char npy[700];
    path_in(npy, sizeof npy, "ref_trunc", "conv1.npy");
    assert_int_equal(truncate(npy, 140), 0);
    assert_false(load("ref_trunc", err, sizeof err));
    assert_contains(err, "conv1.npy");
    assert_contains(err, "order.txt line 4");
    /* five dimensions only with leading 1s */
    good_folder("ref_5d");
    uint64_t s5[5] = {1, 1, 3, 2, 2}, s5bad[5] = {2, 1, 3, 2, 2};
    float z[24] = {0};
    write_f32("ref_5d", "conv1.npy", 5, s5, z);
    assert_true(load("ref_5d", err, sizeof err));
    write_f32("ref_5d", "conv1.npy", 5, s5bad, z);
    assert_false(load("ref_5d", err, sizeof err));
    assert_contains(err, "expected at most 4 dimensions");
    /* no folder at all */
    assert_false(load("nowhere", err, sizeof err));
    assert_contains(err, "expected a reference folder");
    make_dir("ref_no_order");
    assert_false(load("ref_no_order", err, sizeof err));
    assert_contains(err, "order.txt: no such file; expected the blob names");
    /* the parent of per-image folders: named, sorted, the first as the example */
    make_dir("ref_no_order/img_b");
    write_text("ref_no_order/img_b", "order.txt", "data\n");
    make_dir("ref_no_order/no_ref");
    assert_false(load("ref_no_order", err, sizeof err));
    assert_contains(err, "holds 1 reference folder of its own (img_b): give that one, ");
    make_dir("ref_no_order/img_a");
    write_text("ref_no_order/img_a", "order.txt", "data\n");
    assert_false(load("ref_no_order", err, sizeof err));
    assert_contains(err, "holds 2 reference folders of its own (img_a, img_b)");
    assert_contains(err, "ref_no_order/img_a");
}

/* ---------------------------------------------------------------- whole runs */

static void test_dump_then_compare(void **state)
{
    (void)state;
    dump_sample("sample:lenet", "lenet_ref");
    struct dbg *d;
    assert_int_equal(compare_sample("sample:lenet", "lenet_ref", NULL, &d), 0);
    assert_contains(fixture_out.text, "compare: all 5 compared outputs are within tolerance.");
    assert_contains(fixture_out.text, "layer 2 (SDP)          1x8x8x8      -> layer2_sdp");
    assert_non_null(d->cmp);
    assert_int_equal(compare_count(d->cmp), 5);
    const struct compare_result *r = compare_of_layer(d->cmp, 2);
    assert_non_null(r);
    assert_true(r->compared && !r->m.departed && r->m.mode == CMP_RAW);
    double got, exp;
    assert_true(compare_values(d->cmp, r, 3, &got, &exp));
    assert_true(got == exp);
    assert_null(compare_first_departure(d->cmp));
    /* DIR completes as a folder */
    char line[600];
    size_t start;
    snprintf(line, sizeof line, "compare %s/lenet_r", fixture_dir);
    struct fixture_cands k = fixture_complete(d, line, &start);
    assert_contains(k.all, "lenet_ref/]");
    dbg_destroy(d);
}

/* One blob of a correct reference corrupted: that layer is named, exit 1. */
static void test_corrupted_layer(void **state)
{
    (void)state;
    dump_sample("sample:lenet", "lenet_bad");
    struct npy_array a;
    read_blob("lenet_bad", "layer4_pdp.npy", &a);
    int8_t *v = a.data;
    for (uint64_t i = 0; i < a.count / 2; i++) { /* reversed halves: the values, not their order */
        int8_t t = v[i];
        v[i] = v[a.count - 1 - i];
        v[a.count - 1 - i] = t;
    }
    rewrite_blob("lenet_bad", "layer4_pdp.npy", &a);
    npy_free(&a);
    struct dbg *d;
    assert_int_equal(compare_sample("sample:lenet", "lenet_bad", NULL, &d), 1);
    assert_contains(fixture_out.text, "E: compare: layer 4 (PDP) departs first from blob "
                                      "\"layer4_pdp\"");
    assert_contains(fixture_out.text, "lenet_bad/layer4_pdp.npy");
    assert_contains(fixture_out.text, "first differing element (n,c,h,w) = (0,");
    const struct compare_result *r = compare_first_departure(d->cmp);
    assert_non_null(r);
    assert_int_equal(r->layer, 4);
    assert_false(compare_of_layer(d->cmp, 2)->m.departed); /* the layer before agrees */
    dbg_destroy(d);
}

/* "break mismatch" stops after the departing layer; back and continue
 * recapture it. */
static void test_break_mismatch(void **state)
{
    (void)state;
    struct dbg *d = fixture_open("sample:lenet");
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "break mismatch"), CMD_OK);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "compare %s/lenet_bad", fixture_dir);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    assert_contains(fixture_out.text, "Breakpoint 1, layer 4 (PDP) departs from \"layer4_pdp\"");
    assert_false(session_finished(d->session));
    assert_true(dla_layer_get(session_dla(d->session), 4)->state == DLA_LAYER_DONE);
    assert_non_null(compare_of_layer(d->cmp, 4));
    /* back before it: its result is gone until it runs again */
    assert_int_equal(fixture_exec(d, "back"), CMD_OK);
    assert_int_equal(fixture_exec(d, "back"), CMD_OK);
    assert_null(compare_of_layer(d->cmp, 4));
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK);
    assert_contains(fixture_out.text, "Breakpoint 1, layer 4 (PDP) departs");
    assert_non_null(compare_of_layer(d->cmp, 4));
    assert_int_equal(fixture_exec(d, "delete"), CMD_OK);
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK);
    assert_true(session_finished(d->session));
    assert_int_equal(dbg_exit_status(d), 1);
    dbg_destroy(d);
}

/* A float reference with a calibration table: int8 dequantized; a scale
 * off the blob's entry but near another entry is the one applied. */
static void test_float_reference(void **state)
{
    (void)state;
    dump_sample("sample:lenet", "lenet_f");
    static const char *const blobs[] = {"layer2_sdp", "layer4_pdp", "layer3_sdp"};
    static const double scales[] = {0.02, 0.05, 0.1};
    for (int b = 0; b < 3; b++) {
        char name[64];
        snprintf(name, sizeof name, "%s.npy", blobs[b]);
        struct npy_array a;
        read_blob("lenet_f", name, &a);
        float *f = malloc(a.count * sizeof *f);
        assert_non_null(f);
        for (uint64_t i = 0; i < a.count; i++)
            f[i] = (float)(npy_get(&a, i) * scales[b]);
        write_f32("lenet_f", name, a.ndim, a.shape, f);
        free(f);
        npy_free(&a);
    }
    /* the input and the output stay raw; layer4_pdp's entry is 30% off, with
     * another entry within 0.4% of the scale its values have */
    write_text("lenet_f", "calib.json",
               "{\"layer2_sdp\": {\"scale\": 0.02}, \"layer4_pdp\": {\"scale\": 0.065},"
               " \"layer3_sdp\": {\"scale\": 0.1}, \"sum\": {\"scale\": 0.0502}}");
    struct dbg *d;
    assert_int_equal(compare_sample("sample:lenet", "lenet_f", "lsb=1", &d), 0);
    assert_contains(fixture_out.text, "layer 4 (PDP): scale 0.05");
    assert_contains(fixture_out.text, "near \"sum\" 0.0502 of the table) instead of "
                                      "\"layer4_pdp\"'s own 0.065");
    const struct compare_result *r = compare_of_layer(d->cmp, 2);
    assert_true(r->m.mode == CMP_SCALED && r->m.scale == 0.02);
    dbg_destroy(d);
    /* without the near entry the table's own scale is used, and is wrong */
    write_text("lenet_f", "calib.json",
               "{\"layer2_sdp\": {\"scale\": 0.02}, \"layer4_pdp\": {\"scale\": 0.065},"
               " \"layer3_sdp\": {\"scale\": 0.1}}");
    assert_int_equal(compare_sample("sample:lenet", "lenet_f", "lsb=1", NULL), 1);
    assert_contains(fixture_out.text, "layer 4 (PDP) departs first");
    /* no table: scale-free */
    char path[700];
    path_in(path, sizeof path, "lenet_f", "calib.json");
    unlink(path);
    assert_int_equal(compare_sample("sample:lenet", "lenet_f", NULL, NULL), 0);
    assert_contains(fixture_out.text, "no calibration entry for \"layer4_pdp\"");
    /* a tolerance that nothing meets */
    assert_int_equal(compare_sample("sample:lenet", "lenet_f", "cos=1,lsb=0", NULL), 1);
    assert_int_equal(compare_sample("sample:lenet", "lenet_f", "cos=3", NULL), 2);
    assert_contains(fixture_out.text, "cos=3: expected a number from -1 to 1");
}

static void test_unusable_references(void **state)
{
    (void)state;
    dump_sample("sample:lenet", "lenet_u");
    /* a blob of a shape no layer writes: exit 2 at the end of the run */
    char order[700];
    path_in(order, sizeof order, "lenet_u", "order.txt");
    FILE *fp = fopen(order, "a");
    assert_non_null(fp);
    fputs("bogus 1 7 3 3\n", fp);
    fclose(fp);
    float z[63] = {0};
    uint64_t s[4] = {1, 7, 3, 3};
    write_f32("lenet_u", "bogus.npy", 4, s, z);
    assert_int_equal(compare_sample("sample:lenet", "lenet_u", NULL, NULL), 2);
    assert_contains(fixture_out.text, "bogus.npy: blob \"bogus\" (order.txt line 6) is 1x7x3x3, "
                                      "which fits no layer's output");
    /* map.txt: a layer mapped to a blob of another shape */
    dump_sample("sample:lenet", "lenet_m");
    write_text("lenet_m", "map.txt", "2 layer4_pdp\n");
    assert_int_equal(compare_sample("sample:lenet", "lenet_m", NULL, NULL), 2);
    assert_contains(fixture_out.text, "map.txt:1: layer 2 writes 1x8x8x8, but blob \"layer4_pdp\"");
    /* map.txt maps only its layers */
    write_text("lenet_m", "map.txt", "4 layer4_pdp\n");
    struct dbg *d;
    assert_int_equal(compare_sample("sample:lenet", "lenet_m", NULL, &d), 0);
    assert_true(compare_of_layer(d->cmp, 4)->compared);
    assert_false(compare_of_layer(d->cmp, 2)->compared);
    assert_contains(fixture_out.text, "Blobs not compared (2): layer2_sdp layer3_sdp");
    dbg_destroy(d);
    /* a malformed folder fails the command: exit 2 */
    write_text("lenet_m", "map.txt", "4\n");
    assert_int_equal(compare_sample("sample:lenet", "lenet_m", NULL, NULL), 2);
    assert_contains(fixture_out.text, "map.txt:1: expected \"LAYER BLOB\"");
}

/* A ResNet-style sample (element-wise adds): every layer maps to its own
 * dump, and a corrupted one in the middle is the one named. */
static void test_resnet_sample(void **state)
{
    (void)state;
    dump_sample("sample:resnet18", "res_ref");
    struct dbg *d;
    assert_int_equal(compare_sample("sample:resnet18", "res_ref", NULL, &d), 0);
    size_t n = compare_count(d->cmp);
    assert_true(n > 20);
    /* the first convolution, split into bands of rows, is compared whole */
    const struct compare_result *conv1 = compare_get(d->cmp, 1);
    assert_true(conv1->bands > 1 && conv1->first_layer < conv1->layer);
    assert_true(conv1->c == 64 && conv1->h == 112 && conv1->w == 112);
    assert_contains(fixture_out.text, "bands from layer");
    for (size_t i = 0; i < n; i++) {
        const struct compare_result *r = compare_get(d->cmp, i);
        assert_true(r->compared);
        assert_true(r->m.cosine > 0.99999);
    }
    /* the twelfth layer output's blob, scaled by 3 */
    const struct compare_result *mid = compare_get(d->cmp, 12);
    int32_t layer = mid->layer;
    char name[80];
    snprintf(name, sizeof name, "%s.npy",
             d->cmp ? compare_reference(d->cmp)->blobs[mid->blob].name : "");
    dbg_destroy(d);
    struct npy_array a;
    read_blob("res_ref", name, &a);
    int8_t *v = a.data;
    for (uint64_t i = 0; i < a.count; i++)
        v[i] = (int8_t)(v[i] / 3);
    rewrite_blob("res_ref", name, &a);
    npy_free(&a);
    assert_int_equal(compare_sample("sample:resnet18", "res_ref", NULL, &d), 1);
    const struct compare_result *r = compare_first_departure(d->cmp);
    assert_non_null(r);
    assert_int_equal(r->layer, layer);
    dbg_destroy(d);
}

/* Uniform noise in [-1, 1), reproducible. */
static double noise(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return (double)(*seed >> 8) / (double)(1u << 23) - 1;
}

/* What a framework reference of a ResNet looks like to the mapping: more
 * blobs than hardware outputs (before each layer's own blob a same-shape
 * blob the compiler fused away, as conv before batch-norm + scale + ReLU,
 * partly correlated with it) and float values a little off the fp16 ones.
 * Every layer maps to its own blob, not the fused-away one, and the run
 * passes. */
static void test_resnet_float_chains(void **state)
{
    (void)state;
    dump_sample("sample:resnet18", "res_chain");
    char order_path[700];
    path_in(order_path, sizeof order_path, "res_chain", "order.txt");
    FILE *fp = fopen(order_path, "r");
    assert_non_null(fp);
    char names[80][64];
    int n = 0;
    while (n < 80 && fscanf(fp, "%63s %*u %*u %*u %*u", names[n]) == 1)
        n++;
    fclose(fp);
    assert_true(n > 20);
    FILE *order = fopen(order_path, "w");
    assert_non_null(order);
    uint32_t seed = 1;
    for (int i = 0; i < n; i++) {
        char file[80], pre_name[80];
        snprintf(file, sizeof file, "%.60s.npy", names[i]);
        if (strncmp(names[i], "layer", 5)) {
            fprintf(order, "%s\n", names[i]);
            continue;
        }
        struct npy_array a;
        read_blob("res_chain", file, &a);
        double peak = 0;
        for (uint64_t k = 0; k < a.count; k++)
            peak = fmax(peak, fabs(npy_get(&a, k)));
        float *real = malloc(a.count * sizeof *real), *pre = malloc(a.count * sizeof *pre);
        assert_true(real && pre);
        for (uint64_t k = 0; k < a.count; k++) {
            double v = npy_get(&a, k);
            real[k] = (float)(v + 0.001 * peak * noise(&seed));
            pre[k] = (float)(0.6 * v + 0.5 * peak * noise(&seed));
        }
        snprintf(pre_name, sizeof pre_name, "%.60s_conv.npy", names[i]);
        write_f32("res_chain", pre_name, a.ndim, a.shape, pre);
        write_f32("res_chain", file, a.ndim, a.shape, real);
        fprintf(order, "%s_conv\n%s\n", names[i], names[i]);
        free(real);
        free(pre);
        npy_free(&a);
    }
    fclose(order);
    struct dbg *d;
    assert_int_equal(compare_sample("sample:resnet18", "res_chain", NULL, &d), 0);
    size_t count = compare_count(d->cmp);
    const struct ref_dir *ref = compare_reference(d->cmp);
    for (size_t i = 0; i < count; i++) {
        const struct compare_result *r = compare_get(d->cmp, i);
        assert_true(r->blob >= 0);
        const char *blob = ref->blobs[r->blob].name;
        if (r->source == COMPARE_LAYER) {
            char want[40];
            snprintf(want, sizeof want, "layer%d_", r->layer);
            assert_true(!strncmp(blob, want, strlen(want)) && !strstr(blob, "_conv"));
            assert_true(r->m.mode == CMP_FLOAT && r->m.cosine > 0.99 && !r->m.departed);
        }
    }
    dbg_destroy(d);
}

/* Captures beyond the byte budget keep their measures, not their arrays. */
static void test_capture_budget(void **state)
{
    (void)state;
    dump_sample("sample:lenet", "lenet_budget");
    struct dbg *d;
    assert_int_equal(compare_sample("sample:lenet", "lenet_budget", NULL, &d), 0);
    compare_set_budget(d->cmp, 600); /* the input (144 bytes) and layer 2's 512 do not both fit */
    char cmd[700];
    snprintf(cmd, sizeof cmd, "compare %s/lenet_budget", fixture_dir);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    assert_contains(fixture_out.text, "compare: the captured outputs reached the budget of 0 MiB "
                                      "at layer 2 (SDP)");
    assert_contains(fixture_out.text, "compare: all 5 compared outputs are within tolerance.");
    const struct compare_result *r = compare_of_layer(d->cmp, 2);
    assert_true(r->compared && !r->got);
    double got, exp;
    assert_false(compare_values(d->cmp, r, 0, &got, &exp));
    assert_true(compare_dropped(d->cmp) >= 1);
    snprintf(cmd, sizeof cmd, "dump tensors %s/lenet_budget2", fixture_dir);
    assert_int_equal(fixture_exec(d, cmd), CMD_ERROR);
    assert_contains(fixture_out.text, "layer2_sdp: its output was over the capture budget");
    dbg_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calib_parse),
        cmocka_unit_test(test_calib_errors),
        cmocka_unit_test(test_tolerance_parse),
        cmocka_unit_test(test_measure_int8),
        cmocka_unit_test(test_refdir),
        cmocka_unit_test(test_dump_then_compare),
        cmocka_unit_test(test_corrupted_layer),
        cmocka_unit_test(test_break_mismatch),
        cmocka_unit_test(test_float_reference),
        cmocka_unit_test(test_unusable_references),
        cmocka_unit_test(test_resnet_sample),
        cmocka_unit_test(test_capture_budget),
        cmocka_unit_test(test_resnet_float_chains),
    };
    return cmocka_run_group_tests(tests, fixture_group_setup, fixture_group_teardown);
}
