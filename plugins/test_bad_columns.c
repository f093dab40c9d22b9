/* Built only for tests: the right ABI version but an unusable descriptor
 * (no columns); dladbg must refuse it with a message. */
#include "plugin_util.h"

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "badcolumns",
    .n_columns = 0,
    .columns = NULL,
    .open = plugin_stateless_open,
    .event = plugin_ignore_event,
    .close = plugin_stateless_close,
};
