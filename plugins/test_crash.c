/* Built only for tests: a decoder that crashes in its event() callback (a
 * write through NULL), or, with DLADBG_TEST_CRASH=open, calls abort() in
 * open().  dladbg must name the plugin and the callback and leave no
 * temporary behind. */
#include <stdlib.h>
#include <string.h>

#include "plugin_util.h"

static const char *const crash_columns[] = {"event"};

static void *crash_open(const struct dladbg_host *host)
{
    const char *where = getenv("DLADBG_TEST_CRASH");
    if (where && strcmp(where, "open") == 0)
        abort();
    return plugin_stateless_open(host);
}

static void crash_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    (void)host;
    (void)ev;
    volatile int *nowhere = NULL;
    *nowhere = 1;
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "crash",
    .n_columns = 1,
    .columns = crash_columns,
    .open = crash_open,
    .event = crash_event,
    .close = plugin_stateless_close,
};
