/* perf_rank (src/debug/perf_rank.h): the layers ranked by cycles for "info
 * perf top" and the TUI's layers pane, and what a cut ranking leaves out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "debug/perf_rank.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void fill(struct perf_rank_item *items, const uint64_t *cycles, size_t n)
{
    for (size_t i = 0; i < n; i++)
        items[i] = (struct perf_rank_item){cycles[i], i};
}

/* Most cycles first. */
static void test_most_cycles_first(void **state)
{
    (void)state;
    static const uint64_t cycles[] = {5, 900, 30, 7000, 1};
    struct perf_rank_item items[N_OF(cycles)];
    fill(items, cycles, N_OF(cycles));
    perf_rank_by_cycles(items, N_OF(items));
    static const size_t want[] = {3, 1, 2, 0, 4};
    for (size_t i = 0; i < N_OF(want); i++) {
        assert_int_equal(items[i].index, want[i]);
        assert_int_equal(items[i].cycles, cycles[want[i]]);
    }
}

/* Layers of equal cycles keep their index order, wherever they started:
 * qsort alone is not stable. */
static void test_ties_keep_index_order(void **state)
{
    (void)state;
    enum { N = 40 };
    struct perf_rank_item items[N];
    for (size_t i = 0; i < N; i++) /* given in reverse, the ties interleaved */
        items[i] = (struct perf_rank_item){(N - 1 - i) % 3 == 0 ? 100 : 50, N - 1 - i};
    perf_rank_by_cycles(items, N);
    for (size_t i = 1; i < N; i++) {
        assert_true(items[i - 1].cycles >= items[i].cycles);
        if (items[i - 1].cycles == items[i].cycles)
            assert_true(items[i - 1].index < items[i].index);
    }
    assert_int_equal(items[0].index, 0);
    assert_int_equal(items[0].cycles, 100);
}

/* The rest after a cut: the layers and cycles not shown. */
static void test_rest_sums_what_is_not_shown(void **state)
{
    (void)state;
    static const uint64_t cycles[] = {10, 40, 20, 30};
    struct perf_rank_item items[N_OF(cycles)];
    fill(items, cycles, N_OF(cycles));
    perf_rank_by_cycles(items, N_OF(items));
    struct perf_rank_rest rest = perf_rank_rest(items, N_OF(items), 2);
    assert_int_equal(rest.layers, 2);
    assert_int_equal(rest.cycles, 30); /* 20 + 10 */
    rest = perf_rank_rest(items, N_OF(items), 0);
    assert_int_equal(rest.layers, 4);
    assert_int_equal(rest.cycles, 100);
}

/* N larger than the layers: everything shown, no rest. */
static void test_more_shown_than_layers(void **state)
{
    (void)state;
    static const uint64_t cycles[] = {3, 2};
    struct perf_rank_item items[N_OF(cycles)];
    fill(items, cycles, N_OF(cycles));
    perf_rank_by_cycles(items, N_OF(items));
    struct perf_rank_rest rest = perf_rank_rest(items, N_OF(items), 10);
    assert_int_equal(rest.layers, 0);
    assert_int_equal(rest.cycles, 0);
    rest = perf_rank_rest(items, 0, 10); /* and no layers at all */
    assert_int_equal(rest.layers, 0);
}

/* A layer's cycles: launch to interrupt, so far while it runs, none before. */
static void test_layer_cycles_by_state(void **state)
{
    (void)state;
    struct dla_layer l = {.start_cycle = 100, .end_cycle = 350};
    l.state = DLA_LAYER_DONE;
    assert_int_equal(perf_layer_cycles(&l, 1000), 250);
    assert_true(perf_layer_launched(&l));
    l.state = DLA_LAYER_RUNNING;
    assert_int_equal(perf_layer_cycles(&l, 1000), 900);
    assert_true(perf_layer_launched(&l));
    l.state = DLA_LAYER_ENABLED;
    assert_int_equal(perf_layer_cycles(&l, 1000), 0);
    assert_false(perf_layer_launched(&l));
    l.state = DLA_LAYER_PROGRAMMING;
    assert_false(perf_layer_launched(&l));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_most_cycles_first),
        cmocka_unit_test(test_ties_keep_index_order),
        cmocka_unit_test(test_rest_sums_what_is_not_shown),
        cmocka_unit_test(test_more_shown_than_layers),
        cmocka_unit_test(test_layer_cycles_by_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
