#include "sample_net.h"

#include <stdio.h>

bool sample_net_build(const char *name, uint8_t **buf, size_t *len, char *err, size_t errlen)
{
    (void)buf;
    (void)len;
    snprintf(err, errlen, "sample:%s: unknown sample", name);
    return false;
}

const char *const *sample_net_names(void)
{
    static const char *const names[] = {NULL};
    return names;
}
