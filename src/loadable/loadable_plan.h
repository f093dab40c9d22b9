/* What a loadable will run, known before it runs: its tasks in submit order
 * and, for each DLA task, the operations of its network descriptor (type,
 * shapes) with the names of the bound tensors (input, output) each reads or
 * writes.  The loadable schema carries no layer names; the tensor names are
 * the only names a network's operations have.
 *
 * Read by placing the loadable in a scratch model, as loadable_tensors()
 * does (the runtime's placement is deterministic), and decoding the
 * descriptors the engine would read.  Nothing of the real run is touched. */
#ifndef DLADBG_LOADABLE_PLAN_H
#define DLADBG_LOADABLE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dla.h"

struct plan_op {
    uint32_t task;  /* index into the loadable's task list */
    int16_t op;     /* operation index in the task's network descriptor */
    uint8_t type;   /* enum fw_op_type (numbered as enum dla_proc) */
    char desc[96];  /* "28x28x1 -> 24x24x20 (on the fly)", BDMA: "2 transfers" */
    char names[96]; /* bound tensors it reads or writes: "data ->", "-> prob", "" */
};

struct plan_task {
    uint32_t index; /* task list index (as session_task.index) */
    uint16_t id;
    bool emu;               /* a CPU (EMU) task */
    size_t first_op, n_ops; /* DLA: its operations in loadable_plan.ops */
    char tensors[128];      /* bound tensors its address list reaches: "data prob" */
    char problem[128];      /* why its operations are unknown, "" when listed */
};

struct loadable_plan {
    struct plan_task *tasks; /* in the order the submit list runs them */
    size_t n_tasks;
    struct plan_op *ops;
    size_t n_ops;
};

/* The plan of the loadable at path (a file or sample:NAME) placed for cfg.
 * false with err when path is no loadable the runtime can place. */
bool loadable_plan_read(const char *path, const struct dla_config *cfg, struct loadable_plan *p,
                        char *err, size_t errlen);
/* The same of a loadable already parsed, its blobs from bound's image when
 * it holds them (loadable_driver_parsed; bound may be NULL). */
struct loadable;
struct rt_bound;
bool loadable_plan_of(struct loadable *ld, struct rt_bound *bound, const struct dla_config *cfg,
                      struct loadable_plan *p, char *err, size_t errlen);
void loadable_plan_free(struct loadable_plan *p);

/* The operation (task index, op), or NULL. */
const struct plan_op *loadable_plan_op(const struct loadable_plan *p, uint32_t task, int16_t op);

#endif
