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
 * would write or read is queued as an action that the driver carries out one
 * at a time, so breakpoints, traces, the rule checker and "export txn" see
 * the KMD's own register traffic: its writes, and its reads (S_POINTER when
 * it picks a group, S_STATUS before a convolution, the read-modify-writes
 * of GLB.S_INTR_MASK, the interrupt handler's reads, the CBUF flush and
 * BDMA free-slot polls).  The engine decides when it generates an action,
 * from the value the register has then; the hardware does not advance
 * between generating and executing a batch (only a poll lets time pass), and
 * a read action carries the bits the decision rested on so the driver can
 * tell if they changed (see engine.c).  State is plain data plus a few owned
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
    ENG_ACT_WRITE,  /* CSB write of value */
    ENG_ACT_READ,   /* CSB read; the engine's choice assumed (read & check_mask) == check_value */
    ENG_ACT_MODIFY, /* the write of a read-modify-write: (the last read & ~mask) | value */
    ENG_ACT_POLL,   /* read until (read & mask) != 0 (the firmware's busy loops) */
};

struct eng_action {
    uint8_t kind;
    uint32_t addr, value;
    uint32_t mask;                    /* ENG_ACT_MODIFY: bits cleared; ENG_ACT_POLL: bits awaited */
    uint32_t check_mask, check_value; /* ENG_ACT_READ */
    int16_t op;      /* operation being programmed, -1: none (interrupt handling) */
    uint8_t op_type; /* its enum fw_op_type */
    char where[64];
};

/* The value an ENG_ACT_MODIFY writes after the read before it returned last_read. */
static inline uint32_t eng_modified_value(const struct eng_action *a, uint32_t last_read)
{
    return (last_read & ~a->mask) | a->value;
}

/* Whether an ENG_ACT_POLL may stop at a read of value v. */
static inline bool eng_poll_done(const struct eng_action *a, uint32_t v)
{
    return (v & a->mask) != 0;
}

/* Whether an ENG_ACT_READ returned what the engine decided from. */
static inline bool eng_read_as_decided(const struct eng_action *a, uint32_t v)
{
    return (v & a->check_mask) == a->check_value;
}

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
/* What an engine (a clone: a saved state's) holds: itself and its arrays. */
size_t engine_bytes(const struct engine *e);

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
