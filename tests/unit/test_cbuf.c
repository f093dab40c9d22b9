/* CBUF: the bytes CDMA leaves in the banks (entry layout of feature data and
 * weights), the bank map the debugger shows, DLA_EV_CBUF events, data and
 * weight reuse between layers (SKIP_*_RLS, *_REUSE, partial release with
 * D_RELEASE), checkpoints, and the CSB-driven pipeline around it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "conv_harness.h"

struct log {
    unsigned cbuf_events, diags[DLA_DIAG_HANG + 1];
    struct dla_event last_cbuf[8];
    char msg[256];
};

static void on_event(void *ctx, const struct dla_event *ev)
{
    struct log *l = ctx;
    if (ev->kind == DLA_EV_CBUF) {
        l->last_cbuf[l->cbuf_events % 8] = *ev;
        l->cbuf_events++;
    } else if (ev->kind == DLA_EV_DIAG) {
        l->diags[ev->u.diag.kind]++;
        snprintf(l->msg, sizeof l->msg, "%s", ev->u.diag.msg);
    }
}

static struct spec base(void)
{
    struct spec s = spec_3x3_same("nv_full", 0, 5, 6, 150, 9);
    s.data_banks = 3;
    s.weight_banks = 4;
    return s;
}

static void expect_output(const struct spec *s, const struct layer_data *ld,
                          const struct dla_cube *out)
{
    uint32_t ow = spec_ow(s), oh = spec_oh(s);
    int32_t *want = malloc(sizeof *want * s->batches * s->k * ow * oh);
    ref_conv_int(s, ld, want);
    for (uint32_t k = 0; k < s->k; k++)
        for (uint32_t y = 0; y < oh; y++)
            for (uint32_t x = 0; x < ow; x++)
                if (out->v[cube_index(out, 0, k, y, x)] != want[(k * oh + y) * ow + x])
                    fail_msg("k%u y%u x%u: want %d got %d", k, y, x, want[(k * oh + y) * ow + x],
                             out->v[cube_index(out, 0, k, y, x)]);
    free(want);
}

/* An nv_full model; with a log, its events are counted there. */
static struct dla *new_model(struct log *log)
{
    struct dla *d = dla_create(dla_config_find("nv_full"), NULL);
    if (log) {
        *log = (struct log){0};
        dla_listen(d, on_event, log);
    }
    return d;
}

/* Lay out and program s, run the convolution core on it (it must accept the
 * layer) and hand back its output in out, or drop it when out is NULL. */
static void run_layer(struct dla *d, const struct spec *s, struct layer_data *ld,
                      struct dla_cube *out)
{
    struct dla_cube own;
    prepare(d, s, ld);
    assert_int_equal(run_conv(d, out ? out : &own), 0);
    if (!out)
        cube_free(&own);
}

/* Feature data sits in the documented entry layout: slice = line, groups of
 * one entry of channels per pixel, the partial last group packed (150 int8
 * channels = 5 atoms of 32: one full 4-atom entry plus one atom, four pixels
 * sharing an entry). */
static void test_feature_layout(void **state)
{
    (void)state;
    struct spec s = base();
    struct dla *d = new_model(NULL);
    struct layer_data ld = {0};
    run_layer(d, &s, &ld, NULL);
    const uint32_t eps = s.w + (s.w + 3) / 4; /* 5 full entries + 2 packed ones */
    assert_int_equal(get_reg(d, "CDMA.D_ENTRY_PER_SLICE") + 1, eps);
    struct cbuf_region dr = {0, s.data_banks};
    for (uint32_t y = 0; y < s.h; y++)
        for (uint32_t x = 0; x < s.w; x++)
            for (uint32_t c = 0; c < s.c; c++) {
                uint32_t entry, byte;
                if (c < 128) {
                    entry = y * eps + x;
                    byte = c;
                } else {
                    entry = y * eps + s.w + x / 4;
                    byte = (x % 4) * 32 + (c - 128);
                }
                const uint8_t *e = cbuf_entry_ptr(d->cbuf, &dr, entry);
                int8_t want = (int8_t)ld.in[(c * s.h + y) * s.w + x];
                if ((int8_t)e[byte] != want)
                    fail_msg("y%u x%u c%u: entry %u byte %u holds %d, want %d", y, x, c, entry,
                             byte, (int8_t)e[byte], want);
            }
    /* weights: the raw stream from the start of the weight banks */
    struct cbuf_region wr = {s.data_banks, s.weight_banks};
    uint64_t n = weight_stream(dla_cfg(d), &s, &ld, NULL);
    uint8_t *stream = malloc(n);
    weight_stream(dla_cfg(d), &s, &ld, stream);
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(cbuf_entry_ptr(d->cbuf, &wr, i / 128)[i % 128], stream[i]);
    free(stream);
    free_layer_data(&ld);
    dla_destroy(d);
}

