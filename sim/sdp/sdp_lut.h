/* SDP's Y LUT for the SDP pipeline (sdp_lut.c), on top of the shared LUT
 * module (lut.h): one context per layer holds the decoded configuration and
 * the layer's statistics; a lookup counts into the statistics it is given,
 * so that workers computing parts of a layer count apart. */
#ifndef DLA_SDP_LUT_H
#define DLA_SDP_LUT_H

#include "lut/lut.h"

struct sdp_lut {
    const struct dla_lut_ram *ram;
    struct lut_cfg cfg;
    struct dla_lut_stats stats;
};

/* Decode SDP's S_LUT_* registers (rule violations are reported) and start
 * the statistics. */
void sdp_lut_begin(struct dla *d, struct sdp_lut *l, bool fp16);
/* Look one value up: integer precisions (int32 in and out) ... */
int32_t sdp_lut_int(const struct sdp_lut *l, int32_t x, struct dla_lut_stats *s);
/* ... and fp16 precision (binary32 bits in and out). */
uint32_t sdp_lut_fp(const struct sdp_lut *l, uint32_t x, struct dla_lut_stats *s);

#endif
