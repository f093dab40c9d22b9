/* Runtime: memory placement, blobs, address lists, tensors (see runtime.h). */
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"
#include "loadable/fw_desc.h"
#include "tensor/dimg.h"

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

struct rt_bound {
    struct loadable *ld;                     /* whose blob bytes to release on the first load */
    struct dla_mem *image[DLA_SPACE_COUNT]; /* NULL until that load has copied them */
};

struct rt_bound *runtime_bound_create(void)
{
    return calloc(1, sizeof(struct rt_bound));
}

void runtime_bound_free(struct rt_bound *b)
{
    if (!b)
        return;
    for (int s = 0; s < DLA_SPACE_COUNT; s++)
        mem_destroy(b->image[s]);
    free(b);
}

bool runtime_bound_holds(const struct rt_bound *b)
{
    return b && b->image[DLA_DRAM];
}

/* After the first load: keep the memories as they are now (every blob
 * copied), sharing their pages. */
static void capture_image(struct rt_bound *b, struct dla *d)
{
    for (int s = 0; s < DLA_SPACE_COUNT; s++)
        if (dla_memory(d, (enum dla_space)s) && !b->image[s])
            b->image[s] = mem_clone(dla_memory(d, (enum dla_space)s));
}

/* Whether blob fills more than one memory (or one memory twice). */
static bool blob_shared(const struct loadable *l, uint32_t blob)
{
    unsigned uses = 0;
    for (uint32_t i = 0; i < l->n_memories; i++)
        for (uint32_t k = 0; k < l->memories[i].n_contents; k++)
            uses += l->memories[i].content_blob[k] == blob;
    return uses > 1;
}

static enum mem_status copy_blob(const struct runtime *rt, struct dla *d, enum dla_space space,
                                 uint64_t addr, uint32_t blob)
{
    const struct ld_blob *b = &rt->ld->blobs[blob];
    if (b->data) {
        enum mem_status st = dla_mem_write(d, space, addr, b->data, b->data_len);
        /* the first load of a bound runtime: from now on the bytes live in
         * simulated memory (and in the image taken at the end of the load);
         * a blob that fills another memory too waits for the end of the load */
        if (st == MEM_OK && rt->bound && !rt->bound->image[DLA_DRAM] &&
            !blob_shared(rt->ld, blob))
            loadable_release_blob(rt->bound->ld, blob);
        return st;
    }
    if (!rt->bound || !rt->bound->image[space])
        return MEM_OUT_OF_RANGE; /* released without an image: a bug, reported as a failed load */
    return dla_mem_write_from(d, space, rt->bound->image[space], addr, b->data_len);
}

static bool write_blob(const struct runtime *rt, struct dla *d, uint32_t m, uint32_t k, char *err,
                       size_t errlen)
{
    const struct ld_memory *mm = &rt->ld->memories[m];
    const struct ld_blob *b = &rt->ld->blobs[mm->content_blob[k]];
    enum mem_status st = copy_blob(rt, d, (enum dla_space)rt->mem[m].space,
                                   rt->mem[m].addr + mm->offsets[k], mm->content_blob[k]);
    if (st != MEM_OK) {
        snprintf(err, errlen, "%s: memory %u (file offset 0x%x): cannot store blob \"%s\": %s",
                 rt->ld->name, mm->id, mm->at, b->name, mem_status_str(st));
        return false;
    }
    return true;
}

void runtime_place(const struct loadable *l, bool has_sram, struct rt_memory *out)
{
    uint64_t next[DLA_SPACE_COUNT] = {RT_DRAM_BASE, RT_CVSRAM_BASE};
    for (uint32_t i = 0; i < l->n_memories; i++) {
        const struct ld_memory *m = &l->memories[i];
        out[i] = (struct rt_memory){0};
        /* bindable memories are the application's; this runtime is the
         * application too, so it places them like the others */
        if (!(m->flags & (LD_MEM_ALLOC | LD_MEM_INPUT | LD_MEM_OUTPUT)))
            continue;
        enum dla_space s = (m->domain == LD_DOMAIN_SRAM && has_sram) ? DLA_CVSRAM : DLA_DRAM;
        uint64_t a = m->alignment > RT_DEFAULT_ALIGN ? m->alignment : RT_DEFAULT_ALIGN;
        uint64_t at = align_up(next[s], a);
        out[i].addr = at;
        out[i].space = (uint8_t)s;
        out[i].placed = true;
        next[s] = at + (m->size ? m->size : 1);
    }
}

