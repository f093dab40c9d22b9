/* Decoder "perf": per layer, its model-derived figures and performance
 * counters, one row per (layer, counter). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "plugin_util.h"

static const char *const columns[] = {"layer", "unit", "counter", "value"};

static void row(const struct dladbg_host *host, const struct dladbg_layer *l, const char *name,
                uint64_t value)
{
    char idx[PLUGIN_CELL_LEN], val[PLUGIN_CELL_LEN];
    const char *cells[] = {plugin_cell_u64(idx, l->index), l->unit, name,
                           plugin_cell_u64(val, value)};
    host->row(host, cells);
}

static void perf_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    if (ev->kind != DLADBG_EV_LAYER_RECORD)
        return;
    const struct dladbg_layer *l = &ev->u.layer;
    row(host, l, "cycles", l->cycles);
    row(host, l, "compute_cycles", l->compute_cycles);
    row(host, l, "stall_cycles", l->stall_cycles);
    /* "macs" only where they are MACs; other units' work by what it counts */
    char work[48] = "macs";
    if (strcmp(l->unit, "CONV") && l->work_unit) {
        snprintf(work, sizeof work, "work_%s", l->work_unit); /* "work_pool reads" */
        for (char *c = work; *c; c++)
            *c = *c == ' ' ? '_' : (char)tolower((unsigned char)*c);
    }
    row(host, l, work, l->macs);
    row(host, l, "bytes_read", l->bytes_read);
    row(host, l, "bytes_written", l->bytes_written);
    uint64_t dram, cvsram; /* of those, DRAM's (bandwidth) and on-chip CV-SRAM's */
    if (plugin_layer_bytes_by_memory(ev, &dram, &cvsram)) {
        row(host, l, "bytes_dram", dram);
        row(host, l, "bytes_cvsram", cvsram);
    }
    for (uint32_t i = 0; i < l->n_counters; i++)
        row(host, l, l->counters[i].name ? l->counters[i].name : "?", l->counters[i].value);
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "perf",
    .description = "per-layer performance figures and counters (model-derived), long format",
    .n_columns = sizeof columns / sizeof columns[0],
    .columns = columns,
    .open = plugin_stateless_open,
    .event = perf_event,
    .close = plugin_stateless_close,
};
