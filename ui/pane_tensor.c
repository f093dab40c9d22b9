/* Pane 8: the selected layer's output, as the run captured it when the
 * layer completed (compare.h: with "compare DIR", --compare or "dump
 * tensors"), against its reference blob when one is loaded; without a
 * capture, the output surface as it is in memory now (its registers as the
 * layer was programmed, layer_surface.h).
 *
 * Two views (v toggles):
 *   values     one channel at a time, the hardware's values and the
 *              reference's side by side, row by row; elements whose error
 *              exceeds the comparison's tolerance are marked, the first of
 *              them (the one "compare" names) in reverse; a tensor of one
 *              value per channel lists the channels as rows;
 *   histogram  the statistics of the output (min, max, mean, std, values at
 *              the type's limits, NaN/Inf) and a histogram of its values,
 *              in real units where a scale is known.
 * The console's "compare", "tensor" and "dump tensors" commands show and
 * write the same data as text and .npy files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "debug/layer_surface.h"
#include "debug/reg_history.h"
#include "tensor/tensor_read.h"
#include "tensor/tensor_stats.h"
#include "ui.h"

#define CELL_W 8 /* one value: 7 characters and a blank */

enum tensor_view { VIEW_VALUES, VIEW_HISTOGRAM };

/* What the pane shows: a captured result (r) or a read of memory now. */
struct shown {
    const struct compare_result *r; /* NULL: memory now */
    uint8_t elem;
    uint32_t n, c, h, w;
    const void *got;
    const void *identity; /* changes when the data does: the statistics' key */
    uint64_t version;
};

struct tensor_pane {
    enum tensor_view view;
    uint32_t channel;
    uint32_t row0, col0; /* first row and column shown */
    /* statistics of what is shown, recomputed when it changes */
    const void *stats_of;
    uint64_t stats_version;
    struct tensor_stats stats;
    /* the last read of memory: for which layer, model and cycle */
    struct tensor_data live;
    bool live_ok;
    long live_layer;
    unsigned live_gen;
    uint64_t live_now, live_version;
    char live_why[200];
};

static struct compare *pane_compare(struct ui *ui)
{
    return ui->g ? ui->g->cmp : NULL;
}

/* The selected layer's captured result, NULL when it has none. */
static const struct compare_result *selected_result(struct ui *ui)
{
    struct compare *c = pane_compare(ui);
    if (!c || ui->layer < 0)
        return NULL;
    const struct compare_result *r = compare_of_layer(c, (uint32_t)ui->layer);
    return r && r->got ? r : NULL;
}

/* The selected layer's output surface read from memory now, kept until the
 * layer, the model or its time changes. */
static bool read_live(struct tensor_pane *tp, struct ui *ui)
{
    struct dla *d = ui_dla(ui);
    uint64_t now = dla_now(d);
    if (tp->live_layer == ui->layer && tp->live_gen == ui->model_gen && tp->live_now == now)
        return tp->live_ok;
    tensor_data_free(&tp->live);
    tp->live_ok = false;
    tp->live_layer = ui->layer;
    tp->live_gen = ui->model_gen;
    tp->live_now = now;
    tp->live_version++;
    const struct dla_layer *l = dla_layer_get(d, (size_t)ui->layer);
    if (l->state != DLA_LAYER_DONE) {
        snprintf(tp->live_why, sizeof tp->live_why, "layer %ld has not completed yet", ui->layer);
        return false;
    }
    struct tensor_info t;
    struct reg_history *h = reg_history_create(ui->g->ring, dla_layer_count(d));
    bool ok = layer_surface_of_layer(d, h, (uint32_t)ui->layer, LAYER_OUT, &t, tp->live_why,
                                     sizeof tp->live_why);
    reg_history_destroy(h);
    if (ok)
        ok = tensor_read(d, &t, &tp->live, tp->live_why, sizeof tp->live_why);
    tp->live_ok = ok;
    return ok;
}

/* What to show for the selected layer; false (the reason in tp->live_why)
 * when there is nothing. */
static bool shown_of(struct tensor_pane *tp, struct ui *ui, struct shown *s)
{
    memset(s, 0, sizeof *s);
    if (!ui_dla(ui) || ui->layer < 0 || (size_t)ui->layer >= dla_layer_count(ui_dla(ui))) {
        snprintf(tp->live_why, sizeof tp->live_why, "no layer selected");
        return false;
    }
    const struct compare_result *r = selected_result(ui);
    if (r) {
        *s = (struct shown){r, r->elem, r->n, r->c, r->h, r->w, r->got, r, r->seq};
        return true;
    }
    if (!read_live(tp, ui))
        return false;
    const struct tensor_data *td = &tp->live;
    *s = (struct shown){NULL, td->info.elem, td->n, td->c, td->h, td->w, td->data, &tp->live,
                        tp->live_version};
    return true;
}

