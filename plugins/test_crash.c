/* Built only for tests: a decoder that crashes in its event() callback (a
 * write through NULL), or, with DLADBG_TEST_CRASH=open, calls abort() in
 * open().  dladbg must name the plugin and the callback and leave no
 * temporary behind.  With DLADBG_TEST_CRASH=error its event() fails the
 * export through host->error instead, without crashing.  Its command "crashnow" prints a line and then writes
 * through NULL; its completion does the same with DLADBG_TEST_CRASH=complete
 * (and offers "fine" otherwise). */
#include <stdlib.h>
#include <string.h>

#include "plugin_util.h"

static const char *const crash_columns[] = {"event"};

static void write_through_null(void);

static void *crash_open(const struct dladbg_host *host)
{
    const char *where = getenv("DLADBG_TEST_CRASH");
    if (where && strcmp(where, "open") == 0)
        abort();
    return plugin_stateless_open(host);
}

static void crash_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    (void)ev;
    const char *where = getenv("DLADBG_TEST_CRASH");
    if (where && strcmp(where, "error") == 0)
        host->error(host, "told to fail");
    else
        write_through_null();
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "crash",
    .n_columns = 1,
    .columns = crash_columns,
    .open = crash_open,
    .event = crash_event,
    .close = plugin_stateless_close,
};

static void write_through_null(void)
{
    volatile int *nowhere = NULL;
    *nowhere = 1;
}

static int crash_exec(const struct dladbg_console *con, int argc, const char *const *argv)
{
    (void)argc;
    (void)argv;
    con->print(con, "crashnow: about to crash");
    write_through_null();
    return 0;
}

static void crash_complete(const struct dladbg_console *con, int argc, const char *const *argv,
                           const char *prefix, dladbg_offer_fn offer, void *ctx)
{
    (void)con;
    (void)argc;
    (void)argv;
    (void)prefix;
    const char *where = getenv("DLADBG_TEST_CRASH");
    if (where && strcmp(where, "complete") == 0)
        write_through_null();
    offer(ctx, "fine");
}

static const struct dladbg_command crash_commands[] = {
    {"crashnow", "crashnow", "Prints a line, then crashes.", crash_exec, crash_complete},
};

const struct dladbg_command_set dladbg_commands = {
    .abi_version = DLADBG_COMMANDS_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_command_set),
    .command_size = sizeof(struct dladbg_command),
    .n_commands = 1,
    .commands = crash_commands,
};
