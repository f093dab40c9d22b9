/* Pane 1: the hardware layers the model has seen (state, unit, group, what
 * feeds it, cycles, description) with breakpoint marks and the layer in
 * progress, or the tasks of a loadable (t toggles).  The selected layer is
 * the one the other panes show.  o sorts the layers by cycles, most first,
 * as htop sorts processes: rows are positions in that order, the selection
 * (ui->layer) a layer index, so it stays on its layer when the order changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "debug/breakpoints.h"
#include "debug/perf_rank.h"
#include "cmd/format.h"
#include "loadable/loadable_plan.h"
#include "ui.h"

struct layers_pane {
    bool tasks;     /* show tasks instead of layers */
    bool by_cycles; /* layers ranked by cycles (o), else in index order */
    /* the layers in display order, rebuilt at each draw and key: cycles change as the run goes */
    struct perf_rank_item *order;
    size_t order_cap;
};

static enum theme_role state_role(uint8_t state)
{
    switch (state) {
    case DLA_LAYER_PROGRAMMING:
        return TH_STATE_PROG;
    case DLA_LAYER_ENABLED:
        return TH_STATE_PEND;
    case DLA_LAYER_RUNNING:
        return TH_STATE_RUN;
    default:
        return TH_STATE_DONE;
    }
}

char layers_break_mark(struct ui *ui, long layer, int *bp_number)
{
    struct dla *d = ui_dla(ui);
    if (!d || layer < 0 || (size_t)layer >= dla_layer_count(d))
        return 0;
    const struct dla_layer *l = dla_layer_get(d, (size_t)layer);
    char mark = 0;
    for (size_t i = 0; i < bps_count(ui->g->bps); i++) {
        const struct breakpoint *b = bps_get(ui->g->bps, i);
        if (b->kind == BP_LAYER && b->layer == (uint32_t)layer) {
            if (bp_number)
                *bp_number = b->number;
            return b->enabled ? 'B' : 'b';
        }
        if (b->kind == BP_UNIT && b->proc == l->proc && b->enabled)
            mark = 'u';
    }
    return mark;
}

/* A count in at most 7 characters: exact below ten million, else 12.3M / 4.56G. */
static void short_count(unsigned long long n, char *buf, size_t len)
{
    if (n < 10000000ULL)
        snprintf(buf, len, "%llu", n);
    else if (n < 10000000000ULL)
        snprintf(buf, len, "%.1fM", (double)n / 1e6);
    else
        snprintf(buf, len, "%.2fG", (double)n / 1e9);
}

/* lp->order: every layer, in index order or ranked by cycles (layers not
 * launched yet have none and follow in index order); false when out of
 * memory, when the pane falls back to index order. */
static bool rebuild_order(struct layers_pane *lp, struct dla *d)
{
    size_t n = dla_layer_count(d);
    if (n > lp->order_cap) {
        struct perf_rank_item *more = realloc(lp->order, n * sizeof *more);
        if (!more)
            return false;
        lp->order = more;
        lp->order_cap = n;
    }
    for (size_t i = 0; i < n; i++)
        lp->order[i] =
            (struct perf_rank_item){perf_layer_cycles(dla_layer_get(d, i), dla_now(d)), i};
    if (lp->by_cycles)
        perf_rank_by_cycles(lp->order, n);
    return true;
}

/* The layer shown at row position pos. */
static long layer_at(const struct layers_pane *lp, bool ordered, int pos)
{
    return ordered ? (long)lp->order[pos].index : pos;
}

/* The row position of layer `layer`. */
static int position_of(const struct layers_pane *lp, bool ordered, long layer, int n)
{
    for (int pos = 0; ordered && pos < n; pos++)
        if ((long)lp->order[pos].index == layer)
            return pos;
    return (int)layer;
}

/* Width of the state column: "never enabled" only widens it when shown. */
static int state_width(struct dla *d, bool over)
{
    for (size_t i = 0; over && i < dla_layer_count(d); i++)
        if (format_layer_never_enabled(dla_layer_get(d, i), over))
            return 13;
    return 11; /* "programming" */
}

