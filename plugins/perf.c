/* Decoder "perf": per layer, its model-derived figures and performance
 * counters, one row per (layer, counter). */
#include <stdio.h>

#include "dladbg/decoder.h"

static const char *const columns[] = {"layer", "unit", "counter", "value"};

static void *perf_open(const struct dladbg_host *host)
{
    (void)host;
    return NULL;
}

static void row(const struct dladbg_host *host, const struct dladbg_layer *l, const char *name,
                uint64_t value)
{
    char idx[16], val[24];
    snprintf(idx, sizeof idx, "%u", l->index);
    snprintf(val, sizeof val, "%llu", (unsigned long long)value);
    const char *cells[] = {idx, l->unit, name, val};
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
    row(host, l, "macs", l->macs);
    row(host, l, "bytes_read", l->bytes_read);
    row(host, l, "bytes_written", l->bytes_written);
    for (uint32_t i = 0; i < l->n_counters; i++)
        row(host, l, l->counters[i].name ? l->counters[i].name : "?", l->counters[i].value);
}

static void perf_close(void *state, const struct dladbg_host *host)
{
    (void)state;
    (void)host;
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "perf",
    .description = "per-layer performance figures and counters (model-derived), long format",
    .n_columns = sizeof columns / sizeof columns[0],
    .columns = columns,
    .open = perf_open,
    .event = perf_event,
    .close = perf_close,
};
