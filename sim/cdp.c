/* CDP and CDP_RDMA. */
#include "dla_priv.h"
#include "lut.h"

int cdp_execute(struct dla *d, struct dla_exec *x, int group, int rdma_group)
{
    (void)rdma_group;
    exec_desc(x, "cdp (not modelled yet)");
    dla_diag(d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, DLA_U_CDP, 0, NULL,
             "CDP of group %d: not modelled yet", group);
    return -1;
}

/* The LUT access port lives behind CDP's S_LUT_ACCESS_CFG/DATA. */
static bool cdp_write(struct dla *d, const struct regdb_reg *reg, int group, uint32_t value)
{
    (void)group;
    return lut_hook_write(&d->lut_cdp, reg, value);
}

static bool cdp_read(struct dla *d, const struct regdb_reg *reg, int group, uint32_t *value,
                     bool peek)
{
    (void)group;
    return lut_hook_read(&d->lut_cdp, reg, value, peek);
}

const struct dla_unit_hooks cdp_hooks = {.write = cdp_write, .read = cdp_read};