static void test_bank_map_and_events(void **state)
{
    (void)state;
    struct spec s = base();
    struct log log;
    struct dla *d = new_model(&log);
    struct layer_data ld = {0};
    run_layer(d, &s, &ld, NULL);
    int32_t layer = (int32_t)dla_layer_current(d, DLA_P_CONV, 0)->index;
    struct dla_cbuf_bank banks[32];
    assert_int_equal(dla_cbuf_banks(d, banks, 32), 16);
    for (unsigned b = 0; b < 16; b++) {
        if (b < 3) { /* 6 slices x 7 entries x 128 B: bank 0 only */
            if (b == 0) {
                assert_int_equal(banks[b].layer, layer);
                assert_int_equal(banks[b].kind, 0);
                /* 6 slices x 7 entries; the last entry holds one packed pixel */
                assert_int_equal(banks[b].bytes_used, (6 * 7 - 1) * 128 + 32);
                assert_true(banks[b].writes > 0 && banks[b].reads > 0);
            }
        } else if (b == 3) {
            assert_int_equal(banks[b].layer, layer);
            assert_int_equal(banks[b].kind, 1);
            assert_int_equal(banks[b].bytes_used, 3 * 3 * 150 * 9);
        } else {
            assert_int_equal(banks[b].layer, -1);
        }
    }
    assert_int_equal(log.cbuf_events, 2);
    assert_int_equal(log.last_cbuf[0].u.cbuf.kind, 0);
    assert_int_equal(log.last_cbuf[0].u.cbuf.first_bank, 0);
    assert_int_equal(log.last_cbuf[0].u.cbuf.n_banks, 3);
    assert_int_equal(log.last_cbuf[1].u.cbuf.kind, 1);
    assert_int_equal(log.last_cbuf[1].u.cbuf.first_bank, 3);
    assert_int_equal(log.last_cbuf[1].layer, layer);
    free_layer_data(&ld);
    dla_destroy(d);
}

/* A layer that keeps its data and weights (SKIP_*_RLS) lets the next one
 * reuse them: CDMA fetches nothing and the result is computed from what is
 * in CBUF, not from memory. */
static void test_full_reuse(void **state)
{
    (void)state;
    struct spec s = base();
    s.skip_data_rls = s.skip_weight_rls = true;
    struct log log;
    struct dla *d = new_model(&log);
    struct layer_data first = {0};
    run_layer(d, &s, &first, NULL);
    struct dla_cube out;
    /* new input and weights in memory, programmed to reuse */
    struct spec s2 = s;
    s2.seed = 999;
    s2.data_reuse = s2.weight_reuse = true;
    s2.skip_data_rls = s2.skip_weight_rls = false;
    struct layer_data second = {0};
    run_layer(d, &s2, &second, &out);
    expect_output(&s, &first, &out);
    assert_int_equal(conv_last_bytes[DLA_C_CDMA_DAT], 0);
    assert_int_equal(conv_last_bytes[DLA_C_CDMA_WT], 0);
    assert_int_equal(log.diags[DLA_DIAG_RULE], 0);
    cube_free(&out);
    /* that layer released everything: the next one fetches again */
    s2.data_reuse = s2.weight_reuse = false;
    program_layer(d, &s2, weight_stream(dla_cfg(d), &s2, &second, NULL), 0);
    assert_int_equal(run_conv(d, &out), 0);
    expect_output(&s2, &second, &out);
    cube_free(&out);
    free_layer_data(&first);
    free_layer_data(&second);
    dla_destroy(d);
}

