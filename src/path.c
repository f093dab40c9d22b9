/* File-name helpers shared by the core and the UI. */
#include "path.h"

#include <stdio.h>
#include <string.h>

/* A trace folder is named by its last component whether or not it is
 * written with a trailing slash: trace names and the status line agree. */
void path_last_component(const char *path, char *buf, size_t len)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    size_t n = strlen(tmp);
    while (n > 1 && tmp[n - 1] == '/')
        tmp[--n] = 0;
    const char *slash = strrchr(tmp, '/');
    snprintf(buf, len, "%s", slash && slash[1] ? slash + 1 : tmp);
}
