/* Auto-display, as gdb has it: display EXPR, undisplay [N...], info display,
 * delete display N.  Each expression is numbered and shown once when it is
 * made, then at every stop (cmd_show_displays, called where stops are
 * reported), in the order made.  An expression that cannot be evaluated at
 * a stop (a register the configuration of another file lacks) shows the
 * error on its line and stays: the next file may have the register again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_priv.h"

/* Bounds on what a script can make the debugger hold and print at a stop. */
#define DISPLAY_MAX      64
#define DISPLAY_EXPR_MAX 256

struct display {
    int number;
    char expr[DISPLAY_EXPR_MAX];
};

struct cmd_displays {
    struct display v[DISPLAY_MAX];
    size_t n;
    int next_number;
};

void cmd_displays_free(struct dbg *d)
{
    free(d->displays);
    d->displays = NULL;
}

static size_t display_count(const struct dbg *d)
{
    return d->displays ? d->displays->n : 0;
}

/* "N: EXPR = 5 (0x5)", the value as print shows it, or the error in its place. */
static void show_one(struct dbg *d, const struct display *disp)
{
    int64_t v;
    char err[256];
    if (cmd_eval(d, disp->expr, &v, err, sizeof err))
        cmd_print(d, "%d: %s = %lld (0x%llx)", disp->number, disp->expr, (long long)v,
                  (unsigned long long)v);
    else
        cmd_print(d, "%d: %s = <error: %s>", disp->number, disp->expr, err);
}

void cmd_show_displays(struct dbg *d)
{
    /* nothing to show before a file is open: registers and $cycle need one */
    if (!d->session)
        return;
    for (size_t i = 0; i < display_count(d); i++)
        show_one(d, &d->displays->v[i]);
}

static enum cmd_status do_display(struct dbg *d, struct cmd_args *a)
{
    /* gdb's display/x and display/d: the line shows both already */
    if (a->suffix[0] && strcmp(a->suffix, "/x") && strcmp(a->suffix, "/d"))
        return cmd_fail(d, a,
                        "no format \"%s\": a display shows its value in decimal and hex "
                        "(/x and /d change nothing), as print does",
                        a->suffix);
    if (!cmd_nargs(a)) { /* gdb: "display" alone shows them all now */
        cmd_show_displays(d);
        return CMD_OK;
    }
    const char *text = cmd_rest(a, 0);
    if (strlen(text) >= DISPLAY_EXPR_MAX)
        return cmd_fail(d, a, "expression too long (at most %d characters)", DISPLAY_EXPR_MAX - 1);
    if (display_count(d) >= DISPLAY_MAX)
        return cmd_fail(d, a, "at most %d expressions are displayed (\"undisplay N\" drops one)",
                        DISPLAY_MAX);
    int64_t v;
    /* a typo is refused when typed, as print refuses it; before a file is
     * open there are no registers to check it against */
    if (d->session && !cmd_number(d, a, text, &v))
        return CMD_ERROR;
    if (!d->displays && !(d->displays = calloc(1, sizeof *d->displays)))
        return cmd_fail(d, a, "out of memory");
    struct cmd_displays *ds = d->displays;
    struct display *disp = &ds->v[ds->n++];
    disp->number = ++ds->next_number;
    cmd_trimmed(text, disp->expr, sizeof disp->expr); /* as typed */
    if (d->session)
        show_one(d, disp);
    return CMD_OK;
}

static struct display *display_numbered(struct dbg *d, const char *word)
{
    char *end;
    long n = strtol(word, &end, 10);
    for (size_t i = 0; *word && !*end && i < display_count(d); i++)
        if (d->displays->v[i].number == n)
            return &d->displays->v[i];
    return NULL;
}

/* Every number must name a display before any goes: a typo deletes nothing. */
static enum cmd_status undisplay_numbers(struct dbg *d, struct cmd_args *a)
{
    for (int i = 0; i < cmd_nargs(a); i++)
        if (!display_numbered(d, cmd_arg(a, i)))
            return cmd_fail(d, a, "no display number %s (\"info display\" lists them)",
                            cmd_arg(a, i));
    for (int i = 0; i < cmd_nargs(a); i++) {
        struct display *disp = display_numbered(d, cmd_arg(a, i));
        if (!disp) /* the same number twice */
            continue;
        struct cmd_displays *ds = d->displays;
        size_t k = (size_t)(disp - ds->v);
        memmove(&ds->v[k], &ds->v[k + 1], (ds->n - k - 1) * sizeof *ds->v);
        ds->n--;
    }
    return CMD_OK;
}

static enum cmd_status do_undisplay(struct dbg *d, struct cmd_args *a)
{
    if (cmd_nargs(a))
        return undisplay_numbers(d, a);
    size_t n = display_count(d);
    if (!n)
        return CMD_OK;
    if (!cmd_confirm(d, "Delete all auto-display expressions? (y or n) ")) {
        cmd_print(d, "Not confirmed: %zu display%s kept.", n, n == 1 ? "" : "s");
        return CMD_OK;
    }
    d->displays->n = 0;
    cmd_print(d, "Deleted %zu display%s.", n, n == 1 ? "" : "s");
    return CMD_OK;
}

enum cmd_status cmd_info_display(struct dbg *d, struct cmd_args *a)
{
    (void)a;
    if (!display_count(d)) {
        cmd_print(d, "There are no auto-display expressions now.");
        return CMD_OK;
    }
    cmd_print(d, "Auto-display expressions now in effect:");
    cmd_print(d, "%-4s %s", "Num", "Expression");
    for (size_t i = 0; i < display_count(d); i++)
        cmd_print(d, "%-4d %s", d->displays->v[i].number, d->displays->v[i].expr);
    return CMD_OK;
}

const struct cmd_entry cmd_delete_subs[] = {
    {"display", NULL, "[N] ...", "delete display [N...]",
     "Delete auto-display expressions, as undisplay does.", do_undisplay, NULL, false},
    END_OF_TABLE,
};

const struct cmd_entry cmd_display_entries[] = {
    {"display", NULL, "EXPR", "display [EXPR]",
     "Show EXPR (an expression, as print takes it) now and at every stop: a breakpoint,\n"
     "step, next, finish, back, the end of the run or a hang, numbered (\"1: $cycle = 53226\n"
     "(0xcfea)\") in the order made.  An expression that fails at a stop (a register the\n"
     "configuration lacks) shows its error on its line and stays.  Without EXPR, shows\n"
     "them all now.",
     do_display, NULL, false},
    {"undisplay", NULL, "[N] ...", "undisplay [N...]",
     "Stop displaying expressions N... (all without numbers: asked first at the terminal).",
     do_undisplay, NULL, false},
    END_OF_TABLE,
};
