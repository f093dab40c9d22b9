/* Whole transfers through a file descriptor (a pipe, a file): write(2) and
 * read(2) may move fewer bytes than asked or be interrupted by a signal. */
#ifndef DLADBG_FD_IO_H
#define DLADBG_FD_IO_H

#include <stdbool.h>
#include <stddef.h>

/* All of len bytes to fd, retrying short writes and EINTR; false on an
 * error (errno says which) or when the other end is gone. */
bool fd_write_all(int fd, const void *buf, size_t len);
/* All of len bytes from fd, the same way; false also at end of file. */
bool fd_read_all(int fd, void *buf, size_t len);

#endif
