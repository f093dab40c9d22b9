/* The loadable driver: the runtime (memory, blobs, tensors) and the engine
 * scheduler running a loadable's submit list on the simulated NVDLA.
 *
 * next() is a small state machine: load the memories, then for every task
 * of the submit list check its pre-actions, mark its beginning, run it (DLA:
 * hand out the engine's register writes and wait for interrupts; EMU: run
 * it on the host), apply its post-actions and mark its end; finally write
 * the output tensor.  All of it is plain data in struct ldrv_state plus the
 * engine, which save()/restore() copy whole. */
#include "loadable_driver.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "debug/mem_regions.h"
#include "runtime/emu.h"
#include "tensor/input_tensor.h"
#include "runtime/engine.h"
#include "util/afile.h"
#include "loadable.h"
#include "tensor/rawdump.h"
#include "runtime/runtime.h"
#include "sample/sample_net.h"

#define LDRV_MAX_EVENT_TARGETS 64

enum ldrv_phase {
    PH_LOAD,
    PH_NEXT_TASK,
    PH_EMU,
    PH_DLA_START,
    PH_DLA,
    PH_DLA_WAITED,
    PH_POLL_WAITED,
    PH_OUTPUT,
    PH_DONE,
};

struct event_value {
    uint16_t target;
    uint32_t value;
};

struct ldrv_state {
    uint8_t phase;
    uint32_t submit, slot; /* next task: submit entry and position in it */
    uint32_t task;         /* running task (index into the task list) */
    uint32_t tasks_done, dla_tasks, emu_tasks, ops_done;
    bool failed, output_written;
    uint32_t n_events;
    struct event_value events[LDRV_MAX_EVENT_TARGETS];
    uint32_t last_read;     /* what the engine's last read returned (read-modify-writes) */
    struct eng_action poll; /* the poll being waited for (PH_POLL_WAITED) */
};

struct ldrv {
    struct driver base;
    struct loadable *ld;
    struct runtime rt;
    struct rt_bound *bound; /* the blobs after the first load (runtime.h) */
    bool rt_loaded;
    struct engine *eng;
    struct ldrv_state st;
    struct input_opts input; /* paths point into image_path / raw_path */
    char image_path[4096], raw_path[4096], output[4096];
    bool rawdump;
    struct region_list regions; /* the memories as the runtime places them, made at the first ask */
    bool regions_made;
};

struct ldrv_saved {
    struct ldrv_state st;
    struct engine *eng;
};

/* ---------------------------------------------------------------- helpers */

static void fail(struct ldrv *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct ldrv *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_vmsg(l->base.rep, REPORT_ERROR, fmt, ap);
    va_end(ap);
    if (l->base.rep)
        l->base.rep->input_errors++;
    l->st.failed = true;
}

static bool poll_ready(void *ctx, struct dla *d)
{
    const struct ldrv *l = ctx;
    return eng_poll_done(&l->st.poll, dla_csb_peek(d, l->st.poll.addr));
}

/* The task the submit list names next (tasks in list order without one). */
static bool next_task(struct ldrv *l, uint32_t *task)
{
    const struct loadable *ld = l->ld;
    if (ld->n_submits == 0) {
        if (l->st.submit >= ld->n_tasks)
            return false;
        *task = l->st.submit++;
        return true;
    }
    while (l->st.submit < ld->n_submits) {
        const struct ld_submit *s = &ld->submits[l->st.submit];
        if (l->st.slot < s->n_tasks) {
            *task = (uint32_t)loadable_task_index(ld, s->tasks[l->st.slot++]);
            return true;
        }
        l->st.submit++;
        l->st.slot = 0;
    }
    return false;
}

static struct event_value *event_slot(struct ldrv *l, uint16_t target)
{
    for (uint32_t i = 0; i < l->st.n_events; i++)
        if (l->st.events[i].target == target)
            return &l->st.events[i];
    if (l->st.n_events == LDRV_MAX_EVENT_TARGETS)
        return NULL;
    struct event_value *e = &l->st.events[l->st.n_events++];
    e->target = target;
    e->value = 0;
    return e;
}

