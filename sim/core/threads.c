/* Worker threads (threads.h). */
#include "threads.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

unsigned dla_threads(void)
{
    const char *e = getenv("DLADBG_THREADS");
    long n = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > (long)DLA_MAX_THREADS ? DLA_MAX_THREADS : (unsigned)n;
}

unsigned dla_workers_for(uint64_t parts)
{
    unsigned n = dla_threads();
    return parts < n ? (parts ? (unsigned)parts : 1u) : n;
}

struct worker {
    dla_work_fn work;
    void *ctx;
    unsigned index, count;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    w->work(w->ctx, w->index, w->count);
    return NULL;
}

void dla_parallel(unsigned workers, dla_work_fn work, void *ctx)
{
    if (workers < 1)
        workers = 1;
    if (workers > DLA_MAX_THREADS)
        workers = DLA_MAX_THREADS;
    struct worker w[DLA_MAX_THREADS];
    pthread_t tid[DLA_MAX_THREADS];
    bool started[DLA_MAX_THREADS] = {false};
    for (unsigned i = 0; i < workers; i++) {
        w[i] = (struct worker){.work = work, .ctx = ctx, .index = i, .count = workers};
        if (i > 0)
            started[i] = pthread_create(&tid[i], NULL, worker_main, &w[i]) == 0;
    }
    for (unsigned i = 0; i < workers; i++)
        if (!started[i])
            work(ctx, i, workers);
    for (unsigned i = 1; i < workers; i++)
        if (started[i])
            pthread_join(tid[i], NULL);
}
