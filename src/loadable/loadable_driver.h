/* The loadable driver: runtime (user-mode driver) + engine scheduler
 * (kernel-mode driver) running an NVDLA loadable on the simulated NVDLA. */
#ifndef DLADBG_LOADABLE_DRIVER_H
#define DLADBG_LOADABLE_DRIVER_H

#include "debug/driver.h"
#include "debug/session.h"

struct driver *loadable_driver_open(const char *path, const struct session_opts *opt, struct dla *d,
                                    struct report *rep, char *err, size_t errlen);
/* The same with path's loadable already parsed (config_choose_parsed): ld is
 * taken over, freed on failure too; NULL parses path. */
struct driver *loadable_driver_open_parsed(struct loadable *ld, const char *path,
                                           const struct session_opts *opt, struct dla *d,
                                           struct report *rep, char *err, size_t errlen);

#endif
