/* The 64-byte DRAM lines the model's DMA clients read and wrote, as sets:
 * the golden NVIDIA's virtual platform records for address generation
 * (vp_traces/: VP_mem_rd, VP_mem_wr list one hex line address a line).
 * A listener on the model collects them from DLA_EV_DMA events (host loads
 * and debugger pokes are not DMA); each transfer marks every line its byte
 * range touches. */
#ifndef DLADBG_DMA_LINES_H
#define DLADBG_DMA_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dla.h"

#define DMA_LINE_BYTES 64u

/* Lines in blocks of LINE_BLOCK_LINES (256 KiB of DRAM), one bit a line:
 * a network's traffic is dense runs of lines, so a bitmap per block costs a
 * bit a line where a hash set of line numbers cost 8 to 16 bytes (tens of
 * MB on a ResNet-50). */
#define LINE_BLOCK_LINES 4096u

struct line_block {
    uint64_t key; /* block number + 1; 0: empty slot */
    uint64_t bits[LINE_BLOCK_LINES / 64];
};

struct line_set {
    struct line_block *blocks; /* open addressing on the block number */
    size_t cap, used;          /* slots, occupied slots */
    size_t count;              /* lines in the set */
};

void line_set_free(struct line_set *s);
/* false when memory runs out (the set is left as it was). */
bool line_set_add(struct line_set *s, uint64_t line);
bool line_set_has(const struct line_set *s, uint64_t line);
/* The line numbers in ascending order, malloc'ed (NULL when empty or out of memory). */
uint64_t *line_set_sorted(const struct line_set *s);

/* Read a golden list: one hex byte address a line (optional 0x; blank lines
 * and '#' comments skipped), each mapped to its line.  false with
 * "FILE:LINE: expected ..." in err. */
bool line_set_read(struct line_set *s, const char *path, char *err, size_t errlen);

struct dma_lines {
    struct line_set read, written;
    struct dla *dla;
    int listener;
    bool out_of_memory;
};

void dma_lines_init(struct dma_lines *l);
void dma_lines_attach(struct dma_lines *l, struct dla *d);
void dma_lines_detach(struct dma_lines *l);
void dma_lines_clear(struct dma_lines *l);
void dma_lines_free(struct dma_lines *l);
/* The listener (exposed for tests). */
void dma_lines_record(void *ctx, const struct dla_event *ev);

#endif
