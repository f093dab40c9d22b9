/* Breakpoint command lists, as gdb has them: "commands [N]", the lines that
 * follow, "end".  The lines run when breakpoint N stops the run; "silent" as
 * the first line leaves out the stop's lines (and the displays), and a line
 * that resumes the run (continue, step, next, finish, run) ends the list: the
 * next stop's list runs then, so that "commands 1 / silent / print ... /
 * continue / end" logs every hit and goes on to the end of the run.  A stop
 * at several breakpoints runs their lists in number order, the way gdb runs a
 * stop chain's (bpstat_do_actions): one that resumes the run ends the rest;
 * the stop is silent only when each of their lists is (gdb's bpstat_what:
 * one noisy breakpoint makes a noisy stop).
 *
 * The lines of a list are taken by dbg_exec while one is being typed, from
 * whatever feeds it: the console and the TUI (prompt ">"), a script, one -ex
 * each.  Running them never recurses: a stop while a list runs only marks the
 * list as resumed (cmd_lists_stopped), and the list that stopped runs after
 * it, in the loop of the first.  A chain of lists that brings the run back
 * where a list of it ran before (back, run, restart) would go round for
 * ever: it is stopped with a message. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_priv.h"

/* Bounds on what a list may hold: a script cannot make the debugger hold
 * unbounded text by forgetting an "end". */
#define LIST_MAX_LINES 256
#define LIST_MAX_BYTES (16 * 1024)

/* Where the run is: every counter only grows while it goes forward, so a
 * list that starts where none grew has gone round (back, run, restart). */
struct run_point {
    unsigned opens;
    uint64_t seq, writes, events, cycle, host;
};

struct bp_list {
    int bp;
    char *text; /* the lines, each ended by '\n' */
    unsigned chain;
    struct run_point at; /* where the run was when it last began, in that chain */
};

struct cmd_lists {
    struct bp_list *v;
    size_t n, cap;

    /* the list being typed */
    bool typing, broken;
    int target;
    unsigned depth; /* the script depth it began at */
    char *buf;
    size_t len, lines;

    /* the lists running */
    unsigned running; /* > 0 while a list's lines execute */
    bool resumed;     /* a line of it resumed the run: the rest is skipped */
    int *pending;     /* the breakpoints of the stop it resumed to, in number order */
    size_t n_pending;
    bool failed;      /* a line failed: the command that ran them fails */
    unsigned chain;   /* one number per stop that started lists */
};

static struct cmd_lists *lists(struct dbg *d)
{
    if (!d->lists)
        d->lists = calloc(1, sizeof *d->lists);
    return d->lists;
}

static struct bp_list *list_of(struct dbg *d, int bp)
{
    struct cmd_lists *l = d->lists;
    for (size_t i = 0; l && i < l->n; i++)
        if (l->v[i].bp == bp)
            return &l->v[i];
    return NULL;
}

static void drop(struct cmd_lists *l, size_t i)
{
    free(l->v[i].text);
    memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof *l->v);
    l->n--;
}

/* Lists of breakpoints deleted since (a tbreak's, once it has run). */
static void prune(struct dbg *d)
{
    struct cmd_lists *l = d->lists;
    for (size_t i = 0; l && !l->running && i < l->n;) {
        if (bps_find(d->bps, l->v[i].bp))
            i++;
        else
            drop(l, i);
    }
}

void cmd_lists_free(struct dbg *d)
{
    struct cmd_lists *l = d->lists;
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].text);
    free(l->v);
    free(l->buf);
    free(l->pending);
    free(l);
    d->lists = NULL;
}

bool dbg_typing_commands(const struct dbg *d)
{
    return d->lists && d->lists->typing;
}

const char *dbg_prompt(const struct dbg *d)
{
    return dbg_typing_commands(d) ? ">" : "(dladbg) ";
}

/* ---------------------------------------------------------------- typing */

static bool first_word_is(const char *line, const char *word)
{
    size_t n = strlen(word);
    return !strncmp(line, word, n) && (!line[n] || isspace((unsigned char)line[n]));
}

/* Whether a line of a list would run the command named ("comm 1" runs
 * commands: prefixes and aliases count). */
static bool runs_command(const char *text, const char *name)
{
    char word[64];
    size_t n = strcspn(text, " \t/");
    snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1), text);
    const struct cmd_entry *e = cmd_lookup(NULL, word, NULL);
    return e && !strcmp(e->name, name);
}

