/* Pane 7: the trace visualizer.  One lane per processor over model cycles;
 * each hardware layer is a bar from launch to completion (its programming
 * phase dotted before it), labelled with its index and coloured like its
 * CBUF banks; "now" is a vertical line.  Zoom and scroll freely, or fit the
 * whole run (the default until the user zooms). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/format.h"
#include "ui.h"

#define LABEL_W 6

struct timeline_pane {
    bool fit;   /* follow the whole run */
    double cpc; /* cycles per column */
    double t0;  /* cycle at the left edge */
};

static int lane_width(struct pane *p)
{
    int w = pane_cols(p) - LABEL_W;
    return w > 1 ? w : 1;
}

static uint64_t run_end(struct dla *d)
{
    uint64_t end = dla_now(d);
    for (size_t i = 0; i < dla_layer_count(d); i++) {
        const struct dla_layer *l = dla_layer_get(d, i);
        if (l->state == DLA_LAYER_DONE && l->end_cycle > end)
            end = l->end_cycle;
    }
    return end;
}

static void fit(struct pane *p, struct dla *d)
{
    struct timeline_pane *tp = p->priv;
    uint64_t end = run_end(d);
    tp->t0 = 0;
    tp->cpc = end > 0 ? (double)end / (lane_width(p) - 1) : 1.0;
    if (tp->cpc < 0.125)
        tp->cpc = 0.125;
}

static bool proc_present(struct dla *d, int proc)
{
    const struct dla_config *c = dla_cfg(d);
    return !(proc == DLA_P_BDMA && !c->bdma) && !(proc == DLA_P_RUBIK && !c->rubik);
}

static bool proc_used(struct dla *d, int proc)
{
    for (size_t i = 0; i < dla_layer_count(d); i++)
        if (dla_layer_get(d, i)->proc == proc)
            return true;
    return false;
}

/* Lanes to draw: every present processor, or only those with layers when short of rows. */
static int lanes(struct pane *p, struct dla *d, int out[DLA_P_COUNT])
{
    int n = 0, room = pane_rows(p) - 1;
    for (int i = 0; i < DLA_P_COUNT; i++)
        if (proc_present(d, i))
            out[n++] = i;
    if (n <= room)
        return n;
    n = 0;
    for (int i = 0; i < DLA_P_COUNT && n < room; i++)
        if (proc_present(d, i) && proc_used(d, i))
            out[n++] = i;
    return n;
}

static long column_of(const struct timeline_pane *tp, uint64_t cycle)
{
    return (long)floor(((double)cycle - tp->t0) / tp->cpc);
}

/* The programming phase: from the first register write to the launch (or now). */
static void draw_programming(struct pane *p, struct ui *ui, int row, const struct dla_layer *l,
                             int width)
{
    struct timeline_pane *tp = p->priv;
    uint64_t until = l->state >= DLA_LAYER_RUNNING ? l->start_cycle : dla_now(ui_dla(ui));
    long xp = column_of(tp, l->program_cycle), x0 = column_of(tp, until);
    if (x0 <= xp)
        x0 = xp + 1;
    for (long x = xp > 0 ? xp : 0; x < x0 && x < width; x++)
        pane_print(p, row, LABEL_W + (int)x, theme(TH_DIM), "%s", theme_glyph(GL_DOT));
}

static void draw_bar(struct pane *p, struct ui *ui, int row, const struct dla_layer *l, int width)
{
    struct timeline_pane *tp = p->priv;
    struct dla *d = ui_dla(ui);
    if (l->state < DLA_LAYER_RUNNING)
        return;
    uint64_t end = l->state == DLA_LAYER_DONE ? l->end_cycle : dla_now(d);
    long x0 = column_of(tp, l->start_cycle);
    long x1 = column_of(tp, end);
    if (x1 <= x0)
        x1 = x0 + 1; /* at least one cell, however short */
    bool selected = (long)l->index == ui->layer;
    attr_t a = selected ? theme(TH_CURSOR) : theme_layer(l->index);
    char label[24];
    int ln = snprintf(label, sizeof label, "%u", l->index);
    long span = x1 - x0;
    for (long x = x0 > 0 ? x0 : 0; x < x1 && x < width; x++) {
        /* the index in the middle of the bar when it fits, else fill */
        long k = x - x0 - (span - ln) / 2;
        char cell[8];
        if (span >= ln && k >= 0 && k < ln)
            snprintf(cell, sizeof cell, "%c", label[k]);
        else if (!theme_has_colour())
            snprintf(cell, sizeof cell, "%c", x == x0 ? '[' : x == x1 - 1 ? ']' : '=');
        else
            snprintf(cell, sizeof cell, " ");
        pane_print(p, row, LABEL_W + (int)x, a, "%s", cell);
    }
}

/* A tick's cycle: in the largest of k, M and G that the step is a multiple
 * of (200k, 1500k, 2M), else whole (770450 when ticks are 5 apart), so that
 * every tick reads as the round number it is. */
