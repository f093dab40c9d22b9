/* NumPy's .npy format: a magic string, a version, a header length, a Python
 * dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (1, 20, 24, 24), }
 * padded with spaces to a multiple of 64 bytes and ended by a newline, then
 * the data in C order. */
#include "npy.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "num/fp16.h"
#include "util/afile.h"
#include "util/le_bytes.h"
#include "util/textfile.h"

static const uint8_t npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* The largest header a reader takes: NumPy itself writes a few hundred
 * bytes; anything longer is not an array file of ours. */
#define NPY_MAX_HEADER 65536u

static const struct {
    const char *code; /* descr without its byte-order character */
    const char *name;
    size_t size;
} dtypes[] = {
    [NPY_I8] = {"i1", "int8", 1},      [NPY_U8] = {"u1", "uint8", 1},
    [NPY_I16] = {"i2", "int16", 2},    [NPY_U16] = {"u2", "uint16", 2},
    [NPY_I32] = {"i4", "int32", 4},    [NPY_F16] = {"f2", "float16", 2},
    [NPY_F32] = {"f4", "float32", 4},  [NPY_F64] = {"f8", "float64", 8},
};
#define N_DTYPES (sizeof dtypes / sizeof dtypes[0])

size_t npy_dtype_size(enum npy_dtype t)
{
    return (unsigned)t < N_DTYPES ? dtypes[t].size : 0;
}

const char *npy_dtype_name(enum npy_dtype t)
{
    return (unsigned)t < N_DTYPES ? dtypes[t].name : "?";
}

static bool fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return false;
}

/* ---------------------------------------------------------------- header dict */

/* A cursor over the header text, for messages with the file offset. */
struct hdr {
    const char *name;
    const char *s;
    size_t len, pos, base; /* base: the file offset of s[0] */
    char *err;
    size_t errlen;
};

static void skip_space(struct hdr *h)
{
    while (h->pos < h->len && (h->s[h->pos] == ' ' || h->s[h->pos] == '\t'))
        h->pos++;
}

static bool expect_char(struct hdr *h, char c)
{
    skip_space(h);
    if (h->pos >= h->len || h->s[h->pos] != c)
        return fail(h->err, h->errlen, "%s: offset %zu: expected '%c' in the header", h->name,
                    h->base + h->pos, c);
    h->pos++;
    return true;
}

static bool peek_char(struct hdr *h, char c)
{
    skip_space(h);
    return h->pos < h->len && h->s[h->pos] == c;
}

/* A Python string literal in single or double quotes, without escapes. */
static bool read_string(struct hdr *h, char *out, size_t outlen)
{
    skip_space(h);
    if (h->pos >= h->len || (h->s[h->pos] != '\'' && h->s[h->pos] != '"'))
        return fail(h->err, h->errlen, "%s: offset %zu: expected a quoted string in the header",
                    h->name, h->base + h->pos);
    char q = h->s[h->pos++];
    size_t n = 0;
    while (h->pos < h->len && h->s[h->pos] != q) {
        if (n + 1 >= outlen)
            return fail(h->err, h->errlen, "%s: offset %zu: header string too long", h->name,
                        h->base + h->pos);
        out[n++] = h->s[h->pos++];
    }
    if (h->pos >= h->len)
        return fail(h->err, h->errlen, "%s: offset %zu: unterminated string in the header", h->name,
                    h->base + h->pos);
    h->pos++;
    out[n] = 0;
    return true;
}

static bool read_descr(struct hdr *h, struct npy_array *a, bool *swap)
{
    size_t at = h->base + h->pos;
    char d[16];
    if (!read_string(h, d, sizeof d))
        return false;
    char order = d[0];
    const char *code = d + 1;
    if (order != '<' && order != '>' && order != '|' && order != '=')
        return fail(h->err, h->errlen,
                    "%s: offset %zu: dtype '%s': expected a byte order ('<', '>' or '|') first",
                    h->name, at, d);
    for (size_t t = 0; t < N_DTYPES; t++)
        if (!strcmp(code, dtypes[t].code)) {
            a->dtype = (enum npy_dtype)t;
            *swap = order == '>' && dtypes[t].size > 1;
            return true;
        }
    return fail(h->err, h->errlen,
                "%s: offset %zu: dtype '%s' is not one dladbg reads (int8, uint8, int16, uint16, "
                "int32, float16, float32, float64)",
                h->name, at, d);
}

