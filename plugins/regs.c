/* Decoder "regs": every register write, with its fields decoded. */
#include <stdio.h>

#include "dladbg/decoder.h"

static const char *const columns[] = {"seq",   "cycle",   "layer", "unit", "register",
                                      "group", "address", "value", "old",  "fields"};

static void *regs_open(const struct dladbg_host *host)
{
    (void)host;
    return NULL;
}

static void regs_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    if (ev->kind != DLADBG_EV_REG_WRITE)
        return;
    const struct dladbg_reg_event *r = &ev->u.reg;
    char num[7][24];
    snprintf(num[0], sizeof num[0], "%llu", (unsigned long long)ev->seq);
    snprintf(num[1], sizeof num[1], "%llu", (unsigned long long)ev->cycle);
    if (ev->layer >= 0)
        snprintf(num[2], sizeof num[2], "%d", ev->layer);
    else
        num[2][0] = 0;
    if (r->group >= 0)
        snprintf(num[3], sizeof num[3], "%d", r->group);
    else
        num[3][0] = 0;
    snprintf(num[4], sizeof num[4], "0x%05x", r->addr);
    snprintf(num[5], sizeof num[5], "0x%08x", r->value);
    snprintf(num[6], sizeof num[6], "0x%08x", r->old);
    const char *cells[] = {num[0], num[1], num[2], r->unit, r->name,
                           num[3], num[4], num[5], num[6],  r->fields};
    host->row(host, cells);
}

static void regs_close(void *state, const struct dladbg_host *host)
{
    (void)state;
    (void)host;
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "regs",
    .description = "register writes with decoded fields",
    .n_columns = sizeof columns / sizeof columns[0],
    .columns = columns,
    .open = regs_open,
    .event = regs_event,
    .close = regs_close,
};