/* Pre- and post-actions: SIGNAL sets an event chain's value, WAIT needs the
 * value reached.  Tasks run one at a time, so an unreached WAIT can never
 * be satisfied: it is an error in the loadable. */
static bool apply_events(struct ldrv *l, const uint16_t *ids, uint32_t n, const char *when)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct ld_event *e = &l->ld->events[loadable_event_index(l->ld, ids[i])];
        struct event_value *v = event_slot(l, e->target);
        if (!v) {
            fail(l, "%s: more than %d event chains", l->ld->name, LDRV_MAX_EVENT_TARGETS);
            return false;
        }
        if (e->op == LD_EVENT_SIGNAL) {
            v->value = e->val;
        } else if (v->value < e->val) {
            fail(l,
                 "%s: task %u %s waits for event %u (file offset 0x%x; chain %u value %u), but "
                 "the chain is at %u and no task can signal it any more",
                 l->ld->name, l->ld->tasks[l->st.task].id, when, e->id, e->at, e->target, e->val,
                 v->value);
            return false;
        }
    }
    return true;
}

static void task_marker(struct ldrv *l, struct drv_action *act, bool begin)
{
    const struct ld_task *t = &l->ld->tasks[l->st.task];
    act->kind = DRV_TASK;
    act->task.index = (int)l->st.task;
    act->task.begin = begin;
    act->task.emu = t->interface == LD_IF_EMU1;
    snprintf(act->task.name, sizeof act->task.name, "%s task %u", act->task.emu ? "EMU" : "DLA",
             t->id);
    snprintf(act->where, sizeof act->where, "%.32s: %s task %u %s", l->ld->name,
             act->task.emu ? "EMU" : "DLA", t->id, begin ? "begins" : "ends");
}

static void end_task(struct ldrv *l, struct drv_action *act)
{
    const struct ld_task *t = &l->ld->tasks[l->st.task];
    if (!l->st.failed)
        apply_events(l, t->post, t->n_post, "post-action");
    l->st.tasks_done++;
    task_marker(l, act, false);
    l->st.phase = l->st.failed ? PH_OUTPUT : PH_NEXT_TASK;
}

/* ---------------------------------------------------------------- phases */

/* nvdla_runtime without --image runs on the input data a loadable carries
 * (NVIDIA's sanity tests embed theirs); a network compiled from a model
 * carries none, so its input is zeros and every image-dependent output is
 * the same: said as the run starts, as a constant answer puzzles. */
static void tell_empty_input(struct ldrv *l)
{
    const struct runtime *rt = &l->rt;
    if (l->input.image || l->input.raw || rt->input_memory < 0 ||
        rt->input_tensor < 0 || l->ld->memories[rt->input_memory].n_contents)
        return;
    const struct ld_tensor *t = &l->ld->tensors[rt->input_tensor];
    report_msg(l->base.rep, REPORT_NOTE,
               "%s: the input tensor%s%s%s (%dx%dx%dx%d) holds zeros: the loadable carries no "
               "input data and neither --image nor --input gave any",
               l->ld->name, t->name[0] ? " \"" : "", t->name, t->name[0] ? "\"" : "", t->n, t->c,
               t->h, t->w);
}

static bool do_load(struct ldrv *l, struct dla *d)
{
    char err[512];
    if (l->rt_loaded)
        runtime_free(&l->rt);
    l->rt_loaded = runtime_load_bound(&l->rt, l->ld, d, l->bound, err, sizeof err);
    if (!l->rt_loaded) {
        fail(l, "%s", err);
        return false;
    }
    char warn[512];
    if (!input_tensor_fill(&l->rt, d, &l->input, warn, sizeof warn, err, sizeof err)) {
        fail(l, "%s", err);
        return false;
    }
    if (warn[0])
        report_msg(l->base.rep, REPORT_WARNING, "%s", warn);
    tell_empty_input(l);
    return true;
}

