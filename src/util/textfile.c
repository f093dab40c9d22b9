/* Input files read line by line or whole (textfile.h). */
#include "textfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int textfile_each_line(const char *path, textfile_line_fn fn, void *ctx, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    unsigned lineno = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, fp) > 0)
        rc = fn(ctx, line, ++lineno, err, errlen);
    free(line);
    fclose(fp);
    return rc;
}

/* The size of the open regular file plus one, at most max; 0 for anything else. */
static size_t regular_file_size(FILE *fp, size_t max)
{
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0)
        return 0;
    uint64_t size = (uint64_t)st.st_size + 1;
    return size < max ? (size_t)size : max;
}

bool file_read_all(const char *path, size_t max, uint8_t **buf, size_t *len, char *err,
                   size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    uint8_t *b = NULL;
    /* a regular file's size sizes the buffer at once (one byte more, so that
     * the read that meets the end needs no growth): a loadable of tens of MB
     * was otherwise copied by every doubling; pipes and devices still grow */
    size_t n = 0, cap = regular_file_size(fp, max);
    if (cap) {
        b = malloc(cap);
        if (!b) {
            snprintf(err, errlen, "%s: out of memory", path);
            fclose(fp);
            return false;
        }
    }
    for (;;) {
        if (n == cap) {
            if (cap >= max) {
                snprintf(err, errlen, "%s: larger than %llu bytes", path, (unsigned long long)max);
                break;
            }
            cap = cap ? (cap > max / 2 ? max : cap * 2) : 65536;
            uint8_t *nb = realloc(b, cap);
            if (!nb) {
                snprintf(err, errlen, "%s: out of memory", path);
                break;
            }
            b = nb;
        }
        size_t got = fread(b + n, 1, cap - n, fp);
        n += got;
        if (got == 0) {
            if (!ferror(fp)) {
                fclose(fp);
                *buf = b;
                *len = n;
                return true;
            }
            snprintf(err, errlen, "%s: read error", path);
            break;
        }
    }
    free(b);
    fclose(fp);
    return false;
}
