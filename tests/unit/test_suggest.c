/* "did you mean": the distance counts typos (a swap of neighbours is one),
 * and a guess is offered only when the word is one or two typos away. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/suggest.h"

static void distance_counts_typos(void **state)
{
    (void)state;
    assert_int_equal(suggest_distance("break", "break"), 0);
    assert_int_equal(suggest_distance("BREAK", "break"), 0);
    assert_int_equal(suggest_distance("brek", "break"), 1);   /* a letter left out */
    assert_int_equal(suggest_distance("brreak", "break"), 1); /* one too many */
    assert_int_equal(suggest_distance("braek", "break"), 1);  /* neighbours swapped */
    assert_int_equal(suggest_distance("bxeak", "break"), 1);  /* one wrong */
    assert_int_equal(suggest_distance("", "step"), 4);
    assert_int_equal(suggest_distance("frobnicate", "break"), 8);
}

static const char *best_of(const char *word, const char *const *cands)
{
    struct suggest s;
    suggest_init(&s, word);
    for (; *cands; cands++)
        suggest_consider(&s, *cands);
    return suggest_best(&s);
}

static void best_is_the_nearest_within_reach(void **state)
{
    (void)state;
    static const char *const cmds[] = {"break", "backtrace", "back", "continue", "delete", NULL};
    assert_string_equal(best_of("brek", cmds), "break");
    assert_string_equal(best_of("contnue", cmds), "continue");
    assert_string_equal(best_of("deleet", cmds), "delete");
    assert_null(best_of("frobnicate", cmds));
    assert_null(best_of("xyz", cmds));
    assert_null(best_of("break", cmds)); /* no guess for a word that is right */
    /* a short word gets one typo only: "bk" is not "back" */
    assert_null(best_of("bk", cmds));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(distance_counts_typos),
        cmocka_unit_test(best_is_the_nearest_within_reach),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
