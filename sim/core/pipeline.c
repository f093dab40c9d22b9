/* Pipelines: when every unit an operation needs has OP_EN set in its
 * consumer group, the operation starts.  Fused operations (CONV feeding SDP
 * on the fly, SDP feeding PDP) start together as one pipeline of stages.
 *
 * A stage's datapath is computed when it starts: its unit reads memory then,
 * and its writes are held until the stage completes, at a cycle the timing
 * model (timing.c) derives.  Completion clears OP_EN, moves the consumer
 * pointers, publishes the layer's figures and raises the interrupt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"
#include "unit_table.h"

/* OP_EN set in the group the unit will run next. */
static bool armed(const struct dla *d, enum dla_unit u)
{
    return d->present[u] && dla_op_enabled(d, u, dla_consumer_group(d, u));
}

/* Every unit whose OP_EN the entry's stage consumes is armed. */
static bool entry_armed(const struct dla *d, const struct dla_unit_entry *e)
{
    for (unsigned k = 0; k < e->n_ports; k++)
        if (e->ports[k].unit != e->rdma && !armed(d, e->ports[k].unit))
            return false;
    return true;
}

/* ---------------------------------------------------------------- stage setup */

static struct dla_pipe *free_pipe(struct dla *d, uint8_t *slot)
{
    for (uint8_t i = 0; i < DLA_MAX_PIPES; i++) {
        if (!d->pipe[i].active) {
            *slot = i;
            return &d->pipe[i];
        }
    }
    return NULL;
}

static void add_stage(struct dla *d, struct dla_pipe *p, enum dla_proc proc, int group,
                      int rdma_group)
{
    struct dla_stage *st = &p->stage[p->n_stages];
    memset(st, 0, sizeof *st);
    st->proc = (uint8_t)proc;
    st->group = (uint8_t)group;
    st->rdma_group = (uint8_t)rdma_group;
    st->layer = layer_ensure(d, proc, group);
    st->start = d->now;
    struct dla_layer *l = layer_at(d, st->layer);
    l->state = DLA_LAYER_RUNNING;
    l->start_cycle = d->now;
    if (l->enable_cycle == 0)
        l->enable_cycle = d->now;
    if (p->n_stages > 0)
        l->fed_by = p->stage[p->n_stages - 1].layer;
    if (!dla_proc_entry(proc)->self_launched) /* BDMA runs its groups side by side */
        d->proc_busy[proc] = true;
    p->n_stages++;
}

/* The group of the entry's optional RDMA sub-unit if it is armed, else 0xff. */
static int armed_rdma_group(const struct dla *d, const struct dla_unit_entry *e)
{
    return e->rdma != DLA_U_NONE && armed(d, e->rdma) ? dla_consumer_group(d, e->rdma) : 0xff;
}

/* ---------------------------------------------------------------- execution */

static void exec_stage_init(struct dla_exec *x, struct dla *d, struct dla_pipe *p, uint8_t stage)
{
    x->d = d;
    x->pipe = p;
    x->stage = stage;
    x->failed = false;
    x->write_expect = 0;
}

static int run_stages(struct dla *d, struct dla_pipe *p)
{
    struct dla_exec x[DLA_MAX_STAGES];
    struct dla_cube flow[DLA_MAX_STAGES] = {0};
    const struct dla_cube *in = NULL;
    int rc = 0;
    p->working_bytes = 0;
    for (uint8_t s = 0; s < p->n_stages; s++) {
        struct dla_stage *st = &p->stage[s];
        exec_stage_init(&x[s], d, p, s);
        struct dla_cube *out = s + 1 < p->n_stages ? &flow[s] : NULL;
        if (rc != 0) {
            exec_desc(&x[s], "%s skipped: its input stage failed", dla_proc_name(st->proc));
            continue;
        }
        rc = dla_proc_entry(st->proc)->execute(d, &x[s], st, in, out);
        if (x[s].failed && rc == 0)
            rc = -1;
        in = out;
    }
    for (uint8_t s = 0; s < p->n_stages; s++)
        cube_free(&flow[s]);
    return rc;
}

