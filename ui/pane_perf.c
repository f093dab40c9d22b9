/* Pane 5: performance.  Per unit: layers, busy, compute and stall cycles and
 * a utilisation bar (compute | stall | idle share of the busy time); for the
 * selected layer: launch latency, duration, stalls, MACs and DRAM bytes per
 * cycle, its bytes read and written (DRAM's and CV-SRAM's apart), the unit's
 * D_PERF_* counters and the bytes each DMA client moved.  All cycle figures
 * are model-derived (share/timing-model.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/format.h"
#include "debug/perf_rank.h"
#include "ui.h"

/* Columns of the unit table before the bar: "unit layers busy compute stall util ". */
#define TABLE_W 48

struct unit_totals {
    unsigned layers;
    uint64_t busy, compute, stall, macs;
};

static bool proc_present(struct dla *d, enum dla_proc p)
{
    const struct dla_config *c = dla_cfg(d);
    return !(p == DLA_P_BDMA && !c->bdma) && !(p == DLA_P_RUBIK && !c->rubik);
}

static void totals(struct dla *d, bool run_over, struct unit_totals t[DLA_P_COUNT])
{
    memset(t, 0, sizeof(struct unit_totals) * DLA_P_COUNT);
    for (size_t i = 0; i < dla_layer_count(d); i++) {
        const struct dla_layer *l = dla_layer_get(d, i);
        if (l->proc >= DLA_P_COUNT || format_layer_never_enabled(l, run_over))
            continue;
        struct unit_totals *u = &t[l->proc];
        u->layers++;
        u->busy += perf_layer_cycles(l, dla_now(d));
        u->compute += l->compute_cycles;
        u->stall += l->stall_cycles;
        u->macs += l->macs;
    }
}

static int bar_width(struct pane *p)
{
    int w = pane_cols(p) - TABLE_W - 6; /* room for " 100%" after the bar */
    return w < 6 ? 6 : w > 30 ? 30 : w;
}

/* compute | stall | rest of the busy time, as cells of a bar. */
static void draw_bar(struct pane *p, int row, int col, int width, const struct unit_totals *u)
{
    int compute = 0, stall = 0;
    if (u->busy) {
        uint64_t c = u->compute < u->busy ? u->compute : u->busy;
        uint64_t s = u->stall < u->busy - c ? u->stall : u->busy - c;
        compute = (int)(c * (uint64_t)width / u->busy);
        stall = (int)(s * (uint64_t)width / u->busy);
    }
    int x = col;
    for (int i = 0; i < width; i++) {
        bool is_c = i < compute, is_s = !is_c && i < compute + stall;
        x += pane_print(p, row, x,
                        theme(is_c   ? TH_BAR
                              : is_s ? TH_BAR_STALL
                                     : TH_DIM),
                        "%s",
                        is_c   ? theme_glyph(GL_BLOCK)
                        : is_s ? (theme_has_colour() ? theme_glyph(GL_BLOCK) : "s")
                               : theme_glyph(GL_SHADE));
    }
}

static int draw_units(struct pane *p, struct ui *ui, int row)
{
    struct dla *d = ui_dla(ui);
    struct unit_totals t[DLA_P_COUNT];
    totals(d, session_finished(ui->g->session), t);
    uint64_t now = dla_now(d);
    int bw = bar_width(p);
    /* each heading as wide as its column (the bar's the longest that fits),
     * so the last one ends where the rows do */
    const char *bar = bw >= 19 ? "busy: compute|stall" : bw >= 13 ? "compute|stall" : "c|s";
    pane_print(p, row++, 0, theme(TH_HEADER), "%-5s %6s %9s %9s %8s %5s %-*s %5s", "unit",
               "layers", "busy", "compute", "stall", "util", bw, bar, "run%");
    for (int i = 0; i < DLA_P_COUNT; i++) {
        if (!proc_present(d, (enum dla_proc)i))
            continue;
        const struct unit_totals *u = &t[i];
        unsigned util =
            u->busy ? (unsigned)((u->compute < u->busy ? u->compute : u->busy) * 100 / u->busy) : 0;
        int x = pane_print(p, row, 0, theme(TH_NORMAL), "%-5s %6u %9llu %9llu %8llu %4u%% ",
                           dla_proc_name((enum dla_proc)i), u->layers, (unsigned long long)u->busy,
                           (unsigned long long)u->compute, (unsigned long long)u->stall, util);
        draw_bar(p, row, x, bw, u);
        pane_print(p, row, x + bw + 1, theme(TH_NORMAL), "%4llu%%",
                   now ? (unsigned long long)(u->busy * 100 / now) : 0ULL);
        row++;
    }
    return row;
}

/* "256 bytes read, 256 written (DRAM 256, CV-SRAM 256)", as "info perf" says
 * it: bandwidth is DRAM's, so the line names the memory even where the
 * configuration has no other. */
static int draw_layer_bytes(struct pane *p, struct dla *d, const struct dla_layer *l, int row)
{
    char by_memory[80] = " (all DRAM)";
    if (dla_cfg(d)->cvsram)
        snprintf(by_memory, sizeof by_memory, " (DRAM %llu, CV-SRAM %llu)",
                 (unsigned long long)dla_layer_dram_bytes(l), (unsigned long long)l->bytes_cvsram);
    pane_print(p, row++, 0, theme(TH_NORMAL), "%llu bytes read, %llu written%s",
               (unsigned long long)l->bytes_read, (unsigned long long)l->bytes_written, by_memory);
    return row;
}

