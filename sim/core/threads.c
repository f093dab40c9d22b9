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

/* ---------------------------------------------------------------- the pool
 *
 * Workers 1 and up of a job run on threads kept from one job to the next
 * (a layer starts two or three jobs, each of which created and joined its
 * threads), asleep on a condition variable between jobs, never spinning.
 * One job at a time has the pool: a job started while another has it (on
 * another thread), or from inside a job's worker, gets threads of its own
 * as before, so no job ever waits for another.  A forked child has none of
 * the parent's threads: it starts an empty pool. */

struct pool {
    pthread_mutex_t lock; /* the fields below, and the workers' waits */
    pthread_cond_t wake, done;
    unsigned threads;          /* running: workers 1 to threads */
    unsigned long job;         /* bumped for each job */
    dla_work_fn work;          /* the job: worker i < count runs work(ctx, i, count) */
    void *ctx;
    unsigned count, running;   /* workers of the job still at work */
    bool busy;                 /* a job has the pool */
};

static struct pool pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
                           .wake = PTHREAD_COND_INITIALIZER,
                           .done = PTHREAD_COND_INITIALIZER};
static __thread bool in_worker; /* this thread runs a job's worker */

struct pool_start {
    unsigned index;
    unsigned long job; /* the last job it need not run */
};

static void *pool_main(void *arg)
{
    struct pool_start start = *(struct pool_start *)arg;
    free(arg);
    in_worker = true;
    pthread_mutex_lock(&pool.lock);
    for (unsigned long seen = start.job;; seen = pool.job) {
        while (pool.job == seen)
            pthread_cond_wait(&pool.wake, &pool.lock);
        if (start.index >= pool.count)
            continue;
        dla_work_fn work = pool.work;
        void *ctx = pool.ctx;
        unsigned count = pool.count;
        pthread_mutex_unlock(&pool.lock);
        work(ctx, start.index, count);
        pthread_mutex_lock(&pool.lock);
        if (--pool.running == 0)
            pthread_cond_signal(&pool.done);
    }
    return NULL;
}

/* A forked child: the threads stayed behind, the pool starts empty. */
static void pool_forget(void)
{
    pool = (struct pool){.lock = PTHREAD_MUTEX_INITIALIZER,
                         .wake = PTHREAD_COND_INITIALIZER,
                         .done = PTHREAD_COND_INITIALIZER};
}

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static void pool_init(void)
{
    pthread_atfork(NULL, NULL, pool_forget);
}

/* Threads for workers 1 to workers - 1, started when missing (with the
 * lock held); returns how many there are. */
static unsigned pool_grow(unsigned workers)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    while (pool.threads + 1 < workers) {
        struct pool_start *start = malloc(sizeof *start);
        pthread_t tid;
        if (!start)
            break;
        *start = (struct pool_start){.index = pool.threads + 1, .job = pool.job};
        if (pthread_create(&tid, &attr, pool_main, start) != 0) {
            free(start);
            break;
        }
        pool.threads++;
    }
    pthread_attr_destroy(&attr);
    return pool.threads;
}

/* The job on the pool: false (nothing run) when another job has it. */
static bool pool_run(unsigned workers, dla_work_fn work, void *ctx)
{
    pthread_once(&pool_once, pool_init);
    pthread_mutex_lock(&pool.lock);
    if (pool.busy) {
        pthread_mutex_unlock(&pool.lock);
        return false;
    }
    unsigned threads = pool_grow(workers);
    unsigned helped = threads + 1 < workers ? threads + 1 : workers; /* workers the pool runs */
    pool.busy = true;
    pool.work = work;
    pool.ctx = ctx;
    pool.count = workers;
    pool.running = helped - 1;
    pool.job++;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    /* worker 0 and any the pool could not start on this thread */
    work(ctx, 0, workers);
    for (unsigned i = helped; i < workers; i++)
        work(ctx, i, workers);
    pthread_mutex_lock(&pool.lock);
    while (pool.running)
        pthread_cond_wait(&pool.done, &pool.lock);
    pool.busy = false;
    pthread_mutex_unlock(&pool.lock);
    return true;
}

struct worker {
    dla_work_fn work;
    void *ctx;
    unsigned index, count;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    in_worker = true;
    w->work(w->ctx, w->index, w->count);
    return NULL;
}

/* The job on threads of its own, created and joined. */
static void spawn_run(unsigned workers, dla_work_fn work, void *ctx)
{
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

void dla_parallel(unsigned workers, dla_work_fn work, void *ctx)
{
    if (workers < 1)
        workers = 1;
    if (workers > DLA_MAX_THREADS)
        workers = DLA_MAX_THREADS;
    if (workers == 1)
        work(ctx, 0, 1);
    else if (in_worker || !pool_run(workers, work, ctx))
        spawn_run(workers, work, ctx);
}