static bool place_memories(struct runtime *rt, struct dla *d, char *err, size_t errlen)
{
    const struct loadable *l = rt->ld;
    runtime_place(l, dla_cfg(d)->cvsram, rt->mem);
    for (uint32_t i = 0; i < l->n_memories; i++) {
        const struct ld_memory *m = &l->memories[i];
        if (!rt->mem[i].placed)
            continue;
        enum dla_space s = (enum dla_space)rt->mem[i].space;
        uint64_t at = rt->mem[i].addr;
        if (!dla_memory(d, s) || !mem_in_range(dla_memory(d, s), at, m->size ? m->size : 1)) {
            snprintf(err, errlen, "%s: memory %u (file offset 0x%x): %llu bytes do not fit in %s",
                     l->name, m->id, m->at, (unsigned long long)m->size, dla_space_name(s));
            return false;
        }
        if (m->flags & LD_MEM_SET)
            for (uint32_t k = 0; k < m->n_contents; k++)
                if (!write_blob(rt, d, i, k, err, errlen))
                    return false;
    }
    return true;
}

static void find_bindings(struct runtime *rt)
{
    const struct loadable *l = rt->ld;
    rt->input_tensor = rt->output_tensor = rt->input_memory = rt->output_memory = -1;
    for (uint32_t i = 0; i < l->n_memories; i++) {
        const struct ld_memory *m = &l->memories[i];
        int t = loadable_tensor_index(l, m->tensor_desc_id);
        if ((m->flags & LD_MEM_INPUT) && rt->input_tensor < 0) {
            rt->input_tensor = t;
            rt->input_memory = (int)i;
        }
        if ((m->flags & LD_MEM_OUTPUT) && rt->output_tensor < 0) {
            rt->output_tensor = t;
            rt->output_memory = (int)i;
        }
    }
}

/* The descriptors a task hands its processor carry the interface version
 * they were written for; one this runtime does not know could be laid out
 * in a way it would misread, so the task is refused before anything runs. */
static bool check_task_version(const struct runtime *rt, uint32_t task, char *err,
                               size_t errlen)
{
    const struct ld_task *t = &rt->ld->tasks[task];
    const struct ld_blob *b = runtime_task_blob(rt, task, 0);
    if (!b)
        return true; /* no descriptor from a blob: nothing says a version */
    struct ld_version v = b->version;
    bool emu = t->interface == LD_IF_EMU1;
    if (emu ? emu_version_known(v) : fw_version_known(v.major, v.minor))
        return true;
    snprintf(err, errlen,
             "%s: task %u (file offset 0x%x): network descriptor blob \"%s\" (file offset "
             "0x%x) is tagged %s version %u.%u.%u, which dladbg does not know; it reads %s",
             rt->ld->name, t->id, t->at, b->name, b->at, emu ? "EMU" : "DLA descriptor", v.major,
             v.minor, v.sub_minor, emu ? emu_versions_known() : fw_versions_known());
    return false;
}

static bool load(struct runtime *rt, const struct loadable *l, struct dla *d,
                 struct rt_bound *bound, char *err, size_t errlen)
{
    memset(rt, 0, sizeof *rt);
    rt->ld = l;
    rt->bound = bound;
    rt->mem = calloc(l->n_memories ? l->n_memories : 1, sizeof *rt->mem);
    if (!rt->mem) {
        snprintf(err, errlen, "%s: out of memory", l->name);
        return false;
    }
    find_bindings(rt);
    bool ok = place_memories(rt, d, err, errlen);
    for (uint32_t i = 0; ok && i < l->n_tasks; i++)
        ok = check_task_version(rt, i, err, errlen);
    if (!ok)
        runtime_free(rt); /* a failed load owns nothing: callers free only what loaded */
    return ok;
}

