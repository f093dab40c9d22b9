/* Whole transfers through a file descriptor (fd_io.h). */
#include "fd_io.h"

#include <errno.h>
#include <unistd.h>

static bool transfer_all(int fd, char *p, size_t len, bool writing)
{
    while (len) {
        ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

bool fd_write_all(int fd, const void *buf, size_t len)
{
    return transfer_all(fd, (char *)buf, len, true);
}

bool fd_read_all(int fd, void *buf, size_t len)
{
    return transfer_all(fd, buf, len, false);
}