/* Drop the pending writes of every stage: the computation failed. */
static void discard_writes(struct dla_pipe *p)
{
    for (size_t i = 0; i < p->n_writes; i++)
        free(p->writes[i].data);
    p->n_writes = 0;
}

static void start_pipe(struct dla *d, struct dla_pipe *p, uint8_t slot)
{
    p->active = true;
    for (uint8_t s = 0; s < p->n_stages; s++) {
        struct dla_event ev = {.kind = DLA_EV_LAYER_START, .layer = p->stage[s].layer};
        ev.u.layer.proc = p->stage[s].proc;
        ev.u.layer.group = p->stage[s].group;
        ev.u.layer.unit = DLA_U_NONE;
        dla_emit(d, &ev);
    }
    if (run_stages(d, p) != 0)
        discard_writes(p);
    timing_plan(d, p);
    for (uint8_t m = 0; m < p->n_ms; m++)
        sched_push(d, p->ms[m].at, slot, m);
}

/* ---------------------------------------------------------------- launching */

/* A pipeline is a head stage that reads memory followed by the stages its
 * output flows into on the fly (CONV -> SDP -> PDP).  Every check below only
 * reads registers, so a launch that fails part way has changed nothing. */

/* The next processor of a chain whose stage e runs group g: DLA_P_NONE when
 * e writes memory. */
static enum dla_proc fed_proc(const struct dla *d, const struct dla_unit_entry *e, int g)
{
    if (e->feeds == DLA_P_NONE || (e->output_on_the_fly && !e->output_on_the_fly(d, g)))
        return DLA_P_NONE;
    return e->feeds;
}

/* Whether processor n can take the on-the-fly output now: idle, armed, set
 * to take its input on the fly, and its RDMA armed if it reads memory too.
 * *g and *rg: its group and its RDMA group (0xff none). */
static bool fused_ready(const struct dla *d, const struct dla_unit_entry *n, int *g, int *rg)
{
    if (d->proc_busy[n->proc] || !entry_armed(d, n))
        return false;
    *g = dla_consumer_group(d, n->main);
    if (!n->input_on_the_fly || !n->input_on_the_fly(d, *g))
        return false;
    *rg = 0xff;
    if (n->needs_rdma) {
        *rg = armed_rdma_group(d, n);
        if (n->needs_rdma(d, *g) && *rg == 0xff)
            return false;
    }
    return true;
}

/* Start a pipeline headed by entry e if it and every stage its output
 * flows into can start. */
static bool try_head(struct dla *d, struct dla_pipe *p, const struct dla_unit_entry *e)
{
    if (e->self_launched || !e->execute || d->proc_busy[e->proc] || !entry_armed(d, e))
        return false;
    int g = dla_consumer_group(d, e->main);
    if (e->input_on_the_fly && e->input_on_the_fly(d, g))
        return false; /* waits for the processor feeding it */
    int rg = 0xff;
    if (e->rdma != DLA_U_NONE) {
        rg = armed_rdma_group(d, e);
        if (rg == 0xff)
            return false;
    }
    const struct dla_unit_entry *chain[DLA_MAX_STAGES] = {e};
    int groups[DLA_MAX_STAGES] = {g}, rdma_groups[DLA_MAX_STAGES] = {rg};
    unsigned n = 1;
    for (enum dla_proc next = fed_proc(d, e, g); next != DLA_P_NONE;
         next = fed_proc(d, chain[n - 1], groups[n - 1])) {
        if (n == DLA_MAX_STAGES)
            abort(); /* a board whose fusion chain is longer than a pipeline */
        chain[n] = dla_proc_entry(next);
        if (!fused_ready(d, chain[n], &groups[n], &rdma_groups[n]))
            return false;
        n++;
    }
    for (unsigned s = 0; s < n; s++)
        add_stage(d, p, chain[s]->proc, groups[s], rdma_groups[s]);
    return true;
}

