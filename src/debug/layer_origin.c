/* The loadable operation of each hardware layer (see layer_origin.h). */
#include "layer_origin.h"

#include <stdlib.h>
#include <string.h>

struct layer_origins {
    struct drv_op *v;
    size_t n, cap;
};

struct layer_origins *layer_origins_create(void)
{
    return calloc(1, sizeof(struct layer_origins));
}

void layer_origins_destroy(struct layer_origins *o)
{
    if (o)
        free(o->v);
    free(o);
}

void layer_origins_clear(struct layer_origins *o)
{
    o->n = 0;
}

void layer_origins_set(struct layer_origins *o, size_t layer, const struct drv_op *op)
{
    if (layer >= o->cap) {
        size_t cap = o->cap ? o->cap : 64;
        while (cap <= layer)
            cap *= 2;
        struct drv_op *v = realloc(o->v, cap * sizeof *v);
        if (!v)
            return; /* the layer just goes unnamed */
        o->v = v;
        o->cap = cap;
    }
    for (size_t i = o->n; i < layer; i++)
        o->v[i].known = false;
    o->v[layer] = *op;
    if (layer >= o->n)
        o->n = layer + 1;
}

bool layer_origins_get(const struct layer_origins *o, size_t layer, struct drv_op *op)
{
    if (!o || layer >= o->n || !o->v[layer].known)
        return false;
    *op = o->v[layer];
    return true;
}
