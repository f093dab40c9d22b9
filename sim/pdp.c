/* PDP and PDP_RDMA. */
#include "dla_priv.h"

bool pdp_input_on_the_fly(const struct dla *d, int group)
{
    return dla_field_is(d, DLA_U_PDP, group, "D_OPERATION_MODE_CFG", "FLYING_MODE", "ON_FLYING");
}

int pdp_execute(struct dla *d, struct dla_exec *x, int group, int rdma_group,
                const struct dla_cube *in)
{
    (void)rdma_group;
    (void)in;
    exec_desc(x, "pdp (not modelled yet)");
    dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_PDP, 0, NULL,
             "PDP of group %d: not modelled yet", group);
    return -1;
}
