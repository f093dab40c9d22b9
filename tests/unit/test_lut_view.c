/* dla_lut_table(): the debugger's read-only view of the LUT RAM copies what
 * the RAM holds (both tables of both units, signed 16-bit), never more than
 * asked, nothing for units without a LUT, and changes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/dla_priv.h"

static void fill(struct dla_lut_ram *r, uint16_t seed)
{
    for (unsigned i = 0; i < DLA_LUT_LE_ENTRIES; i++)
        r->le[i] = (uint16_t)(seed + i * 977u);
    for (unsigned i = 0; i < DLA_LUT_LO_ENTRIES; i++)
        r->lo[i] = (uint16_t)(seed ^ (i * 40503u));
}

/* What a 16-bit entry means as a two's complement value, written plainly. */
static int16_t as_signed(uint16_t v)
{
    return v < 0x8000u ? (int16_t)v : (int16_t)((int32_t)v - 65536);
}

static void test_tables_of_both_units(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_default(), NULL);
    assert_non_null(d);
    fill(&d->lut_sdp, 0x1234);
    fill(&d->lut_cdp, 0xfedc);
    struct dla_lut_ram before_sdp = d->lut_sdp, before_cdp = d->lut_cdp;
    int16_t out[300];
    const struct {
        enum dla_unit u;
        const struct dla_lut_ram *r;
    } units[] = {{DLA_U_SDP, &before_sdp}, {DLA_U_CDP, &before_cdp}};
    for (size_t k = 0; k < 2; k++) {
        assert_int_equal(dla_lut_table(d, units[k].u, false, out, 300), DLA_LUT_LE_ENTRIES);
        for (unsigned i = 0; i < DLA_LUT_LE_ENTRIES; i++)
            assert_int_equal(out[i], as_signed(units[k].r->le[i]));
        assert_int_equal(dla_lut_table(d, units[k].u, true, out, 300), DLA_LUT_LO_ENTRIES);
        for (unsigned i = 0; i < DLA_LUT_LO_ENTRIES; i++)
            assert_int_equal(out[i], as_signed(units[k].r->lo[i]));
    }
    /* looking changes nothing, the access port included */
    assert_memory_equal(&d->lut_sdp, &before_sdp, sizeof before_sdp);
    assert_memory_equal(&d->lut_cdp, &before_cdp, sizeof before_cdp);
    dla_destroy(d);
}

static void test_bounds(void **state)
{
    (void)state;
    struct dla *d = dla_create(dla_config_default(), NULL);
    fill(&d->lut_sdp, 7);
    int16_t out[8];
    memset(out, 0x55, sizeof out);
    assert_int_equal(dla_lut_table(d, DLA_U_SDP, true, out, 5), 5);
    assert_int_equal(out[4], as_signed(d->lut_sdp.lo[4]));
    assert_int_equal((uint16_t)out[5], 0x5555); /* nothing past max */
    assert_int_equal(dla_lut_table(d, DLA_U_SDP, false, out, 0), 0);
    assert_int_equal(dla_lut_table(d, DLA_U_PDP, false, out, 8), 0);
    assert_int_equal(dla_lut_table(d, DLA_U_GLB, true, out, 8), 0);
    assert_int_equal(dla_lut_table(d, DLA_U_NONE, true, out, 8), 0);
    dla_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_of_both_units),
        cmocka_unit_test(test_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