static bool begin_task(struct ldrv *l, struct dla *d, struct drv_action *act)
{
    uint32_t task;
    if (!next_task(l, &task))
        return false;
    l->st.task = task;
    char err[512];
    if (!runtime_reload_dep_graphs(&l->rt, d, err, sizeof err)) {
        fail(l, "%s", err);
        return false;
    }
    const struct ld_task *t = &l->ld->tasks[task];
    if (!apply_events(l, t->pre, t->n_pre, "pre-action"))
        return false;
    task_marker(l, act, true);
    if (t->interface == LD_IF_EMU1) {
        l->st.emu_tasks++;
        l->st.phase = PH_EMU;
    } else {
        l->st.dla_tasks++;
        l->st.phase = PH_DLA_START;
    }
    return true;
}

/* A wait without an event limit for ready(l), and the phase that follows
 * it: the driver's two waits (CBUF flush, DLA interrupt) differ only there. */
static void emit_wait(struct ldrv *l, struct drv_action *act, bool (*ready)(void *, struct dla *),
                      const char *what, enum ldrv_phase then)
{
    act->kind = DRV_WAIT;
    act->wait.ready = ready;
    act->wait.ctx = l;
    act->wait.max_events = -1;
    snprintf(act->wait.what, sizeof act->wait.what, "%s", what);
    l->st.phase = then;
}

static void name_engine_action(struct ldrv *l, const struct eng_action *a, char *buf, size_t len)
{
    snprintf(buf, len, "%.28s: %.64s", l->ld->name, a->where);
}

/* A write of the engine, or the write half of its read-modify-write. */
static void emit_engine_write(struct ldrv *l, const struct eng_action *a, struct drv_action *act)
{
    name_engine_action(l, a, act->where, sizeof act->where);
    if (a->op >= 0)
        act->op =
            (struct drv_op){.known = true, .task = l->st.task, .op = a->op, .type = a->op_type};
    act->kind = DRV_WRITE;
    act->addr = a->addr;
    act->value = a->kind == ENG_ACT_MODIFY ? eng_modified_value(a, l->st.last_read) : a->value;
}

static const char *reg_label(struct dla *d, uint32_t addr, char *buf, size_t len)
{
    const struct regdb_unit *u;
    const struct regdb_reg *r = regdb_reg_at(dla_regmap(d), addr, &u);
    if (r)
        snprintf(buf, len, "%s.%s", u->name, r->name);
    else
        snprintf(buf, len, "0x%05x", addr);
    return buf;
}

/* A read of the engine (or the last read of a poll), done here on the host
 * side of next() so that the session logs it among the writes, in order.
 * Should the hardware have moved since the engine decided from the
 * register (only a poll before it lets time pass), the run says so. */
static void engine_read(struct ldrv *l, struct dla *d, const struct eng_action *a)
{
    name_engine_action(l, a, l->base.host_where, sizeof l->base.host_where);
    l->st.last_read = dla_csb_read(d, a->addr);
    l->base.host_where[0] = 0;
    if (a->kind != ENG_ACT_READ || eng_read_as_decided(a, l->st.last_read))
        return;
    char name[96];
    report_msg(l->base.rep, REPORT_WARNING,
               "%.28s: %.64s: %s reads 0x%08x, but the KMD chose from 0x%08x (bits 0x%08x): "
               "the hardware moved on while an earlier poll waited",
               l->ld->name, a->where, reg_label(d, a->addr, name, sizeof name), l->st.last_read,
               a->check_value, a->check_mask);
}

/* One step of a DLA task: the engine's queued writes (its reads and polls
 * that need no waiting are done on the way), a wait for a poll, the end of
 * the task, or a wait for the next interrupt. */