/* With a reference loaded: how layer i's output agrees with its blob, as
 * "ok .9993" or "DIFF .412" (the cosine similarity), "-" when it has none. */
bool layers_show_reference(struct ui *ui)
{
    return ui->g && ui->g->cmp && compare_reference(ui->g->cmp);
}

static enum theme_role agreement(struct ui *ui, long i, char *buf, size_t len)
{
    const struct compare_result *r = compare_of_layer(ui->g->cmp, (uint32_t)i);
    if (!r || !r->compared) {
        snprintf(buf, len, "-");
        return TH_DIM;
    }
    char cos[16];
    snprintf(cos, sizeof cos, "%.4f", r->m.cosine);
    /* "0.9993" -> ".9993": the column stays narrow */
    const char *c = cos[0] == '0' ? cos + 1 : cos;
    snprintf(buf, len, "%s %s", r->m.departed ? "DIFF" : "ok", c);
    return r->m.departed ? TH_OUT_ERROR : TH_STATE_DONE;
}

static void draw_layer_row(struct pane *p, struct ui *ui, int row, long i, bool focused, int sw)
{
    struct dla *d = ui_dla(ui);
    const struct dla_layer *l = dla_layer_get(d, (size_t)i);
    bool selected = i == ui->layer;
    attr_t base = selected ? theme(focused ? TH_CURSOR : TH_CURSOR_IDLE) : theme(TH_NORMAL);
    pane_fill(p, row, 0, base);
    char mark = layers_break_mark(ui, i, NULL);
    bool current = i == ui_current_layer(ui) && !session_finished(ui->g->session);
    int x = 0;
    x += pane_print(p, row, x, selected ? base : theme(TH_BREAK), "%s",
                    mark == 'B'   ? theme_glyph(GL_MARK)
                    : mark == 'b' ? "o"
                    : mark == 'u' ? "u"
                                  : " ");
    x += pane_print(p, row, x, selected ? base : theme(TH_CURRENT), "%s",
                    current ? theme_glyph(GL_ARROW) : " ");
    char deps[16] = "-";
    if (l->fed_by >= 0)
        snprintf(deps, sizeof deps, "<%d", l->fed_by);
    char cycles[24] = "-";
    if (l->state >= DLA_LAYER_RUNNING)
        short_count(perf_layer_cycles(l, dla_now(d)), cycles, sizeof cycles);
    x += pane_print(p, row, x, base, "%3ld ", i);
    bool over = session_finished(ui->g->session);
    x += pane_print(p, row, x, selected ? base : theme(state_role(l->state)), "%-*s ", sw,
                    format_layer_state(l, over));
    char group[4] = "-";
    if (l->group <= 1)
        snprintf(group, sizeof group, "%u", l->group);
    /* the loadable's operation and its tensors' names come first: the
     * network's own names for the layer, where the loadable has them */
    char op[128];
    dbg_layer_op_text(ui->g, (size_t)i, true, op, sizeof op);
    x += pane_print(p, row, x, base, "%-5s %1s %-4s %7s  ", dla_proc_name((enum dla_proc)l->proc),
                    group, deps, cycles);
    if (layers_show_reference(ui)) {
        char agree[24];
        enum theme_role role = agreement(ui, i, agree, sizeof agree);
        x += pane_print(p, row, x, selected ? base : theme(role), "%-10s ", agree);
    }
    pane_print(p, row, x, base, "%s%s%s", op, op[0] ? "  " : "", l->desc);
}

