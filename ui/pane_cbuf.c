/* Pane 3: the convolution buffer, bank by bank: which layer owns each bank
 * and for what (data, weights, WMB), coloured by owner, with an occupancy
 * bar; the selected bank's figures and a legend of owners below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

#define MAX_BANKS 64
#define CELL_W    9
#define CELL_H    3

struct cbuf_pane {
    int bank; /* selected bank */
};

static const char *kind_name(uint8_t kind)
{
    return kind == 0 ? "data" : kind == 1 ? "weight" : kind == 2 ? "WMB" : "?";
}

static char kind_letter(uint8_t kind)
{
    return kind == 0 ? 'D' : kind == 1 ? 'W' : kind == 2 ? 'M' : '?';
}

static int cells_per_row(struct pane *p, int n)
{
    int per = pane_cols(p) / CELL_W;
    if (per < 1)
        per = 1;
    return per > n ? n : per;
}

static unsigned percent(uint64_t used, uint64_t total)
{
    if (!total)
        return 0;
    uint64_t pc = used * 100 / total;
    return pc > 100 ? 100 : (unsigned)pc;
}

static void draw_cell(struct pane *p, int row, int col, int b, const struct dla_cbuf_bank *bank,
                      uint64_t bank_bytes, bool selected)
{
    bool used = bank->layer >= 0;
    /* owner by colour, kind by attribute (and by the letter) */
    attr_t a = used ? theme_layer(bank->layer) : theme(TH_DIM);
    if (used && bank->kind == 1)
        a |= A_BOLD;
    else if (used && bank->kind == 2)
        a |= A_UNDERLINE;
    if (selected)
        a = theme(TH_CURSOR);
    char line[32];
    snprintf(line, sizeof line, "B%02d %c   ", b, used ? kind_letter(bank->kind) : '-');
    pane_print(p, row, col, a, "%-*.*s", CELL_W - 1, CELL_W - 1, line);
    if (used)
        snprintf(line, sizeof line, "L%-3d%3u%%", bank->layer,
                 percent(bank->bytes_used, bank_bytes));
    else
        snprintf(line, sizeof line, "free");
    pane_print(p, row + 1, col, a, "%-*.*s", CELL_W - 1, CELL_W - 1, line);
    /* occupancy: one cell per eighth of the bank */
    int width = CELL_W - 1;
    unsigned filled =
        (unsigned)((uint64_t)percent(bank->bytes_used, bank_bytes) * (unsigned)width / 100);
    int x = col;
    for (int i = 0; i < width; i++)
        x += pane_print(p, row + 2, x, theme(i < (int)filled ? TH_BAR : TH_DIM), "%s",
                        theme_glyph(i < (int)filled ? GL_BLOCK : GL_SHADE));
}

static void draw_details(struct pane *p, struct ui *ui, int row, const struct dla_cbuf_bank *banks,
                         int n, uint64_t bank_bytes)
{
    struct cbuf_pane *cp = p->priv;
    struct dla *d = ui_dla(ui);
    const struct dla_cbuf_bank *b = &banks[cp->bank];
    if (b->layer >= 0) {
        const struct dla_layer *l =
            (size_t)b->layer < dla_layer_count(d) ? dla_layer_get(d, (size_t)b->layer) : NULL;
        pane_print(p, row, 0, theme(TH_NORMAL),
                   "bank %d: layer %d%s%s %s, %llu of %llu bytes (%u%%), %llu reads, %llu writes",
                   cp->bank, b->layer, l ? " " : "", l ? dla_proc_name((enum dla_proc)l->proc) : "",
                   kind_name(b->kind), (unsigned long long)b->bytes_used,
                   (unsigned long long)bank_bytes, percent(b->bytes_used, bank_bytes),
                   (unsigned long long)b->reads, (unsigned long long)b->writes);
    } else {
        pane_print(p, row, 0, theme(TH_NORMAL), "bank %d: free (%llu bytes)", cp->bank,
                   (unsigned long long)bank_bytes);
    }
    /* legend: each owner once, with what it holds */
    int x = 0;
    row++;
    x += pane_print(p, row, 0, theme(TH_HEADER), "owners: ");
    bool any = false;
    for (int i = 0; i < n; i++) {
        bool first = true;
        for (int j = 0; j < i; j++)
            if (banks[j].layer == banks[i].layer && banks[j].kind == banks[i].kind)
                first = false;
        if (!first || banks[i].layer < 0)
            continue;
        int count = 0;
        for (int j = 0; j < n; j++)
            count += banks[j].layer == banks[i].layer && banks[j].kind == banks[i].kind;
        char item[64];
        snprintf(item, sizeof item, "L%d %s x%d", banks[i].layer, kind_name(banks[i].kind), count);
        if (x + (int)strlen(item) + 1 > pane_cols(p)) {
            row++;
            x = 8;
        }
        x += pane_print(p, row, x, theme_layer(banks[i].layer), "%s", item);
        x += pane_print(p, row, x, theme(TH_NORMAL), " ");
        any = true;
    }
    if (!any)
        pane_print(p, row, x, theme(TH_DIM), "none (no convolution has loaded the buffer yet)");
}

