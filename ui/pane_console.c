/* The console: the output of every command (typed, or executed for a key)
 * and a readline command line, fed through readline's callback interface.
 *
 * Readline never touches the terminal here: curses owns it.  Keys reach
 * readline through a custom rl_getc_function fed from a small queue (curses
 * key codes become the escape sequences readline binds), readline's
 * redisplay only marks the pane for drawing, and the pane draws
 * rl_line_buffer and rl_point itself.  History (in the XDG state folder) and
 * completion (dbg_complete) work as in the plain console. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "util/path.h"
#include "ui.h"

#define LOG_LINES   4000
#define QUEUE_BYTES 64
#define PROMPT      "(dladbg) "
#define HISTORY_MAX 2000 /* as the plain console keeps: they share the file */

enum { KIND_ECHO = 100 }; /* after the dbg_out_kind values */

struct log_line {
    int kind;
    char *text;
};

struct console {
    struct log_line log[LOG_LINES]; /* ring */
    size_t head, count;
    int scroll; /* screen rows up from the newest output */
    unsigned char queue[QUEUE_BYTES];
    size_t qhead, qlen;
    char pending[1024];
    bool have_pending;
    FILE *devnull;
    char history_path[1024];
    bool installed;
};

/* Readline's hooks carry no context: there is one console. */
static struct console *con;
static struct ui *con_ui;

/* ---------------------------------------------------------------- output */

static void log_add(int kind, const char *text)
{
    if (!con)
        return;
    char *copy = strdup(text);
    if (!copy)
        return;
    size_t slot = (con->head + con->count) % LOG_LINES;
    if (con->count == LOG_LINES) {
        free(con->log[con->head].text);
        con->head = (con->head + 1) % LOG_LINES;
    } else {
        con->count++;
    }
    con->log[slot] = (struct log_line){kind, copy};
    if (con->scroll > 0) /* reading back: keep the view where it is */
        con->scroll++;
}

void console_out(struct ui *ui, enum dbg_out_kind kind, const char *text)
{
    (void)ui;
    log_add((int)kind, text);
}

void console_echo(struct ui *ui, const char *line)
{
    char text[1100];
    snprintf(text, sizeof text, "%s%s", dbg_prompt(ui->g), line); /* ">" in "commands" */
    log_add(KIND_ECHO, text);
    if (con)
        con->scroll = 0;
}

/* ---------------------------------------------------------------- readline hooks */

static int queue_getc(FILE *in)
{
    (void)in;
    if (!con || !con->qlen)
        return EOF;
    int c = con->queue[con->qhead];
    con->qhead = (con->qhead + 1) % QUEUE_BYTES;
    con->qlen--;
    return c;
}

static int queue_pending(void)
{
    return con && con->qlen > 0;
}

static void redisplay(void)
{
    if (con_ui)
        con_ui->dirty = true;
}

static void prep_terminal(int meta)
{
    (void)meta; /* curses has the terminal in the mode the TUI needs */
}

static void deprep_terminal(void) {}

static void line_accepted(char *line)
{
    if (!line) /* Ctrl-D on an empty line: nothing to do in the TUI */
        return;
    if (*line) {
        HIST_ENTRY *last =
            history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
        if (!last || strcmp(last->line, line) != 0)
            add_history(line);
    }
    snprintf(con->pending, sizeof con->pending, "%s", line);
    con->have_pending = true;
    free(line);
}

struct candidates {
    char **v;
    size_t n, cap;
};

static void add_candidate(void *ctx, const char *cand)
{
    struct candidates *c = ctx;
    if (c->n + 2 >= c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 32;
        char **v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return;
        c->v = v;
        c->cap = cap;
    }
    char *copy = strdup(cand);
    if (copy)
        c->v[1 + c->n++] = copy; /* [0] is the common prefix */
}

static size_t common_prefix(char **v, size_t n)
{
    size_t len = strlen(v[0]);
    for (size_t i = 1; i < n; i++) {
        size_t k = 0;
        while (k < len && v[i][k] && v[i][k] == v[0][k])
            k++;
        len = k;
    }
    return len;
}

