/* Decoder "cbuf": convolution buffer allocations (banks written for a layer). */
#include <stdio.h>

#include "dladbg/decoder.h"

static const char *const columns[] = {"seq",   "cycle", "layer", "first_bank",
                                      "banks", "kind",  "bytes"};

static void *cbuf_open(const struct dladbg_host *host)
{
    (void)host;
    return NULL;
}

static void cbuf_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    if (ev->kind != DLADBG_EV_CBUF)
        return;
    const struct dladbg_cbuf_event *c = &ev->u.cbuf;
    char num[6][24];
    snprintf(num[0], sizeof num[0], "%llu", (unsigned long long)ev->seq);
    snprintf(num[1], sizeof num[1], "%llu", (unsigned long long)ev->cycle);
    snprintf(num[2], sizeof num[2], "%d", ev->layer);
    snprintf(num[3], sizeof num[3], "%u", c->first_bank);
    snprintf(num[4], sizeof num[4], "%u", c->n_banks);
    snprintf(num[5], sizeof num[5], "%llu", (unsigned long long)c->bytes);
    const char *cells[] = {num[0], num[1], num[2], num[3], num[4], c->kind, num[5]};
    host->row(host, cells);
}

static void cbuf_close(void *state, const struct dladbg_host *host)
{
    (void)state;
    (void)host;
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "cbuf",
    .description = "CBUF bank allocations per layer",
    .n_columns = sizeof columns / sizeof columns[0],
    .columns = columns,
    .open = cbuf_open,
    .event = cbuf_event,
    .close = cbuf_close,
};
