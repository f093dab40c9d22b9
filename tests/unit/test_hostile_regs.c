/* Hostile programming: random values in every register of a processor's
 * units, then OP_EN.  Whatever the values, the model must not crash, hang or
 * try absurd allocations; the layer must complete (possibly with diagnostics)
 * so nothing waits forever.  Deterministic: a fixed seed per iteration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/dla.h"

static uint64_t rng_state;

static uint32_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 32);
}

/* Values that stress the units: mostly small numbers (plausible shapes), some
 * field-sized extremes, some full random words. */
static uint32_t hostile_value(void)
{
    switch (rnd() % 8) {
    case 0:
        return 0;
    case 1:
        return 0xffffffffu;
    case 2:
        return rnd();
    case 3:
        return rnd() & 0xffff;
    default:
        return rnd() % 64;
    }
}

struct proc_units {
    enum dla_proc proc;
    enum dla_unit units[6];
};

static const struct proc_units procs[] = {
    {DLA_P_CONV, {DLA_U_CDMA, DLA_U_CSC, DLA_U_CMAC_A, DLA_U_CMAC_B, DLA_U_CACC, DLA_U_SDP}},
    {DLA_P_SDP, {DLA_U_SDP_RDMA, DLA_U_SDP, DLA_U_PDP, DLA_U_NONE}},
    {DLA_P_PDP, {DLA_U_PDP_RDMA, DLA_U_PDP, DLA_U_NONE}},
    {DLA_P_CDP, {DLA_U_CDP_RDMA, DLA_U_CDP, DLA_U_NONE}},
    {DLA_P_RUBIK, {DLA_U_RBK, DLA_U_NONE}},
};

static size_t diags;

static void count_diag(void *ctx, const struct dla_event *ev)
{
    (void)ctx;
    diags += ev->kind == DLA_EV_DIAG;
}

/* Write random values into every register of the unit (group 0), except the
 * producer pointer and OP_EN. */
static void scramble(struct dla *d, enum dla_unit u)
{
    const struct regdb_unit *ru = dla_unit_db(d, u);
    if (!ru)
        return;
    for (unsigned i = 0; i < ru->n_regs; i++) {
        const struct regdb_reg *r = &ru->regs[i];
        if (strcmp(r->name, "S_POINTER") == 0 || r->offset == ru->op_enable ||
            strncmp(r->name, "S_LUT_ACCESS", 12) == 0)
            continue;
        dla_csb_write(d, regdb_addr(ru, r), hostile_value());
    }
}

static void enable(struct dla *d, enum dla_unit u)
{
    const struct regdb_unit *ru = dla_unit_db(d, u);
    if (ru && ru->op_enable != 0xffff)
        dla_csb_write(d, ru->base + ru->op_enable, 1);
}

static void run_one(const char *config, const struct proc_units *pu, uint64_t seed)
{
    if (getenv("HOSTILE_VERBOSE"))
        fprintf(stderr, "%s proc %d seed %llx\n", config, (int)pu->proc, (unsigned long long)seed);
    /* a small work budget: the point is that every layer ends, not that big ones compute */
    struct dla_options opt = {.mem_budget = 256ull << 20, .work_budget = 1ull << 28};
    struct dla *d = dla_create(dla_config_find(config), &opt);
    assert_non_null(d);
    dla_listen(d, count_diag, NULL);
    rng_state = seed;
    for (int i = 0; i < 6 && pu->units[i] != DLA_U_NONE; i++)
        scramble(d, pu->units[i]);
    for (int i = 0; i < 6 && pu->units[i] != DLA_U_NONE; i++)
        enable(d, pu->units[i]);
    /* bounded: a launched pipeline has a handful of milestones */
    int events = 0;
    while (dla_advance(d))
        assert_true(++events < 1000);
    dla_destroy(d);
}

static void fuzz(const char *config, int iterations)
{
    for (size_t p = 0; p < sizeof procs / sizeof procs[0]; p++)
        for (int it = 0; it < iterations; it++)
            run_one(config, &procs[p], 0x5eed0000ull + p * 1000 + (uint64_t)it);
}

static void test_hostile_nv_full(void **state)
{
    (void)state;
    fuzz("nv_full", 40);
}

static void test_hostile_nv_small(void **state)
{
    (void)state;
    fuzz("nv_small", 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostile_nv_full),
        cmocka_unit_test(test_hostile_nv_small),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    printf("%zu diagnostics reported\n", diags);
    return rc;
}
