/* The session: executes the driver's actions on the model, one at a time. */
#include "session.h"

#include <stdlib.h>
#include <string.h>

#include "config_choice.h"
#include "cmd/format.h"
#include "loadable/loadable.h"
#include "loadable/loadable_driver.h"
#include "open_path.h"
#include "trace/trace.h"
#include "trace/txn_prog.h"

volatile sig_atomic_t session_interrupt;

struct session {
    char path[4096];
    struct session_opts opt;
    const struct dla_config *cfg;
    struct report *rep;
    struct dla *dla;
    struct driver *drv;
    int listener;

    /* act: the action about to execute; last: the action executed last.
     * They point into slots by turns, so that an action becomes the last
     * without a copy of it (a trace of a million layers runs fourteen
     * million). */
    struct drv_action slots[2];
    struct drv_action *act, *last;
    bool have_act;
    struct drv_result prev;
    bool have_prev;
    bool finished;
    int64_t wait_budget; /* hardware events left for the current DRV_WAIT */

    uint64_t writes, layers_done, tasks_done, events;
    uint64_t wait_events;   /* hardware events taken by the current DRV_WAIT */
    bool have_last;
    size_t n_tasks, cap_tasks;
    struct session_task *tasks;

    const struct session_hooks *hooks;
    void *hooks_ctx;

    bool stop_requested;
    enum session_stop stop_why;
    char stop_msg[512];
};

/* ---------------------------------------------------------------- opening */

static void on_event(void *ctx, const struct dla_event *ev)
{
    struct session *s = ctx;
    if (ev->kind == DLA_EV_LAYER_DONE)
        s->layers_done++;
    /* an error diagnostic means the hardware was given bad input (a reserved
     * address, an absent unit, DMA outside memory, a layer too large to
     * simulate): the run's status says so (exit 2 in batch mode) */
    if (ev->kind == DLA_EV_DIAG && ev->u.diag.severity == DLA_SEV_ERROR)
        s->rep->input_errors++;
}

/* A trace loads its own memory: an input tensor given for it goes nowhere. */
static void warn_unused_input(struct session *s)
{
    if (s->opt.input.image || s->opt.input.raw)
        report_msg(s->rep, REPORT_WARNING, "%s ignored: %s is a register trace, not a loadable",
                   s->opt.input.image ? "--image" : "--input", s->path);
    if (s->opt.rawdump)
        report_msg(s->rep, REPORT_WARNING,
                   "--rawdump ignored: %s is a register trace, which has no output tensor",
                   s->path);
}

/* kept: the file as configuration detection parsed it (taken over), or
 * NULL. */
static struct driver *open_driver(struct session *s, struct config_parse *kept, char *err,
                                  size_t errlen)
{
    char file[4096];
    struct trace_opts topt = {.outdir = s->opt.outdir, .cfg = s->cfg};
    struct config_parse none = {0};
    if (!kept)
        kept = &none;
    switch (trace_detect(s->path, file, sizeof file)) {
    case TRACE_TXN:
        warn_unused_input(s);
        loadable_free(kept->loadable);
        return trace_txn_open_prog(kept->txn, file, &topt, s->rep, err, errlen);
    case TRACE_CFG:
        warn_unused_input(s);
        config_parse_free(kept);
        return trace_cfg_open(file, &topt, s->rep, err, errlen);
    default: {
        txn_prog_free(kept->txn);
        struct driver *drv = loadable_driver_open_parsed(kept->loadable, s->path, &s->opt, s->dla,
                                                         s->rep, err, errlen);
        if (!drv)
            open_path_explain(s->path, err, errlen);
        return drv;
    }
    }
}

