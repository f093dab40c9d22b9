/* Bytes kept deflated (zlib) for as long as a debugger holds them and
 * nobody reads them: what each layer wrote, kept for export txn's checks
 * after the run has overwritten it, packs 6-7x (int8 activations).  The
 * window is 4 KiB, so packing takes some 50 KB of zlib state, not 260. */
#ifndef DLADBG_DEFLATE_BYTES_H
#define DLADBG_DEFLATE_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Gives the next n bytes of what is packed into buf; false on failure. */
typedef bool (*deflate_read_fn)(void *ctx, uint64_t at, uint8_t *buf, size_t n);

/* len bytes, read through read a piece at a time (no buffer of len is
 * ever held), deflated into a malloc'd buffer of *packed_len bytes, with
 * room for `header` bytes before the stream (the caller's own fields).
 * NULL when zlib or the allocator fails, or when the stream would not be
 * smaller than len - len / 8 (keep the bytes as they are then). */
uint8_t *deflate_bytes(deflate_read_fn read, void *ctx, uint64_t len, size_t header,
                       size_t *packed_len);
/* Inflate a stream of packed_len bytes into exactly len bytes of out. */
bool inflate_bytes(const uint8_t *packed, size_t packed_len, uint8_t *out, uint64_t len);

#endif