static int draw_layer(struct pane *p, struct ui *ui, int row)
{
    struct dla *d = ui_dla(ui);
    if (ui->layer < 0 || (size_t)ui->layer >= dla_layer_count(d)) {
        pane_print(p, row, 0, theme(TH_DIM), "select a layer (pane 1) for its counters");
        return row + 1;
    }
    const struct dla_layer *l = dla_layer_get(d, (size_t)ui->layer);
    uint64_t busy = perf_layer_cycles(l, dla_now(d));
    pane_print(p, row++, 0, theme(TH_HEADER), "layer %u %s group %u: %s", l->index,
               dla_proc_name((enum dla_proc)l->proc), l->group, l->desc);
    if (l->state < DLA_LAYER_RUNNING) {
        pane_print(p, row++, 0, theme(TH_DIM), "not started (%s)",
                   format_layer_state(l, session_finished(ui->g->session)));
        return row;
    }
    uint64_t latency = l->start_cycle >= l->enable_cycle ? l->start_cycle - l->enable_cycle : 0;
    pane_print(p, row++, 0, theme(TH_NORMAL),
               "cycles %llu..%llu = %llu  launch latency %llu  compute %llu  stall %llu",
               (unsigned long long)l->start_cycle,
               (unsigned long long)(l->state == DLA_LAYER_DONE ? l->end_cycle : dla_now(d)),
               (unsigned long long)busy, (unsigned long long)latency,
               (unsigned long long)l->compute_cycles, (unsigned long long)l->stall_cycles);
    /* a running layer's work and bytes are its whole run's, computed at
     * launch (the model counts nothing done so far): over its cycles so far
     * they would overstate the rates, so none until it is done, as "info
     * perf top" has "-" */
    char rates[80] = "(-/cycle: its rates once it is done)";
    if (l->state == DLA_LAYER_DONE && busy)
        snprintf(rates, sizeof rates, "(%.1f/cycle)  DRAM %.1f bytes/cycle",
                 (double)l->macs / (double)busy, (double)dla_layer_dram_bytes(l) / (double)busy);
    else if (l->state == DLA_LAYER_DONE)
        snprintf(rates, sizeof rates, "(-/cycle)");
    pane_print(p, row++, 0, theme(TH_NORMAL), "%s %llu %s",
               format_work_unit((enum dla_proc)l->proc), (unsigned long long)l->macs, rates);
    row = draw_layer_bytes(p, d, l, row);
    /* counters in two columns when the names fit, else one */
    int name_w = 8;
    for (uint32_t i = 0; i < l->n_counters; i++) {
        int n = l->counters[i].name ? (int)strlen(l->counters[i].name) : 1;
        name_w = n > name_w ? n : name_w;
    }
    int cell = name_w + 13;
    int per_row = 2 * cell <= pane_cols(p) ? 2 : 1;
    for (uint32_t i = 0; i < l->n_counters; i++) {
        const char *name = l->counters[i].name ? l->counters[i].name : "?";
        pane_print(p, row, (int)(i % (uint32_t)per_row) * cell, theme(TH_NORMAL), "%-*s %11llu",
                   name_w, name, (unsigned long long)l->counters[i].value);
        if ((i + 1) % (uint32_t)per_row == 0 || i + 1 == l->n_counters)
            row++;
    }
    for (int c = 0; c < DLA_C_COUNT; c++) {
        uint64_t bytes = dla_layer_client_bytes(l, (enum dla_client)c);
        if (!bytes)
            continue;
        pane_print(p, row++, 0, theme(TH_NORMAL), "%-10s %12llu B in %llu transactions",
                   dla_client_name((enum dla_client)c), (unsigned long long)bytes,
                   (unsigned long long)dla_layer_client_transactions(l, (enum dla_client)c));
    }
    return row;
}

static void draw(struct pane *p, struct ui *ui)
{
    if (!ui_dla(ui)) {
        pane_print(p, 0, 1, theme(TH_DIM), "no file open");
        return;
    }
    /* rows scroll by p->top: pane_print drops what falls outside */
    int row = draw_units(p, ui, -p->top);
    row = draw_layer(p, ui, row + 1);
    int content = row + p->top;
    if (p->top > 0 && content <= pane_rows(p)) /* the content shrank: scroll back */
        p->top = 0;
}

static bool key(struct pane *p, struct ui *ui, int k)
{
    (void)ui;
    switch (k) {
    case KEY_UP:
    case 'k':
        p->top = p->top > 0 ? p->top - 1 : 0;
        return true;
    case KEY_DOWN:
    case 'j':
        p->top++;
        return true;
    case KEY_HOME:
    case KEY_PPAGE:
        p->top = 0;
        return true;
    case KEY_NPAGE:
        p->top += pane_rows(p) / 2;
        return true;
    default:
        return false;
    }
}

static void title(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    (void)p;
    if (!ui_dla(ui)) { /* no file open (yet) */
        snprintf(buf, len, "Performance");
        return;
    }
    char basis[128];
    format_timing_basis(dla_cfg(ui_dla(ui)), basis, sizeof basis);
    snprintf(buf, len, "Performance (cycles: %s)", basis);
}

static const struct pane_ops ops = {
    .name = "perf",
    .keys_help = "j k PgUp PgDn\tscroll\n"
                 "bars\tshare of a unit's busy cycles spent computing | stalled | otherwise",
    .draw = draw,
    .key = key,
    .title = title,
    .selected = pane_selected_layer,
};

struct pane *pane_perf_create(void)
{
    return pane_alloc(&ops, 0);
}
