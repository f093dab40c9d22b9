/* A loadable of one DLA task whose only purpose is its tensors, for the
 * runtime and input-tensor suites: memory 0 is blob-filled (alignment 64),
 * memory 1 holds the input tensor "in", memory 2 the output tensor "out",
 * both of the shape, type, pixel format and strides given.  Static functions
 * only: each test is one binary. */
#ifndef DLADBG_TEST_TENSOR_LOADABLE_H
#define DLADBG_TEST_TENSOR_LOADABLE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "loadable/loadable_writer.h"
#include "runtime/runtime.h"

struct tensor_spec {
    uint8_t data_type, pixel_format;
    int32_t c, h, w;
    uint32_t line, surf;
    uint64_t size;
};

/* The loadable's bytes (malloc'ed) in loadable format `format` (0.5, 0.6 or
 * 0.7: see loadable_format; before 0.7 the tensors have no names). */
static inline void tensor_loadable_bytes_as(const struct tensor_spec *sp, struct ld_version format,
                                            uint8_t **buf, size_t *len)
{
    struct lw *lw = lw_create();
    uint8_t blob[100];
    for (int i = 0; i < 100; i++)
        blob[i] = (uint8_t)(i * 7);
    lw_blob(lw, "b", 0, 0, (struct ld_version){0, 0, 0}, blob, sizeof blob);
    struct ld_tensor t = {.name = "in",
                          .mem_id = 1,
                          .size = sp->size,
                          .data_type = sp->data_type,
                          .pixel_format = sp->pixel_format,
                          .n = 1,
                          .c = sp->c,
                          .h = sp->h,
                          .w = sp->w};
    t.stride[0] = sp->data_type == LD_TYPE_INT8 ? 1 : 2;
    t.stride[1] = sp->line;
    t.stride[2] = sp->surf;
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
    } mems[] = {{3, 300, 64, "b", 0}, {5, sp->size, 0, NULL, 0}, {9, sp->size, 0, NULL, 1}};
    for (int i = 0; i < 3; i++)
        lw_memory(lw, 0, mems[i].flags, mems[i].size, mems[i].align, mems[i].content, 0,
                  mems[i].tensor);
    lw_address(lw, 0, 0, 300);
    lw_address(lw, 0, 44, 10); /* an address inside memory 0 */
    lw_address(lw, 1, 0, sp->size);
    lw_address(lw, 2, 0, sp->size);
    uint16_t addrs[4] = {0, 1, 2, 3}, task = 0;
    lw_task(lw, LD_IF_DLA1, addrs, 4, NULL, 0, NULL, 0);
    lw_submit(lw, &task, 1);
    assert_true(lw_finish(lw, format, buf, len));
    lw_destroy(lw);
}

static inline void tensor_loadable_bytes(const struct tensor_spec *sp, uint8_t **buf, size_t *len)
{
    tensor_loadable_bytes_as(sp, (struct ld_version){0, 7, 0}, buf, len);
}

static inline struct loadable *tensor_loadable(const struct tensor_spec *sp)
{
    uint8_t *buf;
    size_t len;
    tensor_loadable_bytes(sp, &buf, &len);
    char err[512];
    struct loadable *l = loadable_parse(buf, len, "rt", err, sizeof err);
    free(buf);
    if (!l)
        fail_msg("%s", err);
    return l;
}

/* A temporary file holding len bytes of data; its path in path (at least
 * 32 bytes). */
static inline void temp_file_with(char *path, const void *data, size_t len)
{
    snprintf(path, 32, "/tmp/dladbg-tensor-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
}

/* The loadable of a spec placed in a new default model as nvdla_runtime
 * places it (its tensors bound to memory): for tests of what goes into and
 * comes out of the tensors. */
struct placed {
    struct loadable *l;
    struct dla *d;
    struct runtime rt;
};

static inline void place(struct placed *p, const struct tensor_spec *sp)
{
    p->l = tensor_loadable(sp);
    p->d = dla_create(dla_config_default(), NULL);
    char err[256];
    if (!runtime_load(&p->rt, p->l, p->d, err, sizeof err))
        fail_msg("%s", err);
}

static inline void unplace(struct placed *p)
{
    runtime_free(&p->rt);
    dla_destroy(p->d);
    loadable_free(p->l);
}

#endif
