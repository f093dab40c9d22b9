/* format_fields_inline, the text of the "fields" cell every register event
 * carries into a CSV export: names, enum names or values ("%u" below 10,
 * else "0x%x"), and a buffer too short cut at its end, terminated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/format.h"

static const struct regdb_enum mode_names[] = {{"DIRECT", 0}, {"WINOGRAD", 1}};
static const struct regdb_field fields[] = {
    {.name = "MODE", .lsb = 0, .msb = 0, .n_enums = 2, .enums = mode_names},
    {.name = "SMALL", .lsb = 4, .msb = 7},
    {.name = "WIDE", .lsb = 8, .msb = 31},
};
static const struct regdb_reg reg = {.name = "D_MISC_CFG", .n_fields = 3, .fields = fields};

static void test_fields_text(void **state)
{
    (void)state;
    char buf[128];
    format_fields_inline(&reg, 0x00abcd91u, buf, sizeof buf);
    assert_string_equal(buf, "MODE=WINOGRAD SMALL=9 WIDE=0xabcd");
    format_fields_inline(&reg, 0x000000a0u, buf, sizeof buf);
    assert_string_equal(buf, "MODE=DIRECT SMALL=0xa WIDE=0");
}

static void test_fields_cut_at_buffer_end(void **state)
{
    (void)state;
    char buf[32];
    for (size_t len = 1; len < sizeof buf; len++) {
        memset(buf, '#', sizeof buf);
        format_fields_inline(&reg, 0x00abcd91u, buf, len);
        assert_int_equal(strlen(buf), len - 1);
        assert_memory_equal(buf, "MODE=WINOGRAD SMALL=9 WIDE=0xabcd", len - 1);
        assert_int_equal(buf[len], '#'); /* nothing past the buffer */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_text),
        cmocka_unit_test(test_fields_cut_at_buffer_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
