/* Engine scheduler (see engine.h).
 *
 * Why deciding when an action is generated, not when it is executed, is
 * safe: the engine reads hardware state (consumer pointers, S_STATUS, BDMA
 * status, GLB.S_INTR_STATUS) only to choose register groups, to check that a
 * group is idle and to learn which interrupts came.  Those change only when
 * hardware time passes, and time does not pass while the session executes a
 * batch of queued actions, except in a poll (the CBUF flush, a BDMA free
 * slot).  Each read action carries the bits the choice rested on, and the
 * driver reports it should the executed read disagree.  The values the KMD
 * writes back from a read (GLB.S_INTR_MASK) are computed from the executed
 * read, as the firmware's read-modify-write does. */
#include "engine_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

static const char *const reg_names[R_COUNT] = {
#define X(unit, reg) #unit "." #reg,
    ENG_REGS(X)
#undef X
};

static const struct eng_unit *const units[FW_OP_TYPES] = {
    &eng_bdma_unit, &eng_conv_unit, &eng_sdp_unit, &eng_pdp_unit, &eng_cdp_unit, &eng_rubik_unit,
};

/* GLB S_INTR_STATUS bits and the group event they mean (reference 3.4). */
struct intr_source {
    uint8_t bit, proc, group, event;
};

static const struct intr_source intr_sources[] = {
    {0, FW_OP_SDP, 0, FW_EV_OP_COMPLETED},   {1, FW_OP_SDP, 1, FW_EV_OP_COMPLETED},
    {2, FW_OP_CDP, 0, FW_EV_OP_COMPLETED},   {3, FW_OP_CDP, 1, FW_EV_OP_COMPLETED},
    {4, FW_OP_PDP, 0, FW_EV_OP_COMPLETED},   {5, FW_OP_PDP, 1, FW_EV_OP_COMPLETED},
    {6, FW_OP_BDMA, 0, FW_EV_OP_COMPLETED},  {7, FW_OP_BDMA, 1, FW_EV_OP_COMPLETED},
    {8, FW_OP_RUBIK, 0, FW_EV_OP_COMPLETED}, {9, FW_OP_RUBIK, 1, FW_EV_OP_COMPLETED},
    {16, FW_OP_CONV, 0, FW_EV_CDMA_DT_DONE}, {17, FW_OP_CONV, 1, FW_EV_CDMA_DT_DONE},
    {18, FW_OP_CONV, 0, FW_EV_CDMA_WT_DONE}, {19, FW_OP_CONV, 1, FW_EV_CDMA_WT_DONE},
    {20, FW_OP_CONV, 0, FW_EV_OP_COMPLETED}, {21, FW_OP_CONV, 1, FW_EV_OP_COMPLETED},
};

/* ---------------------------------------------------------------- lifecycle */

struct engine *engine_create(struct dla *d, struct report *rep, char *err, size_t errlen)
{
    struct engine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    e->rep = rep;
    e->cfg = dla_cfg(d);
    const struct regdb_map *map = dla_regmap(d);
    for (int r = 0; r < R_COUNT; r++) {
        struct regdb_ref ref;
        /* units absent from a map (BDMA, RUBIK on small configurations)
         * leave their registers unresolved; programming them is refused */
        if (regdb_resolve(map, reg_names[r], &ref)) {
            e->reg[r] = ref.reg;
            e->reg_addr[r] = regdb_addr(ref.unit, ref.reg);
            e->reg_present[r] = true;
        }
    }
    return e;
}

void engine_destroy(struct engine *e)
{
    if (!e)
        return;
    free(e->deps);
    free(e->q);
    free(e->log);
    free(e);
}

static void *dup_array(const void *src, size_t n, size_t size, bool *ok)
{
    if (!src || n == 0)
        return NULL;
    void *p = malloc(n * size);
    if (!p) {
        *ok = false;
        return NULL;
    }
    memcpy(p, src, n * size);
    return p;
}

bool engine_copy(struct engine *dst, const struct engine *src)
{
    bool ok = true;
    struct fw_common_op *deps = dup_array(src->deps, src->n_desc, sizeof *deps, &ok);
    struct eng_action *q = dup_array(src->q, src->q_len, sizeof *q, &ok);
    struct eng_log *log = dup_array(src->log, src->n_log, sizeof *log, &ok);
    if (!ok) {
        free(deps);
        free(q);
        free(log);
        return false;
    }
    free(dst->deps);
    free(dst->q);
    free(dst->log);
    *dst = *src;
    dst->deps = deps;
    dst->q = q;
    dst->q_cap = src->q_len;
    dst->log = log;
    dst->cap_log = src->n_log;
    return true;
}

size_t engine_bytes(const struct engine *e)
{
    return sizeof *e + e->n_desc * sizeof *e->deps + e->q_cap * sizeof *e->q +
           e->cap_log * sizeof *e->log;
}

struct engine *engine_clone(const struct engine *e)
{
    struct engine *c = calloc(1, sizeof *c);
    if (c && !engine_copy(c, e)) {
        free(c);
        return NULL;
    }
    return c;
}

/* ---------------------------------------------------------------- helpers */

int eng_fail(struct engine *e, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!e->failed) {
        char task[32]; /* messages placed by e->where name the task already */
        snprintf(task, sizeof task, "task %u", e->task);
        bool named = strncmp(msg, task, strlen(task)) == 0;
        report_msg(e->rep, REPORT_ERROR, "%s%s%s%s%s%s%s%s", e->rt ? e->rt->ld->name : "",
                   e->rt ? ": " : "", named ? "" : task, named ? "" : ": ", msg,
                   e->place[0] ? " [" : "", e->place, e->place[0] ? "]" : "");
        if (e->rep)
            e->rep->input_errors++;
    }
    e->failed = true;
    return -1;
}

