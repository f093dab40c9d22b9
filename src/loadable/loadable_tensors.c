/* Tensors of a loadable, placed as the runtime places them. */
#include "loadable_tensors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadable.h"
#include "runtime/runtime.h"
#include "sample/sample_net.h"
#include "tensor/tensor_layout.h"

static void describe(const struct ld_tensor *t, const struct rt_memory *m, struct tensor_info *o)
{
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", t->name ? t->name : "");
    o->id = t->id;
    o->space = m->space;
    o->addr = m->addr + t->offset;
    o->size = t->size;
    o->n = t->n > 0 ? (uint32_t)t->n : 1;
    o->c = t->c > 0 ? (uint32_t)t->c : 1;
    o->h = t->h > 0 ? (uint32_t)t->h : 1;
    o->w = t->w > 0 ? (uint32_t)t->w : 1;
    switch (t->data_type) {
    case LD_TYPE_HALF:
        o->elem = TENSOR_FP16;
        break;
    case LD_TYPE_INT16:
        o->elem = TENSOR_INT16;
        break;
    default:
        o->elem = t->data_category == 0 && t->pixel_format < LD_FIRST_FEATURE_FORMAT ? TENSOR_UINT8
                                                                                     : TENSOR_INT8;
        break;
    }
    unsigned bpe = o->elem == TENSOR_FP16 || o->elem == TENSOR_INT16 ? 2 : 1;
    o->pitch = t->pixel_format < LD_FIRST_FEATURE_FORMAT;
    /* feature tensors: the atom of the runtime's surface (x32 or x8 int8, x16 16-bit) */
    struct tensor_layout lay;
    char err[160];
    unsigned atom = tensor_layout_output(t, &lay, err, sizeof err) ? lay.group * lay.bpe : 32;
    o->elem_stride = o->pitch ? (t->stride[0] ? t->stride[0] : bpe * o->c) : atom;
    o->line_stride = t->stride[1] ? t->stride[1] : o->w * o->elem_stride;
    o->surf_stride = t->stride[2] ? t->stride[2] : o->line_stride * o->h;
}

bool loadable_tensors(const char *path, const struct dla_config *cfg, struct tensor_info **out,
                      size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    struct loadable *ld = sample_net_load(path, err, errlen);
    if (!ld)
        return false;
    bool ok = loadable_tensors_of(ld, NULL, cfg, out, n, err, errlen);
    loadable_free(ld);
    return ok;
}

bool loadable_tensors_of(struct loadable *ld, struct rt_bound *bound, const struct dla_config *cfg,
                         struct tensor_info **out, size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    struct dla *scratch = dla_create(cfg, NULL);
    struct runtime rt;
    bool ok = scratch && runtime_load_again(&rt, ld, scratch, bound, err, errlen);
    if (!scratch)
        snprintf(err, errlen, "out of memory");
    if (ok) {
        *out = calloc(ld->n_tensors ? ld->n_tensors : 1, sizeof **out);
        ok = *out != NULL;
        for (uint32_t i = 0; ok && i < ld->n_tensors; i++) {
            const struct ld_tensor *t = &ld->tensors[i];
            int m = loadable_memory_index(ld, t->mem_id);
            if (m < 0 || !rt.mem[m].placed)
                continue; /* a tensor of memory the runtime does not place */
            describe(t, &rt.mem[m], &(*out)[(*n)++]);
        }
        runtime_free(&rt);
    }
    dla_destroy(scratch);
    return ok;
}