struct session *session_open(const char *path, const struct session_opts *opt, struct report *rep,
                             char *err, size_t errlen)
{
    struct session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->act = &s->slots[0];
    s->last = &s->slots[1];
    snprintf(s->path, sizeof s->path, "%s", path);
    for (size_t n = strlen(s->path); n > 1 && s->path[n - 1] == '/';)
        s->path[--n] = 0; /* "traces/sanity1/" names the folder, not a file in it */
    char named[sizeof s->path];
    snprintf(named, sizeof named, "%s", s->path);
    if (!open_path_resolve(named, s->path, sizeof s->path, err, errlen)) {
        free(s);
        return NULL;
    }
    if (strcmp(named, s->path))
        report_msg(rep, REPORT_NOTE, "%s: opening %s, the only loadable in it", named, s->path);
    if (opt)
        s->opt = *opt;
    s->rep = rep;
    struct config_parse kept; /* read once, for detection and for the driver */
    s->cfg = config_choose_parsed(s->path, opt ? opt->cfg : NULL, rep, &kept, err, errlen);
    if (!s->cfg) {
        free(s);
        return NULL;
    }
    s->opt.cfg = s->cfg;
    struct dla_options dopt = {.mem_budget = s->opt.mem_budget, .work_budget = s->opt.work_budget};
    s->dla = dla_create(s->cfg, &dopt);
    if (!s->dla) {
        snprintf(err, errlen, "cannot create the %s model (out of memory?)", s->cfg->name);
        config_parse_free(&kept);
        free(s);
        return NULL;
    }
    s->listener = dla_listen(s->dla, on_event, s);
    s->drv = open_driver(s, &kept, err, errlen);
    if (!s->drv) {
        session_close(s);
        return NULL;
    }
    return s;
}

void session_close(struct session *s)
{
    if (!s)
        return;
    if (s->drv)
        s->drv->ops->destroy(s->drv);
    dla_destroy(s->dla);
    free(s->tasks);
    free(s);
}

bool session_restart(struct session *s, char *err, size_t errlen)
{
    struct driver *drv = open_driver(s, NULL, err, errlen);
    if (!drv)
        return false;
    s->drv->ops->destroy(s->drv);
    s->drv = drv;
    dla_reset(s->dla);
    s->have_act = s->have_prev = s->finished = s->stop_requested = s->have_last = false;
    s->writes = s->layers_done = s->tasks_done = s->events = s->wait_events = 0;
    s->n_tasks = 0;
    s->stop_msg[0] = 0;
    return true;
}

struct dla *session_dla(struct session *s)
{
    return s->dla;
}

struct driver *session_driver(struct session *s)
{
    return s->drv;
}

const char *session_path(const struct session *s)
{
    return s->path;
}

/* ---------------------------------------------------------------- stepping */

void session_request_stop(struct session *s, enum session_stop why, const char *msg)
{
    /* a later breakpoint of the same stop sends the whole message again,
     * naming every breakpoint hit so far (breakpoints.c) */
    s->stop_requested = true;
    s->stop_why = why;
    snprintf(s->stop_msg, sizeof s->stop_msg, "%s", msg ? msg : "");
}

bool session_stop_requested(const struct session *s)
{
    return s->stop_requested;
}

const char *session_stop_message(const struct session *s)
{
    return s->stop_msg;
}

bool session_finished(const struct session *s)
{
    return s->finished;
}

/* ---------------------------------------------------------------- the layer the run is at */

/* The first layer in state, by index; NULL when none is. */
static const struct dla_layer *first_layer_in(const struct dla *dla, enum dla_layer_state state)
{
    for (size_t i = 0; i < dla_layer_count(dla); i++) {
        const struct dla_layer *l = dla_layer_get(dla, i);
        if (l->state == state)
            return l;
    }
    return NULL;
}

/* The layer whose completion came last (the higher index of a tie: layers
 * fused on the fly complete together, the consumer last). */
static const struct dla_layer *last_layer_done(const struct dla *dla)
{
    const struct dla_layer *last = NULL;
    for (size_t i = 0; i < dla_layer_count(dla); i++) {
        const struct dla_layer *l = dla_layer_get(dla, i);
        if (l->state == DLA_LAYER_DONE && (!last || l->end_cycle >= last->end_cycle))
            last = l;
    }
    return last;
}

const struct dla_layer *session_layer_at(struct session *s)
{
    const struct dla *dla = s->dla;
    bool run_over = s->finished;
    const struct dla_layer *l = first_layer_in(dla, DLA_LAYER_RUNNING);
    if (!l)
        l = first_layer_in(dla, DLA_LAYER_ENABLED);
    if (!l && !run_over)
        l = first_layer_in(dla, DLA_LAYER_PROGRAMMING);
    return l ? l : last_layer_done(dla);
}

uint64_t session_writes(const struct session *s)
{
    return s->writes;
}

uint64_t session_tasks_done(const struct session *s)
{
    return s->tasks_done;
}

