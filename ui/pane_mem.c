/* Pane 6: memory and tensors.  The memory regions the selected layer's DMA
 * clients read and wrote (recorded from the model's DMA events as they
 * happen), and a dump of the selected region, or of any address, as hex
 * bytes, int8, int16 or fp16 values.  The console's x/N and tensor commands
 * show the same memory in text. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "debug/mem_regions.h"
#include "num/fp16.h"
#include "ui.h"

#define MAX_REGIONS    4096
#define LAYER_REGIONS  32 /* distinct regions kept per layer */
#define DUMP_MAX_BYTES (1u << 20)
/* Hex digits of an address in the region list and the dump alike, so that
 * the two line up when read side by side (40 bits: DRAM at 0x80000000 and
 * CV-SRAM, with room for addresses past 4 GiB). */
#define ADDR_DIGITS 10

struct region {
    int32_t layer;
    uint8_t client, space;
    bool write;
    uint64_t addr, bytes;
};

enum dump_format { FMT_HEX, FMT_INT8, FMT_INT16, FMT_FP16, FMT_COUNT };

struct mem_pane {
    unsigned model_gen; /* ui->model_gen of the model the regions were recorded on */
    struct region *regions;
    size_t n;
    int region;  /* selected region of the layer (index among its regions) */
    bool manual; /* dump the address below rather than the selected region */
    uint8_t space;
    uint64_t addr;
    uint64_t dump_top; /* byte offset of the first dumped line */
    enum dump_format fmt;
};

/* ---------------------------------------------------------------- recording */

static void forget_layer(struct mem_pane *mp, int32_t layer)
{
    size_t k = 0;
    for (size_t i = 0; i < mp->n; i++)
        if (mp->regions[i].layer != layer)
            mp->regions[k++] = mp->regions[i];
    mp->n = k;
}

static bool same_stream(const struct region *a, const struct region *b)
{
    return a->layer == b->layer && a->client == b->client && a->space == b->space &&
           a->write == b->write;
}

static bool touching(const struct region *r, uint64_t addr, uint64_t bytes)
{
    return addr <= r->addr + r->bytes && addr + bytes >= r->addr;
}

static void grow(struct region *r, uint64_t addr, uint64_t bytes)
{
    uint64_t lo = addr < r->addr ? addr : r->addr;
    uint64_t hi = addr + bytes > r->addr + r->bytes ? addr + bytes : r->addr + r->bytes;
    r->addr = lo;
    r->bytes = hi - lo;
}

/* Strided reads grow several regions that end up adjacent: join them. */
static void coalesce(struct mem_pane *mp, size_t i)
{
    for (size_t j = 0; j < mp->n;) {
        struct region *r = &mp->regions[i], *o = &mp->regions[j];
        if (j == i || !same_stream(r, o) || !touching(r, o->addr, o->bytes)) {
            j++;
            continue;
        }
        grow(r, o->addr, o->bytes);
        mp->regions[j] = mp->regions[--mp->n];
        if (i == mp->n) /* r moved into the hole */
            i = j;
    }
}

static void record_dma(struct mem_pane *mp, const struct dla_event *ev)
{
    const struct region t = {ev->layer,       ev->u.dma.client, ev->u.dma.space,
                             ev->u.dma.write, ev->u.dma.addr,   ev->u.dma.bytes};
    size_t of_layer = 0;
    for (size_t i = 0; i < mp->n; i++) {
        struct region *r = &mp->regions[i];
        if (r->layer != t.layer)
            continue;
        of_layer++;
        /* contiguous or overlapping transfers of one client grow one region */
        if (same_stream(r, &t) && touching(r, t.addr, t.bytes)) {
            grow(r, t.addr, t.bytes);
            coalesce(mp, i);
            return;
        }
    }
    if (of_layer >= LAYER_REGIONS || mp->n >= MAX_REGIONS)
        return; /* enough to show; the console's x command reaches the rest */
    mp->regions[mp->n++] = t;
}

