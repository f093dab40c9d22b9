/* Step back: complete session states saved at hardware layer boundaries (the
 * start of the run is boundary 0; boundary k is the point right after the
 * action in which the k-th layer completed).  Going back restores the nearest
 * saved state at or before the target boundary and, when older states were
 * thinned out to bound memory, replays forward to it; execution being
 * deterministic, the state reached is the state the run had there.  The
 * event ring and the programming log are cut back to the same point. */
#ifndef DLADBG_CHECKPOINT_H
#define DLADBG_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session.h"

struct trace_ring;
struct proglog;
struct breakpoints;

struct checkpoint_info {
    uint64_t layers; /* boundary: hardware layers completed */
    uint64_t cycle;
    uint64_t writes;
    bool stored; /* a saved state (false: reached by replaying from an earlier one) */
};

struct checkpoints;

/* max_states: saved states kept at most (0: default). */
struct checkpoints *cps_create(size_t max_states);
/* Memory the saved states may hold (session_state_bytes summed); beyond it
 * states are thinned out as beyond max_states, down to three.  0: a quarter
 * of the network's working set, at least 2 MiB. */
void cps_set_budget(struct checkpoints *c, uint64_t bytes);
/* A boundary gets a saved state only when the run has simulated cycles
 * cycles or made writes register writes since the newest saved state (the
 * others are replayed from it), or, when that is more, a run_share-th of
 * the cycles or writes of the run so far (0: no growth); cycles or writes
 * 0: a state at every boundary.  The default (4096 cycles, 256 writes,
 * 1024) stores every boundary of a real network and one in twenty of a run
 * of one-line BDMA layers, one in a thousand once it is a million long. */
void cps_set_spacing(struct checkpoints *c, uint64_t cycles, uint64_t writes, uint64_t run_share);
/* What the saved states hold now. */
uint64_t cps_bytes(const struct checkpoints *c);
void cps_destroy(struct checkpoints *c);

/* Follow a session from its current point (taken as boundary 0 when it has not
 * run yet); ring, log and bps may be NULL. */
void cps_attach(struct checkpoints *c, struct session *s, struct trace_ring *ring,
                struct proglog *log, struct breakpoints *bps);
void cps_clear(struct checkpoints *c);

/* Session hook: takes a checkpoint when a layer boundary was crossed. */
void cps_after_execute(struct checkpoints *c);

/* Go back n layer boundaries (from inside a layer, the first is the start of
 * that layer).  false with err when there is no such boundary.  quiet: called
 * while output must be suppressed by the caller during a replay. */
bool cps_back(struct checkpoints *c, uint64_t n, char *err, size_t errlen);
/* Go back n register writes: to the point right after the run's write
 * (writes now - n), where "step write" would have stopped (write 0: the start
 * of the run), through the nearest boundary before it and a replay of the
 * writes between, breakpoints suspended.  false with err past the start. */
bool cps_back_writes(struct checkpoints *c, uint64_t n, char *err, size_t errlen);

size_t cps_count(const struct checkpoints *c);
bool cps_get(const struct checkpoints *c, size_t i, struct checkpoint_info *info);
size_t cps_stored(const struct checkpoints *c);
/* For tests: the boundaries and stored states looked at to choose what to
 * keep, so far (a few per layer, however long the run). */
uint64_t cps_work(const struct checkpoints *c);
/* For tests: the states saved so far (kept or since thinned out). */
uint64_t cps_states_taken(const struct checkpoints *c);

#endif
