/* layer_surface: a hardware layer's output and input surfaces from its
 * registers, checked against what the runtime placed and the engine wrote:
 * one SDP operation (sdp_net.h) in int8 on the nv_full and nv_small maps,
 * int16 and fp16 on nv_full, from the live registers and as programmed
 * (reg_history over the event ring, after the group was reprogrammed); the
 * single-unit samples' last layer against the loadable's output tensor;
 * CONV's output and on-the-fly inputs refused with a reason; every register
 * name resolving in both maps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/cube.h"
#include "debug/layer_surface.h"
#include "debug/reg_history.h"
#include "debug/trace_ring.h"
#include "engine_rig.h"
#include "num/fp16.h"
#include "sdp_net.h"
#include "tensor/tensor_layout.h"
#include "tensor/tensor_read.h"

/* The rig on configuration cfg, with an event ring listening. */
static void open_on(struct rig *r, const struct dla_config *cfg, const uint8_t *buf, size_t len,
                    struct trace_ring **ring)
{
    char err[512];
    memset(r, 0, sizeof *r);
    r->d = dla_create(cfg, NULL);
    assert_non_null(r->d);
    *ring = trace_ring_create(0);
    trace_ring_attach(*ring, r->d);
    r->l = loadable_parse(buf, len, "net", err, sizeof err);
    if (!r->l)
        fail_msg("%s", err);
    if (!runtime_load(&r->rt, r->l, r->d, err, sizeof err))
        fail_msg("%s", err);
    r->e = engine_create(r->d, &r->rep, err, sizeof err);
    assert_non_null(r->e);
}

static void close_rig(struct rig *r, struct trace_ring *ring)
{
    trace_ring_detach(ring);
    trace_ring_destroy(ring);
    rig_close(r);
}

/* Value of element k (0..) of the pattern the input is filled with. */
static int32_t pattern(uint8_t elem, uint32_t k)
{
    int32_t v = (int32_t)((k * 37u + 11u) % 200u) - 100; /* -100..99 */
    if (elem == TENSOR_FP16)
        return fp16_from_float((float)v * 0.25f);
    if (elem == TENSOR_INT16)
        return v * 300;
    return v;
}

/* The 4x4x8 input of sdp_net written as the runtime lays a feature cube:
 * atoms of the configuration, line stride 128, surface stride 512. */
static void fill_input(struct rig *r, unsigned atom, unsigned bpe, uint8_t elem)
{
    for (uint32_t c = 0; c < 8; c++)
        for (uint32_t y = 0; y < 4; y++)
            for (uint32_t x = 0; x < 4; x++) {
                uint8_t b[2];
                feature_store(b, bpe, pattern(elem, (c * 4 + y) * 4 + x));
                assert_int_equal(
                    dla_mem_write(r->d, (enum dla_space)r->rt.mem[4].space,
                                  r->rt.mem[4].addr + feature_offset(c, y, x, 128, 512, atom, bpe),
                                  b, bpe),
                    MEM_OK);
            }
}

/* t read back holds, at (c, y, x), what memory holds at the runtime's
 * layout of memory `m`, and that is the input pattern (the SDP operation
 * passes values through). */