/* A failure while a list is typed: the line is left out and the list is
 * not stored at "end" (in batch the script stops here anyway). */
static enum cmd_status typing_fail(struct dbg *d, const char *fmt, const char *arg)
{
    struct cmd_lists *l = d->lists;
    char msg[300];
    snprintf(msg, sizeof msg, fmt, arg);
    l->broken = true;
    cmd_out(d, DBG_OUT_ERROR, "%s%scommands: %s", d->where, d->where[0] ? ": " : "", msg);
    return CMD_ERROR;
}

static void typing_done(struct cmd_lists *l)
{
    free(l->buf);
    l->buf = NULL;
    l->len = l->lines = 0;
    l->typing = l->broken = false;
}

/* "end": the typed lines become the breakpoint's list (none: it has none). */
static enum cmd_status store(struct dbg *d)
{
    struct cmd_lists *l = d->lists;
    int bp = l->target;
    if (l->broken) {
        typing_done(l);
        cmd_out(d, DBG_OUT_ERROR, "%s%scommands: breakpoint %d's commands were left as they were",
                d->where, d->where[0] ? ": " : "", bp);
        return CMD_ERROR;
    }
    struct bp_list *bl = list_of(d, bp);
    if (!bl && l->len) {
        if (l->n == l->cap) {
            size_t cap = l->cap ? l->cap * 2 : 8;
            struct bp_list *v = realloc(l->v, cap * sizeof *v);
            if (!v) {
                typing_done(l);
                return cmd_fail(d, NULL, "out of memory");
            }
            l->v = v;
            l->cap = cap;
        }
        bl = &l->v[l->n++];
        *bl = (struct bp_list){.bp = bp};
    }
    if (bl) {
        free(bl->text);
        bl->text = l->buf; /* NULL: an empty body clears the list */
        l->buf = NULL;
        if (!bl->text)
            drop(l, (size_t)(bl - l->v));
    }
    typing_done(l);
    return CMD_OK;
}

static enum cmd_status append(struct dbg *d, const char *line)
{
    struct cmd_lists *l = d->lists;
    size_t n = strlen(line);
    if (l->broken)
        return CMD_OK; /* said once; the rest goes until "end" */
    if (l->lines >= LIST_MAX_LINES || l->len + n + 1 > LIST_MAX_BYTES) {
        char limits[80];
        snprintf(limits, sizeof limits, "%d lines or %d bytes", LIST_MAX_LINES, LIST_MAX_BYTES);
        return typing_fail(d, "a command list holds at most %s (lines up to \"end\" are dropped)",
                           limits);
    }
    char *buf = realloc(l->buf, l->len + n + 2);
    if (!buf)
        return typing_fail(d, "%s", "out of memory");
    memcpy(buf + l->len, line, n);
    buf[l->len + n] = '\n';
    buf[l->len + n + 1] = 0;
    l->buf = buf;
    l->len += n + 1;
    l->lines++;
    return CMD_OK;
}

bool cmd_lists_take_line(struct dbg *d, const char *line, enum cmd_status *st)
{
    struct cmd_lists *l = d->lists;
    if (!l || !l->typing)
        return false;
    char text[1024];
    if (strlen(line) >= sizeof text) {
        *st = typing_fail(d, "a line of a command list holds at most %s characters", "1023");
        return true;
    }
    cmd_trimmed(line, text, sizeof text);
    *st = CMD_OK;
    if (!text[0] || text[0] == '#')
        return true;
    if (!strcmp(text, "end"))
        *st = store(d);
    else if (runs_command(text, "commands"))
        *st = typing_fail(d, "a command list cannot hold \"%s\"", "commands");
    else if (first_word_is(text, "silent") && l->lines)
        *st = typing_fail(d, "\"%s\" goes on the first line of a command list", "silent");
    else
        *st = append(d, text);
    return true;
}

bool dbg_input_ended(struct dbg *d)
{
    struct cmd_lists *l = d->lists;
    if (!l || !l->typing || l->depth != d->source_depth)
        return true;
    return store(d) == CMD_OK; /* gdb's process_next_line: no more lines is "end" */
}

