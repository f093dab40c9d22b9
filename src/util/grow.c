#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

void *grow_for_one(void *v, size_t n, size_t *cap, size_t first, size_t elem)
{
    if (n < *cap)
        return v;
    size_t want = *cap ? *cap * 2 : first;
    if (want <= *cap || (elem && want > SIZE_MAX / elem))
        return NULL;
    void *g = realloc(v, want * elem);
    if (g)
        *cap = want;
    return g;
}
