/* Decoder "cbuf": convolution buffer allocations (banks written for a layer). */
#include "plugin_util.h"

static const char *const columns[] = {"seq",   "cycle", "layer", "first_bank",
                                      "banks", "kind",  "bytes"};

static void cbuf_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    if (ev->kind != DLADBG_EV_CBUF)
        return;
    const struct dladbg_cbuf_event *c = &ev->u.cbuf;
    char num[6][PLUGIN_CELL_LEN];
    const char *cells[] = {
        plugin_cell_u64(num[0], ev->seq),    plugin_cell_u64(num[1], ev->cycle),
        plugin_cell_int(num[2], ev->layer),  plugin_cell_u64(num[3], c->first_bank),
        plugin_cell_u64(num[4], c->n_banks), c->kind,
        plugin_cell_u64(num[5], c->bytes)};
    host->row(host, cells);
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "cbuf",
    .description = "CBUF bank allocations per layer",
    .n_columns = sizeof columns / sizeof columns[0],
    .columns = columns,
    .open = plugin_stateless_open,
    .event = cbuf_event,
    .close = plugin_stateless_close,
};
