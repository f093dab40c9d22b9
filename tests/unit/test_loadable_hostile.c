/* Loadables built to cost more than their size (issue 36): entries that
 * share one table with a large vector (amplification), and many ids that
 * each have to be looked up (quadratic validation).  Both are bounded by
 * counts: bytes copied against the file's size, and the list entries the
 * lookups compare. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "loadable/loadable.h"
#include "loadable/loadable_writer.h"
#include "util/le_bytes.h"

struct bytes {
    uint8_t *p;
    size_t len;
};

static void put(struct bytes *b, const void *src, size_t n)
{
    b->p = realloc(b->p, b->len + n);
    assert_non_null(b->p);
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void put32(struct bytes *b, uint32_t v)
{
    uint8_t x[4];
    le_put32(x, v);
    put(b, x, 4);
}

static void put16(struct bytes *b, uint16_t v)
{
    uint8_t x[2];
    le_put16(x, v);
    put(b, x, 2);
}

/* The amp.py: a root whose task_list has `tasks` entries all
 * pointing at one TaskListEntry, whose address_list holds `ids` zeros. */
static struct bytes shared_task_table(uint32_t tasks, uint32_t ids)
{
    struct bytes b = {NULL, 0};
    /* root offset, then the root's vtable: 8 bytes, table 12, version at 4, task_list at 8 */
    put32(&b, 12);
    put16(&b, 8), put16(&b, 12), put16(&b, 4), put16(&b, 8);
    put32(&b, 8); /* root table at 12: soffset to its vtable at 4 */
    put(&b, (uint8_t[]){0, 7, 0, 0}, 4); /* Loadable.version 0.7.0 */
    put32(&b, 4); /* task_list: the vector at 28 */
    uint32_t vtable = 28 + 4 * (tasks + 1) - 4, table = vtable + 12;
    put32(&b, tasks);
    for (uint32_t i = 0; i < tasks; i++)
        put32(&b, table - (28 + 4 * i)); /* every entry to the same table */
    /* the task's vtable: 12 bytes, table 12, id absent, interface at 4, instance absent,
     * address_list at 8 */
    put16(&b, 12), put16(&b, 12), put16(&b, 0), put16(&b, 4), put16(&b, 0), put16(&b, 8);
    put32(&b, 12); /* the task table: soffset back to its vtable */
    put32(&b, LD_IF_DLA1);
    put32(&b, 4); /* address_list: right after */
    put32(&b, ids);
    for (uint32_t i = 0; i < ids; i++)
        put16(&b, 0);
    return b;
}

static void test_shared_table_refused_before_copying(void **state)
{
    (void)state;
    /* one task of 1000 ids fits the file; the second copy of the same
     * 2000 bytes is more than the file holds */
    struct bytes b = shared_task_table(3, 1000);
    char err[512] = "";
    struct loadable *l = loadable_parse(b.p, b.len, "amp.nvdla", err, sizeof err);
    assert_null(l);
    if (!strstr(err, "amp.nvdla: offset ") || !strstr(err, "copied at most once") ||
        !strstr(err, "TaskListEntry.address_list"))
        fail_msg("unexpected message: %s", err);
    free(b.p);

    /* the same table named once is an ordinary task (refused later, for its id) */
    b = shared_task_table(1, 1000);
    l = loadable_parse(b.p, b.len, "one.nvdla", err, sizeof err);
    assert_null(l);
    if (strstr(err, "copied at most once"))
        fail_msg("a table named once was refused as shared: %s", err);
    free(b.p);
}

