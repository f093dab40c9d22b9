/* What the command implementations (src/cmd_*.c) share: argument access,
 * output helpers and the sub-tables of the command table. */
#ifndef DLADBG_CMD_PRIV_H
#define DLADBG_CMD_PRIV_H

#include <stdarg.h>
#include <stdio.h>

#include "breakpoints.h"
#include "checkpoint.h"
#include "cmd.h"
#include "export.h"
#include "plugin_host.h"
#include "proglog.h"
#include "trace_ring.h"

#define CMD_MAX_WORDS 64

/* A parsed command line: words (quotes removed) and where each started in
 * the original text, so a command can take "the rest of the line". */
struct cmd_args {
    int argc;
    char *argv[CMD_MAX_WORDS];
    size_t offset[CMD_MAX_WORDS];
    const char *line;   /* the original text */
    int first;          /* index of the first argument of the executing entry */
    const char *suffix; /* "/4w" of "x/4w", or "" */
    char path[64];      /* full command name for messages: "info regs" */
    char *storage;      /* the words, NUL-separated: sized by tokenize for the whole line */
};

/* Arguments of the executing entry: n, and word i (NULL past the end). */
int cmd_nargs(const struct cmd_args *a);
const char *cmd_arg(const struct cmd_args *a, int i);
/* The raw text from argument i to the end of the line ("" past the end). */
const char *cmd_rest(const struct cmd_args *a, int i);

/* Output: text may hold several lines. */
void cmd_out(struct dbg *d, enum dbg_out_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cmd_vout(struct dbg *d, enum dbg_out_kind kind, const char *fmt, va_list ap);
#define cmd_print(d, ...) cmd_out((d), DBG_OUT_TEXT, __VA_ARGS__)
/* Report a failure of the executing command ("break: no register FOO") and return CMD_ERROR. */
enum cmd_status cmd_fail(struct dbg *d, struct cmd_args *a, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The session's hang report (session_hang_report) as output lines of kind. */
void cmd_hang_report(struct dbg *d, enum dbg_out_kind kind);

/* A session is open (else fails with a message). */
bool cmd_need_session(struct dbg *d, struct cmd_args *a);
/* Numbers: an expression (expr.h) evaluated against the session. */
bool cmd_number(struct dbg *d, struct cmd_args *a, const char *text, int64_t *v);
/* A value for a register or field (f NULL: a whole register): an enum name of
 * the field, else a number (truncated to 32 bits). */
bool cmd_reg_value(struct dbg *d, struct cmd_args *a, const struct regdb_field *f, const char *text,
                   uint32_t *v);
/* Optional count argument i (default def, at least 1). */
bool cmd_count(struct dbg *d, struct cmd_args *a, int i, uint64_t def, uint64_t *n);

/* Run a step and report how it stopped (breakpoint, end, hang ...). */
enum cmd_status cmd_run_step(struct dbg *d, struct cmd_args *a, enum session_unit unit, uint64_t n);
void cmd_report_stop(struct dbg *d, enum session_stop r);
/* One line: where the session is (the action executed last, cycle). */
void cmd_where_line(struct dbg *d, char *buf, size_t len);

/* "info tensors" (cmd_data.c, next to "tensor"). */
enum cmd_status cmd_info_tensors(struct dbg *d, struct cmd_args *a);

/* Re-attach the debugger's parts after the session jumped (open, restart). */
void dbg_session_changed(struct dbg *d);

/* The row that ends a command table. */
#define END_OF_TABLE                                                                               \
    {                                                                                              \
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, false                                            \
    }

/* Sub-tables and entries defined in the cmd_*.c files. */
extern const struct cmd_entry cmd_run_entries[];    /* cmd_run.c */
extern const struct cmd_entry cmd_break_entries[];  /* cmd_break.c */
extern const struct cmd_entry cmd_info_entries[];   /* cmd_info.c */
extern const struct cmd_entry cmd_data_entries[];   /* cmd_data.c: reg, x, tensor, print */
extern const struct cmd_entry cmd_export_entries[]; /* cmd_export.c: export, plugins */
extern const struct cmd_entry cmd_misc_entries[];   /* cmd_misc.c: help, source, quit ... */

#endif
