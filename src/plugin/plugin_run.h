/* What dladbg hands plugins beyond decoding (plugins/include/dladbg/decoder.h):
 * the run's events converted to the ABI's struct dladbg_event (shared by
 * "export csv" and struct dladbg_run's each_event), and struct dladbg_run
 * itself, read-only over a session and its event ring. */
#ifndef DLADBG_PLUGIN_RUN_H
#define DLADBG_PLUGIN_RUN_H

#include <stdbool.h>

#include "dladbg/decoder.h"
#include "debug/session.h"
#include "debug/trace_ring.h"

/* Called once per event; returning false stops the walk. */
typedef bool (*plugin_event_fn)(void *ctx, const struct dladbg_event *ev);

/* The ring's events oldest first (those decoders see), then one
 * DLADBG_EV_LAYER_RECORD per layer of the model.  run_over: the driver has
 * finished, so a layer still being programmed was never enabled (a poke after
 * the end) and is no layer of the run.  kinds: only events of these kinds
 * (DLADBG_EV_BIT each) are built and passed to fn, 0 for all.  false when fn
 * stopped the walk. */
bool plugin_events_each(struct dla *d, const struct trace_ring *ring, bool run_over,
                        uint32_t kinds, plugin_event_fn fn, void *ctx);

struct reg_history;

/* struct dladbg_run over s (may be NULL: no file open) and ring. */
struct plugin_run {
    struct dladbg_run run; /* first: plugins get a pointer to it */
    struct session *session;
    const struct trace_ring *ring;
    struct reg_history *history; /* built at the first layer_reg of a started layer */
    struct dladbg_counter counters[DLA_MAX_COUNTERS];
    struct dladbg_lut_stats lut;
};

void plugin_run_init(struct plugin_run *pr, struct session *s, const struct trace_ring *ring);
/* Free what the run built while plugins used it; pr may be initialised again. */
void plugin_run_release(struct plugin_run *pr);

#endif
