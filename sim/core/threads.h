/* Worker threads for the model's data-parallel work (convolution MACs, SDP
 * rows, CDP lines).
 *
 * Results never depend on the thread count: a job splits its work into
 * disjoint parts, by worker index or handed out to whichever worker is free
 * (dla_parts), every part writes only its own outputs and adds its
 * statistics to its worker's, and the caller combines the statistics (sums)
 * after all have finished.  The simulation itself (events, checkpoints, the
 * debugger) stays on the calling thread. */
#ifndef DLA_THREADS_H
#define DLA_THREADS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define DLA_MAX_THREADS 16u

/* DLADBG_THREADS when set (1 = everything on the calling thread), else the
 * online CPUs; at most DLA_MAX_THREADS. */
unsigned dla_threads(void);

/* Workers for a job of `parts` independent parts: dla_threads(), but no
 * more than the parts and at least one. */
unsigned dla_workers_for(uint64_t parts);

/* The first of `parts` parts that worker `worker` of `workers` takes when
 * each takes a contiguous run: its run ends where worker + 1's begins. */
static inline uint64_t dla_share_start(uint64_t parts, unsigned worker, unsigned workers)
{
    return parts * worker / workers;
}

/* A job's parts handed out one at a time to whichever worker asks first:
 * for parts of unequal cost, or workers on CPUs of unequal speed (a
 * contiguous or interleaved share leaves the quicker worker idle while the
 * slower one finishes; measured: 3-5 ms of an 18 ms fp16 layer on two
 * vCPUs).  Results still never depend on the thread count or on which
 * worker takes a part, as long as each part writes only its own outputs
 * and adds its statistics to its taker's (summed after the job). */
struct dla_parts {
    atomic_uint_fast64_t next;
    uint64_t count;
};

static inline void dla_parts_init(struct dla_parts *parts, uint64_t count)
{
    atomic_init(&parts->next, 0);
    parts->count = count;
}

/* The next part not yet taken, in *part; false when none is left. */
static inline bool dla_parts_take(struct dla_parts *parts, uint64_t *part)
{
    uint64_t p = atomic_fetch_add_explicit(&parts->next, 1, memory_order_relaxed);
    *part = p;
    return p < parts->count;
}

/* work(ctx, worker, workers) for worker = 0 .. workers-1, worker 0 on the
 * calling thread; returns when all are done.  The others run on threads
 * kept asleep between jobs (threads.c), or, for a job started inside a
 * worker or while another thread's job has them, on threads of its own;
 * a worker that cannot be started runs on the calling thread instead. */
typedef void (*dla_work_fn)(void *ctx, unsigned worker, unsigned workers);
void dla_parallel(unsigned workers, dla_work_fn work, void *ctx);

#endif
