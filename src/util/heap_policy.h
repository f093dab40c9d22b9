/* How the process's malloc keeps freed memory, chosen by the network's
 * size (issue 34: peak RSS within twice the working set and 4 MiB).
 *
 * glibc's default moves its mmap threshold up to the largest block freed
 * (a loadable's file buffer, a layer's scratch) and then keeps freed blocks
 * below it in the heap: a small network's freed layer scratch stays
 * resident, 0.2-0.4 MiB of a run whose whole allowance beside the code is
 * twice its working set.  Once a small network is open the threshold is
 * fixed at 128 KiB (blocks above it go back to the kernel when freed).  A
 * large network keeps glibc's moving threshold: its layers then reuse the
 * heap's freed blocks instead of mapping and faulting scratch in again
 * (a fixed 128 KiB tripled sample:resnet50's page faults). */
#ifndef DLADBG_HEAP_POLICY_H
#define DLADBG_HEAP_POLICY_H

#include <stdint.h>

/* At start-up: one arena for every thread; glibc's own threshold. */
void heap_policy_start(void);

/* A network whose memories take network_bytes was opened (0: unknown, a
 * trace): the policy for its size. */
void heap_policy_for_network(uint64_t network_bytes);

/* The mmap threshold the policy fixed last; 0 while glibc's own moves. */
uint64_t heap_policy_mmap_threshold(void);

#endif
