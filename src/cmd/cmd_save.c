/* save breakpoints FILE, as gdb has it: every breakpoint and watchpoint as
 * the commands that set it again ("source FILE"): its break/tbreak/watch
 * line with its condition, then its ignore count, its disabled state and
 * its command list, each naming it as $bpnum (the last one set), since
 * sourcing numbers them afresh.  Written whole or not at all (afile). */
#include <stdio.h>
#include <string.h>

#include "cmd_priv.h"
#include "util/afile.h"

static void write_list(FILE *fp, const char *text)
{
    fprintf(fp, "  commands\n");
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        fprintf(fp, "    %.*s\n", len, line);
        line += len + (nl != NULL);
    }
    fprintf(fp, "  end\n");
}

/* One breakpoint's lines (every breakpoint is set by a command: its spec). */
static void write_bp(struct dbg *d, FILE *fp, const struct breakpoint *bp)
{
    fprintf(fp, "%s%s%s\n", bp->spec, bp->cond[0] ? " if " : "", bp->cond);
    if (bp->ignore)
        fprintf(fp, "  ignore $bpnum %llu\n", (unsigned long long)bp->ignore);
    if (!bp->enabled)
        fprintf(fp, "  disable $bpnum\n");
    const char *list = cmd_bp_commands_text(d, bp->number);
    if (list)
        write_list(fp, list);
}

static enum cmd_status do_save_breakpoints(struct dbg *d, struct cmd_args *a)
{
    const char *path = cmd_arg(a, 0);
    if (!path || cmd_nargs(a) != 1)
        return cmd_fail(d, a, "expected one FILE");
    size_t n = bps_count(d->bps);
    if (n == 0)
        return cmd_fail(d, a, "nothing to save: no breakpoints or watchpoints");
    struct afile af;
    char err[4400];
    if (!afile_open(&af, path, err, sizeof err))
        return cmd_fail(d, a, "%s", err);
    fprintf(af.fp, "# dladbg breakpoints (\"save breakpoints\"); \"source %s\" sets them again\n",
            path);
    for (size_t i = 0; i < n; i++)
        write_bp(d, af.fp, bps_get(d->bps, i));
    if (!afile_commit(&af, err, sizeof err))
        return cmd_fail(d, a, "%s", err);
    cmd_print(d, "Saved %zu breakpoint%s to %s.", n, n == 1 ? "" : "s", path);
    return CMD_OK;
}

static const struct cmd_entry save_subs[] = {
    {"breakpoints", "b br", "FILE", "save breakpoints FILE",
     "Write every breakpoint and watchpoint to FILE as the commands that set it again\n"
     "(\"source FILE\"): break, tbreak or watch with its condition, its ignore count, disable\n"
     "when disabled, and its command list, numbered afresh when sourced ($bpnum: the last\n"
     "set).  The file is written whole or not at all.",
     do_save_breakpoints, NULL, false},
    END_OF_TABLE,
};

const struct cmd_entry cmd_save_entries[] = {
    {"save", NULL, NULL, "save breakpoints FILE",
     "Save what can be set again: \"save breakpoints FILE\" (see \"help save breakpoints\").", NULL,
     save_subs, false},
    END_OF_TABLE,
};
