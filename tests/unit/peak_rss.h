/* This process's peak RSS, for the tests and the bench that measure memory:
 * Linux's VmHWM, the high-water mark of the process's own image (where
 * getrusage() of an exec'd child also counts the image it replaced), and
 * its reset. */
#ifndef PEAK_RSS_H
#define PEAK_RSS_H

#include <stdbool.h>
#include <stdio.h>

/* VmHWM in KiB; -1 without /proc. */
static inline long peak_rss_kb(void)
{
    long kb = -1;
    char line[256];
    FILE *fp = fopen("/proc/self/status", "r");
    while (fp && fgets(line, sizeof line, fp))
        if (sscanf(line, "VmHWM: %ld", &kb) == 1)
            break;
    if (fp)
        fclose(fp);
    return kb;
}

/* Linux resets the peak to the current RSS on "5" to clear_refs (since
 * 4.0); false when it cannot. */
static inline bool peak_rss_reset(void)
{
    FILE *fp = fopen("/proc/self/clear_refs", "w");
    bool ok = fp && fputs("5", fp) >= 0;
    if (fp)
        ok = fclose(fp) == 0 && ok;
    return ok;
}

#endif