static void dla_step(struct ldrv *l, struct dla *d, struct drv_action *act)
{
    struct eng_action a;
    while (engine_next_action(l->eng, &a)) {
        if (a.kind == ENG_ACT_READ) {
            engine_read(l, d, &a);
            continue;
        }
        if (a.kind == ENG_ACT_POLL) {
            if (eng_poll_done(&a, dla_csb_peek(d, a.addr))) {
                engine_read(l, d, &a);
                continue;
            }
            l->st.poll = a;
            char name[96];
            name_engine_action(l, &a, act->where, sizeof act->where);
            emit_wait(l, act, poll_ready, reg_label(d, a.addr, name, sizeof name), PH_POLL_WAITED);
            return;
        }
        emit_engine_write(l, &a, act);
        return;
    }
    if (engine_task_done(l->eng)) {
        if (engine_task_failed(l->eng))
            l->st.failed = true;
        l->st.ops_done += engine_ops_done(l->eng);
        end_task(l, act);
        return;
    }
    snprintf(act->where, sizeof act->where, "%.40s: DLA task %u", l->ld->name,
             l->ld->tasks[l->st.task].id);
    emit_wait(l, act, drv_intr_line_ready, "the DLA interrupt", PH_DLA_WAITED);
}

/* --rawdump: the text goes to stdout, and with -o into the file instead of
 * a DIMG, as nvdla_runtime --rawdump writes its output.dimg. */
static bool write_rawdump(struct ldrv *l, struct dla *d, char *msg, size_t len)
{
    uint8_t *buf;
    uint64_t n;
    char *text = NULL;
    size_t text_len = 0;
    bool ok = runtime_read_output(&l->rt, d, &buf, &n, msg, len) &&
              rawdump_text(&l->ld->tensors[l->rt.output_tensor], buf, n, &text, &text_len, msg,
                           len);
    free(buf);
    if (ok)
        report_msg(l->base.rep, REPORT_NOTE, "%s", text);
    if (ok && l->output[0]) {
        struct afile af;
        ok = afile_open(&af, l->output, msg, len);
        if (ok && fwrite(text, 1, text_len, af.fp) != text_len) {
            snprintf(msg, len, "%.400s: write failed", l->output);
            afile_abort(&af);
            ok = false;
        } else if (ok) {
            ok = afile_commit(&af, msg, len);
        }
        l->st.output_written = ok;
    }
    free(text);
    return ok;
}

static void write_output(struct ldrv *l, struct dla *d)
{
    char msg[512];
    bool ok = true;
    if (l->rawdump)
        ok = write_rawdump(l, d, msg, sizeof msg);
    else if (l->output[0])
        ok = l->st.output_written = runtime_write_output(&l->rt, d, l->output, msg, sizeof msg);
    if (!ok)
        fail(l, "%s", msg);
}

static void ldrv_next(struct driver *drv, struct dla *d, const struct drv_result *prev,
                      struct drv_action *act)
{
    struct ldrv *l = (struct ldrv *)drv;
    drv_action_clear(act);
    char msg[512];
    for (;;) {
        switch (l->st.phase) {
        case PH_LOAD:
            l->st.phase = do_load(l, d) ? PH_NEXT_TASK : PH_DONE;
            continue;
        case PH_NEXT_TASK:
            if (begin_task(l, d, act))
                return;
            l->st.phase = PH_OUTPUT;
            continue;
        case PH_EMU:
            if (!emu_run_task(d, &l->rt, l->st.task, msg, sizeof msg))
                fail(l, "%s: EMU task %u: %s", l->ld->name, l->ld->tasks[l->st.task].id, msg);
            else if (msg[0])
                report_msg(l->base.rep, REPORT_NOTE, "%s: EMU task %u: %s", l->ld->name,
                           l->ld->tasks[l->st.task].id, msg);
            end_task(l, act);
            return;
        case PH_DLA_START:
            engine_start(l->eng, d, &l->rt, l->st.task);
            l->st.phase = PH_DLA;
            continue;
        case PH_DLA:
            dla_step(l, d, act);
            return;
        case PH_DLA_WAITED:
            if (prev && !prev->wait_ok)
                engine_abort(l->eng, "the hardware went idle without raising an interrupt");
            else
                engine_interrupt(l->eng, d);
            l->st.phase = PH_DLA;
            continue;
        case PH_POLL_WAITED:
            if (prev && !prev->wait_ok) {
                char name[96], why[160];
                snprintf(why, sizeof why, "the hardware went idle before %s read 0x%x",
                         reg_label(d, l->st.poll.addr, name, sizeof name), l->st.poll.mask);
                engine_abort(l->eng, why);
            } else {
                engine_read(l, d, &l->st.poll);
            }
            l->st.phase = PH_DLA;
            continue;
        case PH_OUTPUT:
            l->st.phase = PH_DONE;
            if (!l->st.failed)
                write_output(l, d);
            continue;
        case PH_DONE:
        default:
            act->kind = DRV_DONE;
            snprintf(act->where, sizeof act->where, "%.40s: done", l->ld->name);
            return;
        }
    }
}