static bool read_fortran(struct hdr *h)
{
    skip_space(h);
    size_t at = h->base + h->pos;
    if (h->len - h->pos >= 5 && !strncmp(h->s + h->pos, "False", 5)) {
        h->pos += 5;
        return true;
    }
    if (h->len - h->pos >= 4 && !strncmp(h->s + h->pos, "True", 4))
        return fail(h->err, h->errlen,
                    "%s: offset %zu: fortran_order is True; save the array in C order "
                    "(numpy.ascontiguousarray)",
                    h->name, at);
    return fail(h->err, h->errlen, "%s: offset %zu: expected False for fortran_order", h->name,
                at);
}

static bool read_shape(struct hdr *h, struct npy_array *a)
{
    if (!expect_char(h, '('))
        return false;
    a->ndim = 0;
    a->count = 1;
    while (!peek_char(h, ')')) {
        skip_space(h);
        size_t at = h->base + h->pos;
        if (h->pos >= h->len || !isdigit((unsigned char)h->s[h->pos]))
            return fail(h->err, h->errlen, "%s: offset %zu: expected a dimension in the shape",
                        h->name, at);
        uint64_t v = 0;
        while (h->pos < h->len && isdigit((unsigned char)h->s[h->pos])) {
            if (v > (UINT64_MAX - 9) / 10)
                return fail(h->err, h->errlen, "%s: offset %zu: dimension too large", h->name, at);
            v = v * 10 + (uint64_t)(h->s[h->pos++] - '0');
        }
        if (a->ndim == NPY_MAX_DIMS)
            return fail(h->err, h->errlen, "%s: offset %zu: more than %d dimensions", h->name, at,
                        NPY_MAX_DIMS);
        if (v && a->count > UINT64_MAX / v)
            return fail(h->err, h->errlen, "%s: offset %zu: the shape's element count overflows",
                        h->name, at);
        a->shape[a->ndim++] = v;
        a->count *= v;
        if (!peek_char(h, ','))
            break;
        h->pos++;
    }
    return expect_char(h, ')');
}

static bool parse_dict(struct hdr *h, struct npy_array *a, bool *swap)
{
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    if (!expect_char(h, '{'))
        return false;
    while (!peek_char(h, '}')) {
        char key[32];
        size_t at = h->base + h->pos;
        if (!read_string(h, key, sizeof key) || !expect_char(h, ':'))
            return false;
        bool ok;
        if (!strcmp(key, "descr"))
            ok = read_descr(h, a, swap), seen_descr = true;
        else if (!strcmp(key, "fortran_order"))
            ok = read_fortran(h), seen_fortran = true;
        else if (!strcmp(key, "shape"))
            ok = read_shape(h, a), seen_shape = true;
        else
            return fail(h->err, h->errlen,
                        "%s: offset %zu: unexpected key '%s' (expected descr, fortran_order, shape)",
                        h->name, at, key);
        if (!ok)
            return false;
        if (!peek_char(h, ','))
            break;
        h->pos++;
    }
    if (!expect_char(h, '}'))
        return false;
    if (!seen_descr || !seen_fortran || !seen_shape)
        return fail(h->err, h->errlen, "%s: offset %zu: the header lacks '%s'", h->name, h->base,
                    !seen_descr ? "descr" : !seen_shape ? "shape" : "fortran_order");
    return true;
}

/* ---------------------------------------------------------------- reading */

static void swap_bytes(uint8_t *p, uint64_t count, size_t size)
{
    for (uint64_t i = 0; i < count; i++, p += size)
        for (size_t k = 0; k < size / 2; k++) {
            uint8_t t = p[k];
            p[k] = p[size - 1 - k];
            p[size - 1 - k] = t;
        }
}