static void fetch_action(struct session *s)
{
    if (s->have_act || s->finished)
        return;
    s->drv->ops->next(s->drv, s->dla, s->have_prev ? &s->prev : NULL, s->act);
    s->have_prev = false;
    s->have_act = true;
    if (s->act->kind == DRV_WAIT) {
        s->wait_budget = s->act->wait.max_events;
        s->wait_events = 0;
    }
    if (s->hooks && s->hooks->fetched)
        s->hooks->fetched(s->hooks_ctx, s, s->act);
}

bool session_pending(struct session *s, struct drv_action *act)
{
    fetch_action(s);
    if (s->finished)
        return false;
    *act = *s->act;
    return true;
}

static void finish_action(struct session *s, bool wait_ok)
{
    struct drv_action *done = s->act;
    s->last = done; /* the hook sees act and last alike, as the action is both */
    s->have_last = true;
    if (done->kind == DRV_WAIT && s->hooks && s->hooks->wait_done)
        s->hooks->wait_done(s->hooks_ctx, s, done, wait_ok, s->wait_events);
    /* the next action goes to the other slot; the driver fills it whole */
    s->act = done == &s->slots[0] ? &s->slots[1] : &s->slots[0];
    s->have_act = false;
    s->prev.wait_ok = wait_ok;
    s->have_prev = true;
}

/* Keep a record per task: begin and end cycles for "info tasks". */
static void note_task(struct session *s, const struct drv_task *t)
{
    struct session_task *rec = NULL;
    for (size_t i = s->n_tasks; i-- > 0;)
        if (s->tasks[i].index == t->index && s->tasks[i].emu == t->emu && !s->tasks[i].done) {
            rec = &s->tasks[i];
            break;
        }
    if (!rec && t->begin) {
        if (s->n_tasks == s->cap_tasks) {
            size_t cap = s->cap_tasks ? s->cap_tasks * 2 : 16;
            struct session_task *n = realloc(s->tasks, cap * sizeof *n);
            if (!n)
                return; /* the record is for display only; running goes on */
            s->tasks = n;
            s->cap_tasks = cap;
        }
        rec = &s->tasks[s->n_tasks++];
        memset(rec, 0, sizeof *rec);
        rec->index = t->index;
        rec->emu = t->emu;
        snprintf(rec->name, sizeof rec->name, "%s", t->name);
        rec->begin_cycle = dla_now(s->dla);
        return;
    }
    if (rec && !t->begin) {
        rec->done = true;
        rec->end_cycle = dla_now(s->dla);
    }
}

/* Execute (part of) the current action.  Returns SESSION_HANG when a wait
 * cannot be satisfied, SESSION_DONE when the driver is finished, else
 * SESSION_STEPPED. */
static enum session_stop execute(struct session *s)
{
    fetch_action(s);
    /* the driver's register accesses so far (the last write, the reads of
     * its host work) take bus time before it does anything else */
    dla_csb_settle(s->dla);
    struct drv_action *a = s->act; /* finish_action makes it the last: it stays */
    switch (a->kind) {
    case DRV_WRITE:
        finish_action(s, true);
        dla_csb_write(s->dla, a->addr, a->value);
        s->writes++;
        return SESSION_STEPPED;
    case DRV_TASK:
        finish_action(s, true);
        note_task(s, &a->task);
        if (!a->task.begin)
            s->tasks_done++;
        return SESSION_STEPPED;
    case DRV_WAIT:
        if (a->wait.ready(a->wait.ctx, s->dla)) {
            finish_action(s, true);
            return SESSION_STEPPED;
        }
        if (s->wait_budget != 0 && dla_advance(s->dla)) {
            if (s->wait_budget > 0)
                s->wait_budget--;
            s->events++;
            s->wait_events++;
            return SESSION_STEPPED;
        }
        finish_action(s, false);
        /* a bounded retry (read_reg) that ran out is the driver's business; an
         * unbounded wait on idle hardware is a hang */
        if (a->wait.max_events < 0) {
            snprintf(s->stop_msg, sizeof s->stop_msg,
                     "%s: waiting for %s, but the hardware is idle", a->where, a->wait.what);
            return SESSION_HANG;
        }
        return SESSION_STEPPED;
    case DRV_DONE:
    default:
        s->finished = true;
        s->have_act = false;
        snprintf(s->stop_msg, sizeof s->stop_msg, "finished");
        return SESSION_DONE;
    }
}