void pipeline_try_launch(struct dla *d)
{
    for (;;) {
        uint8_t slot;
        struct dla_pipe *p = free_pipe(d, &slot);
        if (!p)
            return;
        p->n_stages = 0;
        p->n_ms = 0;
        bool go = false;
        for (size_t i = 0; !go && dla_unit_table[i]; i++)
            go = try_head(d, p, dla_unit_table[i]);
        if (!go)
            return;
        start_pipe(d, p, slot);
    }
}

void pipeline_launch_one(struct dla *d, enum dla_proc proc, int group)
{
    uint8_t slot;
    struct dla_pipe *p = free_pipe(d, &slot);
    if (!p)
        abort(); /* at most two BDMA groups and five other processors are in flight */
    p->n_stages = 0;
    p->n_ms = 0;
    add_stage(d, p, proc, group, 0xff);
    start_pipe(d, p, slot);
}

/* ---------------------------------------------------------------- completion */

static void commit_writes(struct dla *d, struct dla_pipe *p, uint8_t stage)
{
    for (size_t i = 0; i < p->n_writes; i++) {
        struct dla_pending_write *w = &p->writes[i];
        if (w->stage != stage || !w->data)
            continue;
        enum mem_status st = mem_write(d->mem[w->space], w->addr, w->data, w->len);
        if (st != MEM_OK)
            dla_diag(d, DLA_DIAG_MEM, DLA_SEV_ERROR, DLA_U_NONE, 0, NULL,
                     "%s write of %zu bytes at %s 0x%llx failed: %s", dla_client_name(w->client),
                     w->len, dla_space_name(w->space), (unsigned long long)w->addr,
                     mem_status_str(st));
        free(w->data);
        w->data = NULL;
    }
}

static void release_units(struct dla *d, const struct dla_unit_entry *e, const struct dla_stage *st)
{
    if (!e->self_launched) {
        for (unsigned k = 0; k < e->n_ports; k++) {
            if (e->ports[k].unit == e->rdma)
                continue;
            dla_op_clear(d, e->ports[k].unit, st->group);
            dla_flip_consumer(d, e->ports[k].unit);
        }
        if (st->rdma_group != 0xff) {
            dla_op_clear(d, e->rdma, st->rdma_group);
            dla_flip_consumer(d, e->rdma);
        }
    }
    d->proc_busy[st->proc] = false;
    d->proc_idle_at[st->proc] = d->now;
}

static void complete_stage(struct dla *d, struct dla_pipe *p, uint8_t s)
{
    struct dla_stage *st = &p->stage[s];
    const struct dla_unit_entry *e = dla_proc_entry(st->proc);
    commit_writes(d, p, s);
    timing_publish_transfers(d, p, s);
    struct dla_layer *l = layer_at(d, st->layer);
    l->state = DLA_LAYER_DONE;
    l->end_cycle = d->now;
    l->compute_cycles = st->compute_cycles;
    l->stall_cycles = st->stall_cycles;
    perf_publish(d, st);
    layer_counters_settle(d, l);
    if (l->lut) {
        struct dla_event lev = {.kind = DLA_EV_LUT, .layer = st->layer};
        lev.u.lut.unit = (uint8_t)e->main;
        lev.u.lut.stats = l->lut;
        dla_emit(d, &lev);
    }
    struct dla_event pev = {.kind = DLA_EV_PERF, .layer = st->layer};
    pev.u.perf.layer = l;
    dla_emit(d, &pev);
    release_units(d, e, st);
    if (e->stage_done)
        e->stage_done(d, st);
    struct dla_event ev = {.kind = DLA_EV_LAYER_DONE, .layer = st->layer};
    ev.u.layer.proc = st->proc;
    ev.u.layer.group = st->group;
    ev.u.layer.unit = DLA_U_NONE;
    dla_emit(d, &ev);
}

static bool pipe_finished(const struct dla_pipe *p)
{
    for (uint8_t s = 0; s < p->n_stages; s++)
        if (!p->stage[s].done)
            return false;
    return true;
}

void pipeline_free(struct dla_pipe *p)
{
    discard_writes(p);
    free(p->writes);
    free(p->xfers);
    memset(p, 0, sizeof *p);
}

