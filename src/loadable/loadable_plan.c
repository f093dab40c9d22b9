/* A loadable's tasks and operations before it runs (see loadable_plan.h). */
#include "loadable_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/engine.h"
#include "fw_desc.h"
#include "loadable.h"
#include "runtime/runtime.h"
#include "sample/sample_net.h"

/* Everything reading one loadable needs. */
struct reader {
    const struct loadable *ld;
    struct runtime rt;
    struct dla *d;
    struct loadable_plan *p;
};

struct buffer {
    enum dla_space space;
    uint64_t base, size;
};

static void append(char *buf, size_t len, const char *text)
{
    size_t n = strlen(buf);
    if (n + 1 < len)
        snprintf(buf + n, len - n, "%s%s", n ? " " : "", text);
}

/* ---------------------------------------------------------------- tensors */

/* The bound tensor at a device address, or NULL. */
static const char *tensor_at(const struct reader *r, enum dla_space space, uint64_t addr)
{
    for (uint32_t i = 0; i < r->ld->n_tensors; i++) {
        const struct ld_tensor *t = &r->ld->tensors[i];
        int m = loadable_memory_index(r->ld, t->mem_id);
        if (m < 0 || !r->rt.mem[m].placed || !t->name || !t->name[0])
            continue;
        if (r->rt.mem[m].space == space && r->rt.mem[m].addr + t->offset == addr)
            return t->name;
    }
    return NULL;
}

/* The tensor a cube of the task lies at (its address index and offset). */
static const char *cube_tensor(const struct reader *r, uint32_t task, const struct fw_cube *c)
{
    enum dla_space space;
    uint64_t addr;
    if (c->type == FW_MEM_HW || c->address < 0 ||
        !runtime_task_address(&r->rt, task, c->address, &space, &addr))
        return NULL;
    return tensor_at(r, space, addr + c->offset);
}

/* Names of the bound tensors a task's address list reaches. */
static void task_tensors(const struct reader *r, const struct ld_task *t, char *buf, size_t len)
{
    buf[0] = 0;
    for (uint32_t i = 0; i < r->ld->n_tensors; i++) {
        const struct ld_tensor *tn = &r->ld->tensors[i];
        if (!tn->name || !tn->name[0])
            continue;
        for (uint32_t k = 0; k < t->n_addresses; k++) {
            int a = loadable_address_index(r->ld, t->addresses[k]);
            if (a >= 0 && r->ld->addresses[a].mem_id == tn->mem_id) {
                append(buf, len, tn->name);
                break;
            }
        }
    }
}

/* ---------------------------------------------------------------- operations */

static bool buffer_of(const struct reader *r, uint32_t task, int16_t index, struct buffer *b)
{
    return index >= 0 && runtime_task_buffer(&r->rt, task, index, &b->space, &b->base, &b->size);
}

static bool read_at(const struct reader *r, const struct buffer *b, uint64_t off, void *out,
                    size_t len)
{
    return off <= b->size && len <= b->size - off &&
           dla_mem_read(r->d, b->space, b->base + off, out, len) == MEM_OK;
}

static void shape(char *buf, size_t len, const struct fw_cube *c)
{
    snprintf(buf, len, "%ux%ux%u", c->width, c->height, c->channel);
}

/* "conv 28x28x1 -> 24x24x20" and the tensors the op reads and writes. */
static void describe_op(const struct reader *r, uint32_t task, const struct fw_op *op,
                        struct plan_op *out)
{
    const struct fw_cube *src = NULL, *dst = NULL;
    char a[32], b[32];
    switch (op->type) {
    case FW_OP_BDMA:
        snprintf(out->desc, sizeof out->desc, "%u transfer%s", op->u.bdma.num_transfers,
                 op->u.bdma.num_transfers == 1 ? "" : "s");
        return;
    case FW_OP_CONV:
        src = &op->u.conv.surface.src;
        dst = &op->u.conv.surface.dst;
        break;
    case FW_OP_SDP:
        src = &op->u.sdp.surface.src;
        dst = &op->u.sdp.surface.dst;
        break;
    default: /* PDP, CDP and RUBIK share the surface's shape */
        src = &op->u.pdp.surface.src;
        dst = &op->u.pdp.surface.dst;
        break;
    }
    shape(a, sizeof a, src);
    shape(b, sizeof b, dst);
    snprintf(out->desc, sizeof out->desc, "%s%s -> %s%s", a,
             src->type == FW_MEM_HW ? " (on the fly)" : "", b,
             dst->type == FW_MEM_HW ? " (on the fly)" : "");
    const char *in = cube_tensor(r, task, src), *outn = cube_tensor(r, task, dst);
    if (in || outn)
        snprintf(out->names, sizeof out->names, "%s%s->%s%s", in ? in : "", in ? " " : "",
                 outn ? " " : "", outn ? outn : "");
}

static bool add_op(struct loadable_plan *p, const struct plan_op *op)
{
    struct plan_op *v = realloc(p->ops, (p->n_ops + 1) * sizeof *v);
    if (!v)
        return false;
    p->ops = v;
    p->ops[p->n_ops++] = *op;
    return true;
}

