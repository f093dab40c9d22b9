/* Deflated byte ranges (deflate_bytes.h). */
#include "deflate_bytes.h"

#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

#define WINDOW_BITS 12 /* 4 KiB: as good as 32 KiB on layer outputs, a sixth of the state */
#define MEM_LEVEL   6
#define PIECE       4096u

/* The output grows as the stream does: a quarter of the input at first,
 * then by half, so a range is never held twice at full size. */
static bool grow_out(uint8_t **buf, size_t *cap, z_stream *z)
{
    size_t used = *cap - z->avail_out;
    size_t cap2 = *cap + *cap / 2;
    uint8_t *b = realloc(*buf, cap2);
    if (!b)
        return false;
    *buf = b;
    *cap = cap2;
    z->next_out = b + used;
    z->avail_out = (uInt)(cap2 - used);
    return true;
}

uint8_t *deflate_bytes(deflate_read_fn read, void *ctx, uint64_t len, size_t header,
                       size_t *packed_len)
{
    if (len == 0 || len > UINT_MAX)
        return NULL;
    z_stream z = {0};
    if (deflateInit2(&z, 1, Z_DEFLATED, WINDOW_BITS, MEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = header + (size_t)len / 4 + 64;
    uint8_t *out = malloc(cap), in[PIECE];
    bool ok = out != NULL;
    if (ok) {
        z.next_out = out + header;
        z.avail_out = (uInt)(cap - header);
    }
    uint64_t at = 0;
    int st = Z_OK;
    while (ok && st != Z_STREAM_END) {
        if (z.avail_in == 0 && at < len) {
            size_t n = len - at < PIECE ? (size_t)(len - at) : PIECE;
            ok = read(ctx, at, in, n);
            z.next_in = in;
            z.avail_in = (uInt)n;
            at += n;
        }
        if (ok && z.avail_out == 0)
            ok = grow_out(&out, &cap, &z);
        if (ok) {
            st = deflate(&z, at == len ? Z_FINISH : Z_NO_FLUSH);
            ok = st == Z_OK || st == Z_STREAM_END || st == Z_BUF_ERROR;
        }
        /* not worth keeping packed: give up early */
        if (ok && z.total_out >= len - len / 8)
            ok = false;
    }
    size_t total = header + z.total_out;
    deflateEnd(&z);
    if (!ok) {
        free(out);
        return NULL;
    }
    uint8_t *fit = realloc(out, total); /* the room left over given back */
    *packed_len = z.total_out;
    return fit ? fit : out;
}

bool inflate_bytes(const uint8_t *packed, size_t packed_len, uint8_t *out, uint64_t len)
{
    if (len > UINT_MAX || packed_len > UINT_MAX)
        return false;
    z_stream z = {0};
    if (inflateInit2(&z, WINDOW_BITS) != Z_OK)
        return false;
    z.next_in = (Bytef *)packed;
    z.avail_in = (uInt)packed_len;
    z.next_out = out;
    z.avail_out = (uInt)len;
    int st = inflate(&z, Z_FINISH);
    bool ok = st == Z_STREAM_END && z.total_out == len;
    inflateEnd(&z);
    return ok;
}
