/* Breakpoints and watchpoints on a BDMA trace whose shape the test knows:
 * operation i is 12 register writes (the first programs hardware layer i,
 * the second sets its destination 0x80100000 + i * 0x1000), a wait for its
 * interrupt and a write clearing the status: 13 writes per operation.  The
 * expected stop points are computed from that shape, not from the model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "debug/breakpoints.h"
#include "dbg_fixture.h"

#define OPS           4
#define WRITES_PER_OP 13

static int setup(void **state)
{
    (void)state;
    if (fixture_bdma_setup("t4", OPS))
        return -1;
    /* a trace that writes into the reserved CSB range between two operations */
    fixture_bdma_trace("bad", 2);
    char path[512];
    fixture_path(path, sizeof path, "bad/input.txn");
    FILE *fp = fopen(path, "a");
    if (!fp)
        return -1;
    fputs("write_reg 0xffff5000 0x1\n", fp);
    fclose(fp);
    return 0;
}

static uint64_t first_write_of_op(int op)
{
    return (uint64_t)op * WRITES_PER_OP + 1;
}

static void test_break_layer_programmed_and_done(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    assert_int_equal(fixture_exec(d, "break layer 2"), CMD_OK);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_int_equal(session_writes(d->session), first_write_of_op(2));
    assert_non_null(strstr(fixture_out.text, "Breakpoint 1, layer 2 (BDMA) programmed"));
    assert_int_equal(fixture_exec(d, "delete 1"), CMD_OK);
    assert_int_equal(fixture_exec(d, "break layer 2 done"), CMD_OK);
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK);
    const struct dla_layer *l = dla_layer_get(session_dla(d->session), 2);
    assert_int_equal(l->state, DLA_LAYER_DONE);
    assert_int_equal(session_layers_done(d->session), 3);
    assert_non_null(strstr(fixture_out.text, "layer 2 (BDMA, group 0) done"));
    dbg_destroy(d);
}

static void test_unit_with_ignore_count(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    assert_int_equal(fixture_exec(d, "break unit bdma"), CMD_OK);
    assert_int_equal(fixture_exec(d, "ignore 1 2"), CMD_OK);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_int_equal(session_writes(d->session), first_write_of_op(2));
    assert_int_equal(bps_find(d->bps, 1)->hits, 3);
    /* continue 2: the next hit is ignored once more */
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK);
    assert_int_equal(session_writes(d->session), first_write_of_op(3));
    dbg_destroy(d);
}

static void test_reg_value_and_condition(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    assert_int_equal(fixture_exec(d, "break reg BDMA.CFG_DST_ADDR_LOW == 0x80102000"), CMD_OK);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_int_equal(session_writes(d->session), first_write_of_op(2) + 1);
    assert_non_null(strstr(fixture_out.text, "BDMA.CFG_DST_ADDR_LOW written: 0x80102000"));
    assert_int_equal(fixture_exec(d, "delete"), CMD_OK);
    /* a condition reads the register as stored after the write */
    assert_int_equal(
        fixture_exec(d, "break reg BDMA.CFG_DST_ADDR_LOW if BDMA.CFG_DST_ADDR_LOW == 0x80103000"),
        CMD_OK);
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK);
    assert_int_equal(session_writes(d->session), first_write_of_op(3) + 1);
    /* a condition that does not parse is refused when typed */
    assert_int_equal(fixture_exec(d, "break layer 1 if NOPE.REG == 1"), CMD_ERROR);
    assert_int_equal(bps_count(d->bps), 1);
    dbg_destroy(d);
}

static void test_interrupt_and_enable_disable(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    /* odd operations launch group 1: the first BDMA_DONE_STATUS1 is operation 1's */
    assert_int_equal(fixture_exec(d, "break intr BDMA_DONE_STATUS1"), CMD_OK);
    assert_int_equal(fixture_exec(d, "disable 1"), CMD_OK);
    assert_int_equal(fixture_exec(d, "break intr bdma_done0"), CMD_OK);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_int_equal(session_layers_done(d->session), 1);
    assert_non_null(strstr(fixture_out.text, "Breakpoint 2, interrupt BDMA_DONE_STATUS0 raised"));
    assert_int_equal(fixture_exec(d, "delete 2"), CMD_OK);
    assert_int_equal(fixture_exec(d, "enable 1"), CMD_OK);
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK);
    assert_int_equal(session_layers_done(d->session), 2);
    assert_int_equal(fixture_exec(d, "disable"), CMD_OK);
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK);
    assert_true(session_finished(d->session));
    assert_int_equal(session_writes(d->session), OPS * WRITES_PER_OP);
    dbg_destroy(d);
}

