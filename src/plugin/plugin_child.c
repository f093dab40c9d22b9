/* Plugin code in a forked child (plugin_child.h). */
#define _GNU_SOURCE /* prctl's PR_SET_PDEATHSIG */
#include "plugin_child.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plugin_guard.h"
#include "util/fd_io.h"

static bool off_terminal;
static int say_fd = -1; /* in a talking child: the pipe to the parent */

void plugin_child_keep_off_terminal(bool on)
{
    off_terminal = on;
}

/* The page the child and its parent share: the guard's record, whether
 * the work returned, then the work's output. */
struct shared {
    struct plugin_guard_record rec;
    volatile int done;
    _Alignas(16) unsigned char out[];
};

static const char *signal_text(int sig)
{
    const char *words = plugin_signal_words(sig);
    return words ? words : strsignal(sig);
}

/* How the child ended, in words: "SIGSEGV, ..." or "exit status 42". */
static void ending_text(int status, int recorded_sig, char *buf, size_t len)
{
    if (recorded_sig)
        snprintf(buf, len, "%s", signal_text(recorded_sig));
    else if (WIFSIGNALED(status))
        snprintf(buf, len, "%s", signal_text(WTERMSIG(status)));
    else
        snprintf(buf, len, "the process exited with status %d", WEXITSTATUS(status));
}

/* The child's first steps: die with the parent, leave the parent's
 * terminal and its signal handlers (the TUI's restore the terminal, the
 * batch ones remove the parent's temporaries) alone. */
static void become_child(pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    static const int reset[] = {SIGTERM, SIGHUP, SIGPIPE, SIGQUIT};
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
        signal(reset[i], SIG_DFL);
    /* Ctrl-C is the parent's to act on (the TUI's cbreak mode sends it to
     * the whole group); were the parent to die, PR_SET_PDEATHSIG ends us */
    signal(SIGINT, SIG_IGN);
    if (off_terminal) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
            if (null > STDERR_FILENO)
                close(null);
        }
    }
}

/* Wait for pid whatever signals the parent gets meanwhile (the TUI's
 * SIGWINCH); its wait status, or -1. */
static int wait_for(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

static pid_t fork_child(char *err, size_t errlen)
{
    /* the child must not write out what the parent's stdio still buffers */
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        snprintf(err, errlen, "cannot start a process for the plugin: %s", strerror(errno));
    return pid;
}

/* A message on the pipe: its kind and length, then the text (no NUL). */
struct said {
    int32_t kind;
    uint32_t len;
};

/* The kind of the message that says the work returned (an overlapped
 * child's last): no caller's kind. */
#define SAID_DONE INT32_MIN

static void say(int kind, const char *text, size_t len)
{
    struct said h = {kind, (uint32_t)(len > UINT32_MAX ? UINT32_MAX : len)};
    char one[256]; /* a short message in one write */
    bool joined = sizeof h + h.len <= sizeof one;
    if (joined) {
        memcpy(one, &h, sizeof h);
        memcpy(one + sizeof h, text, h.len);
    }
    if (joined ? !fd_write_all(say_fd, one, sizeof h + h.len)
               : !fd_write_all(say_fd, &h, sizeof h) || !fd_write_all(say_fd, text, h.len))
        _exit(127); /* the parent is gone */
}

void plugin_child_say(int kind, const char *text)
{
    if (say_fd >= 0 && text && kind != SAID_DONE)
        say(kind, text, strlen(text));
}

/* The parent: what the child says (to heard, when there is one), until it
 * says its work returned (true) or closes the pipe (it ended). */
static bool listen_to(int fd, plugin_child_heard_fn heard, void *hctx)
{
    struct said h;
    while (fd_read_all(fd, &h, sizeof h)) {
        if (h.kind == SAID_DONE)
            return true;
        char *text = malloc((size_t)h.len + 1);
        if (!text || !fd_read_all(fd, text, h.len)) {
            free(text);
            break;
        }
        text[h.len] = 0;
        if (heard)
            heard(hctx, h.kind, text);
        free(text);
    }
    return false;
}

/* How a child that did not finish its work ended, in err. */
static void child_failure(int status, const struct shared *sh, char *err, size_t errlen)
{
    if (status < 0) {
        snprintf(err, errlen, "lost the plugin's process: %s", strerror(errno));
        return;
    }
    char how[96];
    ending_text(status, sh->rec.sig, how, sizeof how);
    /* the strings are the parent's too: the child is a copy */
    if (sh->rec.plugin)
        snprintf(err, errlen, "plugin %s (%s) crashed in its %s() callback: %s", sh->rec.plugin,
                 sh->rec.path, sh->rec.callback, how);
    else
        snprintf(err, errlen, "the plugin's process ended outside any plugin callback: %s", how);
}

/* The child's side: work, then say it is done (through the page; and
 * through the pipe when the parent waits for that rather than the exit). */
static _Noreturn void child_work(struct shared *sh, void (*work)(void *ctx, void *out), void *ctx,
                                 int fd_write, bool early)
{
    say_fd = fd_write;
    plugin_guard_in_child(&sh->rec);
    work(ctx, sh->out);
    sh->done = 1;
    if (early)
        say(SAID_DONE, "", 0);
    _exit(0);
}

/* plugin_child_run, _talking (heard) or _overlapped (exiting: the parent
 * goes on once the child says it is done, before its exit). */
static bool run_child(void (*work)(void *ctx, void *out), void *ctx, void *out, size_t outlen,
                      plugin_child_heard_fn heard, void *hctx, pid_t *exiting, char *err,
                      size_t errlen)
{
    int fds[2] = {-1, -1};
    bool piped = heard || exiting;
    if (piped && pipe(fds) != 0) {
        snprintf(err, errlen, "cannot talk to the plugin's process: %s", strerror(errno));
        return false;
    }
    size_t size = sizeof(struct shared) + outlen;
    struct shared *sh = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        snprintf(err, errlen, "cannot share memory with the plugin's process: %s", strerror(errno));
        if (piped) {
            close(fds[0]);
            close(fds[1]);
        }
        return false;
    }
    memcpy(sh->out, out, outlen);
    pid_t parent = getpid();
    pid_t pid = fork_child(err, errlen);
    if (pid == 0) {
        become_child(parent);
        if (piped)
            close(fds[0]);
        child_work(sh, work, ctx, fds[1], exiting != NULL);
    }
    bool said_done = false;
    if (piped) {
        close(fds[1]);
        if (pid > 0)
            said_done = listen_to(fds[0], heard, hctx) && exiting && sh->done;
        close(fds[0]);
    }
    bool ok = false;
    if (said_done) {
        ok = true;
        *exiting = pid; /* reaped by plugin_child_reap */
    } else if (pid > 0) {
        int status = wait_for(pid);
        ok = status >= 0 && sh->done && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (!ok)
            child_failure(status, sh, err, errlen);
    }
    if (ok)
        memcpy(out, sh->out, outlen);
    munmap(sh, size);
    return ok;
}

