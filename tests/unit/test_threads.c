/* dla_parallel (sim/core/threads.c): every worker of a job runs once with
 * its index, whatever the caller; the workers past the caller's are
 * threads kept from one job to the next; a job started inside a worker,
 * from two threads at once or in a forked child still runs all its
 * workers; dla_parts hands a job's parts to whichever worker is free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/threads.h"

struct job {
    unsigned runs[DLA_MAX_THREADS], count[DLA_MAX_THREADS];
    pid_t tid[DLA_MAX_THREADS];
};

static void record(void *ctx, unsigned worker, unsigned workers)
{
    struct job *j = ctx;
    j->runs[worker]++;
    j->count[worker] = workers;
    j->tid[worker] = (pid_t)syscall(SYS_gettid);
}

/* Each of the job's workers ran once with the job's count, none past it. */
static void check_ran(const struct job *j, unsigned workers)
{
    for (unsigned w = 0; w < DLA_MAX_THREADS; w++) {
        assert_int_equal(j->runs[w], w < workers ? 1 : 0);
        if (w < workers)
            assert_int_equal(j->count[w], workers);
    }
}

/* Worker 0 on the calling thread, the others on threads of their own that
 * the next job finds again (the same thread ids: created once, asleep
 * between jobs), a larger job adding threads, a smaller one leaving some
 * idle. */
static void test_workers_on_kept_threads(void **state)
{
    (void)state;
    struct job a = {0}, b = {0}, c = {0}, d = {0};
    dla_parallel(3, record, &a);
    check_ran(&a, 3);
    assert_int_equal(a.tid[0], (pid_t)syscall(SYS_gettid));
    assert_true(a.tid[1] != a.tid[0] && a.tid[2] != a.tid[0] && a.tid[1] != a.tid[2]);
    dla_parallel(3, record, &b);
    check_ran(&b, 3);
    assert_int_equal(b.tid[1], a.tid[1]);
    assert_int_equal(b.tid[2], a.tid[2]);
    dla_parallel(5, record, &c);
    check_ran(&c, 5);
    assert_int_equal(c.tid[1], a.tid[1]);
    assert_true(c.tid[4] != c.tid[0] && c.tid[4] != c.tid[1]);
    dla_parallel(2, record, &d);
    check_ran(&d, 2);
    assert_int_equal(d.tid[1], a.tid[1]);
}

/* A job started by a worker of another job (which holds the kept
 * threads): its workers all run, on threads of their own. */
struct nested {
    struct job inner[DLA_MAX_THREADS];
};

static void start_inner(void *ctx, unsigned worker, unsigned workers)
{
    (void)workers;
    struct nested *n = ctx;
    dla_parallel(3, record, &n->inner[worker]);
}

static void test_job_inside_a_worker(void **state)
{
    (void)state;
    static struct nested n;
    dla_parallel(4, start_inner, &n);
    for (unsigned w = 0; w < 4; w++)
        check_ran(&n.inner[w], 3);
}

/* Two threads starting jobs at once, many times: every job runs all its
 * workers (one of them may find the kept threads busy). */
static void *many_jobs(void *arg)
{
    unsigned *bad = arg;
    for (int i = 0; i < 200; i++) {
        struct job j = {0};
        unsigned workers = 2 + (unsigned)i % 4;
        dla_parallel(workers, record, &j);
        for (unsigned w = 0; w < DLA_MAX_THREADS; w++)
            *bad += j.runs[w] != (w < workers ? 1u : 0u);
    }
    return NULL;
}

static void test_jobs_from_two_threads(void **state)
{
    (void)state;
    unsigned bad[2] = {0, 0};
    pthread_t other;
    assert_int_equal(pthread_create(&other, NULL, many_jobs, &bad[1]), 0);
    many_jobs(&bad[0]);
    pthread_join(other, NULL);
    assert_int_equal(bad[0] + bad[1], 0);
}

/* A forked child (the plugin host forks) has none of its parent's kept
 * threads: its jobs still run every worker. */
static void test_job_in_a_forked_child(void **state)
{
    (void)state;
    struct job parent = {0};
    dla_parallel(3, record, &parent); /* the parent keeps threads */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20); /* a job waiting for threads it does not have fails, not hangs */
        struct job j = {0};
        dla_parallel(3, record, &j);
        _exit(j.runs[0] == 1 && j.runs[1] == 1 && j.runs[2] == 1 ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* A job of parts taken with dla_parts_take: worker 1 stalls (until the
 * others have run every part, or 10 s) before taking any. */
#define PARTS 64u
struct parts_job {
    struct dla_parts parts;
    unsigned taker[PARTS], runs[PARTS];
    atomic_uint done;
};

static void take_parts(void *ctx, unsigned worker, unsigned workers)
{
    (void)workers;
    struct parts_job *j = ctx;
    if (worker == 1) {
        time_t give_up = time(NULL) + 10;
        while (atomic_load(&j->done) < PARTS && time(NULL) < give_up)
            sched_yield();
    }
    for (uint64_t p; dla_parts_take(&j->parts, &p);) {
        j->taker[p] = worker;
        j->runs[p]++;
        atomic_fetch_add(&j->done, 1);
    }
}

/* Every part runs once, and a stalled worker's share is taken by the
 * workers that are free: the others run them all, worker 1 none.  With
 * shares fixed by worker index, half the parts would wait for it. */
static void test_parts_to_the_free_workers(void **state)
{
    (void)state;
    for (unsigned workers = 2; workers <= 4; workers++) {
        struct parts_job j = {.done = 0};
        dla_parts_init(&j.parts, PARTS);
        dla_parallel(workers, take_parts, &j);
        for (unsigned p = 0; p < PARTS; p++) {
            assert_int_equal(j.runs[p], 1);
            assert_int_not_equal(j.taker[p], 1);
        }
    }
}

/* A job of no parts: none taken. */
static void test_no_parts(void **state)
{
    (void)state;
    struct dla_parts parts;
    dla_parts_init(&parts, 0);
    uint64_t p;
    assert_false(dla_parts_take(&parts, &p));
    assert_false(dla_parts_take(&parts, &p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workers_on_kept_threads),
        cmocka_unit_test(test_job_inside_a_worker),
        cmocka_unit_test(test_jobs_from_two_threads),
        cmocka_unit_test(test_job_in_a_forked_child),
        cmocka_unit_test(test_parts_to_the_free_workers),
        cmocka_unit_test(test_no_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