static void test_temporary(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    assert_int_equal(fixture_exec(d, "tbreak layer 1"), CMD_OK);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_int_equal(session_writes(d->session), first_write_of_op(1));
    assert_int_equal(bps_count(d->bps), 0);
    dbg_destroy(d);
}

static void test_watch_register(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    assert_int_equal(fixture_exec(d, "watch reg BDMA.CFG_DST_ADDR_LOW"), CMD_OK);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_int_equal(session_writes(d->session), 2);
    assert_non_null(strstr(fixture_out.text, "Watchpoint 1, BDMA.CFG_DST_ADDR_LOW: 0x00000000 -> "
                                             "0x80100000"));
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK);
    assert_int_equal(session_writes(d->session), first_write_of_op(1) + 1);
    assert_int_equal(fixture_exec(d, "watch reg BDMA.CFG_DST_ADDR_LOW.DST_ADDR_LOW"), CMD_ERROR);
    dbg_destroy(d);
}

static void test_watch_memory(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    assert_int_equal(fixture_exec(d, "watch mem 0x80102000 16"), CMD_OK);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    /* operation 2's bytes land when its layer completes */
    assert_int_equal(session_layers_done(d->session), 3);
    uint8_t got[16];
    assert_int_equal(dla_mem_read(session_dla(d->session), DLA_DRAM, 0x80102000, got, 16), MEM_OK);
    for (int i = 0; i < 16; i++)
        assert_int_equal(got[i], (i * 13 + 5) & 0xff);
    assert_non_null(strstr(fixture_out.text, "Watchpoint 1, dram 0x80102000+16 changed"));
    assert_int_equal(fixture_exec(d, "watch mem 0x80000000 0"), CMD_ERROR);
    assert_int_equal(fixture_exec(d, "watch mem 0x80000000 0x10000000"), CMD_ERROR);
    dbg_destroy(d);
}

static void test_diag(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("bad");
    assert_int_equal(fixture_exec(d, "break diag csb-reserved"), CMD_OK);
    assert_int_equal(fixture_exec(d, "break rule"), CMD_OK);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_int_equal(session_writes(d->session), 2 * WRITES_PER_OP + 1);
    assert_non_null(
        strstr(fixture_out.text,
               "Breakpoint 1, error (csb-reserved): CSB write of reserved address 0x14000"));
    assert_int_equal(bps_find(d->bps, 2)->hits, 0);
    dbg_destroy(d);
}

/* The CDP sample's LRN LUT sees inputs above both tables and none below:
 * "break lut overflow" stops at its LUT record, "underflow" never does. */
static void test_lut(void **state)
{
    (void)state;
    struct dbg *d = fixture_open("sample:cdp");
    assert_non_null(d);
    assert_int_equal(fixture_exec(d, "break lut underflow"), CMD_OK);
    assert_int_equal(fixture_exec(d, "break lut overflow"), CMD_OK);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    assert_false(session_finished(d->session));
    const struct dla_layer *l = dla_layer_get(session_dla(d->session), 0);
    assert_non_null(l->lut);
    assert_true(l->lut->overflow > 0);
    assert_int_equal(l->lut->underflow, 0);
    char want[128];
    snprintf(want, sizeof want, "Breakpoint 2, layer 0 (CDP): LUT overflow in %llu of %llu lookups",
             (unsigned long long)l->lut->overflow, (unsigned long long)l->lut->lookups);
    assert_non_null(strstr(fixture_out.text, want));
    assert_int_equal(fixture_exec(d, "continue"), CMD_OK);
    assert_true(session_finished(d->session));
    assert_int_equal(bps_find(d->bps, 1)->hits, 0);
    dbg_destroy(d);
}

