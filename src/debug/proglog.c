/* The programming log behind "export txn". */
#include "proglog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES (4u << 20)

struct proglog {
    size_t n, cap;
    struct plog_entry *e;
    size_t n_clones, cap_clones;
    struct dla_mem **clones;              /* contents of PLOG_MEM entries */
    struct dla_mem *ref[DLA_SPACE_COUNT]; /* memory as last compared */
    uint64_t seen_host;
    size_t n_ranges, cap_ranges, compacted;
    struct plog_range *ranges;
    struct session *s;
    struct dla *d;
    int listener;
    bool overflow;
    char why[128];
};

struct proglog *proglog_create(void)
{
    struct proglog *l = calloc(1, sizeof *l);
    if (l)
        l->listener = -1;
    return l;
}

static void drop_clones(struct proglog *l, size_t keep)
{
    while (l->n_clones > keep)
        mem_destroy(l->clones[--l->n_clones]);
}

static void drop_refs(struct proglog *l)
{
    for (int i = 0; i < DLA_SPACE_COUNT; i++) {
        mem_destroy(l->ref[i]);
        l->ref[i] = NULL;
    }
}

void proglog_destroy(struct proglog *l)
{
    if (!l)
        return;
    proglog_attach(l, NULL);
    free(l->e);
    free(l->clones);
    free(l->ranges);
    free(l);
}

static void fail(struct proglog *l, const char *why)
{
    if (!l->overflow)
        snprintf(l->why, sizeof l->why, "%s", why);
    l->overflow = true;
}

static struct plog_entry *push(struct proglog *l)
{
    if (l->overflow)
        return NULL;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 1024;
        struct plog_entry *e = cap <= MAX_ENTRIES ? realloc(l->e, cap * sizeof *e) : NULL;
        if (!e) {
            fail(l, "the run is too long to record (more than 4M register accesses)");
            return NULL;
        }
        l->e = e;
        l->cap = cap;
    }
    struct plog_entry *e = &l->e[l->n++];
    memset(e, 0, sizeof *e);
    e->events = l->s ? session_events(l->s) : 0;
    return e;
}

/* ---------------------------------------------------------------- written ranges */

