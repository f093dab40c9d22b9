/* Timing model (see share/timing-model.md).
 *
 * A stage keeps its datapath busy for compute_cycles (reported by its unit
 * from the configuration's throughput) and moves its bytes over the memory
 * interface of each space at bus-width bytes per cycle, the units' read DMA
 * engines a beat every other cycle.  Each memory space has a read and a
 * write channel (AXI's): a stage reserves each for its transfer time in that
 * direction, so stages that overlap in time queue behind each other, and the
 * wait shows up as stall cycles; a unit's reads and writes stream at the
 * same time (the RTL's BDMA copy of 2 KiB takes 148 cycles, not the 64 beats
 * of both directions one after the other plus latency).  A stage then ends
 * after the first-access latency plus the larger of its compute and memory
 * time; a convolution's datapath starts only once its data is in.  Stages
 * of one fused pipeline stream through each other: a consumer ends no
 * earlier than its producer plus a short drain. */
#include "timing.h"
#include "unit_table.h"

unsigned timing_bus_bytes(const struct dla_config *cfg, enum dla_space s)
{
    unsigned bits = (s == DLA_CVSRAM && cfg->sec_bus_bits) ? cfg->sec_bus_bits : cfg->pri_bus_bits;
    return bits / 8u;
}

unsigned timing_latency(const struct dla_config *cfg, enum dla_space s)
{
    return (s == DLA_CVSRAM && cfg->sec_bus_bits) ? cfg->cvsram_read_latency
                                                  : cfg->dram_read_latency;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

uint64_t timing_transfer_cycles(const struct dla_config *cfg, enum dla_space s, uint64_t bytes,
                                uint64_t paced_read_bytes)
{
    uint64_t bus = timing_bus_bytes(cfg, s);
    return ceil_div(bytes, bus) + ceil_div(paced_read_bytes, bus) * (TIMING_PACED_READ_CYCLES - 1);
}

/* The first-access latency a stage pays: the largest of the spaces it uses. */
static uint64_t stage_latency(const struct dla_config *cfg, const struct dla_stage *st)
{
    uint64_t latency = 0;
    for (int s = 0; s < DLA_SPACE_COUNT; s++)
        if ((st->space_bytes[s][0] || st->space_bytes[s][1]) &&
            timing_latency(cfg, (enum dla_space)s) > latency)
            latency = timing_latency(cfg, (enum dla_space)s);
    return latency;
}

/* Reserve the channels for the stage's bytes; returns the cycle its memory
 * traffic ends. */
static uint64_t reserve_buses(struct dla *d, const struct dla_stage *st, uint64_t t0)
{
    uint64_t dma_end = t0;
    for (int s = 0; s < DLA_SPACE_COUNT; s++) {
        for (int w = 0; w < 2; w++) {
            if (!st->space_bytes[s][w])
                continue;
            uint64_t *free_at = &d->bus_free_at[s][w];
            uint64_t begin = *free_at > t0 ? *free_at : t0;
            uint64_t end =
                begin + timing_transfer_cycles(d->cfg, (enum dla_space)s, st->space_bytes[s][w],
                                               w ? 0 : st->paced_read_bytes[s]);
            *free_at = end;
            if (end > dma_end)
                dma_end = end;
        }
    }
    return dma_end;
}

static uint64_t total_bytes(const struct dla_stage *st)
{
    uint64_t n = 0;
    for (int c = 0; c < DLA_C_COUNT; c++)
        n += st->client_bytes[c];
    return n;
}

/* CDMA's data and weight reads are two DMA engines that run at the same time
 * (NVIDIA's cmod starts both request threads at the layer's kickoff): they
 * share their part of the window fairly, so the smaller stream ends first, at
 * twice its own bytes, and the larger at the end of both. */
static bool concurrent_with_next(int c)
{
    return c == DLA_C_CDMA_DAT;
}

/* Clients share the stage's memory window in client order (reads of each
 * unit come before its writes in enum dla_client), each for its share of the
 * bytes, except the concurrent pairs above. */
static void time_clients(struct dla_stage *st, uint64_t t0, uint64_t latency, uint64_t dma_span)
{
    uint64_t total = total_bytes(st);
    uint64_t cum = 0;
    for (int c = 0; c < DLA_C_COUNT; c++) {
        uint64_t a = st->client_bytes[c];
        uint64_t b = c + 1 < DLA_C_COUNT && concurrent_with_next(c) ? st->client_bytes[c + 1] : 0;
        if (!a && !b)
            continue;
        uint64_t start = t0 + latency + dma_span * cum / total;
        uint64_t small = a < b ? a : b;
        cum += a + b;
        uint64_t both_done = t0 + latency + dma_span * cum / total;
        uint64_t small_done = start + dma_span * 2 * small / total;
        st->client_start[c] = start;
        st->client_done[c] = b && a <= b ? small_done : both_done;
        if (b) {
            c++;
            st->client_start[c] = start;
            st->client_done[c] = a && b < a ? small_done : both_done;
        }
    }
}

/* Stall cycles are shared among the clients in proportion to their bytes. */
static void share_stalls(struct dla_stage *st)
{
    uint64_t total = total_bytes(st);
    for (int c = 0; c < DLA_C_COUNT; c++)
        st->client_stall[c] = total ? st->stall_cycles * st->client_bytes[c] / total : 0;
}

/* Pipeline fill beyond the common stage overhead (timing.h), the unit's. */
static uint64_t unit_fill(uint8_t proc)
{
    return dla_proc_entry(proc)->fill_cycles;
}

/* When a client's data is all in (the start of the stage's memory window
 * when it moves nothing). */
static uint64_t client_ready(const struct dla_stage *st, int c, uint64_t window_start)
{
    return st->client_bytes[c] ? st->client_done[c] : window_start;
}

/* Cycles from the end of the first-access latency until the stage's datapath
 * is done: its compute time or its memory time, whichever is longer; a
 * convolution's datapath starts once its data is in and finishes its last
 * kernel group no earlier than its last weights plus that group's work. */
static uint64_t busy_cycles(const struct dla_stage *st, uint64_t t0, uint64_t latency,
                            uint64_t dma_span)
{
    if (!st->compute_waits_data)
        return st->compute_cycles > dma_span ? st->compute_cycles : dma_span;
    uint64_t from = t0 + latency;
    uint64_t data = client_ready(st, DLA_C_CDMA_DAT, from);
    uint64_t weights = client_ready(st, DLA_C_CDMA_WT, from);
    uint64_t end = data + st->compute_cycles;
    if (weights + st->last_group_cycles > end)
        end = weights + st->last_group_cycles;
    return end - from;
}

static void add_ms(struct dla_pipe *p, uint64_t at, uint8_t stage, unsigned bit, bool completes)
{
    p->ms[p->n_ms++] = (struct dla_milestone){
        .at = at, .stage = stage, .intr_bit = (uint8_t)bit, .completes = completes};
}

/* Whether the pipeline's head stage reads memory through an RDMA that
 * starts on its own enable (SDP from memory). */
static bool reads_ahead(const struct dla_pipe *p)
{
    const struct dla_stage *head = &p->stage[0];
    return dla_proc_entry(head->proc)->reads_from_rdma_enable && head->rdma_group != 0xff;
}

/* The cycle the pipeline's work starts: its launch, or, when the head's
 * RDMA was enabled first, that enable, at most TIMING_RDMA_MAX_LEAD cycles
 * before the launch and never before the processor's previous operation
 * completed (until then the RDMA is still reading for that one). */
static uint64_t pipe_start(const struct dla *d, const struct dla_pipe *p)
{
    if (!reads_ahead(p))
        return d->now;
    const struct dla_stage *head = &p->stage[0];
    enum dla_unit rdma = dla_proc_entry(head->proc)->rdma;
    uint64_t at = d->op_enable_at[rdma][head->rdma_group];
    if (d->now > TIMING_RDMA_MAX_LEAD && at < d->now - TIMING_RDMA_MAX_LEAD)
        at = d->now - TIMING_RDMA_MAX_LEAD;
    if (at < d->proc_idle_at[head->proc])
        at = d->proc_idle_at[head->proc];
    return at < d->now ? at : d->now;
}

/* Pipeline fill of a stage beyond the common overhead: its unit's, and for
 * a head that reads memory through its RDMA, the configuration's extra. */
static uint64_t stage_fill(const struct dla *d, const struct dla_pipe *p, uint8_t s)
{
    uint64_t fill = unit_fill(p->stage[s].proc);
    if (s == 0 && reads_ahead(p))
        fill += d->cfg->rdma_head_fill;
    return fill;
}

void timing_plan(struct dla *d, struct dla_pipe *p)
{
    uint64_t t0 = pipe_start(d, p);
    for (uint8_t s = 0; s < p->n_stages; s++) {
        struct dla_stage *st = &p->stage[s];
        st->start = t0;
        uint64_t latency = stage_latency(d->cfg, st);
        uint64_t dma_end = reserve_buses(d, st, t0);
        uint64_t dma_span = dma_end - t0;
        time_clients(st, t0, latency, dma_span);
        uint64_t busy = busy_cycles(st, t0, latency, dma_span);
        st->stall_cycles = busy > st->compute_cycles ? busy - st->compute_cycles : 0;
        share_stalls(st);
        st->end = t0 + latency + busy + TIMING_STAGE_OVERHEAD + stage_fill(d, p, s);
        if (s > 0 && st->end < p->stage[s - 1].end + TIMING_DRAIN)
            st->end = p->stage[s - 1].end + TIMING_DRAIN;
    }
    for (uint8_t s = 0; s < p->n_stages; s++) {
        struct dla_stage *st = &p->stage[s];
        const struct dla_unit_entry *e = dla_proc_entry(st->proc);
        uint64_t at = t0;
        for (unsigned k = 0; k < e->n_client_intrs; k++) {
            const struct dla_client_intr *ci = &e->client_intrs[k];
            if (st->client_done[ci->client])
                at = st->client_done[ci->client];
            add_ms(p, at, s, ci->bit_base + st->group, false);
        }
        add_ms(p, st->end, s, dla_intr_bit(st->proc, st->group), true);
    }
}

uint64_t timing_read_window(const struct dla *d, const struct dla_stage *st, enum dla_client c)
{
    if (!st->client_bytes[c])
        return 0;
    return st->client_done[c] - st->client_start[c] + stage_latency(d->cfg, st);
}

void timing_publish_transfers(struct dla *d, struct dla_pipe *p, uint8_t stage)
{
    const struct dla_stage *st = &p->stage[stage];
    uint64_t t0 = st->start;
    uint64_t latency = stage_latency(d->cfg, st);
    /* each client's transfers run back to back inside its window */
    uint64_t cursor[DLA_C_COUNT];
    for (int c = 0; c < DLA_C_COUNT; c++)
        cursor[c] = st->client_bytes[c] ? st->client_start[c] : t0 + latency;
    for (size_t i = 0; i < p->n_xfers; i++) {
        const struct dla_transfer *t = &p->xfers[i];
        if (t->stage != stage)
            continue;
        uint64_t window = st->client_done[t->client] > cursor[t->client]
                              ? st->client_done[t->client] - cursor[t->client]
                              : 0;
        uint64_t share =
            st->client_bytes[t->client] ? window * t->bytes / st->client_bytes[t->client] : 0;
        struct dla_event ev = {.kind = DLA_EV_DMA, .layer = st->layer};
        ev.u.dma.client = t->client;
        ev.u.dma.space = t->space;
        ev.u.dma.write = t->write;
        ev.u.dma.addr = t->addr;
        ev.u.dma.bytes = t->bytes;
        ev.u.dma.start = cursor[t->client];
        ev.u.dma.end = cursor[t->client] + share;
        cursor[t->client] += share;
        dla_emit(d, &ev);
    }
}

bool dla_network_calibrated(const struct dla_config *cfg)
{
    return cfg->calibrated_networks;
}

bool dla_cycles_calibrated(const struct dla_config *cfg, enum dla_proc p)
{
    /* the units whose layers the calibration set times on this
     * configuration's RTL; the others' datapath figures are estimates */
    return p < DLA_P_COUNT && (cfg->calibrated_units >> p) & 1u;
}
