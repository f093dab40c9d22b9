/* Loadable reader: valid files (our writer's and flatc's from JSON with
 * share/loadable.fbs) read back field by field; hostile files (every
 * truncation length, random byte flips, cyclic and out-of-range offsets,
 * huge sizes, dangling ids, bad enums, unterminated strings) are refused with
 * "NAME: offset N: ... expected ..." and never crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "loadable/loadable.h"
#include "loadable/loadable_writer.h"
#include "sample/sample_net.h"

static const struct ld_version v070 = {0, 7, 0};

/* A small loadable: two blobs in two memories, an output, one DLA task. */
struct small_opts {
    uint64_t mem_size;
    uint32_t alignment;
    uint16_t address_mem;
    uint16_t task_address;
    uint16_t submit_task;
    const char *content;
    uint8_t event_op;
};

static const struct small_opts small_defaults = {.mem_size = 64,
                                                 .alignment = 256,
                                                 .address_mem = 1,
                                                 .task_address = 1,
                                                 .submit_task = 0,
                                                 .content = "data",
                                                 .event_op = LD_EVENT_SIGNAL};

/* The small loadable in the format `version` names. */
static void build_small_as(const struct small_opts *o, struct ld_version version, uint8_t **buf,
                           size_t *len)
{
    struct lw *w = lw_create();
    assert_non_null(w);
    static const uint8_t desc[40] = {1, 2, 3};
    static const uint8_t data[16] = {9, 8, 7, 6};
    assert_int_equal(
        lw_blob(w, "desc", LD_IF_DLA1, 1, (struct ld_version){0, 12, 0}, desc, sizeof desc), 0);
    assert_int_equal(
        lw_blob(w, "data", LD_IF_NONE, 0, (struct ld_version){0, 0, 0}, data, sizeof data), 1);
    assert_int_equal(lw_memory(w, LD_DOMAIN_SYSTEM, 3, 40, 0, "desc", 0, 0), 0);
    assert_int_equal(lw_memory(w, LD_DOMAIN_SYSTEM, 3, o->mem_size, o->alignment, o->content, 0, 0),
                     1);
    struct ld_tensor t = {.name = "out",
                          .mem_id = 2,
                          .size = 32,
                          .data_type = LD_TYPE_INT8,
                          .pixel_format = 36,
                          .n = 1,
                          .c = 1,
                          .h = 1,
                          .w = 1};
    t.stride[1] = t.stride[2] = 32;
    assert_int_equal(lw_tensor(w, &t), 0);
    assert_int_equal(lw_memory(w, LD_DOMAIN_SYSTEM, 9, 32, 0, NULL, 0, 0), 2);
    assert_int_equal(lw_address(w, 0, 0, 40), 0);
    assert_int_equal(lw_address(w, o->address_mem, 8, 8), 1);
    assert_int_equal(lw_address(w, 2, 0, 32), 2);
    assert_int_equal(lw_event(w, 0, 0, 1, o->event_op), 0);
    uint16_t addrs[3] = {0, o->task_address, 2}, post = 0, task = o->submit_task;
    assert_int_equal(lw_task(w, LD_IF_DLA1, addrs, 3, NULL, 0, &post, 1), 0);
    assert_int_equal(lw_submit(w, &task, 1), 0);
    assert_true(lw_finish(w, version, buf, len));
    lw_destroy(w);
}

static void build_small(const struct small_opts *o, uint8_t **buf, size_t *len)
{
    build_small_as(o, v070, buf, len);
}

static void assert_error_format(const char *err, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(err, name, n) != 0 || strncmp(err + n, ": offset ", 9) != 0 ||
        !strstr(err, "expected"))
        fail_msg("unexpected message format: %s", err);
}

static struct loadable *parse_ok(const uint8_t *buf, size_t len)
{
    char err[512] = "";
    struct loadable *l = loadable_parse(buf, len, "t.nvdla", err, sizeof err);
    if (!l)
        fail_msg("valid loadable refused: %s", err);
    return l;
}

/* Parse buf as "t.nvdla": true if it is refused (with a message in the
 * documented format, left in err), false if it is accepted. */
static bool parse_refused(const uint8_t *buf, size_t len, char *err, size_t err_size)
{
    err[0] = '\0';
    struct loadable *l = loadable_parse(buf, len, "t.nvdla", err, err_size);
    if (l) {
        loadable_free(l);
        return false;
    }
    assert_error_format(err, "t.nvdla");
    return true;
}

