/* A plugin's callbacks run guarded: a crash inside one (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL, SIGABRT) is reported on stderr naming the plugin, its
 * file and the callback, the temporaries of exports still open are
 * removed, and the process then ends as the signal would have (the
 * previous handler, a sanitizer's or the default, takes over).  A plugin
 * shares the process: its crash cannot be survived, only named. */
#ifndef DLADBG_PLUGIN_GUARD_H
#define DLADBG_PLUGIN_GUARD_H

/* plugin and callback must outlive the call ("layers", "event"). */
void plugin_guard_enter(const char *plugin, const char *path, const char *callback);
void plugin_guard_leave(void);

#endif
