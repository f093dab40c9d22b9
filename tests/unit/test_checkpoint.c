/* Step back: the state after "back layer" + "step layer" equals the state
 * after the first "step layer" -- registers of every unit and group, memory
 * contents, layer records, time, interrupt state and the run's counters --
 * also when the checkpoint has to be reached by replaying from an older one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "debug/breakpoints.h"
#include "debug/checkpoint.h"
#include "dbg_fixture.h"
#include "debug/trace_ring.h"

#define OPS 4

static int setup(void **state)
{
    (void)state;
    return fixture_bdma_setup("t4", OPS);
}

/* A layer record with what it points to: the model frees those once no
 * record holds them. */
struct layer_copy {
    struct dla_layer rec; /* pointing at the copies below */
    struct dla_counter counters[DLA_MAX_COUNTERS];
    struct dla_lut_stats lut;
    char desc[128];
};

static void copy_layer(struct layer_copy *c, const struct dla_layer *l)
{
    c->rec = *l;
    if (l->n_counters)
        memcpy(c->counters, l->counters, l->n_counters * sizeof *l->counters);
    c->rec.counters = c->counters;
    if (l->lut) {
        c->lut = *l->lut;
        c->rec.lut = &c->lut;
    }
    snprintf(c->desc, sizeof c->desc, "%s", l->desc);
    c->rec.desc = c->desc;
}

/* Everything observable about a session at one point. */
struct state {
    size_t n_regs;
    uint32_t *regs;
    size_t n_mem;
    uint8_t *mem; /* (space, base, page) records */
    size_t n_layers;
    struct layer_copy *layers;
    uint64_t now, writes, events, layers_done, ring_next;
    uint32_t intr_status, intr_mask;
    unsigned checks_passed, checks_failed;
};

struct mem_grab {
    struct state *st;
    uint8_t space;
};

static bool grab_page(void *ctx, uint64_t base, const uint8_t *p)
{
    struct mem_grab *g = ctx;
    struct state *st = g->st;
    size_t rec = 1 + 8 + MEM_PAGE_SIZE;
    st->mem = realloc(st->mem, (st->n_mem + 1) * rec);
    uint8_t *r = st->mem + st->n_mem++ * rec;
    r[0] = g->space;
    memcpy(r + 1, &base, 8);
    memcpy(r + 9, p, MEM_PAGE_SIZE);
    return true;
}

static struct state capture(struct dbg *d)
{
    struct state st = {0};
    struct dla *dla = session_dla(d->session);
    const struct regdb_map *map = dla_regmap(dla);
    for (uint16_t u = 0; u < map->n_units; u++) {
        const struct regdb_unit *ru = &map->units[u];
        enum dla_unit unit = dla_unit_of(dla, ru);
        for (uint16_t r = 0; r < ru->n_regs; r++)
            for (int g = 0; g < (ru->regs[r].dual ? 2 : 1); g++) {
                st.regs = realloc(st.regs, (st.n_regs + 1) * sizeof *st.regs);
                st.regs[st.n_regs++] = dla_reg_value(dla, unit, g, ru->regs[r].offset);
            }
    }
    for (int s = 0; s < DLA_SPACE_COUNT; s++) {
        struct mem_grab g = {&st, (uint8_t)s};
        mem_each_page(dla_memory(dla, (enum dla_space)s), grab_page, &g);
    }
    st.n_layers = dla_layer_count(dla);
    st.layers = calloc(st.n_layers + 1, sizeof *st.layers);
    for (size_t i = 0; i < st.n_layers; i++)
        copy_layer(&st.layers[i], dla_layer_get(dla, i));
    st.now = dla_now(dla);
    st.writes = session_writes(d->session);
    st.events = session_events(d->session);
    st.layers_done = session_layers_done(d->session);
    st.ring_next = trace_ring_next_seq(d->ring);
    st.intr_status = dla_intr_status(dla);
    st.intr_mask = dla_intr_mask(dla);
    st.checks_passed = d->rep.checks_passed;
    st.checks_failed = d->rep.checks_failed;
    return st;
}

/* Two layer records alike: their own bytes, and what they point to. */
static void assert_same_layer(const struct dla_layer *a, const struct dla_layer *b)
{
    struct dla_layer x = *a, y = *b;
    x.counters = y.counters = NULL;
    x.lut = y.lut = NULL;
    x.desc = y.desc = NULL;
    assert_memory_equal(&x, &y, sizeof x);
    for (uint32_t c = 0; c < a->n_counters; c++) {
        assert_string_equal(a->counters[c].name, b->counters[c].name);
        assert_int_equal(a->counters[c].value, b->counters[c].value);
    }
    assert_true(!a->lut == !b->lut);
    if (a->lut)
        assert_memory_equal(a->lut, b->lut, sizeof *a->lut);
    assert_string_equal(a->desc, b->desc);
}