/* n addresses in one memory, a task naming the last one `refs` times. */
static struct bytes many_ids(uint32_t n, uint32_t refs)
{
    struct lw *w = lw_create();
    assert_non_null(w);
    static const uint8_t desc[40] = {1};
    assert_int_equal(lw_blob(w, "desc", LD_IF_DLA1, 1, (struct ld_version){0, 12, 0}, desc,
                             sizeof desc),
                     0);
    assert_int_equal(lw_memory(w, LD_DOMAIN_SYSTEM, 3, 4096, 0, "desc", 0, 0), 0);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(lw_address(w, 0, i % 4096, 1), (int)i);
    uint16_t *ids = malloc(refs * sizeof *ids);
    assert_non_null(ids);
    ids[0] = 0;
    for (uint32_t i = 1; i < refs; i++)
        ids[i] = (uint16_t)(n - 1);
    assert_int_equal(lw_task(w, LD_IF_DLA1, ids, refs, NULL, 0, NULL, 0), 0);
    uint16_t task = 0;
    assert_int_equal(lw_submit(w, &task, 1), 0);
    struct bytes b = {NULL, 0};
    assert_true(lw_finish(w, (struct ld_version){0, 7, 0}, &b.p, &b.len));
    lw_destroy(w);
    free(ids);
    return b;
}

static unsigned long long steps_to_parse(uint32_t n, uint32_t refs)
{
    struct bytes b = many_ids(n, refs);
    char err[512];
    unsigned long long before = loadable_lookup_steps();
    struct loadable *l = loadable_parse(b.p, b.len, "ids.nvdla", err, sizeof err);
    if (!l)
        fail_msg("%s", err);
    unsigned long long steps = loadable_lookup_steps() - before;
    assert_int_equal(loadable_address_index(l, (uint16_t)(n - 1)), (int)(n - 1));
    assert_int_equal(loadable_address_index(l, 0), 0);
    assert_int_equal(loadable_blob_index(l, "desc"), 0);
    assert_int_equal(loadable_blob_index(l, "none"), -1);
    loadable_free(l);
    free(b.p);
    return steps;
}

static void test_id_lookups_are_not_quadratic(void **state)
{
    (void)state;
    /* a scan compares n entries per reference: 16384 x 16384 = 268M; a
     * binary search about 15 */
    uint32_t n = 16384, refs = 16384;
    unsigned long long steps = steps_to_parse(n, refs);
    if (steps > 40ull * (n + refs))
        fail_msg("%llu list entries compared for %u addresses and %u references", steps, n, refs);
    /* four times the input, about four times the work */
    unsigned long long small = steps_to_parse(n / 4, refs / 4);
    if (steps > 6 * small)
        fail_msg("%llu steps for 4x the input of %llu", steps, small);
}

/* Lookups keep the first entry of a duplicate id, as validation relies on
 * ("found N again" names the later one). */
static void test_duplicate_ids_still_refused(void **state)
{
    (void)state;
    struct lw *w = lw_create();
    static const uint8_t desc[40] = {1};
    lw_blob(w, "desc", LD_IF_DLA1, 1, (struct ld_version){0, 12, 0}, desc, sizeof desc);
    lw_memory(w, LD_DOMAIN_SYSTEM, 3, 4096, 0, "desc", 0, 0);
    for (int i = 0; i < 5; i++)
        lw_address(w, 0, 0, 1);
    uint16_t ids[] = {0}, task = 0;
    lw_task(w, LD_IF_DLA1, ids, 1, NULL, 0, NULL, 0);
    lw_submit(w, &task, 1);
    struct bytes b = {NULL, 0};
    assert_true(lw_finish(w, (struct ld_version){0, 7, 0}, &b.p, &b.len));
    lw_destroy(w);
    /* the writer numbers addresses 0..4; make the fourth say 1 */
    char err[512];
    struct loadable *l = loadable_parse(b.p, b.len, "dup.nvdla", err, sizeof err);
    assert_non_null(l);
    size_t at = l->addresses[3].at;
    loadable_free(l);
    int32_t soff = (int32_t)le_get32(b.p + at);
    size_t vt = at - (size_t)soff;
    uint16_t id_off = le_get16(b.p + vt + 4);
    assert_true(id_off != 0);
    le_put16(b.p + at + id_off, 1);
    l = loadable_parse(b.p, b.len, "dup.nvdla", err, sizeof err);
    assert_null(l);
    if (!strstr(err, "address_list[3]: expected a unique id, found 1 again"))
        fail_msg("unexpected message: %s", err);
    free(b.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_table_refused_before_copying),
        cmocka_unit_test(test_id_lookups_are_not_quadratic),
        cmocka_unit_test(test_duplicate_ids_still_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
