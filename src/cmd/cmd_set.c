/* set and show, for the settings a gdb script begins with ("set confirm
 * off", "set pagination off") and gdb's way of writing a variable ("set var
 * UNIT.REG = VALUE", or without "var"), so that a user's gdb habits and
 * scripts run here instead of stopping a batch run at "unknown command". */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmd_priv.h"

/* "on", "off" or nothing (on, as gdb takes "set confirm"); false with a
 * message for anything else. */
static bool on_off(struct dbg *d, struct cmd_args *a, bool *on)
{
    const char *w = cmd_arg(a, 0);
    if (cmd_nargs(a) > 1) {
        cmd_fail(d, a, "expected \"on\" or \"off\", one word");
        return false;
    }
    if (!w || !strcasecmp(w, "on") || !strcmp(w, "1") || !strcasecmp(w, "enable")) {
        *on = true;
        return true;
    }
    if (!strcasecmp(w, "off") || !strcmp(w, "0") || !strcasecmp(w, "disable")) {
        *on = false;
        return true;
    }
    cmd_fail(d, a, "\"%s\": expected \"on\" or \"off\"", w);
    return false;
}

static void show_confirm(struct dbg *d)
{
    cmd_print(d, "Whether to confirm potentially dangerous operations is %s.",
              d->confirm_off ? "off" : "on");
}

static void show_pagination(struct dbg *d)
{
    cmd_print(d, "State of pagination is off (dladbg never pages its output).");
}

static enum cmd_status do_set_confirm(struct dbg *d, struct cmd_args *a)
{
    bool on;
    if (!on_off(d, a, &on))
        return CMD_ERROR;
    d->confirm_off = !on;
    return CMD_OK;
}

/* Accepted for gdb scripts: dladbg writes its output without pages, so off
 * is what it does anyway; "on" cannot be had and says so. */
static enum cmd_status do_set_pagination(struct dbg *d, struct cmd_args *a)
{
    bool on;
    if (!on_off(d, a, &on))
        return CMD_ERROR;
    if (on)
        return cmd_fail(d, a,
                        "dladbg never pages its output (a pager such as \"| less\" "
                        "on --batch output does)");
    return CMD_OK;
}

/* "set height 0" / "set width 0": gdb's other way to turn pages off. */
static enum cmd_status do_set_screen_size(struct dbg *d, struct cmd_args *a)
{
    int64_t v;
    if (cmd_nargs(a) != 1)
        return cmd_fail(d, a, "expected a number (0: unlimited)");
    if (!cmd_number(d, a, cmd_arg(a, 0), &v))
        return CMD_ERROR;
    if (v != 0)
        return cmd_fail(d, a,
                        "dladbg never pages or wraps its output: only 0 (unlimited) is "
                        "taken");
    return CMD_OK;
}

/* set var UNIT.REG[.FIELD][@GROUP] = VALUE, and the same without "var":
 * what "reg NAME = VALUE" does; without "=" gdb's set has nothing to do. */
static enum cmd_status do_set_var(struct dbg *d, struct cmd_args *a)
{
    const char *text = cmd_rest(a, 0), *eq = strchr(text, '=');
    if (!text[0])
        return cmd_fail(d, a,
                        "expected UNIT.REG[.FIELD][@GROUP] = VALUE, or one of: confirm, "
                        "pagination, height, width, var");
    if (eq && eq[1] == '=')
        return cmd_fail(d, a,
                        "\"==\" compares (\"print\" evaluates it); to write use "
                        "\"set var NAME = VALUE\"");
    if (!eq)
        return cmd_fail(d, a, "expected \"%s = VALUE\" (\"reg NAME\" shows a register)", text);
    return cmd_reg(d, a);
}

static const struct cmd_entry set_subs[] = {
    {"confirm", NULL, "[on|off]", "set confirm [on|off]",
     "Whether quit, q, Ctrl-D, \"delete\" and \"undisplay\" without numbers ask first at the\n"
     "terminal (default on; scripts and --batch never ask).",
     do_set_confirm, NULL, false},
    {"pagination", NULL, "[on|off]", "set pagination off",
     "Accepted for gdb scripts: dladbg never pages its output.", do_set_pagination, NULL, false},
    {"height", NULL, "N", "set height 0", "Accepted for gdb scripts (0 only): no pages.",
     do_set_screen_size, NULL, false},
    {"width", NULL, "N", "set width 0", "Accepted for gdb scripts (0 only): no wrapping.",
     do_set_screen_size, NULL, false},
    {"var", "variable", "REG", "set var UNIT.REG[.FIELD][@GROUP] = VALUE",
     "Write a register or field, as \"reg NAME = VALUE\" does.", do_set_var, NULL, false},
    END_OF_TABLE,
};

static void show_version(struct dbg *d)
{
    cmd_print(d, "dladbg %s", DLADBG_VERSION);
}

/* What "show" knows, in the order "show" alone lists them. */
static const struct {
    const char *name;
    void (*show)(struct dbg *d);
} shown[] = {{"confirm", show_confirm}, {"pagination", show_pagination}, {"version", show_version}};
#define N_SHOWN (sizeof shown / sizeof shown[0])

static enum cmd_status do_show(struct dbg *d, struct cmd_args *a)
{
    const char *w = cmd_arg(a, 0);
    if (cmd_nargs(a) > 1)
        return cmd_fail(d, a, "expected one of: confirm, pagination, version");
    bool found = false;
    for (size_t i = 0; i < N_SHOWN; i++)
        if (!w || !strcasecmp(w, shown[i].name)) {
            shown[i].show(d);
            found = true;
        }
    return found
               ? CMD_OK
               : cmd_fail(d, a, "unknown \"%s\"; expected one of: confirm, pagination, version", w);
}

const struct cmd_entry cmd_set_entries[] = {
    {"set", NULL, "REG", "set confirm|pagination|height|width|var ... | set UNIT.REG = VALUE",
     "Settings gdb scripts begin with (\"set confirm off\": ask nothing at the terminal;\n"
     "\"set pagination off\", \"set height 0\": accepted, dladbg never pages), and gdb's\n"
     "\"set var NAME = VALUE\" (or \"set NAME = VALUE\") to write a register or field.",
     do_set_var, set_subs, false},
    {"show", NULL, "[confirm|pagination|version]", "show [confirm|pagination|version]",
     "Show a setting (all without a name), or dladbg's version.", do_show, NULL, false},
    END_OF_TABLE,
};