/* Name what is read next by its place in the loadable (see struct engine). */
static void set_place(struct engine *e, const char *what, const struct eng_buffer *b, uint64_t off)
{
    char loc[320];
    runtime_locate(e->rt, e->task, b->index, off, loc, sizeof loc);
    snprintf(e->place, sizeof e->place, "%s at %s", what, loc);
}

static bool push_action(struct engine *e, const struct eng_action *a)
{
    if (e->q_head == e->q_len) {
        e->q_head = e->q_len = 0; /* drained: reuse from the start */
    }
    struct eng_action *q = grow_for_one(e->q, e->q_len, &e->q_cap, 256, sizeof *q);
    if (!q) {
        eng_fail(e, "out of memory queueing register writes");
        return false;
    }
    e->q = q;
    e->q[e->q_len++] = *a;
    return true;
}

void eng_write(struct engine *e, enum eng_reg r, uint32_t value)
{
    if (e->failed)
        return;
    if (!e->reg_present[r]) {
        eng_fail(e, "register %s does not exist in the %s configuration", reg_names[r],
                 e->cfg->name);
        return;
    }
    struct eng_action a = {.kind = ENG_ACT_WRITE,
                           .addr = e->reg_addr[r],
                           .value = value,
                           .op = e->where_op,
                           .op_type = e->where_type};
    snprintf(a.where, sizeof a.where, "%s", e->where);
    push_action(e, &a);
}

/* Reads, polls and modified writes: queued like writes (see eng_write). */
static void queue_access(struct engine *e, const struct eng_action *proto)
{
    if (e->failed)
        return;
    struct eng_action a = *proto;
    a.op = e->where_op;
    a.op_type = e->where_type;
    snprintf(a.where, sizeof a.where, "%s", e->where);
    push_action(e, &a);
}

void eng_poll(struct engine *e, enum eng_reg r, uint32_t awaited)
{
    queue_access(
        e, &(struct eng_action){.kind = ENG_ACT_POLL, .addr = e->reg_addr[r], .mask = awaited});
}

/* A field the engine names must exist: a missing one is a bug in the engine,
 * reported rather than silently written as 0. */
static const struct regdb_field *field_of(struct engine *e, enum eng_reg r, const char *field)
{
    if (!e->reg_present[r])
        return NULL;
    const struct regdb_field *f = regdb_field_named(e->reg[r], field);
    if (!f)
        eng_fail(e, "internal: register %s has no field %s", reg_names[r], field);
    return f;
}

uint32_t eng_field(struct engine *e, enum eng_reg r, const char *field, uint32_t value)
{
    const struct regdb_field *f = field_of(e, r, field);
    return f ? regdb_field_set(f, 0, value) : 0;
}

uint32_t eng_enum(struct engine *e, enum eng_reg r, const char *field, const char *name)
{
    const struct regdb_field *f = field_of(e, r, field);
    uint32_t v = 0;
    if (!f)
        return 0;
    if (!regdb_enum_value(f, name, &v)) {
        eng_fail(e, "internal: field %s.%s has no value %s", reg_names[r], field, name);
        return 0;
    }
    return regdb_field_set(f, 0, v);
}

void eng_write_field(struct engine *e, enum eng_reg r, const char *field, uint32_t value)
{
    eng_write(e, r, eng_field(e, r, field, value));
}

void eng_set_producer(struct engine *e, enum eng_reg pointer, int group)
{
    eng_write_field(e, pointer, "PRODUCER", (uint32_t)group);
}

void eng_op_enable(struct engine *e, enum eng_reg op_enable)
{
    eng_write(e, op_enable, eng_enum(e, op_enable, "OP_EN", "ENABLE"));
}

bool eng_always_ready(const struct eng_proc *p, const struct eng_group *g)
{
    (void)p;
    (void)g;
    return true;
}

bool eng_no_rdma(const struct fw_op *op)
{
    (void)op;
    return false;
}

uint32_t eng_read(struct engine *e, struct dla *d, enum eng_reg r, uint32_t decided_bits)
{
    if (!e->reg_present[r])
        return 0;
    uint32_t v = dla_csb_peek(d, e->reg_addr[r]);
    queue_access(e, &(struct eng_action){.kind = ENG_ACT_READ,
                                         .addr = e->reg_addr[r],
                                         .check_mask = decided_bits,
                                         .check_value = v & decided_bits});
    return v;
}

uint32_t eng_field_mask(struct engine *e, enum eng_reg r, const char *field)
{
    return eng_field(e, r, field, 0xffffffffu);
}

void eng_enable_intr(struct engine *e, uint32_t mask)
{
    enum eng_reg r = R_GLB_S_INTR_MASK;
    queue_access(e, &(struct eng_action){.kind = ENG_ACT_READ, .addr = e->reg_addr[r]});
    queue_access(
        e, &(struct eng_action){.kind = ENG_ACT_MODIFY, .addr = e->reg_addr[r], .mask = mask});
}

bool eng_dma_address(struct engine *e, int16_t index, uint32_t offset, uint64_t *addr,
                     uint8_t *space)
{
    enum dla_space s;
    if (index < 0 || !runtime_task_address(e->rt, e->task, index, &s, addr)) {
        eng_fail(e, "%s: address index %d is not in the task's address list (%u entries)", e->where,
                 index, e->rt->ld->tasks[e->task].n_addresses);
        return false;
    }
    *addr += offset;
    if (space)
        *space = (uint8_t)s;
    return true;
}

