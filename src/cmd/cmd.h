/* The debugger's command layer: one context (struct dbg) holding the session,
 * breakpoints, checkpoints, the event trace ring and the command history, and
 * three entry points that batch mode, the readline console and the TUI share:
 *
 *   dbg_exec()      execute one command line, output going to a sink
 *   dbg_complete()  complete the word under the cursor of a partial line
 *   dbg_source()    execute a script file line by line
 *
 * Output never goes to stdout directly: every line of text (results, stop
 * reports, driver messages, model diagnostics) is handed to the sink passed to
 * the call that produced it, tagged with its kind so a frontend can colour or
 * route it.  The context is single-threaded; a frontend calls into it from one
 * thread and interrupts a running command by setting session_interrupt
 * (session.h) from a signal handler or its input loop.
 *
 * Commands are described by a table of struct cmd_entry (name, alias,
 * argument template, usage, help text, exec function); parsing, unique-prefix
 * matching, help, completion and dispatch all read that table.  This header is
 * the stable interface; src/cmd/cmd_priv.h holds what command implementations share. */
#ifndef DLADBG_CMD_H
#define DLADBG_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "debug/report.h"
#include "debug/session.h"

/* ---------------------------------------------------------------- output */

enum dbg_out_kind {
    DBG_OUT_TEXT,    /* ordinary command output */
    DBG_OUT_STOP,    /* why and where execution stopped ("Breakpoint 1, ...") */
    DBG_OUT_NOTE,    /* driver notes and informational messages */
    DBG_OUT_WARNING, /* model diagnostics, driver warnings */
    DBG_OUT_ERROR,   /* a command failed, or the run found an error */
};

/* Receives output one line at a time; text has no trailing newline. */
struct dbg_sink {
    void (*line)(void *ctx, enum dbg_out_kind kind, const char *text);
    void *ctx;
};

/* ---------------------------------------------------------------- context */

struct breakpoints;
struct checkpoints;
struct trace_ring;
struct proglog;
struct plugin_host;
struct dma_lines;
struct layer_origins;
struct loadable_plan;
struct compare;
struct cmd_displays;
struct cmd_lists;

struct dbg_options {
    struct session_opts session; /* configuration, --input, -o ... for files opened later */
    bool batch;                  /* messages name the script line; failures are fatal */
    size_t trace_ring_events;    /* capacity of the event ring; 0 = default */
    const char *plugin_path;     /* extra plugin folders (':' separated), NULL: none */
    bool no_builtin_plugins;     /* scan only plugin_path (tests) */
    /* Called every few thousand actions while a command runs the simulation;
     * returning true interrupts the run as Ctrl-C does (a TUI in raw mode reads
     * its keys here and can redraw a progress line).  NULL: never. */
    bool (*poll)(void *ctx);
    void *poll_ctx;
    /* Asks the person at the terminal a yes/no question ("Delete all
     * breakpoints? (y or n) ") before a command typed there does something
     * drastic; true goes ahead.  NULL (batch): nothing is asked. */
    bool (*confirm)(void *ctx, const char *question);
    void *confirm_ctx;
    /* Lends the terminal to another program ("shell"): away true before it
     * runs, false once it has exited (the TUI leaves curses mode and comes
     * back).  NULL (batch, the console): the program shares it as it is. */
    void (*hand_terminal)(void *ctx, bool away);
    void *hand_terminal_ctx;
    /* "compare" armed: a run that finishes says whether an output departed
     * (the TUI and the console at a terminal; batch prints the report). */
    bool compare_verdict_at_run_end;
};

/* Everything the debugger knows.  Frontends may read the members; they change
 * them only through dbg_* functions and commands. */
struct dbg {
    struct dbg_options opt;
    struct session *session; /* NULL until a file is open */
    struct breakpoints *bps;
    struct checkpoints *cps;
    struct trace_ring *ring;
    struct proglog *log;
    struct plugin_host *plugins;
    struct dma_lines *lines; /* DRAM lines the model's DMA read and wrote ("info dma lines") */
    struct report rep;       /* the open session's checks and messages */

