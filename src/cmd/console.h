/* The readline console: line editing, a history file in the XDG state
 * directory ($XDG_STATE_HOME/dladbg/history, default ~/.local/state/...),
 * and tab completion of commands, units, registers, fields, breakpoint
 * numbers and decoders through dbg_complete().  It uses readline's callback
 * interface, so another frontend (the TUI) can feed it characters from its
 * own input loop with console_feed(). */
#ifndef DLADBG_CONSOLE_H
#define DLADBG_CONSOLE_H

#include <stdbool.h>

#include "cmd.h"

struct console;

/* Set up readline for d (completion, history); output of commands goes to out. */
struct console *console_create(struct dbg *d, const struct dbg_sink *out);
/* Save the history and restore the terminal. */
void console_destroy(struct console *c);

/* Install the prompt and start accepting a line (callback interface). */
void console_prompt(struct console *c, const char *prompt);
/* Read one character from stdin into the line editor; executes the line when
 * it is complete.  Returns false when the user asked to leave (quit, EOF). */
bool console_feed(struct console *c);

/* Interactive loop on the terminal until quit or end of input; returns the
 * exit status. */
int console_run(struct console *c);

/* Where the history is kept ("" when no directory could be found). */
const char *console_history_path(const struct console *c);

#endif
