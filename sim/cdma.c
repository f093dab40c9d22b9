/* CDMA register behaviour. */
#include <string.h>

#include "dla_priv.h"

/* The CBUF flush completes at reset and stays done: S_CBUF_FLUSH_STATUS reads
 * FLUSH_DONE = 1 whatever was written to it (the v2 traces write 0 first). */
static bool cdma_read(struct dla *d, const struct regdb_reg *reg, int group, uint32_t *value,
                      bool peek)
{
    (void)d;
    (void)group;
    (void)peek;
    if (strcmp(reg->name, "S_CBUF_FLUSH_STATUS") != 0)
        return false;
    *value = 1;
    return true;
}

const struct dla_unit_hooks cdma_hooks = {.read = cdma_read};