bool plugin_child_run(void (*work)(void *ctx, void *out), void *ctx, void *out, size_t outlen,
                      char *err, size_t errlen)
{
    return run_child(work, ctx, out, outlen, NULL, NULL, NULL, err, errlen);
}

bool plugin_child_run_talking(void (*work)(void *ctx, void *out), void *ctx, void *out,
                              size_t outlen, plugin_child_heard_fn heard, void *hctx, char *err,
                              size_t errlen)
{
    return run_child(work, ctx, out, outlen, heard, hctx, NULL, err, errlen);
}

bool plugin_child_run_overlapped(void (*work)(void *ctx, void *out), void *ctx, void *out,
                                 size_t outlen, plugin_child_heard_fn heard, void *hctx,
                                 pid_t *exiting, char *err, size_t errlen)
{
    *exiting = 0;
    return run_child(work, ctx, out, outlen, heard, hctx, exiting, err, errlen);
}

void plugin_child_reap(pid_t pid)
{
    if (pid > 0)
        wait_for(pid);
}

/* Why a probe's child ended early: before the loaded byte, the
 * constructors; after it, the inspection. */
static void probe_ending(int status, bool loaded, char *err, size_t errlen)
{
    char how[96];
    ending_text(status < 0 ? 0 : status, 0, how, sizeof how);
    if (loaded)
        snprintf(err, errlen, "refused: reading its descriptor ends the process: %s", how);
    else if (status >= 0 && WIFEXITED(status))
        snprintf(err, errlen,
                 "refused: loading it ends the process (a constructor exited with "
                 "status %d)",
                 WEXITSTATUS(status));
    else
        snprintf(err, errlen, "refused: loading it crashes (a constructor): %s", how);
}

bool plugin_child_probe_load(const char *path, void (*inspect)(void *ctx, void *handle), void *ctx,
                             plugin_child_heard_fn heard, void *hctx, char *err, size_t errlen)
{
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(err, errlen, "refused: cannot try loading it apart: %s", strerror(errno));
        return false;
    }
    pid_t parent = getpid();
    pid_t pid = fork_child(err, errlen);
    if (pid == 0) {
        close(fds[0]);
        become_child(parent);
        /* the constructors run here, where an exit or a crash is ours to see */
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!fd_write_all(fds[1], "y", 1))
            _exit(127);
        say_fd = fds[1];
        inspect(ctx, h);
        _exit(0);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return false;
    }
    char byte = 0;
    bool loaded = fd_read_all(fds[0], &byte, 1) && byte == 'y';
    if (loaded)
        listen_to(fds[0], heard, hctx);
    close(fds[0]);
    int status = wait_for(pid);
    if (loaded && status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return true;
    probe_ending(status, loaded, err, errlen);
    return false;
}
