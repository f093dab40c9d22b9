/* What every pane needs: allocation, its frame and title, clipped text
 * output, the movement keys of a scrolling list and the mouse wheel. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

struct pane *pane_alloc(const struct pane_ops *ops, size_t priv_size)
{
    struct pane *p = calloc(1, sizeof *p);
    void *priv = priv_size ? calloc(1, priv_size) : NULL;
    if (!p || (priv_size && !priv)) {
        free(p);
        free(priv);
        return NULL;
    }
    p->ops = ops;
    p->priv = priv;
    return p;
}

void pane_free_priv(struct pane *p)
{
    free(p->priv);
}

bool pane_selected_layer(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    (void)p;
    if (ui->layer < 0)
        return false;
    snprintf(buf, len, "layer %ld", ui->layer);
    return true;
}

int pane_wheel_key(mmask_t bstate, int up_key, int down_key)
{
    if (bstate & BUTTON4_PRESSED)
        return up_key;
#ifdef BUTTON5_PRESSED
    if (bstate & BUTTON5_PRESSED)
        return down_key;
#else
    (void)down_key;
#endif
    return 0;
}

size_t text_clip(const char *text, int max_cols, int *cols)
{
    /* every glyph the TUI prints is one cell wide: count UTF-8 lead bytes */
    size_t i = 0;
    int n = 0;
    while (text[i]) {
        if (((unsigned char)text[i] & 0xc0) != 0x80) {
            if (n == max_cols)
                break;
            n++;
        }
        i++;
    }
    if (cols)
        *cols = n;
    return i;
}

void pane_frame(struct pane *p, struct ui *ui, bool focused)
{
    WINDOW *w = p->win;
    wattrset(w, theme(focused ? TH_BORDER_FOCUS : TH_BORDER));
    box(w, 0, 0);
    char title[200];
    title[0] = 0;
    if (p->ops->title)
        p->ops->title(p, ui, title, sizeof title);
    char text[240];
    int number = -1;
    for (int i = 0; i < PANE_CONSOLE; i++)
        if (ui->pane[i] == p)
            number = i + 1;
    if (number > 0)
        snprintf(text, sizeof text, " %d %s ", number, title);
    else
        snprintf(text, sizeof text, " %s ", title);
    int room = p->w - 4;
    if (room <= 0)
        return;
    wattrset(w, theme(focused ? TH_TITLE_FOCUS : TH_TITLE));
    mvwaddnstr(w, 0, 2, text, room);
    wattrset(w, theme(TH_NORMAL));
}

int pane_print(struct pane *p, int row, int col, attr_t attr, const char *fmt, ...)
{
    int cols = pane_cols(p);
    if (row < 0 || row >= pane_rows(p) || col >= cols || col < 0)
        return 0;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    int used;
    size_t bytes = text_clip(buf, cols - col, &used);
    wattrset(p->win, attr);
    mvwaddnstr(p->win, row + 1, col + 1, buf, (int)bytes);
    wattrset(p->win, theme(TH_NORMAL));
    return used;
}

void pane_fill(struct pane *p, int row, int col, attr_t attr)
{
    int cols = pane_cols(p);
    if (row < 0 || row >= pane_rows(p) || col >= cols)
        return;
    wattrset(p->win, attr);
    mvwhline(p->win, row + 1, col + 1, ' ', cols - col);
    wattrset(p->win, theme(TH_NORMAL));
}

void pane_list_clamp(struct pane *p, int n, int visible)
{
    if (p->cursor >= n)
        p->cursor = n - 1;
    if (p->cursor < 0)
        p->cursor = 0;
    if (visible < 1)
        visible = 1;
    if (p->cursor < p->top)
        p->top = p->cursor;
    if (p->cursor >= p->top + visible)
        p->top = p->cursor - visible + 1;
    if (p->top > n - visible)
        p->top = n - visible;
    if (p->top < 0)
        p->top = 0;
}

bool pane_list_key(struct pane *p, int key, int n, int visible)
{
    int page = visible > 1 ? visible - 1 : 1;
    switch (key) {
    case KEY_UP:
    case 'k':
        p->cursor--;
        break;
    case KEY_DOWN:
    case 'j':
        p->cursor++;
        break;
    case KEY_PPAGE:
        p->cursor -= page;
        break;
    case KEY_NPAGE:
        p->cursor += page;
        break;
    case KEY_HOME:
        p->cursor = 0;
        break;
    case KEY_END:
        p->cursor = n - 1;
        break;
    default:
        return false;
    }
    pane_list_clamp(p, n, visible);
    return true;
}
