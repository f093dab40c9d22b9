/* Sparse, bounded simulated memory: one instance per address space (DRAM
 * behind MCIF, CV-SRAM behind CVIF).  Bytes never written read as zero (or
 * as the random contents mem_fill_random gave them).
 * Pages, and the 4 KiB blocks they are made of, are reference counted and
 * copied on write, so mem_clone() is cheap and checkpoints of a whole run
 * cost only the blocks that later change. */
#ifndef DLA_MEM_H
#define DLA_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MEM_PAGE_SHIFT 16
#define MEM_PAGE_SIZE  (1u << MEM_PAGE_SHIFT)
/* the unit of copy on write inside a page */
#define MEM_BLOCK_SHIFT 12
#define MEM_BLOCK_SIZE  (1u << MEM_BLOCK_SHIFT)

enum mem_status {
    MEM_OK = 0,
    MEM_OUT_OF_RANGE, /* access beyond the address width of the space */
    MEM_OVER_BUDGET,  /* writing would make resident memory exceed the budget */
};

struct dla_mem;

/* addr_bits: address width (32 or 64); budget: maximum resident bytes. */
struct dla_mem *mem_create(const char *name, unsigned addr_bits, uint64_t budget);
void mem_destroy(struct dla_mem *m);

/* A snapshot sharing every page with m until one of them writes it. */
struct dla_mem *mem_clone(const struct dla_mem *m);

const char *mem_name(const struct dla_mem *m);
bool mem_in_range(const struct dla_mem *m, uint64_t addr, uint64_t len);

enum mem_status mem_read(const struct dla_mem *m, uint64_t addr, void *buf, size_t len);
enum mem_status mem_write(struct dla_mem *m, uint64_t addr, const void *buf, size_t len);
enum mem_status mem_fill(struct dla_mem *m, uint64_t addr, uint8_t byte, uint64_t len);
/* Random contents for len bytes at addr, the same for a seed on every run:
 * nothing is allocated; a block's bytes are made from the seed and their
 * address when it is read, and kept once it is written (a trace's RANDOM
 * mem_init of 4 GB once took 8 GB).  Replaces what was written there. */
enum mem_status mem_fill_random(struct dla_mem *m, uint64_t addr, uint64_t len, uint64_t seed);
/* The blocks of random contents whose bytes the run has seen (read, or
 * written in part), in m or in any memory cloned from it or it from, as the
 * addresses of their first bytes, ascending, in *out (to free); their
 * count.  Each block is MEM_BLOCK_SIZE bytes; mem_random_initial gives the
 * bytes it had before anything was written to it.  A replay of the run
 * needs these (export txn loads them first). */
size_t mem_random_blocks(const struct dla_mem *m, uint64_t **out);
void mem_random_initial(const struct dla_mem *m, uint64_t base, uint8_t *out);
/* Copy len bytes at addr from src (another space or a clone) into m, as
 * mem_write of src's bytes would; whole pages src holds are shared with it
 * (copy on write) instead of copied. */
enum mem_status mem_copy_from(struct dla_mem *m, const struct dla_mem *src, uint64_t addr,
                              uint64_t len);
/* Whether the page holding addr is the same page (shared, not a copy) in a and
 * b: a page written since a clone is no longer shared. */
bool mem_page_shared(const struct dla_mem *a, const struct dla_mem *b, uint64_t addr);
/* Whether every whole block of [addr, addr + len) is the same block (shared,
 * not a copy) in a and b: true until one of them writes there.  Blocks the
 * range covers in part are not looked at (mem_copy_from copies those). */
bool mem_blocks_shared(const struct dla_mem *a, const struct dla_mem *b, uint64_t addr,
                       uint64_t len);
/* Whether len bytes at addr are within the space's range and, if every page
 * they touch were new, within its budget: for sizes read from a file,
 * checked before anything is allocated or written.  Allocates nothing. */
enum mem_status mem_check_extent(const struct dla_mem *m, uint64_t addr, uint64_t len);

/* Drop every page and random range (all bytes read as zero again). */
void mem_clear(struct dla_mem *m);

uint64_t mem_resident_bytes(const struct dla_mem *m);
/* Whether the page holding addr holds bytes something wrote (a RANDOM
 * range's blocks never read count as not written); reads nothing. */
bool mem_page_resident(const struct dla_mem *m, uint64_t addr);
/* The resident pages' count and the span from the lowest page's base to the
 * end of the highest (0 and 0 when none); reads and allocates nothing. */
uint64_t mem_page_span(const struct dla_mem *m, uint64_t *lo, uint64_t *hi);
/* Resident bytes of m's pages that live (the model m was cloned from) does
 * not hold, each divided among the clones sharing it: summed over a set of
 * clones, the memory they hold besides the live model's. */
uint64_t mem_bytes_apart(const struct dla_mem *m, const struct dla_mem *live);
const char *mem_status_str(enum mem_status s);

/* Iterate resident pages in address order: calls fn(page_base, bytes) for each;
 * stops early when fn returns false.  The bytes are gathered for the call
 * (valid during it only); whether two memories share a page is
 * mem_page_shared's question. */
void mem_each_page(const struct dla_mem *m, bool (*fn)(void *ctx, uint64_t base, const uint8_t *p),
                   void *ctx);

#endif
