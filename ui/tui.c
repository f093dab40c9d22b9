/* The TUI's main loop: terminal setup and restore, signals, key and mouse
 * dispatch, command execution with live progress, and drawing.
 *
 * Commands run inside dbg_exec(), which returns only when the step or run
 * is over.  To keep the screen live meanwhile, the TUI listens to the
 * model's events: at most every 100 ms during a command it redraws (layer
 * k/N, cycle, the layers and timeline) and polls the keyboard for a resize
 * or Esc.  Ctrl-C arrives as SIGINT and sets session_interrupt, which ends
 * the run after the current action; the program goes on.
 *
 * The terminal is restored on every way out: a normal quit (endwin), exit()
 * from anywhere (atexit), SIGTERM/SIGHUP (handled in the loop, or at once
 * when a second one comes), and fatal signals (the saved escape sequences and
 * termios are written back from the handler, which is async-signal-safe). */
#include "tui.h"

#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "ui.h"
#include "plugin/plugin_child.h"
#include "util/afile.h"

#define PROGRESS_MS  100  /* redraw interval while a command runs */
#define CTRL_C_MS    2000 /* a second idle Ctrl-C within this quits */
#define IDLE_POLL_MS 250

/* ---------------------------------------------------------------- terminal and signals */

static volatile sig_atomic_t got_sigint, got_term, running_flag, terminal_taken;
static struct termios saved_tio;
static bool have_tio;
static char restore_seq[512];
static size_t restore_len;
static struct sigaction old_int, old_term, old_hup;

/* Signals that end the program at once: give the terminal back, then let the
 * previous disposition (a sanitizer's report, a core dump) do its work. */
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT};
#define N_FATAL (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction old_fatal[N_FATAL];

/* Async-signal-safe: write the saved "leave the TUI" sequences, put termios back. */
static void emergency_restore(void)
{
    if (!terminal_taken)
        return;
    terminal_taken = 0;
    ssize_t w = write(STDOUT_FILENO, restore_seq, restore_len);
    (void)w;
    if (have_tio)
        tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
}

static void append_cap(const char *name)
{
    char *s = tigetstr(name);
    if (!s || s == (char *)-1)
        return;
    size_t n = strlen(s);
    if (restore_len + n < sizeof restore_seq) {
        memcpy(restore_seq + restore_len, s, n);
        restore_len += n;
    }
}

/* What endwin would send, precomputed so a signal handler can send it. */
static void build_restore_sequence(void)
{
    static const char mouse_off[] = "\033[?1006l\033[?1003l\033[?1002l\033[?1000l";
    restore_len = 0;
    memcpy(restore_seq, mouse_off, sizeof mouse_off - 1);
    restore_len = sizeof mouse_off - 1;
    append_cap("sgr0");
    append_cap("cnorm");
    append_cap("rmkx");
    append_cap("rmcup");
}

static void on_sigint(int sig)
{
    (void)sig;
    /* A Ctrl-C that interrupts a run is the run's: counted as an idle one
     * too, a second press soon after (to be sure, as in gdb) quit unasked. */
    if (running_flag)
        session_interrupt = 1;
    else
        got_sigint = 1;
}

static void on_term(int sig)
{
    (void)sig;
    session_interrupt = 1; /* a run stops; the loop then leaves cleanly */
    if (got_term) {
        /* asked twice: the loop is not getting there, leave now, without
         * the temporaries of an export in progress */
        emergency_restore();
        afile_remove_temporaries();
        _exit(128 + sig);
    }
    got_term = sig;
}

static void on_fatal(int sig)
{
    emergency_restore();
    for (size_t i = 0; i < N_FATAL; i++)
        if (fatal_signals[i] == sig)
            sigaction(sig, &old_fatal[i], NULL); /* e.g. the sanitizer's report */
    raise(sig);
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_sigint; /* no SA_RESTART: a blocked read returns to the loop */
    sigaction(SIGINT, &sa, &old_int);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    sa.sa_handler = on_fatal;
    for (size_t i = 0; i < N_FATAL; i++)
        sigaction(fatal_signals[i], &sa, &old_fatal[i]);
}

static void restore_signals(void)
{
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    for (size_t i = 0; i < N_FATAL; i++)
        sigaction(fatal_signals[i], &old_fatal[i], NULL);
}

/* The terminal is gone (its window closed, the connection dropped): every
 * read now fails at once, so a loop that waits for a key would spin.  A hung
 * up tty polls as POLLHUP or POLLERR. */
static bool terminal_lost(void)
{
    struct pollfd in = {.fd = STDIN_FILENO, .events = POLLIN};
    return poll(&in, 1, 0) == 1 && (in.revents & (POLLHUP | POLLERR | POLLNVAL));
}