/* A loadable's tasks in submit order, before they run too (the plan). */
static void draw_tasks(struct pane *p, struct ui *ui)
{
    struct session *s = ui->g->session;
    const struct loadable_plan *plan = dbg_plan(ui->g);
    size_t n = plan ? plan->n_tasks : 0;
    /* narrow: the tensors' names matter more than the cycles ("info tasks" has both) */
    pane_print(p, 0, 0, theme(TH_HEADER), "%-4s %-3s %-7s %3s %7s  %s", "task", "cpu", "state",
               "ops", "begin", "tensors (Enter: show)");
    if (n == 0) {
        pane_print(p, 1, 1, theme(TH_DIM), "no tasks (only loadables have tasks; t: layers)");
        return;
    }
    int visible = pane_rows(p) - 1;
    pane_list_clamp(p, (int)n, visible);
    for (int r = 0; r < visible && p->top + r < (int)n; r++) {
        const struct plan_task *t = &plan->tasks[p->top + r];
        const struct session_task *rec = session_task_of(s, (int)t->index);
        attr_t a = p->top + r == p->cursor ? theme(TH_CURSOR) : theme(TH_NORMAL);
        pane_fill(p, r + 1, 0, a);
        char begin[24] = "-", ops[12] = "-";
        if (rec)
            snprintf(begin, sizeof begin, "%llu", (unsigned long long)rec->begin_cycle);
        if (!t->emu)
            snprintf(ops, sizeof ops, "%zu", t->n_ops);
        pane_print(p, r + 1, 0, a, "%-4u %-3s %-7s %3s %7s  %s", t->index, t->emu ? "EMU" : "DLA",
                   !rec        ? "to come"
                   : rec->done ? "done"
                               : "running",
                   ops, begin, t->tensors);
    }
}

/* Enter on a task: its tensors' contents in the console ("tensor NAME"). */
static bool show_task_tensors(struct pane *p, struct ui *ui)
{
    const struct loadable_plan *plan = dbg_plan(ui->g);
    if (!plan || p->cursor < 0 || (size_t)p->cursor >= plan->n_tasks)
        return false;
    char names[sizeof plan->tasks[0].tensors];
    snprintf(names, sizeof names, "%s", plan->tasks[p->cursor].tensors);
    for (char *save = NULL, *name = strtok_r(names, " ", &save); name;
         name = strtok_r(NULL, " ", &save)) {
        char cmd[96];
        snprintf(cmd, sizeof cmd, "tensor %s", name);
        if (!ui_exec_key(ui, cmd))
            break;
    }
    return true;
}

static void draw(struct pane *p, struct ui *ui)
{
    struct layers_pane *lp = p->priv;
    struct dla *d = ui_dla(ui);
    if (!d) {
        pane_print(p, 0, 1, theme(TH_DIM), "no file open");
        return;
    }
    if (lp->tasks) {
        draw_tasks(p, ui);
        return;
    }
    int sw = state_width(d, session_finished(ui->g->session));
    pane_print(p, 0, 0, theme(TH_HEADER), "    #  %-*s %-5s g %-4s %7s  %s%s", sw, "state", "unit",
               "from", "cycles", layers_show_reference(ui) ? "reference  " : "", "operation");
    int n = (int)dla_layer_count(d);
    if (n == 0) {
        pane_print(p, 1, 1, theme(TH_DIM), "no hardware layer yet.");
        pane_print(p, 2, 1, theme(TH_DIM), "c continues, n steps a layer, s a register write;");
        pane_print(p, 3, 1, theme(TH_DIM), "? lists every key.");
        return;
    }
    int visible = pane_rows(p) - 1;
    bool ordered = rebuild_order(lp, d);
    if (ui->layer >= 0 && ui->layer < n)
        p->cursor = position_of(lp, ordered, ui->layer, n);
    pane_list_clamp(p, n, visible);
    bool focused = ui->focus == PANE_LAYERS;
    for (int r = 0; r < visible && p->top + r < n; r++)
        draw_layer_row(p, ui, r + 1, layer_at(lp, ordered, p->top + r), focused, sw);
}