void pipeline_process_milestone(struct dla *d, uint8_t slot, uint8_t ms)
{
    struct dla_pipe *p = &d->pipe[slot];
    const struct dla_milestone *m = &p->ms[ms];
    if (!p->active)
        return;
    if (m->completes) {
        complete_stage(d, p, m->stage);
        p->stage[m->stage].done = true;
    }
    if (m->intr_bit != 0xff)
        glb_raise(d, m->intr_bit);
    if (pipe_finished(p))
        pipeline_free(p);
    pipeline_try_launch(d);
}

/* ---------------------------------------------------------------- exec services */

struct dla_layer *exec_layer(struct dla_exec *x)
{
    return layer_at(x->d, x->pipe->stage[x->stage].layer);
}

/* Record one DMA access of the stage, merging it into the previous transfer
 * of the same client when it continues it, so that a unit reading a surface
 * line by line produces one transfer per contiguous run. */
static void account(struct dla_exec *x, enum dla_client c, enum dla_space s, bool write,
                    uint64_t addr, size_t len)
{
    struct dla *d = x->d;
    struct dla_stage *st = &x->pipe->stage[x->stage];
    uint64_t bus_bytes = timing_bus_bytes(d->cfg, s);
    uint64_t tx = (len + bus_bytes - 1) / bus_bytes;
    st->client_bytes[c] += len;
    st->client_transactions[c] += tx;
    st->space_bytes[s][write] += len;
    if (!write && c != DLA_C_BDMA_RD && c != DLA_C_HOST)
        st->paced_read_bytes[s] += len;
    d->client_bytes[c] += len;
    d->client_transactions[c] += tx;
    struct dla_layer *l = exec_layer(x);
    layer_client_add(l, c, len, tx);
    if (write)
        l->bytes_written += len;
    else
        l->bytes_read += len;
    if (s == DLA_CVSRAM) {
        l->bytes_cvsram += len;
        d->client_cvsram_bytes[c] += len;
    }

    struct dla_pipe *p = x->pipe;
    for (size_t i = p->n_xfers; i-- > 0;) {
        struct dla_transfer *t = &p->xfers[i];
        if (t->stage != x->stage || t->client != c)
            continue;
        if (t->space == s && t->write == write && t->addr + t->bytes == addr) {
            t->bytes += len;
            return;
        }
        break;
    }
    p->xfers = dla_grow(p->xfers, p->n_xfers, &p->cap_xfers, 16, sizeof *p->xfers);
    p->xfers[p->n_xfers++] = (struct dla_transfer){.stage = x->stage,
                                                   .client = (uint8_t)c,
                                                   .space = (uint8_t)s,
                                                   .write = write,
                                                   .addr = addr,
                                                   .bytes = len};
}

static bool space_ok(struct dla_exec *x, enum dla_client c, enum dla_space s)
{
    if (s == DLA_CVSRAM && !x->d->cfg->cvsram) {
        dla_diag(x->d, DLA_DIAG_FEATURE_ABSENT, DLA_SEV_ERROR, DLA_U_NONE, 0, NULL,
                 "%s accesses CV-SRAM but %s has none", dla_client_name(c), x->d->cfg->name);
        x->failed = true;
        return false;
    }
    return true;
}

bool exec_read(struct dla_exec *x, enum dla_client c, enum dla_space s, uint64_t addr, void *buf,
               size_t len)
{
    if (!space_ok(x, c, s)) {
        memset(buf, 0, len);
        return false;
    }
    enum mem_status st = mem_read(x->d->mem[s], addr, buf, len);
    if (st != MEM_OK) {
        memset(buf, 0, len);
        dla_diag(x->d, DLA_DIAG_MEM, DLA_SEV_ERROR, DLA_U_NONE, 0, NULL,
                 "%s read of %zu bytes at %s 0x%llx: %s", dla_client_name(c), len,
                 dla_space_name(s), (unsigned long long)addr, mem_status_str(st));
        x->failed = true;
        return false;
    }
    account(x, c, s, false, addr, len);
    return true;
}