static void draw(struct pane *p, struct ui *ui)
{
    struct cbuf_pane *cp = p->priv;
    struct dla *d = ui_dla(ui);
    if (!d) {
        pane_print(p, 0, 1, theme(TH_DIM), "no file open");
        return;
    }
    struct dla_cbuf_bank banks[MAX_BANKS];
    int n = (int)dla_cbuf_banks(d, banks, MAX_BANKS);
    if (n <= 0) {
        pane_print(p, 0, 1, theme(TH_DIM), "this configuration has no convolution buffer");
        return;
    }
    if (cp->bank >= n)
        cp->bank = n - 1;
    uint64_t bank_bytes = dla_cfg(d)->cbuf_bank_bytes;
    int per = cells_per_row(p, n);
    int grid_rows = (n + per - 1) / per;
    for (int b = 0; b < n; b++) {
        int r = b / per, c = b % per;
        draw_cell(p, r * CELL_H, c * CELL_W, b, &banks[b], bank_bytes, b == cp->bank);
    }
    draw_details(p, ui, grid_rows * CELL_H, banks, n, bank_bytes);
}

/* The banks as keys and clicks see them: 0 without a model (as without a
 * buffer), since neither has anything to select then. */
static int current_banks(struct ui *ui, struct dla_cbuf_bank banks[MAX_BANKS])
{
    struct dla *d = ui_dla(ui);
    return d ? (int)dla_cbuf_banks(d, banks, MAX_BANKS) : 0;
}

static bool key(struct pane *p, struct ui *ui, int k)
{
    struct cbuf_pane *cp = p->priv;
    struct dla_cbuf_bank banks[MAX_BANKS];
    int n = current_banks(ui, banks);
    if (n <= 0)
        return false;
    int per = cells_per_row(p, n);
    switch (k) {
    case KEY_LEFT:
    case 'h':
        cp->bank--;
        break;
    case KEY_RIGHT:
    case 'l':
        cp->bank++;
        break;
    case KEY_UP:
    case 'k':
        cp->bank -= per;
        break;
    case KEY_DOWN:
    case 'j':
        cp->bank += per;
        break;
    case KEY_HOME:
    case KEY_PPAGE:
        cp->bank = 0;
        break;
    case KEY_END:
    case KEY_NPAGE:
        cp->bank = n - 1;
        break;
    case '\n':
    case KEY_ENTER:
        if (banks[cp->bank].layer >= 0)
            ui_select_layer(ui, banks[cp->bank].layer);
        return true;
    default:
        return false;
    }
    if (cp->bank < 0)
        cp->bank = 0;
    if (cp->bank >= n)
        cp->bank = n - 1;
    return true;
}

static bool mouse(struct pane *p, struct ui *ui, int row, int col, mmask_t bstate)
{
    (void)bstate;
    struct cbuf_pane *cp = p->priv;
    struct dla_cbuf_bank banks[MAX_BANKS];
    int n = current_banks(ui, banks);
    int per = n > 0 ? cells_per_row(p, n) : 1;
    int b = (row / CELL_H) * per + col / CELL_W;
    if (n <= 0 || col / CELL_W >= per || b >= n)
        return false;
    cp->bank = b;
    if (banks[b].layer >= 0)
        ui_select_layer(ui, banks[b].layer);
    return true;
}

static void title(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    (void)p;
    struct dla *d = ui_dla(ui);
    if (!d) {
        snprintf(buf, len, "CBUF");
        return;
    }
    const struct dla_config *c = dla_cfg(d);
    snprintf(buf, len, "CBUF %u banks x %u KiB", c->cbuf_banks, c->cbuf_bank_bytes / 1024);
}

static bool selected(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    struct cbuf_pane *cp = p->priv;
    if (!ui_dla(ui))
        return false;
    snprintf(buf, len, "bank %d", cp->bank);
    return true;
}

/* The key bar's share of keys_help while the pane has the focus. */
static const struct pane_key bar_keys[] = {
    {"Enter", "Owner"},
    {NULL, NULL},
};

static const struct pane_ops ops = {
    .name = "cbuf",
    .keys_help = "arrows hjkl\tselect a bank\n"
                 "Enter\tselect the layer that owns the bank\n"
                 "cells\tB<bank> <D data|W weight|M WMB>, L<owner layer> and fill %, fill bar",
    .bar_keys = bar_keys,
    .draw = draw,
    .key = key,
    .mouse = mouse,
    .title = title,
    .selected = selected,
    .destroy = pane_free_priv,
};

struct pane *pane_cbuf_create(void)
{
    return pane_alloc(&ops, sizeof(struct cbuf_pane));
}
