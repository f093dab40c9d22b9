/* The runtime (the user-mode driver's job): places every memory of a
 * loadable in simulated DRAM or CV-SRAM, fills SET memories from blobs,
 * resolves task address lists, binds the input and output tensors and writes
 * the output tensor as a DIMG.
 *
 * Allocation is a deterministic bump allocator (DRAM from 0x80000000,
 * CV-SRAM from 0x50000000), so the same loadable always lands at the same
 * addresses. */
#ifndef DLADBG_RUNTIME_H
#define DLADBG_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dla.h"
#include "loadable/loadable.h"

#define RT_DRAM_BASE     0x80000000ull
#define RT_CVSRAM_BASE   0x50000000ull
#define RT_DEFAULT_ALIGN 4096u

struct rt_memory {
    uint64_t addr;
    uint8_t space; /* enum dla_space */
    bool placed;
};

/* The blobs once bound: the simulated memory right after the first load,
 * kept (copy on write, so it costs only pages the run later overwrites) in
 * place of the loadable's own copy of the blob bytes, which that load gives
 * back as it copies each blob.  Every later load of the same loadable (a
 * restart, a replay from the start) takes the blobs from this image, sharing
 * its pages; the dependency graphs re-copied before each submit too. */
struct rt_bound;
struct rt_bound *runtime_bound_create(void);
void runtime_bound_free(struct rt_bound *b);
/* Whether blob bytes have been given back to the image (for tests). */
bool runtime_bound_holds(const struct rt_bound *b);

struct runtime {
    const struct loadable *ld;
    struct rt_bound *bound; /* NULL: blobs always come from the loadable */
    struct rt_memory *mem;           /* one per memory-list entry */
    int input_tensor, output_tensor; /* tensor indexes, -1 none */
    int input_memory, output_memory; /* memory indexes, -1 none */
};

/* Where runtime_load places each memory of l (out: one per memory-list
 * entry; `placed` false for the ones nothing allocates): the same for a
 * loadable and configuration every time, so known before the load too. */
void runtime_place(const struct loadable *l, bool has_sram, struct rt_memory *out);

/* Place the memories and fill them (allocation and blob copies are host
 * writes into d).  false with a message on failure. */
bool runtime_load(struct runtime *rt, const struct loadable *l, struct dla *d, char *err,
                  size_t errlen);
/* runtime_load keeping the blobs in bound (see struct rt_bound): l's blob
 * bytes are released on the first load, the image serves the others. */
bool runtime_load_bound(struct runtime *rt, struct loadable *l, struct dla *d,
                        struct rt_bound *bound, char *err, size_t errlen);
/* A second look at a loadable a session runs (its plan, its tensors), in a
 * scratch model: the blobs come from bound's image when it holds one (its
 * pages shared, nothing copied), else from the loadable as runtime_load. */
bool runtime_load_again(struct runtime *rt, struct loadable *l, struct dla *d,
                        struct rt_bound *bound, char *err, size_t errlen);
void runtime_free(struct runtime *rt);

/* Before every submit NVIDIA's runtime copies again each blob whose name
 * contains "dep_graph", because the firmware writes dependency counters back
 * into that buffer.  Returns false on a memory error. */
bool runtime_reload_dep_graphs(const struct runtime *rt, struct dla *d, char *err, size_t errlen);

/* A task's address index -> memory space and device address (memory base +
 * address-entry offset: the DMA view).  false when the index is out of range. */
bool runtime_task_address(const struct runtime *rt, uint32_t task, int32_t index,
                          enum dla_space *space, uint64_t *addr);
/* The processor view used by the firmware to read descriptors: the memory
 * base of the address entry, without its offset. */
bool runtime_task_buffer(const struct runtime *rt, uint32_t task, int32_t index,
                         enum dla_space *space, uint64_t *base, uint64_t *size);
/* Where byte mem_offset of the memory behind a task's address index comes
 * from in the loadable, for messages: 'address list entry 3 (memory 2, blob
 * "task-0-dep_graph" + 0x2c, file offset 0x1a2c)', or without the blob part
 * when no blob fills that byte. */
void runtime_locate(const struct runtime *rt, uint32_t task, int32_t index, uint64_t mem_offset,
                    char *buf, size_t len);
/* "tensor 1 \"output\" (file offset 0x..)": a tensor descriptor, for messages. */
void runtime_tensor_place(const struct runtime *rt, int index, char *buf, size_t len);
/* The blob that fills the memory behind task address `index` (its first
 * content); NULL when that memory is not filled from a blob. */
const struct ld_blob *runtime_task_blob(const struct runtime *rt, uint32_t task, int32_t index);

/* Write the output tensor as a DIMG the way nvdla_runtime does (see dimg.h;
 * the input tensor is filled by input_tensor.h). */
/* The output tensor's bytes in its own layout (t->size of them, malloc'd). */
bool runtime_read_output(const struct runtime *rt, struct dla *d, uint8_t **buf, uint64_t *len,
                         char *err, size_t errlen);
bool runtime_write_output(const struct runtime *rt, struct dla *d, const char *path, char *err,
                          size_t errlen);

#endif
