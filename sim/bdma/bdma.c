/* BDMA: the bridge DMA.  Software stages one transfer in the CFG_ registers
 * and sets CFG_OP.EN, which copies it into one of 20 slots; CFG_LAUNCH0/1
 * starts every staged transfer as group 0/1, and the group's interrupt fires
 * when the last of them has been written (programming guide, BDMA). */
#include <string.h>

#include "bdma.h"
#include "core/timing.h"

/* A whole group moving more than this is a programming error, not a copy
 * anyone wants simulated byte by byte. */
#define BDMA_GROUP_MAX_BYTES (1ull << 30)

/* The trigger registers of the map, found once. */
static const struct dla_bdma_state *triggers(struct dla *d)
{
    struct dla_bdma_state *b = &d->bdma;
    if (!b->cfg_op) {
        const struct regdb_unit *u = d->udb[DLA_U_BDMA];
        b->cfg_op = regdb_reg_named(u, "CFG_OP");
        b->launch[0] = regdb_reg_named(u, "CFG_LAUNCH0");
        b->launch[1] = regdb_reg_named(u, "CFG_LAUNCH1");
        b->cfg_status = regdb_reg_named(u, "CFG_STATUS");
    }
    return b;
}

/* The BDMA layer a write to a BDMA register programs: the one being queued
 * (begun by the first write after a launch), whatever the register. */
static int32_t bdma_layer_of_write(struct dla *d, const struct regdb_reg *reg)
{
    const struct dla_bdma_state *t = triggers(d);
    if (reg == t->cfg_status || reg == t->launch[0] || reg == t->launch[1])
        return d->bdma.programming_layer;
    if (d->bdma.programming_layer < 0)
        d->bdma.programming_layer = layer_begin(d, DLA_P_BDMA, 0xff);
    layer_at(d, d->bdma.programming_layer)->reg_writes++;
    return d->bdma.programming_layer;
}

static struct dla_bdma_op staged_op(const struct dla *d)
{
    struct dla_bdma_op op;
    op.src = dla_reg_addr64(d, DLA_U_BDMA, 0, "CFG_SRC_ADDR_HIGH", "CFG_SRC_ADDR_LOW");
    op.dst = dla_reg_addr64(d, DLA_U_BDMA, 0, "CFG_DST_ADDR_HIGH", "CFG_DST_ADDR_LOW");
    op.line_bytes = dla_field_plus1(d, DLA_U_BDMA, 0, "CFG_LINE", "SIZE") * 32u;
    op.line_repeat = dla_field_plus1(d, DLA_U_BDMA, 0, "CFG_LINE_REPEAT", "NUMBER");
    op.surf_repeat = dla_field_plus1(d, DLA_U_BDMA, 0, "CFG_SURF_REPEAT", "NUMBER");
    op.src_line = dla_reg(d, DLA_U_BDMA, 0, "CFG_SRC_LINE");
    op.dst_line = dla_reg(d, DLA_U_BDMA, 0, "CFG_DST_LINE");
    op.src_surf = dla_reg(d, DLA_U_BDMA, 0, "CFG_SRC_SURF");
    op.dst_surf = dla_reg(d, DLA_U_BDMA, 0, "CFG_DST_SURF");
    op.src_ram = (uint8_t)dla_field(d, DLA_U_BDMA, 0, "CFG_CMD", "SRC_RAM_TYPE");
    op.dst_ram = (uint8_t)dla_field(d, DLA_U_BDMA, 0, "CFG_CMD", "DST_RAM_TYPE");
    return op;
}

static void stage_operation(struct dla *d)
{
    struct dla_bdma_state *b = &d->bdma;
    if (b->n_queued == DLA_BDMA_SLOTS) {
        dla_rule(d, DLA_U_BDMA, "bdma.free_slot",
                 "CFG_OP.EN with no free slot (20 operations already staged); operation dropped "
                 "(poll STATUS.FREE_SLOT first)");
        return;
    }
    b->queued[b->n_queued++] = staged_op(d);
}