/* A rule violation: the 21st BDMA CFG_OP.EN with 20 operations staged.  A
 * poke is a CSB write like any other, so the rule checker and the
 * breakpoint see it, and the poke says so at once. */
static void test_rule(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    assert_int_equal(fixture_exec(d, "break rule bdma.group"), CMD_OK); /* a prefix of another */
    assert_int_equal(fixture_exec(d, "break rule bdma.free_slot"), CMD_OK);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(fixture_exec(d, "reg BDMA.CFG_OP = 1"), CMD_OK);
        assert_int_equal(bps_find(d->bps, 2)->hits, 0);
    }
    assert_int_equal(fixture_exec(d, "reg BDMA.CFG_OP = 1"), CMD_OK);
    assert_int_equal(bps_find(d->bps, 2)->hits, 1);
    assert_int_equal(bps_find(d->bps, 1)->hits, 0);
    assert_non_null(strstr(fixture_out.text,
                           "Breakpoint 2, rule bdma.free_slot violated: CFG_OP.EN "
                           "with no free slot"));
    dbg_destroy(d);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    const char *bad[] = {
        "break layer -1",  "break layer 1 sometimes", "break unit gpu", "break reg NOPE",
        "break intr NOPE", "break lut sideways",      "delete 99",      "condition 99 1",
        "ignore 99 1",     "break reg BDMA.CFG_OP =="};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(fixture_exec(d, bad[i]), CMD_ERROR);
    assert_int_equal(bps_count(d->bps), 0);
    assert_int_equal(fixture_exec(d, "break lut overflow"), CMD_OK);
    assert_int_equal(fixture_exec(d, "info breakpoints"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "LUT overflow"));
    dbg_destroy(d);
}

/* The numbers a stop's hits are, in one call: every breakpoint the action
 * hit, in number order; none after a step that stopped at none, nor for the
 * location of "advance" (no breakpoint), alone or beside one. */
static void expect_hits(struct dbg *d, size_t want_n, const int *want)
{
    size_t n = 99;
    int *v = bps_stop_hits(d->bps, &n);
    assert_int_equal(n, want_n);
    if (!want_n)
        assert_null(v);
    for (size_t i = 0; i < want_n; i++)
        assert_int_equal(v[i], want[i]);
    free(v);
}

static void test_stop_hits(void **state)
{
    (void)state;
    struct dbg *d = fixture_open_trace("t4");
    expect_hits(d, 0, NULL); /* nothing ran */
    assert_int_equal(fixture_exec(d, "break unit bdma done"), CMD_OK);
    assert_int_equal(fixture_exec(d, "break layer 0 done"), CMD_OK);
    assert_int_equal(fixture_exec(d, "run"), CMD_OK);
    expect_hits(d, 2, (const int[]){1, 2});
    assert_int_equal(fixture_exec(d, "step"), CMD_OK);
    expect_hits(d, 0, NULL);
    assert_int_equal(fixture_exec(d, "delete 1"), CMD_OK);
    assert_int_equal(fixture_exec(d, "advance layer 1 programmed"), CMD_OK);
    assert_non_null(strstr(fixture_out.text, "layer 1 (BDMA) programmed"));
    expect_hits(d, 0, NULL);
    assert_int_equal(fixture_exec(d, "break layer 1 done"), CMD_OK);
    assert_int_equal(fixture_exec(d, "advance layer 1 done"), CMD_OK);
    expect_hits(d, 1, (const int[]){3});
    dbg_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_break_layer_programmed_and_done),
        cmocka_unit_test(test_unit_with_ignore_count),
        cmocka_unit_test(test_reg_value_and_condition),
        cmocka_unit_test(test_interrupt_and_enable_disable),
        cmocka_unit_test(test_temporary),
        cmocka_unit_test(test_watch_register),
        cmocka_unit_test(test_watch_memory),
        cmocka_unit_test(test_diag),
        cmocka_unit_test(test_lut),
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_stop_hits),
    };
    return cmocka_run_group_tests(tests, setup, fixture_group_teardown);
}