/* Element i: the hardware's value and, when compared, the reference's (true). */
static bool value_at(struct ui *ui, const struct shown *s, uint64_t i, double *got, double *want)
{
    if (s->r && s->r->compared && compare_values(pane_compare(ui), s->r, i, got, want))
        return true;
    *got = tensor_elem_value(s->elem, s->got, i);
    return false;
}

/* Values in real units (a scaled comparison) are not integers. */
static bool shows_integers(const struct shown *s)
{
    return s->elem != TENSOR_FP16 && !(s->r && s->r->compared && s->r->m.mode == CMP_SCALED);
}

static void value_text(double v, bool integer, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "nan");
    else if (isinf(v))
        snprintf(buf, len, v > 0 ? "inf" : "-inf");
    else if (integer)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.4g", v);
}

static const char *blob_name(struct compare *c, const struct compare_result *r)
{
    const struct ref_dir *ref = compare_reference(c);
    if (!ref || r->blob < 0 || (size_t)r->blob >= ref->n_blobs)
        return NULL;
    return ref->blobs[r->blob].name;
}

/* Has a layer completed after layer `layer`, whose writes the memory may now hold? */
static bool later_layers_done(struct dla *d, long layer)
{
    const struct dla_layer *l = dla_layer_get(d, (size_t)layer);
    for (size_t i = 0; i < dla_layer_count(d); i++) {
        const struct dla_layer *o = dla_layer_get(d, i);
        if ((long)i != layer && o->state == DLA_LAYER_DONE && o->end_cycle > l->end_cycle)
            return true;
    }
    return false;
}

/* Row 0: what is shown, and how well it agrees with its reference. */
static void draw_summary(struct pane *p, struct ui *ui, const struct shown *s)
{
    struct compare *c = pane_compare(ui);
    char what[64], shape[48];
    if (s->r)
        compare_result_name(s->r, what, sizeof what);
    else
        snprintf(what, sizeof what, "layer %ld (%s)", ui->layer,
                 dla_proc_name((enum dla_proc)dla_layer_get(ui_dla(ui), (size_t)ui->layer)->proc));
    compare_shape_text(s->n, s->c, s->h, s->w, shape, sizeof shape);
    int x = pane_print(p, 0, 0, theme(TH_HEADER), "%s %s %s", what, shape, tensor_elem_name(s->elem));
    if (!s->r) {
        pane_print(p, 0, x, theme(TH_DIM), "  %s",
                   later_layers_done(ui_dla(ui), ui->layer)
                       ? "memory now: later layers may have overwritten it (compare or dump "
                         "tensors capture each output as it completes)"
                       : "memory now");
        return;
    }
    const char *blob = blob_name(c, s->r);
    if (!blob) {
        pane_print(p, 0, x, theme(TH_DIM), "  %s",
                   compare_reference(c) ? "no reference blob" : "captured");
        return;
    }
    x += pane_print(p, 0, x, theme(TH_NORMAL), " vs %s", blob);
    if (!s->r->compared)
        return;
    const struct cmp_metrics *m = &s->r->m;
    x += pane_print(p, 0, x, theme(m->departed ? TH_OUT_ERROR : TH_STATE_DONE), "  %s",
                    m->departed ? "DEPARTS" : "agrees");
    pane_print(p, 0, x, theme(TH_NORMAL), "  cos %.4f  max|e| %.3g  SQNR %.1f dB", m->cosine,
               m->max_abs, m->sqnr_db);
}

/* The statistics of what is shown, kept until it changes. */
static const struct tensor_stats *shown_stats(struct tensor_pane *tp, const struct shown *s)
{
    if (tp->stats_of != s->identity || tp->stats_version != s->version) {
        tensor_stats_compute(s->elem, s->got, (uint64_t)s->n * s->c * s->h * s->w, 0, &tp->stats);
        tp->stats_of = s->identity;
        tp->stats_version = s->version;
    }
    return &tp->stats;
}

