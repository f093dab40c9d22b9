/* Decoder "regs": every register write, with its fields decoded. */
#include <stdio.h>

#include "plugin_util.h"

static const char *const columns[] = {"seq",   "cycle",   "layer", "unit", "register",
                                      "group", "address", "value", "old",  "fields"};

static void regs_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    if (ev->kind != DLADBG_EV_REG_WRITE)
        return;
    const struct dladbg_reg_event *r = &ev->u.reg;
    char num[7][PLUGIN_CELL_LEN];
    plugin_cell_u64(num[0], ev->seq);
    plugin_cell_u64(num[1], ev->cycle);
    plugin_cell_index_or_blank(num[2], ev->layer);
    plugin_cell_index_or_blank(num[3], r->group);
    plugin_cell_hex(num[4], r->addr, 5);
    plugin_cell_hex(num[5], r->value, 8);
    plugin_cell_hex(num[6], r->old, 8);
    const char *cells[] = {num[0], num[1], num[2], r->unit, r->name,
                           num[3], num[4], num[5], num[6],  r->fields};
    host->row(host, cells);
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "regs",
    .description = "register writes with decoded fields",
    .n_columns = sizeof columns / sizeof columns[0],
    .columns = columns,
    .open = plugin_stateless_open,
    .event = regs_event,
    .close = plugin_stateless_close,
    .event_kinds = DLADBG_EV_BIT(DLADBG_EV_REG_WRITE),
};
