/* DIMG: the image container NVIDIA's runtime writes its output tensors in
 * (magic "DIMG", version 0, then NvDlaImage's metadata: PixelFormat, width,
 * height, channel, line stride, surface stride, buffer size; nine
 * little-endian uint32 in all), then the elements packed channel-major: c,
 * then h, then w, bpe bytes each, gathered from the tensor's surface (see
 * tensor_layout.h).  fp16 output is "stably hashed" as the runtime's code
 * really does it: 32768.0 becomes +0 and every NaN 31744.0 (see dimg.c).
 *
 * PixelFormat was renumbered when NVIDIA added int8 support (and with it the
 * small configurations' x8 atoms).  The nv_full regression goldens predate
 * that, so tensors of the FEATURE pixel format are tagged with the old
 * numbers (40 int8 x32, 41 int16 x16, 42 fp16 x16); FEATURE_X8 tensors, which
 * only the newer runtime runs, with its numbers (41 int8 x8, 42 int16 x16,
 * 43 fp16 x16).  A DIMG read back is told apart by its payload length. */
#ifndef DLADBG_DIMG_H
#define DLADBG_DIMG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensor_layout.h"

#define DIMG_HEADER_SIZE 36
/* PixelFormat numbers before NVIDIA's int8 support... */
#define DIMG_FMT_INT8_X32      40
#define DIMG_FMT_OLD_INT16_X16 41
#define DIMG_FMT_OLD_FP16_X16  42
/* ...and since */
#define DIMG_FMT_INT8_X8   41
#define DIMG_FMT_INT16_X16 42
#define DIMG_FMT_FP16_X16  43
/* Largest element payload we agree to gather or read. */
#define DIMG_MAX_PAYLOAD (256u << 20)

struct dimg_header {
    uint32_t format, width, height, channel, line_stride, surf_stride, size;
};

/* The header the runtime writes for an output tensor read with lay. */
struct dimg_header dimg_header_for(const struct tensor_layout *lay);

/* Whether a DIMG of this format can hold elements of bpe bytes (either
 * numbering). */
bool dimg_format_has_bpe(uint32_t format, unsigned bpe);

/* Gather the elements of the surface lay from buf (len bytes; reads beyond it
 * give 0) into out (c * h * w * bpe bytes, malloc'ed), fp16 hashed stably.
 * false when the payload would exceed DIMG_MAX_PAYLOAD. */
bool dimg_pack(const struct tensor_layout *lay, const uint8_t *buf, uint64_t len, uint8_t **out,
               size_t *out_len);

/* Write header + payload to path (atomically). */
bool dimg_write(const char *path, const struct dimg_header *h, const uint8_t *payload,
                size_t payload_len, char *err, size_t errlen);

/* Parse a DIMG held in memory: header and a pointer to its payload.  false
 * with a message on a malformed file. */
bool dimg_parse(const uint8_t *file, size_t len, const char *name, struct dimg_header *h,
                const uint8_t **payload, size_t *payload_len, char *err, size_t errlen);

#endif
