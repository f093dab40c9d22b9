/* Decoder "dma": one row per DMA transfer (client, memory, address, bytes, cycles). */
#include <stdio.h>

#include "dladbg/decoder.h"

static const char *const columns[] = {"seq",     "layer", "client",      "memory",   "direction",
                                      "address", "bytes", "start_cycle", "end_cycle"};

static void *dma_open(const struct dladbg_host *host)
{
    (void)host;
    return NULL;
}

static void dma_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    if (ev->kind != DLADBG_EV_DMA)
        return;
    const struct dladbg_dma_event *m = &ev->u.dma;
    char num[6][24];
    snprintf(num[0], sizeof num[0], "%llu", (unsigned long long)ev->seq);
    if (ev->layer >= 0)
        snprintf(num[1], sizeof num[1], "%d", ev->layer);
    else
        num[1][0] = 0;
    snprintf(num[2], sizeof num[2], "0x%llx", (unsigned long long)m->addr);
    snprintf(num[3], sizeof num[3], "%llu", (unsigned long long)m->bytes);
    snprintf(num[4], sizeof num[4], "%llu", (unsigned long long)m->start_cycle);
    snprintf(num[5], sizeof num[5], "%llu", (unsigned long long)m->end_cycle);
    const char *cells[] = {num[0], num[1], m->client, m->space, m->write ? "write" : "read",
                           num[2], num[3], num[4],    num[5]};
    host->row(host, cells);
}

static void dma_close(void *state, const struct dladbg_host *host)
{
    (void)state;
    (void)host;
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "dma",
    .description = "DMA transfers: client, memory, address, bytes, model-derived cycles",
    .n_columns = sizeof columns / sizeof columns[0],
    .columns = columns,
    .open = dma_open,
    .event = dma_event,
    .close = dma_close,
};
