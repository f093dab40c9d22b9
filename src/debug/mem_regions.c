/* The memory a file binds, and whether an address is in it (mem_regions.h). */
#include "mem_regions.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/mem.h"
#include "session.h"
#include "util/grow.h"

bool region_list_add(struct region_list *l, enum dla_space space, uint64_t base, uint64_t size,
                     const char *fmt, ...)
{
    if (!size)
        return true;
    struct drv_region *r = grow_for_one(l->r, l->n, &l->cap, 16, sizeof *l->r);
    if (!r)
        return false;
    l->r = r;
    r = &l->r[l->n++];
    r->space = (uint8_t)space;
    r->base = base;
    /* the end is kept within the address space: base + size never wraps */
    r->size = size > UINT64_MAX - base ? UINT64_MAX - base : size;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->what, sizeof r->what, fmt, ap);
    va_end(ap);
    return true;
}

static int by_space_and_base(const void *a, const void *b)
{
    const struct drv_region *x = a, *y = b;
    if (x->space != y->space)
        return x->space < y->space ? -1 : 1;
    return x->base < y->base ? -1 : x->base > y->base;
}

void region_list_sort(struct region_list *l)
{
    if (l->n > 1)
        qsort(l->r, l->n, sizeof *l->r, by_space_and_base);
}

void region_list_free(struct region_list *l)
{
    free(l->r);
    *l = (struct region_list){0};
}

static bool holds(const struct drv_region *r, enum dla_space space, uint64_t addr)
{
    return r->space == space && addr >= r->base && addr - r->base < r->size;
}

/* Where the memory that holds addr ends (the end of a region or of a page
 * the run wrote), or addr itself when none does. */
static uint64_t memory_end(const struct drv_region *r, size_t n, const struct dla_mem *mem,
                           enum dla_space space, uint64_t addr)
{
    for (size_t i = 0; i < n; i++)
        if (holds(&r[i], space, addr))
            return r[i].base + r[i].size;
    uint64_t page_end = (addr | (MEM_PAGE_SIZE - 1)) + 1;
    if (mem && mem_page_resident(mem, addr) && page_end > addr)
        return page_end;
    return addr;
}

bool regions_first_outside(const struct drv_region *r, size_t n, const struct dla_mem *mem,
                           enum dla_space space, uint64_t addr, uint64_t len, uint64_t *outside)
{
    uint64_t end = len > UINT64_MAX - addr ? UINT64_MAX : addr + len;
    for (uint64_t at = addr; at < end;) {
        uint64_t next = memory_end(r, n, mem, space, at);
        if (next == at) {
            *outside = at;
            return true;
        }
        at = next;
    }
    return false;
}

void region_text(const struct drv_region *r, char *buf, size_t len)
{
    snprintf(buf, len, "%s 0x%llx-0x%llx (%s)", dla_space_name((enum dla_space)r->space),
             (unsigned long long)r->base, (unsigned long long)(r->base + r->size - 1), r->what);
}

void regions_nearest(const struct drv_region *r, size_t n, enum dla_space space, uint64_t addr,
                     char *buf, size_t len)
{
    const struct drv_region *below = NULL, *above = NULL;
    for (size_t i = 0; i < n; i++) {
        if (r[i].space != space)
            continue;
        if (r[i].base <= addr && (!below || r[i].base + r[i].size > below->base + below->size))
            below = &r[i];
        if (r[i].base > addr && (!above || r[i].base < above->base))
            above = &r[i];
    }
    char a[96] = "", b[96] = "";
    if (below)
        region_text(below, a, sizeof a);
    if (above)
        region_text(above, b, sizeof b);
    snprintf(buf, len, "%s%s%s", a, below && above ? ", " : "", b);
}

/* " (the tensor spans dram:0x8000f000-0x8000f03f, 64 bytes)": the extent
 * asked for, when it starts in memory; "" otherwise. */
static void extent_text(enum dla_space space, uint64_t addr, uint64_t len, uint64_t outside,
                        const char *what, char *buf, size_t buflen)
{
    buf[0] = 0;
    if (what && outside != addr)
        snprintf(buf, buflen, " (%s spans %s:0x%llx-0x%llx, %llu bytes)", what,
                 dla_space_name(space), (unsigned long long)addr,
                 (unsigned long long)(len - 1 > UINT64_MAX - addr ? UINT64_MAX : addr + len - 1),
                 (unsigned long long)len);
}

bool mem_accessible(struct session *s, enum dla_space space, uint64_t addr, uint64_t len,
                    const char *what, uint64_t *outside, char *msg, size_t msglen)
{
    struct driver *drv = session_driver(s);
    struct dla *dla = session_dla(s);
    struct dla_mem *mem = dla_memory(dla, space);
    if (!drv->ops->regions || !mem || !mem_in_range(mem, addr, len))
        return true;
    const struct drv_region *r;
    size_t n = drv->ops->regions(drv, dla, &r);
    if (!regions_first_outside(r, n, mem, space, addr, len, outside))
        return true;
    char near[256], extent[128];
    regions_nearest(r, n, space, *outside, near, sizeof near);
    extent_text(space, addr, len, *outside, what, extent, sizeof extent);
    snprintf(msg, msglen,
             "Cannot access memory at address %s:0x%llx%s: no memory %s binds and nothing the "
             "run wrote is there (%s%s%s; \"info mem\" lists the regions)",
             dla_space_name(space), (unsigned long long)*outside, extent, drv->name,
             near[0] ? "nearest: " : "it binds no ", near[0] ? near : dla_space_name(space),
             near[0] ? "" : " memory");
    return false;
}