/* ---------------------------------------------------------------- driver ops */

static void ldrv_destroy(struct driver *drv)
{
    struct ldrv *l = (struct ldrv *)drv;
    if (l->rt_loaded)
        runtime_free(&l->rt);
    engine_destroy(l->eng);
    runtime_bound_free(l->bound);
    loadable_free(l->ld);
    region_list_free(&l->regions);
    free(l);
}

static void *ldrv_save(const struct driver *drv)
{
    const struct ldrv *l = (const struct ldrv *)drv;
    struct ldrv_saved *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    s->st = l->st;
    s->eng = engine_clone(l->eng);
    if (!s->eng) {
        free(s);
        return NULL;
    }
    return s;
}

static void ldrv_restore(struct driver *drv, const void *saved)
{
    struct ldrv *l = (struct ldrv *)drv;
    const struct ldrv_saved *s = saved;
    l->st = s->st;
    engine_copy(l->eng, s->eng);
}

static void ldrv_free_saved(void *saved)
{
    struct ldrv_saved *s = saved;
    if (s)
        engine_destroy(s->eng);
    free(s);
}

static size_t ldrv_saved_bytes(const void *saved)
{
    const struct ldrv_saved *s = saved;
    return sizeof *s + engine_bytes(s->eng);
}

/* Tasks the submit list names (every task when there is none). */
static uint32_t tasks_to_run(const struct loadable *ld)
{
    if (ld->n_submits == 0)
        return ld->n_tasks;
    uint32_t n = 0;
    for (uint32_t i = 0; i < ld->n_submits; i++)
        n += ld->submits[i].n_tasks;
    return n;
}

static void ldrv_summary(const struct driver *drv, char *buf, size_t len)
{
    const struct ldrv *l = (const struct ldrv *)drv;
    snprintf(buf, len, "%s: %u of %u tasks run (%u DLA, %u EMU), %u DLA operations%s%s%s",
             l->base.name, l->st.tasks_done, tasks_to_run(l->ld), l->st.dla_tasks, l->st.emu_tasks,
             l->st.ops_done, l->st.failed ? "; failed" : "",
             l->st.output_written ? "; output written to " : "",
             l->st.output_written ? l->output : "");
}

static void ldrv_describe(const struct driver *drv, struct dla *d, FILE *out)
{
    (void)d;
    const struct ldrv *l = (const struct ldrv *)drv;
    char buf[512];
    engine_describe(l->eng, buf, sizeof buf);
    fprintf(out, "  loadable %s: %s\n", l->ld->name, buf);
}

/* The loadable's memories where the runtime places them (before its load
 * too: the placement depends on the file and the configuration alone);
 * false when out of memory, to be tried again at the next ask. */
