/* Placeholder until the loadable runtime lands. */
#include "loadable_driver.h"

struct driver *loadable_driver_open(const char *path, const struct session_opts *opt, struct dla *d,
                                    struct report *rep, char *err, size_t errlen)
{
    (void)opt;
    (void)d;
    (void)rep;
    snprintf(err, errlen, "%s: loadables not supported yet", path);
    return NULL;
}
