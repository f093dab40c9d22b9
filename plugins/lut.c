/* Decoder "lut": LUT statistics of every layer that used a LUT (SDP, CDP). */
#include "plugin_util.h"

static const char *const columns[] = {"layer",        "unit",        "lookups",      "le_hit",
                                      "lo_hit",       "hybrid",      "underflow",    "overflow",
                                      "le_underflow", "le_overflow", "lo_underflow", "lo_overflow"};

static void lut_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    if (ev->kind != DLADBG_EV_LAYER_RECORD || !ev->u.layer.lut)
        return;
    const struct dladbg_lut_stats *s = ev->u.layer.lut;
    const uint64_t v[] = {s->lookups,      s->le_hit,     s->lo_hit,       s->hybrid,
                          s->underflow,    s->overflow,   s->le_underflow, s->le_overflow,
                          s->lo_underflow, s->lo_overflow};
    char num[11][PLUGIN_CELL_LEN];
    plugin_cell_u64(num[0], ev->u.layer.index);
    for (int i = 0; i < 10; i++)
        plugin_cell_u64(num[i + 1], v[i]);
    const char *cells[] = {num[0], ev->u.layer.lut_unit ? ev->u.layer.lut_unit : "",
                           num[1], num[2],
                           num[3], num[4],
                           num[5], num[6],
                           num[7], num[8],
                           num[9], num[10]};
    host->row(host, cells);
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "lut",
    .description = "LUT statistics per layer: hits per table, underflow, overflow",
    .n_columns = sizeof columns / sizeof columns[0],
    .columns = columns,
    .open = plugin_stateless_open,
    .event = lut_event,
    .close = plugin_stateless_close,
};