static int cmp_range(const void *a, const void *b)
{
    const struct plog_range *x = a, *y = b;
    if (x->space != y->space)
        return x->space < y->space ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void compact_ranges(struct proglog *l)
{
    if (!l->n_ranges)
        return;
    qsort(l->ranges, l->n_ranges, sizeof *l->ranges, cmp_range);
    size_t out = 0;
    for (size_t i = 1; i < l->n_ranges; i++) {
        struct plog_range *last = &l->ranges[out];
        const struct plog_range *r = &l->ranges[i];
        if (r->space == last->space && r->addr <= last->addr + last->len) {
            uint64_t end = r->addr + r->len;
            if (end > last->addr + last->len)
                last->len = end - last->addr;
        } else {
            l->ranges[++out] = *r;
        }
    }
    l->n_ranges = out + 1;
    l->compacted = l->n_ranges;
}

static void note_written(struct proglog *l, uint8_t space, uint64_t addr, uint64_t len)
{
    if (!len || len > (1ull << 40))
        return;
    if (l->n_ranges == l->cap_ranges) {
        size_t cap = l->cap_ranges ? l->cap_ranges * 2 : 64;
        struct plog_range *r = realloc(l->ranges, cap * sizeof *r);
        if (!r) {
            fail(l, "out of memory");
            return;
        }
        l->ranges = r;
        l->cap_ranges = cap;
    }
    l->ranges[l->n_ranges++] = (struct plog_range){.space = space, .addr = addr, .len = len};
    if (l->n_ranges >= 2 * l->compacted + 64)
        compact_ranges(l);
}

size_t proglog_written(struct proglog *l, const struct plog_range **out)
{
    compact_ranges(l);
    *out = l->ranges;
    return l->n_ranges;
}

/* ---------------------------------------------------------------- events */

static void on_event(void *ctx, const struct dla_event *ev)
{
    struct proglog *l = ctx;
    if (ev->kind == DLA_EV_REG_WRITE || ev->kind == DLA_EV_REG_READ) {
        if (ev->u.reg.unit == DLA_U_NONE)
            return; /* an access the hardware ignored: nothing to replay */
        struct plog_entry *e = push(l);
        if (!e)
            return;
        e->kind = ev->kind == DLA_EV_REG_WRITE ? PLOG_WRITE : PLOG_READ;
        e->addr = ev->u.reg.addr;
        e->value = ev->u.reg.value;
    } else if (ev->kind == DLA_EV_DMA && ev->u.dma.write && ev->u.dma.client != DLA_C_HOST) {
        note_written(l, ev->u.dma.space, ev->u.dma.addr, ev->u.dma.bytes);
    }
}

/* ---------------------------------------------------------------- host memory */

struct page_list {
    size_t n, cap;
    uint64_t *base;
    bool failed;
};

static bool collect_page(void *ctx, uint64_t base, const uint8_t *p)
{
    (void)p;
    struct page_list *pl = ctx;
    if (pl->n == pl->cap) {
        size_t cap = pl->cap ? pl->cap * 2 : 64;
        uint64_t *b = realloc(pl->base, cap * sizeof *b);
        if (!b) {
            pl->failed = true;
            return false;
        }
        pl->base = b;
        pl->cap = cap;
    }
    pl->base[pl->n++] = base;
    return true;
}

static void free_pages(struct page_list *pl)
{
    free(pl->base);
}

/* Pages of cur that differ from ref (by page identity: copy on write gives a
 * written page a new one, mem_page_shared), as runs of consecutive pages. */
static void diff_space(struct proglog *l, enum dla_space sp, struct dla_mem *cur)
{
    struct page_list a = {0};
    mem_each_page(cur, collect_page, &a);
    if (a.failed) {
        fail(l, "out of memory");
        free_pages(&a);
        return;
    }
    bool cloned = false;
    for (size_t i = 0; i < a.n && !l->overflow; i++) {
        if (mem_page_shared(cur, l->ref[sp], a.base[i]))
            continue;
        if (!cloned) {
            struct dla_mem **c = realloc(l->clones, (l->n_clones + 1) * sizeof *c);
            struct dla_mem *m = c ? mem_clone(cur) : NULL;
            if (c)
                l->clones = c;
            if (!m) {
                fail(l, "out of memory");
                break;
            }
            l->clones[l->n_clones++] = m;
            cloned = true;
        }
        struct plog_entry *last = l->n ? &l->e[l->n - 1] : NULL;
        if (last && last->kind == PLOG_MEM && last->space == sp && last->clone == l->n_clones - 1 &&
            last->mem_addr + last->mem_len == a.base[i]) {
            last->mem_len += MEM_PAGE_SIZE;
            continue;
        }
        struct plog_entry *e = push(l);
        if (!e)
            break;
        e->kind = PLOG_MEM;
        e->space = (uint8_t)sp;
        e->mem_addr = a.base[i];
        e->mem_len = MEM_PAGE_SIZE;
        e->clone = (uint32_t)(l->n_clones - 1);
    }
    free_pages(&a);
}

static void rebase(struct proglog *l)
{
    drop_refs(l);
    for (int i = 0; i < DLA_SPACE_COUNT; i++)
        l->ref[i] = mem_clone(dla_memory(l->d, (enum dla_space)i));
    l->seen_host = dla_client_bytes(l->d, DLA_C_HOST);
}

void proglog_fetched(struct proglog *l)
{
    if (!l->d || l->overflow || dla_client_bytes(l->d, DLA_C_HOST) == l->seen_host)
        return;
    for (int i = 0; i < DLA_SPACE_COUNT; i++)
        if (l->ref[i])
            diff_space(l, (enum dla_space)i, dla_memory(l->d, (enum dla_space)i));
    rebase(l);
}

void proglog_wait_done(struct proglog *l, bool ok, uint64_t events)
{
    if (!l->d || events == 0)
        return;
    struct plog_entry *e = push(l);
    if (!e)
        return;
    e->kind = PLOG_WAIT;
    e->intr = dla_intr_line(l->d);
    e->ok = ok;
    e->value = events > 0xffffffffu ? 0xffffffffu : (uint32_t)events;
    /* later host changes are then told apart from what the hardware wrote */
    if (dla_client_bytes(l->d, DLA_C_HOST) == l->seen_host)
        rebase(l);
}

/* ---------------------------------------------------------------- access */

void proglog_attach(struct proglog *l, struct session *s)
{
    if (l->d && l->listener >= 0)
        dla_unlisten(l->d, l->listener);
    l->listener = -1;
    l->n = 0;
    l->n_ranges = l->compacted = 0;
    l->overflow = false;
    drop_clones(l, 0);
    drop_refs(l);
    l->s = s;
    l->d = s ? session_dla(s) : NULL;
    if (!l->d)
        return;
    l->listener = dla_listen(l->d, on_event, l);
    /* compare against empty memories: whatever the driver loaded at open counts */
    for (int i = 0; i < DLA_SPACE_COUNT; i++)
        l->ref[i] = mem_create("reference", 64, UINT64_MAX);
    l->seen_host = (uint64_t)-1;
}

size_t proglog_count(const struct proglog *l)
{
    return l->n;
}

const struct plog_entry *proglog_get(const struct proglog *l, size_t i)
{
    return i < l->n ? &l->e[i] : NULL;
}

bool proglog_mem_read(const struct proglog *l, const struct plog_entry *e, uint64_t addr, void *buf,
                      size_t len)
{
    if (e->kind != PLOG_MEM || e->clone >= l->n_clones)
        return false;
    return mem_read(l->clones[e->clone], addr, buf, len) == MEM_OK;
}

bool proglog_complete(const struct proglog *l, char *why, size_t len)
{
    if (l->overflow)
        snprintf(why, len, "%s", l->why);
    return !l->overflow;
}

uint64_t proglog_events_at_end(const struct proglog *l)
{
    return l->n ? l->e[l->n - 1].events : 0;
}

size_t proglog_mark(const struct proglog *l)
{
    return l->n;
}

void proglog_truncate(struct proglog *l, size_t mark)
{
    if (mark < l->n)
        l->n = mark;
    size_t keep = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].kind == PLOG_MEM && l->e[i].clone + 1 > keep)
            keep = l->e[i].clone + 1;
    drop_clones(l, keep);
    if (l->d)
        rebase(l);
}