static bool step_complete(const struct session *s, enum session_unit unit, uint64_t target)
{
    switch (unit) {
    case SESSION_WRITE:
        return s->writes >= target;
    case SESSION_EVENT:
        return s->events >= target;
    case SESSION_LAYER:
        return s->layers_done >= target;
    case SESSION_TASK:
        return s->tasks_done >= target;
    case SESSION_RUN:
        return false;
    }
    return false;
}

static uint64_t counter(const struct session *s, enum session_unit unit)
{
    switch (unit) {
    case SESSION_WRITE:
        return s->writes;
    case SESSION_EVENT:
        return s->events;
    case SESSION_LAYER:
        return s->layers_done;
    case SESSION_TASK:
        return s->tasks_done;
    default:
        return 0;
    }
}

/* One execute() followed by the observer and the stop checks: SESSION_STEPPED
 * when execution may go on. */
static enum session_stop execute_observed(struct session *s)
{
    enum session_stop r = execute(s);
    if (s->hooks && s->hooks->after_execute)
        s->hooks->after_execute(s->hooks_ctx, s);
    if (r == SESSION_DONE || r == SESSION_HANG)
        return r;
    if (s->stop_requested)
        return s->stop_why;
    if (session_interrupt) {
        session_interrupt = 0;
        snprintf(s->stop_msg, sizeof s->stop_msg, "interrupted");
        return SESSION_INTERRUPTED;
    }
    return SESSION_STEPPED;
}

/* session_step is session_step_until with this predicate: the counter of
 * the unit has reached the target. */
struct step_target {
    enum session_unit unit;
    uint64_t target;
};

static bool step_target_reached(void *ctx, struct session *s)
{
    const struct step_target *t = ctx;
    return step_complete(s, t->unit, t->target);
}

enum session_stop session_step(struct session *s, enum session_unit unit, uint64_t count)
{
    struct step_target t = {unit, counter(s, unit) + (count ? count : 1)};
    return session_step_until(s, step_target_reached, &t);
}

enum session_stop session_step_until(struct session *s, bool (*pred)(void *ctx, struct session *s),
                                     void *ctx)
{
    s->stop_requested = false;
    s->stop_msg[0] = 0;
    if (s->finished)
        return SESSION_DONE;
    for (;;) {
        enum session_stop r = execute_observed(s);
        if (r != SESSION_STEPPED)
            return r;
        if (pred(ctx, s))
            return SESSION_STEPPED;
    }
}

bool session_action_op(const struct session *s, struct drv_op *op)
{
    /* as session_where: a write is finished before it reaches the model */
    const struct drv_action *a = s->have_act && s->act->kind == DRV_WAIT ? s->act
                                 : s->have_last                          ? s->last
                                                                         : NULL;
    if (!a || !a->op.known)
        return false;
    *op = a->op;
    return true;
}

uint64_t session_layers_done(const struct session *s)
{
    return s->layers_done;
}

uint64_t session_events(const struct session *s)
{
    return s->events;
}

const char *session_where(const struct session *s)
{
    /* host-side work inside the driver's next(): its own line */
    if (s->drv && s->drv->host_where[0])
        return s->drv->host_where;
    /* a write is finished before it reaches the model; a wait stays current
     * while its hardware events run */
    if (s->have_act && s->act->kind == DRV_WAIT)
        return s->act->where;
    return s->have_last ? s->last->where : "";
}

bool session_last_action(const struct session *s, struct drv_action *act)
{
    if (s->have_last)
        *act = *s->last;
    return s->have_last;
}

size_t session_task_count(const struct session *s)
{
    return s->n_tasks;
}

const struct session_task *session_task_get(const struct session *s, size_t i)
{
    return i < s->n_tasks ? &s->tasks[i] : NULL;
}

const struct session_task *session_task_of(const struct session *s, int index)
{
    for (size_t i = 0; i < s->n_tasks; i++)
        if (s->tasks[i].index == index)
            return &s->tasks[i];
    return NULL;
}

void session_set_hooks(struct session *s, const struct session_hooks *hooks, void *ctx)
{
    s->hooks = hooks;
    s->hooks_ctx = ctx;
}

/* ---------------------------------------------------------------- state */