/* The breakpoint "commands" means: N, or the newest breakpoint. */
static bool target_of(struct dbg *d, struct cmd_args *a, int *bp)
{
    const char *t = cmd_arg(a, 0);
    if (cmd_nargs(a) > 1) {
        cmd_fail(d, a, "expected one breakpoint number, not \"%s\"", cmd_rest(a, 0));
        return false;
    }
    if (!t) {
        size_t n = bps_count(d->bps);
        if (!n) {
            cmd_fail(d, a, "no breakpoints (\"commands\" alone takes the last one set)");
            return false;
        }
        *bp = bps_get(d->bps, n - 1)->number;
        return true;
    }
    char *end;
    long n = strtol(t, &end, 10);
    if (*end || !bps_find(d->bps, (int)n)) {
        cmd_fail(d, a, "no breakpoint number %s (\"info breakpoints\" lists them)", t);
        return false;
    }
    *bp = (int)n;
    return true;
}

static enum cmd_status do_commands(struct dbg *d, struct cmd_args *a)
{
    int bp;
    if (!target_of(d, a, &bp))
        return CMD_ERROR;
    struct cmd_lists *l = lists(d);
    if (!l)
        return cmd_fail(d, a, "out of memory");
    if (l->running) /* a script a list sources: its lines are the list's to run */
        return cmd_fail(d, a, "not while a breakpoint's commands run");
    prune(d);
    l->typing = true;
    l->broken = false;
    l->target = bp;
    l->depth = d->source_depth;
    if (cmd_asks(d)) /* at the terminal, as gdb tells it */
        cmd_print(d,
                  "Type commands for breakpoint %d, one per line.\n"
                  "End with a line saying just \"end\".",
                  bp);
    return CMD_OK;
}

static enum cmd_status do_end(struct dbg *d, struct cmd_args *a)
{
    return cmd_fail(d, a, "not inside a command list (\"commands N\" starts one)");
}

/* ---------------------------------------------------------------- running */

bool cmd_stop_silent(struct dbg *d, const int *bps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct bp_list *bl = list_of(d, bps[i]);
        if (!bl || !first_word_is(bl->text, "silent"))
            return false;
    }
    return n > 0;
}

static void point_now(struct dbg *d, struct run_point *p)
{
    struct dla *dla = session_dla(d->session);
    *p = (struct run_point){
        .opens = d->opens,
        .seq = trace_ring_next_seq(d->ring),
        .writes = session_writes(d->session),
        .events = session_events(d->session),
        .cycle = dla_now(dla),
        .host = dla_client_bytes(dla, DLA_C_HOST),
    };
}

static bool after(const struct run_point *now, const struct run_point *then)
{
    return now->opens == then->opens &&
           (now->seq > then->seq || now->writes > then->writes || now->events > then->events ||
            now->cycle > then->cycle || now->host > then->host);
}

/* The list may begin: the first time in this chain, or with the run
 * further on than when it last began in it. */
static bool goes_forward(struct dbg *d, struct bp_list *bl)
{
    struct run_point now;
    point_now(d, &now);
    bool first = bl->chain != d->lists->chain;
    bool forward = first || after(&now, &bl->at);
    bl->chain = d->lists->chain;
    bl->at = now;
    if (!forward)
        cmd_out(d, DBG_OUT_ERROR,
                "%s%sbreakpoint %d's commands were not run again: the run came back to where "
                "they last ran (cycle %llu), and would go round for ever",
                d->where, d->where[0] ? ": " : "", bl->bp, (unsigned long long)now.cycle);
    return forward;
}

/* Executes one list's lines (a copy: a line may change the lists) until one
 * resumes the run (l->resumed, l->pending the new stop's breakpoints), fails
 * (l->failed) or quits. */
static void run_list(struct dbg *d, const struct bp_list *bl)
{
    struct cmd_lists *l = d->lists;
    char *text = strdup(bl->text);
    int bp = bl->bp;
    if (!text) {
        cmd_out(d, DBG_OUT_ERROR, "breakpoint %d's commands: out of memory", bp);
        l->failed = true;
        return;
    }
    char outer[sizeof d->where], last[sizeof d->last_cmd];
    memcpy(outer, d->where, sizeof outer);
    memcpy(last, d->last_cmd, sizeof last); /* an empty line repeats the user's step */
    l->running++;
    l->resumed = false;
    l->n_pending = 0;
    unsigned lineno = 0;
    for (char *line = text, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        *nl = 0;
        lineno++;
        if (lineno == 1 && first_word_is(line, "silent"))
            continue;
        snprintf(d->where, sizeof d->where, "%.200s%sbreakpoint %d's commands, line %u", outer,
                 outer[0] ? ": " : "", bp, lineno);
        enum cmd_status st = dbg_exec(d, line, NULL);
        if (st == CMD_ERROR) {
            d->failed_cmds--; /* counted once, as the command that ran the list fails */
            l->failed = true;
        }
        if (st != CMD_OK || l->resumed)
            break;
    }
    l->running--;
    memcpy(d->where, outer, sizeof d->where);
    memcpy(d->last_cmd, last, sizeof d->last_cmd);
    free(text);
}

