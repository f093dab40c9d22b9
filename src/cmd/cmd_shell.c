/* shell CMD and !CMD, as gdb has them: CMD runs in /bin/sh -c with
 * dladbg's terminal (the TUI leaves curses mode meanwhile, through
 * dbg_options.hand_terminal).  Its exit status is told when it is not 0,
 * and is never dladbg's: the command itself succeeds once the shell ran.
 * "shell" alone starts an interactive $SHELL (else /bin/sh), as gdb's does;
 * not in batch mode, where standard input is the script or a pipe and
 * nobody is there to type into it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd_priv.h"

/* The shell "shell" alone starts: $SHELL, else /bin/sh. */
static const char *user_shell(void)
{
    const char *sh = getenv("SHELL");
    return sh && sh[0] ? sh : "/bin/sh";
}

/* Runs text in /bin/sh -c (NULL: the user's shell, interactive); the wait
 * status, or -1 with errno. */
static int run_sh(const char *text)
{
    const char *sh = user_shell(), *base = strrchr(sh, '/'); /* argv[0]: its name */
    fflush(stdout); /* what dladbg printed comes before what the shell prints */
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        signal(SIGINT, SIG_DFL); /* Ctrl-C is the shell command's to take */
        if (text)
            execl("/bin/sh", "sh", "-c", text, (char *)NULL);
        else
            execl(sh, base ? base + 1 : sh, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

static enum cmd_status do_shell(struct dbg *d, struct cmd_args *a)
{
    const char *text = cmd_rest(a, 0);
    if (!text[0] && d->opt.batch)
        return cmd_fail(d, a,
                        "an interactive shell needs a terminal, and in --batch standard input is "
                        "the script or a pipe: give a command (\"shell ls\", \"!ls\")");
    if (d->opt.hand_terminal)
        d->opt.hand_terminal(d->opt.hand_terminal_ctx, true);
    int status = run_sh(text[0] ? text : NULL);
    int err = errno;
    if (d->opt.hand_terminal)
        d->opt.hand_terminal(d->opt.hand_terminal_ctx, false);
    session_interrupt = 0; /* a Ctrl-C while it ran was the shell command's */
    if (status < 0)
        return cmd_fail(d, a, "cannot run %s: %s", text[0] ? "/bin/sh" : user_shell(),
                        strerror(err));
    if (WIFSIGNALED(status))
        cmd_print(d, "shell: killed by signal %d (%s)", WTERMSIG(status),
                  strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status) && WEXITSTATUS(status))
        cmd_print(d, "shell: exit status %d", WEXITSTATUS(status));
    return CMD_OK;
}

const struct cmd_entry cmd_shell_entries[] = {
    {"shell", NULL, "[TEXT]", "shell [CMD], !CMD",
     "Run CMD with /bin/sh -c on dladbg's terminal (the TUI gives the screen back until\n"
     "Enter).  A status other than 0 is told (\"shell: exit status 3\"); it is not dladbg's:\n"
     "a batch run goes on.  Without CMD, an interactive $SHELL (else /bin/sh) until it\n"
     "exits, as gdb's; not in --batch, whose standard input is the script or a pipe.",
     do_shell, NULL, false},
    END_OF_TABLE,
};
