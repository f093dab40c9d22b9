/* Input files read line by line or whole (textfile.h). */
#include "textfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool grow_line(char **line, size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    char *b = realloc(*line, n);
    if (!b)
        return false;
    *line = b;
    *cap = n;
    return true;
}

enum textfile_line_status textfile_read_line(FILE *fp, char **line, size_t *cap, size_t *len)
{
    size_t n = 0;
    int c;
    while ((c = getc_unlocked(fp)) != EOF) {
        if (c == 0) {
            *len = n;
            return TEXTFILE_NUL;
        }
        if (n + 2 > TEXTFILE_MAX_LINE) {
            *len = n;
            return TEXTFILE_TOO_LONG;
        }
        if (!grow_line(line, cap, n + 2)) {
            errno = ENOMEM;
            *len = n;
            return TEXTFILE_ERROR;
        }
        (*line)[n++] = (char)c;
        if (c == '\n')
            break;
    }
    *len = n;
    if (ferror(fp))
        return TEXTFILE_ERROR;
    if (!n)
        return TEXTFILE_END;
    (*line)[n] = 0;
    return TEXTFILE_LINE;
}

void textfile_line_error(enum textfile_line_status st, const char *path, unsigned lineno,
                         size_t len, char *err, size_t errlen)
{
    if (st == TEXTFILE_TOO_LONG)
        snprintf(err, errlen, "%s:%u: line longer than %u bytes (expected a text file)", path,
                 lineno, TEXTFILE_MAX_LINE);
    else if (st == TEXTFILE_NUL)
        snprintf(err, errlen, "%s:%u: NUL byte at column %zu (expected a text file)", path, lineno,
                 len + 1);
    else
        snprintf(err, errlen, "%s:%u: read error: %s", path, lineno, strerror(errno));
}

/* textfile_each_line's reader: lines found with memchr in blocks read
 * whole, as textfile_read_line would return them (a getc per byte was a
 * tenth of the time of a trace of a million layers, issue 36).  The unread
 * bytes are buf[start, end); buf has a byte of room past cap. */
struct block_reader {
    FILE *fp;
    char *buf;
    size_t cap, start, end;
    bool eof;
};

#define BLOCK_SIZE (64u << 10)

/* More bytes after the unread ones (moved to the front, the buffer grown
 * when they fill it); false on a read error or when there is no memory. */
static bool refill(struct block_reader *r)
{
    size_t avail = r->end - r->start;
    memmove(r->buf, r->buf + r->start, avail);
    r->start = 0;
    r->end = avail;
    if (avail == r->cap) {
        size_t cap = r->cap * 2 < TEXTFILE_MAX_LINE ? r->cap * 2 : TEXTFILE_MAX_LINE;
        char *b = realloc(r->buf, cap + 1);
        if (!b) {
            errno = ENOMEM;
            return false;
        }
        r->buf = b;
        r->cap = cap;
    }
    size_t got = fread(r->buf + r->end, 1, r->cap - r->end, r->fp);
    r->end += got;
    if (got == 0)
        r->eof = true;
    return !ferror(r->fp);
}

/* The next line at buf + start (*len bytes, its newline included unless it
 * ends the file); the statuses and lengths are textfile_read_line's. */
static enum textfile_line_status next_line(struct block_reader *r, size_t *len)
{
    size_t searched = 0; /* of the line's bytes, those known to hold no newline */
    for (;;) {
        const char *s = r->buf + r->start;
        size_t avail = r->end - r->start;
        const char *nl = memchr(s + searched, '\n', avail - searched);
        size_t n = nl ? (size_t)(nl - s) + 1 : avail;
        size_t fits = n < TEXTFILE_MAX_LINE - 1 ? n : TEXTFILE_MAX_LINE - 1;
        const char *nul = memchr(s, 0, fits);
        if (nul) {
            *len = (size_t)(nul - s);
            return TEXTFILE_NUL;
        }
        if (n > TEXTFILE_MAX_LINE - 1) { /* its byte MAX - 1 is there: no room for it */
            *len = TEXTFILE_MAX_LINE - 1;
            return s[*len] == 0 ? TEXTFILE_NUL : TEXTFILE_TOO_LONG;
        }
        if (nl || (r->eof && n)) {
            *len = n;
            return TEXTFILE_LINE;
        }
        if (r->eof) {
            *len = 0;
            return TEXTFILE_END;
        }
        searched = avail;
        if (!refill(r)) {
            *len = r->end - r->start;
            return TEXTFILE_ERROR;
        }
    }
}

FILE *file_open_input(const char *path, const char *mode, char *err, size_t errlen)
{
    FILE *fp = fopen(path, mode);
    if (!fp) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a folder; expected a file", path);
        fclose(fp);
        return NULL;
    }
    return fp;
}

int textfile_each_line(const char *path, textfile_line_fn fn, void *ctx, char *err, size_t errlen)
{
    FILE *fp = file_open_input(path, "r", err, errlen);
    if (!fp)
        return -1;
    struct block_reader r = {.fp = fp, .cap = BLOCK_SIZE, .buf = malloc(BLOCK_SIZE + 1)};
    if (!r.buf) {
        snprintf(err, errlen, "%s: out of memory", path);
        fclose(fp);
        return -1;
    }
    unsigned lineno = 0;
    int rc = 0;
    size_t len;
    enum textfile_line_status st;
    while (rc == 0 && (st = next_line(&r, &len)) != TEXTFILE_END) {
        if (st != TEXTFILE_LINE) {
            textfile_line_error(st, path, lineno + 1, len, err, errlen);
            rc = -1;
            break;
        }
        /* the line ends in a NUL where the next begins, put back after */
        char *line = r.buf + r.start, saved = line[len];
        line[len] = 0;
        rc = fn(ctx, line, ++lineno, err, errlen);
        line[len] = saved;
        r.start += len;
    }
    free(r.buf);
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
    FILE *fp = file_open_input(path, "rb", err, errlen);
    if (!fp)
        return false;
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
            snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
            break;
        }
    }
    free(b);
    fclose(fp);
    return false;
}
