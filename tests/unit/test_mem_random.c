/* RANDOM memory made lazily (issue 36 item 5): `mem_init(pri_mem, 0x0,
 * 0xffffffe0, RANDOM);` for two spaces took 8.46 GB and 60 s.  Random
 * contents now allocate nothing: a block's bytes are made from the seed and
 * their address when read, the same on every run and in every clone, and
 * kept only once written.  Checked by resident bytes, not by time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/mem.h"

#define FOUR_GB 0xffffffe0ull

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

static void test_four_gigabytes_allocate_nothing(void **state)
{
    (void)state;
    struct dla_mem *a = mem_create("dram", 32, 64u << 20);
    assert_int_equal(mem_fill_random(a, 0, FOUR_GB, 42), MEM_OK);
    assert_int_equal(mem_resident_bytes(a), 0);
    uint8_t x[256], y[256];
    assert_int_equal(mem_read(a, 0xabcdef00, x, sizeof x), MEM_OK);
    assert_false(all_zero(x, sizeof x));
    assert_int_equal(mem_resident_bytes(a), 0); /* reading keeps nothing */
    /* deterministic: another memory with the same seed reads the same */
    struct dla_mem *b = mem_create("dram", 32, 64u << 20);
    assert_int_equal(mem_fill_random(b, 0, FOUR_GB, 42), MEM_OK);
    assert_int_equal(mem_read(b, 0xabcdef00, y, sizeof y), MEM_OK);
    assert_memory_equal(x, y, sizeof x);
    /* past the range: zeros */
    assert_int_equal(mem_read(a, FOUR_GB, x, 32), MEM_OK);
    assert_true(all_zero(x, 32));
    mem_destroy(a);
    mem_destroy(b);
}

static void test_writes_keep_the_rest_random(void **state)
{
    (void)state;
    struct dla_mem *m = mem_create("dram", 32, 64u << 20);
    assert_int_equal(mem_fill_random(m, 0x1000, 0x100000, 7), MEM_OK);
    uint8_t before[64], after[64];
    assert_int_equal(mem_read(m, 0x2000, before, sizeof before), MEM_OK);
    uint8_t one = 0x5a;
    assert_int_equal(mem_write(m, 0x2010, &one, 1), MEM_OK);
    assert_int_equal(mem_resident_bytes(m), MEM_PAGE_SIZE); /* one page, one block */
    assert_int_equal(mem_read(m, 0x2000, after, sizeof after), MEM_OK);
    before[0x10] = 0x5a;
    assert_memory_equal(before, after, sizeof before);
    /* a clone reads the same, and its writes stay its own */
    struct dla_mem *c = mem_clone(m);
    assert_int_equal(mem_read(c, 0x2000, after, sizeof after), MEM_OK);
    assert_memory_equal(before, after, sizeof before);
    uint8_t far[64], far_clone[64];
    assert_int_equal(mem_read(m, 0x90000, far, sizeof far), MEM_OK);
    assert_int_equal(mem_read(c, 0x90000, far_clone, sizeof far_clone), MEM_OK);
    assert_memory_equal(far, far_clone, sizeof far);
    /* zeros over part of it are zeros, the rest stays random */
    assert_int_equal(mem_fill(m, 0x3000, 0, 0x2000), MEM_OK);
    assert_int_equal(mem_read(m, 0x3000, after, sizeof after), MEM_OK);
    assert_true(all_zero(after, sizeof after));
    assert_int_equal(mem_read(m, 0x5000, after, sizeof after), MEM_OK);
    assert_false(all_zero(after, sizeof after));
    /* a later RANDOM replaces what was written, with its own bytes */
    assert_int_equal(mem_fill_random(m, 0x2000, 0x1000, 8), MEM_OK);
    assert_int_equal(mem_read(m, 0x2000, after, sizeof after), MEM_OK);
    assert_false(after[0x10] == 0x5a && memcmp(after, before, sizeof after) == 0);
    mem_destroy(c);
    mem_destroy(m);
}

/* Pages a write brought in show their random bytes to mem_each_page. */
static bool first_page(void *ctx, uint64_t base, const uint8_t *p)
{
    (void)base;
    memcpy(ctx, p, 64);
    return false;
}

static void test_each_page_shows_random_bytes(void **state)
{
    (void)state;
    struct dla_mem *m = mem_create("dram", 32, 64u << 20);
    assert_int_equal(mem_fill_random(m, 0, MEM_PAGE_SIZE, 3), MEM_OK);
    uint8_t one = 1, want[64], got[64];
    assert_int_equal(mem_write(m, MEM_PAGE_SIZE - 1, &one, 1), MEM_OK); /* the last block */
    assert_int_equal(mem_read(m, 0, want, sizeof want), MEM_OK);
    mem_each_page(m, first_page, got);
    assert_memory_equal(want, got, sizeof want);
    assert_false(all_zero(got, sizeof got));
    mem_destroy(m);
}

/* The blocks whose random bytes the run saw, for export txn: those read or
 * written in part, by the memory or its clones, and no others; their bytes
 * as they were before any write. */
static void test_blocks_seen_are_listed(void **state)
{
    (void)state;
    struct dla_mem *a = mem_create("dram", 32, 64u << 20);
    assert_int_equal(mem_fill_random(a, 0x10000, 0x100000, 7), MEM_OK);
    uint64_t *base;
    assert_int_equal(mem_random_blocks(a, &base), 0); /* nothing seen yet */
    uint8_t first[256], initial[MEM_BLOCK_SIZE];
    assert_int_equal(mem_read(a, 0x20100, first, sizeof first), MEM_OK);
    uint8_t mine[4] = {1, 2, 3, 4};
    assert_int_equal(mem_write(a, 0x31000, mine, sizeof mine), MEM_OK);
    struct dla_mem *c = mem_clone(a);
    uint8_t byte;
    assert_int_equal(mem_read(c, 0x50000, &byte, 1), MEM_OK); /* through the clone */
    assert_int_equal(mem_read(a, 0x200000, &byte, 1), MEM_OK); /* outside the range */
    size_t n = mem_random_blocks(a, &base);
    assert_int_equal(n, 3);
    assert_int_equal(base[0], 0x20000);
    assert_int_equal(base[1], 0x31000);
    assert_int_equal(base[2], 0x50000);
    free(base);
    mem_random_initial(a, 0x20000, initial);
    assert_memory_equal(initial + 0x100, first, sizeof first);
    mem_random_initial(a, 0x31000, initial); /* before the write */
    assert_memory_not_equal(initial, mine, sizeof mine);
    mem_destroy(c);
    mem_destroy(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_four_gigabytes_allocate_nothing),
        cmocka_unit_test(test_writes_keep_the_rest_random),
        cmocka_unit_test(test_each_page_shows_random_bytes),
        cmocka_unit_test(test_blocks_seen_are_listed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