static void log_event(struct engine *e, uint8_t kind, const struct eng_proc *p, uint8_t group,
                      int16_t op, uint8_t event)
{
    struct eng_log *l = grow_for_one(e->log, e->n_log, &e->cap_log, 64, sizeof *l);
    if (!l)
        return;
    e->log = l;
    e->log[e->n_log++] = (struct eng_log){
        .kind = kind, .op_type = p->type, .group = group, .event = event, .op = op};
}

static void set_where(struct engine *e, const struct eng_proc *p, const struct eng_group *g)
{
    snprintf(e->where, sizeof e->where, "task %u op %d %s group %u", e->task, g->op,
             fw_op_type_name(p->type), g->id);
    e->where_op = g->op;
    e->where_type = p->type;
}

/* ---------------------------------------------------------------- memory reads */

/* The processor path: buffer of a task address index, read at a byte offset
 * (the address entry's own offset is not added; reference 3.1). */
static bool resolve_buffer(struct engine *e, int16_t index, struct eng_buffer *b, const char *what)
{
    enum dla_space s;
    b->index = index;
    if (index < 0 || !runtime_task_buffer(e->rt, e->task, index, &s, &b->base, &b->size)) {
        eng_fail(e, "network descriptor: %s index %d is not in the task's address list", what,
                 index);
        return false;
    }
    b->space = (uint8_t)s;
    return true;
}

static bool read_buffer(struct engine *e, struct dla *d, const struct eng_buffer *b, uint64_t off,
                        void *out, size_t len, const char *what)
{
    if (off > b->size || len > b->size - off) {
        eng_fail(e, "%s: %zu bytes at offset %llu lie outside the buffer (%llu bytes)", what, len,
                 (unsigned long long)off, (unsigned long long)b->size);
        return false;
    }
    if (dla_mem_read(d, (enum dla_space)b->space, b->base + off, out, len) != MEM_OK) {
        eng_fail(e, "%s: cannot read simulated memory", what);
        return false;
    }
    return true;
}

bool eng_read_lut(struct engine *e, struct dla *d, int16_t index, struct fw_lut *lut)
{
    uint8_t raw[FW_LUT_SIZE];
    if (index < 0 || index >= e->net.num_luts) {
        eng_fail(e, "%s: LUT index %d outside the LUT list (%u entries)", e->where, index,
                 e->net.num_luts);
        return false;
    }
    set_place(e, "LUT list entry", &e->luts, (uint64_t)FW_LUT_SIZE * (uint64_t)index);
    if (!read_buffer(e, d, &e->luts, (uint64_t)FW_LUT_SIZE * (uint64_t)index, raw, sizeof raw,
                     "LUT list"))
        return false;
    fw_decode_lut(raw, lut);
    return true;
}

static struct fw_common_op *desc_of(struct engine *e, int16_t index, uint8_t roi)
{
    if (index < 0 || index >= e->net.num_operations || roi >= e->net.num_rois)
        return NULL;
    return &e->deps[(uint32_t)e->net.num_operations * roi + (uint32_t)index];
}

/* ---------------------------------------------------------------- scheduling */

static int enable_operation(struct engine *e, struct dla *d, struct fw_common_op *op);

static int update_dependency(struct engine *e, struct dla *d, const struct fw_consumer *c,
                             uint8_t expected_type, uint8_t roi, uint8_t event)
{
    if (c->index == -1 || c->event != event)
        return 0;
    struct fw_common_op *target = desc_of(e, c->index, roi);
    if (!target)
        return eng_fail(e, "dependency graph: consumer index %d outside the %u operations",
                        c->index, e->net.num_operations);
    if (target->op_type != expected_type)
        return eng_fail(e, "dependency graph: consumer %d has type %s, its slot says %s", c->index,
                        fw_op_type_name(target->op_type), fw_op_type_name(expected_type));
    if (target->dependency_count == 0)
        return eng_fail(e,
                        "dependency graph: op %d receives %s but its dependency count is "
                        "already 0",
                        c->index, fw_event_name(event));
    target->dependency_count--;
    if (target->dependency_count == 0)
        return enable_operation(e, d, target);
    return 0;
}

static int update_consumers(struct engine *e, struct dla *d, struct eng_proc *p,
                            struct eng_group *g, uint8_t event)
{
    if (e->failed)
        return -1;
    const struct fw_common_op *op = desc_of(e, g->op, g->roi);
    uint64_t pos = (uint64_t)e->net.num_operations * g->roi + (uint64_t)g->op;
    char what[64];
    snprintf(what, sizeof what, "dependency graph entry %llu (consumers of operation %d)",
             (unsigned long long)pos, g->op);
    set_place(e, what, &e->deps_buf, FW_COMMON_OP_SIZE * pos);
    log_event(e, ENG_LOG_EVENT, p, g->id, g->op, event);
    for (int i = 0; i < FW_OP_TYPES; i++)
        if (update_dependency(e, d, &op->consumers[i], (uint8_t)i, g->roi, event))
            return -1;
    if (p->type > 0 &&
        update_dependency(e, d, &op->fused_parent, (uint8_t)(p->type - 1), g->roi, event))
        return -1;
    return 0;
}

