/* Built only for tests: a decoder whose header and rows hold what CSV
 * quoting must get right (quotes, commas, empty and missing cells, a cell
 * longer than export csv's first row buffer with a quote at its end), one
 * row per layer record.  The test compares the export byte for byte. */
#include <string.h>

#include "plugin_util.h"

static const char *const quote_columns[] = {"plain", "say \"hi\"", "long, quoted"};

static void quotes_event(void *state, const struct dladbg_host *host,
                         const struct dladbg_event *ev)
{
    (void)state;
    if (ev->kind != DLADBG_EV_LAYER_RECORD)
        return;
    char long_cell[601];
    memset(long_cell, 'x', 598);
    memcpy(long_cell + 598, "\",", 3); /* a quote and a comma at the end */
    const char *first[] = {"a\"b\"\"c", NULL, long_cell};
    const char *second[] = {"", "\"", "no quote, a comma"};
    host->row(host, first);
    host->row(host, second);
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "quotes",
    .n_columns = 3,
    .columns = quote_columns,
    .open = plugin_stateless_open,
    .event = quotes_event,
    .close = plugin_stateless_close,
    .event_kinds = DLADBG_EV_BIT(DLADBG_EV_LAYER_RECORD),
};
