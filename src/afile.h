/* Files written whole or not at all: output goes to a temporary name in the
 * same directory and is renamed over the target only when complete, so a
 * failure never leaves half a file behind. */
#ifndef DLADBG_AFILE_H
#define DLADBG_AFILE_H

#include <stdbool.h>
#include <stdio.h>

struct afile {
    FILE *fp;
    char path[4096];
    char tmp[4096];
};

/* Open path for writing (binary); false with a message in err on failure. */
bool afile_open(struct afile *af, const char *path, char *err, size_t errlen);
/* Flush, close and rename into place; false (and the temporary removed) on error. */
bool afile_commit(struct afile *af, char *err, size_t errlen);
/* Give up: close and remove the temporary. */
void afile_abort(struct afile *af);

#endif
