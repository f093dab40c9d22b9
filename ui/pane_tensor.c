/* Pane 8: the selected layer's output as the run captured it when the layer
 * completed (compare.h), against its reference blob when one is loaded.
 *
 * Two views (v toggles):
 *   values     one channel at a time, the hardware's values and the
 *              reference's side by side, row by row; elements whose error
 *              exceeds the comparison's tolerance are marked, the first of
 *              them (the one "compare" names) in reverse;
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
#include "tensor/tensor_read.h"
#include "tensor/tensor_stats.h"
#include "ui.h"

#define CELL_W 8 /* one value: 7 characters and a blank */

enum tensor_view { VIEW_VALUES, VIEW_HISTOGRAM };

struct tensor_pane {
    enum tensor_view view;
    uint32_t channel;
    uint32_t row0, col0; /* first row and column shown */
    /* statistics of the result shown, recomputed when it changes */
    const void *stats_of;
    uint64_t stats_seq;
    struct tensor_stats stats;
};

static struct compare *pane_compare(struct ui *ui)
{
    return ui->g ? ui->g->cmp : NULL;
}

/* The selected layer's result, NULL when it has none. */
static const struct compare_result *selected_result(struct ui *ui)
{
    struct compare *c = pane_compare(ui);
    if (!c || ui->layer < 0)
        return NULL;
    return compare_of_layer(c, (uint32_t)ui->layer);
}

/* The error beyond which an element counts as differing, in the units
 * compare_values gives (real units; LSB for a raw reference). */
