/* Shared helpers of the PDP, CDP, RUBIK and LUT suites: a model with a
 * diagnostic recorder, register access by "UNIT.REG[.FIELD]" name, running
 * to idle, and feature-surface layout.  Header-only (static inline) so each
 * suite stays one binary. */
#ifndef POST_HARNESS_H
#define POST_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/cube.h"
#include "core/dla.h"
#include "reg_names.h"

#define HARNESS_MAX_DIAGS 256

struct harness {
    struct dla *d;
    size_t n_diags;
    char rule[HARNESS_MAX_DIAGS][48];
    uint8_t kind[HARNESS_MAX_DIAGS];
    char msg[HARNESS_MAX_DIAGS][200];
    size_t n_lut;
    struct dla_lut_stats lut; /* last DLA_EV_LUT */
    size_t n_done;            /* DLA_EV_LAYER_DONE seen */
};

static inline void harness_listener(void *ctx, const struct dla_event *ev)
{
    struct harness *h = ctx;
    if (ev->kind == DLA_EV_DIAG && h->n_diags < HARNESS_MAX_DIAGS) {
        snprintf(h->rule[h->n_diags], sizeof h->rule[0], "%s",
                 ev->u.diag.rule ? ev->u.diag.rule : "");
        snprintf(h->msg[h->n_diags], sizeof h->msg[0], "%s", ev->u.diag.msg);
        h->kind[h->n_diags] = ev->u.diag.kind;
        h->n_diags++;
    } else if (ev->kind == DLA_EV_LUT) {
        h->n_lut++;
        h->lut = *ev->u.lut.stats;
    } else if (ev->kind == DLA_EV_LAYER_DONE) {
        h->n_done++;
    }
}

static inline struct harness *harness_new(const char *config)
{
    struct harness *h = calloc(1, sizeof *h);
    assert_non_null(h);
    h->d = dla_create(dla_config_find(config), NULL);
    assert_non_null(h->d);
    dla_listen(h->d, harness_listener, h);
    return h;
}

static inline void harness_free(struct harness *h)
{
    dla_destroy(h->d);
    free(h);
}

/* Diagnostics whose rule id (or, with rule NULL, kind) matches. */
static inline size_t harness_count(const struct harness *h, const char *rule, int kind)
{
    size_t n = 0;
    for (size_t i = 0; i < h->n_diags; i++)
        if (rule ? strcmp(h->rule[i], rule) == 0 : h->kind[i] == kind)
            n++;
    return n;
}

static inline void harness_print_diags(const struct harness *h)
{
    for (size_t i = 0; i < h->n_diags; i++)
        fprintf(stderr, "  diag %s: %s\n", h->rule[i], h->msg[i]);
}

static inline void harness_resolve(struct harness *h, const char *name, struct regdb_ref *ref)
{
    reg_resolve_named(h->d, name, ref);
}

/* Write a whole register ("PDP.D_OP_ENABLE") or one field of it
 * ("PDP.D_POOLING_KERNEL_CFG.KERNEL_WIDTH", read-modify-write). */
static inline void wr(struct harness *h, const char *name, uint32_t v)
{
    struct regdb_ref ref;
    harness_resolve(h, name, &ref);
    uint32_t addr = regdb_addr(ref.unit, ref.reg);
    if (ref.field)
        v = regdb_field_set(ref.field, dla_csb_peek(h->d, addr), v);
    dla_csb_write(h->d, addr, v);
}

static inline uint32_t rd(struct harness *h, const char *name)
{
    struct regdb_ref ref;
    harness_resolve(h, name, &ref);
    uint32_t v = dla_csb_read(h->d, regdb_addr(ref.unit, ref.reg));
    return ref.field ? regdb_field_get(ref.field, v) : v;
}

/* Run the scheduler until nothing is left; bounded so a hang fails. */
static inline void run_idle(struct harness *h)
{
    for (int i = 0; i < 100000 && dla_advance(h->d); i++)
        ;
    assert_false(dla_busy(h->d));
}

/* Launch a unit that reads through its own DMA ("PDP": PDP.D_OP_ENABLE,
 * then PDP_RDMA.D_OP_ENABLE, the order every PDP and CDP case programs)
 * and run until idle. */
static inline void harness_enable_and_run(struct harness *h, const char *unit)
{
    char name[64];
    snprintf(name, sizeof name, "%s.D_OP_ENABLE", unit);
    wr(h, name, 1);
    snprintf(name, sizeof name, "%s_RDMA.D_OP_ENABLE", unit);
    wr(h, name, 1);
    run_idle(h);
}

/* No diagnostic was reported (any that was is printed first, so that a
 * failure says what went wrong). */
static inline void harness_expect_no_diags(const struct harness *h)
{
    if (h->n_diags)
        harness_print_diags(h);
    assert_int_equal(h->n_diags, 0);
}

/* The check after every good case: no diagnostic, one layer completed. */
static inline void harness_expect_clean_layer(const struct harness *h)
{
    harness_expect_no_diags(h);
    assert_int_equal(h->n_done, 1);
}

/* The diagnostic rule (or, with rule NULL, one of kind) was reported
 * exactly once; other diagnostics may come with it.  A failure names the
 * rule and prints every diagnostic. */
static inline void harness_expect_diag_once(const struct harness *h, const char *rule, int kind)
{
    size_t n = harness_count(h, rule, kind);
    if (n != 1) {
        harness_print_diags(h);
        if (rule)
            fail_msg("diagnostic %s reported %zu times, want once", rule, n);
        fail_msg("diagnostic kind %d reported %zu times, want once", kind, n);
    }
}

/* The check after a case that breaks a rule: reported once, and the layer
 * still completed. */
static inline void harness_expect_diag_and_done(const struct harness *h, const char *rule, int kind)
{
    harness_expect_diag_once(h, rule, kind);
    assert_int_equal(h->n_done, 1);
}

static inline void mem_put(struct harness *h, uint64_t addr, const void *buf, size_t len)
{
    assert_int_equal(dla_mem_write(h->d, DLA_DRAM, addr, buf, len), MEM_OK);
}

static inline void mem_get(struct harness *h, uint64_t addr, void *buf, size_t len)
{
    assert_int_equal(dla_mem_read(h->d, DLA_DRAM, addr, buf, len), MEM_OK);
}

/* A small deterministic generator for test data. */
static inline uint32_t harness_rand(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) & 0xffffffu;
}

#endif
