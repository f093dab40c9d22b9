/* A debugging session: the simulated NVDLA, the driver that programs it (a
 * trace replayer or the loadable engine), and stepping.  Batch mode and the
 * TUI drive the same functions.
 *
 * Execution proceeds by actions (see driver.h): one register write, or one
 * hardware event while the driver waits.  A step ends after the action that
 * completes it; a stop request (breakpoint, Ctrl-C) ends it after the current
 * action. */
#ifndef DLADBG_SESSION_H
#define DLADBG_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/dla.h"
#include "driver.h"
#include "tensor/input_tensor.h"
#include "report.h"

struct session_opts {
    const struct dla_config *cfg; /* NULL: chosen from the file (default nv_full) */
    const char *outdir;           /* trace dumps without a golden */
    struct input_opts input;      /* loadable: --image / --input, --mean, --normalize */
    const char *output;           /* loadable: output DIMG file */
    bool rawdump;                 /* loadable: print the output as nvdla_runtime --rawdump */
    uint64_t mem_budget;          /* per memory space; 0 = default */
    uint64_t work_budget;         /* model work per layer (dla_options); 0 = default */
};

enum session_stop {
    SESSION_STEPPED,     /* the requested step completed */
    SESSION_BREAK,       /* a breakpoint or watchpoint asked to stop */
    SESSION_DONE,        /* the driver has nothing more to do */
    SESSION_HANG,        /* the driver waits for something the idle hardware will never do */
    SESSION_INTERRUPTED, /* Ctrl-C */
};

enum session_unit {
    SESSION_WRITE, /* register writes */
    SESSION_EVENT, /* hardware events (a unit finishing, an interrupt) */
    SESSION_LAYER, /* hardware layers completed */
    SESSION_TASK,  /* tasks completed (loadables) */
    SESSION_RUN,   /* until done or stopped */
};

struct session;

struct session *session_open(const char *path, const struct session_opts *opt, struct report *rep,
                             char *err, size_t errlen);
void session_close(struct session *s);

/* Power-on reset of the model and a fresh start of the driver. */
bool session_restart(struct session *s, char *err, size_t errlen);

struct dla *session_dla(struct session *s);
struct driver *session_driver(struct session *s);
const char *session_path(const struct session *s);

enum session_stop session_step(struct session *s, enum session_unit unit, uint64_t count);

/* Ask the running step to stop after the current action (listeners, signal
 * handlers); a second request of the same step replaces the first's reason
 * and message.  session_stop_requested: one was made since the last step
 * began (a breakpoint hit then belongs to that stop). */
void session_request_stop(struct session *s, enum session_stop why, const char *msg);
bool session_stop_requested(const struct session *s);
/* Message of the last stop ("Breakpoint 1, layer 1 (SDP, group 0) programmed"). */
const char *session_stop_message(const struct session *s);
bool session_finished(const struct session *s);
/* The hardware layer the run is at, the debugger's one answer (as gdb has
 * one current frame) for "finish" (the layer it completes), "info regs"
 * alone (whose registers it shows) and the TUI (the layer it marks and
 * selects after a step): the first (by index) running, else the first
 * enabled and waiting for the rest of its pipeline, else the first being
 * programmed; with none of these (between layers, after the run), the last
 * to finish; NULL before any layer.  The hardware's work comes first: a
 * layer merely programmed (the driver readies the other group while one
 * runs) does not start until the running one lets it.  Once the run is over
 * (session_finished), layers still being programmed were never enabled and
 * are no layers of the run (format_layer_never_enabled): passed over.
 * Callers that need a layer in progress check its state: DONE means none. */
const struct dla_layer *session_layer_at(struct session *s);

/* Counters of what has executed. */
uint64_t session_writes(const struct session *s);
uint64_t session_tasks_done(const struct session *s);
/* The action about to execute (for "where"); false when finished. */
bool session_pending(struct session *s, struct drv_action *act);

/* Why nothing progresses: the driver's position and wait, enabled units and
 * layers, interrupt status and mask by name. */
void session_hang_report(struct session *s, FILE *out);

/* One-line result and exit status (0 ok, 1 mismatch, 2 input error). */
void session_summary(const struct session *s, char *buf, size_t len);
int session_exit_status(const struct session *s);

/* Hardware layers completed and hardware events processed so far. */
uint64_t session_layers_done(const struct session *s);
uint64_t session_events(const struct session *s);
/* Where the action executing now comes from ("input.txn:34", "op 3 SDP group 0"),
 * for messages about what it caused; "" when nothing has run. */
const char *session_where(const struct session *s);
/* The loadable operation the action executing now programs (listeners of
 * the model see it while the action's write is executed); false when the
 * action belongs to no operation. */
bool session_action_op(const struct session *s, struct drv_op *op);
/* The action executed last (for "where" after a stop); false before the first. */
bool session_last_action(const struct session *s, struct drv_action *act);

/* Run until pred(ctx, s) holds after an action (checked after every action and
 * hardware event), or a stop, the end or a hang. */
enum session_stop session_step_until(struct session *s, bool (*pred)(void *ctx, struct session *s),
                                     void *ctx);

/* Tasks seen so far (DRV_TASK markers of the loadable driver). */
struct session_task {
    int index;
    bool emu;
    bool done;
    char name[48];
    uint64_t begin_cycle, end_cycle;
};
size_t session_task_count(const struct session *s);
const struct session_task *session_task_get(const struct session *s, size_t i);
/* The record of task list entry `index` (drv_task.index), NULL before it began. */
const struct session_task *session_task_of(const struct session *s, int index);

/* Observer of execution (the debugger core): checkpoints at layer boundaries,
 * watchpoints, the programming log for "export txn". */
struct session_hooks {
    /* the driver produced the next action (its host work is done) */
    void (*fetched)(void *ctx, struct session *s, const struct drv_action *act);
    /* a DRV_WAIT ended: ok = its condition held; events = hardware events it took */
    void (*wait_done)(void *ctx, struct session *s, const struct drv_action *act, bool ok,
                      uint64_t events);
    /* after every executed action or hardware event: a consistent point */
    void (*after_execute)(void *ctx, struct session *s);
};
void session_set_hooks(struct session *s, const struct session_hooks *hooks, void *ctx);

/* Complete state of a session at a consistent point: model snapshot, driver
 * state, the action in progress, counters, tasks and the report's counts.
 * Loading it makes execution continue exactly as it did from that point. */
struct session_state;
struct session_state *session_save(struct session *s);
void session_load(struct session *s, const struct session_state *st);
void session_state_free(struct session_state *st);
/* Memory the state holds besides the session's live model (see
 * dla_snapshot_bytes_apart): summed over states, what checkpoints cost. */
size_t session_state_bytes(const struct session_state *st, const struct session *s);

/* Set from a SIGINT handler; a running step stops with SESSION_INTERRUPTED. */
extern volatile sig_atomic_t session_interrupt;

#endif