/* Room for `bytes` more of the pipeline's working memory; false with a
 * diagnostic naming what and the sizes when it would exceed the budget. */
static bool working_room(struct dla_exec *x, enum dla_unit unit, uint64_t bytes, const char *what)
{
    uint64_t budget = x->d->working_budget, held = x->pipe->working_bytes;
    if (bytes <= budget && held <= budget - bytes)
        return true;
    dla_diag(x->d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, unit, 0, NULL,
             "%s: %llu bytes of host memory beside the %llu the layer holds would exceed the "
             "working budget of %llu bytes per layer; layer not computed (check the cube sizes)",
             what, (unsigned long long)bytes, (unsigned long long)held,
             (unsigned long long)budget);
    x->failed = true;
    return false;
}

bool exec_working(struct dla_exec *x, enum dla_unit unit, uint64_t bytes, const char *what)
{
    return working_room(x, unit, bytes, what);
}

/* w x h x c x n values of 4 bytes, saturating (cube_alloc refuses the
 * dimensions that would wrap). */
static uint64_t cube_bytes(uint32_t w, uint32_t h, uint32_t c, uint32_t n)
{
    uint64_t bytes = sizeof(int32_t);
    const uint32_t dims[4] = {w, h, c, n};
    for (int i = 0; i < 4; i++) {
        if (dims[i] && bytes > UINT64_MAX / dims[i])
            return UINT64_MAX;
        bytes *= dims[i];
    }
    return bytes;
}

bool exec_cube_alloc(struct dla_exec *x, enum dla_unit unit, struct dla_cube *cb, uint32_t w,
                     uint32_t h, uint32_t c, uint32_t n, enum dla_cube_kind kind,
                     const char *what)
{
    *cb = (struct dla_cube){0};
    uint64_t bytes = cube_bytes(w, h, c, n);
    if (!working_room(x, unit, bytes, what))
        return false;
    if (!cube_alloc(cb, w, h, c, n, kind)) {
        dla_diag(x->d, DLA_DIAG_MEM, DLA_SEV_ERROR, unit, 0, NULL,
                 "out of host memory for %s (%ux%ux%u x%u, %llu bytes)", what, w, h, c, n,
                 (unsigned long long)bytes);
        x->failed = true;
        return false;
    }
    x->pipe->working_bytes += bytes;
    return true;
}

void exec_cube_free(struct dla_exec *x, struct dla_cube *cb)
{
    if (cb->v) {
        uint64_t bytes = cube_bytes(cb->w, cb->h, cb->c, cb->n);
        x->pipe->working_bytes -= bytes < x->pipe->working_bytes ? bytes : x->pipe->working_bytes;
    }
    cube_free(cb);
}

/* A held write's bytes could not be allocated: running out of host memory
 * is the run's error like any other, named, not an abort(). */
static bool write_out_of_memory(struct dla_exec *x, enum dla_client c, enum dla_space s,
                                uint64_t addr, size_t bytes)
{
    dla_diag(x->d, DLA_DIAG_MEM, DLA_SEV_ERROR, DLA_U_NONE, 0, NULL,
             "out of host memory holding %zu bytes of %s's write at %s 0x%llx until the layer "
             "completes; layer not computed",
             bytes, dla_client_name(c), dla_space_name(s), (unsigned long long)addr);
    x->failed = true;
    return false;
}

