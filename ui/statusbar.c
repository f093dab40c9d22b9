/* The status line (top: file, configuration, layer k/N, cycle, why execution
 * stopped), the key bar (bottom: the main keys, or the prompt while one is
 * open) and the message shown instead of the panes on a too small screen. */
#include <stdio.h>
#include <string.h>

#include "path.h"
#include "format.h"
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
        mvaddnstr(ui->rows - 1, 1, "Enter: write the value (a console command)   Esc: cancel",
                  ui->cols - 2);
        attrset(theme(TH_NORMAL));
        return;
    }
    char line[512];
    snprintf(line, sizeof line, "%s%s", pr->label, pr->text);
    int n = (int)strlen(line);
    int start = n > ui->cols - 2 ? n - (ui->cols - 2) : 0;
    mvaddnstr(ui->rows - 1, 0, line + start, ui->cols - 1);
    attrset(theme(TH_NORMAL));
}

void keybar_draw(struct ui *ui)
{
    if (ui->prompt.kind != PROMPT_NONE) {
        prompt_draw(ui);
        return;
    }
    static const struct {
        const char *key, *label;
    } items[] = {
        {"F1", "Help"}, {"F5", "Cont"},  {"F10", "Layer"}, {"F11", "Write"}, {"b", "Break"},
        {"B", "Back"},  {"Tab", "Pane"}, {"/", "Search"},  {":", "Console"}, {"q", "Quit"},
    };
    static const struct {
        const char *key, *label;
    } running[] = {{"Ctrl-C", "Interrupt"}, {"Esc", "Interrupt"}};
    int y = ui->rows - 1, x = 0;
    attrset(theme(TH_KEY_LABEL));
    mvhline(y, 0, ' ', ui->cols);
    size_t n = ui->running ? sizeof running / sizeof running[0] : sizeof items / sizeof items[0];
    for (size_t i = 0; i < n && x < ui->cols; i++) {
        const char *key = ui->running ? running[i].key : items[i].key;
        const char *label = ui->running ? running[i].label : items[i].label;
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
