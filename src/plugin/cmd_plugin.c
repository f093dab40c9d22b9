/* Commands that plugins add (dladbg/decoder.h, "dladbg_commands"): one group
 * of the command table whose rows are rebuilt from the loaded plugins, so
 * that lookup, unique prefixes, "help" and dispatch treat them like built-in
 * commands; running one hands the plugin a console (its text goes to the sink
 * of the command, the TUI's console pane included) and the run, read-only.
 * A command's exec and complete run in a child process (plugin_child.h):
 * what they print or offer comes back through a pipe, and a crash fails the
 * command, named, instead of ending the session. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd_priv.h"
#include "plugin_child.h"
#include "plugin_guard.h"
#include "plugin_run.h"

#define PLUGIN_ROWS CMD_PLUGIN_ROWS

/* The command table is process-wide while plugins belong to a context: the
 * rows name the commands of the context that synchronised them last (every
 * dbg_exec and dbg_complete does), and executing one looks the command up in
 * the executing context's plugins. */
struct cmd_entry cmd_plugin_entries[PLUGIN_ROWS + 1];
static const struct dbg *rows_owner;

bool cmd_plugin_entry(const struct cmd_entry *e)
{
    return e >= cmd_plugin_entries && e < cmd_plugin_entries + PLUGIN_ROWS;
}

bool cmd_builtin_taken(void *ctx, const char *name)
{
    (void)ctx;
    for (const struct cmd_entry *const *g = cmd_groups; *g; g++) {
        if (*g == cmd_plugin_entries)
            continue;
        const struct cmd_entry *e = cmd_lookup(*g, name, NULL);
        /* an exact name, or an alias (a name that does not extend the word) */
        if (e && (!strcasecmp(e->name, name) || strncasecmp(e->name, name, strlen(name))))
            return true;
    }
    return false;
}

/* ---------------------------------------------------------------- console */

struct console {
    struct dladbg_console con; /* first: the plugin gets a pointer to it */
    struct dbg *d;
    struct cmd_args *a;
    bool failed;
};

/* Text of any length, line by line (cmd_out's buffer holds one line). */
static void each_line(struct console *c, enum dbg_out_kind kind, const char *text)
{
    while (text && *text) {
        size_t n = strcspn(text, "\n");
        cmd_out(c->d, kind, "%.*s", (int)n, text);
        text += n + (text[n] == '\n');
    }
}

/* What the console's functions send from the child. */
enum said { SAID_TEXT, SAID_ERROR, SAID_OFFER };

static void console_print(const struct dladbg_console *con, const char *text)
{
    (void)con;
    plugin_child_say(SAID_TEXT, text);
}

static void console_error(const struct dladbg_console *con, const char *text)
{
    (void)con;
    plugin_child_say(SAID_ERROR, text && *text ? text : "failed");
}

static void console_init(struct console *c, struct plugin_run *pr, struct dbg *d,
                         struct cmd_args *a)
{
    plugin_run_init(pr, d->session, d->ring);
    *c = (struct console){.d = d, .a = a};
    c->con = (struct dladbg_console){.struct_size = sizeof c->con,
                                     .print = console_print,
                                     .error = console_error,
                                     .run = &pr->run,
                                     .host_private = c};
}

/* In the parent: what the command said, where the command's output goes. */
static void heard(void *ctx, int kind, const char *text)
{
    struct console *c = ctx;
    if (kind == SAID_ERROR) {
        c->failed = true;
        cmd_fail(c->d, c->a, "%s", text);
    } else {
        each_line(c, DBG_OUT_TEXT, text);
    }
}

struct exec_job {
    const struct plugin_info *from;
    const struct dladbg_command *pc;
    struct console *c;
    int argc;
    const char *const *argv;
};

static void exec_in_child(void *ctx, void *out)
{
    struct exec_job *j = ctx;
    plugin_guard_enter(j->from->facts->name, j->from->path, "exec");
    *(int *)out = j->pc->exec(&j->c->con, j->argc, j->argv);
    plugin_guard_leave();
}