static void draw_stats_line(struct pane *p, int row, const struct tensor_stats *s)
{
    int x = pane_print(p, row, 0, theme(TH_NORMAL), "min %.4g  max %.4g  mean %.4g  std %.4g", s->min,
                       s->max, s->mean, s->std);
    if (s->low || s->high)
        x += pane_print(p, row, x, theme(s->at_low || s->at_high ? TH_OUT_WARN : TH_NORMAL),
                        "  at the %s limits: %llu low, %llu high", tensor_elem_name(s->elem),
                        (unsigned long long)s->at_low, (unsigned long long)s->at_high);
    if (s->nan || s->pos_inf || s->neg_inf)
        pane_print(p, row, x, theme(TH_OUT_ERROR), "  NaN %llu  +Inf %llu  -Inf %llu",
                   (unsigned long long)s->nan, (unsigned long long)s->pos_inf,
                   (unsigned long long)s->neg_inf);
}

static void draw_histogram(struct pane *p, struct tensor_pane *tp, const struct shown *sh)
{
    const struct tensor_stats *raw = shown_stats(tp, sh);
    struct tensor_stats real;
    const struct tensor_stats *s = raw;
    double scale = 1;
    if (sh->r && sh->r->compared && sh->r->m.mode == CMP_SCALED && sh->r->m.scale > 0) {
        scale = sh->r->m.scale;
        tensor_stats_scaled(raw, scale, &real);
        s = &real;
    }
    draw_stats_line(p, 1, s);
    pane_print(p, 2, 0, theme(TH_DIM), "%s values (scale %.6g), %llu elements, %llu zeros",
               s == raw ? "raw" : "real", scale, (unsigned long long)s->count,
               (unsigned long long)s->zeros);
    uint64_t most = 1;
    for (unsigned i = 0; i < s->bins; i++)
        if (s->hist[i] > most)
            most = s->hist[i];
    int rows = pane_rows(p) - 3;
    int bar_w = pane_cols(p) - 34;
    for (unsigned i = 0; i < s->bins && (int)i < rows; i++) {
        double lo, hi;
        tensor_stats_bin_edges(s, i, &lo, &hi);
        int x = pane_print(p, 3 + (int)i, 0, theme(TH_NORMAL), "%10.4g ..%10.4g %9llu ", lo, hi,
                           (unsigned long long)s->hist[i]);
        int cells = bar_w > 0 ? (int)((double)s->hist[i] * bar_w / (double)most + 0.5) : 0;
        if (s->hist[i] && !cells)
            cells = 1;
        for (int k = 0; k < cells; k++)
            x += pane_print(p, 3 + (int)i, x, theme(TH_HIST), "%s", theme_glyph(GL_BLOCK));
    }
}

static bool is_first_difference(const struct shown *s, uint32_t c, uint32_t y, uint32_t x)
{
    const struct compare_result *r = s->r;
    return r && r->compared && r->m.departed && r->m.at[0] == 0 && r->m.at[1] == c &&
           r->m.at[2] == y && r->m.at[3] == x;
}

static attr_t cell_attr(bool first, bool differs)
{
    return first     ? theme(TH_OUT_ERROR) | A_REVERSE
           : differs ? theme(TH_OUT_ERROR)
                     : theme(TH_NORMAL);
}

/* One row of one channel: the hardware's values, then the reference's. */
static void draw_value_row(struct pane *p, struct ui *ui, struct tensor_pane *tp,
                           const struct shown *s, int row, uint32_t y, int per_side)
{
    int x = pane_print(p, row, 0, theme(TH_HEADER), "h%-4u", y);
    for (int side = 0; side < (s->r ? 2 : 1); side++) {
        if (side)
            x += pane_print(p, row, x, theme(TH_DIM), " |");
        for (int k = 0; k < per_side; k++) {
            uint32_t col = tp->col0 + (uint32_t)k;
            if (col >= s->w)
                break;
            uint64_t i = ((uint64_t)tp->channel * s->h + y) * s->w + col;
            double got = 0, want = 0;
            bool both = value_at(ui, s, i, &got, &want);
            if (side && !both) {
                x += pane_print(p, row, x, theme(TH_DIM), "%*s", CELL_W, "-");
                continue;
            }
            char text[32];
            value_text(side ? want : got, shows_integers(s) && !side, text, sizeof text);
            bool differs = both && compare_element_differs(pane_compare(ui), s->r, i);
            x += pane_print(p, row, x, cell_attr(is_first_difference(s, tp->channel, y, col), differs),
                            "%*s", CELL_W, text);
        }
    }
}

/* A tensor of one value per channel (a fully connected layer's output, the
 * logits): the channels as rows, with the error of each. */
