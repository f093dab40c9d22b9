/* The register file as it was at a point of the event ring: what a layer's
 * registers held when it started, although later layers rewrote them.
 *
 * Built with one pass over the ring (each register's value before the
 * ring's oldest write to it, and each layer's LAYER_START record); a query
 * replays the ring's writes forward from the previous query's point, so a
 * caller asking about layers in order walks the ring once.  Registers the
 * ring never saw written have their live value throughout. */
#ifndef DLADBG_REG_HISTORY_H
#define DLADBG_REG_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_ring.h"

struct reg_history;

/* NULL when memory is short. */
struct reg_history *reg_history_create(const struct trace_ring *ring, size_t n_layers);
void reg_history_destroy(struct reg_history *h);

/* Ring index of the layer's LAYER_START record; false when the ring holds none. */
bool reg_history_layer_start(const struct reg_history *h, uint32_t layer, size_t *index);

/* What register addr held in group (0, 1, or 0xff for a register without
 * groups) just before ring record `at`, given the value it holds now. */
uint32_t reg_history_value_at(struct reg_history *h, size_t at, uint32_t addr, uint8_t group,
                              uint32_t live);

#endif
