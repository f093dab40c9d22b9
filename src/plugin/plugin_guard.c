#include "plugin_guard.h"

#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "util/afile.h"

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define N_CRASH_SIGNALS (sizeof crash_signals / sizeof crash_signals[0])

static struct sigaction previous[N_CRASH_SIGNALS];
static bool installed;
/* the callback running now; read by the handler */
static const char *volatile guard_plugin, *volatile guard_path, *volatile guard_callback;
static struct plugin_guard_record *child_record; /* in a plugin child: the shared page */

static void say(const char *s)
{
    if (s)
        (void)!write(STDERR_FILENO, s, strlen(s));
}

const char *plugin_signal_words(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV, an invalid memory access";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE, an arithmetic error";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT, abort()";
    case SIGKILL: return "SIGKILL (killed, perhaps for memory)";
    }
    return NULL;
}

/* Async-signal-safe only: write, unlink, rmdir, sigaction, raise. */
static void on_crash(int sig)
{
    if (child_record) {
        child_record->sig = sig;
        signal(sig, SIG_DFL); /* no report of a sanitizer's: the parent reports */
        raise(sig);
        return;
    }
    const char *plugin = guard_plugin;
    if (plugin) {
        say("dladbg: plugin ");
        say(plugin);
        say(" (");
        say(guard_path);
        say(") crashed in its ");
        say(guard_callback);
        say("() callback: ");
        say(plugin_signal_words(sig) ? plugin_signal_words(sig) : "a fatal signal");
        say("\n");
        afile_remove_temporaries();
    }
    for (size_t i = 0; i < N_CRASH_SIGNALS; i++)
        if (crash_signals[i] == sig)
            sigaction(sig, &previous[i], NULL);
    /* a fault repeats when the instruction runs again, now with the old
     * handler; a raised signal (abort) is raised again */
    if (sig == SIGABRT)
        raise(sig);
}

static void install(void)
{
    struct sigaction sa = {.sa_handler = on_crash, .sa_flags = SA_NODEFER};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_CRASH_SIGNALS; i++)
        sigaction(crash_signals[i], &sa, &previous[i]);
    installed = true;
}

void plugin_guard_enter(const char *plugin, const char *path, const char *callback)
{
    guard_path = path;
    guard_callback = callback;
    guard_plugin = plugin;
    if (child_record) {
        child_record->path = path;
        child_record->callback = callback;
        child_record->plugin = plugin;
    }
    /* once, at the first callback: the handlers then in place (a
     * sanitizer's) are the ones a crash is handed over to */
    if (!installed)
        install();
}

void plugin_guard_leave(void)
{
    guard_plugin = NULL;
    if (child_record)
        child_record->plugin = NULL;
}

void plugin_guard_in_child(struct plugin_guard_record *rec)
{
    child_record = rec;
    install();
}