static double element_tolerance(struct compare *c, const struct compare_result *r)
{
    struct cmp_tolerance t = cmp_tolerance_for(compare_tolerance(c), r->m.mode);
    switch (r->m.mode) {
    case CMP_FLOAT:
        return t.rel * r->m.ref_max;
    case CMP_SCALED:
        return t.lsb * r->m.scale;
    case CMP_RAW:
        return t.lsb;
    }
    return 0;
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

/* Row 0: what is compared and how well. */
static void draw_summary(struct pane *p, struct ui *ui, const struct compare_result *r)
{
    struct compare *c = pane_compare(ui);
    char what[64], shape[48];
    compare_result_name(r, what, sizeof what);
    compare_shape_text(r->n, r->c, r->h, r->w, shape, sizeof shape);
    int x = pane_print(p, 0, 0, theme(TH_HEADER), "%s %s %s", what, shape,
                       tensor_elem_name(r->elem));
    const char *blob = blob_name(c, r);
    if (!blob) {
        pane_print(p, 0, x, theme(TH_DIM), "  %s",
                   compare_reference(c) ? "no reference blob" : "no reference loaded");
        return;
    }
    x += pane_print(p, 0, x, theme(TH_NORMAL), " vs %s", blob);
    if (!r->compared)
        return;
    const struct cmp_metrics *m = &r->m;
    x += pane_print(p, 0, x, theme(m->departed ? TH_OUT_ERROR : TH_STATE_DONE), "  %s",
                    m->departed ? "DEPARTS" : "agrees");
    pane_print(p, 0, x, theme(TH_NORMAL), "  cos %.4f  max|e| %.3g  SQNR %.1f dB", m->cosine,
               m->max_abs, m->sqnr_db);
}

/* The statistics of r's captured values, kept until r changes. */
static const struct tensor_stats *result_stats(struct tensor_pane *tp, const struct compare_result *r)
{
    if (tp->stats_of != r || tp->stats_seq != r->seq) {
        tensor_stats_compute(r->elem, r->got, (uint64_t)r->n * r->c * r->h * r->w, 0, &tp->stats);
        tp->stats_of = r;
        tp->stats_seq = r->seq;
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

static void draw_histogram(struct pane *p, struct tensor_pane *tp, const struct compare_result *r)
{
    const struct tensor_stats *raw = result_stats(tp, r);
    struct tensor_stats real;
    const struct tensor_stats *s = raw;
    if (r->compared && r->m.mode == CMP_SCALED && r->m.scale > 0) {
        tensor_stats_scaled(raw, r->m.scale, &real);
        s = &real;
    }
    draw_stats_line(p, 1, s);
    pane_print(p, 2, 0, theme(TH_DIM), "%s values (scale %.6g), %llu elements, %llu zeros",
               s == raw ? "raw" : "real", s == raw ? 1.0 : r->m.scale,
               (unsigned long long)s->count, (unsigned long long)s->zeros);
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

/* One row of one channel: the hardware's values, then the reference's. */
static void draw_value_row(struct pane *p, struct ui *ui, struct tensor_pane *tp,
                           const struct compare_result *r, int row, uint32_t y, int per_side,
                           double tol)
{
    struct compare *c = pane_compare(ui);
    bool integer = r->elem != TENSOR_FP16 && !(r->compared && r->m.mode == CMP_SCALED);
    int x = pane_print(p, row, 0, theme(TH_HEADER), "h%-4u", y);
    for (int side = 0; side < 2; side++) {
        if (side)
            x += pane_print(p, row, x, theme(TH_DIM), " |");
        for (int k = 0; k < per_side; k++) {
            uint32_t col = tp->col0 + (uint32_t)k;
            if (col >= r->w)
                break;
            uint64_t i = (((uint64_t)0 * r->c + tp->channel) * r->h + y) * r->w + col;
            double got = 0, want = 0;
            bool both = compare_values(c, r, i, &got, &want);
            if (!both)
                got = cmp_got_value(&(struct cmp_got){r->elem, r->got, r->n, r->c, r->h, r->w}, i);
            if (side && !both) {
                x += pane_print(p, row, x, theme(TH_DIM), "%*s", CELL_W, "-");
                continue;
            }
            char text[32];
            value_text(side ? want : got, integer && !side, text, sizeof text);
            bool first = r->compared && r->m.departed && r->m.at[0] == 0 &&
                         r->m.at[1] == tp->channel && r->m.at[2] == y && r->m.at[3] == col;
            bool differs = both && !(fabs(got - want) <= tol);
            attr_t a = first     ? theme(TH_OUT_ERROR) | A_REVERSE
                       : differs ? theme(TH_OUT_ERROR)
                                 : theme(TH_NORMAL);
            x += pane_print(p, row, x, a, "%*s", CELL_W, text);
        }
    }
}

/* A tensor of one value per channel (a fully connected layer's output, the
 * logits): the channels as rows, with the error of each. */
static void draw_channels(struct pane *p, struct ui *ui, struct tensor_pane *tp,
                          const struct compare_result *r)
{
    struct compare *c = pane_compare(ui);
    double tol = r->compared ? element_tolerance(c, r) : INFINITY;
    bool integer = r->elem != TENSOR_FP16 && !(r->compared && r->m.mode == CMP_SCALED);
    int rows = pane_rows(p) - 2;
    if (rows < 1)
        return;
    if (tp->row0 + (uint32_t)rows > r->c)
        tp->row0 = r->c > (uint32_t)rows ? r->c - (uint32_t)rows : 0;
    pane_print(p, 1, 0, theme(TH_HEADER), "%-6s %12s %12s %12s%s", "c", "hardware", "reference",
               "error", r->compared ? (r->m.mode == CMP_RAW ? "  (LSB)" : "  (real units)") : "");
    for (int k = 0; k < rows && tp->row0 + (uint32_t)k < r->c; k++) {
        uint32_t ch = tp->row0 + (uint32_t)k;
        double got = 0, want = 0;
        bool both = compare_values(c, r, ch, &got, &want);
        if (!both)
            got = cmp_got_value(&(struct cmp_got){r->elem, r->got, r->n, r->c, r->h, r->w}, ch);
        char g[32], e[32] = "-", d[32] = "-";
        value_text(got, integer, g, sizeof g);
        if (both) {
            value_text(want, false, e, sizeof e);
            value_text(got - want, false, d, sizeof d);
        }
        bool first = r->compared && r->m.departed && r->m.at[1] == ch;
        bool differs = both && !(fabs(got - want) <= tol);
        attr_t a = first     ? theme(TH_OUT_ERROR) | A_REVERSE
                   : differs ? theme(TH_OUT_ERROR)
                             : theme(TH_NORMAL);
        pane_print(p, 2 + k, 0, a, "%-6u %12s %12s %12s", ch, g, e, d);
    }
}

static void draw_values(struct pane *p, struct ui *ui, struct tensor_pane *tp,
                        const struct compare_result *r)
{
    if (r->h == 1 && r->w == 1) {
        draw_channels(p, ui, tp, r);
        return;
    }
    struct compare *c = pane_compare(ui);
    if (tp->channel >= r->c)
        tp->channel = r->c ? r->c - 1 : 0;
    int per_side = (pane_cols(p) - 7) / 2 / CELL_W;
    if (per_side < 1)
        per_side = 1;
    if (tp->col0 >= r->w)
        tp->col0 = 0;
    int rows = pane_rows(p) - 2;
    if (rows < 1)
        return;
    if (tp->row0 + (uint32_t)rows > r->h)
        tp->row0 = r->h > (uint32_t)rows ? r->h - (uint32_t)rows : 0;
    double tol = r->compared ? element_tolerance(c, r) : INFINITY;
    uint32_t last_col = tp->col0 + (uint32_t)per_side;
    /* "c=3/50 w=0..7" over the row labels and the hardware's side, then the reference's */
    char where[48];
    snprintf(where, sizeof where, "c=%u/%u w=%u..%u hardware", tp->channel, r->c, tp->col0,
             (last_col < r->w ? last_col : r->w) - 1);
    int left = 5 + per_side * CELL_W;
    int x = pane_print(p, 1, 0, theme(TH_HEADER), "%-*s", left, where);
    pane_print(p, 1, x, theme(TH_HEADER), " | reference%s",
               r->compared ? (r->m.mode == CMP_RAW ? " (LSB)" : " (real units)") : "");
    for (int k = 0; k < rows && tp->row0 + (uint32_t)k < r->h; k++)
        draw_value_row(p, ui, tp, r, 2 + k, tp->row0 + (uint32_t)k, per_side, tol);
}

static void draw_nothing(struct pane *p, struct ui *ui)
{
    struct compare *c = pane_compare(ui);
    if (ui->layer < 0) {
        pane_print(p, 0, 1, theme(TH_DIM), "no layer selected");
        return;
    }
    pane_print(p, 0, 1, theme(TH_DIM), "layer %ld: no output captured.", ui->layer);
    if (!c || !compare_enabled(c)) {
        pane_print(p, 1, 1, theme(TH_DIM), "Outputs are captured as layers complete once");
        pane_print(p, 2, 1, theme(TH_DIM), "\"compare DIR\" or \"dump tensors DIR\" ran (R runs");
        pane_print(p, 3, 1, theme(TH_DIM), "again from reset to capture the layers done).");
        return;
    }
    pane_print(p, 1, 1, theme(TH_DIM), "Its output stays on chip (CONV feeds SDP, SDP may");
    pane_print(p, 2, 1, theme(TH_DIM), "feed PDP), it has not completed, or the capture");
    pane_print(p, 3, 1, theme(TH_DIM), "budget was spent (\"compare\" says).");
}

static void draw(struct pane *p, struct ui *ui)
{
    struct tensor_pane *tp = p->priv;
    const struct compare_result *r = ui_dla(ui) ? selected_result(ui) : NULL;
    if (!r || !r->got) {
        draw_nothing(p, ui);
        return;
    }
    draw_summary(p, ui, r);
    if (tp->view == VIEW_HISTOGRAM)
        draw_histogram(p, tp, r);
    else
        draw_values(p, ui, tp, r);
}

/* d: the channel and rows of the first differing element. */
static bool goto_difference(struct pane *p, struct tensor_pane *tp, const struct compare_result *r)
{
    if (!r->compared || !r->m.departed)
        return false;
    tp->view = VIEW_VALUES;
    tp->channel = r->m.at[1];
    if (r->h == 1 && r->w == 1) { /* channels as rows */
        int rows = pane_rows(p) - 2 > 0 ? pane_rows(p) - 2 : 1;
        tp->row0 = r->m.at[1] >= (uint32_t)rows / 2 ? r->m.at[1] - (uint32_t)rows / 2 : 0;
        return true;
    }
    int rows = pane_rows(p) - 2 > 0 ? pane_rows(p) - 2 : 1;
    tp->row0 = r->m.at[2] >= (uint32_t)rows / 2 ? r->m.at[2] - (uint32_t)rows / 2 : 0;
    int per_side = (pane_cols(p) - 7) / 2 / CELL_W;
    tp->col0 = per_side > 0 && r->m.at[3] >= (uint32_t)per_side ? r->m.at[3] - (uint32_t)per_side / 2
                                                                 : 0;
    return true;
}

static bool key(struct pane *p, struct ui *ui, int k)
{
    struct tensor_pane *tp = p->priv;
    const struct compare_result *r = ui_dla(ui) ? selected_result(ui) : NULL;
    if (!r || !r->got)
        return false;
    switch (k) {
    case 'v':
        tp->view = tp->view == VIEW_VALUES ? VIEW_HISTOGRAM : VIEW_VALUES;
        return true;
    case ']':
        if (tp->channel + 1 < r->c)
            tp->channel++;
        return true;
    case '[':
        if (tp->channel)
            tp->channel--;
        return true;
    case 'd':
        if (!goto_difference(p, tp, r))
            ui_message(ui, false, "%s", r->compared ? "this layer agrees with its reference"
                                                    : "this layer was not compared");
        return true;
    case KEY_DOWN:
    case 'j':
        if (tp->row0 + 1 < (r->h == 1 && r->w == 1 ? r->c : r->h))
            tp->row0++;
        return true;
    case KEY_UP:
    case 'k':
        if (tp->row0)
            tp->row0--;
        return true;
    case KEY_RIGHT:
    case 'l':
        if (tp->col0 + 1 < r->w)
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
                 tp->view == VIEW_VALUES ? "hardware | reference" : "statistics and histogram");
}

static const struct pane_ops ops = {
    .name = "tensor",
    .keys_help = "v\tvalues side by side / statistics and histogram\n"
                 "[ ]\tprevious / next channel\n"
                 "d\tthe first element that differs from the reference\n"
                 "arrows hjkl\tscroll rows and columns; Home: the first\n"
                 "marks\tred: error beyond the tolerance; reverse: the first such element",
    .draw = draw,
    .key = key,
    .mouse = mouse,
    .title = title,
    .selected = pane_selected_layer,
    .destroy = pane_free_priv,
};

struct pane *pane_tensor_create(void)
{
    return pane_alloc(&ops, sizeof(struct tensor_pane));
}
