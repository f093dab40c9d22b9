/* The malloc policy by network size (heap_policy.h). */
#include "heap_policy.h"

#include <malloc.h>

#define SMALL_THRESHOLD (128u << 10)
/* once fixed, glibc's threshold no longer moves: a large network opened
 * after a small one gets the ceiling glibc's own would rise to */
#define LARGE_THRESHOLD (32u << 20)
/* From this size on the heap may keep freed scratch: the allowance of twice
 * the working set dwarfs it. */
#define LARGE_NETWORK (8ull << 20)

static uint64_t threshold; /* 0: glibc's own, moving */

static void set_threshold(uint64_t bytes)
{
    /* setting it turns glibc's moving threshold off for the rest of the
     * process; the trim threshold stays at its 128 KiB default */
    if (bytes != threshold && mallopt(M_MMAP_THRESHOLD, (int)bytes))
        threshold = bytes;
}

/* One malloc arena for every thread.  glibc gives each worker thread of the
 * model its own arena, where the layer scratch it frees stays resident and
 * out of reach of the other threads: on two threads a small network's
 * anonymous memory grew by 0.25-0.5 MiB (issue 34's memory target).  The
 * workers allocate per layer, not per element, and keep their small blocks in
 * the per-thread cache, so the shared lock costs nothing measurable. */
void heap_policy_start(void)
{
    mallopt(M_ARENA_MAX, 1);
}

void heap_policy_for_network(uint64_t network_bytes)
{
    if (network_bytes < LARGE_NETWORK)
        set_threshold(SMALL_THRESHOLD);
    else if (threshold)
        set_threshold(LARGE_THRESHOLD);
}

uint64_t heap_policy_mmap_threshold(void)
{
    return threshold;
}