static void draw_channels(struct pane *p, struct ui *ui, struct tensor_pane *tp,
                          const struct shown *s)
{
    int rows = pane_rows(p) - 2;
    if (rows < 1)
        return;
    if (tp->row0 + (uint32_t)rows > s->c)
        tp->row0 = s->c > (uint32_t)rows ? s->c - (uint32_t)rows : 0;
    const char *units = !s->r || !s->r->compared ? ""
                        : s->r->m.mode == CMP_RAW ? "  (LSB)"
                                                  : "  (real units)";
    pane_print(p, 1, 0, theme(TH_HEADER), "%-6s %12s %12s %12s%s", "c", "hardware", "reference",
               "error", units);
    for (int k = 0; k < rows && tp->row0 + (uint32_t)k < s->c; k++) {
        uint32_t ch = tp->row0 + (uint32_t)k;
        double got = 0, want = 0;
        bool both = value_at(ui, s, ch, &got, &want);
        char g[32], e[32] = "-", d[32] = "-";
        value_text(got, shows_integers(s), g, sizeof g);
        if (both) {
            value_text(want, false, e, sizeof e);
            value_text(got - want, false, d, sizeof d);
        }
        bool differs = both && compare_element_differs(pane_compare(ui), s->r, ch);
        pane_print(p, 2 + k, 0, cell_attr(is_first_difference(s, ch, 0, 0), differs),
                   "%-6u %12s %12s %12s", ch, g, e, d);
    }
}

static int values_per_side(struct pane *p, const struct shown *s)
{
    int per_side = (pane_cols(p) - 7) / (s->r ? 2 : 1) / CELL_W;
    return per_side < 1 ? 1 : per_side;
}

static void draw_values(struct pane *p, struct ui *ui, struct tensor_pane *tp, const struct shown *s)
{
    if (s->h == 1 && s->w == 1) {
        draw_channels(p, ui, tp, s);
        return;
    }
    if (tp->channel >= s->c)
        tp->channel = s->c ? s->c - 1 : 0;
    int per_side = values_per_side(p, s);
    if (tp->col0 >= s->w)
        tp->col0 = 0;
    int rows = pane_rows(p) - 2;
    if (rows < 1)
        return;
    if (tp->row0 + (uint32_t)rows > s->h)
        tp->row0 = s->h > (uint32_t)rows ? s->h - (uint32_t)rows : 0;
    uint32_t last_col = tp->col0 + (uint32_t)per_side;
    /* "c=3/50 w=0..7 hardware" over the row labels and its values, then the reference's */
    char where[64];
    snprintf(where, sizeof where, "c=%u/%u w=%u..%u hardware", tp->channel, s->c, tp->col0,
             (last_col < s->w ? last_col : s->w) - 1);
    int x = pane_print(p, 1, 0, theme(TH_HEADER), "%-*s", 5 + per_side * CELL_W, where);
    if (s->r)
        pane_print(p, 1, x, theme(TH_HEADER), " | reference%s",
                   !s->r->compared ? "" : s->r->m.mode == CMP_RAW ? " (LSB)" : " (real units)");
    for (int k = 0; k < rows && tp->row0 + (uint32_t)k < s->h; k++)
        draw_value_row(p, ui, tp, s, 2 + k, tp->row0 + (uint32_t)k, per_side);
}

/* text over the pane's rows from row, broken at blanks; returns the next row */
static int print_wrapped(struct pane *p, int row, const char *text)
{
    int width = pane_cols(p) - 2;
    while (*text && width > 8 && row < pane_rows(p)) {
        int n = (int)strlen(text);
        if (n > width) {
            n = width;
            while (n > width / 2 && text[n] != ' ')
                n--;
        }
        pane_print(p, row++, 1, theme(TH_DIM), "%.*s", n, text);
        text += n;
        while (*text == ' ')
            text++;
    }
    return row;
}

static void draw_nothing(struct pane *p, struct ui *ui, const char *why)
{
    int row = print_wrapped(p, 0, why);
    if (ui->layer < 0)
        return;
    print_wrapped(p, row + 1,
                  "Outputs are captured as layers complete with \"compare DIR\" or \"dump "
                  "tensors DIR\"; CONV's output feeds SDP on chip (select the SDP layer it "
                  "feeds).");
}

static void draw(struct pane *p, struct ui *ui)
{
    struct tensor_pane *tp = p->priv;
    struct shown s;
    if (!shown_of(tp, ui, &s)) {
        draw_nothing(p, ui, tp->live_why);
        return;
    }
    draw_summary(p, ui, &s);
    if (tp->view == VIEW_HISTOGRAM)
        draw_histogram(p, tp, &s);
    else
        draw_values(p, ui, tp, &s);
}

