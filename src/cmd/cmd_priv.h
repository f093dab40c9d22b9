/* What the command implementations (src/cmd_*.c) share: argument access,
 * output helpers and the sub-tables of the command table. */
#ifndef DLADBG_CMD_PRIV_H
#define DLADBG_CMD_PRIV_H

#include <stdarg.h>
#include <stdio.h>

#include "debug/breakpoints.h"
#include "debug/checkpoint.h"
#include "debug/perf_rank.h" /* perf_layer_cycles: info perf, info layers, info perf top */
#include "cmd.h"
#include "export/export.h"
#include "plugin/plugin_host.h"
#include "debug/proglog.h"
#include "debug/trace_ring.h"

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
/* Text as a stream, gdb's echo, printf and output: a newline ends a line,
 * what follows the last one stays open until more text, other output or the
 * end of the line typed (or of the script sourced) ends it. */
void cmd_out_stream(struct dbg *d, const char *text, size_t len);
/* An argument that names none of subs (a command with its own reading of
 * what is no subcommand, as break's shorthands): "unknown" or "ambiguous",
 * the nearest, the subcommands and what else it takes (also), as dispatch
 * says it for commands without one; CMD_ERROR. */
enum cmd_status cmd_fail_kind(struct dbg *d, struct cmd_args *a, const struct cmd_entry *subs,
                              const char *also);
/* Execute line as the command it spells, inside the command executing now
 * (gdb's shorthands: "break 3" runs "break layer 3"); its status. */
