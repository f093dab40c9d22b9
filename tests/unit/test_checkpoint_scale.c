/* A checkpoint at every layer boundary costs the same at the millionth
 * layer as at the first (issue 36 item 8: a trace of N one-line BDMA layers
 * took 4.2 s at 25k and 276 s at 200k, each checkpoint copying a table of
 * all layers so far and looking at every boundary).  Bounded by counts:
 * four times the layers is about four times the work (n log n: 5.5), where
 * a cost per layer growing with the run would make it sixteen. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "debug/checkpoint.h"
#include "debug/proglog.h"
#include "dbg_fixture.h"
#include "trace/txn_prog.h"

struct work {
    unsigned long long tree, boundaries;
    size_t stored, count;
};

static struct work run_layers(const char *name, int n)
{
    fixture_bdma_trace(name, n);
    struct dbg *d = fixture_open_trace(name);
    unsigned long long tree0 = dla_layer_tree_work();
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    struct work w = {dla_layer_tree_work() - tree0, cps_work(d->cps), cps_stored(d->cps),
                     cps_count(d->cps)};
    dbg_destroy(d);
    return w;
}

static void test_checkpoint_cost_does_not_grow_with_the_run(void **state)
{
    (void)state;
    struct work small = run_layers("s", 1000), large = run_layers("l", 4000);
    /* a boundary per layer, but few states */
    assert_true(large.count > 4000 && large.stored <= 24);
    /* n log n at most (the tree's spine grows a level at a time): 4x the
     * layers measures 5.5x the slots, 3.8x the boundaries */
    if (large.tree > 8 * small.tree)
        fail_msg("layer records: %llu slots for 4000 layers, %llu for 1000", large.tree,
                 small.tree);
    if (large.boundaries > 6 * small.boundaries)
        fail_msg("checkpoints: %llu boundaries looked at for 4000 layers, %llu for 1000",
                 large.boundaries, small.boundaries);
    /* and a few thousand per layer in absolute terms */
    if (large.tree > 8000ull * 4000 || large.boundaries > 200ull * 4000)
        fail_msg("%llu slots, %llu boundaries for 4000 layers", large.tree, large.boundaries);
}

/* Records stay right under the tree: a back step over many layers reads
 * back each layer's record as it was. */
static void test_records_survive_sharing(void **state)
{
    (void)state;
    fixture_bdma_trace("r", 700);
    struct dbg *d = fixture_open_trace("r");
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    struct dla *dla = session_dla(d->session);
    assert_int_equal(dla_layer_count(dla), 700);
    for (size_t i = 0; i < 700; i++) {
        const struct dla_layer *l = dla_layer_get(dla, i);
        assert_non_null(l);
        assert_int_equal(l->index, i);
        assert_int_equal(l->state, DLA_LAYER_DONE);
    }
    assert_int_equal(fixture_exec(d, "back layer 3"), CMD_OK);
    dla = session_dla(d->session);
    size_t n = dla_layer_count(dla);
    assert_true(n < 700 && n > 690);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(dla_layer_get(dla, i)->index, i);
    dbg_destroy(d);
}

/* What a run keeps per layer, by the structures' own accounting (issue 36:
 * 2 KB a layer made a trace of a million one-line layers take 2 GB): the
 * trace's fourteen commands a layer, 8 bytes each (48 when kept unpacked),
 * a layer record with its counters and text in a quarter of the 1 KB it
 * took with fixed arrays for every client, counter and LUT statistic (218
 * bytes: alike layers share their counters and text), and
 * the programming log's fifteen entries a layer in 16 bytes each (40 when
 * kept unpacked), the alike outputs' checks sharing one copy of the bytes
 * (what the log took was 900 bytes a layer). */
static void test_bytes_kept_per_layer(void **state)
{
    (void)state;
    enum { LAYERS = 2000 };
    fixture_bdma_trace("b", LAYERS);
    char path[512], err[512];
    fixture_path(path, sizeof path, "b/input.txn");
    struct txn_prog *p = txn_prog_parse(path, err, sizeof err);
    assert_non_null(p);
    assert_int_equal(txn_prog_count(p), 1 + 14 * LAYERS);
    if (txn_prog_bytes(p) > 9 * txn_prog_count(p))
        fail_msg("the trace's commands: %zu bytes for %zu", txn_prog_bytes(p), txn_prog_count(p));
    txn_prog_free(p);

    struct dbg *d = fixture_open_trace("b");
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    struct dla *dla = session_dla(d->session);
    assert_int_equal(dla_layer_count(dla), LAYERS);
    size_t per_layer = dla_layer_bytes(dla) / LAYERS;
    if (per_layer > 240)
        fail_msg("layer records: %zu bytes a layer", per_layer);
    size_t log_per_layer = proglog_bytes(d->log) / LAYERS;
    if (log_per_layer > 480)
        fail_msg("programming log: %zu bytes a layer", log_per_layer);
    /* the records still say all they said */
    const struct dla_layer *l = dla_layer_get(dla, LAYERS - 1);
    assert_int_equal(dla_layer_client_bytes(l, DLA_C_BDMA_RD), 256);
    assert_int_equal(dla_layer_client_bytes(l, DLA_C_BDMA_WR), 256);
    assert_int_equal(dla_layer_client_bytes(l, DLA_C_CDMA_DAT), 0);
    assert_int_equal(l->n_counters, 2);
    /* alike layers' counters are kept once (the two groups take turns) */
    assert_ptr_equal(l->counters, dla_layer_get(dla, LAYERS - 3)->counters);
    assert_non_null(strstr(l->counters[0].name, "BDMA.STATUS_GRP1_"));
    assert_non_null(strstr(dla_layer_get(dla, LAYERS - 2)->counters[0].name, "GRP0"));
    assert_string_equal(l->desc, dla_layer_get(dla, 0)->desc);
    assert_non_null(strstr(l->desc, "bdma 1 operation"));
    dbg_destroy(d);
}

/* The model reads its registers by name at every write and launch: after
 * the first layers every name comes from its cache, never a search (two
 * names meeting in one slot of it once took turns to miss at every layer). */
static void test_names_searched_once(void **state)
{
    (void)state;
    fixture_bdma_trace("n", 1100);
    struct dbg *d = fixture_open_trace("n");
    assert_int_equal(fixture_exec(d, "step layer 100"), CMD_OK);
    unsigned long long before = dla_name_searches();
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_int_equal(dla_layer_count(session_dla(d->session)), 1100);
    assert_int_equal(dla_name_searches() - before, 0);
    dbg_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_searched_once),
        cmocka_unit_test(test_checkpoint_cost_does_not_grow_with_the_run),
        cmocka_unit_test(test_records_survive_sharing),
        cmocka_unit_test(test_bytes_kept_per_layer),
    };
    return cmocka_run_group_tests(tests, fixture_group_setup, fixture_group_teardown);
}