static char **complete(const char *text, int start, int end)
{
    (void)text;
    (void)start;
    rl_attempted_completion_over = 1; /* never fall back to file names */
    if (!con_ui)
        return NULL;
    struct candidates c = {0};
    size_t word_start = 0;
    dbg_complete(con_ui->g, rl_line_buffer, (size_t)end, &word_start, add_candidate, &c);
    if (!c.n) {
        free(c.v);
        return NULL;
    }
    size_t len = common_prefix(c.v + 1, c.n);
    c.v[0] = strndup(c.v[1], len);
    c.v[c.n + 1] = NULL;
    /* "CDMA." and "share/" continue: no space after them */
    rl_completion_append_character = c.n == 1 && dbg_completion_continues(c.v[1]) ? '\0' : ' ';
    if (!c.v[0]) {
        for (size_t i = 1; i <= c.n; i++)
            free(c.v[i]);
        free(c.v);
        return NULL;
    }
    return c.v;
}

/* Readline wants to list the candidates: they go to the console output. */
static void show_matches(char **matches, int n, int max_len)
{
    if (!con_ui)
        return;
    int width = con_ui->pane[PANE_CONSOLE]->w - 4;
    int per = width / (max_len + 2);
    if (per < 1)
        per = 1;
    char line[1024];
    size_t used = 0;
    line[0] = 0;
    for (int i = 1; i <= n; i++) {
        int w = snprintf(line + used, sizeof line - used, "%-*s", max_len + 2, matches[i]);
        if (w > 0)
            used = used + (size_t)w < sizeof line ? used + (size_t)w : sizeof line - 1;
        if (i % per == 0 || i == n) {
            log_add(DBG_OUT_NOTE, line);
            used = 0;
            line[0] = 0;
        }
    }
    con->scroll = 0;
}

/* ---------------------------------------------------------------- setup */

void console_init(struct ui *ui)
{
    con = calloc(1, sizeof *con);
    if (!con)
        return;
    con_ui = ui;
    con->devnull = fopen("/dev/null", "r+");
    rl_readline_name = "dladbg";
    rl_catch_signals = 0;
    rl_catch_sigwinch = 0;
    rl_change_environment = 0;
    rl_instream = con->devnull;
    rl_outstream = con->devnull;
    rl_getc_function = queue_getc;
    rl_input_available_hook = queue_pending;
    rl_redisplay_function = redisplay;
    rl_prep_term_function = prep_terminal;
    rl_deprep_term_function = deprep_terminal;
    rl_attempted_completion_function = complete;
    rl_completion_display_matches_hook = show_matches;
    rl_completer_word_break_characters = " \t";
    rl_variable_bind("bell-style", "none");
    rl_variable_bind("show-all-if-ambiguous", "on");
    rl_variable_bind("enable-bracketed-paste", "off");
    using_history();
    stifle_history(HISTORY_MAX);
    path_history_file(con->history_path, sizeof con->history_path);
    if (con->history_path[0])
        read_history(con->history_path);
    rl_callback_handler_install(PROMPT, line_accepted);
    con->installed = true;
}

void console_shutdown(struct ui *ui)
{
    (void)ui;
    if (!con)
        return;
    if (con->installed)
        rl_callback_handler_remove();
    if (con->history_path[0] && write_history(con->history_path) == 0)
        history_truncate_file(con->history_path, HISTORY_MAX);
    clear_history();
    rl_instream = rl_outstream = NULL;
    if (con->devnull)
        fclose(con->devnull);
    for (size_t i = 0; i < con->count; i++)
        free(con->log[(con->head + i) % LOG_LINES].text);
    free(con);
    con = NULL;
    con_ui = NULL;
}

static void feed(const char *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (con->qlen == QUEUE_BYTES)
            break;
        con->queue[(con->qhead + con->qlen) % QUEUE_BYTES] = (unsigned char)bytes[i];
        con->qlen++;
    }
    while (con->qlen)
        rl_callback_read_char();
}