/* Split-H: the first layer releases D_RELEASE slices and keeps the rest;
 * the next one reuses the kept lines and appends the lines CDMA fetches
 * (CSC's height counts both). */
static void test_partial_release(void **state)
{
    (void)state;
    struct spec s = base();
    s.c = 20;
    s.h = 5;
    s.pt = s.pb = 0;
    s.rls_slices = 3; /* keep lines 3 and 4 */
    struct log log;
    struct dla *d = new_model(&log);
    struct layer_data first = {0};
    struct dla_cube out;
    run_layer(d, &s, &first, &out);
    expect_output(&s, &first, &out);
    cube_free(&out);
    /* second part of the image: 4 new lines */
    struct spec s2 = s;
    s2.h = 4;
    s2.seed = 4242;
    s2.data_reuse = true;
    s2.rls_slices = 6;
    struct layer_data second = {0};
    prepare(d, &s2, &second);
    /* CSC sees 2 kept + 4 new lines */
    struct spec whole = s;
    whole.h = 6;
    set_field(d, "CSC.D_DATAIN_SIZE_EXT_0", NULL, (s.w - 1) | (whole.h - 1) << 16);
    uint32_t oh = spec_oh(&whole);
    set_field(d, "CSC.D_DATAOUT_SIZE_0", NULL, (spec_ow(&whole) - 1) | (oh - 1) << 16);
    set_field(d, "CACC.D_DATAOUT_SIZE_0", NULL, (spec_ow(&whole) - 1) | (oh - 1) << 16);
    set_field(d, "CSC.D_ATOMICS", NULL, spec_ow(&whole) * oh - 1);
    assert_int_equal(run_conv(d, &out), 0);
    /* reference input: lines 3, 4 of the first cube, then the new four */
    struct layer_data ref = {0};
    make_layer_data(&whole, &ref);
    for (uint32_t c = 0; c < s.c; c++)
        for (uint32_t y = 0; y < whole.h; y++)
            for (uint32_t x = 0; x < s.w; x++)
                ref.in[(c * whole.h + y) * s.w + x] = y < 2
                                                          ? first.in[(c * s.h + y + 3) * s.w + x]
                                                          : second.in[(c * s2.h + y - 2) * s.w + x];
    memcpy(ref.wt, second.wt, sizeof *ref.wt * ref.n_wt);
    expect_output(&whole, &ref, &out);
    assert_int_equal(conv_last_bytes[DLA_C_CDMA_DAT], 4ull * 5 * 32);
    cube_free(&out);
    free_layer_data(&first);
    free_layer_data(&second);
    free_layer_data(&ref);
    dla_destroy(d);
}

static void test_reuse_without_kept_data_is_a_rule(void **state)
{
    (void)state;
    struct spec s = base();
    s.weight_reuse = true; /* nothing was kept before */
    struct log log;
    struct dla *d = new_model(&log);
    struct layer_data ld = {0};
    run_layer(d, &s, &ld, NULL);
    assert_true(log.diags[DLA_DIAG_RULE] >= 1);
    free_layer_data(&ld);
    dla_destroy(d);
}

/* The weight ring carries on: a second layer's weights follow the first's
 * (wrapping round the weight banks), and the result is still exact. */
static void test_weight_ring_carries_on(void **state)
{
    (void)state;
    struct spec s = base();
    s.weight_banks = 1; /* 32 KiB ring, 12150 bytes a layer */
    struct dla *d = new_model(NULL);
    struct cbuf_region wr = {s.data_banks, s.weight_banks};
    for (int layer = 0; layer < 4; layer++) {
        s.seed = 100 + (uint32_t)layer;
        struct layer_data ld = {0};
        struct dla_cube out;
        run_layer(d, &s, &ld, &out);
        expect_output(&s, &ld, &out);
        /* where this layer's stream starts: 95 entries (12160 B) per layer */
        uint64_t start = (uint64_t)layer * 95 * 128 % (32 * 1024);
        uint64_t n = weight_stream(dla_cfg(d), &s, &ld, NULL);
        uint8_t *stream = malloc(n);
        weight_stream(dla_cfg(d), &s, &ld, stream);
        for (uint64_t i = 0; i < n; i += 97) {
            uint64_t b = (start + i) % (32 * 1024);
            assert_int_equal(cbuf_entry_ptr(d->cbuf, &wr, b / 128)[b % 128], stream[i]);
        }
        free(stream);
        cube_free(&out);
        free_layer_data(&ld);
    }
    dla_destroy(d);
}

