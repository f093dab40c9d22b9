/* The status line (top: file, configuration, layer k/N, cycle, why execution
 * stopped), the key bar (bottom: the main keys, or the prompt while one is
 * open) and the message shown instead of the panes on a too small screen. */
#include <stdio.h>
#include <string.h>

#include "util/path.h"
#include "cmd/format.h"
#include "ui.h"

static void layer_progress(struct ui *ui, char *buf, size_t len)
{
    struct session *s = ui->g->session;
    struct dla *d = session_dla(s);
    unsigned long long done = session_layers_done(s);
    /* a layer never enabled (a poke after the end) is no layer of the run */
    unsigned long long seen = format_layers_of_run(d, session_finished(s));
    if (session_finished(s) || (ui->known_layers && ui->known_layers >= seen))
        snprintf(buf, len, "layer %llu/%llu", done,
                 session_finished(s) ? seen : (unsigned long long)ui->known_layers);
    else
        snprintf(buf, len, "layer %llu/%llu+", done, seen);
}

/* Write text at the status line's column x; returns the next column. */
static int put(int x, attr_t attr, const char *text, int limit)
{
    if (x >= limit)
        return x;
    int n = (int)strlen(text);
    if (n > limit - x)
        n = limit - x;
    attrset(attr);
    mvaddnstr(0, x, text, n);
    return x + n;
}

void statusbar_draw(struct ui *ui)
{
    int cols = ui->cols;
    attr_t base = theme(TH_STATUS);
    attrset(base);
    mvhline(0, 0, ' ', cols);
    char text[800];
    int x = put(0, base | A_BOLD, " dladbg ", cols);
    struct session *s = ui->g->session;
    if (!s) {
        x = put(x, base, "| no file open (\"file FILE\" in the console) ", cols);
    } else {
        struct dla *d = session_dla(s);
        char name[512], progress[64];
        /* the file's name without its folders; a trace folder keeps its own */
        path_last_component(session_path(s), name, sizeof name);
        layer_progress(ui, progress, sizeof progress);
        snprintf(text, sizeof text, "| %s | %s | %s | cycle %llu ", name, dla_cfg(d)->name,
                 progress, (unsigned long long)dla_now(d));
        x = put(x, base, text, cols);
    }
    if (ui->running) {
        snprintf(text, sizeof text, " running: %s  (Ctrl-C interrupts) ", ui->running_cmd);
        x = put(x + 1, theme(TH_STATUS_RUN), text, cols);
    } else if (ui->message[0]) {
        snprintf(text, sizeof text, " %s ", ui->message);
        x = put(x + 1, theme(ui->message_error ? TH_STATUS_RUN : TH_STATUS_STOP), text, cols);
    } else if (ui->stop_reason[0]) {
        snprintf(text, sizeof text, " %s ", ui->stop_reason);
        x = put(x + 1, theme(TH_STATUS_STOP), text, cols);
    }
    attrset(theme(TH_NORMAL));
}

static void prompt_draw(struct ui *ui)
{
    struct prompt *pr = &ui->prompt;
    attrset(theme(TH_OVERLAY));
    mvhline(ui->rows - 1, 0, ' ', ui->cols);
    if (pr->anchor) {
        /* the editor itself sits in the pane; say how to leave it */
        mvaddnstr(ui->rows - 1, 1,
                  pr->selected ? "Enter: write the value (a console command)   Esc: cancel   "
                                 "Typing replaces the value, Backspace edits it"
                               : "Enter: write the value (a console command)   Esc: cancel",
                  ui->cols - 2);
        attrset(theme(TH_NORMAL));
        return;
    }
    char line[512];
    snprintf(line, sizeof line, "%s%s", pr->label, pr->text);
    int n = (int)strlen(line);
    int start = n > ui->cols - 2 ? n - (ui->cols - 2) : 0;
    mvaddnstr(ui->rows - 1, 0, line + start, ui->cols - 1);
    int label = (int)strlen(pr->label) - start;
    if (pr->selected && label >= 0) /* the initial text, selected: typing replaces it */
        mvchgat(ui->rows - 1, label, (int)pr->len, theme(TH_OVERLAY) | A_REVERSE, 0, NULL);
    attrset(theme(TH_NORMAL));
}

struct keybar_item {
    const char *key, *label;
    int rank;
};

