/* Built only for tests: a usable decoder whose command set claims a version
 * dladbg does not speak.  dladbg must refuse the whole plugin with a
 * message, never run its command. */
#include <stdlib.h>

#include "dladbg/decoder.h"

static const char *const columns[] = {"x"};

static void *never_open(const struct dladbg_host *host)
{
    (void)host;
    abort(); /* reaching this means the host accepted a plugin it must refuse */
}

static void never_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    (void)host;
    (void)ev;
    abort();
}

static void never_close(void *state, const struct dladbg_host *host)
{
    (void)state;
    (void)host;
    abort();
}

static int never_exec(const struct dladbg_console *con, int argc, const char *const *argv)
{
    (void)con;
    (void)argc;
    (void)argv;
    abort();
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "bad_commands",
    .description = "a command set of another version (tests)",
    .n_columns = 1,
    .columns = columns,
    .open = never_open,
    .event = never_event,
    .close = never_close,
};

static const struct dladbg_command commands[] = {
    {"newer", "newer", "A command of a future ABI.", never_exec, NULL},
};

const struct dladbg_command_set dladbg_commands = {
    .abi_version = DLADBG_COMMANDS_ABI_VERSION + 41,
    .struct_size = sizeof(struct dladbg_command_set),
    .command_size = sizeof(struct dladbg_command),
    .n_commands = 1,
    .commands = commands,
};
