/* Readers and writer of NVIDIA's .dat memory files (see dat.h). */
#include "dat.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/afile.h"
#include "util/textfile.h"

/* A growable byte buffer. */
struct bytes {
    uint8_t *p;
    size_t n, cap;
};

static int bytes_push(struct bytes *b, uint8_t v)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        uint8_t *p = realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    b->p[b->n++] = v;
    return 0;
}

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    return s;
}

/* Parse "0xHH" (one or two hex digits) at *s; advances *s.  -1 when it is not a byte. */
static int parse_hex_byte(const char **s)
{
    const char *p = *s;
    if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X') || !isxdigit((unsigned char)p[2]))
        return -1;
    char *end;
    unsigned long v = strtoul(p + 2, &end, 16);
    if (end - (p + 2) > 2 || v > 0xff)
        return -1;
    *s = end;
    return (int)v;
}

/* A hex-line data line: optional blanks, then "0x". */
static int is_data_line(const char *line)
{
    const char *s = skip_space(line);
    return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

static int parse_data_line(const char *line, struct bytes *b, const char *path, unsigned lineno,
                           char *err, size_t errlen)
{
    const char *s = skip_space(line);
    while (*s) {
        int v = parse_hex_byte(&s);
        if (v < 0) {
            snprintf(err, errlen, "%s:%u: expected a byte 0x00..0xff, found \"%.16s\"", path,
                     lineno, s);
            return -1;
        }
        if (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') {
            snprintf(err, errlen, "%s:%u: expected a space between bytes, found '%c'", path, lineno,
                     *s);
            return -1;
        }
        if (bytes_push(b, (uint8_t)v) != 0) {
            snprintf(err, errlen, "%s: out of memory", path);
            return -1;
        }
        s = skip_space(s);
    }
    return 0;
}

struct hex_file {
    const char *path;
    uint64_t want;
    struct bytes b;
};

/* 1 (stop, no error) once the wanted bytes are read. */
static int hex_line(void *ctx, char *line, unsigned lineno, char *err, size_t errlen)
{
    struct hex_file *h = ctx;
    if (h->want && h->b.n >= h->want)
        return 1;
    if (!is_data_line(line))
        return 0; /* header ("Data_size = ...", "dumped memory,...", "=====") */
    return parse_data_line(line, &h->b, h->path, lineno, err, errlen) != 0 ? -1 : 0;
}

int dat_read_hexlines(const char *path, uint64_t want, uint8_t **out, size_t *len, char *err,
                      size_t errlen)
{
    struct hex_file h = {.path = path, .want = want};
    int rc = textfile_each_line(path, hex_line, &h, err, errlen) < 0 ? -1 : 0;
    struct bytes b = h.b;
    if (rc == 0 && want && b.n < want) {
        snprintf(err, errlen, "%s: holds %zu data bytes, %llu expected", path, b.n,
                 (unsigned long long)want);
        rc = -1;
    }
    if (rc != 0) {
        free(b.p);
        return -1;
    }
    *out = b.p;
    *len = want ? (size_t)want : b.n;
    return 0;
}

int dat_write_hexlines(const char *path, uint64_t addr, const char *memtype, const uint8_t *buf,
                       size_t len, char *err, size_t errlen)
{
    struct afile af;
    if (!afile_open(&af, path, err, errlen))
        return -1;
    fprintf(af.fp, "dumped memory,start_address=0x%llx size=0x%zx\nmemory type:%s\n",
            (unsigned long long)addr, len, memtype);
    fprintf(af.fp, "==============================\n\n");
    for (size_t i = 0; i < len; i++)
        fprintf(af.fp, "%s0x%02x%s", i % 32 ? "" : " ", buf[i],
                (i % 32 == 31 || i + 1 == len) ? "\n" : " ");
    fprintf(af.fp, "\n====================\ndump done\n");
    return afile_commit(&af, err, errlen) ? 0 : -1;
}

/* ---------------------------------------------------------------- records */

struct cursor {
    const char *s;
    const char *path;
    unsigned line;
    char *err;
    size_t errlen;
};

static int fail(struct cursor *c, const char *expected)
{
    snprintf(c->err, c->errlen, "%s:%u: expected %s, found \"%.20s\"", c->path, c->line, expected,
             c->s);
    return -1;
}

static int accept(struct cursor *c, char ch)
{
    c->s = skip_space(c->s);
    if (*c->s != ch)
        return 0;
    c->s++;
    return 1;
}

/* key, optionally quoted, followed by ':'; alt is an accepted alternative name. */
static int expect_key(struct cursor *c, const char *key, const char *alt)
{
    c->s = skip_space(c->s);
    char quote = (*c->s == '\'' || *c->s == '"') ? *c->s : 0;
    if (quote)
        c->s++;
    size_t n = strlen(key), m = alt ? strlen(alt) : 0;
    if (strncmp(c->s, key, n) == 0)
        c->s += n;
    else if (alt && strncmp(c->s, alt, m) == 0)
        c->s += m;
    else {
        char what[64];
        snprintf(what, sizeof what, "\"%s:\"", key);
        return fail(c, what);
    }
    if (quote && *c->s++ != quote)
        return fail(c, "a closing quote");
    if (!accept(c, ':'))
        return fail(c, "':'");
    return 0;
}

/* A number as NVIDIA's loader reads it: 0x hex, leading 0 octal, else decimal. */
static int parse_number(struct cursor *c, uint64_t *v)
{
    c->s = skip_space(c->s);
    if (!isdigit((unsigned char)*c->s))
        return fail(c, "a number");
    char *end;
    errno = 0;
    unsigned long long x = strtoull(c->s, &end, 0);
    if (errno || end == c->s)
        return fail(c, "a number");
    c->s = end;
    *v = x;
    return 0;
}

/* Upper bound on one record: the corpus uses 4 and 32 bytes. */
#define DAT_MAX_RECORD 65536

static int parse_record(struct cursor *c, dat_record_fn fn, void *ctx, uint64_t *extent)
{
    uint64_t offset, size;
    if (expect_key(c, "offset", NULL) || parse_number(c, &offset) ||
        (!accept(c, ',') && fail(c, "','")))
        return -1;
    if (expect_key(c, "size", NULL) || parse_number(c, &size) ||
        (!accept(c, ',') && fail(c, "','")))
        return -1;
    if (size == 0 || size > DAT_MAX_RECORD)
        return fail(c, "a record size between 1 and 65536");
    if (offset + size < offset)
        return fail(c, "a record that ends within the 64-bit address space");
    if (expect_key(c, "payload", "value"))
        return -1;
    uint8_t bytes[DAT_MAX_RECORD];
    size_t n = 0;
    for (;;) {
        c->s = skip_space(c->s);
        if (*c->s == '}' || *c->s == 0)
            break;
        int v = parse_hex_byte(&c->s);
        if (v < 0)
            return fail(c, "a payload byte 0x00..0xff");
        if (n == size)
            return fail(c, "no more payload bytes than size says");
        bytes[n++] = (uint8_t)v;
    }
    if (!accept(c, '}'))
        return fail(c, "'}' closing the record");
    accept(c, ',');
    c->s = skip_space(c->s);
    if (*c->s)
        return fail(c, "the end of the line after the record");
    memset(bytes + n, 0, size - n); /* NVIDIA's loader pads a short payload with zeros */
    if (offset + size > *extent)
        *extent = offset + size;
    return fn ? fn(ctx, offset, bytes, (size_t)size) : 0;
}

struct record_file {
    const char *path;
    dat_record_fn fn;
    void *ctx;
    uint64_t *extent;
};

static int record_line(void *ctx, char *line, unsigned lineno, char *err, size_t errlen)
{
    struct record_file *r = ctx;
    struct cursor c = {.path = r->path, .line = lineno, .err = err, .errlen = errlen};
    c.s = skip_space(line);
    if (*c.s == 0 || *c.s == '#' || (c.s[0] == '/' && c.s[1] == '/'))
        return 0;
    if ((c.s[0] == '{' || c.s[0] == '}') && *skip_space(c.s + 1) == 0)
        return 0; /* the optional first "{" and last "}" lines */
    accept(&c, '{');
    return parse_record(&c, r->fn, r->ctx, r->extent);
}

int dat_read_records(const char *path, dat_record_fn fn, void *ctx, uint64_t *extent, char *err,
                     size_t errlen)
{
    struct record_file r = {path, fn, ctx, extent};
    *extent = 0;
    return textfile_each_line(path, record_line, &r, err, errlen);
}
