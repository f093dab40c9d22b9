/* dladbg-mknet: write the project's sample networks as loadable files.
 *
 *   dladbg-mknet DIR            every sample as DIR/<name>.nvdla
 *   dladbg-mknet NAME FILE      one sample
 *   dladbg-mknet --list         the sample names */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/afile.h"
#include "sample/sample_net.h"

static const char usage[] =
    "usage: dladbg-mknet DIR | dladbg-mknet NAME FILE | dladbg-mknet --list\n";

/* The sample written whole or not at all (afile): an error leaves no half file. */
static int write_sample(const char *name, const char *path)
{
    uint8_t *buf;
    size_t len;
    char err[4096 + 256]; /* a path (afile keeps up to 4096 bytes) and the words around it */
    if (!sample_net_build(name, &buf, &len, err, sizeof err)) {
        fprintf(stderr, "dladbg-mknet: %s\n", err);
        return 2;
    }
    struct afile af;
    bool ok = afile_open(&af, path, err, sizeof err);
    if (ok && fwrite(buf, 1, len, af.fp) != len) {
        snprintf(err, sizeof err, "%s: cannot write", path);
        afile_abort(&af);
        ok = false;
    } else if (ok) {
        ok = afile_commit(&af, err, sizeof err);
    }
    free(buf);
    if (!ok)
        fprintf(stderr, "dladbg-mknet: %s\n", err);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *const *names = sample_net_names();
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; names[i]; i++)
            puts(names[i]);
        return 0;
    }
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc == 3)
        return write_sample(argv[1], argv[2]);
    if (argc != 2 || argv[1][0] == '-') {
        fputs(usage, stderr);
        return 2;
    }
    for (size_t i = 0; names[i]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.nvdla", argv[1], names[i]);
        int rc = write_sample(names[i], path);
        if (rc)
            return rc;
    }
    return 0;
}
