/* A plugin's callbacks run guarded: a crash inside one (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL, SIGABRT) is reported on stderr naming the plugin, its
 * file and the callback, the temporaries of exports still open are
 * removed, and the process then ends as the signal would have (the
 * previous handler, a sanitizer's or the default, takes over).  In the
 * session's own process a crash can only be named; decoders therefore run
 * in a child (plugin_child.h), where the guard records the callback in a
 * page shared with the parent instead, which survives and reports. */
#ifndef DLADBG_PLUGIN_GUARD_H
#define DLADBG_PLUGIN_GUARD_H

/* plugin and callback must outlive the call ("layers", "event"). */
void plugin_guard_enter(const char *plugin, const char *path, const char *callback);
void plugin_guard_leave(void);

/* What a plugin child shares with its parent: the callback running now, and
 * the signal that ended it (0: none). */
struct plugin_guard_record {
    const char *volatile plugin, *volatile path, *volatile callback;
    volatile int sig;
};

/* In a plugin child: enter records the callback in *rec (pointers into
 * memory the parent has at the same addresses), and a crash records its
 * signal there and ends the child by it, with no message and nothing
 * removed: the parent reports and cleans up. */
void plugin_guard_in_child(struct plugin_guard_record *rec);

/* A crash signal in words ("SIGSEGV, an invalid memory access"), or NULL
 * for one without: static strings, safe in a signal handler. */
const char *plugin_signal_words(int sig);

#endif
