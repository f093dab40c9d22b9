/* The CSB bus: decodes a byte address to a unit and register, routes D_
 * registers to the producer's register group, applies access semantics
 * (read-only, write-one-to-clear), tracks which hardware layer a write
 * programs, and reports every bad access as a diagnostic instead of
 * ignoring it silently. */
#include "unit_table.h"

struct csb_target {
    enum dla_unit unit;
    const struct regdb_unit *ru;
    const struct regdb_reg *reg;
};

/* Decode addr; on failure report why (as a diagnostic of the given verb) and return false. */
static bool decode(struct dla *d, uint32_t addr, const char *verb, struct csb_target *t)
{
    if (addr >= DLA_CSB_RESERVED_FROM) {
        dla_diag(d, DLA_DIAG_CSB_RESERVED, DLA_SEV_ERROR, DLA_U_NONE, addr, NULL,
                 "CSB %s of reserved address 0x%05x (0x14000-0x3ffff is forbidden; the CSB "
                 "space ends at 0x3ffff)",
                 verb, addr);
        return false;
    }
    t->ru = regdb_unit_at(d->map, addr);
    t->unit = t->ru ? dla_unit_of(d, t->ru) : DLA_U_NONE;
    if (!t->ru || t->unit == DLA_U_NONE) {
        dla_diag(d, DLA_DIAG_CSB_UNMAPPED, DLA_SEV_ERROR, DLA_U_NONE, addr, NULL,
                 "CSB %s of unmapped address 0x%05x: no unit decodes it in %s", verb, addr,
                 d->cfg->name);
        return false;
    }
    if (!d->present[t->unit]) {
        dla_diag(d, DLA_DIAG_FEATURE_ABSENT, DLA_SEV_ERROR, t->unit, addr, NULL,
                 "CSB %s of %s at 0x%05x: %s has no %s", verb, dla_unit_name(t->unit), addr,
                 d->cfg->name, dla_unit_name(t->unit));
        return false;
    }
    t->reg = (addr & 3u) ? NULL : regdb_reg_in(t->ru, addr - t->ru->base);
    if (!t->reg) {
        dla_diag(d, DLA_DIAG_CSB_HOLE, DLA_SEV_ERROR, t->unit, addr, NULL,
                 "CSB %s of 0x%05x: %s has no register at offset 0x%03x", verb, addr,
                 dla_unit_name(t->unit), addr - t->ru->base);
        return false;
    }
    return true;
}

/* The register group an access goes to: the producer's for D_ registers,
 * 0 for S_ registers.  Writes, reads and peeks decide it alike. */
static int access_group(const struct dla *d, const struct csb_target *t)
{
    return t->reg->dual ? dla_producer_group(d, t->unit) : 0;
}

/* The DLA_EV_REG_WRITE or DLA_EV_REG_READ event of an access (old: the
 * value before a write; a read reports the value it returned as both). */
static void emit_reg_event(struct dla *d, enum dla_event_kind kind, int32_t layer,
                           const struct csb_target *t, int group, uint32_t addr, uint32_t value,
                           uint32_t old)
{
    struct dla_event ev = {.kind = (uint8_t)kind, .layer = layer};
    ev.u.reg.addr = addr;
    ev.u.reg.value = value;
    ev.u.reg.old = old;
    ev.u.reg.unit = (uint8_t)t->unit;
    ev.u.reg.group = t->reg->dual ? (uint8_t)group : 0xff;
    dla_emit(d, &ev);
}

static uint32_t *storage(struct dla *d, const struct csb_target *t, int group)
{
    unsigned w = t->reg->offset / 4u;
    return t->reg->dual ? &d->dregs[t->unit][group][w] : &d->regs[t->unit][w];
}

/* S_STATUS of a grouped unit: per group IDLE, RUNNING or PENDING (OP_EN set,
 * waiting for the rest of its pipeline or for the other group). */
static uint32_t group_status(const struct dla *d, enum dla_unit u)
{
    enum dla_proc p = dla_unit_proc(u);
    uint32_t v = 0;
    for (int g = 0; g < 2; g++) {
        uint32_t s = 0;
        if (dla_op_enabled(d, u, g)) {
            int32_t li = p != DLA_P_NONE ? d->cur_layer[p][g] : -1;
            const struct dla_layer *l = li >= 0 ? dla_layer_get(d, (size_t)li) : NULL;
            bool running = l && l->state == DLA_LAYER_RUNNING;
            s = running ? 1u : 2u;
        }
        v |= s << (16 * g);
    }
    return v;
}

static bool is_op_enable(const struct csb_target *t)
{
    return t->ru->op_enable != 0xffff && t->reg->offset == t->ru->op_enable;
}

/* A write to a D_ register programs the layer of that processor group. */
static int32_t track_layer(struct dla *d, const struct csb_target *t, int group)
{
    enum dla_proc p = dla_unit_proc(t->unit);
    const struct dla_unit_hooks *h = dla_hooks(t->unit);
    if (h && h->layer_of_write)
        return h->layer_of_write(d, t->reg);
    if (!t->reg->dual || p == DLA_P_NONE)
        return -1;
    int32_t li = layer_ensure(d, p, group);
    layer_at(d, li)->reg_writes++;
    return li;
}

