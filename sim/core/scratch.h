/* The model's scratch arena: per-layer working buffers (CSC's operand rows,
 * its unpacked input and a kernel group's bytes, the fp16 FMA cells' kernel
 * layout) kept from one layer to the next instead of
 * allocated and freed by each.  A buffer freed at a layer's end went back
 * to the kernel (heap_policy's fixed mmap threshold), and the next layer
 * faulted its pages in again: a fifth of resnet18-cifar10's page faults.
 * Each slot grows to the largest request, shrinks when requests stay under
 * half of it (scratch.c), keeps only what glibc would give back (below) and
 * is freed by dla_destroy; a clone (checkpoint) owns none. */
#ifndef DLA_SCRATCH_H
#define DLA_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

enum dla_scratch_slot {
    SCRATCH_CSC_DATA,    /* CSC: data operand rows */
    SCRATCH_CSC_WEIGHT,  /* CSC: weight rows of a pass */
    SCRATCH_CSC_GROUP,   /* CSC: one kernel group's bytes */
    SCRATCH_CSC_FEATURE, /* CSC: the input cube unpacked from the data banks */
    SCRATCH_CMAC_FP16,   /* CMAC fp16: the FMA cells' kernel layout of a pass */
    SCRATCH_SLOTS
};

struct dla_scratch {
    void *buf[SCRATCH_SLOTS];
    size_t cap[SCRATCH_SLOTS];
    unsigned small_run[SCRATCH_SLOTS]; /* requests in a row under half the slot */
    uint64_t keep_min; /* a slot this large stays across layers (dla_scratch_keep_from) */
    uint64_t grows;    /* allocations made: a slot's first use or its growth */
    uint64_t reuses;   /* requests served by a buffer kept from before */
};

struct dla;

/* Slot's buffer of at least bytes, its contents undefined (a previous
 * layer's); NULL when out of memory.  _zeroed clears the bytes asked for. */
void *dla_scratch_get(struct dla *d, enum dla_scratch_slot slot, size_t bytes);
void *dla_scratch_zeroed(struct dla *d, enum dla_scratch_slot slot, size_t bytes);
/* The layer is done with the slot: a buffer under keep_min is freed, a
 * larger one kept for the next layer.  keep_min is SCRATCH_KEEP_MIN, or
 * what dla_scratch_keep_from set: the blocks glibc gives back to the
 * kernel when freed.  Smaller ones it recycles in its heap without
 * faults, and kept they lived among the run's growing records and left
 * holes resident when a slot was reallocated (resnet18-cifar10's RSS 0.15
 * MiB higher at the end); a large network's heap keeps its freed scratch
 * anyway, and an arena beside it held 1 MiB more at sample:resnet50's
 * peak. */
#define SCRATCH_KEEP_MIN (128u * 1024u)
void dla_scratch_done(struct dla *d, enum dla_scratch_slot slot);
/* The slot's buffer given back now, whatever its size: a layer that does
 * not use a slot only some layers ask for (SCRATCH_CMAC_FP16) does not
 * hold it to the end of the run. */
void dla_scratch_drop(struct dla *d, enum dla_scratch_slot slot);
/* Give every slot back (dla_destroy). */
void dla_scratch_release(struct dla_scratch *s);

#endif
