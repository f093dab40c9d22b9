/* The bundled decoders' number cells (plugins/plugin_util.h), written by
 * hand for speed, against printf's own text for the same numbers: every
 * power of ten and of two and their neighbours, the extremes, and a
 * pseudo-random sweep; hex at every padding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../plugins/plugin_util.h"

/* The numbers to try: 0..999, 10^k and 2^k each with its neighbours, the
 * largest, and 100,000 of a 64-bit generator's (spread over every length). */
static size_t numbers(uint64_t *out, size_t cap)
{
    size_t n = 0;
    for (uint64_t v = 0; v < 1000; v++)
        out[n++] = v;
    for (uint64_t p = 10; p <= 10000000000000000000ull; p *= 10) {
        out[n++] = p - 1;
        out[n++] = p;
        out[n++] = p + 1;
        if (p == 10000000000000000000ull)
            break;
    }
    for (unsigned k = 1; k < 64; k++) {
        out[n++] = (1ull << k) - 1;
        out[n++] = 1ull << k;
        out[n++] = (1ull << k) + 1;
    }
    out[n++] = UINT64_MAX;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    while (n < cap) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out[n++] = x >> (x % 64); /* every length of number */
    }
    return n;
}

static void test_decimal_cells(void **state)
{
    (void)state;
    static uint64_t v[102000];
    size_t n = numbers(v, sizeof v / sizeof v[0]);
    char got[PLUGIN_CELL_LEN], want[PLUGIN_CELL_LEN];
    for (size_t i = 0; i < n; i++) {
        snprintf(want, sizeof want, "%llu", (unsigned long long)v[i]);
        assert_string_equal(plugin_cell_u64(got, v[i]), want);
        long long s = (long long)v[i];
        snprintf(want, sizeof want, "%lld", s);
        assert_string_equal(plugin_cell_int(got, s), want);
        snprintf(want, sizeof want, "%lld", s < 0 ? -1 : (long long)(v[i] >> 1));
        assert_string_equal(plugin_cell_index_or_blank(got, s < 0 ? -1 : (long long)(v[i] >> 1)),
                            s < 0 ? "" : want);
    }
}

static void test_hex_cells(void **state)
{
    (void)state;
    static uint64_t v[102000];
    size_t n = numbers(v, sizeof v / sizeof v[0]);
    char got[PLUGIN_CELL_LEN], want[PLUGIN_CELL_LEN];
    for (size_t i = 0; i < n; i++)
        for (unsigned digits = 0; digits <= 16; digits++) {
            snprintf(want, sizeof want, "0x%0*llx", (int)(digits ? digits : 1),
                     (unsigned long long)v[i]);
            assert_string_equal(plugin_cell_hex(got, v[i], digits), want);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decimal_cells),
        cmocka_unit_test(test_hex_cells),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
