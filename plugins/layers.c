/* Decoder "layers": one row per hardware layer, from the model's layer records. */
#include <stdio.h>

#include "dladbg/decoder.h"

static const char *const columns[] = {"index",       "unit",          "op",           "group",
                                      "start_cycle", "end_cycle",     "cycles",       "macs",
                                      "bytes_read",  "bytes_written", "stall_cycles", "state"};

static void *layers_open(const struct dladbg_host *host)
{
    (void)host;
    return NULL;
}

static void layers_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    if (ev->kind != DLADBG_EV_LAYER_RECORD)
        return;
    const struct dladbg_layer *l = &ev->u.layer;
    char num[9][24];
    snprintf(num[0], sizeof num[0], "%u", l->index);
    if (l->group > 1)
        num[1][0] = 0; /* BDMA layers get their group at launch */
    else
        snprintf(num[1], sizeof num[1], "%u", l->group);
    snprintf(num[2], sizeof num[2], "%llu", (unsigned long long)l->start_cycle);
    snprintf(num[3], sizeof num[3], "%llu", (unsigned long long)l->end_cycle);
    snprintf(num[4], sizeof num[4], "%llu", (unsigned long long)l->cycles);
    snprintf(num[5], sizeof num[5], "%llu", (unsigned long long)l->macs);
    snprintf(num[6], sizeof num[6], "%llu", (unsigned long long)l->bytes_read);
    snprintf(num[7], sizeof num[7], "%llu", (unsigned long long)l->bytes_written);
    snprintf(num[8], sizeof num[8], "%llu", (unsigned long long)l->stall_cycles);
    const char *cells[] = {num[0], l->unit, l->op,  num[1], num[2], num[3],
                           num[4], num[5],  num[6], num[7], num[8], l->state};
    host->row(host, cells);
}

static void layers_close(void *state, const struct dladbg_host *host)
{
    (void)state;
    (void)host;
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "layers",
    .description =
        "one row per hardware layer: unit, op, group, cycles (model-derived), MACs, bytes",
    .n_columns = sizeof columns / sizeof columns[0],
    .columns = columns,
    .open = layers_open,
    .event = layers_event,
    .close = layers_close,
};