static int free_group(struct engine *e, struct dla *d, struct eng_proc *p, uint8_t *group,
                      uint8_t *rdma)
{
    static const enum eng_reg pointer[FW_OP_TYPES] = {
        R_BDMA_STATUS,   R_CACC_S_POINTER, R_SDP_S_POINTER,
        R_PDP_S_POINTER, R_CDP_S_POINTER,  R_RBK_S_POINTER,
    };
    static const int rdma_pointer[FW_OP_TYPES] = {
        -1, -1, R_SDP_RDMA_S_POINTER, R_PDP_RDMA_S_POINTER, R_CDP_RDMA_S_POINTER, -1};
    uint32_t hw_consumer, hw_rdma = 0;
    /* the firmware reads the pointers first, whether it needs them or not;
     * a pointer decides the group only when neither group is taken */
    bool by_pointer = p->group_status == 0, rdma_by_pointer = p->rdma_status == 0;
    if (p->type == FW_OP_BDMA) {
        uint32_t busy0 = eng_field_mask(e, R_BDMA_STATUS, "GRP0_BUSY");
        /* group 0 still busy: take group 1 */
        hw_consumer = (eng_read(e, d, R_BDMA_STATUS, by_pointer ? busy0 : 0) & busy0) != 0;
    } else {
        uint32_t consumer = eng_field_mask(e, pointer[p->type], "CONSUMER");
        hw_consumer = (eng_read(e, d, pointer[p->type], by_pointer ? consumer : 0) & consumer) != 0;
    }
    if (rdma_pointer[p->type] >= 0) {
        enum eng_reg rp = (enum eng_reg)rdma_pointer[p->type];
        uint32_t consumer = eng_field_mask(e, rp, "CONSUMER");
        hw_rdma = (eng_read(e, d, rp, rdma_by_pointer ? consumer : 0) & consumer) != 0;
    }
    if (p->group_status == 3)
        return 1; /* both groups busy: the op waits for a completion */
    *group = p->group_status ? (uint8_t) !(p->group_status >> 1) : (uint8_t)hw_consumer;
    *rdma = p->rdma_status ? (uint8_t) !(p->rdma_status >> 1) : (uint8_t)hw_rdma;
    return 0;
}

/* An operation's descriptors: its entries in the operation and surface lists. */
static void place_operation(struct engine *e, const struct eng_group *g)
{
    uint64_t pos = (uint64_t)e->net.num_operations * g->roi + (uint64_t)g->op;
    char op[320], surf[320];
    runtime_locate(e->rt, e->task, e->ops.index, FW_OP_SIZE * pos, op, sizeof op);
    runtime_locate(e->rt, e->task, e->surfaces.index, FW_SURFACE_SIZE * pos, surf, sizeof surf);
    snprintf(e->place, sizeof e->place, "operation %d at %s; its surface descriptor at %s", g->op,
             op, surf);
}

static bool read_config(struct engine *e, struct dla *d, struct eng_proc *p, struct eng_group *g)
{
    uint8_t opb[FW_OP_SIZE], surf[FW_SURFACE_SIZE];
    uint64_t pos = (uint64_t)e->net.num_operations * g->roi + (uint64_t)g->op;
    place_operation(e, g);
    if (!read_buffer(e, d, &e->ops, FW_OP_SIZE * pos, opb, sizeof opb, "operation list") ||
        !read_buffer(e, d, &e->surfaces, FW_SURFACE_SIZE * pos, surf, sizeof surf, "surface list"))
        return false;
    return fw_decode_op(e->layout, p->type, opb, surf, &g->desc);
}

static int prepare_operation(struct engine *e, struct dla *d, struct eng_proc *p,
                             const struct fw_common_op *op, uint8_t roi, uint8_t *group_id)
{
    uint8_t gid, rdma;
    int busy = free_group(e, d, p, &gid, &rdma);
    if (busy)
        return busy;
    struct eng_group *g = &p->groups[gid];
    g->op = op->index;
    g->id = gid;
    g->roi = roi;
    g->rdma_id = rdma;
    g->events = 0;
    if (!read_config(e, d, p, g))
        return -1;
    g->pending = true;
    p->group_status |= (uint8_t)(1u << gid);
    g->rdma_needed = units[p->type]->rdma_needed(&g->desc);
    if (g->rdma_needed)
        p->rdma_status |= (uint8_t)(1u << rdma);
    p->tail_op = op->index;
    *group_id = gid;
    return 0;
}

static int program_operation(struct engine *e, struct dla *d, struct eng_proc *p,
                             struct eng_group *g)
{
    const struct eng_unit *u = units[p->type];
    set_where(e, p, g);
    place_operation(e, g);
    g->programming = true;
    u->set_producer(e, g->id, g->rdma_id);
    int rc = u->program(e, d, g);
    if (rc == 0 && !e->failed) {
        log_event(e, ENG_LOG_PROGRAM, p, g->id, g->op, 0);
        const struct fw_common_op *op = desc_of(e, g->op, g->roi);
        if (p->type > 0 && op->fused_parent.index != -1) {
            const struct fw_common_op *parent = desc_of(e, op->fused_parent.index, g->roi);
            if (!parent || parent->op_type != p->type - 1)
                rc = eng_fail(e, "op %d: fused parent %d is not a %s operation", g->op,
                              op->fused_parent.index, fw_op_type_name((uint8_t)(p->type - 1)));
        }
        g->pending = false;
        if (rc == 0)
            rc = update_consumers(e, d, p, g, FW_EV_OP_PROGRAMMED);
    }
    g->programming = false;
    return e->failed ? -1 : rc;
}

