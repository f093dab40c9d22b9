/* Built only for tests: a plugin whose constructor calls _exit(42), at
 * dlopen, before dladbg has looked at anything in it.  dladbg tries loading
 * a plugin in a child process first, so this one is refused, named, and the
 * session goes on. */
#include <unistd.h>

#include "plugin_util.h"

__attribute__((constructor)) static void end_everything(void)
{
    _exit(42);
}

static const char *const exit_columns[] = {"never"};

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "exit_at_load",
    .n_columns = 1,
    .columns = exit_columns,
    .open = plugin_stateless_open,
    .event = plugin_ignore_event,
    .close = plugin_stateless_close,
};
