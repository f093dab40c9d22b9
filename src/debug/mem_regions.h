/* The memory a file binds (struct drv_region in driver.h): the list a
 * driver builds, and the one question x, dump memory and tensor ADDR ask of
 * it, as gdb's "Cannot access memory at address" answers it: whether the
 * bytes they would read are memory the file has.  The simulated memory is
 * sparse, so without this any address read as zeros. */
#ifndef DLADBG_MEM_REGIONS_H
#define DLADBG_MEM_REGIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dla.h"
#include "driver.h"

struct region_list {
    struct drv_region *r;
    size_t n, cap;
};

/* One more region (what: printf-style); false when out of memory.  A
 * region of no bytes is left out. */
bool region_list_add(struct region_list *l, enum dla_space space, uint64_t base, uint64_t size,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* In space, then base order, as driver_ops.regions gives them. */
void region_list_sort(struct region_list *l);
void region_list_free(struct region_list *l);

/* The first byte of [addr, addr + len) in space that no region holds and
 * that is in no page of mem the run has written (a trace's DMA may write
 * where none of its commands names: the model holds what it wrote in
 * MEM_PAGE_SIZE pages); false when every byte is memory. */
bool regions_first_outside(const struct drv_region *r, size_t n, const struct dla_mem *mem,
                           enum dla_space space, uint64_t addr, uint64_t len, uint64_t *outside);

/* The regions of space nearest addr, the one below it and the one above
 * ("dram 0x80000000-0x80004fff (memory 0)"); "" when space has none. */
void regions_nearest(const struct drv_region *r, size_t n, enum dla_space space, uint64_t addr,
                     char *buf, size_t len);

/* "dram 0x80000000-0x80004fff (memory 0)": one region as the messages and
 * "info mem" write it. */
void region_text(const struct drv_region *r, char *buf, size_t len);

struct session;

/* gdb's "Cannot access memory at address": whether the len bytes at addr
 * (len >= 1) are memory the session's file binds or the run wrote.  The
 * one check of x, dump memory, tensor ADDR and the TUI's memory pane.
 * false with *outside the first byte that is not and msg "Cannot access
 * memory at address dram:0x...: ..." naming the regions nearest it; when
 * the range starts in memory and what is given ("the tensor"), msg names
 * the extent too.  A range past the space's end is left to the read, which
 * says so. */
bool mem_accessible(struct session *s, enum dla_space space, uint64_t addr, uint64_t len,
                    const char *what, uint64_t *outside, char *msg, size_t msglen);

#endif
