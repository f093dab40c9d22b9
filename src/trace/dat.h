/* NVIDIA's memory data files.
 *
 * Hex-line files (nvdlav1 traceplayer, input.txn's load_mem/dump_mem): optional
 * header lines, then data lines of space-separated bytes "0xHH", lowest
 * address first.  Record files (v2 .cfg traces' mem_load): one record per
 * line, "{offset:0x.., size:N, payload:0x.. 0x..}," (the warehouse variant
 * quotes the key and says value instead of payload). */
#ifndef DLADBG_DAT_H
#define DLADBG_DAT_H

#include <stddef.h>
#include <stdint.h>

/* Read the data bytes of a hex-line file.  want > 0: exactly the first want
 * bytes (an error when the file holds fewer).  *out is malloc'ed.  Returns 0,
 * or -1 with "file:line: what was expected" in err. */
int dat_read_hexlines(const char *path, uint64_t want, uint8_t **out, size_t *len, char *err,
                      size_t errlen);

/* Write a dump as a hex-line file (32 bytes per line, with NVIDIA's dump
 * header), atomically.  Returns 0 or -1 with err. */
int dat_write_hexlines(const char *path, uint64_t addr, const char *memtype, const uint8_t *buf,
                       size_t len, char *err, size_t errlen);

typedef int (*dat_record_fn)(void *ctx, uint64_t offset, const uint8_t *bytes, size_t n);

/* Parse a record file, calling fn for every record (it may stop the parse by
 * returning non-zero, which is returned).  *extent receives the highest
 * offset + size seen.  Returns 0, -1 with err on a malformed line. */
int dat_read_records(const char *path, dat_record_fn fn, void *ctx, uint64_t *extent, char *err,
                     size_t errlen);

#endif
