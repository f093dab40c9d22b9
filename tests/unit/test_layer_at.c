/* session_layer_at: the one answer to "which hardware layer is the run at" that
 * finish, info regs and the TUI share.  sample:lenet's layers: 0 CONV
 * group 0 feeding 2 SDP on the fly, 4 PDP reading 2's output, 1 CONV group 1
 * (programmed early, launched after the PDP) feeding 3 SDP.  Stops are made
 * with breakpoints, and each case checks the states that make it a case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dbg_fixture.h"

static struct dla *stopped_at(struct dbg **d, const char *breakpoint)
{
    *d = fixture_open("sample:lenet");
    assert_non_null(*d);
    if (breakpoint) {
        assert_int_equal(fixture_exec(*d, breakpoint), CMD_OK);
        assert_int_equal(fixture_exec(*d, "run"), CMD_OK);
    }
    return session_dla((*d)->session);
}

/* session_layer_at answers layer index */
static void assert_at(struct dbg *d, uint32_t index)
{
    const struct dla_layer *l = session_layer_at(d->session);
    assert_non_null(l);
    assert_int_equal(l->index, index);
}

static enum dla_layer_state state_of(struct dla *dla, size_t i)
{
    return (enum dla_layer_state)dla_layer_get(dla, i)->state;
}

static void test_before_any_layer(void **state)
{
    (void)state;
    struct dbg *d;
    assert_int_equal(dla_layer_count(stopped_at(&d, NULL)), 0);
    assert_null(session_layer_at(d->session));
    dbg_destroy(d);
}

/* the only layer there is, being programmed */
static void test_programming(void **state)
{
    (void)state;
    struct dbg *d;
    struct dla *dla = stopped_at(&d, "break layer 0 programmed");
    assert_int_equal(dla_layer_count(dla), 1);
    assert_at(d, 0);
    dbg_destroy(d);
}

/* the PDP running beats the older CONV layer 1, merely programmed (the
 * oldest layer not done, which finish and the TUI once took) and the SDP
 * layer 3, enabled and waiting */
static void test_running_beats_programmed(void **state)
{
    (void)state;
    struct dbg *d;
    struct dla *dla = stopped_at(&d, "break layer 4 started");
    assert_int_equal(state_of(dla, 1), DLA_LAYER_PROGRAMMING);
    assert_int_equal(state_of(dla, 3), DLA_LAYER_ENABLED);
    assert_int_equal(state_of(dla, 4), DLA_LAYER_RUNNING);
    assert_at(d, 4);
    dbg_destroy(d);
}

/* none running: the SDP layer 3, enabled and waiting for its CONV, beats
 * the older CONV layer 1 being programmed */
static void test_enabled_beats_programmed(void **state)
{
    (void)state;
    struct dbg *d;
    struct dla *dla = stopped_at(&d, "break layer 3 enabled");
    for (size_t i = 0; i < dla_layer_count(dla); i++)
        assert_int_not_equal(state_of(dla, i), DLA_LAYER_RUNNING);
    assert_int_equal(state_of(dla, 1), DLA_LAYER_PROGRAMMING);
    assert_int_equal(state_of(dla, 3), DLA_LAYER_ENABLED);
    assert_at(d, 3);
    dbg_destroy(d);
}

/* after the run: none running, enabled or programmed, the last to finish */
static void test_after_the_run(void **state)
{
    (void)state;
    struct dbg *d;
    struct dla *dla = stopped_at(&d, NULL);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_true(session_finished(d->session));
    const struct dla_layer *last = NULL;
    for (size_t i = 0; i < dla_layer_count(dla); i++) {
        const struct dla_layer *l = dla_layer_get(dla, i);
        assert_int_equal(l->state, DLA_LAYER_DONE);
        if (!last || l->end_cycle >= last->end_cycle)
            last = l;
    }
    assert_at(d, last->index);
    dbg_destroy(d);
}

/* a poke after the run starts a layer that is never enabled: no layer of
 * the run, passed over once the run is over */
static void test_never_enabled_passed_over(void **state)
{
    (void)state;
    struct dbg *d;
    struct dla *dla = stopped_at(&d, NULL);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    size_t n = dla_layer_count(dla);
    const struct dla_layer *last = session_layer_at(d->session);
    assert_non_null(last);
    assert_int_equal(fixture_exec(d, "reg CDMA.D_DATAIN_SIZE_0 = 5"), CMD_OK);
    assert_int_equal(dla_layer_count(dla), n + 1);
    assert_int_equal(state_of(dla, n), DLA_LAYER_PROGRAMMING);
    assert_ptr_equal(session_layer_at(d->session), last);
    dbg_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_before_any_layer),
        cmocka_unit_test(test_programming),
        cmocka_unit_test(test_running_beats_programmed),
        cmocka_unit_test(test_enabled_beats_programmed),
        cmocka_unit_test(test_after_the_run),
        cmocka_unit_test(test_never_enabled_passed_over),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