/* A checkpoint holds the CBUF bytes and the carry-over state. */
static void test_snapshot_keeps_cbuf(void **state)
{
    (void)state;
    struct spec s = base();
    s.skip_data_rls = s.skip_weight_rls = true;
    struct dla *d = new_model(NULL);
    struct layer_data first = {0};
    run_layer(d, &s, &first, NULL);
    struct dla_snapshot *snap = dla_snapshot_take(d);
    assert_non_null(snap);
    /* overwrite CBUF with another layer that releases everything */
    struct spec other = base();
    other.seed = 5;
    struct layer_data junk = {0};
    run_layer(d, &other, &junk, NULL);
    dla_snapshot_restore(d, snap);
    dla_snapshot_free(snap);
    struct spec s2 = s;
    s2.seed = 77;
    s2.data_reuse = s2.weight_reuse = true;
    struct layer_data second = {0};
    struct dla_cube out;
    run_layer(d, &s2, &second, &out);
    expect_output(&s, &first, &out);
    cube_free(&out);
    free_layer_data(&first);
    free_layer_data(&junk);
    free_layer_data(&second);
    dla_destroy(d);
}

/* A clone (what a checkpoint holds) shares every bank until one side writes
 * it; a write unshares only its own bank's chunk, and the clone keeps the
 * old bytes. */
