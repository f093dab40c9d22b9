/* DIMG: the image container NVIDIA's runtime writes its output tensors in
 * (magic "DIMG", version, PixelFormat, width, height, channel, line stride,
 * surface stride, buffer size: nine little-endian uint32, then the elements
 * packed channel-major: c, then h, then w, bpe bytes each).
 *
 * The regression goldens predate a renumbering of PixelFormat, so output
 * tensors are tagged with the old numbers (40 int8 x32, 41 int16 x16,
 * 42 fp16 x16) and elements are gathered with x32 addressing: x = 32 / bpe
 * channels per group, offset (c / x) * surf + h * line + w * x * bpe +
 * (c % x) * bpe.  fp16 output is hashed "stably": -0 becomes +0 and every
 * NaN becomes 0x7c00. */
#ifndef DLADBG_DIMG_H
#define DLADBG_DIMG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DIMG_HEADER_SIZE   36
#define DIMG_FMT_INT8_X32  40
#define DIMG_FMT_INT16_X16 41
#define DIMG_FMT_FP16_X16  42
/* Largest element payload we agree to gather or read. */
#define DIMG_MAX_PAYLOAD (256u << 20)

struct dimg_header {
    uint32_t format, width, height, channel, line_stride, surf_stride, size;
};

/* Bytes per element of an old-numbering format (0 for other formats). */
unsigned dimg_bpe(uint32_t format);

/* Pack the elements of buf (len bytes; reads beyond it give 0) into out
 * (channel * height * width * bpe bytes) and apply fp16 stable hashing when
 * the format is fp16.  false when the payload would exceed DIMG_MAX_PAYLOAD. */
bool dimg_pack(const struct dimg_header *h, const uint8_t *buf, uint64_t len, uint8_t **out,
               size_t *out_len);

/* Write header + payload to path (atomically). */
bool dimg_write(const char *path, const struct dimg_header *h, const uint8_t *payload,
                size_t payload_len, char *err, size_t errlen);

/* Parse a DIMG held in memory: header and a pointer to its payload.  false
 * with a message on a malformed file. */
bool dimg_parse(const uint8_t *file, size_t len, const char *name, struct dimg_header *h,
                const uint8_t **payload, size_t *payload_len, char *err, size_t errlen);

#endif
