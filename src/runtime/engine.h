/* The engine scheduler: the kernel-mode driver's job for one DLA task.
 *
 * It follows the firmware's procedure: read the network descriptor from
 * task address 0, find the operation, surface and LUT lists and the
 * dependency graph through it, submit the head operation of every processor
 * into a free ping-pong register group, program it through the CSB, fire
 * OP_PROGRAMMED / OP_ENABLED / OP_COMPLETED / CDMA events along the graph,
 * enable each operation when its dependency count reaches zero (the
 * convolution pipeline downstream first), handle interrupts by reading
 * GLB.S_INTR_STATUS, writing it back, then processing the events of every
 * processor in op-type order, and finish when every operation completed.
 *
 * The engine does not touch the hardware's registers itself: everything it
 * would write is queued as an action that the driver hands to the session
 * one at a time, so breakpoints, traces and the rule checker see real
 * programming.  Reads happen when an action is generated; the hardware does
 * not advance between generating and executing a batch of writes (see
 * engine.c for why that is safe).  State is plain data plus a few owned
 * arrays, copied whole by engine_clone(). */
#ifndef DLADBG_ENGINE_H
#define DLADBG_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dla.h"
#include "loadable/fw_desc.h"
#include "debug/report.h"
#include "runtime.h"

enum eng_action_kind {
    ENG_ACT_WRITE,      /* CSB write */
    ENG_ACT_POLL_FLUSH, /* wait until CDMA.S_CBUF_FLUSH_STATUS.FLUSH_DONE reads 1 */
};

struct eng_action {
    uint8_t kind;
    uint32_t addr, value;
    int16_t op;      /* operation being programmed, -1: none (interrupt handling) */
    uint8_t op_type; /* its enum fw_op_type */
    char where[64];
};

/* What the engine did, in order (for tests and the debugger's task view). */
enum eng_log_kind { ENG_LOG_PROGRAM, ENG_LOG_ENABLE, ENG_LOG_COMPLETE, ENG_LOG_EVENT };

struct eng_log {
    uint8_t kind;
    uint8_t op_type;
    uint8_t group;
    uint8_t event; /* ENG_LOG_EVENT: fw_event fired */
    int16_t op;
};

struct engine;

/* Resolves every register the engine programs in d's register map. */
struct engine *engine_create(struct dla *d, struct report *rep, char *err, size_t errlen);
void engine_destroy(struct engine *e);
struct engine *engine_clone(const struct engine *e);
/* Make dst an exact copy of src (both from the same engine_create). */
bool engine_copy(struct engine *dst, const struct engine *src);

/* The descriptor layout of DLA task `task`: from the version of the blob that
 * fills its network descriptor (legacy up to 0.11), current without one. */
enum fw_layout engine_task_layout(const struct runtime *rt, uint32_t task);

/* Start task `task` of the runtime's loadable.  false (and a report) when
 * its descriptors are invalid; the task is then over. */
bool engine_start(struct engine *e, struct dla *d, const struct runtime *rt, uint32_t task);
/* The interrupt line is up: run the interrupt handler and event processing. */
void engine_interrupt(struct engine *e, struct dla *d);
/* Next queued action; false when the queue is empty. */
bool engine_next_action(struct engine *e, struct eng_action *out);
bool engine_task_done(const struct engine *e);
bool engine_task_failed(const struct engine *e);
/* Give up on the running task (the hardware went idle without an interrupt). */
void engine_abort(struct engine *e, const char *why);
/* One line about where the engine is (hang reports). */
void engine_describe(const struct engine *e, char *buf, size_t len);

size_t engine_log_count(const struct engine *e);
const struct eng_log *engine_log_get(const struct engine *e, size_t i);
/* Operations completed in the running (or last) task. */
uint32_t engine_ops_done(const struct engine *e);

#endif