static void restore_at_exit(void)
{
    if (terminal_taken) {
        terminal_taken = 0;
        endwin();
    }
}

/* ---------------------------------------------------------------- small helpers */

long long ui_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct dla *ui_dla(struct ui *ui)
{
    return ui->g->session ? session_dla(ui->g->session) : NULL;
}

void ui_message(struct ui *ui, bool error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ui->message, sizeof ui->message, fmt, ap);
    va_end(ap);
    ui->message_error = error;
    ui->dirty = true;
}

static enum dla_unit main_unit(enum dla_proc p)
{
    switch (p) {
    case DLA_P_BDMA:
        return DLA_U_BDMA;
    case DLA_P_CONV:
        return DLA_U_CDMA;
    case DLA_P_SDP:
        return DLA_U_SDP;
    case DLA_P_PDP:
        return DLA_U_PDP;
    case DLA_P_CDP:
        return DLA_U_CDP;
    case DLA_P_RUBIK:
        return DLA_U_RBK;
    default:
        return DLA_U_GLB;
    }
}

void ui_select_layer(struct ui *ui, long layer)
{
    struct dla *d = ui_dla(ui);
    long n = d ? (long)dla_layer_count(d) : 0;
    if (layer >= n)
        layer = n - 1;
    ui->layer = layer < 0 ? -1 : layer;
    ui->dirty = true;
    if (ui->layer < 0 || ui->unit_pinned)
        return;
    const struct dla_layer *l = dla_layer_get(d, (size_t)ui->layer);
    ui->unit = main_unit((enum dla_proc)l->proc);
    if (l->group <= 1)
        ui->group = l->group;
}

long ui_current_layer(struct ui *ui)
{
    struct dla *d = ui_dla(ui);
    const struct dla_layer *l = d ? session_layer_at(ui->g->session) : NULL;
    return l ? (long)l->index : -1;
}

void ui_focus(struct ui *ui, enum pane_id id)
{
    if (id >= PANE_COUNT)
        return;
    if (id == PANE_CONSOLE && ui->focus != PANE_CONSOLE)
        ui->back_focus = ui->focus;
    if (ui->console_max && id != PANE_CONSOLE) { /* another pane wanted: share the screen again */
        ui->console_max = false;
        layout_place(ui);
    }
    if (is_right_pane(id)) {
        bool hidden = !layout_visible(ui, id);
        ui->detail = id;
        if (id != PANE_REGS)
            ui->placed_with = id;
        if (hidden)
            layout_place(ui);
    }
    ui->focus = id;
    ui->dirty = true;
}

/* ---------------------------------------------------------------- prompt */

void ui_prompt(struct ui *ui, enum prompt_kind kind, const char *label, const char *initial,
               prompt_done_fn done, void *ctx)
{
    struct prompt *pr = &ui->prompt;
    memset(pr, 0, sizeof *pr);
    pr->kind = kind;
    snprintf(pr->label, sizeof pr->label, "%s", label ? label : "");
    snprintf(pr->text, sizeof pr->text, "%s", initial ? initial : "");
    pr->len = strlen(pr->text);
    pr->selected = pr->len > 0;
    pr->done = done;
    pr->ctx = ctx;
    ui->dirty = true;
}

void ui_prompt_at(struct ui *ui, struct pane *anchor, int row, int col, int width,
                  const char *initial, prompt_done_fn done, void *ctx)
{
    ui_prompt(ui, PROMPT_TEXT, "", initial, done, ctx);
    ui->prompt.anchor = anchor;
    ui->prompt.row = row;
    ui->prompt.col = col;
    ui->prompt.width = width;
}

static void prompt_close(struct ui *ui)
{
    memset(&ui->prompt, 0, sizeof ui->prompt);
    ui->dirty = true;
}

static void prompt_key(struct ui *ui, int k)
{
    struct prompt *pr = &ui->prompt;
    prompt_done_fn done = pr->done;
    void *ctx = pr->ctx;
    if (pr->kind == PROMPT_YESNO) {
        bool yes = k == 'y' || k == 'Y';
        prompt_close(ui);
        if (done)
            done(ui, ctx, yes ? "y" : "n");
        return;
    }
    switch (k) {
    case 27:
        prompt_close(ui);
        return;
    case '\n':
    case '\r':
    case KEY_ENTER: {
        char text[sizeof pr->text];
        memcpy(text, pr->text, sizeof text);
        prompt_close(ui);
        if (done)
            done(ui, ctx, text);
        return;
    }
    case KEY_BACKSPACE:
    case 127:
    case 8:
        pr->selected = false;
        if (pr->len)
            pr->text[--pr->len] = 0;
        return;
    case 21: /* Ctrl-U */
        pr->selected = false;
        pr->len = 0;
        pr->text[0] = 0;
        return;
    case KEY_LEFT:
    case KEY_RIGHT:
    case KEY_END:
        pr->selected = false; /* keep the text and edit it */
        return;
    default:
        if (k >= 32 && k < 256 && pr->selected) { /* typing replaces the selected text */
            pr->len = 0;
            pr->text[0] = 0;
        }
        pr->selected = false;
        if (k >= 32 && k < 256 && pr->len + 1 < sizeof pr->text) {
            pr->text[pr->len++] = (char)k;
            pr->text[pr->len] = 0;
        }
        return;
    }
}

