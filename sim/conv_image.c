/* CDMA image input: pitch-linear pixel formats into CBUF. */
#include "conv.h"

int conv_image_load(struct dla *d, struct dla_exec *x, const struct conv_params *p,
                    const struct conv_cbuf_plan *plan, int32_t layer, uint64_t *sat)
{
    (void)x;
    (void)plan;
    (void)layer;
    (void)sat;
    dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_CDMA, 0, NULL,
             "image input (pixel format %u) is not modelled yet", p->pixel_format);
    return -1;
}
