/* An image decoded on the host the way nvdla_runtime decodes one before it
 * converts it into the input tensor: 8-bit samples, rows packed one after
 * the other, channels interleaved in the runtime's order (grayscale: one
 * channel; colour: B, G, R, because the Caffe models NVIDIA's runtime was
 * written for take BGR). */
#ifndef DLADBG_HOST_IMAGE_H
#define DLADBG_HOST_IMAGE_H

#include <stdint.h>
#include <stdlib.h>

/* Largest decoded image we agree to hold (width * height * channels). */
#define HOST_IMAGE_MAX_BYTES (64u << 20)

struct host_image {
    uint32_t width, height, channels;
    uint8_t *pixels; /* (y * width + x) * channels + channel */
};

static inline void host_image_free(struct host_image *img)
{
    free(img->pixels);
    img->pixels = NULL;
}

#endif