static int enable_operation(struct engine *e, struct dla *d, struct fw_common_op *op)
{
    if (e->failed || op->op_type >= FW_OP_TYPES)
        return -1;
    struct eng_proc *p = &e->proc[op->op_type];
    struct eng_group *g = NULL;
    for (int i = 0; i < 2; i++) {
        struct eng_group *c = &p->groups[i];
        if ((p->group_status & (1u << i)) && c->op == op->index &&
            c->roi == (uint8_t)op->roi_index && !c->pending)
            g = c;
    }
    /* not programmed yet (it will be enabled when it is), being programmed,
     * or already running */
    if (!g || g->programming || g->active)
        return 0;
    set_where(e, p, g);
    units[p->type]->set_producer(e, g->id, g->rdma_id);
    units[p->type]->enable(e, g);
    g->active = true;
    log_event(e, ENG_LOG_ENABLE, p, g->id, g->op, 0);
    return update_consumers(e, d, p, g, FW_EV_OP_ENABLED);
}

static int submit_operation(struct engine *e, struct dla *d, struct eng_proc *p,
                            struct fw_common_op *op, uint8_t roi)
{
    uint8_t gid = 0;
    int rc = prepare_operation(e, d, p, op, roi, &gid);
    if (rc)
        return rc < 0 ? -1 : 0; /* busy: submitted again after a completion */
    if (!units[p->type]->is_ready(p, &p->groups[gid]))
        return 0;
    if (program_operation(e, d, p, &p->groups[gid]))
        return -1;
    if (op->dependency_count == 0)
        return enable_operation(e, d, op);
    return 0;
}

static int dequeue_operation(struct engine *e, struct dla *d, struct eng_proc *p)
{
    if (e->failed || p->tail_op < 0)
        return e->failed ? -1 : 0;
    int16_t index;
    if (p->roi_index == e->net.num_rois - 1) {
        const struct fw_common_op *tail = desc_of(e, p->tail_op, p->roi_index);
        index = tail->consumers[p->type].index;
        if (index == -1)
            return 0; /* no more operations of this processor */
        p->roi_index = 0;
    } else {
        p->roi_index++;
        index = p->tail_op;
    }
    struct fw_common_op *next = desc_of(e, index, p->roi_index);
    if (!next)
        return eng_fail(e, "%s chain: next operation %d outside the %u operations",
                        fw_op_type_name(p->type), index, e->net.num_operations);
    if (next->op_type != p->type)
        return eng_fail(e, "%s chain: next operation %d is a %s operation",
                        fw_op_type_name(p->type), index, fw_op_type_name(next->op_type));
    return submit_operation(e, d, p, next, p->roi_index);
}

static int op_completion(struct engine *e, struct dla *d, struct eng_proc *p, struct eng_group *g)
{
    if (g->op < 0)
        return eng_fail(e, "%s group %u completed, but the engine gave it no operation",
                        fw_op_type_name(p->type), g->id);
    if (g->roi == e->net.num_rois - 1)
        e->done_ops++;
    log_event(e, ENG_LOG_COMPLETE, p, g->id, g->op, 0);
    p->group_status &= (uint8_t) ~(1u << g->id);
    if (g->rdma_needed) {
        g->rdma_needed = false;
        p->rdma_status &= (uint8_t) ~(1u << g->rdma_id);
        g->rdma_id = 0;
    }
    g->active = false;
    g->lut_index = -1;
    p->last_group = g->id;
    if (update_consumers(e, d, p, g, FW_EV_OP_COMPLETED))
        return -1;
    g->op = -1;
    if (e->done_ops == e->net.num_operations)
        return 0;
    struct eng_group *next = &p->groups[!g->id];
    if (next->pending && units[p->type]->is_ready(p, next)) {
        if (program_operation(e, d, p, next))
            return -1;
        struct fw_common_op *nop = desc_of(e, next->op, next->roi);
        if (nop->dependency_count == 0 && enable_operation(e, d, nop))
            return -1;
    }
    return dequeue_operation(e, d, p);
}

static int handle_events(struct engine *e, struct dla *d, struct eng_proc *p)
{
    uint8_t gid = (uint8_t)!p->last_group;
    for (int j = 0; j < 2; j++, gid = (uint8_t)!gid) {
        struct eng_group *g = &p->groups[gid];
        uint8_t ev = g->events;
        g->events = 0;
        if (!ev)
            continue;
        set_where(e, p, g);
        if ((ev & (1u << FW_EV_CDMA_WT_DONE)) && update_consumers(e, d, p, g, FW_EV_CDMA_WT_DONE))
            return -1;
        if ((ev & (1u << FW_EV_CDMA_DT_DONE)) && update_consumers(e, d, p, g, FW_EV_CDMA_DT_DONE))
            return -1;
        if ((ev & (1u << FW_EV_OP_COMPLETED)) && op_completion(e, d, p, g))
            return -1;
    }
    return 0;
}

static bool events_pending(const struct engine *e)
{
    for (int i = 0; i < FW_OP_TYPES; i++)
        if (e->proc[i].groups[0].events || e->proc[i].groups[1].events)
            return true;
    return false;
}

static void finish_if_done(struct engine *e, struct dla *d);

static void process_events(struct engine *e, struct dla *d)
{
    /* software-raised events (an empty BDMA operation) need no interrupt */
    for (int round = 0; round < 64 && events_pending(e) && !e->failed; round++)
        for (int i = 0; i < FW_OP_TYPES && !e->failed; i++)
            handle_events(e, d, &e->proc[i]);
    finish_if_done(e, d);
}

/* ---------------------------------------------------------------- task start */