static void draw_anchored_prompt(struct ui *ui)
{
    struct prompt *pr = &ui->prompt;
    struct pane *p = pr->anchor;
    if (!p->win)
        return;
    int width = pr->width;
    if (pr->col + width > pane_cols(p))
        width = pane_cols(p) - pr->col;
    if (width < 2)
        return;
    int shown = (int)pr->len > width - 1 ? width - 1 : (int)pr->len;
    wattrset(p->win, theme(TH_OVERLAY));
    mvwhline(p->win, pr->row + 1, pr->col + 1, ' ', width);
    if (pr->selected) /* shown selected: typing replaces it */
        wattrset(p->win, theme(TH_OVERLAY) | A_REVERSE);
    mvwaddnstr(p->win, pr->row + 1, pr->col + 1, pr->text + pr->len - shown, shown);
    wattrset(p->win, theme(TH_NORMAL));
    wmove(p->win, pr->row + 1, pr->col + 1 + shown);
    curs_set(1);
    wnoutrefresh(p->win);
}

/* ---------------------------------------------------------------- drawing */

/* Frames drawn: $DLADBG_TUI_FRAMES names a file that gets the count at the
 * end, so that tests can tell a paste redrawn once from one redrawn per key
 * without timing anything. */
static unsigned long frames_drawn;

static void write_frame_count(void)
{
    const char *path = getenv("DLADBG_TUI_FRAMES");
    struct afile af;
    char err[512];
    if (!path || !*path || !afile_open(&af, path, err, sizeof err))
        return;
    fprintf(af.fp, "%lu\n", frames_drawn);
    afile_commit(&af, err, sizeof err);
}

static void draw_all(struct ui *ui)
{
    frames_drawn++;
    if (ui->too_small) {
        too_small_draw(ui);
        if (ui->prompt.kind != PROMPT_NONE)
            keybar_draw(ui);
        curs_set(0);
        wnoutrefresh(stdscr);
        doupdate();
        return;
    }
    statusbar_draw(ui);
    keybar_draw(ui);
    wnoutrefresh(stdscr);
    for (int i = 0; i < PANE_COUNT; i++) {
        struct pane *p = ui->pane[i];
        if (!p->win)
            continue;
        werase(p->win);
        p->ops->draw(p, ui); /* first: the title may show what drawing decided */
        pane_frame(p, ui, ui->focus == (enum pane_id)i);
        wnoutrefresh(p->win);
    }
    if (ui->help_open)
        help_draw(ui);
    if (ui->prompt.kind != PROMPT_NONE && ui->prompt.anchor && !ui->help_open) {
        draw_anchored_prompt(ui);
    } else if (ui->prompt.kind != PROMPT_NONE) {
        int x = (int)(strlen(ui->prompt.label) + ui->prompt.len);
        move(ui->rows - 1, x < ui->cols - 1 ? x : ui->cols - 1);
        curs_set(1);
        wnoutrefresh(stdscr);
    } else {
        console_place_cursor(ui);
    }
    doupdate();
    ui->dirty = false;
}

static void relayout(struct ui *ui)
{
    werase(stdscr);
    layout_place(ui);
    if (ui->prompt.anchor && !ui->prompt.anchor->win)
        prompt_close(ui);
    ui->dirty = true;
}

/* ---------------------------------------------------------------- the model's events */

static void on_model_event(void *ctx, const struct dla_event *ev);

/* Follow the session's model with the progress listener.  "file" replaces
 * the model, and its listeners go with it; the new model may even be
 * allocated where the old one was, so the debugger's count of opened files,
 * not the pointer, tells whether ours is still registered. */
static bool still_listening(struct ui *ui)
{
    return ui->listener > 0 && ui->listened_open == ui->g->opens && ui_dla(ui);
}

static void follow_model(struct ui *ui)
{
    struct dla *d = ui_dla(ui);
    if (d && still_listening(ui))
        return;
    if (d || ui->listener > 0)
        ui->model_gen++; /* panes drop what they kept about the previous model */
    ui->listener = d ? dla_listen(d, on_model_event, ui) : -1;
    ui->listened_open = ui->g->opens;
}