static void test_clone_shares_unchanged_banks(void **state)
{
    (void)state;
    struct spec s = base();
    struct dla *d = new_model(NULL);
    struct layer_data ld = {0};
    run_layer(d, &s, &ld, NULL);
    struct cbuf *copy = cbuf_clone(d->cbuf);
    assert_non_null(copy);
    struct dla_cbuf_bank map[16];
    assert_int_equal(cbuf_describe(d->cbuf, map, 16), 16);
    unsigned written = 0;
    for (unsigned b = 0; b < 16; b++) {
        assert_int_equal(cbuf_bank_shared(d->cbuf, copy, b), map[b].writes > 0);
        written += map[b].writes > 0;
    }
    assert_true(map[0].writes > 0 && written >= 2); /* data and weights */
    struct cbuf_region first = {0, 1};
    uint8_t before = cbuf_entry_ptr(d->cbuf, &first, 0)[0], poke = (uint8_t)(before ^ 0x5a);
    cbuf_write(d->cbuf, &first, 0, &poke, 1, 0, CBUF_DATA);
    assert_false(cbuf_bank_shared(d->cbuf, copy, 0));
    /* one byte unshares the 4 KiB chunk it falls in, not its 32 KiB bank */
    assert_int_equal(cbuf_bytes_apart(copy, d->cbuf), 4096);
    for (unsigned b = 1; b < 16; b++)
        assert_int_equal(cbuf_bank_shared(d->cbuf, copy, b), map[b].writes > 0);
    assert_int_equal(cbuf_entry_ptr(copy, &first, 0)[0], before);
    assert_int_equal(cbuf_entry_ptr(d->cbuf, &first, 0)[0], poke);
    /* a bank nobody wrote reads as zeros */
    struct cbuf_region last = {15, 1};
    uint8_t got[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    cbuf_read(copy, &last, 0, got, sizeof got);
    for (size_t i = 0; i < sizeof got; i++)
        assert_int_equal(got[i], 0);
    cbuf_destroy(copy);
    free_layer_data(&ld);
    dla_destroy(d);
}

/* ---------------------------------------------------------------- through the CSB */

/* The full pipeline driven by register writes: SDP enabled on the fly, OP_EN
 * written downstream first, then time advanced until nothing is left. */
static void test_pipeline_through_csb(void **state)
{
    (void)state;
    struct spec s = base();
    struct log log;
    struct dla *d = new_model(&log);
    struct layer_data ld = {0};
    prepare(d, &s, &ld);
    set_field(d, "CDMA.D_PERF_ENABLE", NULL, 1);
    set_field(d, "SDP.S_POINTER", NULL, 0);
    set_field(d, "SDP.D_FEATURE_MODE_CFG", "FLYING_MODE", 1);
    set_field(d, "SDP.D_OP_ENABLE", NULL, 1);
    set_field(d, "CACC.D_OP_ENABLE", NULL, 1);
    set_field(d, "CMAC_A.D_OP_ENABLE", NULL, 1);
    set_field(d, "CMAC_B.D_OP_ENABLE", NULL, 1);
    set_field(d, "CSC.D_OP_ENABLE", NULL, 1);
    set_field(d, "CDMA.D_OP_ENABLE", NULL, 1);
    int guard = 0;
    while (dla_advance(d) && guard++ < 100)
        ;
    uint32_t st = dla_intr_status(d);
    assert_true(st & (1u << 16)); /* CDMA_DAT_DONE0 */
    assert_true(st & (1u << 18)); /* CDMA_WT_DONE0 */
    assert_true(st & (1u << 20)); /* CACC_DONE0 */
    const struct dla_layer *l = NULL;
    for (size_t i = 0; i < dla_layer_count(d); i++)
        if (dla_layer_get(d, i)->proc == DLA_P_CONV)
            l = dla_layer_get(d, i);
    assert_non_null(l);
    assert_int_equal(l->state, DLA_LAYER_DONE);
    assert_int_equal(l->macs, (uint64_t)spec_ow(&s) * spec_oh(&s) * s.k * 9 * s.c);
    /* 150 channels = 3 blocks of 64, 9 taps, 30 positions, one kernel group */
    assert_int_equal(l->compute_cycles, 3ull * 9 * 30);
    assert_non_null(strstr(l->desc, "conv direct int8 5x6x150 -> 5x6x9 k3x3"));
    assert_true(dla_layer_client_bytes(l, DLA_C_CDMA_DAT) > 0 && dla_layer_client_bytes(l, DLA_C_CDMA_WT) > 0);
    assert_true(get_reg(d, "CDMA.D_PERF_DAT_READ_LATENCY") > 0);
    assert_int_equal(log.cbuf_events, 2);
    /* OP_EN cleared, consumer moved on */
    assert_int_equal(get_reg(d, "CDMA.D_OP_ENABLE"), 0);
    free_layer_data(&ld);
    dla_destroy(d);
}

/* OP_EN must be written downstream first (CACC, CMAC, CSC, CDMA). */
static void test_op_enable_order_rule(void **state)
{
    (void)state;
    struct log log;
    struct dla *d = new_model(&log);
    struct spec s = base();
    struct layer_data ld = {0};
    prepare(d, &s, &ld);
    set_field(d, "CACC.D_OP_ENABLE", NULL, 1);
    set_field(d, "CMAC_B.D_OP_ENABLE", NULL, 1);
    assert_int_equal(log.diags[DLA_DIAG_RULE], 0);
    set_field(d, "CSC.D_OP_ENABLE", NULL, 1); /* CMAC_A is not enabled yet */
    assert_int_equal(log.diags[DLA_DIAG_RULE], 1);
    assert_non_null(strstr(log.msg, "CMAC_A"));
    set_field(d, "CMAC_A.D_OP_ENABLE", NULL, 1);
    set_field(d, "CDMA.D_OP_ENABLE", NULL, 1);
    assert_int_equal(log.diags[DLA_DIAG_RULE], 1);
    free_layer_data(&ld);
    dla_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_feature_layout),
        cmocka_unit_test(test_bank_map_and_events),
        cmocka_unit_test(test_full_reuse),
        cmocka_unit_test(test_partial_release),
        cmocka_unit_test(test_reuse_without_kept_data_is_a_rule),
        cmocka_unit_test(test_weight_ring_carries_on),
        cmocka_unit_test(test_snapshot_keeps_cbuf),
        cmocka_unit_test(test_clone_shares_unchanged_banks),
        cmocka_unit_test(test_pipeline_through_csb),
        cmocka_unit_test(test_op_enable_order_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