static void event(struct pane *p, struct ui *ui, const struct dla_event *ev)
{
    (void)ui;
    struct mem_pane *mp = p->priv;
    if (!mp->regions)
        return;
    if (ev->kind == DLA_EV_LAYER_PROGRAM)
        forget_layer(mp, ev->layer); /* run again (back, restart): record afresh */
    else if (ev->kind == DLA_EV_DMA && ev->layer >= 0)
        record_dma(mp, ev);
}

static void stopped(struct pane *p, struct ui *ui)
{
    struct mem_pane *mp = p->priv;
    struct dla *d = ui_dla(ui);
    if (mp->model_gen != ui->model_gen) {
        mp->model_gen = ui->model_gen;
        mp->n = 0;
        mp->manual = false;
    }
    if (!d)
        return;
    /* layers that no longer exist (back, restart) */
    size_t k = 0, layers = dla_layer_count(d);
    for (size_t i = 0; i < mp->n; i++)
        if ((size_t)mp->regions[i].layer < layers)
            mp->regions[k++] = mp->regions[i];
    mp->n = k;
}

/* The i-th region of a layer, or NULL. */
static const struct region *layer_region(struct mem_pane *mp, long layer, int i)
{
    for (size_t k = 0; k < mp->n; k++)
        if (mp->regions[k].layer == layer && i-- == 0)
            return &mp->regions[k];
    return NULL;
}

static int layer_regions(struct mem_pane *mp, long layer)
{
    int n = 0;
    for (size_t k = 0; k < mp->n; k++)
        n += mp->regions[k].layer == layer;
    return n;
}

/* ---------------------------------------------------------------- drawing */

static const char *format_name(enum dump_format f)
{
    static const char *const names[FMT_COUNT] = {"hex", "int8", "int16", "fp16"};
    return f < FMT_COUNT ? names[f] : "?";
}