/* Keys typed ahead into the console run once the command returns, as a
 * terminal gdb reads them; the keys of the other panes (n, c, s...) are
 * dropped, so that an impatient n pressed during a slow step does not queue
 * more steps.  A full buffer drops the rest. */
static void keep_typeahead(struct ui *ui, int k)
{
    if (ui->focus != PANE_CONSOLE || k == KEY_MOUSE)
        return;
    if (ui->typeahead_len < sizeof ui->typeahead / sizeof ui->typeahead[0])
        ui->typeahead[ui->typeahead_len++] = k;
}

/* The next key: one typed ahead first, else the terminal's (getch, waiting
 * as its timeout says). */
static int next_key(struct ui *ui)
{
    if (!ui->typeahead_len)
        return getch();
    int k = ui->typeahead[0];
    ui->typeahead_len--;
    memmove(ui->typeahead, ui->typeahead + 1, ui->typeahead_len * sizeof ui->typeahead[0]);
    return k;
}

/* While a command runs: Esc interrupts, a resize relayouts, console keys are
 * kept for later (keep_typeahead), the rest is dropped. */
static void poll_keys_while_running(struct ui *ui)
{
    nodelay(stdscr, TRUE);
    int k;
    while ((k = getch()) != ERR) {
        if (k == KEY_RESIZE)
            relayout(ui);
        else if (k == 27)
            session_interrupt = 1;
        else
            keep_typeahead(ui, k);
    }
    nodelay(stdscr, FALSE);
    timeout(IDLE_POLL_MS);
}

/* After a step the selection goes where execution went: the layer of the
 * latest layer event (the layer a step completed, a write programmed, a
 * breakpoint named), else the layer in progress. */
static void follow_execution(struct ui *ui)
{
    struct dla *d = ui_dla(ui);
    if (d && ui->event_layer >= 0 && (size_t)ui->event_layer < dla_layer_count(d))
        ui_select_layer(ui, ui->event_layer);
    else
        ui_select_layer(ui, ui_current_layer(ui));
}

static void show_progress(struct ui *ui)
{
    long long now = ui_now_ms();
    if (now - ui->last_draw_ms < PROGRESS_MS)
        return;
    ui->last_draw_ms = now;
    poll_keys_while_running(ui);
    follow_execution(ui);
    draw_all(ui);
}

/* The command layer's poll hook: a consistent point every few thousand actions. */
static bool on_poll(void *ctx)
{
    follow_model(ctx); /* a script may have opened another file */
    show_progress(ctx);
    return false; /* interrupting is session_interrupt's job (Ctrl-C, Esc) */
}

static void on_model_event(void *ctx, const struct dla_event *ev)
{
    struct ui *ui = ctx;
    for (int i = 0; i < PANE_COUNT; i++)
        if (ui->pane[i]->ops->event)
            ui->pane[i]->ops->event(ui->pane[i], ui, ev);
    if (!ui->running)
        return;
    switch (ev->kind) {
    case DLA_EV_REG_WRITE:
    case DLA_EV_LAYER_PROGRAM:
    case DLA_EV_LAYER_ENABLE:
    case DLA_EV_LAYER_START:
    case DLA_EV_LAYER_DONE:
        if (ev->layer >= 0)
            ui->event_layer = ev->layer;
        break;
    default:
        break;
    }
    if ((++ui->events & 63) != 0 && ev->kind != DLA_EV_LAYER_DONE)
        return;
    show_progress(ui);
}

/* ---------------------------------------------------------------- commands */

static void sink_line(void *ctx, enum dbg_out_kind kind, const char *text)
{
    struct ui *ui = ctx;
    console_out(ui, kind, text);
    if (kind == DBG_OUT_STOP && !ui->stop_seen) {
        while (*text == ' ')
            text++;
        snprintf(ui->stop_reason, sizeof ui->stop_reason, "%s", text);
        ui->stop_seen = true;
    }
    if (kind == DBG_OUT_ERROR && !ui->message[0])
        ui_message(ui, true, "%s", text);
    if (ui->running)
        show_progress(ui);
}

/* Where execution is: a command that changes it moves the selection to the current layer. */
struct position {
    const struct session *s;
    uint64_t now, writes, events, layers;
    bool finished;
};

static struct position position_of(struct ui *ui)
{
    struct position p = {ui->g->session, 0, 0, 0, 0, false};
    if (p.s) {
        p.now = dla_now(session_dla(ui->g->session));
        p.writes = session_writes(p.s);
        p.events = session_events(p.s);
        p.layers = dla_layer_count(session_dla(ui->g->session));
        p.finished = session_finished(p.s);
    }
    return p;
}

static bool same_position(const struct position *a, const struct position *b)
{
    return a->s == b->s && a->now == b->now && a->writes == b->writes && a->events == b->events &&
           a->layers == b->layers && a->finished == b->finished;
}

