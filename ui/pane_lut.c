/* Pane 4: the LUT of SDP or CDP: its configuration (the S_LUT_* registers
 * decoded), the selected layer's lookup counts (LE/LO hits, underflow,
 * overflow, hybrid: both hit, priority decided), a plot of the LE and LO tables and the
 * histogram of the layer's inputs across the tables' range. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

#define LE_ENTRIES 65
#define LO_ENTRIES 257

struct lut_pane {
    int unit_choice; /* -1: from the layer; else DLA_U_SDP / DLA_U_CDP */
    bool all_config; /* every configuration field, not just the first lines */
};

/* The layer whose statistics are shown: the selected one if it used a LUT,
 * else the latest that did; NULL when none has. */
static const struct dla_layer *lut_layer(struct ui *ui)
{
    struct dla *d = ui_dla(ui);
    size_t n = dla_layer_count(d);
    if (ui->layer >= 0 && (size_t)ui->layer < n) {
        const struct dla_layer *l = dla_layer_get(d, (size_t)ui->layer);
        if (l->lut)
            return l;
    }
    for (size_t i = n; i-- > 0;) {
        const struct dla_layer *l = dla_layer_get(d, i);
        if (l->lut)
            return l;
    }
    return NULL;
}

static enum dla_unit lut_unit(struct ui *ui, const struct dla_layer *l)
{
    struct lut_pane *lp = ui->pane[PANE_LUT]->priv;
    if (lp->unit_choice >= 0)
        return (enum dla_unit)lp->unit_choice;
    if (l && l->proc == DLA_P_CDP)
        return DLA_U_CDP;
    if (!l && ui->layer >= 0 && (size_t)ui->layer < dla_layer_count(ui_dla(ui)) &&
        dla_layer_get(ui_dla(ui), (size_t)ui->layer)->proc == DLA_P_CDP)
        return DLA_U_CDP;
    return DLA_U_SDP;
}

static bool is_config_reg(const struct regdb_reg *r)
{
    return !strncmp(r->name, "S_LUT_", 6) && strncmp(r->name, "S_LUT_ACCESS", 12) != 0;
}

#define CONFIG_LINES 3 /* shown unless the whole configuration was asked for (C) */

/* The configuration registers as "FIELD=value" items, wrapped over lines:
 * at most max_lines of them, the last ending in "..." when cut. */
static int draw_config(struct pane *p, struct ui *ui, int row, enum dla_unit u, int max_lines)
{
    struct dla *d = ui_dla(ui);
    const struct regdb_unit *ru = dla_unit_db(d, u);
    int cols = pane_cols(p), x = 7, first = row;
    if (!ru)
        return row;
    pane_print(p, row, 0, theme(TH_HEADER), "config ");
    for (uint16_t i = 0; i < ru->n_regs; i++) {
        const struct regdb_reg *r = &ru->regs[i];
        if (!is_config_reg(r))
            continue;
        uint32_t v = dla_csb_peek(d, regdb_addr(ru, r));
        for (uint16_t f = 0; f < r->n_fields; f++) {
            const struct regdb_field *fd = &r->fields[f];
            uint32_t fv = regdb_field_get(fd, v);
            const char *e = regdb_enum_name(fd, fv);
            const char *name = !strncmp(fd->name, "LUT_", 4) ? fd->name + 4 : fd->name;
            char item[96];
            if (e)
                snprintf(item, sizeof item, "%s=%s", name, e);
            else if (fd->msb - fd->lsb >= 15)
                snprintf(item, sizeof item, "%s=0x%x", name, fv);
            else
                snprintf(item, sizeof item, "%s=%u", name, fv);
            int n = (int)strlen(item) + 1;
            bool last_line = row - first + 1 >= max_lines;
            if (x + n > cols - (last_line ? 13 : 0)) { /* room for the "..." on the last */
                if (last_line) {
                    pane_print(p, row, x, theme(TH_DIM), "... (C: all)");
                    return row + 1;
                }
                row++;
                x = 7;
            }
            x += pane_print(p, row, x, theme(TH_NORMAL), "%s ", item);
        }
    }
    return row + 1;
}

static unsigned long long pct(uint64_t part, uint64_t whole)
{
    return whole ? (unsigned long long)(part * 100 / whole) : 0;
}

