/* BDMA programming: each transfer of the surface descriptor waits for a free
 * slot (STATUS.FREE_SLOT), is staged in the CFG_ registers and queued with
 * CFG_OP; the launch register of the chosen group starts them all. */
#include "engine_priv.h"

static void bdma_set_producer(struct engine *e, int group, int rdma_group)
{
    /* BDMA has no producer pointer: the launch register names the group */
    (void)e;
    (void)group;
    (void)rdma_group;
}

static bool transfer_valid(struct engine *e, unsigned i, const struct fw_bdma_transfer *t)
{
    const char *bad = NULL;
    if (t->line_repeat == 0 || t->line_repeat > 8192 || t->surface_repeat == 0 ||
        t->surface_repeat > 8192)
        bad = "line and surface repeat must be 1..8192";
    else if (t->line_size == 0 || t->line_size % 32)
        bad = "line size must be a non-zero multiple of 32";
    else if (t->source_line < t->line_size || t->destination_line < t->line_size)
        bad = "line strides must be at least the line size";
    else if ((uint64_t)t->source_surface < (uint64_t)t->source_line * t->line_repeat ||
             (uint64_t)t->destination_surface < (uint64_t)t->destination_line * t->line_repeat)
        bad = "surface strides must hold line_repeat lines";
    if (bad)
        eng_fail(e, "%s: transfer %u: %s", e->where, i, bad);
    return bad == NULL;
}

static int program_transfer(struct engine *e, const struct fw_bdma_surface *s, unsigned i)
{
    const struct fw_bdma_transfer *t = &s->transfers[i];
    uint64_t src, dst;
    /* the firmware waits for a free slot in the queue before each transfer */
    eng_poll(e, R_BDMA_STATUS, eng_field_mask(e, R_BDMA_STATUS, "FREE_SLOT"));
    if (!transfer_valid(e, i, t) || !eng_dma_address(e, t->source_address, 0, &src, NULL) ||
        !eng_dma_address(e, t->destination_address, 0, &dst, NULL))
        return -1;
    eng_write(e, R_BDMA_CFG_SRC_ADDR_LOW, eng_lo32(src));
    eng_write(e, R_BDMA_CFG_SRC_ADDR_HIGH, eng_hi32(src));
    eng_write(e, R_BDMA_CFG_DST_ADDR_LOW, eng_lo32(dst));
    eng_write(e, R_BDMA_CFG_DST_ADDR_HIGH, eng_hi32(dst));
    eng_write(e, R_BDMA_CFG_LINE, (t->line_size >> 5) - 1);
    eng_write(e, R_BDMA_CFG_CMD,
              eng_field(e, R_BDMA_CFG_CMD, "SRC_RAM_TYPE", eng_ram_type(s->source_type)) |
                  eng_field(e, R_BDMA_CFG_CMD, "DST_RAM_TYPE", eng_ram_type(s->destination_type)));
    eng_write(e, R_BDMA_CFG_LINE_REPEAT, t->line_repeat - 1);
    eng_write(e, R_BDMA_CFG_SRC_LINE, t->source_line);
    eng_write(e, R_BDMA_CFG_DST_LINE, t->destination_line);
    eng_write(e, R_BDMA_CFG_SURF_REPEAT, t->surface_repeat - 1);
    eng_write(e, R_BDMA_CFG_SRC_SURF, t->source_surface);
    eng_write(e, R_BDMA_CFG_DST_SURF, t->destination_surface);
    eng_write(e, R_BDMA_CFG_OP, eng_enum(e, R_BDMA_CFG_OP, "EN", "ENABLE"));
    return 0;
}

static int bdma_program(struct engine *e, struct dla *d, struct eng_group *g)
{
    (void)d;
    const struct fw_bdma_surface *s = &g->desc.u.bdma.surface;
    if (!e->cfg->bdma)
        return eng_fail(e, "%s: the %s configuration has no BDMA", e->where, e->cfg->name);
    if (s->num_transfers > FW_MAX_BDMA_TRANSFERS)
        return eng_fail(e, "%s: %u transfers, at most %d", e->where, s->num_transfers,
                        FW_MAX_BDMA_TRANSFERS);
    if (s->source_type > FW_MEM_CV || s->destination_type > FW_MEM_CV)
        return eng_fail(e, "%s: BDMA memory types must be MC or CV", e->where);
    for (unsigned i = 0; i < s->num_transfers; i++)
        if (program_transfer(e, s, i))
            return -1;
    if (s->num_transfers)
        eng_enable_intr(e, (1u << 6) | (1u << 7)); /* BDMA_DONE_MASK0/1 */
    return 0;
}

static void bdma_enable(struct engine *e, struct eng_group *g)
{
    if (g->desc.u.bdma.surface.num_transfers == 0) {
        g->events |= 1u << FW_EV_OP_COMPLETED; /* nothing to move: done in software */
        return;
    }
    if (g->id == 0)
        eng_write(e, R_BDMA_CFG_LAUNCH0, eng_enum(e, R_BDMA_CFG_LAUNCH0, "GRP0_LAUNCH", "YES"));
    else
        eng_write(e, R_BDMA_CFG_LAUNCH1, eng_enum(e, R_BDMA_CFG_LAUNCH1, "GRP1_LAUNCH", "YES"));
}

/* BDMA has one set of staging registers: while the other group is
 * programmed but not launched, programming this one would mix them. */
static bool bdma_is_ready(const struct eng_proc *p, const struct eng_group *g)
{
    const struct eng_group *other = &p->groups[!g->id];
    return !((p->group_status & (1u << other->id)) && !other->active);
}

const struct eng_unit eng_bdma_unit = {
    .name = "BDMA",
    .set_producer = bdma_set_producer,
    .program = bdma_program,
    .enable = bdma_enable,
    .rdma_needed = eng_no_rdma,
    .is_ready = bdma_is_ready,
};