static void tick_label(double cycle, double step, char *buf, size_t len)
{
    static const char unit[] = {0, 'k', 'M', 'G'};
    int u = 0;
    double scale = 1;
    while (u < 3 && step >= scale * 1e3) {
        scale *= 1e3;
        u++;
    }
    if (u && cycle > 0)
        snprintf(buf, len, "|%.0f%c", cycle / scale, unit[u]);
    else
        snprintf(buf, len, "|%.0f", cycle);
}

/* Cycles between ticks: 1, 2 or 5 times a power of ten, the smallest that
 * leaves min_cols columns from one tick to the next (ticks at round cycles
 * read at a glance; 0, 70624, 141248 did not). */
static double tick_step(double cpc, int min_cols)
{
    double want = cpc * min_cols, step = 1;
    while (step < want) {
        if (step * 2 >= want)
            return step * 2;
        if (step * 5 >= want)
            return step * 5;
        step *= 10;
    }
    return step;
}

static void draw_axis(struct pane *p, int row, int width)
{
    struct timeline_pane *tp = p->priv;
    pane_print(p, row, 0, theme(TH_HEADER), "cycle");
    /* room for the widest label a step could give, and two blanks */
    char widest[40];
    tick_label(tp->t0 + width * tp->cpc, 1, widest, sizeof widest);
    double step = tick_step(tp->cpc, (int)strlen(widest) + 2);
    double first = ceil((tp->t0 > 0 ? tp->t0 : 0) / step) * step;
    /* counted, not c += step: far from zero a small step could add nothing */
    for (int k = 0; k < width; k++) {
        double c = first + k * step;
        long x = (long)floor((c - tp->t0) / tp->cpc + 1e-9);
        char tick[40];
        tick_label(c, step, tick, sizeof tick);
        if (x < 0 || x + (long)strlen(tick) > width)
            break;
        pane_print(p, row, LABEL_W + (int)x, theme(TH_DIM), "%s", tick);
    }
}

static void draw(struct pane *p, struct ui *ui)
{
    struct timeline_pane *tp = p->priv;
    struct dla *d = ui_dla(ui);
    if (!d) {
        pane_print(p, 0, 1, theme(TH_DIM), "no file open");
        return;
    }
    if (tp->fit)
        fit(p, d);
    int lane[DLA_P_COUNT];
    int n = lanes(p, d, lane), width = lane_width(p);
    long now_x = column_of(tp, dla_now(d));
    for (int r = 0; r < n; r++) {
        pane_print(p, r, 0, theme(TH_HEADER), "%-*s", LABEL_W,
                   dla_proc_name((enum dla_proc)lane[r]));
        if (now_x >= 0 && now_x < width)
            pane_print(p, r, LABEL_W + (int)now_x, theme(TH_CURRENT), "%s", theme_glyph(GL_VLINE));
        /* dots first: a layer programmed while another runs must not hide it */
        for (size_t i = 0; i < dla_layer_count(d); i++)
            if (dla_layer_get(d, i)->proc == lane[r])
                draw_programming(p, ui, r, dla_layer_get(d, i), width);
        for (size_t i = 0; i < dla_layer_count(d); i++)
            if (dla_layer_get(d, i)->proc == lane[r])
                draw_bar(p, ui, r, dla_layer_get(d, i), width);
    }
    draw_axis(p, n, width);
}

/* Scroll so the selected layer is in view. */
static void show_selected(struct pane *p, struct ui *ui)
{
    struct timeline_pane *tp = p->priv;
    struct dla *d = ui_dla(ui);
    if (ui->layer < 0 || (size_t)ui->layer >= dla_layer_count(d))
        return;
    const struct dla_layer *l = dla_layer_get(d, (size_t)ui->layer);
    uint64_t at = l->state >= DLA_LAYER_RUNNING ? l->start_cycle : l->program_cycle;
    long x = column_of(tp, at), width = lane_width(p);
    if (x < 0 || x >= width) {
        tp->t0 = (double)at - tp->cpc * (double)width / 4;
        if (tp->t0 < 0)
            tp->t0 = 0;
    }
}

static void zoom(struct pane *p, struct ui *ui, double factor)
{
    struct timeline_pane *tp = p->priv;
    struct dla *d = ui_dla(ui);
    /* keep the selected layer (else the middle) where it is on screen */
    double anchor = tp->t0 + tp->cpc * lane_width(p) / 2;
    if (ui->layer >= 0 && (size_t)ui->layer < dla_layer_count(d))
        anchor = (double)dla_layer_get(d, (size_t)ui->layer)->start_cycle;
    double col = (anchor - tp->t0) / tp->cpc;
    tp->cpc *= factor;
    if (tp->cpc < 0.125)
        tp->cpc = 0.125;
    tp->t0 = anchor - col * tp->cpc;
    if (tp->t0 < 0)
        tp->t0 = 0;
    tp->fit = false;
}