void ui_exec(struct ui *ui, const char *line)
{
    const struct dbg_sink sink = {.line = sink_line, .ctx = ui};
    console_echo(ui, line);
    struct position before = position_of(ui);
    unsigned opens_before = ui->g->opens;
    ui->running = true;
    snprintf(ui->running_cmd, sizeof ui->running_cmd, "%s", line);
    ui->stop_seen = false;
    ui->message[0] = 0;
    ui->events = 0;
    ui->event_layer = -1;
    ui->last_draw_ms = ui_now_ms();
    session_interrupt = 0;
    running_flag = 1;
    enum cmd_status st = dbg_exec(ui->g, line, &sink);
    console_follow_prompt(ui);
    running_flag = 0;
    ui->running = false;
    follow_model(ui);
    struct position after = position_of(ui);
    if (ui->g->opens != opens_before || !ui->g->session) { /* another file */
        ui->known_layers = 0;
        if (!ui->stop_seen)
            ui->stop_reason[0] = 0; /* the old run's stop says nothing of this one */
    }
    /* "restart" (or "back") without a stop of its own: the last stop is
     * behind us, and "Run finished" would be a lie on a fresh run */
    if (!ui->stop_seen && (after.finished != before.finished || after.now < before.now))
        ui->stop_reason[0] = 0;
    if (after.finished && ui->g->session)
        ui->known_layers = dla_layer_count(session_dla(ui->g->session));
    if (ui->wide_layers != layers_show_reference(ui)) /* "compare DIR" or "compare off" */
        layout_place(ui);
    for (int i = 0; i < PANE_COUNT; i++)
        if (ui->pane[i]->ops->stopped)
            ui->pane[i]->ops->stopped(ui->pane[i], ui);
    if (!same_position(&before, &after) || ui->layer >= (long)after.layers)
        follow_execution(ui);
    if (st == CMD_QUIT || ui->g->quit)
        ui->quit = true;
    ui->dirty = true;
}

/* Not while a command list is typed: dbg_exec would take the key's command
 * as a line of the list, and F5 would put "continue" into it unseen; gdb's
 * TUI keys act on the program, never on the lines being typed. */
bool ui_exec_key(struct ui *ui, const char *line)
{
    if (dbg_typing_commands(ui->g)) {
        ui_message(ui, true, "\"%s\" not run: finish the command list with \"end\" first", line);
        return false;
    }
    ui_exec(ui, line);
    return true;
}

/* ---------------------------------------------------------------- quitting */

/* "quit" when the user has answered already (q's question, a second
 * Ctrl-C) or nothing is lost: the command must not ask again. */
static void quit_unasked(struct ui *ui)
{
    bool (*ask)(void *, const char *) = ui->g->opt.confirm;
    ui->g->opt.confirm = NULL;
    ui_exec(ui, "quit");
    ui->g->opt.confirm = ask;
    ui->quit = true; /* even if the command layer refused: the user said yes */
}

static void quit_answer(struct ui *ui, void *ctx, const char *text)
{
    (void)ctx;
    if (text[0] != 'y')
        return;
    quit_unasked(ui);
}

static void request_quit(struct ui *ui)
{
    if (!dbg_run_in_progress(ui->g) || ui->g->confirm_off) {
        quit_unasked(ui);
        return;
    }
    char label[sizeof ui->prompt.label];
    dbg_quit_question(ui->g, label, sizeof label);
    ui_prompt(ui, PROMPT_YESNO, label, "", quit_answer, NULL);
}

/* The command layer's yes/no question (delete all breakpoints): asked in the
 * key bar while the command waits, answered by one key; the question and the
 * answer stay in the console as gdb leaves them in its transcript. */
static bool on_confirm(void *ctx, const char *question)
{
    struct ui *ui = ctx;
    ui_prompt(ui, PROMPT_YESNO, question, "", NULL, NULL);
    int k;
    for (;;) {
        draw_all(ui);
        timeout(-1);
        k = getch();
        if (k == KEY_RESIZE)
            relayout(ui);
        else if (k != ERR && k != KEY_MOUSE)
            break;
        else if (k == ERR && (got_term || terminal_lost())) {
            k = 'n'; /* nobody left to answer: the safe answer, then the loop leaves */
            break;
        }
    }
    timeout(IDLE_POLL_MS);
    prompt_close(ui);
    bool yes = k == 'y' || k == 'Y';
    char echo[256];
    snprintf(echo, sizeof echo, "%s%s", question, yes ? "y" : "n");
    console_out(ui, DBG_OUT_TEXT, echo);
    return yes;
}

/* "shell": the program has the terminal as it was before the TUI took it;
 * once it has exited, Enter (so that its output can be read first) brings
 * the screen back, drawn again whole. */