static void assert_same(const struct state *a, const struct state *b)
{
    assert_int_equal(a->now, b->now);
    assert_int_equal(a->writes, b->writes);
    assert_int_equal(a->events, b->events);
    assert_int_equal(a->layers_done, b->layers_done);
    assert_int_equal(a->ring_next, b->ring_next);
    assert_int_equal(a->intr_status, b->intr_status);
    assert_int_equal(a->intr_mask, b->intr_mask);
    assert_int_equal(a->checks_passed, b->checks_passed);
    assert_int_equal(a->checks_failed, b->checks_failed);
    assert_int_equal(a->n_regs, b->n_regs);
    assert_memory_equal(a->regs, b->regs, a->n_regs * sizeof *a->regs);
    assert_int_equal(a->n_mem, b->n_mem);
    assert_memory_equal(a->mem, b->mem, a->n_mem * (1 + 8 + MEM_PAGE_SIZE));
    assert_int_equal(a->n_layers, b->n_layers);
    for (size_t i = 0; i < a->n_layers; i++)
        assert_same_layer(&a->layers[i].rec, &b->layers[i].rec);
}

static void release(struct state *st)
{
    free(st->regs);
    free(st->mem);
    free(st->layers);
}

/* The command succeeds and leaves the debugger exactly in state want: the
 * check every back/step/replay case repeats. */
static void assert_state_after(struct dbg *d, const char *cmd, const struct state *want)
{
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    struct state now = capture(d);
    assert_same(&now, want);
    release(&now);
}

static void test_back_then_step_repeats(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    struct state s[OPS + 1];
    s[0] = capture(d);
    for (int i = 1; i <= 3; i++) {
        assert_int_equal(fixture_exec(d, "step layer"), CMD_OK);
        s[i] = capture(d);
        assert_int_equal(s[i].layers_done, (uint64_t)i);
    }
    assert_state_after(d, "back layer", &s[2]);
    assert_state_after(d, "step layer", &s[3]);
    assert_state_after(d, "back layer 3", &s[0]);
    assert_int_equal(fixture_exec(d, "back layer"), CMD_ERROR); /* nothing before the start */
    for (int i = 1; i <= 3; i++) {
        assert_state_after(d, "next", &s[i]);
    }
    for (int i = 0; i <= 3; i++)
        release(&s[i]);
    dbg_destroy(d);
}

static void test_back_from_inside_a_layer(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    assert_int_equal(fixture_exec(d, "step layer"), CMD_OK);
    struct state at1 = capture(d);
    assert_int_equal(fixture_exec(d, "step 3"), CMD_OK);
    assert_state_after(d, "back", &at1); /* to the start of this layer */
    release(&at1);
    dbg_destroy(d);
}

static void test_replay_from_thinned_checkpoints(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    cps_destroy(d->cps);
    d->cps = cps_create(2); /* at most two saved states: the others are replayed */
    cps_attach(d->cps, d->session, d->ring, d->log, d->bps);
    struct state s[OPS + 1];
    for (int i = 1; i <= OPS; i++) {
        assert_int_equal(fixture_exec(d, "step layer"), CMD_OK);
        s[i] = capture(d);
    }
    assert_true(cps_stored(d->cps) <= 2);
    assert_state_after(d, "back layer 2", &s[2]);
    assert_state_after(d, "step layer", &s[3]);
    for (int i = 1; i <= OPS; i++)
        release(&s[i]);
    dbg_destroy(d);
}

/* Thinning keeps the newest boundaries: with room for three states, the run's
 * start, its end and the boundary just before the end stay stored, so one
 * step back restores without replaying. */
static void test_thinning_keeps_the_newest(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    cps_destroy(d->cps);
    d->cps = cps_create(3);
    cps_set_spacing(d->cps, 0, 0, 0); /* a state at every boundary, then thinned */
    cps_attach(d->cps, d->session, d->ring, d->log, d->bps);
    for (int i = 1; i <= OPS; i++)
        assert_int_equal(fixture_exec(d, "step layer"), CMD_OK);
    assert_int_equal(cps_count(d->cps), OPS + 1);
    assert_int_equal(cps_stored(d->cps), 3);
    struct checkpoint_info ci;
    for (size_t i = 0; i <= OPS; i++) {
        assert_true(cps_get(d->cps, i, &ci));
        assert_int_equal(ci.stored, i == 0 || i >= OPS - 1);
    }
    dbg_destroy(d);
}

