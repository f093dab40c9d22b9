/* The debugger's view of what a loadable runs: its plan (tasks, operations,
 * tensor names) read once per file, and which hardware layer runs which
 * operation (recorded by cmd.c's model listener in d->origins). */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "layer_origin.h"
#include "loadable/loadable_driver.h"
#include "loadable/loadable_plan.h"
#include "loadable/loadable_tensors.h"

const struct loadable_plan *dbg_plan(struct dbg *d)
{
    if (d->plan_read || !d->session)
        return d->plan;
    d->plan_read = true;
    struct loadable_plan *p = calloc(1, sizeof *p);
    char err[256];
    struct loadable *ld;
    struct rt_bound *bound;
    const struct dla_config *cfg = dla_cfg(session_dla(d->session));
    /* the session's own parse and blob image: a sample is not built again,
     * its weights not copied again */
    bool ok = p && (loadable_driver_parsed(session_driver(d->session), &ld, &bound)
                        ? loadable_plan_of(ld, bound, cfg, p, err, sizeof err)
                        : loadable_plan_read(session_path(d->session), cfg, p, err, sizeof err));
    if (ok)
        d->plan = p;
    else
        free(p);
    return d->plan;
}

bool dbg_tensors(struct dbg *d, struct tensor_info **t, size_t *n, char *err, size_t errlen)
{
    struct loadable *ld;
    struct rt_bound *bound;
    const struct dla_config *cfg = dla_cfg(session_dla(d->session));
    if (loadable_driver_parsed(session_driver(d->session), &ld, &bound))
        return loadable_tensors_of(ld, bound, cfg, t, n, err, errlen);
    /* a register trace: read as a loadable, its folder or .txn only failed,
     * with a reader's message ("read error") for the user to puzzle over */
    snprintf(err, errlen, "it is a register trace");
    return false;
}

static size_t dla_tasks(const struct loadable_plan *p)
{
    size_t n = 0;
    for (size_t i = 0; p && i < p->n_tasks; i++)
        n += !p->tasks[i].emu;
    return n;
}

void dbg_layer_op_text(struct dbg *d, size_t layer, bool brief, char *buf, size_t len)
{
    struct drv_op op;
    buf[0] = 0;
    if (!d->session || layer >= dla_layer_count(session_dla(d->session)) ||
        !layer_origins_get(d->origins, layer, &op))
        return;
    const struct loadable_plan *p = dbg_plan(d);
    const struct plan_op *po = p ? loadable_plan_op(p, op.task, op.op) : NULL;
    const char *names = po ? po->names : "";
    char task[16] = ""; /* "t2." when the loadable has several DLA tasks */
    if (dla_tasks(p) > 1)
        snprintf(task, sizeof task, "t%u.", op.task);
    if (brief) /* "op0 image ->" */
        snprintf(buf, len, "%sop%d%s%s", task, op.op, names[0] ? " " : "", names);
    else
        snprintf(buf, len, "task %u op %d%s%s", op.task, op.op, names[0] ? ": " : "", names);
}

bool dbg_op_layer(struct dbg *d, uint32_t task, int16_t op, size_t *layer)
{
    if (!d->session)
        return false;
    size_t n = dla_layer_count(session_dla(d->session));
    for (size_t i = 0; i < n; i++) {
        struct drv_op o;
        if (layer_origins_get(d->origins, i, &o) && o.task == task && o.op == op) {
            *layer = i;
            return true;
        }
    }
    return false;
}
