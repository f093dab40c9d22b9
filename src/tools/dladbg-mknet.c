/* dladbg-mknet: write the project's sample networks as loadable files.
 *
 *   dladbg-mknet DIR            every sample as DIR/<name>.nvdla
 *   dladbg-mknet NAME FILE      one sample
 *   dladbg-mknet --list         the sample names */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample_net.h"

static int write_sample(const char *name, const char *path)
{
    uint8_t *buf;
    size_t len;
    char err[256];
    if (!sample_net_build(name, &buf, &len, err, sizeof err)) {
        fprintf(stderr, "dladbg-mknet: %s\n", err);
        return 2;
    }
    FILE *fp = fopen(path, "wb");
    int rc = 0;
    if (!fp || fwrite(buf, 1, len, fp) != len) {
        fprintf(stderr, "dladbg-mknet: %s: cannot write\n", path);
        rc = 1;
    }
    if (fp && fclose(fp) != 0)
        rc = 1;
    free(buf);
    return rc;
}

int main(int argc, char **argv)
{
    const char *const *names = sample_net_names();
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; names[i]; i++)
            puts(names[i]);
        return 0;
    }
    if (argc == 3)
        return write_sample(argv[1], argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: dladbg-mknet DIR | dladbg-mknet NAME FILE | dladbg-mknet --list\n");
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
