/* Decoder "dma": one row per DMA transfer (client, memory, address, bytes, cycles). */
#include "plugin_util.h"

static const char *const columns[] = {"seq",     "layer", "client",      "memory",   "direction",
                                      "address", "bytes", "start_cycle", "end_cycle"};

static void dma_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    if (ev->kind != DLADBG_EV_DMA)
        return;
    const struct dladbg_dma_event *m = &ev->u.dma;
    char num[6][PLUGIN_CELL_LEN];
    const char *cells[] = {plugin_cell_u64(num[0], ev->seq),
                           plugin_cell_index_or_blank(num[1], ev->layer),
                           m->client,
                           m->space,
                           m->write ? "write" : "read",
                           plugin_cell_hex(num[2], m->addr, 1), /* "0x%llx" */
                           plugin_cell_u64(num[3], m->bytes),
                           plugin_cell_u64(num[4], m->start_cycle),
                           plugin_cell_u64(num[5], m->end_cycle)};
    host->row(host, cells);
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "dma",
    .description = "DMA transfers: client, memory, address, bytes, model-derived cycles",
    .n_columns = sizeof columns / sizeof columns[0],
    .columns = columns,
    .open = plugin_stateless_open,
    .event = dma_event,
    .close = plugin_stateless_close,
    .event_kinds = DLADBG_EV_BIT(DLADBG_EV_DMA),
};
