/* Input files read line by line (the loop of every reader of NVIDIA's text
 * formats: input.txn and .cfg traces, .dat memory files) or whole (loadables,
 * input tensors), with the same "cannot open" message. */
#ifndef DLADBG_TEXTFILE_H
#define DLADBG_TEXTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Called for each line (with its newline) and its number, from 1; a
 * non-zero result stops the reading and is returned. */
typedef int (*textfile_line_fn)(void *ctx, char *line, unsigned lineno, char *err, size_t errlen);

/* Returns 0 at the end of the file, fn's first non-zero result, or -1 with
 * "PATH: cannot open: why" in err. */
int textfile_each_line(const char *path, textfile_line_fn fn, void *ctx, char *err, size_t errlen);

/* The whole file in *buf (malloc'ed) and *len; false with "PATH: why" in err
 * when it cannot be read or holds max bytes or more. */
bool file_read_all(const char *path, size_t max, uint8_t **buf, size_t *len, char *err,
                   size_t errlen);

#endif