static int draw_counts(struct pane *p, int row, const struct dla_lut_stats *s)
{
    pane_print(p, row++, 0, theme(TH_NORMAL),
               "lookups %llu  LE hit %llu (%llu%%)  LO hit %llu (%llu%%)  hybrid %llu",
               (unsigned long long)s->lookups, (unsigned long long)s->le_hit,
               pct(s->le_hit, s->lookups), (unsigned long long)s->lo_hit,
               pct(s->lo_hit, s->lookups), (unsigned long long)s->hybrid);
    /* a miss: the value fell outside the table the priorities chose */
    pane_print(p, row++, 0, theme(s->underflow || s->overflow ? TH_OUT_WARN : TH_NORMAL),
               "miss %llu: underflow %llu overflow %llu  LE under/over %llu/%llu  LO %llu/%llu",
               (unsigned long long)(s->underflow + s->overflow), (unsigned long long)s->underflow,
               (unsigned long long)s->overflow, (unsigned long long)s->le_underflow,
               (unsigned long long)s->le_overflow, (unsigned long long)s->lo_underflow,
               (unsigned long long)s->lo_overflow);
    return row;
}

/* Column bars of values, height rows tall, width columns wide, at (row, col). */
static void plot_bars(struct pane *p, int row, int col, int height, int width, const double *v,
                      int n, enum theme_role role)
{
    if (n <= 0 || width <= 0 || height <= 0)
        return;
    double lo = v[0], hi = v[0];
    for (int i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    if (lo > 0)
        lo = 0; /* bars grow from zero when everything is positive */
    double span = hi - lo;
    for (int x = 0; x < width; x++) {
        /* the column shows the largest value of the entries it covers */
        int a = x * n / width, b = (x + 1) * n / width;
        if (b <= a)
            b = a + 1;
        double m = v[a];
        for (int i = a + 1; i < b && i < n; i++)
            m = v[i] > m ? v[i] : m;
        int eighths = span > 0 ? (int)((m - lo) / span * height * 8 + 0.5) : 0;
        for (int y = 0; y < height; y++) {
            int level = eighths - (height - 1 - y) * 8;
            level = level < 0 ? 0 : level > 8 ? 8 : level;
            pane_print(p, row + y, col + x, theme(role), "%s", theme_level((unsigned)level));
        }
    }
}

static int draw_tables(struct pane *p, struct ui *ui, int row, enum dla_unit u, int height)
{
    int16_t le[LE_ENTRIES], lo[LO_ENTRIES];
    size_t nle = dla_lut_table(ui_dla(ui), u, false, le, LE_ENTRIES);
    size_t nlo = dla_lut_table(ui_dla(ui), u, true, lo, LO_ENTRIES);
    double vle[LE_ENTRIES], vlo[LO_ENTRIES];
    int16_t min_le = 0, max_le = 0, min_lo = 0, max_lo = 0;
    for (size_t i = 0; i < nle; i++) {
        vle[i] = le[i];
        min_le = le[i] < min_le ? le[i] : min_le;
        max_le = le[i] > max_le ? le[i] : max_le;
    }
    for (size_t i = 0; i < nlo; i++) {
        vlo[i] = lo[i];
        min_lo = lo[i] < min_lo ? lo[i] : min_lo;
        max_lo = lo[i] > max_lo ? lo[i] : max_lo;
    }
    int half = pane_cols(p) / 2;
    pane_print(p, row, 0, theme(TH_HEADER), "LE table (%zu) %d..%d", nle, min_le, max_le);
    pane_print(p, row, half, theme(TH_HEADER), "LO table (%zu) %d..%d", nlo, min_lo, max_lo);
    int w = half - 2 < (int)nle ? half - 2 : (int)nle;
    plot_bars(p, row + 1, 0, height, w, vle, (int)nle, TH_PLOT);
    w = pane_cols(p) - half - 1 < (int)nlo ? pane_cols(p) - half - 1 : (int)nlo;
    plot_bars(p, row + 1, half, height, w, vlo, (int)nlo, TH_PLOT);
    return row + 1 + height;
}

static int draw_histogram(struct pane *p, int row, const struct dla_lut_stats *s, int height)
{
    double v[DLA_LUT_HIST_BINS + 2];
    v[0] = (double)s->hist_below;
    for (int i = 0; i < DLA_LUT_HIST_BINS; i++)
        v[1 + i] = (double)s->hist[i];
    v[DLA_LUT_HIST_BINS + 1] = (double)s->hist_above;
    int per = (pane_cols(p) - 16) / (DLA_LUT_HIST_BINS + 2);
    per = per < 1 ? 1 : per > 2 ? 2 : per;
    int width = per * (DLA_LUT_HIST_BINS + 2);
    pane_print(p, row, 0, theme(TH_HEADER),
               "inputs: below %llu | %d bins across the tables' range | above %llu",
               (unsigned long long)s->hist_below, DLA_LUT_HIST_BINS,
               (unsigned long long)s->hist_above);
    plot_bars(p, row + 1, 0, height, width, v, DLA_LUT_HIST_BINS + 2, TH_HIST);
    /* the outer columns are the out-of-range counts */
    pane_print(p, row + 1 + height, 0, theme(TH_DIM), "%-*s%*s", per, "<", width - per, ">");
    return row + 2 + height;
}

static void draw(struct pane *p, struct ui *ui)
{
    struct dla *d = ui_dla(ui);
    if (!d) {
        pane_print(p, 0, 1, theme(TH_DIM), "no file open");
        return;
    }
    const struct dla_layer *l = lut_layer(ui);
    enum dla_unit u = lut_unit(ui, l);
    if (l && l->proc != (u == DLA_U_CDP ? DLA_P_CDP : DLA_P_SDP))
        l = NULL; /* the user chose the other unit */
    int row = 0;
    if (l)
        pane_print(p, row++, 0, theme(TH_NORMAL), "%s LUT, layer %u: %s", dla_unit_name(u),
                   l->index, l->desc);
    else
        pane_print(p, row++, 0, theme(TH_DIM), "%s LUT: no layer has used it yet",
                   dla_unit_name(u));
    struct lut_pane *lp = p->priv;
    row = draw_config(p, ui, row, u, lp->all_config ? pane_rows(p) : CONFIG_LINES);
    int left = pane_rows(p) - row - (l ? 2 : 0);
    /* share what is left between the two plots: label + bars (+ axis for the histogram) */
    int height = l ? (left - 3) / 2 : left - 1;
    height = height < 1 ? 1 : height > 6 ? 6 : height;
    if (l)
        row = draw_counts(p, row, l->lut);
    row = draw_tables(p, ui, row, u, height);
    if (l)
        draw_histogram(p, row, l->lut, height);
}

static bool key(struct pane *p, struct ui *ui, int k)
{
    struct lut_pane *lp = p->priv;
    (void)ui;
    if (k == 'C') {
        lp->all_config = !lp->all_config;
        return true;
    }
    if (k == 'u') {
        lp->unit_choice = lp->unit_choice < 0            ? DLA_U_CDP
                          : lp->unit_choice == DLA_U_CDP ? DLA_U_SDP
                                                         : -1;
        return true;
    }
    return false;
}

static void title(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    struct lut_pane *lp = p->priv;
    (void)ui;
    snprintf(buf, len, "LUT%s", lp->unit_choice < 0 ? "" : " (unit chosen with u)");
}

static bool selected(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    (void)p;
    if (!ui_dla(ui))
        return false;
    const struct dla_layer *l = lut_layer(ui);
    snprintf(buf, len, "%s LUT", dla_unit_name(lut_unit(ui, l)));
    return true;
}

/* The key bar's share of keys_help while the pane has the focus. */
static const struct pane_key bar_keys[] = {
    {"u", "Unit"},
    {"C", "Config"},
    {NULL, NULL},
};

static const struct pane_ops ops = {
    .name = "lut",
    .keys_help = "u\tshow SDP's or CDP's LUT (again: follow the selected layer)\n"
                 "C\tthe whole configuration / its first lines\n"
                 "plots\ttables: largest entry per column; inputs: below, 32 bins, above",
    .bar_keys = bar_keys,
    .draw = draw,
    .key = key,
    .title = title,
    .selected = selected,
    .destroy = pane_free_priv,
};

struct pane *pane_lut_create(void)
{
    struct pane *p = pane_alloc(&ops, sizeof(struct lut_pane));
    if (!p)
        return NULL;
    struct lut_pane *lp = p->priv;
    lp->unit_choice = -1;
    return p;
}