bool exec_write(struct dla_exec *x, enum dla_client c, enum dla_space s, uint64_t addr,
                const void *buf, size_t len)
{
    if (!space_ok(x, c, s))
        return false;
    if (!mem_in_range(x->d->mem[s], addr, len)) {
        dla_diag(x->d, DLA_DIAG_MEM, DLA_SEV_ERROR, DLA_U_NONE, 0, NULL,
                 "%s write of %zu bytes at %s 0x%llx: %s", dla_client_name(c), len,
                 dla_space_name(s), (unsigned long long)addr, mem_status_str(MEM_OUT_OF_RANGE));
        x->failed = true;
        return false;
    }
    struct dla_pipe *p = x->pipe;
    uint64_t expect = x->write_expect;
    x->write_expect = 0;
    struct dla_pending_write *last = p->n_writes ? &p->writes[p->n_writes - 1] : NULL;
    if (last && last->stage == x->stage && last->space == s && last->client == c &&
        last->addr + last->len == addr && last->data) {
        /* doubling: a DMA of many short contiguous lines (BDMA) appends in
         * linear time, not one reallocation and copy per line */
        if (len > last->cap - last->len) {
            size_t cap = last->cap ? last->cap : 1;
            while (cap - last->len < len)
                cap *= 2;
            if (!working_room(x, DLA_U_NONE, cap - last->cap, dla_client_name(c)))
                return false;
            uint8_t *grown = realloc(last->data, cap);
            if (!grown)
                return write_out_of_memory(x, c, s, addr, cap);
            p->working_bytes += cap - last->cap;
            last->data = grown;
            last->cap = cap;
        }
        memcpy(last->data + last->len, buf, len);
        last->len += len;
    } else {
        size_t cap = expect > len ? (size_t)expect : (len ? len : 1);
        if (!working_room(x, DLA_U_NONE, cap, dla_client_name(c)))
            return false;
        p->writes = dla_grow(p->writes, p->n_writes, &p->cap_writes, 16, sizeof *p->writes);
        uint8_t *data = malloc(cap);
        if (!data)
            return write_out_of_memory(x, c, s, addr, cap);
        p->working_bytes += cap;
        memcpy(data, buf, len);
        p->writes[p->n_writes++] = (struct dla_pending_write){.stage = x->stage,
                                                              .space = (uint8_t)s,
                                                              .client = (uint8_t)c,
                                                              .addr = addr,
                                                              .len = len,
                                                              .cap = cap,
                                                              .data = data};
    }
    account(x, c, s, true, addr, len);
    return true;
}

void exec_write_expect(struct dla_exec *x, uint64_t bytes)
{
    x->write_expect = bytes;
}

void exec_write_expect_surface(struct dla_exec *x, const struct exec_surfaces *s, uint64_t surf)
{
    /* a surface of one line is packed whatever its line stride */
    bool lines_packed = s->lines <= 1 || s->line_stride == s->line_bytes;
    uint64_t surf_bytes = s->line_bytes * s->lines;
    bool surfs_packed = s->surf_stride == surf_bytes;
    if (lines_packed && (surf == 0 || !surfs_packed))
        exec_write_expect(x, surfs_packed ? surf_bytes * s->surfs : surf_bytes);
}

bool exec_budget(struct dla_exec *x, enum dla_unit unit, uint64_t ops, const char *what)
{
    if (ops <= x->d->work_budget)
        return true;
    dla_diag(x->d, DLA_DIAG_UNSUPPORTED, DLA_SEV_ERROR, unit, 0, NULL,
             "%s is too large to simulate: %llu operations (int8-MAC equivalents), budget %llu "
             "per layer; layer not computed (check the cube sizes)",
             what, (unsigned long long)ops, (unsigned long long)x->d->work_budget);
    x->failed = true;
    return false;
}

void exec_compute(struct dla_exec *x, uint64_t cycles, uint64_t ops)
{
    struct dla_stage *st = &x->pipe->stage[x->stage];
    st->compute_cycles += cycles;
    st->macs += ops;
    exec_layer(x)->macs += ops;
}

void exec_conv_schedule(struct dla_exec *x, uint64_t last_group_cycles)
{
    struct dla_stage *st = &x->pipe->stage[x->stage];
    st->compute_waits_data = true;
    st->last_group_cycles = last_group_cycles;
}

void exec_desc(struct dla_exec *x, const char *fmt, ...)
{
    char text[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    layer_desc(x->d, exec_layer(x), text);
}

void exec_lut_stats(struct dla_exec *x, const struct dla_lut_stats *s)
{
    layer_lut_stats(exec_layer(x), s);
}

void exec_counter(struct dla_exec *x, const char *name, uint64_t value)
{
    layer_counter(exec_layer(x), name, value);
}
