/* Plugin code run in a forked child, so that its crash cannot take the
 * session with it.  The child has a copy of all the session's state; what it
 * computes comes back through a shared page, and so does which plugin and
 * callback were running (plugin_guard records them there), so that the
 * parent can name them when the child dies.  The child never touches the
 * terminal the TUI owns, and ends with _exit: no atexit handler, no stdio
 * buffer of the parent's is run or flushed twice. */
#ifndef DLADBG_PLUGIN_CHILD_H
#define DLADBG_PLUGIN_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The TUI owns the terminal: children get /dev/null as stdin, stdout and
 * stderr.  Batch mode keeps them (a plugin's own messages reach stderr). */
void plugin_child_keep_off_terminal(bool on);

/* Run work(ctx, out) in a child; out (outlen bytes, at most a page or so)
 * is shared with it and holds what work left when it returned.  true when
 * work returned; false with err when the child could not start or died
 * ("plugin NAME (FILE) crashed in its event() callback: SIGSEGV, ...").
 * Nothing work does to memory other than out reaches the parent. */
bool plugin_child_run(void (*work)(void *ctx, void *out), void *ctx, void *out, size_t outlen,
                      char *err, size_t errlen);

/* What a child says while it works (a command's output, completion
 * candidates): kind is the caller's, text a string. */
typedef void (*plugin_child_heard_fn)(void *ctx, int kind, const char *text);

/* plugin_child_run, and what the child sends with plugin_child_say is
 * handed to heard(hctx, ...) in the parent, in order, as it comes. */
bool plugin_child_run_talking(void (*work)(void *ctx, void *out), void *ctx, void *out,
                              size_t outlen, plugin_child_heard_fn heard, void *hctx, char *err,
                              size_t errlen);
/* In the work of plugin_child_run_talking or _overlapped: send text to the
 * parent (kind INT32_MIN is reserved). */
void plugin_child_say(int kind, const char *text);

/* plugin_child_run, but it returns as soon as work has returned (the child
 * says so through a pipe), while the child still exits: giving back its
 * copy of the session's memory takes a tenth of a millisecond or more,
 * which the caller's next steps (export csv's fsyncs) overlap.  What the
 * child sends with plugin_child_say meanwhile is handed to heard(hctx, ...)
 * (heard may be NULL), so the parent can work beside it.  On true,
 * plugin_child_reap(*exiting) must follow the caller's next steps; on false
 * the child is gone already and *exiting is 0. */
bool plugin_child_run_overlapped(void (*work)(void *ctx, void *out), void *ctx, void *out,
                                 size_t outlen, plugin_child_heard_fn heard, void *hctx,
                                 pid_t *exiting, char *err, size_t errlen);
/* Wait for the child plugin_child_run_overlapped left exiting. */
void plugin_child_reap(pid_t pid);

/* The plugin at path loaded in a child only: dlopen there, where a
 * constructor that calls exit or crashes ends the child, not the session;
 * then inspect(ctx, handle) runs there (handle NULL when dlopen failed:
 * dlerror() says why) and what it sends with plugin_child_say is handed to
 * heard(hctx, ...) in the parent, in order, so the parent learns what it
 * needs of the plugin without mapping it.  false with err ("refused:
 * loading it ends the process (a constructor exited with status 42)") when
 * loading or inspecting it ends the child. */
bool plugin_child_probe_load(const char *path, void (*inspect)(void *ctx, void *handle), void *ctx,
                             plugin_child_heard_fn heard, void *hctx, char *err, size_t errlen);

#endif