static void on_hand_terminal(void *ctx, bool away)
{
    struct ui *ui = ctx;
    if (away) {
        def_prog_mode();
        endwin();
        return;
    }
    fputs("\n[press Enter to go back to dladbg] ", stdout);
    fflush(stdout);
    char c;
    while (read(STDIN_FILENO, &c, 1) == 1 && c != '\n')
        ;
    reset_prog_mode();
    clearok(curscr, TRUE);
    relayout(ui);
}

/* ---------------------------------------------------------------- keys */

static char last_search[128];

static void search_done(struct ui *ui, void *ctx, const char *text)
{
    (void)ctx;
    if (*text)
        snprintf(last_search, sizeof last_search, "%s", text);
    if (!last_search[0])
        return;
    ui_focus(ui, PANE_REGS);
    if (!regs_search(ui, last_search))
        ui_message(ui, true, "no register matches \"%s\"", last_search);
}

/* Tab and S-Tab go round the panes, never into the console: there Tab
 * completes, so every later key would be typed into the command line (":"
 * is the way in, Esc the way out).  Maximised, the console is all there is. */
static void next_pane(struct ui *ui, int dir)
{
    for (int k = 1; k <= PANE_COUNT; k++) {
        enum pane_id id = (enum pane_id)((ui->focus + dir * k + PANE_COUNT) % PANE_COUNT);
        if (id == PANE_CONSOLE && !ui->console_max)
            continue;
        if (layout_visible(ui, id)) {
            ui_focus(ui, id);
            return;
        }
    }
}

static void global_key(struct ui *ui, const struct key_binding *b)
{
    char cmd[256];
    switch (b->action) {
    case KA_COMMAND:
    case KA_BREAK:
    case KA_ADVANCE:
        if (keys_command(ui, b, cmd, sizeof cmd))
            ui_exec_key(ui, cmd);
        else
            ui_message(ui, true, "%s", cmd);
        return;
    case KA_QUIT:
        request_quit(ui);
        return;
    case KA_HELP:
        ui->help_open = true;
        ui->help_top = 0;
        return;
    case KA_CONSOLE:
        ui_focus(ui, PANE_CONSOLE);
        return;
    case KA_SEARCH:
        ui_prompt(ui, PROMPT_TEXT, "search registers (Enter repeats): ", "", search_done, NULL);
        return;
    case KA_NEXT_PANE:
        next_pane(ui, 1);
        return;
    case KA_PREV_PANE:
        next_pane(ui, -1);
        return;
    case KA_PANE:
        ui_focus(ui, (enum pane_id)b->arg);
        return;
    case KA_REDRAW:
        clearok(curscr, TRUE);
        relayout(ui);
        return;
    case KA_CONSOLE_MAX:
        ui->console_max = !ui->console_max;
        relayout(ui);
        if (ui->console_max)
            ui_focus(ui, PANE_CONSOLE);
        return;
    case KA_CONSOLE_SIZE:
        ui->console_max = false;
        ui->console_extra += b->arg;
        relayout(ui); /* layout_place keeps the height within what the screen allows */
        return;
    }
}

static void handle_mouse(struct ui *ui)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return;
    enum pane_id id = layout_pane_at(ui, ev.y, ev.x);
    if (id == PANE_COUNT)
        return;
    bool wheel = pane_wheel_key(ev.bstate, KEY_UP, KEY_DOWN) != 0;
    if (!wheel)
        ui_focus(ui, id);
    struct pane *p = ui->pane[id];
    if (p->ops->mouse)
        p->ops->mouse(p, ui, ev.y - p->y - 1, ev.x - p->x - 1, ev.bstate);
    ui->dirty = true;
}

/* Keys that work in the console too: function keys always; Tab, S-Tab
 * and the pane digits while no command is being typed (no command starts
 * with a digit, and Tab would only list every command). */
static bool console_passes_through(struct ui *ui, int k)
{
    if (k == KEY_F(1) || k == KEY_F(2) || k == KEY_F(3) || k == KEY_F(4) || k == KEY_F(5) ||
        k == KEY_F(10) || k == KEY_F(11) || k == KEY_F(12) || k == KEY_BTAB)
        return true;
    return console_line_empty() && !ui->console_max && (k == '\t' || (k >= '1' && k <= '8'));
}

