#include "cube.h"

#include <stdlib.h>

/* 2^30 elements (4 GiB of values) is far beyond any NVDLA layer; refusing
 * larger requests turns hostile register values into a diagnostic instead of
 * an allocation failure later. */
#define CUBE_MAX_ELEMS (1ull << 30)

bool cube_alloc(struct dla_cube *cb, uint32_t w, uint32_t h, uint32_t c, uint32_t n,
                enum dla_cube_kind kind)
{
    cb->v = NULL;
    cb->w = w;
    cb->h = h;
    cb->c = c;
    cb->n = n;
    cb->kind = (uint8_t)kind;
    unsigned long long elems = 1;
    const uint32_t dims[4] = {w, h, c, n};
    for (int i = 0; i < 4; i++) {
        if (dims[i] == 0 || dims[i] > CUBE_MAX_ELEMS)
            return false;
        elems *= dims[i]; /* each factor <= 2^30 and the product stays <= 2^30 */
        if (elems > CUBE_MAX_ELEMS)
            return false;
    }
    cb->v = calloc((size_t)elems, sizeof *cb->v);
    return cb->v != NULL;
}

void cube_free(struct dla_cube *cb)
{
    free(cb->v);
    cb->v = NULL;
}