/* "F1 Help  ": the cells an item takes. */
static int item_width(const struct keybar_item *it)
{
    return (int)(strlen(it->key) + 1 + strlen(it->label) + 2);
}

/* The highest rank whose items all fit in cols (0 when even those do not). */
static int keybar_rank_that_fits(const struct keybar_item *items, size_t n, int cols)
{
    for (int rank = 4; rank > 0; rank--) {
        int w = 0;
        for (size_t i = 0; i < n; i++)
            if (items[i].rank <= rank)
                w += item_width(&items[i]);
        if (w - 2 <= cols) /* the last item needs no gap after it */
            return rank;
    }
    return 0;
}

/* Most keys a pane puts on the key bar. */
#define PANE_BAR_KEYS 3

/* The key bar's items: the global keys, and the focused pane's own
 * (pane_ops.bar_keys) before ":" and "q".  Its first is ranked with F11
 * and b (an 80-column bar shows it), the others with B: a narrower screen
 * drops Tab, / and F2 before them. */
static size_t keybar_items(const struct ui *ui, struct keybar_item *out)
{
    /* rank: what a narrow screen drops first (highest first); q Quit always stays */
    static const struct keybar_item global[] = {
        {"F1", "Help", 0}, {"F5", "Cont", 0},    {"F10", "Layer", 0}, {"F11", "Write", 1},
        {"b", "Break", 1}, {"B", "Back", 2},     {"Tab", "Pane", 3},  {"/", "Search", 3},
        {"F2", "Max", 4},  {":", "Console", 0}, {"q", "Quit", 0},
    };
    const size_t n_global = sizeof global / sizeof global[0];
    size_t n = 0;
    for (size_t i = 0; i + 2 < n_global; i++)
        out[n++] = global[i];
    const struct pane *p = ui->pane[ui->focus];
    const struct pane_key *own = p ? p->ops->bar_keys : NULL;
    for (size_t i = 0; own && own[i].key && i < PANE_BAR_KEYS; i++)
        out[n++] = (struct keybar_item){own[i].key, own[i].label, i ? 2 : 1};
    out[n++] = global[n_global - 2];
    out[n++] = global[n_global - 1];
    return n;
}

void keybar_draw(struct ui *ui)
{
    if (ui->prompt.kind != PROMPT_NONE) {
        prompt_draw(ui);
        return;
    }
    static const struct keybar_item running[] = {{"Ctrl-C", "Interrupt", 0},
                                                 {"Esc", "Interrupt", 0}};
    struct keybar_item items[16 + PANE_BAR_KEYS];
    int y = ui->rows - 1, x = 0;
    attrset(theme(TH_KEY_LABEL));
    mvhline(y, 0, ' ', ui->cols);
    const struct keybar_item *shown = ui->running ? running : items;
    size_t n = ui->running ? sizeof running / sizeof running[0] : keybar_items(ui, items);
    int rank = keybar_rank_that_fits(shown, n, ui->cols);
    for (size_t i = 0; i < n && x < ui->cols; i++) {
        if (shown[i].rank > rank)
            continue;
        const char *key = shown[i].key;
        const char *label = shown[i].label;
        attrset(theme(TH_KEY));
        mvaddnstr(y, x, key, ui->cols - x);
        x += (int)strlen(key) + 1;
        if (x >= ui->cols)
            break;
        attrset(theme(TH_KEY_LABEL));
        mvaddnstr(y, x, label, ui->cols - x);
        x += (int)strlen(label) + 2;
    }
    attrset(theme(TH_NORMAL));
}

void too_small_draw(struct ui *ui)
{
    erase();
    char line1[128], line2[128];
    snprintf(line1, sizeof line1, "Terminal too small: %dx%d.", ui->cols, ui->rows);
    snprintf(line2, sizeof line2, "dladbg needs at least %dx%d; enlarge it or press q to quit.",
             UI_MIN_COLS, UI_MIN_ROWS);
    const char *lines[] = {line1, line2};
    for (int i = 0; i < 2; i++) {
        int n = (int)strlen(lines[i]);
        int y = ui->rows / 2 - 1 + i;
        int x = (ui->cols - n) / 2;
        if (y < 0 || y >= ui->rows)
            continue;
        if (x < 0)
            x = 0;
        attrset(i == 0 ? A_BOLD : A_NORMAL);
        mvaddnstr(y, x, lines[i], ui->cols - x);
    }
    attrset(A_NORMAL);
}
