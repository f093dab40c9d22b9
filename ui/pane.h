/* A pane: one rectangle of the screen with one job (layers, registers, ...).
 * The main loop knows panes only through this interface (htop's Panel idea):
 * it places them (layout.c), asks them to draw, and hands them the keys and
 * mouse clicks that are not global.  A pane keeps its own scroll position and
 * cursor; what several panes share (the selected layer, unit, group) lives in
 * struct ui (ui.h). */
#ifndef DLADBG_UI_PANE_H
#define DLADBG_UI_PANE_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/dla.h"

struct ui;
struct pane;

/* A key only one pane takes, as the key bar names it ("o", "Order"). */
struct pane_key {
    const char *key, *label;
};

struct pane_ops {
    const char *name; /* "layers", "regs", ...: used in titles, help and messages */
    /* Pane-local keys for the help overlay: lines of "KEYS\tdescription". */
    const char *keys_help;
    /* The few of them the key bar shows while the pane has the focus, as
     * htop's function bar changes with its screen, the most wanted first;
     * ended by a NULL key.  NULL: none. */
    const struct pane_key *bar_keys;
    /* Draw the inside of the pane (the frame and title are drawn for it). */
    void (*draw)(struct pane *p, struct ui *ui);
    /* A key while the pane has the focus; false when the pane does not use it. */
    bool (*key)(struct pane *p, struct ui *ui, int key);
    /* A mouse event at (row, col) inside the frame (0,0 = first inner cell). */
    bool (*mouse)(struct pane *p, struct ui *ui, int row, int col, mmask_t bstate);
    /* Title shown in the frame ("Registers CDMA group 0"). */
    void (*title)(struct pane *p, struct ui *ui, char *buf, size_t len);
    /* The item under the cursor as text ("layer 3", "CDMA.D_MISC_CFG_0"); false if none. */
    bool (*selected)(struct pane *p, struct ui *ui, char *buf, size_t len);
    /* Optional: execution stopped or the state jumped (step, back, poke, file). */
    void (*stopped)(struct pane *p, struct ui *ui);
    /* Optional: a model event while it happens (cheap; no drawing here). */
    void (*event)(struct pane *p, struct ui *ui, const struct dla_event *ev);
    /* Optional: free priv. */
    void (*destroy)(struct pane *p);
};

struct pane {
    const struct pane_ops *ops;
    WINDOW *win; /* the frame; NULL while the pane is not placed */
    int y, x, h, w;
    int cursor, top; /* list panes: selected row and first visible row */
    void *priv;
};

/* Inner size of a placed pane (inside the frame). */
static inline int pane_rows(const struct pane *p)
{
    return p->h > 2 ? p->h - 2 : 0;
}

static inline int pane_cols(const struct pane *p)
{
    return p->w > 2 ? p->w - 2 : 0;
}

/* ---------------------------------------------------------------- helpers (pane.c) */

/* A new pane with its ops and a zeroed private part of priv_size bytes (none
 * when 0); NULL when out of memory.  Shared by every pane_*_create(). */
struct pane *pane_alloc(const struct pane_ops *ops, size_t priv_size);
/* pane_ops.destroy of the panes whose private part is one allocation. */
void pane_free_priv(struct pane *p);
/* pane_ops.selected of the panes whose rows stand for layers (layers,
 * timeline, perf): "layer N" for the selected layer, false when none. */
bool pane_selected_layer(struct pane *p, struct ui *ui, char *buf, size_t len);
/* The key a mouse-wheel event stands for (up_key for the wheel turned up,
 * down_key for down), 0 for any other event: panes scroll by the wheel
 * exactly as by their keys, and ncurses may lack BUTTON5 (one #ifdef here). */
int pane_wheel_key(mmask_t bstate, int up_key, int down_key);

/* Frame with the title; the focused pane's frame stands out. */
void pane_frame(struct pane *p, struct ui *ui, bool focused);

/* Bytes of text that fit in max_cols cells (*cols: cells used). */
size_t text_clip(const char *text, int max_cols, int *cols);
/* Text at an inner position, clipped to the inner width; returns cells used. */
int pane_print(struct pane *p, int row, int col, attr_t attr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Fill the rest of an inner row from col with blanks in attr. */
void pane_fill(struct pane *p, int row, int col, attr_t attr);

/* Movement keys of a list of n rows showing `visible` rows at a time: arrows,
 * j/k, PgUp/PgDn, Home/End.  Returns true when the key was one of them. */
bool pane_list_key(struct pane *p, int key, int n, int visible);
/* Keep cursor inside [0, n) and visible. */
void pane_list_clamp(struct pane *p, int n, int visible);

#endif