static bool read_network(struct engine *e, struct dla *d)
{
    uint8_t raw[FW_NETWORK_SIZE];
    struct eng_buffer nb = {.index = 0};
    set_place(e, "network descriptor", &nb, 0);
    if (!resolve_buffer(e, 0, &nb, "network descriptor (address 0)") ||
        !read_buffer(e, d, &nb, 0, raw, sizeof raw, "network descriptor"))
        return false;
    fw_decode_network(raw, &e->net);
    const struct fw_network *n = &e->net;
    if (n->num_operations == 0)
        return true;
    if (n->num_rois == 0 || n->num_rois > 64)
        return eng_fail(e, "network descriptor: expected 1..64 ROIs, found %u", n->num_rois), false;
    if (n->dynamic_roi)
        return eng_fail(e, "network descriptor: dynamic ROI is not supported"), false;
    if (!resolve_buffer(e, n->operation_desc_index, &e->ops, "operation list") ||
        !resolve_buffer(e, n->surface_desc_index, &e->surfaces, "surface list") ||
        !resolve_buffer(e, n->dependency_graph_index, &e->deps_buf, "dependency graph") ||
        (n->num_luts && !resolve_buffer(e, n->lut_data_index, &e->luts, "LUT list")))
        return false;
    for (int i = 0; i < FW_OP_TYPES; i++)
        if (n->op_head[i] >= n->num_operations || n->op_head[i] < -1)
            return eng_fail(e, "network descriptor: op_head[%s] = %d, expected -1 or < %u",
                            fw_op_type_name((uint8_t)i), n->op_head[i], n->num_operations),
                   false;
    return true;
}

static bool read_dependency_graph(struct engine *e, struct dla *d)
{
    e->n_desc = (uint32_t)e->net.num_operations * e->net.num_rois;
    /* the graph must be in memory before anything is allocated for it */
    set_place(e, "dependency graph", &e->deps_buf, 0);
    if ((uint64_t)e->n_desc * FW_COMMON_OP_SIZE > e->deps_buf.size)
        return eng_fail(e,
                        "dependency graph: %u operations x %u ROIs need %llu bytes, the buffer "
                        "has %llu",
                        e->net.num_operations, e->net.num_rois,
                        (unsigned long long)e->n_desc * FW_COMMON_OP_SIZE,
                        (unsigned long long)e->deps_buf.size),
               false;
    e->deps = calloc(e->n_desc, sizeof *e->deps);
    if (!e->deps)
        return eng_fail(e, "out of memory for %u descriptors", e->n_desc), false;
    for (uint32_t i = 0; i < e->n_desc; i++) {
        uint8_t raw[FW_COMMON_OP_SIZE];
        char what[40];
        snprintf(what, sizeof what, "dependency graph entry %u", i);
        set_place(e, what, &e->deps_buf, (uint64_t)FW_COMMON_OP_SIZE * i);
        if (!read_buffer(e, d, &e->deps_buf, (uint64_t)FW_COMMON_OP_SIZE * i, raw, sizeof raw,
                         "dependency graph"))
            return false;
        struct fw_common_op *c = &e->deps[i];
        fw_decode_common_op(raw, c);
        /* the firmware's descriptor cache names an entry by its position,
         * whatever its index field says (SDP_X1_L0_0 stores 2 at 0) */
        if (c->op_type >= FW_OP_TYPES)
            return eng_fail(e, "dependency graph entry %u: expected an op type 0..5, found %u", i,
                            c->op_type),
                   false;
        c->index = (int16_t)(i % e->net.num_operations);
        c->roi_index = (int8_t)(i / e->net.num_operations);
    }
    return true;
}

/* Dependency counts go back to memory as the firmware's descriptor cache
 * writes them back when it releases an entry. */
static void write_back_counts(struct engine *e, struct dla *d)
{
    for (uint32_t i = 0; e->deps && i < e->n_desc; i++) {
        uint8_t count = e->deps[i].dependency_count;
        dla_mem_write(d, (enum dla_space)e->deps_buf.space,
                      e->deps_buf.base + (uint64_t)FW_COMMON_OP_SIZE * i + FW_DEPENDENCY_COUNT_AT,
                      &count, 1);
    }
}

static void finish_if_done(struct engine *e, struct dla *d)
{
    if (e->running && !e->failed && e->done_ops == e->net.num_operations) {
        write_back_counts(e, d);
        e->running = false;
        e->done = true;
    }
}

static void reset_processors(struct engine *e)
{
    for (int i = 0; i < FW_OP_TYPES; i++) {
        struct eng_proc *p = &e->proc[i];
        memset(p, 0, sizeof *p);
        p->type = (uint8_t)i;
        p->tail_op = -1;
        for (int g = 0; g < 2; g++) {
            p->groups[g].id = (uint8_t)g;
            p->groups[g].op = -1;
            p->groups[g].lut_index = -1;
        }
    }
}

enum fw_layout engine_task_layout(const struct runtime *rt, uint32_t task)
{
    const struct ld_blob *b = runtime_task_blob(rt, task, 0);
    if (b && (b->version.major || b->version.minor || b->version.sub_minor))
        return fw_layout_for_blob(b->version.major, b->version.minor, b->sub_interface);
    return FW_LAYOUT_CURRENT;
}

