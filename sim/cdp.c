/* CDP and CDP_RDMA. */
#include "dla_priv.h"

int cdp_execute(struct dla *d, struct dla_exec *x, int group, int rdma_group)
{
    (void)rdma_group;
    exec_desc(x, "cdp (not modelled yet)");
    dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_CDP, 0, NULL,
             "CDP of group %d: not modelled yet", group);
    return -1;
}

const struct dla_unit_hooks cdp_hooks = {0};