struct session_state {
    struct dla_snapshot *snap;
    void *drv;
    const struct driver_ops *drv_ops; /* static: outlives a driver replaced by a restart */
    struct session copy;              /* plain fields; tasks point to the state's own array */
    struct report rep_counts;
};

struct session_state *session_save(struct session *s)
{
    struct session_state *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->snap = dla_snapshot_take(s->dla);
    st->drv_ops = s->drv->ops;
    st->drv = s->drv->ops->save(s->drv);
    st->copy = *s;
    st->copy.tasks = NULL;
    if (s->n_tasks) {
        st->copy.tasks = malloc(s->n_tasks * sizeof *s->tasks);
        if (st->copy.tasks)
            memcpy(st->copy.tasks, s->tasks, s->n_tasks * sizeof *s->tasks);
    }
    st->copy.cap_tasks = s->n_tasks;
    if (s->rep)
        st->rep_counts = *s->rep;
    if (!st->snap || !st->drv || (s->n_tasks && !st->copy.tasks)) {
        session_state_free(st);
        return NULL;
    }
    return st;
}

void session_load(struct session *s, const struct session_state *st)
{
    dla_snapshot_restore(s->dla, st->snap);
    s->drv->ops->restore(s->drv, st->drv);
    struct session keep = *s;
    *s = st->copy;
    /* identity, options and observers are not part of the state */
    memcpy(s->path, keep.path, sizeof s->path);
    s->opt = keep.opt;
    s->cfg = keep.cfg;
    s->rep = keep.rep;
    s->dla = keep.dla;
    s->drv = keep.drv;
    s->listener = keep.listener;
    s->hooks = keep.hooks;
    s->hooks_ctx = keep.hooks_ctx;
    s->tasks = keep.tasks;
    s->cap_tasks = keep.cap_tasks;
    if (st->copy.n_tasks > s->cap_tasks) {
        struct session_task *n = realloc(s->tasks, st->copy.n_tasks * sizeof *n);
        if (!n)
            abort(); /* cannot hold the restored task list: do not continue half-restored */
        s->tasks = n;
        s->cap_tasks = st->copy.n_tasks;
    }
    if (st->copy.n_tasks)
        memcpy(s->tasks, st->copy.tasks, st->copy.n_tasks * sizeof *s->tasks);
    s->n_tasks = st->copy.n_tasks;
    s->stop_requested = false;
    if (s->rep) { /* the counts come back; where messages go stays */
        struct report counts = st->rep_counts;
        counts.print = s->rep->print;
        counts.ctx = s->rep->ctx;
        *s->rep = counts;
    }
}

size_t session_state_bytes(const struct session_state *st, const struct session *s)
{
    return sizeof *st + st->copy.n_tasks * sizeof *st->copy.tasks +
           (st->snap ? dla_snapshot_bytes_apart(st->snap, s->dla) : 0) +
           (st->drv && st->drv_ops->saved_bytes ? st->drv_ops->saved_bytes(st->drv) : 0);
}

void session_state_free(struct session_state *st)
{
    if (!st)
        return;
    dla_snapshot_free(st->snap);
    if (st->drv)
        st->drv_ops->free_saved(st->drv);
    free(st->copy.tasks);
    free(st);
}

/* ---------------------------------------------------------------- reports */

/* BDMA has no OP_ENABLE: its STATUS register tells busy groups and free slots. */
static void report_bdma(struct dla *d, FILE *out)
{
    struct regdb_ref ref;
    if (!dla_cfg(d)->bdma || !regdb_resolve(dla_regmap(d), "BDMA.STATUS", &ref))
        return;
    char fields[256];
    format_fields_inline(ref.reg, dla_csb_peek(d, regdb_addr(ref.unit, ref.reg)), fields,
                         sizeof fields);
    fprintf(out, "    %-9s STATUS %s\n", "BDMA", fields);
}

static void report_units(struct session *s, FILE *out)
{
    struct dla *d = s->dla;
    fprintf(out, "  units:\n");
    report_bdma(d, out);
    for (int u = 0; u < DLA_U_COUNT; u++) {
        const struct regdb_unit *ru = dla_unit_db(d, (enum dla_unit)u);
        if (!ru || ru->op_enable == 0xffff)
            continue;
        bool e0 = dla_op_enabled(d, (enum dla_unit)u, 0);
        bool e1 = dla_op_enabled(d, (enum dla_unit)u, 1);
        fprintf(out, "    %-9s group0 %-8s group1 %-8s producer %d consumer %d\n",
                dla_unit_name((enum dla_unit)u), e0 ? "enabled" : "idle", e1 ? "enabled" : "idle",
                dla_producer_group(d, (enum dla_unit)u), dla_consumer_group(d, (enum dla_unit)u));
    }
}