static void parse_bad(const uint8_t *buf, size_t len, const char *needle)
{
    char err[512];
    if (!parse_refused(buf, len, err, sizeof err))
        fail_msg("hostile loadable accepted (wanted \"%s\")", needle);
    if (needle && !strstr(err, needle))
        fail_msg("message \"%s\" does not mention \"%s\"", err, needle);
}

/* ---------------------------------------------------------------- valid */

static void test_small_round_trip(void **state)
{
    (void)state;
    uint8_t *buf;
    size_t len;
    build_small(&small_defaults, &buf, &len);
    struct loadable *l = parse_ok(buf, len);
    assert_int_equal(l->version.minor, 7);
    assert_int_equal(l->n_blobs, 2);
    assert_string_equal(l->blobs[0].name, "desc");
    assert_int_equal(l->blobs[0].version.minor, 12);
    assert_int_equal(l->blobs[1].data_len, 16);
    assert_int_equal(l->blobs[1].data[2], 7);
    assert_int_equal(l->n_memories, 3);
    assert_int_equal(l->memories[1].alignment, 256);
    assert_int_equal(l->memories[1].n_contents, 1);
    assert_string_equal(l->memories[1].contents[0], "data");
    assert_int_equal(l->memories[1].content_blob[0], 1);
    assert_int_equal(l->memories[2].flags, LD_MEM_ALLOC | LD_MEM_OUTPUT);
    assert_int_equal(l->addresses[1].offset, 8);
    assert_int_equal(l->addresses[1].mem, 1);
    assert_int_equal(l->tasks[0].n_addresses, 3);
    assert_int_equal(l->tasks[0].instance, -1);
    assert_int_equal(l->tasks[0].post[0], 0);
    assert_int_equal(l->events[0].op, LD_EVENT_SIGNAL);
    assert_int_equal(l->tensors[0].stride[1], 32);
    assert_int_equal(l->submits[0].n_tasks, 1);
    loadable_free(l);
    free(buf);
}

/* Where the root table keeps Loadable.version (field 0). */
static size_t version_at(const uint8_t *buf)
{
    uint32_t root = (uint32_t)buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 |
                    (uint32_t)buf[3] << 24;
    int32_t soff;
    memcpy(&soff, buf + root, 4);
    size_t vt = (size_t)((int64_t)root - soff);
    return root + (size_t)(buf[vt + 4] | buf[vt + 5] << 8);
}

/* Every format of NVIDIA's schema history, written by our writer and read
 * back: in 0.5 the blob's data sits one field earlier (no sub_interface),
 * the tensor has no name and its line/surface strides are fields of their
 * own, the submit list takes the reloc list's place; 0.6 has no tensor
 * name.  Reading any of them with the 0.7 layout loses the blob data (the
 * refusal NVIDIA's first loadables met) or the tensor. */
static void test_formats_round_trip(void **state)
{
    (void)state;
    static const struct ld_version versions[] = {{0, 5, 0}, {0, 5, 3}, {0, 6, 0}, {0, 7, 1}};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        struct ld_version v = versions[i];
        uint8_t *buf;
        size_t len;
        build_small_as(&small_defaults, v, &buf, &len);
        struct loadable *l = parse_ok(buf, len);
        assert_int_equal(l->version.minor, v.minor);
        assert_int_equal(l->version.sub_minor, v.sub_minor);
        assert_non_null(l->format);
        assert_int_equal(l->format->minor, v.minor);
        assert_int_equal(l->blobs[0].version.minor, 12);
        assert_int_equal(l->blobs[0].interface, LD_IF_DLA1);
        assert_int_equal(l->blobs[0].sub_interface, v.minor >= 6 ? 1 : 0);
        assert_int_equal(l->blobs[1].data_len, 16);
        assert_int_equal(l->blobs[1].data[2], 7);
        assert_string_equal(l->tensors[0].name, v.minor >= 7 ? "out" : "");
        assert_int_equal(l->tensors[0].mem_id, 2);
        assert_int_equal(l->tensors[0].data_type, LD_TYPE_INT8);
        assert_int_equal(l->tensors[0].stride[1], 32);
        assert_int_equal(l->tensors[0].stride[2], 32);
        assert_int_equal(l->n_relocs, 0);
        assert_int_equal(l->n_submits, 1);
        assert_int_equal(l->submits[0].tasks[0], 0);
        loadable_free(l);
        if (v.minor == 5) { /* the same bytes under another number are misread, then refused */
            buf[version_at(buf) + 1] = 7;
            parse_bad(buf, len, "Blob.size");
        }
        free(buf);
    }
}

