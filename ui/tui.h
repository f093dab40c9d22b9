/* The ncurses frontend: the one entry point main() calls when stdout is a
 * terminal and --batch is absent.
 *
 * The TUI drives the debugger only through the command layer (cmd.h): every
 * key that acts on the run is turned into command text and executed with
 * dbg_exec(), exactly as if it had been typed in the console pane, so batch
 * scripts and the TUI can never disagree about what an action does. */
#ifndef DLADBG_TUI_H
#define DLADBG_TUI_H

#include <stdbool.h>

#include "cmd/cmd.h"

struct tui_options {
    /* --no-color.  NO_COLOR in the environment (any non-empty value) and a
     * terminal without colours have the same effect. */
    bool no_color;
    /* Command lines to execute in the console once the screen is up (the
     * -ex arguments, "source FILE" for -x), NULL-terminated; NULL: none.
     * Their output appears in the console pane. */
    const char *const *commands;
    /* The file is opened once the first frame is on the screen, so that a
     * large network shows the screen at once: open() opens it (and whatever
     * goes with it: --compare, ~/.dladbgrc, whose output goes to the console
     * pane); false with the reason in err, which tui_run prints to stderr
     * once the terminal is back, returning 2.  NULL: g is ready as it is. */
    bool (*open)(void *ctx, struct dbg *g, char *err, size_t errlen);
    void *open_ctx;
    const char *opening; /* the file being opened, for the first frame */
};

/* Run the TUI on g until the user quits.  g may have no session (the console
 * then offers "file FILE").  While it runs, the TUI uses g->opt.poll for
 * progress and sends output that comes outside commands (g->out) to its
 * console; both are restored on return.  The terminal is restored before returning,
 * also after SIGTERM/SIGHUP or a fatal error.  Returns the process exit
 * status: what "quit N" asked for; 128 + the signal after SIGTERM/SIGHUP;
 * else the run's (session_exit_status; 0 without a file; commands mistyped
 * interactively do not count, unlike dbg_exit_status in batch mode); 2 when
 * the terminal could not be set up (the reason is printed to stderr). */
int tui_run(struct dbg *g, const struct tui_options *o);

#endif
