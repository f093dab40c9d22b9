/* Performance counters.  When a stage completes, its model-derived stall and
 * latency figures are written into the unit's D_PERF_* registers (when the
 * unit's perf enable bit is set, as in hardware) and always recorded on the
 * layer, so the debugger can show them whatever the program enabled. */
#include "timing.h"
#include "unit_table.h"

enum perf_source { PERF_STALL, PERF_LATENCY };

struct perf_reg {
    uint8_t proc;
    uint8_t unit;
    bool on_rdma_group; /* lives in the RDMA sub-unit's group */
    const char *enable_reg, *enable_field;
    const char *reg;
    const char *label; /* counter name on the layer record */
    uint8_t source;
    uint8_t client;
};

static const struct perf_reg perf_regs[] = {
    {DLA_P_CONV, DLA_U_CDMA, false, "D_PERF_ENABLE", "DMA_EN", "D_PERF_DAT_READ_STALL",
     "CDMA.D_PERF_DAT_READ_STALL", PERF_STALL, DLA_C_CDMA_DAT},
    {DLA_P_CONV, DLA_U_CDMA, false, "D_PERF_ENABLE", "DMA_EN", "D_PERF_WT_READ_STALL",
     "CDMA.D_PERF_WT_READ_STALL", PERF_STALL, DLA_C_CDMA_WT},
    {DLA_P_CONV, DLA_U_CDMA, false, "D_PERF_ENABLE", "DMA_EN", "D_PERF_DAT_READ_LATENCY",
     "CDMA.D_PERF_DAT_READ_LATENCY", PERF_LATENCY, DLA_C_CDMA_DAT},
    {DLA_P_CONV, DLA_U_CDMA, false, "D_PERF_ENABLE", "DMA_EN", "D_PERF_WT_READ_LATENCY",
     "CDMA.D_PERF_WT_READ_LATENCY", PERF_LATENCY, DLA_C_CDMA_WT},
    {DLA_P_SDP, DLA_U_SDP_RDMA, true, "D_PERF_ENABLE", "PERF_DMA_EN", "D_PERF_MRDMA_READ_STALL",
     "SDP_RDMA.D_PERF_MRDMA_READ_STALL", PERF_STALL, DLA_C_SDP_MRDMA},
    {DLA_P_SDP, DLA_U_SDP_RDMA, true, "D_PERF_ENABLE", "PERF_DMA_EN", "D_PERF_BRDMA_READ_STALL",
     "SDP_RDMA.D_PERF_BRDMA_READ_STALL", PERF_STALL, DLA_C_SDP_BRDMA},
    {DLA_P_SDP, DLA_U_SDP_RDMA, true, "D_PERF_ENABLE", "PERF_DMA_EN", "D_PERF_NRDMA_READ_STALL",
     "SDP_RDMA.D_PERF_NRDMA_READ_STALL", PERF_STALL, DLA_C_SDP_NRDMA},
    {DLA_P_SDP, DLA_U_SDP_RDMA, true, "D_PERF_ENABLE", "PERF_DMA_EN", "D_PERF_ERDMA_READ_STALL",
     "SDP_RDMA.D_PERF_ERDMA_READ_STALL", PERF_STALL, DLA_C_SDP_ERDMA},
    {DLA_P_SDP, DLA_U_SDP, false, "D_PERF_ENABLE", "PERF_DMA_EN", "D_PERF_WDMA_WRITE_STALL",
     "SDP.D_PERF_WDMA_WRITE_STALL", PERF_STALL, DLA_C_SDP_WDMA},
    {DLA_P_PDP, DLA_U_PDP_RDMA, true, "D_PERF_ENABLE", "DMA_EN", "D_PERF_READ_STALL",
     "PDP_RDMA.D_PERF_READ_STALL", PERF_STALL, DLA_C_PDP_RDMA},
    {DLA_P_PDP, DLA_U_PDP, false, "D_PERF_ENABLE", "DMA_EN", "D_PERF_WRITE_STALL",
     "PDP.D_PERF_WRITE_STALL", PERF_STALL, DLA_C_PDP_WDMA},
    {DLA_P_CDP, DLA_U_CDP_RDMA, true, "D_PERF_ENABLE", "DMA_EN", "D_PERF_READ_STALL",
     "CDP_RDMA.D_PERF_READ_STALL", PERF_STALL, DLA_C_CDP_RDMA},
    {DLA_P_CDP, DLA_U_CDP, false, "D_PERF_ENABLE", "DMA_EN", "D_PERF_WRITE_STALL",
     "CDP.D_PERF_WRITE_STALL", PERF_STALL, DLA_C_CDP_WDMA},
    {DLA_P_RUBIK, DLA_U_RBK, false, "D_PERF_ENABLE", "PERF_EN", "D_PERF_READ_STALL",
     "RBK.D_PERF_READ_STALL", PERF_STALL, DLA_C_RBK_RDMA},
    {DLA_P_RUBIK, DLA_U_RBK, false, "D_PERF_ENABLE", "PERF_EN", "D_PERF_WRITE_STALL",
     "RBK.D_PERF_WRITE_STALL", PERF_STALL, DLA_C_RBK_WDMA},
};

void perf_publish(struct dla *d, const struct dla_stage *st)
{
    struct dla_layer *l = layer_at(d, st->layer);
    const struct dla_unit_entry *e = dla_proc_entry(st->proc);
    if (e->publish_perf) {
        e->publish_perf(d, st, l);
        return;
    }
    for (size_t i = 0; i < sizeof perf_regs / sizeof perf_regs[0]; i++) {
        const struct perf_reg *r = &perf_regs[i];
        if (r->proc != st->proc)
            continue;
        int group = r->on_rdma_group ? st->rdma_group : st->group;
        if (group == 0xff)
            continue;
        uint64_t v = r->source == PERF_STALL ? st->client_stall[r->client]
                                             : timing_read_window(d, st, r->client);
        layer_counter(l, r->label, v);
        if (dla_field(d, r->unit, group, r->enable_reg, r->enable_field))
            dla_reg_hw_set(d, r->unit, group, r->reg, dla_sat32(v));
    }
}
