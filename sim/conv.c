/* Convolution core entry point (CDMA, CBUF, CSC, CMAC, CACC). */
#include "dla_priv.h"

int conv_execute(struct dla *d, struct dla_exec *x, int group, struct dla_cube *out)
{
    (void)out;
    exec_desc(x, "conv (not modelled yet)");
    dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_CDMA, 0, NULL,
             "convolution of group %d: the convolution core is not modelled yet", group);
    return -1;
}
