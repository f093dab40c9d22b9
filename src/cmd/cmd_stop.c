/* How a stop is told in hardware terms: which layers and tasks completed
 * during the step, and what the hardware does next ("layer 3 (SDP, group 1)
 * done at cycle 41168; next: layer 5 (PDP, group 1) programming"). */
#include <stdio.h>
#include <string.h>

#include "cmd_priv.h"
#include "format.h"

/* A list of what happened, ", " between the items. */
struct said {
    char *buf;
    size_t len, used;
    unsigned named;
};

static void say(struct said *s, const char *text)
{
    if (s->used + 1 >= s->len)
        return;
    int n = snprintf(s->buf + s->used, s->len - s->used, "%s%s", s->named ? ", " : "", text);
    if (n > 0)
        s->used += (size_t)n < s->len - s->used ? (size_t)n : s->len - s->used - 1;
    s->named++;
}

/* Layers completed since the mark: one is named; several are counted (the
 * session's count: the ring may have dropped records of a long run) and the
 * last is named, so a long "continue" does not fill the console. */
static void layers_done_since(struct dbg *d, const struct cmd_step_mark *mark, struct said *s)
{
    uint64_t done = session_layers_done(d->session) - mark->layers_done;
    const struct trace_rec *last = NULL;
    struct trace_rec rec;
    for (size_t i = trace_ring_count(d->ring); i-- > 0 && !last;) {
        trace_ring_get(d->ring, i, &rec);
        if (rec.seq < mark->seq)
            break;
        if (rec.kind == DLA_EV_LAYER_DONE)
            last = &rec;
    }
    if (!last || !done)
        return;
    char what[96], text[200];
    format_layer_event(last->layer, (enum dla_proc)last->a, last->b, "done", what, sizeof what);
    if (done == 1)
        snprintf(text, sizeof text, "%s at cycle %llu", what, (unsigned long long)last->cycle);
    else
        snprintf(text, sizeof text, "%llu layers done, the last: %s at cycle %llu",
                 (unsigned long long)done, what, (unsigned long long)last->cycle);
    say(s, text);
}

/* Tasks the driver finished since it had finished tasks_before: tasks run
 * one at a time, so the finished ones are the first tasks_done of the list. */
static void tasks_done_since(struct dbg *d, uint64_t tasks_before, struct said *s)
{
    uint64_t now = session_tasks_done(d->session);
    for (uint64_t i = tasks_before; i < now && i < session_task_count(d->session); i++) {
        const struct session_task *t = session_task_get(d->session, (size_t)i);
        char text[96];
        snprintf(text, sizeof text, "%s done at cycle %llu", t->name,
                 (unsigned long long)t->end_cycle);
        say(s, text);
    }
}

/* The last layer state change of the step when no layer completed. */
static bool last_layer_change(struct dbg *d, uint64_t seq, char *buf, size_t len)
{
    for (size_t i = trace_ring_count(d->ring); i-- > 0;) {
        struct trace_rec rec;
        const struct trace_rec *r = &rec;
        trace_ring_get(d->ring, i, &rec);
        if (r->seq < seq)
            return false;
        const char *verb = r->kind == DLA_EV_LAYER_PROGRAM  ? "programming"
                           : r->kind == DLA_EV_LAYER_ENABLE ? "enabled"
                           : r->kind == DLA_EV_LAYER_START  ? "running"
                                                            : NULL;
        if (!verb)
            continue;
        char what[96];
        format_layer_event(r->layer, (enum dla_proc)r->a, r->b, verb, what, sizeof what);
        snprintf(buf, len, "%s at cycle %llu", what, (unsigned long long)r->cycle);
        return true;
    }
    return false;
}

/* The layer a pending register write belongs to: the layer being programmed
 * on the write's group, or the new one it starts. */
static bool write_layer(struct dla *dla, uint32_t addr, uint32_t value, char *buf, size_t len)
{
    const struct regdb_unit *ru;
    const struct regdb_reg *reg = regdb_reg_at(dla_regmap(dla), addr, &ru);
    if (!reg || !reg->dual)
        return false;
    enum dla_unit u = dla_unit_of(dla, ru);
    enum dla_proc p = dla_unit_proc(u);
    int g = dla_producer_group(dla, u);
    if (p >= DLA_P_COUNT || g < 0)
        return false;
    const struct dla_layer *l = dla_layer_current(dla, p, g);
    int index = l && l->state != DLA_LAYER_DONE ? (int)l->index : (int)dla_layer_count(dla);
    bool enable = reg->offset == ru->op_enable && (value & 1u);
    format_layer_event(index, p, (unsigned)g, enable ? "enabled" : "programming", buf, len);
    return true;
}