/* For a layer that is not running: which of its processor's units have
 * D_OP_ENABLE set in its group, so "waiting for SDP_RDMA" is visible. */
static void report_layer_units(struct dla *d, const struct dla_layer *l, FILE *out)
{
    if (l->group > 1)
        return;
    fprintf(out, "      op enable in group %u:", l->group);
    for (int u = 0; u < DLA_U_COUNT; u++) {
        const struct regdb_unit *ru = dla_unit_db(d, (enum dla_unit)u);
        if (!ru || ru->op_enable == 0xffff || dla_unit_proc((enum dla_unit)u) != l->proc)
            continue;
        fprintf(out, " %s %s", dla_unit_name((enum dla_unit)u),
                dla_op_enabled(d, (enum dla_unit)u, l->group) ? "set" : "NOT set");
    }
    fprintf(out, "\n");
}

static void report_layers(struct session *s, FILE *out)
{
    struct dla *d = s->dla;
    size_t waiting = 0;
    for (size_t i = 0; i < dla_layer_count(d); i++) {
        const struct dla_layer *l = dla_layer_get(d, i);
        if (l->state == DLA_LAYER_DONE)
            continue;
        waiting++;
        const char *why = "";
        if (l->state == DLA_LAYER_PROGRAMMING && l->proc == DLA_P_BDMA)
            why = " (operations queued, never launched: no CFG_LAUNCH0/1 write)";
        else if (l->state == DLA_LAYER_PROGRAMMING)
            why = " (registers written, never enabled)";
        else if (l->state == DLA_LAYER_ENABLED)
            why = " (enabled, waiting for the other units of its pipeline)";
        char group[16] = "";
        if (l->group <= 1)
            snprintf(group, sizeof group, " group %u", l->group);
        fprintf(out, "  layer %u: %s%s %s%s%s%s\n", l->index, dla_proc_name(l->proc), group,
                dla_layer_state_name(l->state), why, l->desc[0] ? ": " : "", l->desc);
        if (l->state != DLA_LAYER_RUNNING)
            report_layer_units(d, l, out);
    }
    if (!waiting)
        fprintf(out, "  layers: every hardware layer has completed; none is programmed\n");
}

static void report_bits(FILE *out, const char *label, uint32_t v)
{
    char names[512];
    format_intr_bits(v, names, sizeof names);
    fprintf(out, "  %s 0x%08x%s\n", label, v, names);
}

/* Status bits set but masked never raise the line: the classic lost interrupt. */
static void report_masked(struct session *s, FILE *out)
{
    uint32_t masked = dla_intr_status(s->dla) & dla_intr_mask(s->dla);
    if (!masked)
        return;
    char names[512];
    format_intr_bits(masked, names, sizeof names);
    fprintf(out, "  pending but masked (the interrupt line stays low):%s\n", names);
}

void session_hang_report(struct session *s, FILE *out)
{
    fprintf(out, "no progress at cycle %llu:\n", (unsigned long long)dla_now(s->dla));
    if (s->drv->ops->describe)
        s->drv->ops->describe(s->drv, s->dla, out);
    report_layers(s, out);
    report_units(s, out);
    report_bits(out, "GLB.S_INTR_STATUS", dla_intr_status(s->dla));
    char mask_names[512];
    format_reg_bits(dla_regmap(s->dla), "GLB.S_INTR_MASK", dla_intr_mask(s->dla), mask_names,
                    sizeof mask_names);
    fprintf(out, "  GLB.S_INTR_MASK   0x%08x%s\n", dla_intr_mask(s->dla), mask_names);
    report_masked(s, out);
    fprintf(out, "  interrupt line: %s\n", dla_intr_line(s->dla) ? "asserted" : "low");
}

void session_summary(const struct session *s, char *buf, size_t len)
{
    s->drv->ops->summary(s->drv, buf, len);
}

int session_exit_status(const struct session *s)
{
    return report_exit_status(s->rep);
}