enum cmd_status cmd_exec_as(struct dbg *d, const char *line);
/* Report a failure of the executing command ("break: no register FOO") and return CMD_ERROR. */
enum cmd_status cmd_fail(struct dbg *d, struct cmd_args *a, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The session's hang report (session_hang_report) as output lines of kind. */
void cmd_hang_report(struct dbg *d, enum dbg_out_kind kind);

/* The answer to a yes/no question (dbg_options.confirm); true without asking
 * in batch mode and while a script runs, as gdb asks only at the terminal. */
bool cmd_confirm(struct dbg *d, const char *question);
/* Whether cmd_confirm would ask (at the terminal, no script running). */
bool cmd_asks(const struct dbg *d);
/* text without the blanks at either end, in buf (cut to len - 1 bytes). */
void cmd_trimmed(const char *text, char *buf, size_t len);
/* A session is open (else fails with a message). */
bool cmd_need_session(struct dbg *d, struct cmd_args *a);
/* Numbers: an expression (expr.h) evaluated against the session. */
bool cmd_number(struct dbg *d, struct cmd_args *a, const char *text, int64_t *v);
/* The same, the error given back in err instead of reported (a display's
 * value at a stop, where a failure is no failed command). */
bool cmd_eval(struct dbg *d, const char *text, int64_t *v, char *err, size_t errlen);
/* A value for a register or field: an enum name of the field (or of a
 * register's only field), else a number that fits the field's or register's
 * bits (negative ones as two's complement).  A word that is neither fails
 * listing the field's enum names; a number that does not fit fails naming
 * the range. */
bool cmd_reg_value(struct dbg *d, struct cmd_args *a, const struct regdb_ref *ref, const char *text,
                   uint32_t *v);
/* UNIT.REG[.FIELD] in the session's map; fails with the nearest name
 * ("did you mean") when there is one close enough. */
bool cmd_resolve_reg(struct dbg *d, struct cmd_args *a, const char *name, struct regdb_ref *ref);
/* Optional count argument i (default def, at least 1). */
bool cmd_count(struct dbg *d, struct cmd_args *a, int i, uint64_t def, uint64_t *n);

/* "advance LOCATION", "until LOCATION" (cmd_run.c): run until loc (a
 * breakpoint as break parsed it, not set; cond NULL: none) is reached, a
 * one-shot stop that no listing shows and that is gone afterwards however
 * the run stopped; until stops too when the layer the run is at completes. */
enum cmd_status cmd_run_to_location(struct dbg *d, struct cmd_args *a, const struct breakpoint *loc,
                                    const char *cond);
/* Run a step and report how it stopped (breakpoint, end, hang ...). */
enum cmd_status cmd_run_step(struct dbg *d, struct cmd_args *a, enum session_unit unit, uint64_t n);
/* As "run" does before it runs: a run that has begun starts again from
 * power-on reset, counting its own checks (cmd_run.c); false with a message. */
bool cmd_run_from_start(struct dbg *d, struct cmd_args *a);
/* Where a step began: the event ring's next record, the tasks and layers done. */
struct cmd_step_mark {
    uint64_t seq, tasks_done, layers_done;
};
void cmd_step_mark(struct dbg *d, struct cmd_step_mark *mark);
/* The stop in hardware terms (cmd_stop.c): the layers and tasks completed
 * since mark, then what the hardware does next. */
void cmd_hw_stop_line(struct dbg *d, const struct cmd_step_mark *mark, char *buf, size_t len);
void cmd_report_stop(struct dbg *d, enum session_stop r, const struct cmd_step_mark *mark);
/* What the hardware does next, from the driver's pending action: "layer 5
 * (PDP, group 1) programming", "layer 4 (CONV, group 0) running (the driver
 * waits for the DLA interrupt)", "EMU task 2 begins". */
void cmd_hw_next(struct dbg *d, char *buf, size_t len);
/* One line: where the session is (the action executed last, cycle). */
void cmd_where_line(struct dbg *d, char *buf, size_t len);

/* The ids of every rule the model checks, a few to a line ("help break"). */
void cmd_print_rule_ids(struct dbg *d);

/* "info tensors" (cmd_tensor.c, next to "tensor"). */
enum cmd_status cmd_info_tensors(struct dbg *d, struct cmd_args *a);
/* Completion of the tensor command (cmd_tensor.c): the loadable's tensor
 * names and "layer"; the options after the tensor (prev: the word before). */
void cmd_tensor_offer_names(struct dbg *d, void (*offer)(void *ctx, const char *cand), void *ctx);
void cmd_tensor_offer_options(const char *prev, void (*offer)(void *ctx, const char *cand),
                              void *ctx);
/* "dram:ADDR", "cvsram:ADDR" or ADDR (an expression; bit 31 set: DRAM, else
 * CV-SRAM when the configuration has it), as x takes it (cmd_data.c). */
bool cmd_parse_address(struct dbg *d, struct cmd_args *a, const char *text, enum dla_space *space,
                       uint64_t *addr);
/* Whether len bytes at addr are memory the file binds or the run wrote
 * (mem_accessible, mem_regions.h); false after gdb's "Cannot access memory
 * at address ..." naming the nearest regions, and the extent as what (NULL:
 * not) spans it when it starts in memory.  dump memory and tensor ADDR. */
bool cmd_mem_accessible(struct dbg *d, struct cmd_args *a, enum dla_space space, uint64_t addr,
                        uint64_t len, const char *what);
/* A run finished: the comparison's verdict line, where the frontend asked
 * for it (dbg_options.compare_verdict_at_run_end; cmd_compare.c). */
void cmd_compare_run_finished(struct dbg *d);
/* "info dma lines [READ WRITE]" (cmd_dma_lines.c). */
enum cmd_status cmd_info_dma(struct dbg *d, struct cmd_args *a);

/* cmd_display.c: the auto-display expressions, each shown with its value
 * at every stop (cmd_report_stop, "back"); "info display"; freed with d. */
void cmd_show_displays(struct dbg *d);
enum cmd_status cmd_info_display(struct dbg *d, struct cmd_args *a);
void cmd_displays_free(struct dbg *d);

/* cmd_commands.c: breakpoints' command lists.  While one is typed, dbg_exec
 * hands each line to cmd_lists_take_line (true: taken, *st its status).
 * cmd_stop_silent: the lists of every one of a stop's breakpoints bps (n > 0)
 * begin with "silent" (gdb: one noisy breakpoint makes the stop noisy).
 * After a stop's lines, cmd_lists_stopped runs the lists of its breakpoints
 * in number order (n 0: no breakpoint), or ends the list running;
 * cmd_lists_failed: a line of a list failed since (the command that ran it
 * fails).  cmd_print_bp_commands: for info breakpoints. */
bool cmd_lists_take_line(struct dbg *d, const char *line, enum cmd_status *st);
bool cmd_stop_silent(struct dbg *d, const int *bps, size_t n);
void cmd_lists_stopped(struct dbg *d, const int *bps, size_t n);
bool cmd_lists_failed(struct dbg *d);
void cmd_print_bp_commands(struct dbg *d, int bp);
/* Breakpoint bp's list, its lines each ending in '\n', or NULL (save breakpoints). */
const char *cmd_bp_commands_text(struct dbg *d, int bp);
void cmd_lists_free(struct dbg *d);

/* Re-attach the debugger's parts after the session jumped (open, restart). */
void dbg_session_changed(struct dbg *d);

/* cmd_compare.c: the comparison follows the session (changed: opened or
 * restarted; detach: before it closes), and "dump tensors DIR". */
void cmd_compare_session_changed(struct dbg *d);
void cmd_compare_detach(struct dbg *d);
enum cmd_status cmd_dump_tensors(struct dbg *d, struct cmd_args *a);
/* "reg NAME [= VALUE]" with a's words (cmd_data.c), for "set var" too. */
enum cmd_status cmd_reg(struct dbg *d, struct cmd_args *a);

/* The row that ends a command table. */
#define END_OF_TABLE                                                                               \
    {                                                                                              \
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, false                                            \
    }

/* Sub-tables and entries defined in the cmd_*.c files. */
extern const struct cmd_entry cmd_run_entries[];    /* cmd_run.c */
extern const struct cmd_entry cmd_break_entries[];  /* cmd_break.c */
/* gdb habits a location's kind is plain from, for break, tbreak, advance and
 * until (cmd_break.c): "break 3" (gdb's line number) is layer 3, "break sdp"
 * unit sdp, "break CDMA.D_OP_ENABLE" a write to it; else the kinds, and the
 * nearest. */
enum cmd_status cmd_break_shorthand(struct dbg *d, struct cmd_args *a);
extern const struct cmd_entry cmd_break_subs[];     /* cmd_break.c: locations, advance's too */
extern const struct cmd_entry cmd_commands_entries[]; /* cmd_commands.c: commands, end */
extern const struct cmd_entry cmd_display_entries[]; /* cmd_display.c: display, undisplay */
extern const struct cmd_entry cmd_delete_subs[];     /* cmd_display.c: delete display */
extern const struct cmd_entry cmd_info_entries[];   /* cmd_info.c */
extern const struct cmd_entry cmd_perf_subs[];      /* cmd_perf.c: info perf top */
extern const struct cmd_entry cmd_data_entries[];   /* cmd_data.c: reg, x, dump, print */
extern const struct cmd_entry cmd_tensor_entries[]; /* cmd_tensor.c: tensor */
extern const struct cmd_entry cmd_export_entries[]; /* cmd_export.c: export, plugins */
extern const struct cmd_entry cmd_compare_entries[]; /* cmd_compare.c: compare */
extern const struct cmd_entry cmd_misc_entries[];   /* cmd_misc.c: help, source, quit ... */
extern const struct cmd_entry cmd_echo_entries[];   /* cmd_echo.c: echo, printf, output */
extern const struct cmd_entry cmd_shell_entries[];  /* cmd_shell.c: shell */
extern const struct cmd_entry cmd_set_entries[];    /* cmd_set.c: set, show */
extern const struct cmd_entry cmd_save_entries[];   /* cmd_save.c: save breakpoints */
extern struct cmd_entry cmd_plugin_entries[];       /* cmd_plugin.c: rebuilt from the plugins */
#define CMD_PLUGIN_ROWS 64 /* plugin commands the table holds; more are refused at load */

/* Plugin commands (cmd_plugin.c).  Rebuild the rows from d's plugins (d NULL:
 * none); forget them when d goes. */
void cmd_plugin_sync(struct dbg *d);
void cmd_plugin_forget(const struct dbg *d);
bool cmd_plugin_entry(const struct cmd_entry *e);
/* A plugin_name_taken_fn: the word is a built-in command's name or alias. */
bool cmd_builtin_taken(void *ctx, const char *name);
/* Completion of a plugin command's word after argv[0..argc-1]. */
void cmd_plugin_complete(struct dbg *d, const struct cmd_entry *e, int argc, char *const *argv,
                         const char *word, dladbg_offer_fn offer, void *ctx);

#endif