/* d: the channel and rows of the first differing element. */
static bool goto_difference(struct pane *p, struct tensor_pane *tp, const struct shown *s)
{
    const struct compare_result *r = s->r;
    if (!r || !r->compared || !r->m.departed)
        return false;
    tp->view = VIEW_VALUES;
    tp->channel = r->m.at[1];
    int rows = pane_rows(p) - 2 > 0 ? pane_rows(p) - 2 : 1;
    if (s->h == 1 && s->w == 1) { /* channels as rows */
        tp->row0 = r->m.at[1] >= (uint32_t)rows / 2 ? r->m.at[1] - (uint32_t)rows / 2 : 0;
        return true;
    }
    tp->row0 = r->m.at[2] >= (uint32_t)rows / 2 ? r->m.at[2] - (uint32_t)rows / 2 : 0;
    int per_side = values_per_side(p, s);
    tp->col0 = r->m.at[3] >= (uint32_t)per_side ? r->m.at[3] - (uint32_t)per_side / 2 : 0;
    return true;
}

static bool key(struct pane *p, struct ui *ui, int k)
{
    struct tensor_pane *tp = p->priv;
    struct shown s;
    if (!shown_of(tp, ui, &s))
        return false;
    uint32_t rows_of = s.h == 1 && s.w == 1 ? s.c : s.h;
    switch (k) {
    case 'v':
        tp->view = tp->view == VIEW_VALUES ? VIEW_HISTOGRAM : VIEW_VALUES;
        return true;
    case ']':
        if (tp->channel + 1 < s.c)
            tp->channel++;
        return true;
    case '[':
        if (tp->channel)
            tp->channel--;
        return true;
    case 'd':
        if (!goto_difference(p, tp, &s))
            ui_message(ui, false, "%s",
                       s.r && s.r->compared ? "this layer agrees with its reference"
                                            : "this layer was not compared with a reference");
        return true;
    case KEY_DOWN:
    case 'j':
        if (tp->row0 + 1 < rows_of)
            tp->row0++;
        return true;
    case KEY_UP:
    case 'k':
        if (tp->row0)
            tp->row0--;
        return true;
    case KEY_RIGHT:
    case 'l':
        if (tp->col0 + 1 < s.w)
            tp->col0++;
        return true;
    case KEY_LEFT:
    case 'h':
        if (tp->col0)
            tp->col0--;
        return true;
    case KEY_HOME:
        tp->row0 = tp->col0 = 0;
        return true;
    }
    return false;
}

static bool mouse(struct pane *p, struct ui *ui, int row, int col, mmask_t bstate)
{
    (void)row;
    (void)col;
    int wheel = pane_wheel_key(bstate, KEY_UP, KEY_DOWN);
    return wheel && key(p, ui, wheel);
}

static void title(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    struct tensor_pane *tp = p->priv;
    if (ui->layer < 0)
        snprintf(buf, len, "Tensor");
    else
        snprintf(buf, len, "Tensor: layer %ld output, %s", ui->layer,
                 tp->view == VIEW_HISTOGRAM   ? "statistics and histogram"
                 : selected_result(ui) != NULL ? "hardware | reference"
                                               : "values");
}

static void destroy(struct pane *p)
{
    struct tensor_pane *tp = p->priv;
    if (tp)
        tensor_data_free(&tp->live);
    pane_free_priv(p);
}

/* The key bar's share of keys_help while the pane has the focus. */
static const struct pane_key bar_keys[] = {
    {"v", "Stats"},
    {"d", "Diff"},
    {"[ ]", "Channel"},
    {NULL, NULL},
};

static const struct pane_ops ops = {
    .name = "tensor",
    .keys_help = "v\tvalues (side by side with the reference) / statistics and histogram\n"
                 "[ ]\tprevious / next channel\n"
                 "d\tthe first element that differs from the reference\n"
                 "arrows hjkl\tscroll rows and columns; Home: the first\n"
                 "marks\tred: error beyond the tolerance; reverse: the first such element",
    .bar_keys = bar_keys,
    .draw = draw,
    .key = key,
    .mouse = mouse,
    .title = title,
    .selected = pane_selected_layer,
    .destroy = destroy,
};

struct pane *pane_tensor_create(void)
{
    struct pane *p = pane_alloc(&ops, sizeof(struct tensor_pane));
    if (p)
        ((struct tensor_pane *)p->priv)->live_layer = -1;
    return p;
}
