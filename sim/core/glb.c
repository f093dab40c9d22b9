/* GLB: interrupt status, mask and set.  A status bit is set whenever its
 * source completes, masked or not; the interrupt line is status & ~mask.
 * Software clears status by writing ones (the register is W1C in the
 * database) and can raise bits through S_INTR_SET. */
#include "unit_table.h"

static const char *const bit_names[32] = {
    [0] = "SDP_DONE_STATUS0",      [1] = "SDP_DONE_STATUS1",       [2] = "CDP_DONE_STATUS0",
    [3] = "CDP_DONE_STATUS1",      [4] = "PDP_DONE_STATUS0",       [5] = "PDP_DONE_STATUS1",
    [6] = "BDMA_DONE_STATUS0",     [7] = "BDMA_DONE_STATUS1",      [8] = "RUBIK_DONE_STATUS0",
    [9] = "RUBIK_DONE_STATUS1",    [16] = "CDMA_DAT_DONE_STATUS0", [17] = "CDMA_DAT_DONE_STATUS1",
    [18] = "CDMA_WT_DONE_STATUS0", [19] = "CDMA_WT_DONE_STATUS1",  [20] = "CACC_DONE_STATUS0",
    [21] = "CACC_DONE_STATUS1",
};

const char *dla_intr_bit_name(unsigned bit)
{
    return bit < 32 ? bit_names[bit] : NULL;
}

unsigned dla_intr_bit(enum dla_proc p, int group)
{
    static const unsigned base[DLA_P_COUNT] = {
        [DLA_P_BDMA] = 6, [DLA_P_CONV] = 20, [DLA_P_SDP] = 0,
        [DLA_P_PDP] = 4,  [DLA_P_CDP] = 2,   [DLA_P_RUBIK] = 8,
    };
    return base[p] + (unsigned)(group & 1);
}

uint32_t dla_intr_status(const struct dla *d)
{
    return dla_reg(d, DLA_U_GLB, 0, "S_INTR_STATUS");
}

uint32_t dla_intr_mask(const struct dla *d)
{
    return dla_reg(d, DLA_U_GLB, 0, "S_INTR_MASK");
}

bool dla_intr_line(const struct dla *d)
{
    return (dla_intr_status(d) & ~dla_intr_mask(d)) != 0;
}

void glb_raise(struct dla *d, unsigned bit)
{
    uint32_t status = dla_intr_status(d) | (1u << bit);
    dla_reg_hw_set(d, DLA_U_GLB, 0, "S_INTR_STATUS", status);
    struct dla_event ev = {.kind = DLA_EV_INTR, .layer = -1};
    ev.u.intr.bit = (uint8_t)bit;
    ev.u.intr.status = status;
    ev.u.intr.line = dla_intr_line(d);
    dla_emit(d, &ev);
}

/* S_INTR_SET raises status bits from software; it stores nothing itself. */
static bool glb_write(struct dla *d, const struct regdb_reg *reg, int group, uint32_t value)
{
    (void)group;
    if (regdb_field_named(reg, "SDP_DONE_SET0") == NULL)
        return false;
    value &= reg->write_mask;
    for (unsigned bit = 0; bit < 32; bit++)
        if (value & (1u << bit))
            glb_raise(d, bit);
    return true;
}

static const struct dla_unit_hooks glb_hooks = {.write = glb_write};

/* GLB runs nothing; its entry only gives the CSB its hooks. */
const struct dla_unit_entry glb_unit = {
    .name = "GLB",
    .proc = DLA_P_NONE,
    .n_ports = 1,
    .ports = {{DLA_U_GLB, &glb_hooks}},
    .main = DLA_U_GLB,
    .rdma = DLA_U_NONE,
    .feeds = DLA_P_NONE,
};