static bool key(struct pane *p, struct ui *ui, int k)
{
    struct timeline_pane *tp = p->priv;
    struct dla *d = ui_dla(ui);
    if (!d)
        return false;
    double quarter = tp->cpc * lane_width(p) / 4;
    switch (k) {
    case '+':
    case '=':
        zoom(p, ui, 0.5);
        return true;
    case '-':
    case '_':
        zoom(p, ui, 2.0);
        return true;
    case 'z':
    case '0':
        tp->fit = true;
        return true;
    case KEY_LEFT:
    case 'h':
        tp->t0 = tp->t0 > quarter ? tp->t0 - quarter : 0;
        tp->fit = false;
        return true;
    case KEY_RIGHT:
    case 'l':
        tp->t0 += quarter;
        tp->fit = false;
        return true;
    case KEY_HOME:
        tp->t0 = 0;
        tp->fit = false;
        return true;
    case KEY_END:
        tp->t0 = (double)run_end(d) - 3 * quarter;
        if (tp->t0 < 0)
            tp->t0 = 0;
        tp->fit = false;
        return true;
    case KEY_UP:
    case 'k':
    case KEY_DOWN:
    case 'j': {
        long n = (long)dla_layer_count(d);
        if (!n)
            return true;
        long i = ui->layer + (k == KEY_UP || k == 'k' ? -1 : 1);
        ui_select_layer(ui, i < 0 ? 0 : i >= n ? n - 1 : i);
        show_selected(p, ui);
        return true;
    }
    default:
        return false;
    }
}

static bool mouse(struct pane *p, struct ui *ui, int row, int col, mmask_t bstate)
{
    struct timeline_pane *tp = p->priv;
    struct dla *d = ui_dla(ui);
    if (!d)
        return false;
    int wheel = pane_wheel_key(bstate, '+', '-');
    if (wheel)
        return key(p, ui, wheel);
    int lane[DLA_P_COUNT];
    int n = lanes(p, d, lane);
    if (row < 0 || row >= n || col < LABEL_W)
        return false;
    double cycle = tp->t0 + (col - LABEL_W) * tp->cpc;
    for (size_t i = 0; i < dla_layer_count(d); i++) {
        const struct dla_layer *l = dla_layer_get(d, i);
        if (l->proc != lane[row] || l->state < DLA_LAYER_RUNNING)
            continue;
        double end = (double)(l->state == DLA_LAYER_DONE ? l->end_cycle : dla_now(d));
        /* a bar is at least one column wide */
        if (cycle + tp->cpc > (double)l->start_cycle && cycle <= end) {
            ui_select_layer(ui, (long)i);
            return true;
        }
    }
    return false;
}

static void title(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    struct timeline_pane *tp = p->priv;
    if (!ui_dla(ui)) { /* no file open (yet) */
        snprintf(buf, len, "Timeline");
        return;
    }
    char basis[128];
    format_timing_basis(dla_cfg(ui_dla(ui)), basis, sizeof basis);
    /* singular by the figure as printed: 1.0004 shows as "1 cycle" too */
    char per[32];
    if (tp->cpc < 100)
        snprintf(per, sizeof per, "%.3g", tp->cpc);
    else if (tp->cpc < 1e5)
        snprintf(per, sizeof per, "%.0f", tp->cpc); /* 5886, not 5.89e+03 */
    else
        snprintf(per, sizeof per, "%.3gk", tp->cpc / 1e3);
    snprintf(buf, len, "Timeline %s%s cycle%s/column; cycles: %s", tp->fit ? "(whole run) " : "",
             per, strcmp(per, "1") ? "s" : "", basis);
}

/* The key bar's share of keys_help while the pane has the focus. */
static const struct pane_key bar_keys[] = {
    {"+/-", "Zoom"},
    {"z", "Fit"},
    {NULL, NULL},
};

static const struct pane_ops ops = {
    .name = "timeline",
    .keys_help = "+ -\tzoom in / out (the wheel too)\n"
                 "h l Left Right\tscroll by a quarter\n"
                 "Home End\tstart / end of the run\n"
                 "z 0\tfit the whole run\n"
                 "j k Up Down\tselect the previous / next layer\n"
                 "bars\tlaunch..completion, labelled with the layer; dots: programming",
    .bar_keys = bar_keys,
    .draw = draw,
    .key = key,
    .mouse = mouse,
    .title = title,
    .selected = pane_selected_layer,
    .destroy = pane_free_priv,
};

struct pane *pane_timeline_create(void)
{
    struct pane *p = pane_alloc(&ops, sizeof(struct timeline_pane));
    if (!p)
        return NULL;
    struct timeline_pane *tp = p->priv;
    tp->fit = true;
    tp->cpc = 1;
    return p;
}
