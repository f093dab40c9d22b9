/* JPEG images decoded with libjpeg(-turbo) exactly as nvdla_runtime decodes
 * them: the accurate integer IDCT (JDCT_ISLOW), the library's default
 * upsampling, grayscale kept as one channel and colour (YCbCr or RGB) output
 * as B, G, R. */
#ifndef DLADBG_IMAGE_JPEG_H
#define DLADBG_IMAGE_JPEG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host_image.h"

/* Whether buf starts with a JPEG start-of-image marker. */
bool jpeg_looks_like(const uint8_t *buf, size_t len);

/* Decode buf (name for messages) into img; false with "NAME: ..." in err on a
 * malformed or unsupported file.  What libjpeg only warns about (a truncated
 * file, whose missing rows it fills in) goes to warn, empty when none. */
bool jpeg_decode(const uint8_t *buf, size_t len, const char *name, struct host_image *img,
                 char *warn, size_t warnlen, char *err, size_t errlen);

#endif
