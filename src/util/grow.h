/* Arrays that grow by one element at a time: the debugger's logs, lists and
 * queues share this instead of each keeping its own realloc-and-double. */
#ifndef DLADBG_GROW_H
#define DLADBG_GROW_H

#include <stddef.h>

/* An array of *cap elements of elem bytes, n of them used, with room for
 * one more: v itself while n < *cap, otherwise v reallocated to twice the
 * capacity (first when empty) and *cap updated.  NULL when there is no
 * memory (or the size overflows); v and *cap are then left as they were, so
 * the caller keeps what it had and decides how to go on.  Unlike the
 * model's dla_grow, which aborts: a debugger records less, it does not stop. */
void *grow_for_one(void *v, size_t n, size_t *cap, size_t first, size_t elem);

#endif