static void op_enabled_written(struct dla *d, const struct csb_target *t, int group, int32_t li)
{
    struct dla_layer *l = layer_at(d, li);
    if (l && l->state == DLA_LAYER_PROGRAMMING) {
        l->state = DLA_LAYER_ENABLED;
        l->enable_cycle = d->now;
    }
    struct dla_event ev = {.kind = DLA_EV_LAYER_ENABLE, .layer = li};
    ev.u.layer.proc = (uint8_t)dla_unit_proc(t->unit);
    ev.u.layer.group = (uint8_t)group;
    ev.u.layer.unit = (uint8_t)t->unit;
    dla_emit(d, &ev);
    pipeline_try_launch(d);
}

/* In the v1 (nv_full) map every DMA address and stride register has one field
 * starting at bit 5 ([31:5], CACC's strides [23:5]), the weight and WMB byte
 * counts at bit 7: the low bits of a written value are not stored and the
 * hardware uses the aligned value.  The programming guide's limitations ask
 * for aligned addresses, strides and sizes (its Table 35), so a write that
 * loses bits is worth a warning; it is stored as the hardware stores it. */
static void check_dropped_low_bits(struct dla *d, const struct csb_target *t, uint32_t addr,
                                   uint32_t value)
{
    const struct regdb_reg *r = t->reg;
    if (r->access != REGDB_RW || r->n_fields != 1 || r->fields[0].lsb == 0)
        return;
    uint32_t below = (1u << r->fields[0].lsb) - 1u;
    if (!(value & below) || (below & r->write_mask))
        return;
    dla_diag(d, DLA_DIAG_RULE, DLA_SEV_WARNING, t->unit, addr, "csb.low_bits_dropped",
             "%s.%s 0x%08x: bits %u:0 are not stored (field %s[%u:%u]), the hardware uses "
             "0x%08x; the programming guide asks for multiples of %u",
             dla_unit_name(t->unit), r->name, value, r->fields[0].lsb - 1u, r->fields[0].name,
             r->fields[0].msb, r->fields[0].lsb, value & ~below & r->write_mask, below + 1u);
}

void dla_csb_write(struct dla *d, uint32_t addr, uint32_t value)
{
    d->csb_debt += d->cfg->csb_write_cycles;
    struct csb_target t;
    if (!decode(d, addr, "write", &t))
        return;
    int group = access_group(d, &t);
    uint32_t *slot = storage(d, &t, group);
    uint32_t old = *slot;
    bool was_enabled = t.reg->dual && dla_op_enabled(d, t.unit, group);

    if (was_enabled)
        dla_diag(d, DLA_DIAG_GROUP_BUSY, DLA_SEV_WARNING, t.unit, addr, "csb.write_enabled_group",
                 "write to %s.%s of group %d while its operation is enabled", dla_unit_name(t.unit),
                 t.reg->name, group);

    int32_t li = track_layer(d, &t, group);
    check_dropped_low_bits(d, &t, addr, value);
    const struct dla_unit_hooks *h = dla_hooks(t.unit);
    bool handled = h && h->write && h->write(d, t.reg, group, value);
    if (!handled) {
        switch (t.reg->access) {
        case REGDB_RO:
            break; /* ignored, as the hardware does (traces write status registers) */
        case REGDB_W1C:
            *slot = old & ~(value & t.reg->write_mask);
            break;
        default:
            *slot = (old & ~t.reg->write_mask) | (value & t.reg->write_mask);
            break;
        }
    }

    emit_reg_event(d, DLA_EV_REG_WRITE, li, &t, group, addr, value, old);

    if (h && h->written)
        h->written(d, t.reg, group, value);
    if (t.reg->dual && is_op_enable(&t) && (value & 1u) && !was_enabled) {
        d->op_enable_at[t.unit][group] = d->now;
        op_enabled_written(d, &t, group, li);
    }
}

/* The value a read returns; side effects only when !peek. */
static uint32_t read_value(struct dla *d, const struct csb_target *t, bool peek)
{
    int group = access_group(d, t);
    uint32_t v;
    const struct dla_unit_hooks *h = dla_hooks(t->unit);
    if (h && h->read && h->read(d, t->reg, group, &v, peek))
        return v;
    if (t->reg->access == REGDB_WO)
        return 0;
    if (d->off_status[t->unit] == t->reg->offset && t->ru->op_enable != 0xffff)
        return group_status(d, t->unit) & t->reg->read_mask;
    return *storage(d, t, group) & t->reg->read_mask;
}

uint32_t dla_csb_read(struct dla *d, uint32_t addr)
{
    d->csb_debt += d->cfg->csb_read_cycles;
    struct csb_target t;
    if (!decode(d, addr, "read", &t))
        return 0;
    uint32_t v = read_value(d, &t, false);
    int group = access_group(d, &t);
    enum dla_proc p = dla_unit_proc(t.unit);
    int32_t li = t.reg->dual && p != DLA_P_NONE ? d->cur_layer[p][group] : -1;
    emit_reg_event(d, DLA_EV_REG_READ, li, &t, group, addr, v, v);
    return v;
}

uint32_t dla_csb_peek(struct dla *d, uint32_t addr)
{
    if (addr >= DLA_CSB_RESERVED_FROM || (addr & 3u))
        return 0;
    struct csb_target t;
    t.ru = regdb_unit_at(d->map, addr);
    t.unit = t.ru ? dla_unit_of(d, t.ru) : DLA_U_NONE;
    if (t.unit == DLA_U_NONE || !d->present[t.unit])
        return 0;
    t.reg = regdb_reg_in(t.ru, addr - t.ru->base);
    return t.reg ? read_value(d, &t, true) : 0;
}
