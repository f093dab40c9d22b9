/* Text files read line by line (textfile.h). */
#include "textfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
