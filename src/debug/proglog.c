/* The programming log behind "export txn". */
#include "proglog.h"

#include "core/regdb.h"
#include "util/deflate_bytes.h"
#include "util/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES (4u << 20)
/* NVIDIA's testbench converter reads .dat files 32 bytes a line, so a check
 * covers whole 32-byte lines. */
#define CHECK_ALIGN 32u
#define NO_BIT      0xffu

/* An entry as kept: 16 bytes, where struct plog_entry takes 40 (a run of
 * a million one-line layers logs fifteen million).  A memory entry's space,
 * range and bytes sit in a span, addr its index there. */
struct packed {
    uint32_t addr; /* PLOG_WRITE, PLOG_READ: CSB address; PLOG_MEM, PLOG_CHECK: span */
    uint32_t value;
    uint32_t events_lo; /* hardware events, 48 bits */
    uint16_t events_hi;
    uint8_t kind;
    uint8_t flags; /* PLOG_WAIT: FLAG_INTR, FLAG_OK */
};
_Static_assert(sizeof(struct packed) == 16, "a packed log entry grew past 16 bytes");
#define FLAG_INTR 1u
#define FLAG_OK   2u
#define EVENTS_MAX ((1ull << 48) - 1)

struct span {
    uint8_t kind, space;
    uint32_t clone;
    uint64_t mem_addr, mem_len;
    size_t entry; /* the entry it belongs to */
};

/* The range a check covers as the layer left it: a copy of a small range,
 * or, from SHARE_FROM bytes on, a memory of its own sharing the live
 * memory's 4 KiB blocks copy-on-write (a block costs memory once the run
 * overwrites it, and then once for every saved state sharing it too; the
 * partial blocks at the ends are copied, which for a small range would
 * cost more than the range).  A copy that reads as the previous check's is
 * that copy: a run of alike layers writing alike bytes keeps them once.
 * A copy from PACK_FROM bytes on is kept deflated, and so is a shared
 * range once the run writes over it (the layers of a network reuse their
 * buffers: resnet18-cifar10 overwrote 1.0 of its 1.03 MB of checked
 * outputs, which then took more than its working set; deflated, a
 * sixth). */
struct copy {
    unsigned refs;
    uint32_t packed; /* bytes of the deflate stream in bytes[]; 0: the range as is */
    uint8_t bytes[];
};

struct check_bytes {
    struct copy *copy;
    struct dla_mem *shared;
    uint64_t len;
};
#define SHARE_FROM (4 * MEM_BLOCK_SIZE)
#define PACK_FROM  512u

/* A check sharing the live memory's blocks: packed when the run writes
 * over them. */
struct pending {
    size_t check; /* index in bytes[] */
    uint8_t space;
    uint64_t addr;
};

struct proglog {
    size_t n, cap;
    struct packed *e;
    size_t n_spans, cap_spans;
    struct span *spans;
    size_t n_clones, cap_clones;
    struct dla_mem **clones;              /* contents of PLOG_MEM entries */
    struct dla_mem *ref[DLA_SPACE_COUNT]; /* memory as last compared */
    uint64_t seen_host;
    size_t n_ranges, cap_ranges, compacted;
    struct plog_range *ranges;
    /* what a completing stage wrote, until its LAYER_DONE */
    size_t n_fresh, cap_fresh;
    struct plog_range *fresh;
    /* outputs of completed layers awaiting their check: PLOG_CHECK entries
     * whose value is the interrupt bit raised with them (NO_BIT: none yet) */
    size_t n_outs, cap_outs;
    struct plog_entry *outs;
    size_t n_bytes, cap_bytes;
    /* what each check expects, by plog_entry.clone */
    struct check_bytes *bytes;
    size_t n_pending, cap_pending;
    struct pending *pending;
    uint32_t intr_status; /* byte address of GLB.S_INTR_STATUS; 0 when unknown */
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
    free(l->spans);
    free(l->clones);
    free(l->ranges);
    free(l->fresh);
    free(l->outs);
    free(l->bytes);
    free(l->pending);
    free(l);
}

