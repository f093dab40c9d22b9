/* Which hardware layers take the time (perf_rank.h). */
#include <stdlib.h>

#include "perf_rank.h"

uint64_t perf_layer_cycles(const struct dla_layer *l, uint64_t now)
{
    if (l->state == DLA_LAYER_DONE)
        return l->end_cycle - l->start_cycle;
    if (l->state == DLA_LAYER_RUNNING)
        return now - l->start_cycle;
    return 0;
}

bool perf_layer_launched(const struct dla_layer *l)
{
    return l->state == DLA_LAYER_DONE || l->state == DLA_LAYER_RUNNING;
}

static int most_cycles_first(const void *pa, const void *pb)
{
    const struct perf_rank_item *a = pa, *b = pb;
    if (a->cycles != b->cycles)
        return a->cycles > b->cycles ? -1 : 1;
    /* qsort is not stable: the index decides ties */
    return (a->index > b->index) - (a->index < b->index);
}

void perf_rank_by_cycles(struct perf_rank_item *items, size_t n)
{
    if (n > 1)
        qsort(items, n, sizeof *items, most_cycles_first);
}

struct perf_rank_rest perf_rank_rest(const struct perf_rank_item *ranked, size_t n, size_t shown)
{
    struct perf_rank_rest rest = {0, 0};
    for (size_t i = shown; i < n; i++) {
        rest.layers++;
        rest.cycles += ranked[i].cycles;
    }
    return rest;
}
