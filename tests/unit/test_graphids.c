/* Unit tests for decoders/heap/graphids.c: ids to node numbers, in the
 * dense form (a bitmap of the aligned range) and the sparse one (buckets
 * of sorted ids), each checked against a binary search of the ids. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glib.h>

#include "decoders/heap/graphids.h"

/* The node of id by a plain binary search: the first equal id. */
static uint32_t expected(const uint64_t *ids, uint32_t n, uint64_t id)
{
    size_t i = hf_lower_bound_u64(ids, n, id);
    return i < n && ids[i] == id ? (uint32_t)i : HF_NONE;
}

/* A resolver of ids[0..n), checked at every id, its neighbours, and ids
 * beyond both ends; whether it took the dense form. */
static bool check(const uint64_t *ids, uint32_t n)
{
    hf_resolver r = {0};
    assert_true(hf_resolver_alloc(&r, n));
    if (n)
        memcpy(r.ids, ids, sizeof *ids * n);
    assert_true(hf_resolver_index(&r));
    bool dense = r.blocks != NULL;
    for (uint32_t i = 0; i < n; i++)
        for (int64_t d = -9; d <= 9; d++) {
            uint64_t id = ids[i] + (uint64_t)d;
            hf_resolve_prefetch(&r, id);
            assert_int_equal(hf_resolve(&r, id), expected(ids, n, id));
        }
    uint64_t far[] = {0, 1, UINT64_MAX, UINT64_MAX - 7, n ? ids[n - 1] + 4096 : 5};
    for (size_t k = 0; k < G_N_ELEMENTS(far); k++)
        assert_int_equal(hf_resolve(&r, far[k]), expected(ids, n, far[k]));
    hf_resolver_free(&r);
    return dense;
}

/* Addresses as a JVM's: 8-aligned, gaps of 16 to 120 bytes, from base. */
static uint64_t *heap_ids(uint32_t n, uint64_t base, uint32_t seed)
{
    uint64_t *ids = g_new(uint64_t, n ? n : 1);
    GRand *rnd = g_rand_new_with_seed(seed);
    for (uint32_t i = 0; i < n; i++)
        ids[i] = base += 8 * (uint64_t)g_rand_int_range(rnd, 2, 16);
    g_rand_free(rnd);
    return ids;
}

static void test_dense(void **state)
{
    /* blocks of 448 slots: many blocks, and ids on their edges */
    uint64_t *ids = heap_ids(20000, 0x7f0000000ull, 1);
    assert_true(check(ids, 20000));
    g_free(ids);
    /* slots 0..1000 but every fifth: the blocks' first and last slots */
    uint64_t edges[1001];
    uint32_t ne = 0;
    for (uint64_t id = 0; id <= 1000; id++)
        if (id % 5 != 1)
            edges[ne++] = id;
    assert_true(check(edges, ne));
    /* 4-aligned (32-bit ids), and unaligned consecutive ids */
    uint64_t *ids4 = g_new(uint64_t, 3000);
    for (uint32_t i = 0; i < 3000; i++)
        ids4[i] = 0x1000 + 4 * (uint64_t)i + 4 * (i / 7);
    assert_true(check(ids4, 3000));
    for (uint32_t i = 0; i < 3000; i++)
        ids4[i] = 12345 + i;
    assert_true(check(ids4, 3000));
    g_free(ids4);
    uint64_t one = 0x42;
    assert_true(check(&one, 1));
}

static void test_sparse(void **state)
{
    /* gaps of 1 MiB: the bitmap would be far larger than the ids */
    uint64_t *ids = heap_ids(5000, 1ull << 40, 2);
    for (uint32_t i = 0; i < 5000; i++)
        ids[i] = (1ull << 40) + ((uint64_t)i << 20) + (ids[i] & 0xff8);
    assert_false(check(ids, 5000));
    /* duplicates (each id's node is its first copy) and ids out of
     * order (a dump changed underneath) never take the dense form */
    uint64_t dup[] = {8, 16, 16, 24, 32, 32, 32, 40};
    assert_false(check(dup, G_N_ELEMENTS(dup)));
    uint64_t mixed[] = {8, 16, 24, 12, 40, 48};
    hf_resolver r = {0};
    assert_true(hf_resolver_alloc(&r, G_N_ELEMENTS(mixed)));
    memcpy(r.ids, mixed, sizeof mixed);
    assert_true(hf_resolver_index(&r));
    assert_null(r.blocks);
    for (uint64_t id = 0; id < 64; id++)
        assert_true(hf_resolve(&r, id) == HF_NONE || hf_resolve(&r, id) < G_N_ELEMENTS(mixed));
    hf_resolver_free(&r);
    assert_false(check(NULL, 0));
    /* the whole 64-bit range, unaligned: its slot count would wrap around */
    uint64_t wide[] = {0, 1, UINT64_MAX};
    assert_false(check(wide, G_N_ELEMENTS(wide)));
    g_free(ids);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dense),
        cmocka_unit_test(test_sparse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
