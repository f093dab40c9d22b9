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

/* The loadable a loadable driver runs and the image of its blobs (runtime.h),
 * for a second look at it without reading or building the file again;
 * false for any other driver. */
struct loadable;
struct rt_bound;
bool loadable_driver_parsed(struct driver *drv, struct loadable **ld, struct rt_bound **bound);

#endif