static bool make_regions(struct ldrv *l, struct dla *d)
{
    const struct loadable *ld = l->ld;
    struct rt_memory *place = calloc(ld->n_memories + 1, sizeof *place);
    if (!place)
        return false;
    runtime_place(ld, dla_cfg(d)->cvsram, place);
    for (uint32_t i = 0; i < ld->n_memories; i++) {
        const struct ld_memory *m = &ld->memories[i];
        if (place[i].placed &&
            !region_list_add(&l->regions, (enum dla_space)place[i].space, place[i].addr, m->size,
                             "memory %u%s", m->id,
                             m->flags & LD_MEM_INPUT    ? ", input"
                             : m->flags & LD_MEM_OUTPUT ? ", output"
                                                        : ""))
            break; /* out of memory: the regions so far */
    }
    region_list_sort(&l->regions);
    free(place);
    return true;
}

static size_t ldrv_regions(struct driver *drv, struct dla *d, const struct drv_region **out)
{
    struct ldrv *l = (struct ldrv *)drv;
    if (!l->regions_made)
        l->regions_made = make_regions(l, d);
    *out = l->regions.r;
    return l->regions.n;
}

static const struct driver_ops ldrv_ops = {
    .kind = "loadable",
    .next = ldrv_next,
    .destroy = ldrv_destroy,
    .save = ldrv_save,
    .restore = ldrv_restore,
    .free_saved = ldrv_free_saved,
    .saved_bytes = ldrv_saved_bytes,
    .summary = ldrv_summary,
    .describe = ldrv_describe,
    .regions = ldrv_regions,
};

bool loadable_driver_parsed(struct driver *drv, struct loadable **ld, struct rt_bound **bound)
{
    if (!drv || drv->ops != &ldrv_ops)
        return false;
    const struct ldrv *l = (const struct ldrv *)drv;
    *ld = l->ld;
    *bound = l->bound;
    return true;
}

/* The driver outlives the command line: keep copies of the paths. */
static void keep_input_opts(struct ldrv *l, const struct input_opts *in)
{
    l->input = *in;
    if (in->image) {
        snprintf(l->image_path, sizeof l->image_path, "%s", in->image);
        l->input.image = l->image_path;
    }
    if (in->raw) {
        snprintf(l->raw_path, sizeof l->raw_path, "%s", in->raw);
        l->input.raw = l->raw_path;
    }
}

struct driver *loadable_driver_open(const char *path, const struct session_opts *opt, struct dla *d,
                                    struct report *rep, char *err, size_t errlen)
{
    return loadable_driver_open_parsed(NULL, path, opt, d, rep, err, errlen);
}

struct driver *loadable_driver_open_parsed(struct loadable *ld, const char *path,
                                           const struct session_opts *opt, struct dla *d,
                                           struct report *rep, char *err, size_t errlen)
{
    struct ldrv *l = calloc(1, sizeof *l);
    if (!l) {
        loadable_free(ld);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    l->ld = ld ? ld : sample_net_load(path, err, errlen);
    l->bound = runtime_bound_create();
    if (!l->ld || !l->bound || !(l->eng = engine_create(d, rep, err, errlen))) {
        if (l->ld && !l->bound)
            snprintf(err, errlen, "out of memory");
        runtime_bound_free(l->bound);
        loadable_free(l->ld);
        free(l);
        return NULL;
    }
    l->base.ops = &ldrv_ops;
    l->base.rep = rep;
    const char *base = strrchr(path, '/');
    snprintf(l->base.name, sizeof l->base.name, "%s", base ? base + 1 : path);
    if (opt)
        keep_input_opts(l, &opt->input);
    /* an input that cannot fill the tensor is refused now, not at the run's start */
    if (!input_tensor_check(l->ld, &l->input, err, errlen)) {
        ldrv_destroy(&l->base);
        return NULL;
    }
    if (opt && opt->output)
        snprintf(l->output, sizeof l->output, "%s", opt->output);
    l->rawdump = opt && opt->rawdump;
    l->st.phase = PH_LOAD;
    return &l->base;
}