/* The header's length field and where the header text starts. */
static bool read_preamble(const char *name, const uint8_t *buf, size_t len, size_t *hstart,
                          size_t *hlen, char *err, size_t errlen)
{
    if (len < 10 || memcmp(buf, npy_magic, sizeof npy_magic) != 0)
        return fail(err, errlen, "%s: offset 0: not a NumPy .npy file (expected \\x93NUMPY)",
                    name);
    uint8_t major = buf[6];
    if (major == 1) {
        *hlen = le_get16(buf + 8);
        *hstart = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12)
            return fail(err, errlen, "%s: offset 8: file ends inside the header length", name);
        *hlen = le_get32(buf + 8);
        *hstart = 12;
    } else {
        return fail(err, errlen, "%s: offset 6: format version %u.%u (expected 1.0, 2.0 or 3.0)",
                    name, major, buf[7]);
    }
    if (*hlen > NPY_MAX_HEADER)
        return fail(err, errlen, "%s: offset 8: header of %zu bytes (at most %u expected)", name,
                    *hlen, NPY_MAX_HEADER);
    if (len - *hstart < *hlen)
        return fail(err, errlen, "%s: offset %zu: file ends inside its %zu-byte header", name, len,
                    *hlen);
    return true;
}

bool npy_parse(const char *name, const uint8_t *buf, size_t len, uint64_t max_bytes,
               struct npy_array *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    size_t hstart = 0, hlen = 0;
    if (!read_preamble(name, buf, len, &hstart, &hlen, err, errlen))
        return false;
    struct hdr h = {name, (const char *)buf + hstart, hlen, 0, hstart, err, errlen};
    bool swap = false;
    if (!parse_dict(&h, a, &swap))
        return false;
    size_t size = npy_dtype_size(a->dtype);
    if (a->count > max_bytes / size)
        return fail(err, errlen,
                    "%s: offset %zu: %" PRIu64 " elements of %s: more than the %" PRIu64
                    " bytes taken",
                    name, hstart, a->count, npy_dtype_name(a->dtype), max_bytes);
    uint64_t bytes = a->count * size;
    size_t data_at = hstart + hlen;
    if (len - data_at < bytes)
        return fail(err, errlen,
                    "%s: offset %zu: file ends after %zu data bytes; the shape needs %" PRIu64,
                    name, len, len - data_at, bytes);
    if (len - data_at > bytes)
        return fail(err, errlen,
                    "%s: offset %" PRIu64 ": %zu bytes after the array's data (expected the end)",
                    name, (uint64_t)data_at + bytes, (size_t)(len - data_at - bytes));
    a->data = malloc(bytes ? (size_t)bytes : 1);
    if (!a->data)
        return fail(err, errlen, "%s: out of memory for %" PRIu64 " bytes", name, bytes);
    memcpy(a->data, buf + data_at, (size_t)bytes);
    if (swap)
        swap_bytes(a->data, a->count, size);
    return true;
}

/* A regular file refused as larger than the reader takes: its header alone,
 * from the first bytes, so that the refusal says what the array is (dtype
 * and shape left in *a).  A FIFO or device is not opened again: that read
 * would wait. */
static void header_of_large(const char *path, uint64_t max_bytes, uint64_t cap,
                            struct npy_array *a, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < cap)
        return;
    FILE *fp = fopen(path, "rb");
    uint8_t *buf = fp ? malloc(NPY_MAX_HEADER + 16) : NULL;
    size_t len = buf ? fread(buf, 1, NPY_MAX_HEADER + 16, fp) : 0;
    if (fp)
        fclose(fp);
    char why[512];
    /* the data is not all there: the parse stops at the size check */
    if (buf && !npy_parse(path, buf, len, max_bytes, a, why, sizeof why) && a->count &&
        a->count > max_bytes / npy_dtype_size(a->dtype))
        snprintf(err, errlen, "%s", why);
    else
        memset(a, 0, sizeof *a);
    free(buf);
}

