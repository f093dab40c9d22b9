/* The readline console. */
#include "console.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "util/path.h"

#define HISTORY_LINES 2000

struct console {
    struct dbg *d;
    const struct dbg_sink *out;
    char history[4096];
    char prompt[64];
    bool done;
};

/* readline's callbacks carry no context: one console at a time. */
static struct console *active;

/* ---------------------------------------------------------------- history */

static void find_history(struct console *c)
{
    path_history_file(c->history, sizeof c->history);
}

const char *console_history_path(const struct console *c)
{
    return c->history;
}

/* ---------------------------------------------------------------- completion */

struct matches {
    size_t n, cap;
    char **v;
};

static void add_match(void *ctx, const char *cand)
{
    struct matches *m = ctx;
    if (m->n + 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 32;
        char **v = realloc(m->v, cap * sizeof *v);
        if (!v)
            return;
        m->v = v;
        m->cap = cap;
    }
    char *copy = strdup(cand);
    if (copy)
        m->v[m->n++] = copy;
}

static char *common_prefix(char **v, size_t n)
{
    size_t len = strlen(v[0]);
    for (size_t i = 1; i < n; i++) {
        size_t k = 0;
        while (k < len && v[i][k] && (v[i][k] | 32) == (v[0][k] | 32))
            k++;
        len = k;
    }
    char *p = malloc(len + 1);
    if (p) {
        memcpy(p, v[0], len);
        p[len] = 0;
    }
    return p;
}

/* readline wants [common prefix, match1, ..., NULL]. */
static char **complete(const char *text, int start, int end)
{
    (void)text;
    (void)start;
    struct matches m = {0};
    size_t word_start;
    dbg_complete(active->d, rl_line_buffer, (size_t)end, &word_start, add_match, &m);
    if (!m.n) {
        free(m.v);
        return NULL; /* readline completes file names instead */
    }
    rl_attempted_completion_over = 1;
    char **v = malloc((m.n + 2) * sizeof *v);
    if (!v) {
        for (size_t i = 0; i < m.n; i++)
            free(m.v[i]);
        free(m.v);
        return NULL;
    }
    memcpy(v + 1, m.v, m.n * sizeof *v);
    v[m.n + 1] = NULL;
    v[0] = m.n == 1 ? strdup(m.v[0]) : common_prefix(m.v, m.n);
    if (m.n == 1 && v[0] && dbg_completion_continues(v[0]))
        rl_completion_append_character = 0; /* "CDMA." goes on with a register name */
    free(m.v);
    if (m.n == 1) {
        free(v[1]);
        v[1] = NULL;
    }
    return v;
}

/* ---------------------------------------------------------------- lines */

static void on_line(char *line)
{
    struct console *c = active;
    if (!line) { /* Ctrl-D on an empty line: "quit", which asks mid-run; the end of piped input ends
                  */
        rl_callback_handler_remove();
        fputc('\n', stdout);
        /* at the ">" of "commands" it ends the list, as in gdb */
        const char *eof = dbg_prompt(c->d)[0] == '>' ? "end" : "quit";
        if (!isatty(STDIN_FILENO) || dbg_exec(c->d, eof, c->out) == CMD_QUIT) {
            c->done = true;
        } else {
            snprintf(c->prompt, sizeof c->prompt, "%s", dbg_prompt(c->d));
            rl_callback_handler_install(c->prompt, on_line);
        }
        return;
    }
    if (line[0] && line[0] != ' ')
        add_history(line);
    rl_callback_handler_remove(); /* the command may print freely */
    enum cmd_status st = dbg_exec(c->d, line, c->out);
    free(line);
    if (st == CMD_QUIT) {
        c->done = true;
    } else {
        snprintf(c->prompt, sizeof c->prompt, "%s", dbg_prompt(c->d)); /* ">" in "commands" */
        rl_callback_handler_install(c->prompt, on_line);
    }
}

struct console *console_create(struct dbg *d, const struct dbg_sink *out)
{
    struct console *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->d = d;
    c->out = out;
    active = c;
    rl_readline_name = "dladbg";
    rl_attempted_completion_function = complete;
    rl_completer_word_break_characters = " \t";
    rl_catch_signals = 0; /* Ctrl-C interrupts a running command: our handler */
    using_history();
    stifle_history(HISTORY_LINES);
    find_history(c);
    if (c->history[0])
        read_history(c->history);
    return c;
}

void console_destroy(struct console *c)
{
    if (!c)
        return;
    rl_callback_handler_remove();
    if (c->history[0] && write_history(c->history) == 0)
        history_truncate_file(c->history, HISTORY_LINES);
    if (active == c)
        active = NULL;
    free(c);
}

void console_prompt(struct console *c, const char *prompt)
{
    snprintf(c->prompt, sizeof c->prompt, "%s", prompt);
    active = c;
    rl_callback_handler_install(c->prompt, on_line);
}

bool console_feed(struct console *c)
{
    active = c;
    rl_callback_read_char();
    return !c->done;
}

/* The command layer's yes/no question.  Input that is not a terminal cannot
 * answer: yes, and the output says so (as gdb does). */
static bool confirm(void *ctx, const char *question)
{
    struct console *c = ctx;
    if (!isatty(STDIN_FILENO)) {
        char line[256];
        snprintf(line, sizeof line, "%s[answered y: input is not a terminal]", question);
        c->out->line(c->out->ctx, DBG_OUT_TEXT, line);
        return true;
    }
    char *answer = readline(question); /* the callback handler is removed while a command runs */
    bool yes = answer && (answer[0] == 'y' || answer[0] == 'Y');
    free(answer);
    return yes;
}

static void on_sigint(int sig)
{
    (void)sig;
    session_interrupt = 1;
}

int console_run(struct console *c)
{
    struct sigaction sa = {.sa_handler = on_sigint};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    c->d->opt.confirm = confirm;
    c->d->opt.confirm_ctx = c;
    console_prompt(c, dbg_prompt(c->d));
    while (!c->done) {
        fd_set in;
        FD_ZERO(&in);
        FD_SET(STDIN_FILENO, &in);
        int r = select(STDIN_FILENO + 1, &in, NULL, NULL, NULL);
        if (r < 0 && errno == EINTR) {
            /* Ctrl-C at the prompt: drop the line being typed */
            session_interrupt = 0;
            rl_free_line_state();
            rl_callback_sigcleanup();
            rl_crlf();
            rl_on_new_line();
            rl_replace_line("", 0);
            rl_redisplay();
            continue;
        }
        if (r > 0)
            console_feed(c);
    }
    c->d->opt.confirm = NULL;
    return dbg_exit_status(c->d);
}