bool console_take_line(struct ui *ui, char *buf, size_t len)
{
    (void)ui;
    if (!con || !con->have_pending)
        return false;
    snprintf(buf, len, "%s", con->pending);
    con->have_pending = false;
    return true;
}

void console_clear_line(struct ui *ui)
{
    (void)ui;
    if (!con)
        return;
    rl_replace_line("", 0);
    rl_point = rl_end = 0;
}

/* ---------------------------------------------------------------- drawing */

static int kind_role(int kind)
{
    switch (kind) {
    case DBG_OUT_STOP:
        return TH_OUT_STOP;
    case DBG_OUT_NOTE:
        return TH_OUT_NOTE;
    case DBG_OUT_WARNING:
        return TH_OUT_WARN;
    case DBG_OUT_ERROR:
        return TH_OUT_ERROR;
    case KIND_ECHO:
        return TH_OUT_ECHO;
    default:
        return TH_OUT_TEXT;
    }
}

static int rows_of(const char *text, int width)
{
    int cells;
    text_clip(text, 1 << 30, &cells);
    return cells <= width ? 1 : (cells + width - 1) / width;
}

/* Draw one log line's screen rows that fall in [0, bottom). */
static void draw_wrapped(struct pane *p, int first_row, const struct log_line *l, int width,
                         int bottom)
{
    const char *t = l->text;
    int row = first_row;
    do {
        int used;
        size_t bytes = text_clip(t, width, &used);
        if (row >= 0 && row < bottom) {
            char piece[1024];
            snprintf(piece, sizeof piece, "%.*s", (int)bytes, t);
            pane_print(p, row, 0, theme((enum theme_role)kind_role(l->kind)), "%s", piece);
        }
        t += bytes;
        row++;
    } while (*t);
}

static void draw_log(struct pane *p, int bottom)
{
    int width = pane_cols(p);
    if (width < 1 || bottom < 1)
        return;
    int clamp_total = 0;
    for (size_t i = 0; i < con->count; i++)
        clamp_total += rows_of(con->log[(con->head + i) % LOG_LINES].text, width);
    if (con->scroll > clamp_total - bottom)
        con->scroll = clamp_total - bottom > 0 ? clamp_total - bottom : 0;
    int row = bottom + con->scroll; /* where the row after the newest line would be */
    for (size_t i = con->count; i-- > 0 && row > 0;) {
        const struct log_line *l = &con->log[(con->head + i) % LOG_LINES];
        row -= rows_of(l->text, width);
        if (row < bottom)
            draw_wrapped(p, row, l, width, bottom);
    }
}

/* The prompt readline shows now: ours, or one of its own while a command of
 * its asks for something ("(reverse-i-search)`re': " during Ctrl-R). */
static const char *input_prompt(void)
{
    return rl_display_prompt && *rl_display_prompt ? rl_display_prompt : PROMPT;
}

/* The input line scrolled so the point is visible; returns the point's column. */
static int draw_input(struct pane *p, struct ui *ui, int row)
{
    int width = pane_cols(p);
    const char *prompt = input_prompt();
    const char *buf = rl_line_buffer ? rl_line_buffer : "";
    int point = rl_point;
    int plen = (int)strlen(prompt);
    int room = width - plen - 1;
    int start = point > room ? point - room : 0;
    bool focused = ui->focus == PANE_CONSOLE;
    pane_fill(p, row, 0, theme(TH_NORMAL));
    pane_print(p, row, 0, theme(focused ? TH_OUT_ECHO : TH_DIM), "%s", prompt);
    char shown[1024];
    snprintf(shown, sizeof shown, "%.*s", room > 0 ? room : 0, buf + start);
    pane_print(p, row, plen, theme(TH_NORMAL), "%s", shown);
    if (!focused && !*buf)
        pane_print(p, row, plen, theme(TH_DIM), ": to type a command, ? for keys");
    return plen + point - start;
}