static void launch_group(struct dla *d, int g)
{
    struct dla_bdma_state *b = &d->bdma;
    if (b->grp_busy[g]) {
        dla_rule(d, DLA_U_BDMA, "bdma.group_busy",
                 "CFG_LAUNCH%d while group %d is still running; launch ignored", g, g);
        return;
    }
    for (unsigned i = 1; i < b->n_queued; i++) {
        if (b->queued[i].dst_ram != b->queued[0].dst_ram) {
            dla_rule(d, DLA_U_BDMA, "bdma.same_dst_ram",
                     "operations of one BDMA group have different DST_RAM_TYPE (operation %u)", i);
            break;
        }
    }
    for (unsigned i = 0; i < b->n_queued; i++)
        b->ops[g][i] = b->queued[i];
    b->n_ops[g] = b->n_queued;
    b->n_queued = 0;
    b->grp_busy[g] = true;

    int32_t li =
        b->programming_layer >= 0 ? b->programming_layer : layer_begin(d, DLA_P_BDMA, 0xff);
    b->programming_layer = -1;
    struct dla_layer *l = layer_at(d, li);
    l->group = (uint8_t)g;
    l->state = DLA_LAYER_ENABLED;
    l->enable_cycle = d->now;
    d->cur_layer[DLA_P_BDMA][g] = li;
    struct dla_event ev = {.kind = DLA_EV_LAYER_ENABLE, .layer = li};
    ev.u.layer.proc = DLA_P_BDMA;
    ev.u.layer.group = (uint8_t)g;
    ev.u.layer.unit = DLA_U_BDMA;
    dla_emit(d, &ev);
    pipeline_launch_one(d, DLA_P_BDMA, g);
}

/* Side effects of the trigger registers; the values are stored as written
 * (the traces read CFG_OP and CFG_LAUNCH0 back as 1). */
static void bdma_written(struct dla *d, const struct regdb_reg *reg, int group, uint32_t value)
{
    (void)group;
    const struct dla_bdma_state *t = triggers(d);
    if (reg == t->cfg_op && (value & 1u))
        stage_operation(d);
    else if (reg == t->launch[0] && (value & 1u))
        launch_group(d, 0);
    else if (reg == t->launch[1] && (value & 1u))
        launch_group(d, 1);
}

static bool bdma_read(struct dla *d, const struct regdb_reg *reg, int group, uint32_t *value,
                      bool peek)
{
    (void)group;
    (void)peek;
    if (!regdb_reg_is(reg, "STATUS"))
        return false;
    const struct dla_bdma_state *b = &d->bdma;
    bool idle = !b->grp_busy[0] && !b->grp_busy[1] && b->n_queued == 0;
    *value = (uint32_t)(DLA_BDMA_SLOTS - b->n_queued) | (idle ? 1u << 8 : 0) |
             (b->grp_busy[0] ? 1u << 9 : 0) | (b->grp_busy[1] ? 1u << 10 : 0);
    return true;
}

/* The group's last operation is written: it takes a new launch. */
static void bdma_stage_done(struct dla *d, const struct dla_stage *st)
{
    d->bdma.grp_busy[st->group & 1] = false;
    d->bdma.n_ops[st->group & 1] = 0;
}

static void bdma_reset(struct dla *d)
{
    memset(&d->bdma, 0, sizeof d->bdma);
    d->bdma.programming_layer = -1;
}

static uint64_t op_bytes(const struct dla_bdma_op *op)
{
    return (uint64_t)op->line_bytes * op->line_repeat * op->surf_repeat;
}

static int copy_op(struct dla *d, struct dla_exec *x, const struct dla_bdma_op *op, uint8_t *line)
{
    enum dla_space src = dla_ram_space(d, DLA_U_BDMA, op->src_ram);
    enum dla_space dst = dla_ram_space(d, DLA_U_BDMA, op->dst_ram);
    /* lines written one after another are held in one buffer: sized for all
     * of them at the first, it is never grown (and moved) line by line */
    const struct exec_surfaces written = {.line_bytes = op->line_bytes,
                                          .line_stride = op->dst_line,
                                          .surf_stride = op->dst_surf,
                                          .lines = op->line_repeat,
                                          .surfs = op->surf_repeat};
    for (uint32_t s = 0; s < op->surf_repeat; s++) {
        exec_write_expect_surface(x, &written, s);
        for (uint32_t l = 0; l < op->line_repeat; l++) {
            uint64_t from = op->src + (uint64_t)s * op->src_surf + (uint64_t)l * op->src_line;
            uint64_t to = op->dst + (uint64_t)s * op->dst_surf + (uint64_t)l * op->dst_line;
            if (!exec_read(x, DLA_C_BDMA_RD, src, from, line, op->line_bytes) ||
                !exec_write(x, DLA_C_BDMA_WR, dst, to, line, op->line_bytes))
                return -1;
        }
    }
    return 0;
}

