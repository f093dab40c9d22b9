/* A driver is what programs the simulated NVDLA: a register-trace replayer or
 * the loadable runtime + engine scheduler (the kernel driver's job).  It hands
 * the session one action at a time, so the session can step by register write,
 * by hardware event or by task, stop at breakpoints, and checkpoint between
 * actions.  Host-side work (loading memory, comparing dumps, CPU tasks) the
 * driver does itself inside next(). */
#ifndef DLADBG_DRIVER_H
#define DLADBG_DRIVER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/dla.h"
#include "report.h"

enum drv_act_kind {
    DRV_WRITE, /* one CSB register write */
    DRV_WAIT,  /* let hardware time pass until ready() holds */
    DRV_TASK,  /* a task boundary (begin or end of a DLA or CPU task) */
    DRV_DONE,  /* nothing more to do */
};

struct drv_wait {
    /* Condition to wait for; evaluated by the session between hardware events. */
    bool (*ready)(void *ctx, struct dla *d);
    void *ctx;
    /* How many hardware events to process at most before giving up (-1: until
     * the hardware is idle). */
    int64_t max_events;
    char what[96]; /* "interrupt", "GLB.S_INTR_STATUS poll", ... for messages */
};

struct drv_task {
    int index;
    bool begin;
    bool emu; /* CPU (EMU) task rather than a DLA task */
    char name[48];
};

/* The loadable operation an action programs (the loadable driver's writes). */
struct drv_op {
    bool known;    /* false: not an operation's write (traces, interrupt handling) */
    uint32_t task; /* index into the loadable's task list */
    int16_t op;    /* operation index in the task's network descriptor */
    uint8_t type;  /* enum dla_proc of the operation */
};

struct drv_action {
    uint8_t kind;         /* enum drv_act_kind */
    uint32_t addr, value; /* DRV_WRITE: CSB byte address and value */
    struct drv_wait wait;
    struct drv_task task;
    char where[96]; /* source of the action: "input.txn:34", "op 3 SDP group 0" */
    struct drv_op op;
};

/* An action with nothing in it: every field 0 and its texts empty.  The
 * bytes of a text past its NUL are left as they were: a trace's driver
 * makes an action for each of its commands (fourteen million in a trace of
 * a million one-line layers), and a memset of the whole action, its three
 * texts' 240 bytes included, was a twentieth of such a run. */
static inline void drv_action_clear(struct drv_action *a)
{
    /* a field added to the action is cleared here too */
    _Static_assert(sizeof(struct drv_action) == 304, "drv_action_clear clears every field");
    a->kind = 0;
    a->addr = a->value = 0;
    a->wait.ready = NULL;
    a->wait.ctx = NULL;
    a->wait.max_events = 0;
    a->wait.what[0] = 0;
    a->task.index = 0;
    a->task.begin = a->task.emu = false;
    a->task.name[0] = 0;
    a->where[0] = 0;
    a->op = (struct drv_op){.known = false};
}

/* drv_wait.ready of a wait for the DLA interrupt line: how every driver
 * waits for the hardware to finish what it was given. */
static inline bool drv_intr_line_ready(void *ctx, struct dla *d)
{
    (void)ctx;
    return dla_intr_line(d);
}

/* What became of the previous action. */
struct drv_result {
    bool wait_ok; /* DRV_WAIT: the condition held (false: hardware went idle first) */
};

/* A range of simulated memory the file binds: a loadable's memory as the
 * runtime places it, a trace's loaded, initialised, dumped or checked bytes
 * (see driver_ops.regions). */
struct drv_region {
    uint8_t space; /* enum dla_space */
    uint64_t base, size;
    char what[48]; /* "memory 3", "input.txn:12 load_mem" */
};

struct driver;

struct driver_ops {
    const char *kind; /* "txn", "cfg", "loadable" */
    /* Produce the next action into act, every field of it (act holds an
     * earlier action).  prev describes the previous action's outcome (NULL
     * for the first call). */
    void (*next)(struct driver *drv, struct dla *d, const struct drv_result *prev,
                 struct drv_action *act);
    void (*destroy)(struct driver *drv);
    /* Driver state for checkpoints: save returns an opaque copy. */
    void *(*save)(const struct driver *drv);
    void (*restore)(struct driver *drv, const void *saved);
    void (*free_saved)(void *saved);
    /* What a saved copy holds, for the checkpoints' memory budget. */
    size_t (*saved_bytes)(const void *saved);
    /* One-line summary after a run, e.g. "sanity1: 14 checks passed, 0 failed; 1 dump matched". */
    void (*summary)(const struct driver *drv, char *buf, size_t len);
    /* Where the driver is and what it waits for (hang diagnosis); may be NULL. */
    void (*describe)(const struct driver *drv, struct dla *d, FILE *out);
    /* The memory the file binds, before anything ran too, in base order:
     * *out (owned by the driver, valid until the next call) and its count.
     * NULL: the driver binds none of its own, so any address is memory. */
    size_t (*regions)(struct driver *drv, struct dla *d, const struct drv_region **out);
};

struct driver {
    const struct driver_ops *ops;
    struct report *rep;
    char name[64]; /* short name of what runs: trace folder or loadable file name */
    /* While next() does host-side work that touches the model (a read_reg
     * check, a memory load), the source line of that work ("input.txn:5"),
     * which the session gives diagnostics raised meanwhile; "" otherwise. */
    char host_where[96];
};

#endif