bool engine_start(struct engine *e, struct dla *d, const struct runtime *rt, uint32_t task)
{
    free(e->deps);
    e->deps = NULL;
    e->n_desc = 0;
    e->rt = rt;
    e->task = task;
    e->running = true;
    e->done = e->failed = false;
    e->done_ops = 0;
    e->n_log = 0;
    e->q_head = e->q_len = 0;
    e->layout = engine_task_layout(rt, task);
    memset(&e->net, 0, sizeof e->net);
    reset_processors(e);
    snprintf(e->where, sizeof e->where, "task %u", task);
    e->where_op = -1;
    e->place[0] = 0;
    if (!read_network(e, d) || (e->net.num_operations && !read_dependency_graph(e, d))) {
        e->running = false;
        return false;
    }
    if (e->net.num_operations == 0) {
        e->running = false;
        e->done = true;
        return true;
    }
    struct eng_buffer nb = {.index = 0};
    set_place(e, "network descriptor", &nb, 0);
    for (int i = 0; i < FW_OP_TYPES && !e->failed; i++) {
        int16_t head = e->net.op_head[i];
        if (head == -1)
            continue;
        struct fw_common_op *op = desc_of(e, head, 0);
        if (op->op_type != i) {
            eng_fail(e, "network descriptor: op_head[%s] = %d is a %s operation",
                     fw_op_type_name((uint8_t)i), head, fw_op_type_name(op->op_type));
            break;
        }
        struct eng_proc *p = &e->proc[i];
        if (submit_operation(e, d, p, op, 0) == 0)
            dequeue_operation(e, d, p);
    }
    process_events(e, d);
    if (e->failed)
        e->running = false;
    return !e->failed;
}

/* ---------------------------------------------------------------- interrupts */

void engine_interrupt(struct engine *e, struct dla *d)
{
    if (!e->running)
        return;
    snprintf(e->where, sizeof e->where, "task %u interrupt", e->task);
    e->where_op = -1;
    /* dla_isr_handler: mask and status read, the status written back whole
     * (every bit that came clears in one write), both read again */
    eng_read(e, d, R_GLB_S_INTR_MASK, 0);
    uint32_t status = eng_read(e, d, R_GLB_S_INTR_STATUS, 0xffffffffu);
    for (size_t i = 0; i < sizeof intr_sources / sizeof intr_sources[0]; i++) {
        const struct intr_source *s = &intr_sources[i];
        if (status & (1u << s->bit))
            e->proc[s->proc].groups[s->group].events |= (uint8_t)(1u << s->event);
    }
    eng_write(e, R_GLB_S_INTR_STATUS, status);
    eng_read(e, d, R_GLB_S_INTR_MASK, 0);
    eng_read(e, d, R_GLB_S_INTR_STATUS, 0);
    process_events(e, d);
    if (e->failed)
        e->running = false;
}

bool engine_next_action(struct engine *e, struct eng_action *out)
{
    if (e->q_head >= e->q_len)
        return false;
    *out = e->q[e->q_head++];
    return true;
}

bool engine_task_done(const struct engine *e)
{
    return !e->running && e->q_head >= e->q_len;
}

bool engine_task_failed(const struct engine *e)
{
    return e->failed;
}

void engine_abort(struct engine *e, const char *why)
{
    /* a hang is a failed run, not bad input: exit status 1 (README), as a
     * trace's wait that never sees its interrupt */
    if (!e->failed) {
        report_msg(e->rep, REPORT_ERROR, "task %u: %s", e->task, why);
        if (e->rep)
            e->rep->checks_failed++;
    }
    e->failed = true;
    e->running = false;
    e->q_head = e->q_len = 0;
}

void engine_describe(const struct engine *e, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "task %u: %u of %u operations done", e->task, e->done_ops,
                                e->net.num_operations);
    for (int i = 0; i < FW_OP_TYPES && n < len; i++) {
        const struct eng_proc *p = &e->proc[i];
        for (int g = 0; g < 2 && n < len; g++) {
            const struct eng_group *gr = &p->groups[g];
            if (!(p->group_status & (1u << g)))
                continue;
            n += (size_t)snprintf(buf + n, len - n, "; %s group %d op %d %s",
                                  fw_op_type_name(p->type), g, gr->op,
                                  gr->active    ? "enabled"
                                  : gr->pending ? "waiting to be programmed"
                                                : "programmed, waiting for its dependencies");
        }
    }
}

size_t engine_log_count(const struct engine *e)
{
    return e->n_log;
}

const struct eng_log *engine_log_get(const struct engine *e, size_t i)
{
    return i < e->n_log ? &e->log[i] : NULL;
}

uint32_t engine_ops_done(const struct engine *e)
{
    return e->done_ops;
}

/* ---------------------------------------------------------------- LUT programming */

bool eng_lut_ready(const struct eng_proc *p, const struct eng_group *g, int16_t lut)
{
    const struct eng_group *next = &p->groups[!g->id];
    if (lut == -1 || next->lut_index == lut)
        return true;
    if (next->lut_index != -1)
        return false;
    return !next->active;
}

/* Each slope register holds an underflow and an overflow value side by side
 * (scale or shift, LE or LO table): one write sets both fields. */
static void write_uflow_oflow(struct engine *e, enum eng_reg r, const char *uflow_field,
                              uint32_t uflow, const char *oflow_field, uint32_t oflow)
{
    eng_write(e, r, eng_field(e, r, uflow_field, uflow) | eng_field(e, r, oflow_field, oflow));
}

/* The SDP and CDP LUT register sets differ only in names (CDP has 64-bit
 * start/end as LOW/HIGH pairs). */