/* Over the memory budget, states are thinned as over the count, down to the
 * start, the newest and the one before; the others are replayed exactly. */
static void test_memory_budget_thins_states(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    cps_destroy(d->cps);
    d->cps = cps_create(24);
    cps_set_budget(d->cps, 1); /* every state costs more than a byte */
    cps_set_spacing(d->cps, 0, 0, 0);
    cps_attach(d->cps, d->session, d->ring, d->log, d->bps);
    struct state s[OPS + 1];
    s[0] = capture(d);
    for (int i = 1; i <= OPS; i++) {
        assert_int_equal(fixture_exec(d, "step layer"), CMD_OK);
        s[i] = capture(d);
    }
    assert_int_equal(cps_count(d->cps), OPS + 1);
    assert_int_equal(cps_stored(d->cps), 3);
    assert_true(cps_bytes(d->cps) > 0);
    assert_int_equal(fixture_exec(d, "info checkpoints"), CMD_OK);
    struct checkpoint_info ci;
    assert_true(cps_get(d->cps, OPS - 1, &ci) && ci.stored);
    assert_true(cps_get(d->cps, 1, &ci) && !ci.stored);
    assert_state_after(d, "back layer", &s[OPS - 1]);
    assert_state_after(d, "back layer 2", &s[OPS - 3]); /* replayed from the start */
    assert_state_after(d, "step layer", &s[OPS - 2]);
    for (int i = 0; i <= OPS; i++)
        release(&s[i]);
    dbg_destroy(d);
}

/* Boundaries n and n + 1 captured on the way, then the run to its end. */
struct two_states {
    struct state at, next;
};

static struct two_states run_capturing(struct dbg *d, unsigned n)
{
    struct two_states two;
    char cmd[64];
    snprintf(cmd, sizeof cmd, "step layer %u", n);
    assert_int_equal(fixture_exec(d, cmd), CMD_OK);
    two.at = capture(d);
    assert_int_equal(fixture_exec(d, "step layer"), CMD_OK);
    two.next = capture(d);
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK);
    return two;
}

/* From the end of a run of total layers (which ended after its last
 * boundary: the driver cleared the interrupt, so the first step back goes
 * to boundary total), back to n + 1, back to n and forward to n + 1 again:
 * each exactly the state captured there. */
static void assert_back_and_forth(struct dbg *d, unsigned total, unsigned n, struct two_states *two)
{
    char cmd[64];
    snprintf(cmd, sizeof cmd, "back layer %u", total - n);
    assert_state_after(d, cmd, &two->next);
    assert_state_after(d, "back layer", &two->at);
    assert_state_after(d, "step layer", &two->next);
    release(&two->at);
    release(&two->next);
}

/* With the default spacing a run of one-line BDMA layers saves a state at
 * one boundary in ten or fewer (each layer is 132 cycles and 13 writes: a
 * state at each made the states most of a long run's time, issue 36); the
 * boundaries between are replayed, to exactly the state the run had. */
static void test_default_spacing_replays_exactly(void **state)
{
    (void)state;
    fixture_bdma_trace("t200", 200);
    struct dbg *d = fixture_open_trace("t200");
    struct two_states two = run_capturing(d, 150);
    assert_int_equal(cps_count(d->cps), 201);
    assert_true(cps_states_taken(d->cps) <= 20);
    struct checkpoint_info ci;
    assert_true(cps_get(d->cps, 150, &ci) && !ci.stored);
    assert_back_and_forth(d, 200, 150, &two);
    dbg_destroy(d);
}

/* States come further apart as the run grows, a share of the run so far
 * between them: a run of many tiny layers takes states by the logarithm of
 * its length, not one every few layers, and still steps back to any
 * boundary exactly. */
static void test_spacing_grows_with_the_run(void **state)
{
    (void)state;
    fixture_bdma_trace("t400", 400);
    struct dbg *d = fixture_open_trace("t400");
    cps_set_spacing(d->cps, 1, 1, 8); /* every boundary, but an 8th of the run apart */
    struct two_states two = run_capturing(d, 300);
    assert_int_equal(cps_count(d->cps), 401);
    /* boundary k gets one once k passes 9/8 of the last: about 8 ln 400 */
    assert_true(cps_states_taken(d->cps) >= 20 && cps_states_taken(d->cps) <= 80);
    assert_back_and_forth(d, 400, 300, &two);
    dbg_destroy(d);
}

