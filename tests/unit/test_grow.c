/* grow_for_one (util/grow.h): the room the debugger's logs and lists grow
 * by, and what a failed growth leaves behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "util/grow.h"

/* Appending keeps every element and doubles from the first capacity. */
static void test_appends_keep_elements(void **state)
{
    (void)state;
    uint32_t *v = NULL;
    size_t n = 0, cap = 0;
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t *more = grow_for_one(v, n, &cap, 8, sizeof *more);
        assert_non_null(more);
        v = more;
        v[n++] = i * 7u;
        assert_true(n <= cap);
    }
    assert_int_equal(cap, 1024); /* 8, 16, ..., 1024 */
    for (uint32_t i = 0; i < 1000; i++)
        assert_int_equal(v[i], i * 7u);
    free(v);
}

/* With room left the array is handed back as it is. */
static void test_room_left_is_no_realloc(void **state)
{
    (void)state;
    size_t cap = 0;
    char *v = grow_for_one(NULL, 0, &cap, 4, 1);
    assert_non_null(v);
    assert_int_equal(cap, 4);
    assert_ptr_equal(grow_for_one(v, 3, &cap, 4, 1), v);
    assert_int_equal(cap, 4);
    free(v);
}

/* A size past SIZE_MAX is refused, leaving the array and its capacity. */
static void test_overflow_refused(void **state)
{
    (void)state;
    size_t cap = 0;
    uint64_t *v = grow_for_one(NULL, 0, &cap, 2, sizeof *v);
    assert_non_null(v);
    size_t huge = SIZE_MAX / 8 + 1;
    size_t big_cap = huge / 2 + 1; /* doubled, it no longer fits */
    assert_null(grow_for_one(v, big_cap, &big_cap, 2, sizeof *v));
    assert_int_equal(big_cap, huge / 2 + 1);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appends_keep_elements),
        cmocka_unit_test(test_room_left_is_no_realloc),
        cmocka_unit_test(test_overflow_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