void eng_program_lut(struct engine *e, bool sdp, const struct fw_lut *lut, uint8_t precision)
{
    enum eng_reg acfg = sdp ? R_SDP_S_LUT_ACCESS_CFG : R_CDP_S_LUT_ACCESS_CFG;
    enum eng_reg adata = sdp ? R_SDP_S_LUT_ACCESS_DATA : R_CDP_S_LUT_ACCESS_DATA;
    enum eng_reg cfg = sdp ? R_SDP_S_LUT_CFG : R_CDP_S_LUT_CFG;
    enum eng_reg info = sdp ? R_SDP_S_LUT_INFO : R_CDP_S_LUT_INFO;
    uint32_t write = eng_enum(e, acfg, "LUT_ACCESS_TYPE", "WRITE");
    eng_write(e, acfg, eng_enum(e, acfg, "LUT_TABLE_ID", "LE") | write);
    for (int i = 0; i < 65; i++)
        eng_write(e, adata, (uint16_t)lut->le_table[i]);
    eng_write(e, acfg, eng_enum(e, acfg, "LUT_TABLE_ID", "LO") | write);
    for (int i = 0; i < 257; i++)
        eng_write(e, adata, (uint16_t)lut->lo_table[i]);
    /* method 0 = exponent, 1 = linear; priority 0 = LE, 1 = LO */
    eng_write(e, cfg,
              eng_field(e, cfg, "LUT_LE_FUNCTION", lut->method ? 1u : 0u) |
                  eng_field(e, cfg, "LUT_HYBRID_PRIORITY", lut->hybrid_priority) |
                  eng_field(e, cfg, "LUT_UFLOW_PRIORITY", lut->underflow_priority) |
                  eng_field(e, cfg, "LUT_OFLOW_PRIORITY", lut->overflow_priority));
    uint32_t le = lut->method == 0
                      ? eng_field(e, info, "LUT_LE_INDEX_OFFSET", (uint8_t)lut->le_offset_exp)
                      : eng_field(e, info, "LUT_LE_INDEX_SELECT", (uint8_t)lut->le_offset_frac);
    eng_write(e, info,
              le | eng_field(e, info, "LUT_LO_INDEX_SELECT", (uint8_t)lut->lo_offset_frac));
    if (sdp) {
        eng_write(e, R_SDP_S_LUT_LE_START, eng_lo32(lut->le_start));
        eng_write(e, R_SDP_S_LUT_LE_END, eng_lo32(lut->le_end));
        eng_write(e, R_SDP_S_LUT_LO_START, eng_lo32(lut->lo_start));
        eng_write(e, R_SDP_S_LUT_LO_END, eng_lo32(lut->lo_end));
    } else {
        eng_write(e, R_CDP_S_LUT_LE_START_LOW, eng_lo32(lut->le_start));
        eng_write(e, R_CDP_S_LUT_LE_START_HIGH, eng_hi32(lut->le_start));
        eng_write(e, R_CDP_S_LUT_LE_END_LOW, eng_lo32(lut->le_end));
        eng_write(e, R_CDP_S_LUT_LE_END_HIGH, eng_hi32(lut->le_end));
        eng_write(e, R_CDP_S_LUT_LO_START_LOW, eng_lo32(lut->lo_start));
        eng_write(e, R_CDP_S_LUT_LO_START_HIGH, eng_hi32(lut->lo_start));
        eng_write(e, R_CDP_S_LUT_LO_END_LOW, eng_lo32(lut->lo_end));
        eng_write(e, R_CDP_S_LUT_LO_END_HIGH, eng_hi32(lut->lo_end));
    }
    enum eng_reg le_scale = sdp ? R_SDP_S_LUT_LE_SLOPE_SCALE : R_CDP_S_LUT_LE_SLOPE_SCALE;
    enum eng_reg le_shift = sdp ? R_SDP_S_LUT_LE_SLOPE_SHIFT : R_CDP_S_LUT_LE_SLOPE_SHIFT;
    enum eng_reg lo_scale = sdp ? R_SDP_S_LUT_LO_SLOPE_SCALE : R_CDP_S_LUT_LO_SLOPE_SCALE;
    enum eng_reg lo_shift = sdp ? R_SDP_S_LUT_LO_SLOPE_SHIFT : R_CDP_S_LUT_LO_SLOPE_SHIFT;
    if (precision == FW_PREC_FP16) {
        /* fp16 slopes are whole 16-bit values; no shift registers */
        write_uflow_oflow(e, le_scale, "LUT_LE_SLOPE_UFLOW_SCALE", lut->le_uflow_f,
                          "LUT_LE_SLOPE_OFLOW_SCALE", lut->le_oflow_f);
        write_uflow_oflow(e, lo_scale, "LUT_LO_SLOPE_UFLOW_SCALE", lut->lo_uflow_f,
                          "LUT_LO_SLOPE_OFLOW_SCALE", lut->lo_oflow_f);
        return;
    }
    write_uflow_oflow(e, le_scale, "LUT_LE_SLOPE_UFLOW_SCALE", (uint16_t)lut->le_uflow_scale,
                      "LUT_LE_SLOPE_OFLOW_SCALE", (uint16_t)lut->le_oflow_scale);
    write_uflow_oflow(e, le_shift, "LUT_LE_SLOPE_UFLOW_SHIFT", (uint8_t)lut->le_uflow_shift,
                      "LUT_LE_SLOPE_OFLOW_SHIFT", (uint8_t)lut->le_oflow_shift);
    write_uflow_oflow(e, lo_scale, "LUT_LO_SLOPE_UFLOW_SCALE", (uint16_t)lut->lo_uflow_scale,
                      "LUT_LO_SLOPE_OFLOW_SCALE", (uint16_t)lut->lo_oflow_scale);
    write_uflow_oflow(e, lo_shift, "LUT_LO_SLOPE_UFLOW_SHIFT", (uint8_t)lut->lo_uflow_shift,
                      "LUT_LO_SLOPE_OFLOW_SHIFT", (uint8_t)lut->lo_oflow_shift);
}
