#include "afile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool afile_open(struct afile *af, const char *path, char *err, size_t errlen)
{
    af->fp = NULL;
    if (snprintf(af->path, sizeof af->path, "%s", path) >= (int)sizeof af->path ||
        snprintf(af->tmp, sizeof af->tmp, "%s.tmpXXXXXX", path) >= (int)sizeof af->tmp) {
        snprintf(err, errlen, "%s: path too long", path);
        return false;
    }
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        return false;
    }
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        unlink(af->tmp);
        return false;
    }
    return true;
}

bool afile_commit(struct afile *af, char *err, size_t errlen)
{
    bool ok = fflush(af->fp) == 0 && !ferror(af->fp);
    int saved = errno;
    if (fclose(af->fp) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    af->fp = NULL;
    if (ok && rename(af->tmp, af->path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        snprintf(err, errlen, "%s: write failed: %s", af->path, strerror(saved));
        unlink(af->tmp);
    }
    return ok;
}

void afile_abort(struct afile *af)
{
    if (af->fp)
        fclose(af->fp);
    af->fp = NULL;
    unlink(af->tmp);
}
