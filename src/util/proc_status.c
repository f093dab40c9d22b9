/* /proc/self/status fields (proc_status.h). */
#include "proc_status.h"

#include <stdio.h>
#include <string.h>

long proc_status_kib(const char *field)
{
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    size_t len = strlen(field);
    long kib = -1;
    while (fp && kib < 0 && fgets(line, sizeof line, fp))
        if (strncmp(line, field, len) == 0 && line[len] == ':' &&
            sscanf(line + len + 1, "%ld", &kib) != 1)
            kib = -1;
    if (fp)
        fclose(fp);
    return kib;
}