static int dump_line(char *buf, size_t len, const uint8_t *b, int n, enum dump_format fmt)
{
    size_t used = 0;
    for (int i = 0; i < n && used < len;) {
        int w;
        switch (fmt) {
        case FMT_INT8:
            w = snprintf(buf + used, len - used, "%5d", (int8_t)b[i]);
            i += 1;
            break;
        case FMT_INT16:
            w = snprintf(buf + used, len - used, "%7d", (int16_t)(b[i] | (b[i + 1] << 8)));
            i += 2;
            break;
        case FMT_FP16:
            w = snprintf(buf + used, len - used, "%10.4g",
                         (double)fp16_to_float((uint16_t)(b[i] | (b[i + 1] << 8))));
            i += 2;
            break;
        default:
            w = snprintf(buf + used, len - used, " %02x", b[i]);
            i += 1;
            break;
        }
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (fmt == FMT_HEX && used + n + 4 < len) {
        buf[used++] = ' ';
        buf[used++] = ' ';
        for (int i = 0; i < n; i++)
            buf[used++] = isprint(b[i]) ? (char)b[i] : '.';
        buf[used] = 0;
    }
    return (int)used;
}

/* The most bytes (a power of two, 4 to 32) whose row fits the pane: the
 * address "0x000000000:" (12 cells), then per value " %02x" and its character
 * after a 2-cell gap (hex: 4 cells a byte), "%5d" (int8), "%7d" (int16) or
 * "%10.4g" (fp16, 2 bytes each). */
static int bytes_per_line(struct pane *p, enum dump_format fmt)
{
    int cols = pane_cols(p) - (2 + ADDR_DIGITS + 1) - (fmt == FMT_HEX ? 2 : 0); /* "0x...:" */
    int per = fmt == FMT_HEX ? 4 : fmt == FMT_INT8 ? 5 : fmt == FMT_INT16 ? 7 : 10;
    int unit = fmt == FMT_INT16 || fmt == FMT_FP16 ? 2 : 1;
    int n = cols / per * unit;
    int pow2 = 4;
    while (pow2 * 2 <= n && pow2 < 32)
        pow2 *= 2;
    return pow2;
}

/* The first byte of the dump's visible lines that is no memory
 * (mem_accessible), the message into msg; UINT64_MAX when all are. */
static uint64_t dump_inaccessible(struct pane *p, struct ui *ui, int lines, uint8_t space,
                                  uint64_t base, uint64_t size, char *msg, size_t msglen)
{
    struct mem_pane *mp = p->priv;
    uint64_t len = (uint64_t)lines * (uint64_t)bytes_per_line(p, mp->fmt);
    if (mp->dump_top >= size || lines <= 0)
        return UINT64_MAX;
    if (len > size - mp->dump_top)
        len = size - mp->dump_top;
    uint64_t outside;
    if (mem_accessible(ui->g->session, (enum dla_space)space, base + mp->dump_top, len, NULL,
                       &outside, msg, msglen))
        return UINT64_MAX;
    return outside;
}

/* checked: lines past memory the file binds or the run wrote end the dump
 * with gdb's "Cannot access memory" (an address typed in; a region a layer
 * read or wrote is shown as the DMA saw it). */
static void draw_dump(struct pane *p, struct ui *ui, int row, uint8_t space, uint64_t base,
                      uint64_t size, const char *what, bool checked)
{
    struct mem_pane *mp = p->priv;
    struct dla *d = ui_dla(ui);
    int bpl = bytes_per_line(p, mp->fmt);
    if (size > DUMP_MAX_BYTES)
        size = DUMP_MAX_BYTES;
    if (mp->dump_top >= size)
        mp->dump_top = size > (uint64_t)bpl ? (size - 1) / (uint64_t)bpl * (uint64_t)bpl : 0;
    pane_print(p, row++, 0, theme(TH_HEADER), "%s 0x%llx +%llu  %s  (f format, a address)",
               dla_space_name((enum dla_space)space), (unsigned long long)base,
               (unsigned long long)size, what);
    char msg[512];
    uint64_t outside = checked ? dump_inaccessible(p, ui, pane_rows(p) - row, space, base, size,
                                                   msg, sizeof msg)
                               : UINT64_MAX;
    for (int line = 0; row < pane_rows(p); row++, line++) {
        uint64_t off = mp->dump_top + (uint64_t)line * (uint64_t)bpl;
        if (off >= size)
            break;
        if (base + off >= outside) {
            pane_print(p, row, 0, theme(TH_OUT_ERROR), "0x%0*llx: %s", ADDR_DIGITS,
                       (unsigned long long)(base + off), msg);
            break;
        }
        uint8_t buf[32] = {0};
        int n = size - off < (uint64_t)bpl ? (int)(size - off) : bpl;
        if (outside - (base + off) < (uint64_t)n)
            n = (int)(outside - (base + off)); /* the line's bytes before it */
        if (mp->fmt == FMT_INT16 || mp->fmt == FMT_FP16)
            n &= ~1;
        enum mem_status st = dla_mem_read(d, (enum dla_space)space, base + off, buf, (size_t)n);
        if (st != MEM_OK) {
            pane_print(p, row, 0, theme(TH_OUT_ERROR), "0x%0*llx: %s", ADDR_DIGITS,
                       (unsigned long long)(base + off), mem_status_str(st));
            break;
        }
        char text[512];
        dump_line(text, sizeof text, buf, n, mp->fmt);
        pane_print(p, row, 0, theme(TH_NORMAL), "0x%0*llx:%s", ADDR_DIGITS,
                   (unsigned long long)(base + off), text);
    }
}

static void draw(struct pane *p, struct ui *ui)
{
    struct mem_pane *mp = p->priv;
    struct dla *d = ui_dla(ui);
    if (!d) {
        pane_print(p, 0, 1, theme(TH_DIM), "no file open");
        return;
    }
    if (mp->model_gen != ui->model_gen)
        stopped(p, ui);
    int n = ui->layer >= 0 ? layer_regions(mp, ui->layer) : 0;
    if (mp->region >= n)
        mp->region = n ? n - 1 : 0;
    int list_rows = n < 5 ? n : 5;
    int row = 0;
    if (ui->layer < 0)
        pane_print(p, row++, 0, theme(TH_DIM), "select a layer (pane 1) for its memory");
    else if (!n)
        pane_print(p, row++, 0, theme(TH_DIM), "layer %ld: no DMA recorded", ui->layer);
    else
        pane_print(p, row++, 0, theme(TH_HEADER), "layer %ld DMA  %-10s %-2s %-6s %*s %10s",
                   ui->layer, "client", "", "space", 2 + ADDR_DIGITS, "address", "bytes");
    int first = mp->region - list_rows + 1 > 0 ? mp->region - list_rows + 1 : 0;
    for (int i = 0; i < list_rows; i++) {
        const struct region *r = layer_region(mp, ui->layer, first + i);
        if (!r)
            break;
        bool sel = first + i == mp->region && !mp->manual;
        attr_t a =
            sel ? theme(ui->focus == PANE_MEM ? TH_CURSOR : TH_CURSOR_IDLE) : theme(TH_NORMAL);
        pane_fill(p, row, 0, a);
        pane_print(p, row++, 0, a, "          %-10s %-2s %-6s 0x%0*llx %10llu",
                   dla_client_name((enum dla_client)r->client), r->write ? "W" : "R",
                   dla_space_name((enum dla_space)r->space), ADDR_DIGITS,
                   (unsigned long long)r->addr, (unsigned long long)r->bytes);
    }
    row++;
    const struct region *r = n ? layer_region(mp, ui->layer, mp->region) : NULL;
    if (mp->manual) {
        draw_dump(p, ui, row, mp->space, mp->addr, DUMP_MAX_BYTES, format_name(mp->fmt), true);
    } else if (r) {
        char what[96];
        snprintf(what, sizeof what, "%s %s, %s", dla_client_name((enum dla_client)r->client),
                 r->write ? "wrote" : "read", format_name(mp->fmt));
        draw_dump(p, ui, row, r->space, r->addr, r->bytes, what, false);
    } else {
        /* CV-SRAM is offered only where the configuration has it (nv_small has none) */
        pane_print(p, row, 0, theme(TH_DIM), "a: dump an address%s",
                   dla_cfg(ui_dla(ui))->cvsram ? " (c: prefix for CV-SRAM)" : "");
    }
}

/* ---------------------------------------------------------------- keys */

static void address_done(struct ui *ui, void *ctx, const char *text)
{
    struct pane *p = ctx;
    struct mem_pane *mp = p->priv;
    uint8_t space = DLA_DRAM;
    while (isspace((unsigned char)*text))
        text++;
    bool cvsram = dla_cfg(ui_dla(ui))->cvsram;
    if (!strncasecmp(text, "c:", 2)) {
        if (!cvsram) {
            ui_message(ui, true, "%s has no CV-SRAM; try 0x80000000", dla_cfg(ui_dla(ui))->name);
            return;
        }
        space = DLA_CVSRAM;
        text += 2;
    }
    char *end;
    errno = 0;
    unsigned long long a = strtoull(text, &end, 0);
    if (end == text || *end || errno || text[0] == '-') {
        /* short: the status line shows it after the file, layer and cycle */
        ui_message(ui, true, "not an address: \"%s\"; try 0x80000000%s", text,
                   cvsram ? " or c:0x10" : "");
        return;
    }
    /* as x and dump memory: an address no region holds and nothing wrote is refused */
    uint64_t outside;
    char msg[512];
    if (!mem_accessible(ui->g->session, (enum dla_space)space, a, 1, NULL, &outside, msg,
                        sizeof msg)) {
        ui_message(ui, true, "%s", msg);
        return;
    }
    mp->space = space;
    mp->addr = a;
    mp->manual = true;
    mp->dump_top = 0;
}

static bool key(struct pane *p, struct ui *ui, int k)
{
    struct mem_pane *mp = p->priv;
    if (!ui_dla(ui))
        return false;
    int n = ui->layer >= 0 ? layer_regions(mp, ui->layer) : 0;
    uint64_t page = (uint64_t)bytes_per_line(p, mp->fmt) * (uint64_t)(pane_rows(p) / 2);
    switch (k) {
    case KEY_UP:
    case 'k':
        mp->manual = false;
        mp->region = mp->region > 0 ? mp->region - 1 : 0;
        mp->dump_top = 0;
        return true;
    case KEY_DOWN:
    case 'j':
        mp->manual = false;
        mp->region = mp->region + 1 < n ? mp->region + 1 : mp->region;
        mp->dump_top = 0;
        return true;
    case KEY_NPAGE:
        mp->dump_top += page;
        return true;
    case KEY_PPAGE:
        mp->dump_top = mp->dump_top > page ? mp->dump_top - page : 0;
        return true;
    case KEY_HOME:
        mp->dump_top = 0;
        return true;
    case 'f':
        mp->fmt = (mp->fmt + 1) % FMT_COUNT;
        mp->dump_top = 0;
        return true;
    case 'a':
        ui_prompt(ui, PROMPT_TEXT,
                  dla_cfg(ui_dla(ui))->cvsram ? "dump address (0x..., c:ADDR for CV-SRAM): "
                                              : "dump address (0x...): ",
                  "", address_done, p);
        return true;
    default:
        return false;
    }
}

/* A click on a region row selects it; the wheel scrolls the dump. */
static bool mouse(struct pane *p, struct ui *ui, int row, int col, mmask_t bstate)
{
    (void)col;
    struct mem_pane *mp = p->priv;
    int wheel = pane_wheel_key(bstate, KEY_PPAGE, KEY_NPAGE);
    if (wheel)
        return key(p, ui, wheel);
    int n = ui->layer >= 0 ? layer_regions(mp, ui->layer) : 0;
    int list_rows = n < 5 ? n : 5; /* as drawn: the heading, then up to 5 regions */
    int first = mp->region - list_rows + 1 > 0 ? mp->region - list_rows + 1 : 0;
    if (row < 1 || row > list_rows)
        return false;
    mp->region = first + row - 1;
    mp->manual = false;
    mp->dump_top = 0;
    return true;
}

static void title(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    (void)p;
    (void)ui;
    snprintf(buf, len, "Memory");
}

static bool selected(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    struct mem_pane *mp = p->priv;
    const struct region *r =
        mp->manual || ui->layer < 0 ? NULL : layer_region(mp, ui->layer, mp->region);
    if (mp->manual)
        snprintf(buf, len, "%s 0x%llx", dla_space_name((enum dla_space)mp->space),
                 (unsigned long long)mp->addr);
    else if (r)
        snprintf(buf, len, "%s 0x%llx +%llu", dla_space_name((enum dla_space)r->space),
                 (unsigned long long)r->addr, (unsigned long long)r->bytes);
    else
        return false;
    return true;
}

static void destroy(struct pane *p)
{
    struct mem_pane *mp = p->priv;
    free(mp->regions);
    free(mp);
}

/* The key bar's share of keys_help while the pane has the focus. */
static const struct pane_key bar_keys[] = {
    {"a", "Address"},
    {"f", "Format"},
    {NULL, NULL},
};

static const struct pane_ops ops = {
    .name = "mem",
    .keys_help = "j k\tselect a region the layer read or wrote\n"
                 "PgUp PgDn Home\tscroll the dump\n"
                 "f\tformat: hex, int8, int16, fp16\n"
                 "a\tdump any address (c:ADDR for CV-SRAM, on configurations with one)\n"
                 "\tthat is memory as x has it: else \"Cannot access memory\"",
    .bar_keys = bar_keys,
    .draw = draw,
    .key = key,
    .mouse = mouse,
    .title = title,
    .selected = selected,
    .stopped = stopped,
    .event = event,
    .destroy = destroy,
};

struct pane *pane_mem_create(void)
{
    struct pane *p = pane_alloc(&ops, sizeof(struct mem_pane));
    if (!p)
        return NULL;
    struct mem_pane *mp = p->priv;
    mp->regions = calloc(MAX_REGIONS, sizeof *mp->regions);
    if (!mp->regions) {
        destroy(p);
        free(p);
        return NULL;
    }
    return p;
}
