/* Sparse memory: zero default, page-crossing accesses, copy-on-write clones,
 * bounds of the address width and the resident-memory budget. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/mem.h"

static void test_zero_default_and_page_crossing(void **state)
{
    (void)state;
    struct dla_mem *m = mem_create("dram", 64, 1ull << 30);
    uint8_t buf[3 * MEM_PAGE_SIZE], got[sizeof buf];
    assert_int_equal(mem_read(m, 0x123456789abcull, got, 100), MEM_OK);
    for (int i = 0; i < 100; i++)
        assert_int_equal(got[i], 0);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 31 + 1);
    uint64_t addr = 0x80000000ull + MEM_PAGE_SIZE - 17; /* straddles three pages */
    assert_int_equal(mem_write(m, addr, buf, sizeof buf), MEM_OK);
    assert_int_equal(mem_read(m, addr, got, sizeof got), MEM_OK);
    assert_memory_equal(got, buf, sizeof buf);
    assert_int_equal(mem_resident_bytes(m), 4ull * MEM_PAGE_SIZE);
    /* the bytes around the write stay zero */
    uint8_t edge[2];
    mem_read(m, addr - 1, edge, 1);
    mem_read(m, addr + sizeof buf, edge + 1, 1);
    assert_int_equal(edge[0], 0);
    assert_int_equal(edge[1], 0);
    mem_destroy(m);
}

static void test_clone_is_copy_on_write(void **state)
{
    (void)state;
    struct dla_mem *m = mem_create("dram", 32, 1ull << 30);
    uint8_t a = 0xaa, b = 0xbb, got;
    mem_write(m, 0x1000, &a, 1);
    struct dla_mem *c = mem_clone(m);
    assert_int_equal(mem_resident_bytes(c), MEM_PAGE_SIZE);
    mem_write(m, 0x1000, &b, 1); /* original changes, clone keeps the old byte */
    mem_read(c, 0x1000, &got, 1);
    assert_int_equal(got, 0xaa);
    mem_read(m, 0x1000, &got, 1);
    assert_int_equal(got, 0xbb);
    mem_write(c, 0x2000, &b, 1); /* clone changes, original unaffected */
    mem_read(m, 0x2000, &got, 1);
    assert_int_equal(got, 0);
    mem_destroy(m);
    mem_read(c, 0x1000, &got, 1); /* clone outlives its source */
    assert_int_equal(got, 0xaa);
    mem_destroy(c);
}

/* A range shared with another memory (mem_copy_from) stays shared until
 * either writes a whole block of it; blocks it covers in part were copied
 * and are not looked at, nor are pages outside it. */
static void test_blocks_shared_until_written(void **state)
{
    (void)state;
    struct dla_mem *live = mem_create("dram", 32, 1ull << 30);
    uint8_t x = 1;
    uint64_t base = 0x80000000u;
    for (uint64_t a = base; a < base + 3 * MEM_PAGE_SIZE; a += 512)
        mem_write(live, a, &x, 1);
    struct dla_mem *check = mem_create("check", 64, UINT64_MAX);
    uint64_t addr = base + 100, len = 2 * MEM_PAGE_SIZE; /* partial blocks at both ends */
    assert_int_equal(mem_copy_from(check, live, addr, len), MEM_OK);
    assert_true(mem_blocks_shared(check, live, addr, len));
    mem_write(live, base + 3 * MEM_PAGE_SIZE - 1, &x, 1); /* outside the range */
    mem_write(live, base + 50, &x, 1);                    /* in a partial block */
    assert_true(mem_blocks_shared(check, live, addr, len));
    mem_write(live, base + MEM_PAGE_SIZE + 5 * MEM_BLOCK_SIZE, &x, 1); /* a whole block */
    assert_false(mem_blocks_shared(check, live, addr, len));
    assert_true(mem_blocks_shared(check, live, addr, MEM_PAGE_SIZE));
    mem_destroy(check);
    mem_destroy(live);
}

static void test_bounds_and_budget(void **state)
{
    (void)state;
    struct dla_mem *m = mem_create("dram", 32, 2 * MEM_PAGE_SIZE);
    uint8_t buf[16] = {1};
    assert_int_equal(mem_write(m, 0xfffffff8u, buf, 8), MEM_OK);
    assert_int_equal(mem_write(m, 0xfffffff8u, buf, 9), MEM_OUT_OF_RANGE);
    assert_int_equal(mem_read(m, 0x100000000ull, buf, 1), MEM_OUT_OF_RANGE);
    assert_int_equal(mem_write(m, 0, buf, 1), MEM_OK);
    /* a third page exceeds the budget of two */
    assert_int_equal(mem_write(m, 0x100000, buf, 1), MEM_OVER_BUDGET);
    /* zero fill of untouched memory costs nothing; of a whole page frees it */
    assert_int_equal(mem_fill(m, 0x200000, 0, 64ull << 20), MEM_OK);
    assert_int_equal(mem_fill(m, 0, 0, MEM_PAGE_SIZE), MEM_OK);
    assert_int_equal(mem_resident_bytes(m), MEM_PAGE_SIZE);
    assert_int_equal(mem_write(m, 0x100000, buf, 1), MEM_OK);
    /* a partial non-zero fill */
    assert_int_equal(mem_fill(m, 0x100010, 0x5a, 4), MEM_OK);
    uint8_t got[6];
    mem_read(m, 0x10000f, got, 6);
    uint8_t want[6] = {0, 0x5a, 0x5a, 0x5a, 0x5a, 0};
    assert_memory_equal(got, want, 6);
    mem_destroy(m);
}

static int many_pages_cb_count;
static bool count_pages(void *ctx, uint64_t base, const uint8_t *p)
{
    uint64_t *last = ctx;
    assert_true(base > *last || (many_pages_cb_count == 0 && base == 0));
    *last = base;
    (void)p;
    many_pages_cb_count++;
    return true;
}

static void test_many_pages_in_order(void **state)
{
    (void)state;
    struct dla_mem *m = mem_create("dram", 64, 1ull << 32);
    uint8_t v = 1;
    /* enough pages to grow the table several times, written in scrambled order */
    for (uint64_t i = 0; i < 500; i++)
        mem_write(m, ((i * 7919) % 500) << 20, &v, 1);
    for (uint64_t i = 0; i < 500; i += 3) /* free a third of them again */
        mem_fill(m, i << 20, 0, MEM_PAGE_SIZE);
    uint64_t last = 0;
    many_pages_cb_count = 0;
    mem_each_page(m, count_pages, &last);
    assert_int_equal(many_pages_cb_count, 500 - 167);
    /* info mem's count and span, taken in place: the same pages */
    uint64_t lo = 1, hi = 1;
    assert_int_equal(mem_page_span(m, &lo, &hi), 500 - 167);
    assert_int_equal(lo, 1ull << 20); /* page 0 was freed again */
    assert_int_equal(hi, (499ull << 20) + MEM_PAGE_SIZE);
    assert_int_equal(last, 499ull << 20);
    uint8_t got;
    for (uint64_t i = 0; i < 500; i++) {
        mem_read(m, i << 20, &got, 1);
        assert_int_equal(got, i % 3 ? 1 : 0);
    }
    mem_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_default_and_page_crossing),
        cmocka_unit_test(test_clone_is_copy_on_write),
        cmocka_unit_test(test_blocks_shared_until_written),
        cmocka_unit_test(test_bounds_and_budget),
        cmocka_unit_test(test_many_pages_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