/* A relocation has no place in format 0.5: the writer says so rather than
 * drop it. */
static void test_writer_refuses_relocs_in_v05(void **state)
{
    (void)state;
    struct lw *w = lw_create();
    lw_memory(w, LD_DOMAIN_SYSTEM, 1, 64, 0, NULL, 0, 0);
    lw_address(w, 0, 0, 64);
    struct ld_reloc r = {.reloc_type = 1};
    lw_reloc(w, &r);
    uint8_t *buf;
    size_t len;
    assert_false(lw_finish(w, (struct ld_version){0, 5, 0}, &buf, &len));
    assert_true(lw_finish(w, (struct ld_version){0, 6, 0}, &buf, &len));
    free(buf);
    assert_false(lw_finish(w, (struct ld_version){0, 8, 0}, &buf, &len));
    lw_destroy(w);
}

/* A version this reader does not know is refused by name, with the ones it
 * knows, before any table is read in a layout that may not be its own. */
static void test_unknown_version_refused(void **state)
{
    (void)state;
    static const struct ld_version bad[] = {{0, 8, 0}, {0, 4, 9}, {1, 1, 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t *buf;
        size_t len;
        build_small(&small_defaults, &buf, &len);
        size_t at = version_at(buf);
        buf[at] = bad[i].major;
        buf[at + 1] = bad[i].minor;
        buf[at + 2] = bad[i].sub_minor;
        char want[64];
        snprintf(want, sizeof want, "found Loadable.version %u.%u.%u", bad[i].major, bad[i].minor,
                 bad[i].sub_minor);
        parse_bad(buf, len, want);
        parse_bad(buf, len, "(0.5.x, 0.6.x and 0.7.x)");
        free(buf);
    }
}

/* A blob or task interface no format has (NONE 0, DLA1 1, EMU1 2) is
 * refused by number, in the old format as in the new. */
static void test_unknown_interface_refused(void **state)
{
    (void)state;
    static const struct ld_version formats_tried[] = {{0, 5, 0}, {0, 7, 0}};
    for (size_t i = 0; i < 2; i++) {
        for (int what = 0; what < 2; what++) {
            struct lw *w = lw_create();
            static const uint8_t nd[40];
            lw_blob(w, "nd", what == 0 ? 3 : LD_IF_DLA1, 0, (struct ld_version){0, 10, 0}, nd,
                    sizeof nd);
            lw_memory(w, LD_DOMAIN_SYSTEM, 3, sizeof nd, 0, "nd", 0, 0);
            uint16_t a = (uint16_t)lw_address(w, 0, 0, sizeof nd), task = 0;
            lw_task(w, what == 1 ? 3 : LD_IF_DLA1, &a, 1, NULL, 0, NULL, 0);
            lw_submit(w, &task, 1);
            uint8_t *buf;
            size_t len;
            assert_true(lw_finish(w, formats_tried[i], &buf, &len));
            lw_destroy(w);
            parse_bad(buf, len,
                      what == 0 ? "expected Blob.interface NONE, DLA1 or EMU1 (0..2), found 3"
                                : "expected interface DLA1 or EMU1 (1..2), found 3");
            free(buf);
        }
    }
}

static void test_samples_parse(void **state)
{
    (void)state;
    for (const char *const *n = sample_net_names(); *n; n++) {
        uint8_t *buf;
        size_t len;
        char err[256];
        assert_true(sample_net_build(*n, &buf, &len, err, sizeof err));
        struct loadable *l = parse_ok(buf, len);
        assert_true(l->n_tasks >= 1);
        assert_int_equal(l->tasks[0].interface, LD_IF_DLA1);
        loadable_free(l);
        free(buf);
    }
    uint8_t *buf;
    size_t len;
    char err[256];
    assert_false(sample_net_build("nosuch", &buf, &len, err, sizeof err));
    assert_non_null(strstr(err, "no such sample"));
    assert_null(strstr(err, "did you mean")); /* nothing is near "nosuch" */
    /* a typo gets the nearest sample's name, and the list stays */
    assert_false(sample_net_build("resnt18", &buf, &len, err, sizeof err));
    assert_non_null(strstr(err, "did you mean \"sample:resnet18\"?"));
    assert_non_null(strstr(err, "lenet, bdma, conv"));
}

/* flatc builds the binary from JSON with our schema; the reader must agree
 * with every field flatc wrote. */
static void test_flatc_json(void **state)
{
    (void)state;
    if (system("command -v flatc >/dev/null 2>&1") != 0)
        skip();
    char dir[] = "/tmp/dladbg-flatc-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char json[512], cmd[2048], bin[512];
    snprintf(json, sizeof json, "%s/net.json", dir);
    snprintf(bin, sizeof bin, "%s/net.bin", dir);
    FILE *fp = fopen(json, "w");
    assert_non_null(fp);
    fputs("{ \"version\": {\"major\": 0, \"minor\": 7, \"sub_minor\": 0},\n"
          "  \"blobs\": [ {\"name\": \"nd\", \"size\": 4, \"interface\": \"DLA1\",\n"
          "               \"version\": {\"major\": 0, \"minor\": 10, \"sub_minor\": 0},\n"
          "               \"data\": [1, 2, 3, 4]} ],\n"
          "  \"memory_list\": [ {\"id\": 0, \"flags\": 3, \"size\": 4096, \"alignment\": 64,\n"
          "                      \"contents\": [\"nd\"], \"offsets\": [16]},\n"
          "                     {\"id\": 1, \"flags\": 9, \"size\": 64, \"tensor_desc_id\": 0} ],\n"
          "  \"address_list\": [ {\"id\": 0, \"mem_id\": 0, \"size\": 4096},\n"
          "                      {\"id\": 1, \"mem_id\": 1, \"size\": 64} ],\n"
          "  \"event_list\": [ {\"id\": 0, \"val\": 3, \"op\": \"SIGNAL\"} ],\n"
          "  \"tensor_desc_list\": [ {\"name\": \"out\", \"id\": 0, \"mem_id\": 1, \"size\": 64,\n"
          "      \"data_type\": \"INT16\", \"pixel_format\": 36, \"n\": 1, \"c\": 2, \"h\": 1,\n"
          "      \"w\": 1, \"stride_0\": 2, \"stride_1\": 32, \"stride_2\": 32} ],\n"
          "  \"task_list\": [ {\"id\": 0, \"interface\": \"DLA1\", \"address_list\": [0, 1],\n"
          "                    \"post_actions\": [0]} ],\n"
          "  \"submit_list\": [ {\"id\": 0, \"task_id\": [0]} ] }\n",
          fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "flatc --binary -o %s share/loadable.fbs %s", dir, json);
    assert_int_equal(system(cmd), 0);
    char err[512];
    struct loadable *l = loadable_read_file(bin, err, sizeof err);
    if (!l)
        fail_msg("%s", err);
    assert_int_equal(l->blobs[0].version.minor, 10);
    assert_int_equal(l->blobs[0].data[3], 4);
    assert_int_equal(l->memories[0].offsets[0], 16);
    assert_int_equal(l->memories[0].alignment, 64);
    assert_int_equal(l->memories[1].flags, 9);
    assert_int_equal(l->tensors[0].data_type, LD_TYPE_INT16);
    assert_int_equal(l->tensors[0].c, 2);
    assert_int_equal(l->tasks[0].instance, -1); /* the schema's default */
    assert_int_equal(l->events[0].val, 3);
    loadable_free(l);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* flatc builds a format 0.5 file from JSON with share/loadable-0.5.fbs (as
 * NVIDIA's December 2017 writer laid them out): blob data one field
 * earlier, line/surface/plane strides, the submit list at field 7. */
static void test_flatc_json_v05(void **state)
{
    (void)state;
    if (system("command -v flatc >/dev/null 2>&1") != 0)
        skip();
    char dir[] = "/tmp/dladbg-flatc-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char json[512], cmd[2048], bin[512];
    snprintf(json, sizeof json, "%s/net.json", dir);
    snprintf(bin, sizeof bin, "%s/net.bin", dir);
    FILE *fp = fopen(json, "w");
    assert_non_null(fp);
    fputs("{ \"version\": {\"major\": 0, \"minor\": 5, \"sub_minor\": 0},\n"
          "  \"blobs\": [ {\"name\": \"m0_NetworkDesc_i0\", \"size\": 4,\n"
          "               \"version\": {\"major\": 0, \"minor\": 10, \"sub_minor\": 0},\n"
          "               \"data\": [1, 2, 3, 4]} ],\n"
          "  \"memory_list\": [ {\"id\": 0, \"flags\": 3, \"size\": 40,\n"
          "                      \"contents\": [\"m0_NetworkDesc_i0\"], \"offsets\": [0]},\n"
          "                     {\"id\": 1, \"flags\": 9, \"size\": 4096} ],\n"
          "  \"address_list\": [ {\"id\": 0, \"mem_id\": 0, \"size\": 40},\n"
          "                      {\"id\": 1, \"mem_id\": 1, \"size\": 4096} ],\n"
          "  \"event_list\": [ {\"id\": 0} ],\n"
          "  \"tensor_desc_list\": [ {\"id\": 0, \"mem_id\": 1, \"size\": 4096,\n"
          "      \"data_format\": \"NCHW\", \"data_type\": \"INT16\", \"data_category\": \"FEATURE\",\n"
          "      \"pixel_format\": 36, \"n\": 1, \"c\": 32, \"h\": 8, \"w\": 8,\n"
          "      \"line_stride\": 256, \"surf_stride\": 2048, \"plane_stride\": 7} ],\n"
          "  \"task_list\": [ {\"id\": 0, \"interface\": \"DLA1\", \"instance\": -1,\n"
          "                    \"address_list\": [0, 1], \"post_actions\": [0]} ],\n"
          "  \"submit_list\": [ {\"id\": 0, \"task_id\": [0]} ] }\n",
          fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "flatc --binary -o %s share/loadable-0.5.fbs %s", dir, json);
    assert_int_equal(system(cmd), 0);
    char err[512];
    struct loadable *l = loadable_read_file(bin, err, sizeof err);
    if (!l)
        fail_msg("%s", err);
    assert_int_equal(l->version.minor, 5);
    assert_int_equal(l->blobs[0].version.minor, 10);
    assert_int_equal(l->blobs[0].data_len, 4);
    assert_int_equal(l->blobs[0].data[3], 4);
    assert_int_equal(l->tensors[0].c, 32);
    assert_int_equal(l->tensors[0].data_type, LD_TYPE_INT16);
    assert_int_equal(l->tensors[0].stride[0], 0);
    assert_int_equal(l->tensors[0].stride[1], 256);
    assert_int_equal(l->tensors[0].stride[2], 2048);
    assert_int_equal(l->tensors[0].stride[3], 7);
    assert_string_equal(l->tensors[0].name, "");
    assert_int_equal(l->n_submits, 1);
    assert_int_equal(l->submits[0].n_tasks, 1);
    assert_int_equal(l->n_relocs, 0);
    loadable_free(l);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* ---------------------------------------------------------------- hostile */

static void test_every_truncation(void **state)
{
    (void)state;
    uint8_t *buf;
    size_t len;
    build_small(&small_defaults, &buf, &len);
    for (size_t n = 0; n < len; n++) {
        char err[512];
        /* the writer puts the submit list last: every prefix cuts something */
        if (!parse_refused(buf, n, err, sizeof err))
            fail_msg("a %zu-byte prefix of %zu bytes was accepted", n, len);
    }
    free(buf);
}

static void test_random_byte_flips(void **state)
{
    (void)state;
    uint8_t *buf;
    size_t len;
    build_small(&small_defaults, &buf, &len);
    uint8_t *copy = malloc(len);
    assert_non_null(copy);
    uint32_t seed = 12345;
    unsigned refused = 0;
    for (int round = 0; round < 4000; round++) {
        memcpy(copy, buf, len);
        int flips = 1 + round % 4;
        for (int k = 0; k < flips; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len;
            seed = seed * 1103515245u + 12345u;
            copy[at] ^= (uint8_t)(1u << ((seed >> 16) % 8));
        }
        char err[512];
        if (parse_refused(copy, len, err, sizeof err))
            refused++;
    }
    assert_true(refused > 100); /* most flips must be caught */
    free(copy);
    free(buf);
}

static void test_bad_offsets(void **state)
{
    (void)state;
    uint8_t *buf;
    size_t len;
    build_small(&small_defaults, &buf, &len);
    uint8_t *b = malloc(len);
    /* root offset 0: the root table would be the offset itself */
    memcpy(b, buf, len);
    memset(b, 0, 4);
    parse_bad(b, len, "offset to the root table");
    /* root offset beyond the file */
    memcpy(b, buf, len);
    b[3] = 0x7f;
    parse_bad(b, len, "inside the file");
    /* vtable offset pointing before the file */
    uint32_t root = (uint32_t)buf[0] | (uint32_t)buf[1] << 8;
    memcpy(b, buf, len);
    b[root] = 0xff;
    b[root + 1] = 0xff;
    b[root + 2] = 0xff;
    b[root + 3] = 0x7f;
    parse_bad(b, len, "vtable");
    /* every uoffset slot of the root table pointing back at itself or at 0xffffffff */
    for (unsigned id = 1; id <= 8; id++) {
        memcpy(b, buf, len);
        uint32_t soff = (uint32_t)b[root] | (uint32_t)b[root + 1] << 8;
        uint32_t vt = root - soff;
        uint32_t fo = (uint32_t)b[vt + 4 + 2 * id] | (uint32_t)b[vt + 5 + 2 * id] << 8;
        memset(b + root + fo, 0, 4);
        parse_bad(b, len, "offset");
        memset(b + root + fo, 0xff, 4);
        parse_bad(b, len, "offset");
    }
    free(b);
    free(buf);
}

static void test_semantic_errors(void **state)
{
    (void)state;
    struct {
        struct small_opts o;
        const char *needle;
    } cases[] = {
        {{.mem_size = 1ull << 40}, "size of at most"},
        {{.alignment = 3}, "power of two"},
        {{.address_mem = 7}, "mem_id 7"},
        {{.task_address = 9}, "address id"},
        {{.submit_task = 4}, "a task id"},
        {{.content = "nothing"}, "name a blob"},
        {{.mem_size = 8}, "to fit"},
        {{.event_op = 5}, "op WAIT/SIGNAL"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct small_opts o = small_defaults;
        if (cases[i].o.mem_size)
            o.mem_size = cases[i].o.mem_size;
        if (cases[i].o.alignment)
            o.alignment = cases[i].o.alignment;
        if (cases[i].o.address_mem)
            o.address_mem = cases[i].o.address_mem;
        if (cases[i].o.task_address)
            o.task_address = cases[i].o.task_address;
        if (cases[i].o.submit_task)
            o.submit_task = cases[i].o.submit_task;
        if (cases[i].o.content)
            o.content = cases[i].o.content;
        if (cases[i].o.event_op)
            o.event_op = cases[i].o.event_op;
        uint8_t *buf;
        size_t len;
        build_small(&o, &buf, &len);
        parse_bad(buf, len, cases[i].needle);
        free(buf);
    }
}

static void test_unterminated_string(void **state)
{
    (void)state;
    uint8_t *buf;
    size_t len;
    build_small(&small_defaults, &buf, &len);
    /* find the blob name "desc" with its NUL and overwrite the NUL */
    for (size_t i = 4; i + 5 <= len; i++) {
        if (memcmp(buf + i, "desc\0", 5) == 0 && buf[i - 4] == 4) {
            buf[i + 4] = 'x';
            break;
        }
    }
    parse_bad(buf, len, "NUL");
    free(buf);
}

static void test_missing_file(void **state)
{
    (void)state;
    char err[256];
    assert_null(loadable_read_file("/nonexistent/x.nvdla", err, sizeof err));
    assert_non_null(strstr(err, "cannot open"));
    assert_null(loadable_parse("abc", 3, "tiny", err, sizeof err));
    assert_error_format(err, "tiny");
}

/* A writer that took its blob bytes over and frees them while serialising
 * writes the same file as one that copied them; the file parsed without a
 * copy reads the same, and a released blob keeps its place for messages. */
static void test_blob_take_and_consume_write_the_same(void **state)
{
    (void)state;
    static const uint8_t w0[5000] = {1, 2, 3}, w1[3] = {9, 8, 7};
    uint8_t *bufs[2];
    size_t lens[2];
    for (int consume = 0; consume < 2; consume++) {
        struct lw *w = lw_create();
        if (consume) {
            uint8_t *a = malloc(sizeof w0), *b = malloc(sizeof w1);
            memcpy(a, w0, sizeof w0);
            memcpy(b, w1, sizeof w1);
            assert_int_equal(lw_blob_take(w, "w0", 0, 0, (struct ld_version){0, 0, 0}, a, sizeof w0),
                             0);
            assert_int_equal(lw_blob_take(w, "w1", 0, 0, (struct ld_version){0, 0, 0}, b, sizeof w1),
                             1);
            assert_true(lw_finish_consume(w, (struct ld_version){0, 7, 0}, &bufs[1], &lens[1]));
        } else {
            lw_blob(w, "w0", 0, 0, (struct ld_version){0, 0, 0}, w0, sizeof w0);
            lw_blob(w, "w1", 0, 0, (struct ld_version){0, 0, 0}, w1, sizeof w1);
            assert_true(lw_finish(w, (struct ld_version){0, 7, 0}, &bufs[0], &lens[0]));
        }
        lw_destroy(w);
    }
    assert_int_equal(lens[0], lens[1]);
    assert_memory_equal(bufs[0], bufs[1], lens[0]);
    free(bufs[0]);
    char err[256];
    struct loadable *l = loadable_parse_owned(bufs[1], lens[1], "t", err, sizeof err);
    assert_non_null(l);
    assert_int_equal(l->n_blobs, 2);
    assert_memory_equal(l->blobs[0].data, w0, sizeof w0);
    assert_memory_equal(l->blobs[1].data, w1, sizeof w1);
    uint64_t at = l->blobs[0].data_at;
    assert_ptr_equal(l->buf + at, l->blobs[0].data);
    loadable_release_blob(l, 0);
    assert_null(l->blobs[0].data);
    assert_int_equal(l->blobs[0].data_at, at);
    assert_int_equal(l->blobs[0].data_len, sizeof w0);
    assert_int_equal(loadable_release_blob(l, 0), 0); /* once */
    assert_memory_equal(l->blobs[1].data, w1, sizeof w1);
    loadable_free(l);
}

/* Once the blobs are elsewhere, the file's buffer goes: every name and the
 * bytes of a blob not released stay readable (ASan reads them in the freed
 * buffer otherwise), a released blob stays released, and only what is kept
 * is allocated again. */
static void test_detach_buffer(void **state)
{
    (void)state;
    char err[256];
    struct loadable *l = sample_net_load("sample:lenet", err, sizeof err);
    struct loadable *same = sample_net_load("sample:lenet", err, sizeof err);
    assert_non_null(l);
    assert_non_null(same);
    uint32_t big = 0, kept = 0;
    for (uint32_t i = 0; i < l->n_blobs; i++)
        if (l->blobs[i].data_len > l->blobs[big].data_len)
            big = i;
    kept = big == 0 ? 1 : 0;
    loadable_release_blob(l, big);
    size_t freed = loadable_detach_buffer(l);
    assert_true(freed > l->blobs[big].data_len / 2);
    assert_true(freed < l->len);
    assert_null(l->blobs[big].data);
    assert_non_null(l->blobs[kept].data);
    assert_memory_equal(l->blobs[kept].data, same->blobs[kept].data, l->blobs[kept].data_len);
    assert_true(l->blobs[kept].data >= l->buf && l->blobs[kept].data < l->buf + (l->len - freed));
    for (uint32_t i = 0; i < l->n_blobs; i++)
        assert_string_equal(l->blobs[i].name, same->blobs[i].name);
    for (uint32_t i = 0; i < l->n_memories; i++)
        for (uint32_t k = 0; k < l->memories[i].n_contents; k++)
            assert_string_equal(l->memories[i].contents[k], same->memories[i].contents[k]);
    for (uint32_t i = 0; i < l->n_tensors; i++)
        assert_string_equal(l->tensors[i].name, same->tensors[i].name);
    assert_int_equal(loadable_blob_index(l, same->blobs[kept].name), (int)kept);
    loadable_free(l);
    loadable_free(same);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blob_take_and_consume_write_the_same),
        cmocka_unit_test(test_small_round_trip),  cmocka_unit_test(test_samples_parse),
        cmocka_unit_test(test_flatc_json),        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_random_byte_flips), cmocka_unit_test(test_bad_offsets),
        cmocka_unit_test(test_semantic_errors),   cmocka_unit_test(test_unterminated_string),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_formats_round_trip),
        cmocka_unit_test(test_writer_refuses_relocs_in_v05),
        cmocka_unit_test(test_unknown_version_refused),
        cmocka_unit_test(test_flatc_json_v05),
        cmocka_unit_test(test_unknown_interface_refused),
        cmocka_unit_test(test_detach_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