bool runtime_load(struct runtime *rt, const struct loadable *l, struct dla *d, char *err,
                  size_t errlen)
{
    return load(rt, l, d, NULL, err, errlen);
}

bool runtime_load_bound(struct runtime *rt, struct loadable *l, struct dla *d,
                        struct rt_bound *bound, char *err, size_t errlen)
{
    if (bound && !bound->ld)
        bound->ld = l;
    if (bound && bound->ld != l)
        bound = NULL; /* bound to another loadable: this one keeps its bytes */
    bool first = bound && !bound->image[DLA_DRAM];
    bool ok = load(rt, l, d, bound, err, errlen);
    if (!first)
        return ok;
    /* also after a failed load: every blob released so far is in memory */
    capture_image(bound, d);
    /* blobs filling several memories: all copied now */
    for (uint32_t i = 0; ok && i < l->n_memories; i++)
        if ((l->memories[i].flags & LD_MEM_SET) && rt->mem[i].placed)
            for (uint32_t k = 0; k < l->memories[i].n_contents; k++)
                loadable_release_blob(l, l->memories[i].content_blob[k]);
    /* the tables are parsed and the bytes are in memory and the image: the
     * file's buffer (descriptors, small blobs, pages a blob only shares) is
     * held no longer */
    if (ok)
        loadable_detach_buffer(l);
    return ok;
}

bool runtime_load_again(struct runtime *rt, struct loadable *l, struct dla *d,
                        struct rt_bound *bound, char *err, size_t errlen)
{
    if (bound && runtime_bound_holds(bound))
        return runtime_load_bound(rt, l, d, bound, err, errlen);
    return runtime_load(rt, l, d, err, errlen);
}

void runtime_free(struct runtime *rt)
{
    free(rt->mem);
    rt->mem = NULL;
}

bool runtime_reload_dep_graphs(const struct runtime *rt, struct dla *d, char *err, size_t errlen)
{
    const struct loadable *l = rt->ld;
    for (uint32_t i = 0; i < l->n_memories; i++) {
        const struct ld_memory *m = &l->memories[i];
        if (!(m->flags & LD_MEM_SET) || !rt->mem[i].placed)
            continue;
        for (uint32_t k = 0; k < m->n_contents; k++)
            if (strstr(m->contents[k], "dep_graph") && !write_blob(rt, d, i, k, err, errlen))
                return false;
    }
    return true;
}

static const struct ld_address *task_entry(const struct runtime *rt, uint32_t task, int32_t index)
{
    const struct loadable *l = rt->ld;
    if (task >= l->n_tasks || index < 0 || (uint32_t)index >= l->tasks[task].n_addresses)
        return NULL;
    int a = loadable_address_index(l, l->tasks[task].addresses[index]);
    if (a < 0 || !rt->mem[l->addresses[a].mem].placed)
        return NULL;
    return &l->addresses[a];
}

bool runtime_task_address(const struct runtime *rt, uint32_t task, int32_t index,
                          enum dla_space *space, uint64_t *addr)
{
    const struct ld_address *a = task_entry(rt, task, index);
    if (!a)
        return false;
    *space = (enum dla_space)rt->mem[a->mem].space;
    *addr = rt->mem[a->mem].addr + a->offset;
    return true;
}

bool runtime_task_buffer(const struct runtime *rt, uint32_t task, int32_t index,
                         enum dla_space *space, uint64_t *base, uint64_t *size)
{
    const struct ld_address *a = task_entry(rt, task, index);
    if (!a)
        return false;
    *space = (enum dla_space)rt->mem[a->mem].space;
    *base = rt->mem[a->mem].addr;
    *size = rt->ld->memories[a->mem].size;
    return true;
}