static void handle_key(struct ui *ui, int k)
{
    if (k == KEY_RESIZE) {
        relayout(ui);
        return;
    }
    if (ui->prompt.kind != PROMPT_NONE) {
        prompt_key(ui, k);
        return;
    }
    ui->message[0] = 0;
    if (ui->too_small) {
        if (k == 'q' || k == KEY_F(12))
            request_quit(ui);
        return;
    }
    if (ui->help_open) {
        if (!help_key(ui, k))
            ui->help_open = false;
        return;
    }
    if (k == KEY_MOUSE) {
        handle_mouse(ui);
        return;
    }
    const struct key_binding *b = keys_find(k);
    if (ui->focus == PANE_CONSOLE) {
        if (k == 4 && console_line_empty()) { /* Ctrl-D on an empty line: as gdb, quit */
            if (dbg_typing_commands(ui->g))
                ui_exec(ui, "end"); /* at ">" gdb's end of input ends the list */
            else
                request_quit(ui);
            return;
        }
        if (b && console_passes_through(ui, k))
            global_key(ui, b);
        else
            ui->pane[PANE_CONSOLE]->ops->key(ui->pane[PANE_CONSOLE], ui, k);
        return;
    }
    struct pane *p = ui->pane[ui->focus];
    if (p->win && p->ops->key && p->ops->key(p, ui, k))
        return;
    if (b) {
        global_key(ui, b);
        return;
    }
    if (k == 27)
        return;
    ui_message(ui, false, "key not bound here; ? lists every key");
}

/* Key k and every key already waiting behind it, then one redraw: a paste
 * arrives as thousands of keys at once, and a redraw after each made a
 * 100 KB paste take seconds.  Lines the console accepted run in order. */
static void handle_keys_waiting(struct ui *ui, int k, char *line, size_t len)
{
    for (;;) {
        handle_key(ui, k);
        while (!ui->quit && console_take_line(ui, line, len))
            ui_exec(ui, line);
        if (ui->quit || got_term || got_sigint)
            return;
        /* only this read does not wait: a question a command asks waits as usual */
        nodelay(stdscr, TRUE);
        k = next_key(ui);
        nodelay(stdscr, FALSE);
        timeout(IDLE_POLL_MS);
        if (k == ERR)
            return;
    }
}

/* An idle Ctrl-C drops the line being typed; a second one soon after quits. */
static void handle_idle_sigint(struct ui *ui)
{
    long long now = ui_now_ms();
    if (ui->ctrl_c_ms && now - ui->ctrl_c_ms < CTRL_C_MS) {
        quit_unasked(ui);
        return;
    }
    ui->ctrl_c_ms = now;
    console_clear_line(ui);
    ui_message(ui, false, "Ctrl-C again within 2 s quits (q asks first)");
}

/* ---------------------------------------------------------------- setup */

static bool create_panes(struct ui *ui)
{
    struct pane *(*const create[PANE_COUNT])(void) = {
        pane_layers_create, pane_regs_create, pane_cbuf_create,     pane_lut_create,
        pane_perf_create,   pane_mem_create,  pane_timeline_create, pane_tensor_create,
        pane_console_create,
    };
    for (int i = 0; i < PANE_COUNT; i++) {
        ui->pane[i] = create[i]();
        if (!ui->pane[i])
            return false;
    }
    return true;
}

static void destroy_panes(struct ui *ui)
{
    for (int i = 0; i < PANE_COUNT; i++) {
        struct pane *p = ui->pane[i];
        if (!p)
            continue;
        if (p->win)
            delwin(p->win);
        if (p->ops->destroy)
            p->ops->destroy(p);
        free(p);
    }
}

static void welcome(struct ui *ui)
{
    char text[600];
    struct session *s = ui->g->session;
    if (s)
        snprintf(text, sizeof text, "dladbg %s: %s (configuration %s)", DLADBG_VERSION,
                 session_path(s), dla_cfg(session_dla(s))->name);
    else
        snprintf(text, sizeof text, "dladbg %s: no file open; \"file FILE\" opens one",
                 DLADBG_VERSION);
    console_out(ui, DBG_OUT_NOTE, text);
    console_out(ui, DBG_OUT_NOTE,
                "c continue, n step a layer, s step a register write, b breakpoint, "
                "B step back, : console, ? every key, q quit");
}

static bool take_terminal(void)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "dladbg: the TUI needs a terminal (use --batch)\n");
        return false;
    }
    have_tio = tcgetattr(STDIN_FILENO, &saved_tio) == 0;
    setlocale(LC_ALL, "");
    set_escdelay(25);
    install_signals();
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr) {
        restore_signals();
        fprintf(stderr, "dladbg: cannot use terminal \"%s\" (use --batch)\n",
                getenv("TERM") ? getenv("TERM") : "");
        return false;
    }
    build_restore_sequence();
    terminal_taken = 1;
    plugin_child_keep_off_terminal(true);
    static bool registered;
    if (!registered)
        atexit(restore_at_exit);
    registered = true;
    cbreak(); /* not raw(): Ctrl-C stays SIGINT */
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    timeout(IDLE_POLL_MS);
    mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
                  | BUTTON5_PRESSED
