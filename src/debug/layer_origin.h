/* Which loadable operation each hardware layer runs: recorded when the
 * layer is programmed (the first write to its group comes from the engine
 * programming that operation), read by "info layers" and the TUI's layers
 * pane to name the operation and its tensors.  Layers are numbered in
 * programming order and a run is deterministic, so stepping back and
 * running forward records the same origins again. */
#ifndef DLADBG_LAYER_ORIGIN_H
#define DLADBG_LAYER_ORIGIN_H

#include <stdbool.h>
#include <stddef.h>

#include "driver.h"

struct layer_origins;

struct layer_origins *layer_origins_create(void);
void layer_origins_destroy(struct layer_origins *o);
void layer_origins_clear(struct layer_origins *o);
/* Layer `layer` runs op (op->known false: no loadable operation). */
void layer_origins_set(struct layer_origins *o, size_t layer, const struct drv_op *op);
/* false when the layer runs no known operation. */
bool layer_origins_get(const struct layer_origins *o, size_t layer, struct drv_op *op);

#endif