    char last_cmd[512];         /* what an empty line repeats (steps only) */
    const struct dbg_sink *out; /* sink of the command being executed, else the default */
    char where[300];            /* "script.dladbg:3" while a script runs, "" interactively */
    unsigned source_depth;      /* scripts being sourced now, one inside another */
    unsigned failed_cmds;       /* commands that failed (batch exit status 2) */
    bool quit;                  /* "quit" was executed */
    bool confirm_off;           /* "set confirm off": nothing is asked at the terminal */
    int quit_status;            /* status "quit N" asked for, -1: the run's own */
    int internal_depth;         /* > 0 while replaying for "back": no stops, no output */
    bool hung;                  /* the last run stopped because nothing could progress */
    uint64_t poll_count;        /* actions executed, for opt.poll */
    unsigned opens;             /* dbg_open calls: each replaces the model and its listeners */

    struct layer_origins *origins; /* the loadable operation each hardware layer runs */
    struct loadable_plan *plan;    /* the open loadable's tasks and operations (dbg_plan) */
    bool plan_read;                /* dbg_plan tried already for this file */
    size_t layers_of_run;          /* layers a complete run of this file had, 0: none yet */
    struct compare *cmp;           /* "compare": results per layer (compare/compare.h), or NULL */
    struct cmd_displays *displays; /* "display" expressions (cmd_display.c), NULL: none yet */
    struct cmd_lists *lists;       /* breakpoints' command lists (cmd_commands.c), NULL: none */
    unsigned exec_depth;           /* dbg_exec and dbg_source calls under way, one in another */
    char *open_line;               /* what echo, printf, output wrote past the last newline */
    size_t open_len, open_cap;     /* its bytes, and the bytes allocated */
};

/* A context with no session; plugins are loaded from the built-in folders,
 * opt->plugin_path and $DLADBG_PLUGIN_PATH (refusals are reported to out).
 * out stays the default sink: it receives what happens outside dbg_exec()
 * (driver messages and diagnostics of a run driven through the session). */
struct dbg *dbg_create(const struct dbg_options *opt, const struct dbg_sink *out);
void dbg_destroy(struct dbg *d);

/* Open a file (trace folder, .txn, .cfg, loadable, "sample:NAME"), replacing
 * the current session; breakpoints are kept.  false with err on failure, the
 * current session left as it was. */
bool dbg_open(struct dbg *d, const char *path, char *err, size_t errlen);

/* What the open loadable will run (tasks, operations, tensor names), read
 * once per file; NULL for traces or a loadable that cannot be placed
 * (src/debug/dbg_plan.c, with the two below). */
const struct loadable_plan *dbg_plan(struct dbg *d);
/* The open loadable's tensors (loadable_tensors), from the session's parse
 * of it; false with err for traces. */
struct tensor_info;
bool dbg_tensors(struct dbg *d, struct tensor_info **t, size_t *n, char *err, size_t errlen);
/* The loadable operation hardware layer `layer` runs, as "task 1 op 3" with
 * the bound tensors it reads or writes ("task 1 op 0: data ->"; brief, for
 * narrow panes: "t1.op0 data ->"); "" when the layer runs none (traces,
 * pokes). */
void dbg_layer_op_text(struct dbg *d, size_t layer, bool brief, char *buf, size_t len);
/* The hardware layer that runs operation op of task `task`; false while it
 * is still to come. */
bool dbg_op_layer(struct dbg *d, uint32_t task, int16_t op, size_t *layer);

/* A run begun and not finished: quitting loses it, so gdb's habit is to ask
 * (quit, and the TUI's q and Ctrl-D); the question names how far it got. */
bool dbg_run_in_progress(struct dbg *d);
void dbg_quit_question(struct dbg *d, char *buf, size_t len);

/* Load one decoder plugin (--plugin FILE); false with err when refused. */
bool dbg_load_plugin(struct dbg *d, const char *path, char *err, size_t errlen);

/* ---------------------------------------------------------------- execution */

