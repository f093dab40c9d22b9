/* Binary PGM (P5) and PPM (P6) images with 8-bit samples (maxval 255, the
 * only kind nvdla_runtime reads).  A PPM's R, G, B samples are stored B, G, R
 * in the host image, as the runtime stores the colour JPEGs it decodes. */
#ifndef DLADBG_IMAGE_PNM_H
#define DLADBG_IMAGE_PNM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host_image.h"

/* Whether buf starts like a binary PGM or PPM. */
bool pnm_looks_like(const uint8_t *buf, size_t len);

/* Decode buf (name for messages) into img; false with "NAME: offset N: ..."
 * in err on a malformed or unsupported file. */
bool pnm_decode(const uint8_t *buf, size_t len, const char *name, struct host_image *img,
                char *err, size_t errlen);

#endif
