/* Which hardware layers take the time: a layer's cycles (launch to
 * interrupt, or so far while it runs), and the layers ranked by them, as
 * `perf report` ranks functions.  Read by "info perf", "info perf top" and
 * the TUI's layers pane sorted by cycles; pure functions over the layers'
 * figures, so the ranking is tested without a run. */
#ifndef DLADBG_PERF_RANK_H
#define DLADBG_PERF_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dla.h"

/* Launch to interrupt for a done layer, launch to `now` for a running one,
 * 0 for a layer not launched yet. */
uint64_t perf_layer_cycles(const struct dla_layer *l, uint64_t now);
/* Launched: running or done (a layer being programmed or enabled and
 * waiting has no cycles to rank yet). */
bool perf_layer_launched(const struct dla_layer *l);

/* One layer to rank: its cycles and its place in the caller's list. */
struct perf_rank_item {
    uint64_t cycles;
    size_t index;
};

/* Most cycles first; layers of equal cycles keep their index order, so a
 * ranking never depends on the sort's whims. */
void perf_rank_by_cycles(struct perf_rank_item *items, size_t n);

/* What a ranking cut after `shown` items leaves out: how many layers and
 * their cycles together (shown >= n: none). */
struct perf_rank_rest {
    size_t layers;
    uint64_t cycles;
};
struct perf_rank_rest perf_rank_rest(const struct perf_rank_item *ranked, size_t n, size_t shown);

#endif
