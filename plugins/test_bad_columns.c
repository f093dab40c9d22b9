/* Built only for tests: the right ABI version but an unusable descriptor
 * (no columns); dladbg must refuse it with a message. */
#include "plugin_util.h"

static void bad_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    (void)host;
    (void)ev;
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "badcolumns",
    .n_columns = 0,
    .columns = NULL,
    .open = plugin_stateless_open,
    .event = bad_event,
    .close = plugin_stateless_close,
};
