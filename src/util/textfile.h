/* Input files read line by line (the loop of every reader of NVIDIA's text
 * formats: input.txn and .cfg traces, .dat memory files) or whole (loadables,
 * input tensors), with the same "cannot open" message. */
#ifndef DLADBG_TEXTFILE_H
#define DLADBG_TEXTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

/* The longest line a text reader takes: no line of NVIDIA's formats or of a
 * script comes near it, and a device such as /dev/zero must not make a
 * reader grow without end. */
#define TEXTFILE_MAX_LINE (1u << 20)

enum textfile_line_status {
    TEXTFILE_LINE,     /* a line, with its newline unless it ends the file */
    TEXTFILE_END,      /* the end of the file, nothing read */
    TEXTFILE_TOO_LONG, /* TEXTFILE_MAX_LINE bytes without a newline */
    TEXTFILE_NUL,      /* a NUL byte: not a text file (*len: the bytes before it) */
    TEXTFILE_ERROR,    /* a read error (errno) */
};

/* The next line of fp in *line (malloc'ed, grown as needed, NUL-terminated;
 * *len bytes).  Every line reader of dladbg goes through this. */
enum textfile_line_status textfile_read_line(FILE *fp, char **line, size_t *cap, size_t *len);

/* "PATH:LINE: why" for a status other than TEXTFILE_LINE/TEXTFILE_END. */
void textfile_line_error(enum textfile_line_status st, const char *path, unsigned lineno,
                         size_t len, char *err, size_t errlen);

/* fopen(path, mode) for reading, or NULL with "PATH: cannot open: why" or
 * "PATH: is a folder; expected a file" in err: fopen opens a folder on
 * Linux and the first read fails with EISDIR, which every reader reported
 * as a bare "read error" (of line 1). */
FILE *file_open_input(const char *path, const char *mode, char *err, size_t errlen);

/* Called for each line (with its newline) and its number, from 1; a
 * non-zero result stops the reading and is returned. */
typedef int (*textfile_line_fn)(void *ctx, char *line, unsigned lineno, char *err, size_t errlen);

/* Returns 0 at the end of the file, fn's first non-zero result, or -1 with
 * "PATH: cannot open: why" or the textfile_line_error() message in err. */
int textfile_each_line(const char *path, textfile_line_fn fn, void *ctx, char *err, size_t errlen);

/* The whole file in *buf (malloc'ed) and *len; false with "PATH: why" in err
 * when it cannot be read or holds max bytes or more. */
bool file_read_all(const char *path, size_t max, uint8_t **buf, size_t *len, char *err,
                   size_t errlen);

#endif
