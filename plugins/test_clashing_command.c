/* Built only for tests: a usable decoder whose command takes the name of a
 * built-in command.  dladbg refuses the whole plugin with a message. */
#include "plugin_util.h"

static const char *const columns[] = {"x"};

static int exec_nothing(const struct dladbg_console *con, int argc, const char *const *argv)
{
    (void)argc;
    (void)argv;
    con->print(con, "the clashing command ran");
    return 0;
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "clashing",
    .n_columns = 1,
    .columns = columns,
    .open = plugin_stateless_open,
    .event = plugin_ignore_event,
    .close = plugin_stateless_close,
};

static const struct dladbg_command commands[] = {
    {"break", "break", "Takes the name of a built-in command.", exec_nothing, NULL},
};

const struct dladbg_command_set dladbg_commands = {
    .abi_version = DLADBG_COMMANDS_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_command_set),
    .command_size = sizeof(struct dladbg_command),
    .n_commands = 1,
    .commands = commands,
};