static void draw(struct pane *p, struct ui *ui)
{
    if (!con)
        return;
    int rows = pane_rows(p);
    draw_log(p, rows - 1);
    draw_input(p, ui, rows - 1);
    if (con->scroll > 0)
        pane_print(p, 0, pane_cols(p) - 14, theme(TH_STATUS_STOP), " scrolled up ");
}

void console_place_cursor(struct ui *ui)
{
    struct pane *p = ui->pane[PANE_CONSOLE];
    if (!con || !p->win || ui->focus != PANE_CONSOLE || ui->prompt.kind != PROMPT_NONE ||
        ui->help_open) {
        curs_set(0);
        return;
    }
    int width = pane_cols(p);
    int plen = (int)strlen(input_prompt());
    int room = width - plen - 1;
    int point = rl_point;
    int col = plen + (point > room ? room : point);
    wmove(p->win, pane_rows(p), 1 + col);
    curs_set(1);
    wnoutrefresh(p->win);
}

void console_follow_prompt(struct ui *ui)
{
    const char *want = dbg_prompt(ui->g);
    /* only when it changes: set between two lines, it lost the line typed ahead
     * while a command ran (tests/tui/export.sh under the sanitizers) */
    if (con && con->installed && (!rl_prompt || strcmp(rl_prompt, want) != 0))
        rl_set_prompt(want);
}

bool console_line_empty(void)
{
    return !rl_line_buffer || !rl_line_buffer[0];
}

static bool key(struct pane *p, struct ui *ui, int k)
{
    if (!con)
        return false;
    int page = pane_rows(p) - 2 > 1 ? pane_rows(p) - 2 : 1;
    switch (k) {
    case KEY_PPAGE:
        con->scroll += page;
        return true;
    case KEY_NPAGE:
        con->scroll = con->scroll > page ? con->scroll - page : 0;
        return true;
    case 27: /* Esc: back to the pane the console was entered from */
        ui_focus(ui, ui->back_focus);
        return true;
    case ':': /* typed to reach the console, which has the keys already: a habit, not text */
        if (console_line_empty())
            return true;
        break;
    default:
        break;
    }
    char bytes[8];
    size_t n = keys_to_readline(k, bytes, sizeof bytes);
    if (!n)
        return false;
    con->scroll = 0;
    feed(bytes, n);
    return true;
}

static bool mouse(struct pane *p, struct ui *ui, int row, int col, mmask_t bstate)
{
    (void)row;
    (void)col;
    (void)ui;
    int wheel = pane_wheel_key(bstate, KEY_PPAGE, KEY_NPAGE);
    return wheel ? key(p, ui, wheel) : false;
}

static void title(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    (void)p;
    snprintf(buf, len, "Console%s",
             ui->focus == PANE_CONSOLE
                 ? " (Tab completes, Up/Down history, PgUp/PgDn scroll, Esc leaves)"
                 : "");
}

static bool selected(struct pane *p, struct ui *ui, char *buf, size_t len)
{
    (void)p;
    (void)ui;
    snprintf(buf, len, "%s", rl_line_buffer ? rl_line_buffer : "");
    return rl_line_buffer && *rl_line_buffer;
}

static const struct pane_ops ops = {
    .name = "console",
    .keys_help = "Enter\texecute the line (an empty line repeats the last step)\n"
                 "Tab\tcomplete commands, units, registers, fields, breakpoints\n"
                 "\t(on an empty line Tab, S-Tab and 1-8 go to the panes)\n"
                 "Up Down C-r\thistory (kept in $XDG_STATE_HOME/dladbg/history)\n"
                 "PgUp PgDn\tscroll the output\n"
                 "Esc\tleave the console",
    .draw = draw,
    .key = key,
    .mouse = mouse,
    .title = title,
    .selected = selected,
};

struct pane *pane_console_create(void)
{
    return pane_alloc(&ops, 0);
}
