/* Lookups of a loadable's entries by id (blobs by name).
 *
 * Every id a task, submit, memory, tensor or relocation names is looked up
 * while the file is validated, and again as it runs: a linear scan made a
 * 7 MB file of 65,536 addresses and three million references to the last
 * one cost 78 s of CPU (issue 36).  Each list gets its indices sorted by
 * (id, index) once, and a lookup is a binary search for the first entry of
 * an id, which is the entry a scan finds first. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "loadable.h"

static _Atomic unsigned long long lookup_steps;

unsigned long long loadable_lookup_steps(void)
{
    return atomic_load_explicit(&lookup_steps, memory_order_relaxed);
}

static void count_steps(unsigned long long n)
{
    atomic_fetch_add_explicit(&lookup_steps, n, memory_order_relaxed);
}

static uint32_t list_length(const struct loadable *l, enum ld_list list)
{
    switch (list) {
    case LD_LIST_MEMORIES: return l->n_memories;
    case LD_LIST_ADDRESSES: return l->n_addresses;
    case LD_LIST_TASKS: return l->n_tasks;
    case LD_LIST_EVENTS: return l->n_events;
    case LD_LIST_TENSORS: return l->n_tensors;
    case LD_LIST_BLOBS: return l->n_blobs;
    case LD_LISTS: break;
    }
    return 0;
}

/* The id of entry i of an id list (not blobs). */
static uint16_t entry_id(const struct loadable *l, enum ld_list list, uint32_t i)
{
    switch (list) {
    case LD_LIST_MEMORIES: return l->memories[i].id;
    case LD_LIST_ADDRESSES: return l->addresses[i].id;
    case LD_LIST_TASKS: return l->tasks[i].id;
    case LD_LIST_EVENTS: return l->events[i].id;
    case LD_LIST_TENSORS: return l->tensors[i].id;
    case LD_LIST_BLOBS:
    case LD_LISTS: break;
    }
    return 0;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Ids and indices packed as (id << 32 | index): one sort orders by id, then
 * by index, so the first of equal ids is the list's first. */
static uint32_t *order_by_id(const struct loadable *l, enum ld_list list, uint32_t n)
{
    uint64_t *keys = malloc((size_t)n * sizeof *keys);
    uint32_t *order = malloc((size_t)n * sizeof *order);
    if (!keys || !order) {
        free(keys);
        free(order);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        keys[i] = (uint64_t)entry_id(l, list, i) << 32 | i;
    qsort(keys, n, sizeof *keys, compare_u64);
    for (uint32_t i = 0; i < n; i++)
        order[i] = (uint32_t)keys[i];
    free(keys);
    return order;
}

struct named {
    const char *name;
    uint32_t index;
};

static int compare_named(const void *a, const void *b)
{
    const struct named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

static uint32_t *order_by_name(const struct loadable *l, uint32_t n)
{
    struct named *keys = malloc((size_t)n * sizeof *keys);
    uint32_t *order = malloc((size_t)n * sizeof *order);
    if (!keys || !order) {
        free(keys);
        free(order);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        keys[i] = (struct named){l->blobs[i].name, i};
    qsort(keys, n, sizeof *keys, compare_named);
    for (uint32_t i = 0; i < n; i++)
        order[i] = keys[i].index;
    free(keys);
    return order;
}

bool loadable_index_build(struct loadable *l)
{
    for (int list = 0; list < LD_LISTS; list++) {
        uint32_t n = list_length(l, list);
        if (n == 0)
            continue;
        l->order[list] = list == LD_LIST_BLOBS ? order_by_name(l, n) : order_by_id(l, list, n);
        if (!l->order[list])
            return false;
    }
    return true;
}

void loadable_index_free(struct loadable *l)
{
    for (int list = 0; list < LD_LISTS; list++) {
        free(l->order[list]);
        l->order[list] = NULL;
    }
}

/* -1, 0, 1 as entry i's key is below, equal to or above the one sought. */
static int compare_entry(const struct loadable *l, enum ld_list list, uint32_t i, uint16_t id,
                         const char *name)
{
    if (list == LD_LIST_BLOBS) {
        int c = strcmp(l->blobs[i].name, name);
        return (c > 0) - (c < 0);
    }
    uint16_t have = entry_id(l, list, i);
    return (have > id) - (have < id);
}

static int find(const struct loadable *l, enum ld_list list, uint16_t id, const char *name)
{
    uint32_t n = list_length(l, list);
    const uint32_t *order = l->order[list];
    unsigned long long steps = 0;
    int found = -1;
    if (!order) { /* a loadable put together by hand: scan it */
        for (uint32_t i = 0; i < n && found < 0; i++, steps++)
            if (compare_entry(l, list, i, id, name) == 0)
                found = (int)i;
    } else { /* the first position whose key is not below the one sought */
        uint32_t lo = 0, hi = n;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            steps++;
            if (compare_entry(l, list, order[mid], id, name) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n && compare_entry(l, list, order[lo], id, name) == 0)
            found = (int)order[lo];
    }
    count_steps(steps);
    return found;
}

int loadable_memory_index(const struct loadable *l, uint16_t id)
{
    return find(l, LD_LIST_MEMORIES, id, NULL);
}

int loadable_address_index(const struct loadable *l, uint16_t id)
{
    return find(l, LD_LIST_ADDRESSES, id, NULL);
}

int loadable_task_index(const struct loadable *l, uint16_t id)
{
    return find(l, LD_LIST_TASKS, id, NULL);
}

int loadable_event_index(const struct loadable *l, uint16_t id)
{
    return find(l, LD_LIST_EVENTS, id, NULL);
}

int loadable_tensor_index(const struct loadable *l, uint16_t id)
{
    return find(l, LD_LIST_TENSORS, id, NULL);
}

int loadable_blob_index(const struct loadable *l, const char *name)
{
    return find(l, LD_LIST_BLOBS, 0, name);
}