static enum cmd_status do_plugin_command(struct dbg *d, struct cmd_args *a)
{
    uint32_t k;
    const struct plugin_info *from = plugin_host_command(d->plugins, a->path, &k);
    if (!from)
        return cmd_fail(d, a, "no plugin of this session provides \"%s\"", a->path);
    char err[768];
    if (!plugin_host_map(d->plugins, from, err, sizeof err))
        return cmd_fail(d, a, "%s", err);
    const struct dladbg_command *pc = plugin_command_at(from, k);
    const char *argv[CMD_MAX_WORDS + 1];
    int argc = 0;
    argv[argc++] = pc->name;
    for (int i = 0; i < cmd_nargs(a); i++)
        argv[argc++] = cmd_arg(a, i);
    argv[argc] = NULL;
    struct plugin_run pr;
    struct console c;
    console_init(&c, &pr, d, a);
    struct exec_job j = {from, pc, &c, argc, argv};
    int rc = 0;
    bool ran = plugin_child_run_talking(exec_in_child, &j, &rc, sizeof rc, heard, &c, err,
                                        sizeof err);
    plugin_run_release(&pr);
    if (!ran)
        return cmd_fail(d, a, "%s", err);
    if (rc != 0 && !c.failed)
        return cmd_fail(d, a, "failed");
    return rc == 0 && !c.failed ? CMD_OK : CMD_ERROR;
}

/* Completion: the candidates come back as messages. */
struct complete_job {
    const struct plugin_info *from;
    const struct dladbg_command *pc;
    struct console *c;
    int n;
    const char *const *words;
    const char *word;
    dladbg_offer_fn offer;
    void *ctx;
};

static void offer_to_parent(void *ctx, const char *candidate)
{
    (void)ctx;
    plugin_child_say(SAID_OFFER, candidate);
}

static void complete_in_child(void *ctx, void *out)
{
    (void)out;
    struct complete_job *j = ctx;
    plugin_guard_enter(j->from->facts->name, j->from->path, "complete");
    j->pc->complete(&j->c->con, j->n, j->words, j->word, offer_to_parent, NULL);
    plugin_guard_leave();
}

static void heard_offer(void *ctx, int kind, const char *text)
{
    struct complete_job *j = ctx;
    if (kind == SAID_OFFER)
        j->offer(j->ctx, text);
}

void cmd_plugin_complete(struct dbg *d, const struct cmd_entry *e, int argc, char *const *argv,
                         const char *word, dladbg_offer_fn offer, void *ctx)
{
    uint32_t k;
    const struct plugin_info *from = plugin_host_command(d->plugins, e->name, &k);
    if (!from || !from->facts->commands[k].completes)
        return; /* nothing to map the plugin for */
    char err[768];
    if (!plugin_host_map(d->plugins, from, err, sizeof err)) {
        cmd_out(d, DBG_OUT_ERROR, "completing \"%s\": %s", e->name, err);
        return;
    }
    const struct dladbg_command *pc = plugin_command_at(from, k);
    const char *words[CMD_MAX_WORDS + 1];
    int n = 0;
    words[n++] = pc->name;
    for (int i = 1; i < argc && n < CMD_MAX_WORDS; i++)
        words[n++] = argv[i];
    words[n] = NULL;
    struct plugin_run pr;
    struct console c;
    console_init(&c, &pr, d, NULL);
    struct complete_job j = {from, pc, &c, n, words, word, offer, ctx};
    char unused;
    if (!plugin_child_run_talking(complete_in_child, &j, &unused, sizeof unused, heard_offer, &j,
                                  err, sizeof err))
        cmd_out(d, DBG_OUT_ERROR, "completing \"%s\": %s", pc->name, err);
    plugin_run_release(&pr);
}

/* ---------------------------------------------------------------- the rows */

void cmd_plugin_sync(struct dbg *d)
{
    memset(cmd_plugin_entries, 0, sizeof cmd_plugin_entries);
    rows_owner = d;
    size_t row = 0;
    for (size_t i = 0; d && i < plugin_host_count(d->plugins); i++) {
        /* from what the plugin's probe read: listing them maps no plugin */
        const struct plugin_facts *f = plugin_host_get(d->plugins, i)->facts;
        for (uint32_t k = 0; k < f->n_commands && row < PLUGIN_ROWS; k++) {
            const struct plugin_command_facts *pc = &f->commands[k];
            cmd_plugin_entries[row++] = (struct cmd_entry){
                .name = pc->name, .usage = pc->usage, .help = pc->help, .exec = do_plugin_command};
        }
    }
}

void cmd_plugin_forget(const struct dbg *d)
{
    if (rows_owner == d)
        cmd_plugin_sync(NULL);
}