static void fail(struct proglog *l, const char *why)
{
    if (!l->overflow)
        snprintf(l->why, sizeof l->why, "%s", why);
    l->overflow = true;
}

static uint64_t now_events(const struct proglog *l)
{
    return l->s ? session_events(l->s) : 0;
}

/* Room for one more entry (and span); false when the log stopped. */
static bool reserve(struct proglog *l, bool span)
{
    if (l->overflow)
        return false;
    if (l->n == l->cap) {
        /* by half at a time: a long run's log holds a third of its room idle
         * at most, not half */
        size_t cap = l->cap ? l->cap + l->cap / 2 : 1024;
        if (cap > MAX_ENTRIES)
            cap = MAX_ENTRIES;
        struct packed *e = cap > l->cap ? realloc(l->e, cap * sizeof *e) : NULL;
        if (!e) {
            fail(l, "the run is too long to record (more than 4M register accesses)");
            return false;
        }
        l->e = e;
        l->cap = cap;
    }
    if (span && l->n_spans == l->cap_spans) {
        size_t cap = l->cap_spans ? l->cap_spans + l->cap_spans / 2 : 64;
        struct span *sp = realloc(l->spans, cap * sizeof *sp);
        if (!sp) {
            fail(l, "out of memory");
            return false;
        }
        l->spans = sp;
        l->cap_spans = cap;
    }
    return true;
}

static bool has_span(uint8_t kind)
{
    return kind == PLOG_MEM || kind == PLOG_CHECK;
}

/* e at the end of the log, packed; false when the log stopped. */
static bool append(struct proglog *l, const struct plog_entry *e)
{
    if (!reserve(l, has_span(e->kind)))
        return false;
    uint64_t events = e->events < EVENTS_MAX ? e->events : EVENTS_MAX;
    struct packed *k = &l->e[l->n];
    *k = (struct packed){.addr = e->addr,
                         .value = e->value,
                         .events_lo = (uint32_t)events,
                         .events_hi = (uint16_t)(events >> 32),
                         .kind = e->kind,
                         .flags = (uint8_t)((e->intr ? FLAG_INTR : 0) | (e->ok ? FLAG_OK : 0))};
    if (has_span(e->kind)) {
        k->addr = (uint32_t)l->n_spans;
        l->spans[l->n_spans++] = (struct span){.kind = e->kind,
                                               .space = e->space,
                                               .clone = e->clone,
                                               .mem_addr = e->mem_addr,
                                               .mem_len = e->mem_len,
                                               .entry = l->n};
    }
    l->n++;
    return true;
}

static void unpack(const struct proglog *l, size_t i, struct plog_entry *out)
{
    const struct packed *k = &l->e[i];
    *out = (struct plog_entry){.kind = k->kind,
                               .intr = (k->flags & FLAG_INTR) != 0,
                               .ok = (k->flags & FLAG_OK) != 0,
                               .addr = k->addr,
                               .value = k->value,
                               .events = (uint64_t)k->events_hi << 32 | k->events_lo};
    if (has_span(k->kind)) {
        const struct span *sp = &l->spans[k->addr];
        out->addr = 0;
        out->space = sp->space;
        out->clone = sp->clone;
        out->mem_addr = sp->mem_addr;
        out->mem_len = sp->mem_len;
    }
}

/* ---------------------------------------------------------------- written ranges */

