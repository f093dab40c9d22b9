/* The tensors a loadable names (input, output, intermediate), with the
 * addresses the runtime gives them, for "tensor NAME|ID" and "info tensors".
 * The runtime's placement is a deterministic bump allocation, so placing the
 * loadable again in a scratch model yields the addresses of the real run
 * without touching it. */
#ifndef DLADBG_LOADABLE_TENSORS_H
#define DLADBG_LOADABLE_TENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dla.h"

enum tensor_elem { TENSOR_INT8, TENSOR_UINT8, TENSOR_INT16, TENSOR_FP16 };

struct tensor_info {
    char name[64];
    int id;
    uint8_t space; /* enum dla_space */
    uint64_t addr, size;
    uint32_t n, c, h, w;
    uint8_t elem; /* enum tensor_elem */
    bool pitch;   /* pixel formats: rows of pixels (stride[0] per pixel), not atoms */
    /* elem_stride: bytes per atom (feature) or per pixel (pitch); batch_stride
     * 0: batches follow each other (tensor/tensor_read.h says where each
     * element is) */
    uint64_t elem_stride, line_stride, surf_stride, batch_stride;
};

/* Tensors of the loadable at path (a file or sample:NAME), placed for the
 * configuration cfg; *out is malloc'ed.  false with err when path is not a
 * loadable or cannot be placed. */
bool loadable_tensors(const char *path, const struct dla_config *cfg, struct tensor_info **out,
                      size_t *n, char *err, size_t errlen);
/* The same of a loadable already parsed, its blobs from bound's image when
 * it holds them (loadable_driver_parsed; bound may be NULL). */
struct loadable;
struct rt_bound;
bool loadable_tensors_of(struct loadable *ld, struct rt_bound *bound, const struct dla_config *cfg,
                         struct tensor_info **out, size_t *n, char *err, size_t errlen);

#endif