/* The lists of one stop's breakpoints, in number order, as gdb runs a stop
 * chain's: a list that resumes the run ends the processing of the others,
 * and the new stop's run instead (gdb's breakpoint_proceeded); a failure or
 * a quit ends it all.  Returns whether a list resumed the run. */
static bool run_stop_lists(struct dbg *d, const int *bps, size_t n)
{
    struct cmd_lists *l = d->lists;
    for (size_t i = 0; i < n; i++) {
        struct bp_list *bl = list_of(d, bps[i]);
        if (!bl)
            continue;
        if (!goes_forward(d, bl)) {
            l->failed = true;
            return false;
        }
        run_list(d, bl);
        if (l->failed || d->quit)
            return false;
        if (l->resumed)
            return true;
    }
    return false;
}

/* The stop a running list resumed to: its breakpoints, kept for the loop
 * of cmd_lists_stopped (NULL, 0: none, or no memory to keep them). */
static void keep_pending(struct cmd_lists *l, const int *bps, size_t n)
{
    l->n_pending = 0;
    if (!n)
        return;
    int *v = realloc(l->pending, n * sizeof *v);
    if (!v)
        return;
    memcpy(v, bps, n * sizeof *v);
    l->pending = v;
    l->n_pending = n;
}

void cmd_lists_stopped(struct dbg *d, const int *bps, size_t n)
{
    struct cmd_lists *l = d->lists;
    if (!l)
        return;
    if (l->running) { /* a line of the running list resumed: it ends, this stop's lists follow */
        l->resumed = true;
        keep_pending(l, bps, n);
        return;
    }
    l->chain++;
    const int *stop = bps;
    int *owned = NULL;
    while (run_stop_lists(d, stop, n)) { /* the loop of the first: lists never recurse */
        free(owned);
        stop = owned = l->pending;
        n = l->n_pending;
        l->pending = NULL;
        l->n_pending = 0;
    }
    free(owned);
    prune(d);
}

bool cmd_lists_failed(struct dbg *d)
{
    struct cmd_lists *l = d->lists;
    if (!l || !l->failed || l->running)
        return false;
    l->failed = false;
    return true;
}

const char *cmd_bp_commands_text(struct dbg *d, int bp)
{
    const struct bp_list *bl = list_of(d, bp);
    return bl ? bl->text : NULL;
}

void cmd_print_bp_commands(struct dbg *d, int bp)
{
    const struct bp_list *bl = list_of(d, bp);
    for (const char *line = bl ? bl->text : ""; *line;) {
        const char *nl = strchr(line, '\n');
        cmd_print(d, "        %.*s", (int)(nl - line), line);
        line = nl + 1;
    }
}

const struct cmd_entry cmd_commands_entries[] = {
    {"commands", NULL, "[BP]", "commands [N]",
     "Give breakpoint N (default: the last one set) commands to run when it stops: the lines\n"
     "that follow, up to a line saying just \"end\" (typed at the \">\" prompt, the next lines\n"
     "of a script, one -ex each).  \"silent\" as the first line leaves out the stop's lines\n"
     "and the displays; a line that resumes the run (continue, step, next, finish, run)\n"
     "ends the list, and the next stop's commands run then: \"commands 1 / silent / print\n"
     "SDP.D_PERF_WDMA_WRITE_STALL / continue / end\" logs every hit to the end of the run.\n"
     "A stop at several breakpoints runs each one's list in number order, until one resumes\n"
     "the run; it is silent only when every one of their lists says \"silent\".\n"
     "An empty body clears them; \"info breakpoints\" shows them.  A list that brings the\n"
     "run back to where it ran before (back, run) is stopped rather than repeated for ever.\n"
     "No more lines (Ctrl-D at \">\", the end of a script) end a list as \"end\" does.",
     do_commands, NULL, false},
    {"end", NULL, NULL, "end", "Ends the lines of \"commands N\" (see \"help commands\").", do_end,
     NULL, false},
    END_OF_TABLE,
};