enum cmd_status {
    CMD_OK,    /* done (a stop at a breakpoint is not an error) */
    CMD_ERROR, /* unknown command, bad arguments or a failed action */
    CMD_QUIT,  /* quit was requested */
};

/* Execute one command line.  An empty line repeats the last step command;
 * '#' starts a comment.  Errors are reported to out as DBG_OUT_ERROR lines
 * that name the command (and the script line while a script runs). */
enum cmd_status dbg_exec(struct dbg *d, const char *line, const struct dbg_sink *out);

/* The prompt a frontend shows: "(dladbg) ", or ">" while the lines of
 * "commands N" are being typed (each goes to dbg_exec as any line). */
const char *dbg_prompt(const struct dbg *d);
/* The lines of "commands N" are being typed: every line dbg_exec gets goes
 * into the list (a frontend's keys that stand for commands must not). */
bool dbg_typing_commands(const struct dbg *d);
/* The lines of a script or of the -ex commands are over: a command list
 * still being typed there ends as "end" ends it, kept, as gdb's end of input
 * ends one; false when it cannot be kept (a line of it was refused), said as
 * "end" says it. */
bool dbg_input_ended(struct dbg *d);

/* Execute a script; stops at the first failing command in batch mode.
 * Returns the status of the last command executed. */
enum cmd_status dbg_source(struct dbg *d, const char *path, const struct dbg_sink *out);

/* The exit status of a batch run: 2 when a command failed or the input was
 * bad, else the run's (0 ok, 1 a check or golden mismatch, or a hang), or
 * what "quit N" asked for. */
int dbg_exit_status(const struct dbg *d);

/* ---------------------------------------------------------------- completion */

typedef void (*dbg_candidate_fn)(void *ctx, const char *candidate);

/* Complete the word that ends at line[cursor]: commands, subcommands and
 * keywords, unit, register and field names, breakpoint numbers, decoder names,
 * file and folder names (file, source, export, plugins load).
 * Calls fn once per candidate (the whole replacement word) and returns the
 * count; *word_start receives the offset where the word being completed begins. */
size_t dbg_complete(struct dbg *d, const char *line, size_t cursor, size_t *word_start,
                    dbg_candidate_fn fn, void *ctx);
/* A lone candidate the user goes on typing after, with no blank appended:
 * "CDMA." continues with a register, "share/" with a file in the folder,
 * "c=" with a value. */
bool dbg_completion_continues(const char *candidate);

/* ---------------------------------------------------------------- command table */

struct cmd_args;

struct cmd_entry {
    const char *name;  /* full name, lower case */
    const char *alias; /* extra accepted names, ' ' separated ("b br"), or NULL */
    /* Argument template read by completion and help: space-separated tokens,
     * optional ones in [], alternatives of keywords with '|', placeholders in
     * upper case: N VALUE ADDR EXPR REG UNIT PROC INTR BP FILE DIR DECODER CMD TEXT, TENSOR
     * and TOPT (the tensor command's tensor names and options). */
    const char *args;
    const char *usage; /* one line: "break layer N [if COND]" */
    const char *help;  /* a few lines of help text */
    /* Execute with the words after the command name; NULL when only subcommands do work. */
    enum cmd_status (*exec)(struct dbg *d, struct cmd_args *a);
    const struct cmd_entry *subs; /* subcommands ("info layers"), NULL-name terminated */
    bool repeat;                  /* an empty line after it repeats it (steps) */
};

/* The top-level commands: a NULL-terminated list of tables, one per group
 * (src/cmd/cmd_run.c, cmd_break.c, cmd_commands.c, cmd_display.c, cmd_info.c, cmd_data.c,
 * cmd_tensor.c, cmd_export.c, cmd_misc.c, cmd_shell.c), then the commands plugins add (cmd_plugin.c). */
extern const struct cmd_entry *const cmd_groups[];

/* Resolve a word: exact name, alias, then unique prefix.  NULL when nothing
 * or several match (*ambiguous set then).  table NULL: the top-level commands. */
const struct cmd_entry *cmd_lookup(const struct cmd_entry *table, const char *word,
                                   bool *ambiguous);

#endif
