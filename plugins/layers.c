/* Decoder "layers": one row per hardware layer, from the model's layer records. */
#include <stdbool.h>
#include <string.h>

#include "plugin_util.h"

static const char *const columns[] = {
    "index",  "unit",      "op",         "group",         "start_cycle",  "end_cycle",
    "cycles", "macs",      "bytes_read", "bytes_written", "stall_cycles", "state",
    "work",   "work_unit", "bytes_dram", "bytes_cvsram"};

static void layers_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    if (ev->kind != DLADBG_EV_LAYER_RECORD)
        return;
    const struct dladbg_layer *l = &ev->u.layer;
    char num[12][PLUGIN_CELL_LEN];
    /* BDMA layers get their group at launch: none (above 1) before */
    long long group = l->group > 1 ? -1 : (long long)l->group;
    /* a layer not yet launched has no start, one not done no end or cycles:
     * blank cells, not zeros a spreadsheet would sum or plot */
    bool started = !strcmp(l->state, "running") || !strcmp(l->state, "done");
    bool done = !strcmp(l->state, "done");
    /* DRAM's bytes, what bandwidth is tuned for, and on-chip CV-SRAM's;
     * blank from a dladbg that does not count them apart */
    uint64_t dram, cvsram;
    bool by_memory = plugin_layer_bytes_by_memory(ev, &dram, &cvsram);
    const char *cells[] = {
        plugin_cell_u64(num[0], l->index), l->unit, l->op,
        plugin_cell_index_or_blank(num[1], group),
        started ? plugin_cell_u64(num[2], l->start_cycle) : "",
        done ? plugin_cell_u64(num[3], l->end_cycle) : "",
        done ? plugin_cell_u64(num[4], l->cycles) : "",
        /* MACs only where they are MACs; "work" says what others count */
        strcmp(l->unit, "CONV") ? "" : plugin_cell_u64(num[5], l->macs),
        plugin_cell_u64(num[6], l->bytes_read), plugin_cell_u64(num[7], l->bytes_written),
        plugin_cell_u64(num[8], l->stall_cycles), l->state, plugin_cell_u64(num[9], l->macs),
        l->work_unit ? l->work_unit : "", by_memory ? plugin_cell_u64(num[10], dram) : "",
        by_memory ? plugin_cell_u64(num[11], cvsram) : ""};
    host->row(host, cells);
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "layers",
    .description =
        "one row per hardware layer: unit, op, group, cycles (model-derived), MACs (CONV), "
        "bytes, work (what each unit counts: MACs, bytes, elements, pool reads, LRN terms), "
        "DRAM and CV-SRAM bytes",
    .n_columns = sizeof columns / sizeof columns[0],
    .columns = columns,
    .open = plugin_stateless_open,
    .event = layers_event,
    .close = plugin_stateless_close,
};