/* A step of one register write that changed no layer's state: the layer
 * the write went on programming. */
static bool last_write_layer(struct dbg *d, char *buf, size_t len)
{
    struct drv_action act;
    return session_last_action(d->session, &act) && act.kind == DRV_WRITE &&
           write_layer(session_dla(d->session), act.addr, act.value, buf, len);
}

/* Layers in state (running, or enabled and waiting for their pipeline), "" when none. */
static void layers_in(struct dla *dla, enum dla_layer_state state, char *buf, size_t len)
{
    struct said s = {buf, len, 0, 0};
    buf[0] = 0;
    for (size_t i = 0; i < dla_layer_count(dla); i++) {
        const struct dla_layer *l = dla_layer_get(dla, i);
        if (l->state != state)
            continue;
        char what[96];
        format_layer_event((int)l->index, (enum dla_proc)l->proc, l->group,
                           dla_layer_state_name(state), what, sizeof what);
        say(&s, what);
    }
}

/* What the hardware is busy with while the driver waits: the layers running;
 * else those enabled and waiting for the rest of their pipeline and the
 * oldest layer still being programmed (the one the driver enables next). */
static void hw_activity(struct dla *dla, char *buf, size_t len)
{
    layers_in(dla, DLA_LAYER_RUNNING, buf, len);
    if (buf[0])
        return;
    layers_in(dla, DLA_LAYER_ENABLED, buf, len);
    size_t n = strlen(buf);
    if (n)
        n += (size_t)snprintf(buf + n, len - n, ", waiting for the rest of the pipeline");
    for (size_t i = 0; i < dla_layer_count(dla) && n < len; i++) {
        const struct dla_layer *l = dla_layer_get(dla, i);
        if (l->state == DLA_LAYER_PROGRAMMING) {
            char what[96];
            format_layer_event((int)l->index, (enum dla_proc)l->proc, l->group, "programming", what,
                               sizeof what);
            snprintf(buf + n, len - n, "%s%s", n ? "; " : "", what);
            return;
        }
    }
}

void cmd_hw_next(struct dbg *d, char *buf, size_t len)
{
    struct dla *dla = session_dla(d->session);
    struct drv_action act;
    if (!session_pending(d->session, &act)) {
        snprintf(buf, len, "the run has finished");
        return;
    }
    char running[256], name[96];
    switch (act.kind) {
    case DRV_WRITE:
        if (write_layer(dla, act.addr, act.value, buf, len))
            return;
        /* a write of no layer (a pointer, an interrupt clear): say what the
         * hardware is doing meanwhile, as for a wait */
        format_reg_name(dla_regmap(dla), act.addr, name, sizeof name);
        hw_activity(dla, running, sizeof running);
        snprintf(buf, len, "write %s = 0x%08x%s%s%s", name, act.value, running[0] ? " (" : "",
                 running, running[0] ? ")" : "");
        return;
    case DRV_WAIT:
        hw_activity(dla, running, sizeof running);
        /* ready() only peeks: asking changes nothing */
        snprintf(buf, len, "%s%sthe driver %s %s%s", running, running[0] ? " (" : "",
                 act.wait.ready && act.wait.ready(act.wait.ctx, dla) ? "takes" : "waits for",
                 act.wait.what, running[0] ? ")" : "");
        return;
    case DRV_TASK:
        snprintf(buf, len, "%s %s", act.task.name, act.task.begin ? "begins" : "ends");
        return;
    default:
        snprintf(buf, len, "the end of the run");
        return;
    }
}

void cmd_hw_stop_line(struct dbg *d, const struct cmd_step_mark *mark, char *buf, size_t len)
{
    char happened[512] = "", next[300];
    struct said s = {happened, sizeof happened, 0, 0};
    tasks_done_since(d, mark->tasks_done, &s);
    layers_done_since(d, mark, &s);
    if (!s.named && !last_layer_change(d, mark->seq, happened, sizeof happened) &&
        !last_write_layer(d, happened, sizeof happened))
        snprintf(happened, sizeof happened, "no layer changed state");
    cmd_hw_next(d, next, sizeof next);
    snprintf(buf, len, "%s; next: %s", happened, next);
}

void cmd_step_mark(struct dbg *d, struct cmd_step_mark *mark)
{
    mark->seq = trace_ring_next_seq(d->ring);
    mark->tasks_done = d->session ? session_tasks_done(d->session) : 0;
    mark->layers_done = d->session ? session_layers_done(d->session) : 0;
}