#endif
              ,
              NULL);
    mouseinterval(0);
    return true;
}

static void give_back_terminal(void)
{
    plugin_child_keep_off_terminal(false);
    if (terminal_taken) {
        terminal_taken = 0;
        endwin();
    }
    SCREEN *scr = set_term(NULL);
    if (scr)
        delscreen(scr);
    restore_signals();
}

static int exit_status(struct ui *ui)
{
    if (ui->g->quit_status >= 0)
        return ui->g->quit_status;
    if (got_term)
        return 128 + got_term;
    return ui->g->session ? session_exit_status(ui->g->session) : 0;
}

/* Why the open of tui_options failed, printed once the terminal is back. */
static char open_error[1024];

/* The screen first, with what is being opened, then the file: a network
 * whose open takes a while shows at once. */
static bool open_after_first_frame(struct ui *ui, const struct tui_options *o)
{
    relayout(ui);
    ui_message(ui, false, "opening %s ...", o->opening ? o->opening : "the file");
    draw_all(ui);
    bool ok = o->open(o->open_ctx, ui->g, open_error, sizeof open_error);
    ui->message[0] = 0;
    return ok;
}

int tui_run(struct dbg *g, const struct tui_options *o)
{
    static struct ui ui; /* signal handlers and readline reach it */
    memset(&ui, 0, sizeof ui);
    ui.g = g;
    ui.layer = -1;
    ui.unit = DLA_U_GLB;
    ui.listener = -1;
    ui.detail = PANE_REGS;
    ui.placed_with = PANE_PERF;
    ui.back_focus = PANE_LAYERS;
    got_sigint = got_term = 0;
    if (!take_terminal())
        return 2;
    theme_init(!(o && o->no_color));
    if (!create_panes(&ui)) {
        destroy_panes(&ui);
        give_back_terminal();
        fprintf(stderr, "dladbg: out of memory\n");
        return 2;
    }
    /* progress from the command layer's poll hook too: actions without model
     * events (a loadable's CPU tasks) keep the screen live */
    bool (*saved_poll)(void *) = g->opt.poll;
    void *saved_poll_ctx = g->opt.poll_ctx;
    g->opt.poll = on_poll;
    g->opt.poll_ctx = &ui;
    g->opt.confirm = on_confirm;
    g->opt.confirm_ctx = &ui;
    g->opt.hand_terminal = on_hand_terminal;
    g->opt.hand_terminal_ctx = &ui;
    /* output outside commands would write over the screen: the console takes it */
    static struct dbg_sink console_sink = {.line = sink_line};
    console_sink.ctx = &ui;
    const struct dbg_sink *saved_out = g->out;
    g->out = &console_sink;
    console_init(&ui);
    if (o && o->open && !open_after_first_frame(&ui, o)) {
        g->out = saved_out;
        g->opt.poll = saved_poll;
        g->opt.poll_ctx = saved_poll_ctx;
        g->opt.confirm = NULL;
        g->opt.hand_terminal = NULL;
        console_shutdown(&ui);
        destroy_panes(&ui);
        give_back_terminal();
        fprintf(stderr, "dladbg: %s\n", open_error);
        return 2;
    }
    welcome(&ui);
    follow_model(&ui);
    for (int i = 0; i < PANE_COUNT; i++)
        if (ui.pane[i]->ops->stopped)
            ui.pane[i]->ops->stopped(ui.pane[i], &ui);
    ui_select_layer(&ui, ui_current_layer(&ui));
    relayout(&ui);
    draw_all(&ui);
    for (const char *const *c = o ? o->commands : NULL; c && *c && !ui.quit; c++) {
        ui_exec(&ui, *c);
        draw_all(&ui);
    }
    char line[1024];
    while (!ui.quit && !got_term) {
        if (ui.dirty)
            draw_all(&ui);
        int k = next_key(&ui);
        if (got_term)
            break;
        if (got_sigint) {
            got_sigint = 0;
            handle_idle_sigint(&ui);
            continue;
        }
        if (k == ERR) {
            if (terminal_lost())
                got_term = SIGHUP; /* as if its hangup had come: leave, status 129 */
            continue;
        }
        handle_keys_waiting(&ui, k, line, sizeof line);
        ui.dirty = true;
    }
    if (still_listening(&ui))
        dla_unlisten(ui_dla(&ui), ui.listener);
    g->opt.poll = saved_poll;
    g->opt.poll_ctx = saved_poll_ctx;
    g->opt.confirm = NULL;
    g->opt.hand_terminal = NULL;
    g->out = saved_out;
    console_shutdown(&ui);
    destroy_panes(&ui);
    give_back_terminal();
    write_frame_count();
    return exit_status(&ui);
}
