/* Built only for tests: a decoder whose header and rows hold what CSV
 * quoting must get right (quotes, commas, empty and missing cells, cells
 * longer than export csv's row buffer, one with a quote at its end and one
 * without), rows per layer record.  The test compares the export byte for
 * byte. */
#include <string.h>

#include "plugin_util.h"

/* Longer than export csv's buffer of rows (16 KiB and room for one more
 * row), so that the buffer has to grow in the middle of a cell. */
#define LONG_CELL 40000

static const char *const quote_columns[] = {"plain", "say \"hi\"", "long, quoted"};

static void quotes_event(void *state, const struct dladbg_host *host,
                         const struct dladbg_event *ev)
{
    (void)state;
    if (ev->kind != DLADBG_EV_LAYER_RECORD)
        return;
    static char long_cell[LONG_CELL + 1], unquoted[LONG_CELL + 1];
    memset(long_cell, 'x', LONG_CELL - 2);
    memcpy(long_cell + LONG_CELL - 2, "\",", 3); /* a quote and a comma at the end */
    memset(unquoted, 'y', LONG_CELL);
    const char *first[] = {"a\"b\"\"c", NULL, long_cell};
    const char *second[] = {"", "\"", "no quote, a comma"};
    const char *third[] = {"z", unquoted, "after"};
    host->row(host, first);
    host->row(host, second);
    host->row(host, third);
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