static int bdma_execute(struct dla *d, struct dla_exec *x, int group)
{
    const struct dla_bdma_state *b = &d->bdma;
    unsigned n = b->n_ops[group];
    uint64_t total = 0;
    for (unsigned i = 0; i < n; i++)
        total += op_bytes(&b->ops[group][i]);
    exec_desc(x, "bdma %u operation%s, %llu bytes", n, n == 1 ? "" : "s",
              (unsigned long long)total);
    if (total > BDMA_GROUP_MAX_BYTES) {
        dla_rule(d, DLA_U_BDMA, "bdma.size",
                 "BDMA group %d would move %llu bytes (limit %llu); not executed", group,
                 (unsigned long long)total, (unsigned long long)BDMA_GROUP_MAX_BYTES);
        return -1;
    }
    uint8_t line[8192 * 32];
    for (unsigned i = 0; i < n; i++)
        if (copy_op(d, x, &b->ops[group][i], line) != 0)
            return -1;
    exec_compute(x, 0, total);
    return 0;
}

static int bdma_run(struct dla *d, struct dla_exec *x, const struct dla_stage *st,
                    const struct dla_cube *in, struct dla_cube *out)
{
    (void)in;
    (void)out;
    return bdma_execute(d, x, st->group);
}

/* BDMA keeps per-group stall counters in its STATUS_GRPn registers. */
static void bdma_publish(struct dla *d, const struct dla_stage *st, struct dla_layer *l)
{
    static const char *const rd[2] = {"STATUS_GRP0_READ_STALL", "STATUS_GRP1_READ_STALL"};
    static const char *const wr[2] = {"STATUS_GRP0_WRITE_STALL", "STATUS_GRP1_WRITE_STALL"};
    static const char *const rd_label[2] = {"BDMA.STATUS_GRP0_READ_STALL",
                                            "BDMA.STATUS_GRP1_READ_STALL"};
    static const char *const wr_label[2] = {"BDMA.STATUS_GRP0_WRITE_STALL",
                                            "BDMA.STATUS_GRP1_WRITE_STALL"};
    int g = st->group & 1;
    layer_counter(l, rd_label[g], st->client_stall[DLA_C_BDMA_RD]);
    layer_counter(l, wr_label[g], st->client_stall[DLA_C_BDMA_WR]);
    if (dla_field(d, DLA_U_BDMA, 0, "CFG_STATUS", "STALL_COUNT_EN")) {
        dla_reg_hw_set(d, DLA_U_BDMA, 0, rd[g], dla_sat32(st->client_stall[DLA_C_BDMA_RD]));
        dla_reg_hw_set(d, DLA_U_BDMA, 0, wr[g], dla_sat32(st->client_stall[DLA_C_BDMA_WR]));
    }
}

static const struct dla_unit_hooks bdma_hooks = {
    .reset = bdma_reset,
    .read = bdma_read,
    .written = bdma_written,
    .layer_of_write = bdma_layer_of_write,
};

/* The programming-guide rules this unit checks: one row per id it passes to
 * dla_rule() (core/rules.c lists every entry's rows for "info rules"). */
static const struct dla_rule_info bdma_rules[] = {
    {"bdma.free_slot", DLA_U_BDMA, "BDMA programming",
     "stage an operation (CFG_OP.EN) only while STATUS.FREE_SLOT shows a free slot"},
    {"bdma.group_busy", DLA_U_BDMA, "BDMA programming",
     "launch a group (CFG_LAUNCH0/1) only when that group is idle"},
    {"bdma.same_dst_ram", DLA_U_BDMA, "BDMA programming",
     "all operations of one launched group write the same destination RAM type"},
    {"bdma.size", DLA_U_BDMA, "BDMA programming",
     "one group moves no more than the transfer sizes the registers can describe"},
};

static bool bdma_present(const struct dla_config *cfg)
{
    return cfg->bdma;
}

const struct dla_unit_entry bdma_unit = {
    .name = "BDMA",
    .proc = DLA_P_BDMA,
    .present = bdma_present,
    .n_ports = 1,
    .ports = {{DLA_U_BDMA, &bdma_hooks}},
    .main = DLA_U_BDMA,
    .rdma = DLA_U_NONE,
    .self_launched = true,
    .execute = bdma_run,
    .feeds = DLA_P_NONE,
    .fill_cycles = TIMING_BDMA_FILL,
    .stage_done = bdma_stage_done,
    .publish_perf = bdma_publish,
    .rules = bdma_rules,
    .n_rules = sizeof bdma_rules / sizeof bdma_rules[0],
};
