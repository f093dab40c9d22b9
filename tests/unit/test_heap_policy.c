/* The malloc policy by network size (util/heap_policy.h): a small network's
 * freed scratch goes back to the kernel, a large network's stays in the heap
 * for the next layer (issue 34: peak RSS within twice the working set and
 * 4 MiB, without page-fault churn on large networks). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/heap_policy.h"
#include "util/proc_status.h"

#define SCRATCH (1u << 20)

/* ASan's allocator is not glibc's: the policy does not apply there */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* RssAnon grown by a MiB of scratch, written, freed while a block as large
 * allocated after it is still live (in the heap it then lies below the
 * other, not at the top that glibc trims). */
static long kept_after_free(void)
{
    long before = proc_status_kib("RssAnon");
    char *scratch = malloc(SCRATCH);
    assert_non_null(scratch);
    memset(scratch, 1, SCRATCH);
    char *after = malloc(SCRATCH);
    assert_non_null(after);
    free(scratch);
    long kept = proc_status_kib("RssAnon") - before;
    free(after);
    return kept;
}

static void test_thresholds_by_network_size(void **state)
{
    (void)state;
    if (SANITIZED)
        skip();
    heap_policy_start();
    assert_int_equal(heap_policy_mmap_threshold(), 0); /* glibc's own until a network is known */
    heap_policy_for_network(40u << 20);
    assert_int_equal(heap_policy_mmap_threshold(), 0); /* a large network keeps it */
    heap_policy_for_network(1u << 20);
    assert_int_equal(heap_policy_mmap_threshold(), 128u << 10);
    heap_policy_for_network(0); /* a trace */
    assert_int_equal(heap_policy_mmap_threshold(), 128u << 10);
    heap_policy_for_network(40u << 20); /* after a small one: glibc's ceiling, fixed */
    assert_int_equal(heap_policy_mmap_threshold(), 32u << 20);
}

static void test_small_network_scratch_returns(void **state)
{
    (void)state;
    if (SANITIZED || proc_status_kib("RssAnon") < 0)
        skip();
    heap_policy_start();
    heap_policy_for_network(1u << 20);
    assert_true(kept_after_free() < 256); /* mapped for itself, unmapped when freed */
    heap_policy_for_network(40u << 20);
    assert_true(kept_after_free() >= 768); /* kept in the heap for the next layer */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thresholds_by_network_size),
        cmocka_unit_test(test_small_network_scratch_returns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
