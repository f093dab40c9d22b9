/* The loadable driver: runtime (user-mode driver) + engine scheduler
 * (kernel-mode driver) running an NVDLA loadable on the simulated NVDLA. */
#ifndef DLADBG_LOADABLE_DRIVER_H
#define DLADBG_LOADABLE_DRIVER_H

#include "driver.h"
#include "session.h"

struct driver *loadable_driver_open(const char *path, const struct session_opts *opt, struct dla *d,
                                    struct report *rep, char *err, size_t errlen);

#endif
