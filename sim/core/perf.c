/* Performance counters.  When a stage completes, its model-derived stall and
 * latency figures are written into the unit's D_PERF_* registers (when the
 * unit's perf enable bit is set, as in hardware) and always recorded on the
 * layer, so the debugger can show them whatever the program enabled. */
#include "timing.h"
#include "unit_table.h"

void perf_publish(struct dla *d, const struct dla_stage *st)
{
    struct dla_layer *l = layer_at(d, st->layer);
    const struct dla_unit_entry *e = dla_proc_entry(st->proc);
    if (e->publish_perf) {
        e->publish_perf(d, st, l);
        return;
    }
    for (size_t i = 0; i < e->n_perf_regs; i++) {
        const struct dla_perf_reg *r = &e->perf_regs[i];
        int group = r->on_rdma_group ? st->rdma_group : st->group;
        if (group == 0xff)
            continue;
        uint64_t v = r->source == DLA_PERF_STALL ? st->client_stall[r->client]
                                                 : timing_read_window(d, st, r->client);
        layer_counter(l, r->label, v);
        if (dla_field(d, r->unit, group, r->enable_reg, r->enable_field))
            dla_reg_hw_set(d, r->unit, group, r->reg, dla_sat32(v));
    }
}