/* A far step back replays from a state far behind; the states it passes
 * are taken again, so that the next steps back find one close behind them
 * instead of replaying from that far state each time. */
static void test_far_back_leaves_states_behind_it(void **state)
{
    (void)state;
    fixture_bdma_trace("t200", 200);
    struct dbg *d = fixture_open_trace("t200");
    cps_set_budget(d->cps, 1); /* thinned to the fewest: the start and the newest two */
    assert_int_equal(fixture_exec(d, "step layer 200"), CMD_OK);
    struct checkpoint_info ci;
    size_t newest_below = 0;
    for (size_t i = 0; cps_get(d->cps, i, &ci); i++)
        if (ci.stored && i <= 100)
            newest_below = i;
    assert_true(newest_below < 50); /* nothing stored near boundary 100 */
    assert_int_equal(fixture_exec(d, "back layer 100"), CMD_OK);
    assert_int_equal(cps_count(d->cps), 101);
    bool near = false;
    for (size_t i = 81; i <= 100; i++)
        near |= cps_get(d->cps, i, &ci) && ci.stored;
    assert_true(near);
    dbg_destroy(d);
}

static void test_breakpoints_do_not_stop_a_replay(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    cps_destroy(d->cps);
    d->cps = cps_create(1);
    cps_attach(d->cps, d->session, d->ring, d->log, d->bps);
    assert_int_equal(fixture_exec(d, "next 3"), CMD_OK);
    assert_int_equal(fixture_exec(d, "break unit bdma"), CMD_OK);
    assert_int_equal(fixture_exec(d, "back layer 1"), CMD_OK);
    assert_int_equal(session_layers_done(d->session), 2);
    assert_int_equal(bps_find(d->bps, 1)->hits, 0);
    /* and the run goes on to the same end */
    assert_int_equal(fixture_exec(d, "delete"), CMD_OK);
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK);
    assert_true(session_finished(d->session));
    assert_int_equal(d->rep.checks_failed, 0);
    dbg_destroy(d);
}

/* The same on a loadable: the engine's state is part of the checkpoint. */
static void test_loadable_back_then_step(void **state)
{
    (void)state;
    struct dbg *d = fixture_open("sample:lenet");
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "next"), CMD_OK);
    struct state first = capture(d);
    assert_int_equal(fixture_exec(d, "next"), CMD_OK);
    struct state second = capture(d);
    assert_state_after(d, "back", &first);
    assert_state_after(d, "next", &second);
    /* and the run ends as a run without stepping back does */
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK);
    assert_true(session_finished(d->session));
    struct state end = capture(d);
    struct dbg *e = fixture_open("sample:lenet");
    assert_state_after(e, "run", &end);
    release(&end);
    release(&first);
    release(&second);
    dbg_destroy(e);
    dbg_destroy(d);
}

/* The first load gives the loadable's blob bytes back (runtime.h, struct
 * rt_bound): a restart, and stepping back to the start and running again,
 * load the blobs from the kept image and end exactly where the run did. */
static void test_loadable_restart_after_blobs_released(void **state)
{
    (void)state;
    struct dbg *d = fixture_open("sample:lenet");
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_true(session_finished(d->session));
    struct state end = capture(d);
    assert_true(end.layers_done > 2);
    assert_int_equal(fixture_exec(d, "restart"), CMD_OK);
    assert_int_equal(session_layers_done(d->session), 0);
    assert_state_after(d, "run", &end);
    for (uint64_t n = 0; session_layers_done(d->session) > 0; n++) {
        assert_true(n <= end.layers_done);
        assert_int_equal(fixture_exec(d, "back layer"), CMD_OK);
    }
    assert_state_after(d, "run", &end);
    release(&end);
    dbg_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_back_then_step_repeats),
        cmocka_unit_test(test_back_from_inside_a_layer),
        cmocka_unit_test(test_replay_from_thinned_checkpoints),
        cmocka_unit_test(test_thinning_keeps_the_newest),
        cmocka_unit_test(test_memory_budget_thins_states),
        cmocka_unit_test(test_default_spacing_replays_exactly),
        cmocka_unit_test(test_spacing_grows_with_the_run),
        cmocka_unit_test(test_far_back_leaves_states_behind_it),
        cmocka_unit_test(test_breakpoints_do_not_stop_a_replay),
        cmocka_unit_test(test_loadable_back_then_step),
        cmocka_unit_test(test_loadable_restart_after_blobs_released),
    };
    return cmocka_run_group_tests(tests, setup, fixture_group_teardown);
}
