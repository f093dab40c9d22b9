/* Built only for tests: a decoder that claims an ABI version dladbg does not
 * speak.  dladbg must refuse it with a message, never call into it. */
#include <stdlib.h>

#include "dladbg/decoder.h"

static const char *const columns[] = {"x"};

static void *broken_open(const struct dladbg_host *host)
{
    (void)host;
    abort(); /* reaching this means the host accepted a plugin it must refuse */
}

static void broken_event(void *state, const struct dladbg_host *host, const struct dladbg_event *ev)
{
    (void)state;
    (void)host;
    (void)ev;
    abort();
}

static void broken_close(void *state, const struct dladbg_host *host)
{
    (void)state;
    (void)host;
    abort();
}

const struct dladbg_decoder dladbg_decoder = {
    .abi_version = DLADBG_DECODER_ABI_VERSION + 98,
    .struct_size = sizeof(struct dladbg_decoder),
    .name = "broken",
    .description = "deliberately incompatible (tests)",
    .n_columns = 1,
    .columns = columns,
    .open = broken_open,
    .event = broken_event,
    .close = broken_close,
};