static bool key(struct pane *p, struct ui *ui, int k)
{
    struct layers_pane *lp = p->priv;
    struct dla *d = ui_dla(ui);
    if (!d)
        return false;
    if (k == 't') {
        lp->tasks = !lp->tasks;
        p->top = p->cursor = 0;
        if (!lp->tasks && ui->layer >= 0)
            p->cursor = (int)ui->layer;
        return true;
    }
    if (lp->tasks) {
        if (k == '\n' || k == KEY_ENTER)
            return show_task_tensors(p, ui);
        const struct loadable_plan *plan = dbg_plan(ui->g);
        return pane_list_key(p, k, plan ? (int)plan->n_tasks : 0, pane_rows(p) - 1);
    }
    int n = (int)dla_layer_count(d);
    if (n == 0)
        return false;
    if (k == '\n' || k == KEY_ENTER) {
        ui_focus(ui, PANE_REGS);
        return true;
    }
    if (k == '.') { /* back to the layer in progress */
        ui_select_layer(ui, ui_current_layer(ui));
        return true;
    }
    if (k == 'o') { /* the selection stays on its layer: draw finds its new row */
        lp->by_cycles = !lp->by_cycles;
        return true;
    }
    bool ordered = rebuild_order(lp, d);
    if (ui->layer >= 0 && ui->layer < n)
        p->cursor = position_of(lp, ordered, ui->layer, n);
    if (!pane_list_key(p, k, n, pane_rows(p) - 1))
        return false;
    ui_select_layer(ui, layer_at(lp, ordered, p->cursor));
    return true;
}

static bool mouse(struct pane *p, struct ui *ui, int row, int col, mmask_t bstate)
{
    (void)col;
    struct layers_pane *lp = p->priv;
    struct dla *d = ui_dla(ui);
    if (!d || lp->tasks)
        return false;
    int n = (int)dla_layer_count(d);
    int wheel = pane_wheel_key(bstate, KEY_UP, KEY_DOWN);
    if (wheel)
        return key(p, ui, wheel);
    int pos = p->top + row - 1; /* row 0 is the heading */
    if (row < 1 || pos >= n)
        return false;
    ui_select_layer(ui, layer_at(lp, rebuild_order(lp, d), pos));
    return true;
}

static void title(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    struct layers_pane *lp = p->priv;
    struct dla *d = ui_dla(ui);
    if (lp->tasks) {
        const struct loadable_plan *plan = dbg_plan(ui->g);
        snprintf(buf, len, "Tasks (%zu)", plan ? plan->n_tasks : 0);
        return;
    }
    if (!d) {
        snprintf(buf, len, "Layers (0)");
        return;
    }
    /* layers never enabled (registers poked after the end) are no layers of the run */
    bool over = session_finished(ui->g->session);
    size_t run = format_layers_of_run(d, over), all = dla_layer_count(d);
    const char *order = lp->by_cycles ? ", by cycles" : "";
    if (run == all)
        snprintf(buf, len, "Layers (%zu%s)", run, order);
    else
        snprintf(buf, len, "Layers (%zu, %zu never enabled%s)", run, all - run, order);
}

static void destroy(struct pane *p)
{
    struct layers_pane *lp = p->priv;
    if (lp)
        free(lp->order);
    pane_free_priv(p);
}

/* The key bar's share of keys_help while the pane has the focus. */
static const struct pane_key bar_keys[] = {
    {"o", "Order"},
    {"t", "Tasks"},
    {".", "Now"},
    {NULL, NULL},
};

static const struct pane_ops ops = {
    .name = "layers",
    .keys_help = "Enter\tshow the registers of the selected layer's unit\n"
                 "\t(tasks: the selected task's tensors in the console)\n"
                 ".\tselect the layer in progress\n"
                 "t\tlayers / tasks of a loadable (all of them, before they run)\n"
                 "o\torder: by index / by cycles, most first (the title says which)\n"
                 "marks\t"
                 "{mark}: breakpoint, o: disabled breakpoint, u: unit breakpoint, {arrow}: in\n"
                 "\tprogress\n"
                 "reference\twith compare DIR: ok or DIFF and the cosine similarity\n"
                 "\tof the layer's output to its blob (8: side by side)",
    .bar_keys = bar_keys,
    .draw = draw,
    .key = key,
    .mouse = mouse,
    .title = title,
    .selected = pane_selected_layer,
    .destroy = destroy,
};

struct pane *pane_layers_create(void)
{
    return pane_alloc(&ops, sizeof(struct layers_pane));
}