/* The operations of DLA task `task` (ROI 0), from its network descriptor. */
static void read_dla_ops(struct reader *r, uint32_t task, struct plan_task *pt)
{
    struct buffer net, ops, surfs, deps;
    uint8_t raw[FW_NETWORK_SIZE];
    struct fw_network n;
    if (!buffer_of(r, task, 0, &net) || !read_at(r, &net, 0, raw, sizeof raw)) {
        snprintf(pt->problem, sizeof pt->problem, "no network descriptor at address 0");
        return;
    }
    fw_decode_network(raw, &n);
    if (!n.num_operations)
        return;
    if (!buffer_of(r, task, n.operation_desc_index, &ops) ||
        !buffer_of(r, task, n.surface_desc_index, &surfs) ||
        !buffer_of(r, task, n.dependency_graph_index, &deps)) {
        snprintf(pt->problem, sizeof pt->problem, "descriptor lists outside the address list");
        return;
    }
    enum fw_layout layout = engine_task_layout(&r->rt, task);
    /* at most 65535 (a 16-bit count), and each must lie inside its buffers */
    for (uint32_t i = 0; i < n.num_operations; i++) {
        uint8_t common[FW_COMMON_OP_SIZE], opb[FW_OP_SIZE], surf[FW_SURFACE_SIZE];
        struct fw_common_op c;
        struct fw_op op;
        if (!read_at(r, &deps, (uint64_t)i * FW_COMMON_OP_SIZE, common, sizeof common) ||
            !read_at(r, &ops, (uint64_t)i * FW_OP_SIZE, opb, sizeof opb) ||
            !read_at(r, &surfs, (uint64_t)i * FW_SURFACE_SIZE, surf, sizeof surf)) {
            snprintf(pt->problem, sizeof pt->problem, "operation %u lies outside its buffers", i);
            return;
        }
        fw_decode_common_op(common, &c);
        if (!fw_decode_op(layout, c.op_type, opb, surf, &op)) {
            snprintf(pt->problem, sizeof pt->problem, "operation %u has op type %u", i, c.op_type);
            return;
        }
        struct plan_op po = {.task = task, .op = (int16_t)i, .type = c.op_type};
        describe_op(r, task, &op, &po);
        if (!add_op(r->p, &po))
            return;
        pt->n_ops++;
    }
}

/* ---------------------------------------------------------------- tasks */

static bool add_task(struct reader *r, uint32_t task)
{
    struct loadable_plan *p = r->p;
    struct plan_task *v = realloc(p->tasks, (p->n_tasks + 1) * sizeof *v);
    if (!v)
        return false;
    p->tasks = v;
    const struct ld_task *t = &r->ld->tasks[task];
    struct plan_task *pt = &p->tasks[p->n_tasks++];
    memset(pt, 0, sizeof *pt);
    pt->index = task;
    pt->id = t->id;
    pt->emu = t->interface == LD_IF_EMU1;
    pt->first_op = p->n_ops;
    task_tensors(r, t, pt->tensors, sizeof pt->tensors);
    if (!pt->emu)
        read_dla_ops(r, task, pt);
    return true;
}

/* Tasks in the order the runtime submits them: the submit list, else the task list. */
static bool read_tasks(struct reader *r)
{
    const struct loadable *ld = r->ld;
    if (!ld->n_submits) {
        for (uint32_t i = 0; i < ld->n_tasks; i++)
            if (!add_task(r, i))
                return false;
        return true;
    }
    for (uint32_t s = 0; s < ld->n_submits; s++)
        for (uint32_t k = 0; k < ld->submits[s].n_tasks; k++) {
            int t = loadable_task_index(ld, ld->submits[s].tasks[k]);
            if (t >= 0 && !add_task(r, (uint32_t)t))
                return false;
        }
    return true;
}

bool loadable_plan_read(const char *path, const struct dla_config *cfg, struct loadable_plan *p,
                        char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    struct loadable *ld = sample_net_load(path, err, errlen);
    if (!ld)
        return false;
    bool ok = loadable_plan_of(ld, NULL, cfg, p, err, errlen);
    loadable_free(ld);
    return ok;
}

bool loadable_plan_of(struct loadable *ld, struct rt_bound *bound, const struct dla_config *cfg,
                      struct loadable_plan *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    struct reader r = {.ld = ld, .p = p, .d = dla_create(cfg, NULL)};
    bool ok = r.d && runtime_load_again(&r.rt, ld, r.d, bound, err, errlen);
    if (!r.d)
        snprintf(err, errlen, "out of memory");
    if (ok) {
        ok = read_tasks(&r);
        if (!ok)
            snprintf(err, errlen, "out of memory");
        runtime_free(&r.rt);
    }
    dla_destroy(r.d);
    if (!ok)
        loadable_plan_free(p);
    return ok;
}

void loadable_plan_free(struct loadable_plan *p)
{
    free(p->tasks);
    free(p->ops);
    memset(p, 0, sizeof *p);
}

const struct plan_op *loadable_plan_op(const struct loadable_plan *p, uint32_t task, int16_t op)
{
    for (size_t i = 0; i < p->n_ops; i++)
        if (p->ops[i].task == task && p->ops[i].op == op)
            return &p->ops[i];
    return NULL;
}
