/* SDP and SDP_RDMA. */
#include "dla_priv.h"

bool sdp_input_on_the_fly(const struct dla *d, int group)
{
    return dla_field_is(d, DLA_U_SDP, group, "D_FEATURE_MODE_CFG", "FLYING_MODE", "ON");
}

bool sdp_output_to_pdp(const struct dla *d, int group)
{
    return dla_field_is(d, DLA_U_SDP, group, "D_FEATURE_MODE_CFG", "OUTPUT_DST", "PDP");
}

/* SDP_RDMA is needed when the input comes from memory or an enabled stage
 * takes an operand from memory. */
bool sdp_needs_rdma(const struct dla *d, int group)
{
    if (!sdp_input_on_the_fly(d, group))
        return true;
    static const char *const stages[][5] = {
        {"D_DP_BS_CFG", "BS_BYPASS", "D_DP_BS_ALU_CFG", "BS_ALU_SRC", "D_DP_BS_MUL_CFG"},
        {"D_DP_BN_CFG", "BN_BYPASS", "D_DP_BN_ALU_CFG", "BN_ALU_SRC", "D_DP_BN_MUL_CFG"},
    };
    static const char *const mul_src[] = {"BS_MUL_SRC", "BN_MUL_SRC"};
    for (int i = 0; i < 2; i++) {
        if (dla_field_is(d, DLA_U_SDP, group, stages[i][0], stages[i][1], "YES"))
            continue;
        if (dla_field(d, DLA_U_SDP, group, stages[i][2], stages[i][3]) ||
            dla_field(d, DLA_U_SDP, group, stages[i][4], mul_src[i]))
            return true;
    }
    if (d->cfg->sdp_ew && !dla_field_is(d, DLA_U_SDP, group, "D_DP_EW_CFG", "EW_BYPASS", "YES"))
        return dla_field(d, DLA_U_SDP, group, "D_DP_EW_ALU_CFG", "EW_ALU_SRC") ||
               dla_field(d, DLA_U_SDP, group, "D_DP_EW_MUL_CFG", "EW_MUL_SRC");
    return false;
}

int sdp_execute(struct dla *d, struct dla_exec *x, int group, int rdma_group,
                const struct dla_cube *in, struct dla_cube *to_pdp)
{
    (void)rdma_group;
    (void)in;
    (void)to_pdp;
    exec_desc(x, "sdp (not modelled yet)");
    dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_SDP, 0, NULL,
             "SDP of group %d: not modelled yet", group);
    return -1;
}

const struct dla_unit_hooks sdp_hooks = {0};