static int cmp_range(const void *a, const void *b)
{
    const struct plog_range *x = a, *y = b;
    if (x->space != y->space)
        return x->space < y->space ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Sorts r and merges ranges that overlap or touch, each first widened to
 * whole multiples of align; returns how many remain. */
static size_t merge_ranges(struct plog_range *r, size_t n, uint64_t align)
{
    if (!n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t end = (r[i].addr + r[i].len + align - 1) / align * align;
        r[i].addr = r[i].addr / align * align;
        r[i].len = end - r[i].addr;
    }
    qsort(r, n, sizeof *r, cmp_range);
    size_t out = 0;
    for (size_t i = 1; i < n; i++) {
        struct plog_range *last = &r[out];
        if (r[i].space == last->space && r[i].addr <= last->addr + last->len) {
            uint64_t end = r[i].addr + r[i].len;
            if (end > last->addr + last->len)
                last->len = end - last->addr;
        } else {
            r[++out] = r[i];
        }
    }
    return out + 1;
}

static void compact_ranges(struct proglog *l)
{
    l->n_ranges = merge_ranges(l->ranges, l->n_ranges, 1);
    l->compacted = l->n_ranges;
}

static bool add_range(struct proglog *l, struct plog_range **v, size_t *n, size_t *cap,
                      struct plog_range r)
{
    struct plog_range *g = grow_for_one(*v, *n, cap, 64, sizeof *g);
    if (!g) {
        fail(l, "out of memory");
        return false;
    }
    *v = g;
    (*v)[(*n)++] = r;
    return true;
}

static void note_written(struct proglog *l, uint8_t space, uint64_t addr, uint64_t len)
{
    if (!len || len > (1ull << 40))
        return;
    struct plog_range r = {.space = space, .addr = addr, .len = len};
    if (!add_range(l, &l->ranges, &l->n_ranges, &l->cap_ranges, r) ||
        !add_range(l, &l->fresh, &l->n_fresh, &l->cap_fresh, r))
        return;
    if (l->n_ranges >= 2 * l->compacted + 64)
        compact_ranges(l);
}

/* ---------------------------------------------------------------- checks */

static void drop_check(struct check_bytes *c)
{
    if (c->copy && --c->copy->refs == 0)
        free(c->copy);
    mem_destroy(c->shared);
    *c = (struct check_bytes){0};
}

/* Pending checks dropped leave the list at once: their index may be
 * another check's next. */
static void forget_dropped(struct proglog *l)
{
    size_t keep = 0;
    for (size_t i = 0; i < l->n_pending; i++)
        if (l->pending[i].check < l->n_bytes && l->bytes[l->pending[i].check].shared)
            l->pending[keep++] = l->pending[i];
    l->n_pending = keep;
}

static void drop_bytes(struct proglog *l, size_t keep)
{
    while (l->n_bytes > keep)
        drop_check(&l->bytes[--l->n_bytes]);
    forget_dropped(l);
}

static void drop_outs(struct proglog *l)
{
    for (size_t i = 0; i < l->n_outs; i++) {
        drop_check(&l->bytes[l->outs[i].clone]);
    }
    l->n_outs = 0;
    forget_dropped(l);
}

/* Room for one more awaited output and its bytes. */
static bool grow_outs(struct proglog *l)
{
    struct check_bytes *b = l->bytes;
    if (l->n_bytes == l->cap_bytes) {
        size_t cap = l->cap_bytes + l->cap_bytes / 2 + 64;
        if ((b = realloc(l->bytes, cap * sizeof *b)) != NULL) {
            l->bytes = b;
            l->cap_bytes = cap;
        }
    }
    if (!b)
        return false;
    struct plog_entry *o = grow_for_one(l->outs, l->n_outs, &l->cap_outs, 8, sizeof *o);
    if (!o)
        return false;
    l->outs = o;
    return true;
}

/* The previous check's copy when it holds what c's does (c's is dropped). */
static size_t copy_size(const struct check_bytes *c)
{
    return c->copy->packed ? c->copy->packed : (size_t)c->len;
}

static void share_alike(struct proglog *l, struct check_bytes *c)
{
    struct check_bytes *prev = l->n_bytes ? &l->bytes[l->n_bytes - 1] : NULL;
    if (!prev || !prev->copy || prev->len != c->len || prev->copy->packed != c->copy->packed ||
        memcmp(prev->copy->bytes, c->copy->bytes, copy_size(c)) != 0)
        return;
    free(c->copy);
    c->copy = prev->copy;
    c->copy->refs++;
}

struct range_reader {
    const struct dla_mem *mem;
    uint64_t addr;
};

static bool read_range(void *ctx, uint64_t at, uint8_t *buf, size_t n)
{
    const struct range_reader *rr = ctx;
    return mem_read(rr->mem, rr->addr + at, buf, n) == MEM_OK;
}

/* len bytes of mem at addr as a copy: deflated when that is much smaller;
 * NULL when out of memory. */
static struct copy *copy_range(const struct dla_mem *mem, uint64_t addr, uint64_t len)
{
    struct range_reader rr = {mem, addr};
    size_t packed = 0;
    struct copy *c =
        len >= PACK_FROM ? (struct copy *)deflate_bytes(read_range, &rr, len, sizeof *c, &packed)
                         : NULL;
    if (!c) {
        packed = 0;
        if (!(c = malloc(sizeof *c + len)) || mem_read(mem, addr, c->bytes, len) != MEM_OK) {
            free(c);
            return NULL;
        }
    }
    c->refs = 1;
    c->packed = (uint32_t)packed;
    return c;
}

static bool keep_pending(struct proglog *l, size_t check, const struct plog_range *r)
{
    struct pending *p = grow_for_one(l->pending, l->n_pending, &l->cap_pending, 16, sizeof *p);
    if (!p)
        return false;
    l->pending = p;
    l->pending[l->n_pending++] = (struct pending){check, r->space, r->addr};
    return true;
}

/* c is to be check number l->n_bytes. */
static bool keep_check(struct proglog *l, const struct plog_range *r, struct check_bytes *c)
{
    const struct dla_mem *live = dla_memory(l->d, (enum dla_space)r->space);
    c->len = r->len;
    if (r->len < SHARE_FROM) {
        if (!(c->copy = copy_range(live, r->addr, r->len)))
            return false;
        share_alike(l, c);
        return true;
    }
    return (c->shared = mem_create("check", 64, UINT64_MAX)) != NULL &&
           mem_copy_from(c->shared, live, r->addr, r->len) == MEM_OK &&
           keep_pending(l, l->n_bytes, r);
}

/* Shared checks whose blocks the run (hardware or host) has written over
 * since are packed: their bytes would otherwise be held whole beside the
 * live memory.  Those still shared stay pending; a check dropped (stepping
 * back) leaves the list. */
static void pack_overwritten(struct proglog *l)
{
    size_t keep = 0;
    for (size_t i = 0; i < l->n_pending; i++) {
        struct pending p = l->pending[i];
        struct check_bytes *c = &l->bytes[p.check];
        const struct dla_mem *live = dla_memory(l->d, (enum dla_space)p.space);
        struct copy *packed = NULL;
        if (!mem_blocks_shared(c->shared, live, p.addr, c->len) &&
            (packed = copy_range(c->shared, p.addr, c->len)) != NULL) {
            mem_destroy(c->shared);
            c->shared = NULL;
            c->copy = packed;
            continue;
        }
        l->pending[keep++] = p; /* still shared (or no memory to pack it now) */
    }
    l->n_pending = keep;
}

/* A stage completed: its writes, in whole lines as memory holds them now,
 * await the interrupt it raises next. */
static void stage_done(struct proglog *l)
{
    pack_overwritten(l);
    size_t n = merge_ranges(l->fresh, l->n_fresh, CHECK_ALIGN);
    l->n_fresh = 0;
    for (size_t i = 0; i < n && !l->overflow; i++) {
        const struct plog_range *r = &l->fresh[i];
        if (r->len > (1ull << 32))
            continue; /* not a surface: nothing a trace could compare */
        struct check_bytes kept = {0};
        if (!grow_outs(l) || !keep_check(l, r, &kept)) {
            drop_check(&kept);
            fail(l, "out of memory");
            return;
        }
        l->bytes[l->n_bytes] = kept;
        l->outs[l->n_outs++] = (struct plog_entry){.kind = PLOG_CHECK,
                                                   .space = r->space,
                                                   .mem_addr = r->addr,
                                                   .mem_len = r->len,
                                                   .clone = (uint32_t)l->n_bytes++,
                                                   .value = NO_BIT};
    }
}

/* The interrupt raised right after a stage completed is the one that tells
 * the driver its output is complete. */
static void claim_outs(struct proglog *l, uint8_t bit)
{
    for (size_t i = 0; i < l->n_outs; i++)
        if (l->outs[i].value == NO_BIT)
            l->outs[i].value = bit;
}

/* Checks enter the log for outputs whose interrupt is among bits (all of
 * them when every is set). */
static void check_outs(struct proglog *l, uint32_t bits, bool every)
{
    size_t keep = 0;
    for (size_t i = 0; i < l->n_outs; i++) {
        struct plog_entry o = l->outs[i];
        bool due = every || (o.value != NO_BIT && (bits & (1u << o.value)));
        struct plog_entry e = o;
        e.value = 0;
        e.events = now_events(l);
        if (!due || !append(l, &e))
            l->outs[keep++] = o;
    }
    l->n_outs = keep;
}

uint8_t *proglog_check_copy(const struct proglog *l, const struct plog_entry *e)
{
    if (e->kind != PLOG_CHECK || e->clone >= l->n_bytes)
        return NULL;
    const struct check_bytes *c = &l->bytes[e->clone];
    if (!c->copy && !c->shared)
        return NULL;
    uint8_t *buf = malloc(e->mem_len ? e->mem_len : 1);
    if (buf && c->copy && c->copy->packed) {
        if (!inflate_bytes(c->copy->bytes, c->copy->packed, buf, e->mem_len)) {
            free(buf);
            buf = NULL;
        }
    } else if (buf && c->copy)
        memcpy(buf, c->copy->bytes, e->mem_len);
    else if (buf && mem_read(c->shared, e->mem_addr, buf, e->mem_len) != MEM_OK) {
        free(buf);
        buf = NULL;
    }
    return buf;
}

static uint64_t check_apart(const struct proglog *l, const struct plog_entry *e, uint64_t *covered)
{
    if (e->kind != PLOG_CHECK || e->clone >= l->n_bytes)
        return 0;
    const struct check_bytes *c = &l->bytes[e->clone];
    *covered += e->mem_len;
    if (c->copy)
        return copy_size(c) / c->copy->refs;
    return c->shared ? mem_bytes_apart(c->shared, dla_memory(l->d, (enum dla_space)e->space)) : 0;
}

uint64_t proglog_check_bytes_apart(const struct proglog *l, uint64_t *covered)
{
    uint64_t apart = 0;
    *covered = 0;
    for (size_t i = 0; l->d && i < l->n_spans; i++) {
        const struct span *sp = &l->spans[i];
        struct plog_entry e = {.kind = sp->kind,
                               .space = sp->space,
                               .clone = sp->clone,
                               .mem_addr = sp->mem_addr,
                               .mem_len = sp->mem_len};
        apart += check_apart(l, &e, covered);
    }
    for (size_t i = 0; l->d && i < l->n_outs; i++)
        apart += check_apart(l, &l->outs[i], covered);
    return apart;
}

size_t proglog_bytes(const struct proglog *l)
{
    uint64_t covered;
    return sizeof *l + l->cap * sizeof *l->e + l->cap_spans * sizeof *l->spans +
           l->cap_bytes * sizeof *l->bytes + l->cap_outs * sizeof *l->outs +
           l->cap_pending * sizeof *l->pending +
           (l->cap_ranges + l->cap_fresh) * sizeof *l->ranges + l->n_clones * sizeof *l->clones +
           (size_t)proglog_check_bytes_apart(l, &covered);
}

size_t proglog_unchecked(const struct proglog *l, const struct plog_entry **out)
{
    *out = l->outs;
    return l->n_outs;
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
        struct plog_entry e = {.kind = ev->kind == DLA_EV_REG_WRITE ? PLOG_WRITE : PLOG_READ,
                               .addr = ev->u.reg.addr,
                               .value = ev->u.reg.value,
                               .events = now_events(l)};
        if (!append(l, &e))
            return;
        /* the driver learns of a completion by reading the status bit, or
         * (a plain trace: wait, then clear) by clearing it */
        if (e.addr == l->intr_status && l->intr_status)
            check_outs(l, e.value, false);
    } else if (ev->kind == DLA_EV_DMA && ev->u.dma.write && ev->u.dma.client != DLA_C_HOST) {
        note_written(l, ev->u.dma.space, ev->u.dma.addr, ev->u.dma.bytes);
    } else if (ev->kind == DLA_EV_LAYER_DONE) {
        stage_done(l);
    } else if (ev->kind == DLA_EV_INTR) {
        claim_outs(l, ev->u.intr.bit);
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
    uint64_t *b = grow_for_one(pl->base, pl->n, &pl->cap, 64, sizeof *b);
    if (!b) {
        pl->failed = true;
        return false;
    }
    pl->base = b;
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
        const struct packed *last = l->n ? &l->e[l->n - 1] : NULL;
        struct span *run = last && last->kind == PLOG_MEM ? &l->spans[last->addr] : NULL;
        if (run && run->space == sp && run->clone == l->n_clones - 1 &&
            run->mem_addr + run->mem_len == a.base[i]) {
            run->mem_len += MEM_PAGE_SIZE;
            continue;
        }
        struct plog_entry e = {.kind = PLOG_MEM,
                               .space = (uint8_t)sp,
                               .mem_addr = a.base[i],
                               .mem_len = MEM_PAGE_SIZE,
                               .clone = (uint32_t)(l->n_clones - 1),
                               .events = now_events(l)};
        if (!append(l, &e))
            break;
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
    /* what the hardware wrote is checked before the host's work is loaded
     * over it (an EMU task, the firmware's write-back) */
    check_outs(l, 0, true);
    pack_overwritten(l);
    for (int i = 0; i < DLA_SPACE_COUNT; i++)
        if (l->ref[i])
            diff_space(l, (enum dla_space)i, dla_memory(l->d, (enum dla_space)i));
    rebase(l);
}

void proglog_wait_done(struct proglog *l, bool ok, uint64_t events)
{
    if (!l->d || events == 0)
        return;
    struct plog_entry e = {.kind = PLOG_WAIT,
                           .intr = dla_intr_line(l->d),
                           .ok = ok,
                           .value = events > 0xffffffffu ? 0xffffffffu : (uint32_t)events,
                           .events = now_events(l)};
    if (!append(l, &e))
        return;
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
    l->n_spans = 0;
    l->n_ranges = l->compacted = l->n_fresh = l->n_outs = 0;
    l->overflow = false;
    drop_clones(l, 0);
    drop_bytes(l, 0);
    drop_refs(l);
    l->s = s;
    l->d = s ? session_dla(s) : NULL;
    l->intr_status = 0;
    if (!l->d)
        return;
    struct regdb_ref ref;
    if (regdb_resolve(dla_regmap(l->d), "GLB.S_INTR_STATUS", &ref))
        l->intr_status = regdb_addr(ref.unit, ref.reg);
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

bool proglog_get(const struct proglog *l, size_t i, struct plog_entry *out)
{
    if (i >= l->n)
        return false;
    unpack(l, i, out);
    return true;
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
    struct plog_entry e;
    return proglog_get(l, l->n - 1, &e) ? e.events : 0;
}

size_t proglog_mark(const struct proglog *l)
{
    return l->n;
}

void proglog_truncate(struct proglog *l, size_t mark)
{
    if (mark < l->n)
        l->n = mark;
    /* outputs awaiting a check are dropped: those of layers completed
     * after the mark are recorded again as they complete again; those
     * completed before it lose their check (which was never in the log), as
     * a check of bytes from a run being left could be wrong */
    drop_outs(l);
    l->n_fresh = 0;
    while (l->n_spans && l->spans[l->n_spans - 1].entry >= l->n)
        l->n_spans--;
    size_t keep = 0, keep_bytes = 0;
    for (size_t i = 0; i < l->n_spans; i++) {
        const struct span *sp = &l->spans[i];
        if (sp->kind == PLOG_MEM && sp->clone + 1 > keep)
            keep = sp->clone + 1;
        if (sp->kind == PLOG_CHECK && sp->clone + 1 > keep_bytes)
            keep_bytes = sp->clone + 1;
    }
    drop_clones(l, keep);
    drop_bytes(l, keep_bytes);
    if (l->d)
        rebase(l);
}
