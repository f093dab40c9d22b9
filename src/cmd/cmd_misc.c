/* The command language itself: help, source, quit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_priv.h"

/* The first sentence of a help text, on one line ("input.txn" and "0x.."
 * do not end a sentence: a full stop does when a blank or the end follows). */
static void first_sentence(const char *help, char *buf, size_t len)
{
    size_t n = 0;
    for (const char *p = help; *p && n + 1 < len; p++) {
        if (*p == '.' && (p[1] == ' ' || p[1] == '\n' || p[1] == 0))
            break;
        buf[n++] = *p == '\n' ? ' ' : *p;
    }
    buf[n] = 0;
}

static void list_table(struct dbg *d, const struct cmd_entry *table)
{
    for (const struct cmd_entry *e = table; e->name; e++) {
        char summary[256];
        first_sentence(e->help, summary, sizeof summary);
        if (strlen(e->usage) > 44)
            cmd_print(d, "  %s\n  %-44s %s", e->usage, "", summary);
        else
            cmd_print(d, "  %-44s %s", e->usage, summary);
    }
}

static enum cmd_status do_help(struct dbg *d, struct cmd_args *a)
{
    if (!cmd_nargs(a)) {
        cmd_print(d, "Commands (unique prefixes work; an empty line repeats a step):");
        for (const struct cmd_entry *const *g = cmd_groups; *g; g++)
            list_table(d, *g);
        cmd_print(d, "\"help COMMAND [SUBCOMMAND]\" tells more.");
        return CMD_OK;
    }
    const struct cmd_entry *e = NULL, *table = NULL, *top = NULL;
    for (int i = 0; i < cmd_nargs(a); i++) {
        bool ambiguous;
        const struct cmd_entry *next = cmd_lookup(table, cmd_arg(a, i), &ambiguous);
        if (!next)
            return cmd_fail(d, a, "%s \"%s\"", ambiguous ? "ambiguous" : "no command",
                            cmd_arg(a, i));
        e = next;
        if (!top)
            top = e;
        table = e->subs;
        if (!table)
            break;
    }
    cmd_print(d, "usage: %s", e->usage);
    if (e->alias)
        cmd_print(d, "also: %s", e->alias);
    cmd_print(d, "%s", e->help);
    if (e->subs)
        list_table(d, e->subs);
    bool breaks = top && (!strcmp(top->name, "break") || !strcmp(top->name, "tbreak"));
    if (breaks && (e == top || !strcmp(e->name, "rule")))
        cmd_print_rule_ids(d);
    return CMD_OK;
}

static enum cmd_status do_source(struct dbg *d, struct cmd_args *a)
{
    const char *path = cmd_arg(a, 0);
    if (!path || cmd_nargs(a) != 1)
        return cmd_fail(d, a, "expected one FILE");
    unsigned before = d->failed_cmds;
    enum cmd_status st = dbg_source(d, path, NULL);
    /* the failing line was counted and reported already */
    if (st == CMD_ERROR && d->failed_cmds > before)
        d->failed_cmds--;
    return st;
}

bool dbg_run_in_progress(struct dbg *d)
{
    struct drv_action act;
    return d->session && !session_finished(d->session) && session_last_action(d->session, &act);
}

void dbg_quit_question(struct dbg *d, char *buf, size_t len)
{
    unsigned long long done = session_layers_done(d->session);
    snprintf(buf, len, "A run is in progress (%llu layer%s done, cycle %llu). Quit? [y/N] ", done,
             done == 1 ? "" : "s", (unsigned long long)dla_now(session_dla(d->session)));
}

static enum cmd_status do_quit(struct dbg *d, struct cmd_args *a)
{
    if (dbg_run_in_progress(d)) {
        char question[160];
        dbg_quit_question(d, question, sizeof question);
        if (!cmd_confirm(d, question)) {
            cmd_print(d, "Not confirmed.");
            return CMD_OK;
        }
    }
    if (cmd_arg(a, 0)) {
        int64_t v;
        if (!cmd_number(d, a, cmd_arg(a, 0), &v))
            return CMD_ERROR;
        if (v < 0 || v > 255)
            return cmd_fail(d, a, "exit status must be 0..255");
        d->quit_status = (int)v;
    }
    d->quit = true;
    return CMD_QUIT;
}

const struct cmd_entry cmd_misc_entries[] = {
    {"help", "h ?", "[CMD] [CMD]", "help [COMMAND [SUBCOMMAND]]",
     "List the commands, or describe one.", do_help, NULL, false},
    {"source", "so", "FILE", "source FILE",
     "Execute the commands of a file (in --batch the first failing one ends it).", do_source, NULL,
     false},
    {"quit", "q exit", "[N]", "quit [N]",
     "Leave dladbg; the exit status is N, or the run's (0 ok, 1 mismatch, 2 error).  At the\n"
     "terminal, with a run in progress, asks first (as q and Ctrl-D on an empty line do).",
     do_quit, NULL, false},
    END_OF_TABLE,
};