static void check_surface(struct rig *r, const struct tensor_info *t, int m, unsigned atom,
                          uint8_t elem)
{
    unsigned bpe = tensor_elem_bytes(elem);
    assert_int_equal(t->space, r->rt.mem[m].space);
    assert_int_equal(t->addr, r->rt.mem[m].addr);
    assert_int_equal(t->n, 1);
    assert_int_equal(t->c, 8);
    assert_int_equal(t->h, 4);
    assert_int_equal(t->w, 4);
    assert_int_equal(t->elem, elem);
    assert_false(t->pitch);
    assert_int_equal(t->elem_stride, atom);
    assert_int_equal(t->line_stride, 128);
    assert_int_equal(t->surf_stride, 512);
    struct tensor_data td;
    char err[256];
    if (!tensor_read(r->d, t, &td, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(td.count, 8 * 4 * 4);
    for (uint32_t c = 0; c < 8; c++)
        for (uint32_t y = 0; y < 4; y++)
            for (uint32_t x = 0; x < 4; x++) {
                uint8_t b[2] = {0, 0};
                dla_mem_read(r->d, (enum dla_space)t->space,
                             r->rt.mem[m].addr + feature_offset(c, y, x, 128, 512, atom, bpe), b,
                             bpe);
                int32_t in_mem = feature_load(b, bpe, elem == TENSOR_FP16);
                int32_t got = tensor_elem_raw(elem, td.data, tensor_data_index(&td, 0, c, y, x));
                assert_int_equal(got, in_mem);
                assert_int_equal(got, pattern(elem, (c * 4 + y) * 4 + x));
            }
    tensor_data_free(&td);
}

static void sdp_case(const char *config, uint8_t prec, uint8_t elem)
{
    const struct dla_config *cfg = dla_config_find(config);
    assert_non_null(cfg);
    struct sdp_net n;
    sdp_net_init(&n);
    n.op.u.sdp.op.src_precision = n.op.u.sdp.op.dst_precision = prec;
    uint8_t *buf;
    size_t len;
    sdp_net_encode(&n, &buf, &len);
    struct rig r;
    struct trace_ring *ring;
    open_on(&r, cfg, buf, len, &ring);
    free(buf);
    unsigned atom = cfg->mem_atom, bpe = tensor_elem_bytes(elem);
    fill_input(&r, atom, bpe, elem);
    assert_true(rig_run(&r, 0));
    assert_int_equal(dla_layer_count(r.d), 1);
    const struct dla_layer *l = dla_layer_get(r.d, 0);
    assert_int_equal(l->proc, DLA_P_SDP);
    assert_int_equal(l->state, DLA_LAYER_DONE);

    /* live: as at DLA_EV_LAYER_DONE */
    struct tensor_info out, in;
    char why[256] = "";
    if (!layer_surface_live(r.d, DLA_P_SDP, l->group, LAYER_OUT, &out, why, sizeof why))
        fail_msg("%s: %s", config, why);
    check_surface(&r, &out, 5, atom, elem);
    assert_int_equal(out.id, -1);
    if (!layer_surface_live(r.d, DLA_P_SDP, l->group, LAYER_IN, &in, why, sizeof why))
        fail_msg("%s: %s", config, why);
    check_surface(&r, &in, 4, atom, elem);

    /* the group reprogrammed afterwards: the live registers move, the layer
     * as it was programmed does not */
    const struct regdb_unit *sdp = regdb_unit_named(dla_regmap(r.d), "SDP");
    const struct regdb_reg *base = regdb_reg_named(sdp, "D_DST_BASE_ADDR_LOW");
    const struct regdb_reg *ptr = regdb_reg_named(sdp, "S_POINTER");
    dla_csb_write(r.d, regdb_addr(sdp, ptr), l->group);
    dla_csb_write(r.d, regdb_addr(sdp, base), 0x12345600);
    struct tensor_info moved;
    assert_true(layer_surface_live(r.d, DLA_P_SDP, l->group, LAYER_OUT, &moved, why, sizeof why));
    assert_int_equal(moved.addr & 0xffffffffu, 0x12345600);
    struct reg_history *h = reg_history_create(ring, dla_layer_count(r.d));
    assert_non_null(h);
    struct tensor_info past;
    if (!layer_surface_of_layer(r.d, h, 0, LAYER_OUT, &past, why, sizeof why))
        fail_msg("%s: %s", config, why);
    assert_string_equal(past.name, "layer 0 output");
    check_surface(&r, &past, 5, atom, elem);
    assert_true(layer_surface_of_layer(r.d, h, 0, LAYER_IN, &past, why, sizeof why));
    assert_string_equal(past.name, "layer 0 input");
    check_surface(&r, &past, 4, atom, elem);
    /* the write began layer 1 (programming): its live values are its own */
    assert_true(layer_surface_of_layer(r.d, h, 1, LAYER_OUT, &past, why, sizeof why));
    assert_int_equal(past.addr & 0xffffffffu, 0x12345600);
    assert_false(layer_surface_of_layer(r.d, h, 7, LAYER_OUT, &past, why, sizeof why));
    assert_non_null(strstr(why, "no hardware layer 7"));
    reg_history_destroy(h);
    /* without a history a started layer is unknown */
    assert_false(layer_surface_of_layer(r.d, NULL, 0, LAYER_OUT, &past, why, sizeof why));
    assert_non_null(strstr(why, "no longer known"));
    close_rig(&r, ring);
}

static void test_sdp_int8_nv_full(void **state)
{
    (void)state;
    sdp_case("nv_full", FW_PREC_INT8, TENSOR_INT8);
}

static void test_sdp_int8_nv_small(void **state)
{
    (void)state;
    sdp_case("nv_small", FW_PREC_INT8, TENSOR_INT8);
}

static void test_sdp_int16_fp16_nv_full(void **state)
{
    (void)state;
    sdp_case("nv_full", FW_PREC_INT16, TENSOR_INT16);
    sdp_case("nv_full", FW_PREC_FP16, TENSOR_FP16);
}

/* A sample's last hardware layer wrote the loadable's output tensor: the
 * surface its registers describe holds the same elements. */
static void sample_case(const char *name)
{
    uint8_t *buf;
    size_t len;
    char err[256];
    assert_true(sample_net_build(name, &buf, &len, err, sizeof err));
    struct rig r;
    struct trace_ring *ring;
    open_on(&r, dla_config_default(), buf, len, &ring);
    free(buf);
    for (uint32_t t = 0; t < r.l->n_tasks; t++)
        if (r.l->tasks[t].interface == LD_IF_DLA1)
            assert_true(rig_run(&r, t));
    size_t n = dla_layer_count(r.d);
    assert_true(n > 0);
    struct reg_history *h = reg_history_create(ring, n);
    struct tensor_info out;
    char why[256];
    if (!layer_surface_of_layer(r.d, h, (uint32_t)(n - 1), LAYER_OUT, &out, why, sizeof why))
        fail_msg("%s: %s", name, why);
    struct tensor_data td;
    if (!tensor_read(r.d, &out, &td, err, sizeof err))
        fail_msg("%s: %s", name, err);
    /* the output tensor as the runtime reads it */
    const struct ld_tensor *lt = &r.l->tensors[r.rt.output_tensor];
    struct tensor_layout lay;
    assert_true(tensor_layout_output(lt, &lay, err, sizeof err));
    uint8_t *bytes;
    uint64_t blen;
    assert_true(runtime_read_output(&r.rt, r.d, &bytes, &blen, err, sizeof err));
    if (!strcmp(name, "bdma")) {
        /* bytes: one surface of 4 lines of 8 atoms, the output's first surface */
        assert_int_equal(out.elem, TENSOR_UINT8);
        assert_int_equal(out.c, 1);
        assert_int_equal(out.h, 4);
        assert_int_equal(out.w, 8 * 32);
        for (uint32_t y = 0; y < out.h; y++)
            for (uint32_t x = 0; x < out.w; x++)
                assert_int_equal(
                    tensor_elem_raw(out.elem, td.data, tensor_data_index(&td, 0, 0, y, x)),
                    bytes[y * lay.line_stride + x]);
        lay.c = 0; /* nothing more to compare */
    } else {
        assert_int_equal(out.c, lay.c);
        assert_int_equal(out.h, lay.h);
        assert_int_equal(out.w, lay.w);
        assert_int_equal(tensor_elem_bytes(out.elem), lay.bpe);
    }
    for (uint32_t c = 0; c < lay.c; c++)
        for (uint32_t y = 0; y < lay.h; y++)
            for (uint32_t x = 0; x < lay.w; x++) {
                const uint8_t *p = bytes + tensor_layout_offset(&lay, c, y, x);
                int32_t want = feature_load(p, lay.bpe, out.elem == TENSOR_FP16);
                int32_t got =
                    tensor_elem_raw(out.elem, td.data, tensor_data_index(&td, 0, c, y, x));
                if (out.elem == TENSOR_UINT8)
                    want &= 0xff;
                if (got != want)
                    fail_msg("%s: c=%u y=%u x=%u: layer surface %d, output tensor %d", name, c, y,
                             x, got, want);
            }
    free(bytes);
    tensor_data_free(&td);
    reg_history_destroy(h);
    close_rig(&r, ring);
}

static void test_samples_last_layer(void **state)
{
    (void)state;
    static const char *const names[] = {"sdp", "pdp", "cdp", "rubik", "bdma"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        sample_case(names[i]);
}

/* CONV writes nothing (its output is the next SDP layer's input); its input
 * is the loadable's input tensor; the SDP it feeds reads nothing. */
static void test_conv_sample(void **state)
{
    (void)state;
    uint8_t *buf;
    size_t len;
    char err[256];
    assert_true(sample_net_build("conv", &buf, &len, err, sizeof err));
    struct rig r;
    struct trace_ring *ring;
    open_on(&r, dla_config_default(), buf, len, &ring);
    free(buf);
    assert_true(rig_run(&r, 0));
    size_t n = dla_layer_count(r.d);
    struct reg_history *h = reg_history_create(ring, n);
    long conv = -1, sdp = -1;
    for (size_t i = 0; i < n; i++) {
        if (dla_layer_get(r.d, i)->proc == DLA_P_CONV && conv < 0)
            conv = (long)i;
        if (dla_layer_get(r.d, i)->proc == DLA_P_SDP && sdp < 0)
            sdp = (long)i;
    }
    assert_true(conv >= 0 && sdp >= 0);
    struct tensor_info t;
    char why[256];
    assert_false(layer_surface_of_layer(r.d, h, (uint32_t)conv, LAYER_OUT, &t, why, sizeof why));
    char want[64];
    snprintf(want, sizeof want, "layer %ld's input", sdp);
    assert_non_null(strstr(why, "CONV's output goes to SDP on the fly"));
    assert_non_null(strstr(why, want));
    assert_false(layer_surface_of_layer(r.d, h, (uint32_t)sdp, LAYER_IN, &t, why, sizeof why));
    assert_non_null(strstr(why, "on the fly from CONV"));
    /* the input: the loadable's input tensor, element for element */
    if (!layer_surface_of_layer(r.d, h, (uint32_t)conv, LAYER_IN, &t, why, sizeof why))
        fail_msg("%s", why);
    const struct ld_tensor *lt = &r.l->tensors[r.rt.input_tensor];
    struct tensor_layout lay;
    assert_true(tensor_layout_input(lt, &lay, err, sizeof err));
    assert_int_equal(t.addr, r.rt.mem[r.rt.input_memory].addr + lt->offset);
    assert_int_equal(t.c, lay.c);
    assert_int_equal(t.h, lay.h);
    assert_int_equal(t.w, lay.w);
    struct tensor_data td;
    assert_true(tensor_read(r.d, &t, &td, err, sizeof err));
    for (uint32_t c = 0; c < lay.c; c++)
        for (uint32_t y = 0; y < lay.h; y++)
            for (uint32_t x = 0; x < lay.w; x++) {
                uint8_t b[2] = {0, 0};
                dla_mem_read(r.d, (enum dla_space)t.space,
                             t.addr + tensor_layout_offset(&lay, c, y, x), b, lay.bpe);
                assert_int_equal(
                    tensor_elem_raw(t.elem, td.data, tensor_data_index(&td, 0, c, y, x)),
                    feature_load(b, lay.bpe, t.elem == TENSOR_FP16));
            }
    tensor_data_free(&td);
    reg_history_destroy(h);
    close_rig(&r, ring);
}

/* Every register and field name the surfaces read exists in both maps:
 * a fresh model (registers at reset) describes every side or says why. */
static void test_names_in_both_maps(void **state)
{
    (void)state;
    static const char *const configs[] = {"nv_full", "nv_small"};
    for (size_t i = 0; i < 2; i++) {
        struct dla *d = dla_create(dla_config_find(configs[i]), NULL);
        for (int p = 0; p < DLA_P_COUNT; p++)
            for (int side = 0; side < 2; side++) {
                struct tensor_info t;
                char why[256] = "";
                bool ok = layer_surface_live(d, (enum dla_proc)p, 0, (enum layer_side)side, &t, why,
                                             sizeof why);
                if (!ok && strstr(why, "register map"))
                    fail_msg("%s %s %s: %s", configs[i], dla_proc_name((enum dla_proc)p),
                             side ? "in" : "out", why);
                if (!ok)
                    assert_true(why[0] != 0);
            }
        dla_destroy(d);
    }
}

/* SDP on the fly to PDP, and PDP reading on the fly from SDP, say so; a
 * BDMA transfer is its bytes. */
static void test_flying_and_bdma(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_default(), NULL);
    const struct regdb_map *map = dla_regmap(d);
    struct regdb_ref ref;
    assert_true(regdb_resolve(map, "SDP.D_FEATURE_MODE_CFG", &ref));
    uint32_t v = 0;
    v = regdb_field_set(regdb_field_named(ref.reg, "OUTPUT_DST"), v, 1);
    dla_csb_write(d, regdb_addr(ref.unit, ref.reg), v);
    struct tensor_info t;
    char why[256];
    assert_false(layer_surface_live(d, DLA_P_SDP, 0, LAYER_OUT, &t, why, sizeof why));
    assert_non_null(strstr(why, "goes to PDP on the fly"));
    assert_int_equal(t.addr, 0);
    assert_false(layer_surface_live(d, DLA_P_PDP, 0, LAYER_IN, &t, why, sizeof why));
    assert_non_null(strstr(why, "on the fly from SDP"));
    static const struct {
        const char *reg;
        uint32_t value;
    } bdma[] = {{"BDMA.CFG_DST_ADDR_LOW", 0x80001000},
                {"BDMA.CFG_LINE", 1},
                {"BDMA.CFG_LINE_REPEAT", 2},
                {"BDMA.CFG_SURF_REPEAT", 1},
                {"BDMA.CFG_DST_LINE", 0x100},
                {"BDMA.CFG_DST_SURF", 0x1000},
                {"BDMA.CFG_CMD", 3}};
    for (size_t i = 0; i < sizeof bdma / sizeof bdma[0]; i++) {
        assert_true(regdb_resolve(map, bdma[i].reg, &ref));
        dla_csb_write(d, regdb_addr(ref.unit, ref.reg), bdma[i].value);
    }
    assert_true(layer_surface_live(d, DLA_P_BDMA, 0, LAYER_OUT, &t, why, sizeof why));
    assert_int_equal(t.addr, 0x80001000);
    assert_int_equal(t.space, DLA_DRAM);
    assert_int_equal(t.w, 64);
    assert_int_equal(t.h, 3);
    assert_int_equal(t.c, 2);
    assert_int_equal(t.elem, TENSOR_UINT8);
    /* byte x of line y of surface c */
    assert_int_equal(tensor_element_addr(&t, 0, 1, 2, 5), 0x80001000 + 0x1000 + 2 * 0x100 + 5);
    assert_int_equal(t.size, 0x1000 + 2 * 0x100 + 64);
    dla_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sdp_int8_nv_full),
        cmocka_unit_test(test_sdp_int8_nv_small),
        cmocka_unit_test(test_sdp_int16_fp16_nv_full),
        cmocka_unit_test(test_samples_last_layer),
        cmocka_unit_test(test_conv_sample),
        cmocka_unit_test(test_names_in_both_maps),
        cmocka_unit_test(test_flying_and_bdma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
