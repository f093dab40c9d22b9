/* The configuration table (sim/core/config.c) against NVIDIA's figures for each of
 * the seven configurations, written here in the vocabulary of nvdla/hw
 * spec/defs/<config>.spec (nv_full from branch nvdlav1, the others from
 * master): MAC atomics, memory atom, CBUF bank number/width/depth, feature
 * switches, unit throughputs and memory interfaces.  The figures were read
 * by hand from those files; the model's table is derived data, so a slip in
 * either shows here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/config.h"

/* One .spec file, in its own terms ("x" entries are 0). */
struct spec {
    const char *name;
    unsigned mac_atomic_c, mac_atomic_k, memory_atomic;
    unsigned cbuf_bank_number, cbuf_bank_width, cbuf_bank_depth;
    bool int16_fp16; /* no FEATURE_DATA_TYPE_INT8 restriction */
    bool winograd, weight_compression, batch, bdma, rubik, secondary_memif;
    bool sdp_bn, sdp_ew, sdp_lut;
    unsigned max_batch;
    unsigned bs_tp, bn_tp, ew_tp, pdp_tp, cdp_tp;
    unsigned pri_width, pri_burst, pri_latency;
    unsigned sec_width, sec_burst, sec_latency;
    unsigned mem_address_width; /* 0: not in the file (nv_full: 64-bit addresses) */
};

static const struct spec specs[] = {
    {"nv_full", 64, 32, 32, 16, 64, 512, true, true, true, true, true, true, true, true, true,
     true, 32, 16, 16, 4, 8, 8, 512, 1, 1200, 512, 4, 128, 0},
    {"nv_large", 64, 32, 32, 16, 64, 512, false, false, false, false, false, false, true, true,
     true, true, 32, 16, 16, 4, 8, 8, 256, 1, 1024, 256, 1, 1024, 64},
    {"nv_small", 8, 8, 8, 32, 8, 512, false, false, false, false, false, false, false, true, false,
     false, 0, 1, 1, 0, 1, 1, 64, 1, 64, 0, 0, 0, 32},
    {"nv_small_256", 32, 8, 8, 32, 32, 128, false, false, false, false, false, false, false, true,
     false, false, 0, 1, 1, 0, 1, 1, 64, 1, 64, 0, 0, 0, 32},
    {"nv_small_256_full", 32, 8, 8, 32, 32, 128, false, false, false, false, false, false, true,
     true, true, true, 0, 2, 2, 1, 1, 1, 64, 4, 64, 64, 4, 64, 32},
    {"nv_medium_512", 32, 16, 16, 32, 32, 512, false, false, false, false, false, false, false,
     true, false, false, 0, 4, 4, 0, 2, 2, 128, 4, 256, 0, 0, 0, 64},
    {"nv_medium_1024_full", 32, 32, 32, 32, 32, 512, false, false, false, false, false, false,
     true, true, true, true, 0, 8, 8, 2, 4, 4, 256, 4, 1024, 256, 4, 1024, 64},
};

static const struct dla_config *must_find(const char *name)
{
    const struct dla_config *c = dla_config_find(name);
    if (!c)
        fail_msg("configuration %s is missing", name);
    return c;
}

static void test_every_spec_has_a_configuration(void **state)
{
    (void)state;
    size_t n;
    dla_config_all(&n);
    assert_int_equal(n, sizeof specs / sizeof specs[0]);
    for (size_t i = 0; i < n; i++)
        must_find(specs[i].name);
    assert_string_equal(dla_config_default()->name, "nv_full");
}

static void test_mac_and_memory_atomics(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        const struct spec *s = &specs[i];
        const struct dla_config *c = must_find(s->name);
        assert_int_equal(c->atomic_c, s->mac_atomic_c);
        assert_int_equal(c->atomic_k, s->mac_atomic_k);
        assert_int_equal(c->mem_atom, s->memory_atomic);
        unsigned want = DLA_DT_INT8 | (s->int16_fp16 ? DLA_DT_INT16 | DLA_DT_FP16 : 0);
        assert_int_equal(c->dtypes, want);
    }
}

/* A bank holds width x depth bytes; an entry is one bank line, except on
 * nv_full where the int16/fp16 atomic-C slice (64 x 2 bytes) spans both
 * halves of a 64-byte-wide bank. */
static void test_cbuf_geometry(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        const struct spec *s = &specs[i];
        const struct dla_config *c = must_find(s->name);
        assert_int_equal(c->cbuf_banks, s->cbuf_bank_number);
        assert_int_equal(c->cbuf_bank_bytes, s->cbuf_bank_width * s->cbuf_bank_depth);
        unsigned entry = s->int16_fp16 ? s->mac_atomic_c * 2 : s->cbuf_bank_width;
        if (c->cbuf_entry_bytes != entry)
            fail_msg("%s: CBUF entry %u bytes, expected %u", s->name, c->cbuf_entry_bytes, entry);
    }
}

static void test_feature_switches(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        const struct spec *s = &specs[i];
        const struct dla_config *c = must_find(s->name);
        assert_int_equal(c->winograd, s->winograd);
        assert_int_equal(c->weight_compression, s->weight_compression);
        assert_int_equal(c->batch, s->batch);
        assert_int_equal(c->bdma, s->bdma);
        assert_int_equal(c->rubik, s->rubik);
        assert_int_equal(c->cvsram, s->secondary_memif);
        assert_true(c->sdp_bs);
        assert_int_equal(c->sdp_bn, s->sdp_bn);
        assert_int_equal(c->sdp_ew, s->sdp_ew);
        assert_int_equal(c->sdp_lut, s->sdp_lut);
        assert_int_equal(c->max_batch, s->max_batch);
    }
}

static void test_throughputs_and_memory_interfaces(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        const struct spec *s = &specs[i];
        const struct dla_config *c = must_find(s->name);
        assert_int_equal(c->sdp_bs_throughput, s->bs_tp);
        assert_int_equal(c->sdp_bn_throughput, s->bn_tp);
        assert_int_equal(c->sdp_ew_throughput, s->ew_tp);
        assert_int_equal(c->pdp_throughput, s->pdp_tp);
        assert_int_equal(c->cdp_throughput, s->cdp_tp);
        assert_int_equal(c->pri_bus_bits, s->pri_width);
        assert_int_equal(c->pri_burst, s->pri_burst);
        assert_int_equal(c->pri_latency, s->pri_latency);
        assert_int_equal(c->sec_bus_bits, s->sec_width);
        assert_int_equal(c->sec_burst, s->sec_burst);
        assert_int_equal(c->sec_latency, s->sec_latency);
        assert_int_equal(c->addr_bits, s->mem_address_width ? s->mem_address_width : 64);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_spec_has_a_configuration),
        cmocka_unit_test(test_mac_and_memory_atomics),
        cmocka_unit_test(test_cbuf_geometry),
        cmocka_unit_test(test_feature_switches),
        cmocka_unit_test(test_throughputs_and_memory_interfaces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
