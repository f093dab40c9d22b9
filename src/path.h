/* File-name helpers shared by the core and the UI. */
#ifndef DLADBG_PATH_H
#define DLADBG_PATH_H

#include <stddef.h>

/* The last component of path, trailing slashes ignored ("traces/sanity1/"
 * -> "sanity1"); "/" stays "/". */
void path_last_component(const char *path, char *buf, size_t len);

#endif
