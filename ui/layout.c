/* Where the panes go.  Nothing here draws: layout_place() only decides the
 * rectangles for the current screen size and (re)creates the windows.
 *
 *   +-------------------------- status line ---------------------------+
 *   | 1 layers           | right slot: 2 regs | 3 cbuf | 4 lut | ...    |
 *   |                    | (wide screens: regs and another side by side)|
 *   +------------------------------ 7 timeline -------------------------+
 *   +------------------------------ console ----------------------------+
 *   +---------------------------- key bar -------------------------------+
 */
#include "ui.h"

struct rect {
    int y, x, h, w;
};

/* Wide enough for regs and another right-hand pane side by side. */
#define WIDE_COLS 170

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void place(struct pane *p, struct rect r)
{
    if (p->win) {
        delwin(p->win);
        p->win = NULL;
    }
    p->y = r.y;
    p->x = r.x;
    p->h = r.h;
    p->w = r.w;
    if (r.h >= 3 && r.w >= 8)
        p->win = newwin(r.h, r.w, r.y, r.x);
}

static void hide(struct pane *p)
{
    if (p->win)
        delwin(p->win);
    p->win = NULL;
    p->h = p->w = 0;
}

/* The console's height: a default that grows with the screen, plus what the
 * user added or took (F3/F4), kept between 3 rows and what leaves the panes
 * above it MIN_TOP_ROWS; the user's share is clamped too, so the keys act at
 * once in the other direction. */
#define MIN_TOP_ROWS 6
static int console_height(struct ui *ui, int room)
{
    int def = ui->rows >= 36 ? 10 : ui->rows >= 30 ? 8 : 6;
    int hi = room - MIN_TOP_ROWS > 3 ? room - MIN_TOP_ROWS : 3;
    int h = clamp(def + ui->console_extra, 3, hi);
    ui->console_extra = h - def;
    return h;
}

void layout_place(struct ui *ui)
{
    getmaxyx(stdscr, ui->rows, ui->cols);
    ui->too_small = ui->rows < UI_MIN_ROWS || ui->cols < UI_MIN_COLS;
    for (int i = 0; i < PANE_COUNT; i++)
        hide(ui->pane[i]);
    if (ui->too_small)
        return;
    if (!is_right_pane(ui->detail))
        ui->detail = PANE_REGS;
    int body = ui->rows - 2; /* minus status line and key bar */
    if (ui->console_max) {
        place(ui->pane[PANE_CONSOLE], (struct rect){1, 0, body, ui->cols});
        return;
    }
    int timeline_h = ui->rows >= 36 ? 9 : ui->rows >= 30 ? 7 : 6;
    int console_h = console_height(ui, body - timeline_h);
    int top_h = body - console_h - timeline_h;
    /* the reference column ("DIFF .4123") takes 11 more cells */
    ui->wide_layers = layers_show_reference(ui);
    int left_w = clamp(ui->cols * 2 / 5 + (ui->wide_layers ? 11 : 0), 40, 72);
    struct rect layers = {1, 0, top_h, left_w};
    struct rect timeline = {1 + top_h, 0, timeline_h, ui->cols};
    struct rect console = {1 + top_h + timeline_h, 0, console_h, ui->cols};
    place(ui->pane[PANE_LAYERS], layers);
    place(ui->pane[PANE_TIMELINE], timeline);
    place(ui->pane[PANE_CONSOLE], console);
    int right_w = ui->cols - left_w;
    if (ui->cols >= WIDE_COLS) {
        /* regs always, and the last other right-hand pane next to it */
        enum pane_id other = ui->detail != PANE_REGS ? ui->detail : ui->placed_with;
        if (!is_right_pane(other) || other == PANE_REGS)
            other = PANE_PERF;
        ui->placed_with = other;
        int regs_w = right_w / 2;
        place(ui->pane[PANE_REGS], (struct rect){1, left_w, top_h, regs_w});
        place(ui->pane[other], (struct rect){1, left_w + regs_w, top_h, right_w - regs_w});
        return;
    }
    place(ui->pane[ui->detail], (struct rect){1, left_w, top_h, right_w});
}

bool layout_visible(const struct ui *ui, enum pane_id id)
{
    return id < PANE_COUNT && ui->pane[id]->win != NULL;
}

enum pane_id layout_pane_at(const struct ui *ui, int y, int x)
{
    for (int i = 0; i < PANE_COUNT; i++) {
        const struct pane *p = ui->pane[i];
        if (p->win && y >= p->y && y < p->y + p->h && x >= p->x && x < p->x + p->w)
            return (enum pane_id)i;
    }
    return PANE_COUNT;
}