bool npy_read(const char *path, uint64_t max_bytes, struct npy_array *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    uint8_t *buf;
    size_t len;
    /* the header's few hundred bytes on top of the data the caller takes */
    uint64_t cap = max_bytes + NPY_MAX_HEADER + 16;
    if (!file_read_all(path, cap > SIZE_MAX ? SIZE_MAX : (size_t)cap, &buf, &len, err, errlen)) {
        header_of_large(path, max_bytes, cap, a, err, errlen);
        return false;
    }
    bool ok = npy_parse(path, buf, len, max_bytes, a, err, errlen);
    free(buf);
    return ok;
}

void npy_free(struct npy_array *a)
{
    free(a->data);
    a->data = NULL;
    a->count = 0;
}

double npy_get(const struct npy_array *a, uint64_t i)
{
    /* the element's bytes copied out (data need not be aligned) */
    union {
        int8_t i8;
        uint8_t u8;
        int16_t i16;
        uint16_t u16;
        int32_t i32;
        float f32;
        double f64;
    } v;
    size_t size = npy_dtype_size(a->dtype);
    memcpy(&v, (const uint8_t *)a->data + i * size, size);
    switch (a->dtype) {
    case NPY_I8:
        return v.i8;
    case NPY_U8:
        return v.u8;
    case NPY_I16:
        return v.i16;
    case NPY_U16:
        return v.u16;
    case NPY_I32:
        return v.i32;
    case NPY_F16:
        return f32_from_bits(fp16_to_f32_bits(v.u16));
    case NPY_F32:
        return v.f32;
    case NPY_F64:
        return v.f64;
    }
    return 0;
}

/* ---------------------------------------------------------------- writing */

/* The header text NumPy writes: the dict, spaces, a newline, so that the
 * data starts at a multiple of 64 bytes. */
static size_t format_header(char *out, size_t outlen, enum npy_dtype dtype, unsigned ndim,
                            const uint64_t *shape)
{
    char shp[NPY_MAX_DIMS * 24 + 4];
    size_t n = 0;
    shp[n++] = '(';
    for (unsigned i = 0; i < ndim; i++)
        n += (size_t)snprintf(shp + n, sizeof shp - n, "%s%" PRIu64, i ? ", " : "", shape[i]);
    if (ndim == 1)
        shp[n++] = ',';
    shp[n++] = ')';
    shp[n] = 0;
    int len = snprintf(out, outlen, "{'descr': '%c%s', 'fortran_order': False, 'shape': %s, }",
                       npy_dtype_size(dtype) == 1 ? '|' : '<', dtypes[dtype].code, shp);
    size_t total = 10 + (size_t)len + 1;
    size_t padded = (total + 63) / 64 * 64;
    size_t text = padded - 10;
    memset(out + len, ' ', text - 1 - (size_t)len);
    out[text - 1] = '\n';
    return text;
}

bool npy_write(const char *path, enum npy_dtype dtype, unsigned ndim, const uint64_t *shape,
               const void *data, char *err, size_t errlen)
{
    if ((unsigned)dtype >= N_DTYPES || ndim > NPY_MAX_DIMS)
        return fail(err, errlen, "%s: no such array type or rank", path);
    uint64_t count = 1;
    for (unsigned i = 0; i < ndim; i++)
        count *= shape[i];
    char header[NPY_MAX_DIMS * 24 + 128];
    size_t hlen = format_header(header, sizeof header, dtype, ndim, shape);
    uint8_t pre[10];
    memcpy(pre, npy_magic, sizeof npy_magic);
    pre[6] = 1;
    pre[7] = 0;
    le_put16(pre + 8, (uint16_t)hlen);
    struct afile af;
    if (!afile_open(&af, path, err, errlen))
        return false;
    size_t bytes = (size_t)count * npy_dtype_size(dtype);
    if (fwrite(pre, 1, sizeof pre, af.fp) != sizeof pre || fwrite(header, 1, hlen, af.fp) != hlen ||
        (bytes && fwrite(data, 1, bytes, af.fp) != bytes)) {
        afile_abort(&af);
        return fail(err, errlen, "%s: write failed", path);
    }
    return afile_commit(&af, err, errlen);
}
