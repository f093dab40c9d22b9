/* Built only for tests: a plugin as one built against the header of ABI 1.2
 * is, before a layer record's bytes_cvsram was appended (1.3).  Its records
 * end at work_unit, and what it keeps next to one follows it in memory: the
 * command "old_layer L" asks run->layer() for layer L's record into such a
 * record with a guard after it, and fails when the host wrote past its end.
 * Its decoder writes rows from the 1.2 fields of the layer records, as such
 * a plugin reads them. */
#include <stddef.h>
#include <string.h>

#include "plugin_console.h"
#include "plugin_util.h"

/* The record as 1.2 laid it out: every field before bytes_cvsram. */
#define RECORD_1_2 offsetof(struct dladbg_layer, bytes_cvsram)
#define GUARD      0x5a5a5a5a5a5a5a5aull

struct held_record {
    _Alignas(struct dladbg_layer) unsigned char record[RECORD_1_2];
    uint64_t guard; /* what the plugin keeps next to the record */
};

static int old_layer_exec(const struct dladbg_console *con, int argc, const char *const *argv)
{
    uint64_t index;
    if (argc != 2 || plugin_parse_u64(argv[1], &index) || index > UINT32_MAX)
        return plugin_fail(con, "usage: old_layer LAYER");
    struct held_record held;
    memset(&held, 0, sizeof held);
    held.guard = GUARD;
    if (con->run->layer(con->run, (uint32_t)index, (struct dladbg_layer *)(void *)held.record))
        return plugin_fail(con, "no layer %llu", (unsigned long long)index);
    if (held.guard != GUARD)
        return plugin_fail(con, "layer %llu: the host wrote past the end of a 1.2 record",
                           (unsigned long long)index);
    struct dladbg_layer l; /* the 1.2 fields, read as such a plugin reads them */
    memcpy(&l, held.record, RECORD_1_2);
    plugin_say(con, "layer %u (%s): %llu bytes read, %llu written, work in %s", l.index, l.unit,
               (unsigned long long)l.bytes_read, (unsigned long long)l.bytes_written, l.work_unit);
    return 0;
}

static const char *const columns[] = {"index", "unit", "bytes_read", "bytes_written"};

static void old_layout_event(void *state, const struct dladbg_host *host,
                             const struct dladbg_event *ev)
{
    (void)state;
    if (ev->kind != DLADBG_EV_LAYER_RECORD)
        return;
    const struct dladbg_layer *l = &ev->u.layer;
    char num[3][PLUGIN_CELL_LEN];
    const char *cells[] = {plugin_cell_u64(num[0], l->index), l->unit,
                           plugin_cell_u64(num[1], l->bytes_read),
                           plugin_cell_u64(num[2], l->bytes_written)};
    host->row(host, cells);
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder), /* unchanged since 1.2 */
    .name = "old_layout",
    .description = "a plugin built against ABI 1.2's header (tests)",
    .n_columns = sizeof columns / sizeof columns[0],
    .columns = columns,
    .open = plugin_stateless_open,
    .event = old_layout_event,
    .close = plugin_stateless_close,
    .event_kinds = DLADBG_EV_BIT(DLADBG_EV_LAYER_RECORD),
};

static const struct dladbg_command commands[] = {
    {"old_layer", "old_layer LAYER",
     "Layer LAYER's record as a plugin built against ABI 1.2 holds it.", old_layer_exec, NULL},
};

const struct dladbg_command_set dladbg_commands = {
    .abi_version = DLADBG_COMMANDS_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_command_set),
    .command_size = sizeof(struct dladbg_command),
    .n_commands = 1,
    .commands = commands,
};