void runtime_locate(const struct runtime *rt, uint32_t task, int32_t index, uint64_t mem_offset,
                    char *buf, size_t len)
{
    const struct loadable *l = rt->ld;
    const struct ld_address *a = task_entry(rt, task, index);
    if (!a) {
        snprintf(buf, len, "address list entry %d", index);
        return;
    }
    const struct ld_memory *m = &l->memories[a->mem];
    int n = snprintf(buf, len, "address list entry %d (memory %u", index, m->id);
    for (uint32_t k = 0; k < m->n_contents && n >= 0 && (size_t)n < len; k++) {
        const struct ld_blob *b = &l->blobs[m->content_blob[k]];
        if (mem_offset < m->offsets[k] || mem_offset - m->offsets[k] >= b->data_len)
            continue;
        uint64_t in_blob = mem_offset - m->offsets[k];
        n += snprintf(buf + n, len - (size_t)n, ", blob \"%s\" + 0x%llx, file offset 0x%llx",
                      b->name, (unsigned long long)in_blob,
                      (unsigned long long)(b->data_at + in_blob));
        break;
    }
    if (n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ")");
}

void runtime_tensor_place(const struct runtime *rt, int index, char *buf, size_t len)
{
    const struct ld_tensor *t = &rt->ld->tensors[index];
    snprintf(buf, len, "%s: tensor %u \"%s\" (file offset 0x%x)", rt->ld->name, t->id,
             t->name ? t->name : "", t->at);
}

const struct ld_blob *runtime_task_blob(const struct runtime *rt, uint32_t task, int32_t index)
{
    const struct ld_address *a = task_entry(rt, task, index);
    if (!a)
        return NULL;
    const struct ld_memory *m = &rt->ld->memories[a->mem];
    if (!(m->flags & LD_MEM_SET) || m->n_contents == 0)
        return NULL;
    return &rt->ld->blobs[m->content_blob[0]];
}

/* ---------------------------------------------------------------- output */

bool runtime_read_output(const struct runtime *rt, struct dla *d, uint8_t **buf, uint64_t *len,
                         char *err, size_t errlen)
{
    *buf = NULL;
    if (rt->output_tensor < 0) {
        snprintf(err, errlen, "%s: the loadable has no output tensor to write", rt->ld->name);
        return false;
    }
    const struct ld_tensor *t = &rt->ld->tensors[rt->output_tensor];
    *len = t->size;
    if (*len > DIMG_MAX_PAYLOAD) {
        char place[512];
        runtime_tensor_place(rt, rt->output_tensor, place, sizeof place);
        snprintf(err, errlen, "%s: output tensor of %llu bytes; dladbg reads at most %u", place,
                 (unsigned long long)*len, DIMG_MAX_PAYLOAD);
        return false;
    }
    *buf = malloc(*len ? *len : 1);
    if (!*buf) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    int m = rt->output_memory;
    enum mem_status st = dla_mem_read(d, (enum dla_space)rt->mem[m].space,
                                      rt->mem[m].addr + t->offset, *buf, *len);
    if (st != MEM_OK) {
        char place[512];
        runtime_tensor_place(rt, rt->output_tensor, place, sizeof place);
        snprintf(err, errlen, "%s: output tensor: %s", place, mem_status_str(st));
        free(*buf);
        *buf = NULL;
        return false;
    }
    return true;
}

bool runtime_write_output(const struct runtime *rt, struct dla *d, const char *path, char *err,
                          size_t errlen)
{
    uint8_t *buf;
    uint64_t len;
    if (!runtime_read_output(rt, d, &buf, &len, err, errlen))
        return false;
    struct tensor_layout lay;
    if (!tensor_layout_output(&rt->ld->tensors[rt->output_tensor], &lay, err, errlen)) {
        free(buf);
        return false;
    }
    struct dimg_header h = dimg_header_for(&lay);
    uint8_t *payload = NULL;
    size_t plen = 0;
    bool ok = dimg_pack(&lay, buf, len, &payload, &plen);
    if (!ok) {
        char place[512];
        runtime_tensor_place(rt, rt->output_tensor, place, sizeof place);
        snprintf(err, errlen, "%s: output tensor %ux%ux%u cannot be gathered (too large)", place,
                 h.channel, h.height, h.width);
    } else {
        ok = dimg_write(path, &h, payload, plen, err, errlen);
    }
    free(payload);
    free(buf);
    return ok;
}
