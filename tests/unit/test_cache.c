/*
 * test_cache.c - unit tests of the view cache (cache/cache.h): lookups and
 * counters, LRU order, the byte bound, oversize values, replacement, the
 * lifetime of a reference a reader holds, and a multi-threaded stress run.
 *
 * The per-entry overhead is not in the header, so the tests measure it from
 * the stats of a one-entry cache and size their bounds in whole entries.
 * Worker threads never call cmocka (it is not thread-safe): they count
 * problems, and the main thread asserts on the counts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cache/cache.h"

/* A value of `size` bytes whose content says which key and size it is for. */
static GBytes *make_value(uint64_t key, size_t size)
{
    guint8 *p = g_malloc(size ? size : 1);
    for (size_t i = 0; i < size; i++)
        p[i] = (guint8)(key * 31 + i);
    return g_bytes_new_take(p, size);
}

static int value_ok(GBytes *v, uint64_t key, size_t size)
{
    size_t n;
    const guint8 *p = g_bytes_get_data(v, &n);
    if (n != size)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] != (guint8)(key * 31 + i))
            return 0;
    return 1;
}

static void put_new(hf_cache *c, uint64_t key, size_t size)
{
    GBytes *v = make_value(key, size);
    hf_cache_put(c, key, v);
    g_bytes_unref(v);
}

static hf_cache_stats stats(hf_cache *c)
{
    hf_cache_stats s;
    hf_cache_stats_get(c, &s);
    return s;
}

/* The bytes a cache charges for an entry beyond its value. */
static uint64_t overhead(void)
{
    hf_cache *c = hf_cache_new(1 << 20);
    put_new(c, 1, 100);
    uint64_t o = stats(c).bytes - 100;
    hf_cache_free(c);
    return o;
}

/* Is key present?  Looks without changing what the test asserts on later. */
static int present(hf_cache *c, uint64_t key)
{
    GBytes *v = hf_cache_get(c, key);
    if (!v)
        return 0;
    g_bytes_unref(v);
    return 1;
}

static void test_overhead_is_counted(void **state)
{
    uint64_t o = overhead();
    assert_true(o > 0);
    assert_true(o < 4096);
    /* Same charge for every entry, whatever its size. */
    hf_cache *c = hf_cache_new(1 << 20);
    put_new(c, 1, 0);
    put_new(c, 2, 1000);
    assert_int_equal(stats(c).bytes, 2 * o + 1000);
    hf_cache_free(c);
}

static void test_put_get(void **state)
{
    hf_cache *c = hf_cache_new(1 << 20);
    GBytes *v = make_value(7, 300);
    hf_cache_put(c, 7, v);

    GBytes *got = hf_cache_get(c, 7);
    assert_non_null(got);
    assert_true(value_ok(got, 7, 300));
    assert_ptr_equal(got, v); /* a reference, not a copy */
    g_bytes_unref(got);
    g_bytes_unref(v);

    /* The cache kept its own reference after the caller dropped its own. */
    got = hf_cache_get(c, 7);
    assert_non_null(got);
    assert_true(value_ok(got, 7, 300));
    g_bytes_unref(got);

    hf_cache_stats s = stats(c);
    assert_int_equal(s.hits, 2);
    assert_int_equal(s.misses, 0);
    assert_int_equal(s.insertions, 1);
    assert_int_equal(s.entries, 1);
    assert_int_equal(s.evictions, 0);
    assert_int_equal(s.max_bytes, 1 << 20);
    hf_cache_free(c);
}

static void test_miss_counting(void **state)
{
    hf_cache *c = hf_cache_new(1 << 20);
    assert_null(hf_cache_get(c, 1));
    assert_null(hf_cache_get(c, 2));
    put_new(c, 1, 10);
    assert_true(present(c, 1));
    assert_null(hf_cache_get(c, 2));
    hf_cache_stats s = stats(c);
    assert_int_equal(s.misses, 3);
    assert_int_equal(s.hits, 1);
    /* Keys are full 64-bit numbers: no truncation to 32 bits. */
    put_new(c, UINT64_C(0x100000001), 10);
    assert_true(present(c, UINT64_C(0x100000001)));
    assert_true(present(c, 1));
    assert_int_equal(stats(c).entries, 2);
    hf_cache_free(c);
}

static void test_lru_order(void **state)
{
    const size_t size = 100;
    uint64_t cost = overhead() + size;
    hf_cache *c = hf_cache_new(3 * cost); /* room for exactly three */
    put_new(c, 1, size);
    put_new(c, 2, size);
    put_new(c, 3, size);
    assert_int_equal(stats(c).entries, 3);
    assert_int_equal(stats(c).evictions, 0);

    /* Touching 1 makes 2 the least recently used. */
    assert_true(present(c, 1));
    put_new(c, 4, size);
    assert_int_equal(stats(c).evictions, 1);
    assert_false(present(c, 2));
    /* Order now, coldest first: 3, 1, 4 (the lookup of 2 missed). */
    put_new(c, 5, size);
    assert_false(present(c, 3));
    assert_true(present(c, 1));
    assert_true(present(c, 4));
    assert_true(present(c, 5));
    /* A put of an existing key also counts as a use. */
    put_new(c, 1, size); /* order: 4, 5, 1 */
    put_new(c, 6, size);
    assert_false(present(c, 4));
    assert_true(present(c, 1));
    assert_int_equal(stats(c).entries, 3);
    hf_cache_free(c);
}

static void test_bound_random(void **state)
{
    const uint64_t max = 20000;
    const int nkeys = 200;
    hf_cache *c = hf_cache_new(max);
    GRand *r = g_rand_new_with_seed(42);
    size_t sizes[200] = { 0 };
    for (int i = 0; i < 5000; i++) {
        uint64_t key = (uint64_t)g_rand_int_range(r, 0, nkeys);
        size_t size = (size_t)g_rand_int_range(r, 0, 3000);
        put_new(c, key, size);
        sizes[key] = size;
        hf_cache_stats s = stats(c);
        assert_true(s.bytes <= max);
        if (i % 97 == 0) { /* reads interleaved, not only puts */
            GBytes *v = hf_cache_get(c, key);
            assert_non_null(v);
            assert_true(value_ok(v, key, size));
            g_bytes_unref(v);
        }
    }
    /* Entries and bytes agree with what is really there. */
    uint64_t o = overhead(), n = 0, bytes = 0;
    for (int k = 0; k < nkeys; k++) {
        GBytes *v = hf_cache_get(c, (uint64_t)k);
        if (!v)
            continue;
        assert_true(value_ok(v, (uint64_t)k, sizes[k]));
        n++;
        bytes += sizes[k] + o;
        g_bytes_unref(v);
    }
    hf_cache_stats s = stats(c);
    assert_int_equal(s.entries, n);
    assert_int_equal(s.bytes, bytes);
    assert_true(s.bytes <= max);
    assert_true(s.evictions > 0);
    assert_true(n > 0);
    g_rand_free(r);
    hf_cache_free(c);
}

static void test_oversize_refused(void **state)
{
    uint64_t o = overhead();
    const uint64_t max = 1000;
    hf_cache *c = hf_cache_new(max);

    put_new(c, 1, 2000);
    assert_null(hf_cache_get(c, 1));
    hf_cache_stats s = stats(c);
    assert_int_equal(s.entries, 0);
    assert_int_equal(s.bytes, 0);
    assert_int_equal(s.insertions, 0);

    /* The largest value that fits, with its overhead, exactly fills the cache. */
    put_new(c, 2, max - o);
    assert_true(present(c, 2));
    assert_int_equal(stats(c).bytes, max);
    /* One byte more does not fit, and drops the older value under its key. */
    put_new(c, 2, max - o + 1);
    assert_null(hf_cache_get(c, 2));
    s = stats(c);
    assert_int_equal(s.entries, 0);
    assert_int_equal(s.bytes, 0);
    assert_int_equal(s.insertions, 1);
    hf_cache_free(c);
}

static void test_oversize_keeps_others(void **state)
{
    uint64_t o = overhead();
    hf_cache *c = hf_cache_new(2 * (o + 50));
    put_new(c, 1, 50);
    put_new(c, 2, 50);
    put_new(c, 3, 1 << 20); /* refused before any eviction */
    assert_true(present(c, 1));
    assert_true(present(c, 2));
    assert_int_equal(stats(c).evictions, 0);
    hf_cache_free(c);
}

static void test_replacement(void **state)
{
    uint64_t o = overhead();
    hf_cache *c = hf_cache_new(1 << 20);
    put_new(c, 5, 100);
    put_new(c, 6, 10);
    put_new(c, 5, 300);
    hf_cache_stats s = stats(c);
    assert_int_equal(s.entries, 2);
    assert_int_equal(s.bytes, 300 + 10 + 2 * o);
    assert_int_equal(s.insertions, 3);
    assert_int_equal(s.evictions, 0);
    GBytes *v = hf_cache_get(c, 5);
    assert_non_null(v);
    assert_true(value_ok(v, 5, 300));

    /* Putting back the very GBytes already stored must not free it. */
    hf_cache_put(c, 5, v);
    g_bytes_unref(v);
    v = hf_cache_get(c, 5);
    assert_non_null(v);
    assert_true(value_ok(v, 5, 300));
    g_bytes_unref(v);

    /* Shrinking gives bytes back. */
    put_new(c, 5, 1);
    assert_int_equal(stats(c).bytes, 1 + 10 + 2 * o);
    hf_cache_free(c);
}

static void test_replacement_evicts_others(void **state)
{
    uint64_t o = overhead();
    hf_cache *c = hf_cache_new(3 * (o + 100));
    put_new(c, 1, 100);
    put_new(c, 2, 100);
    put_new(c, 3, 100);
    /* Key 3 grows to need two slots; its old cost is freed first, so only 1 goes. */
    put_new(c, 3, 200 + o);
    hf_cache_stats s = stats(c);
    assert_int_equal(s.evictions, 1);
    assert_int_equal(s.entries, 2);
    assert_false(present(c, 1));
    assert_true(present(c, 2));
    assert_true(present(c, 3));
    hf_cache_free(c);
}

static void test_eviction_counts(void **state)
{
    const size_t size = 64;
    uint64_t cost = overhead() + size;
    hf_cache *c = hf_cache_new(4 * cost + cost / 2);
    for (uint64_t k = 0; k < 10; k++)
        put_new(c, k, size);
    hf_cache_stats s = stats(c);
    assert_int_equal(s.insertions, 10);
    assert_int_equal(s.evictions, 6);
    assert_int_equal(s.entries, 4);
    assert_int_equal(s.bytes, 4 * cost);
    for (uint64_t k = 0; k < 6; k++)
        assert_false(present(c, k));
    for (uint64_t k = 6; k < 10; k++)
        assert_true(present(c, k));

    /* A big value pushes out as many as it needs, coldest first. */
    put_new(c, 100, 2 * cost);
    s = stats(c);
    assert_int_equal(s.evictions, 9);
    assert_int_equal(s.entries, 2);
    assert_true(present(c, 9));
    assert_true(present(c, 100));
    hf_cache_free(c);
}

static void test_reader_ref_survives_eviction(void **state)
{
    const size_t size = 4096;
    uint64_t cost = overhead() + size;
    hf_cache *c = hf_cache_new(cost); /* one entry at a time */
    put_new(c, 1, size);
    GBytes *held = hf_cache_get(c, 1);
    assert_non_null(held);

    put_new(c, 2, size); /* evicts 1 */
    assert_null(hf_cache_get(c, 1));
    assert_int_equal(stats(c).evictions, 1);
    /* Still ours and intact (ASan would catch a use after free here). */
    assert_true(value_ok(held, 1, size));

    /* Also across replacement of the same key, and across free. */
    GBytes *held2 = hf_cache_get(c, 2);
    put_new(c, 2, 10);
    hf_cache_free(c);
    assert_true(value_ok(held2, 2, size));
    assert_true(value_ok(held, 1, size));
    g_bytes_unref(held2);
    g_bytes_unref(held);
}

static void test_zero_bound(void **state)
{
    hf_cache *c = hf_cache_new(0);
    put_new(c, 1, 0);
    put_new(c, 2, 10);
    assert_null(hf_cache_get(c, 1));
    assert_null(hf_cache_get(c, 2));
    hf_cache_stats s = stats(c);
    assert_int_equal(s.entries, 0);
    assert_int_equal(s.bytes, 0);
    assert_int_equal(s.insertions, 0);
    assert_int_equal(s.misses, 2);
    assert_int_equal(s.max_bytes, 0);
    hf_cache_free(c);
}

static void test_free_null_and_empty(void **state)
{
    hf_cache_free(NULL);
    hf_cache_free(hf_cache_new(100));
}

static void test_stats_render(void **state)
{
    uint64_t o = overhead();
    hf_cache *c = hf_cache_new(1000);
    GString *out = g_string_new("existing\n");

    hf_cache_stats_render(c, out);
    assert_non_null(strstr(out->str, "hit ratio: 0.00\n"));

    put_new(c, 1, 10);
    assert_true(present(c, 1));
    assert_null(hf_cache_get(c, 2));
    assert_null(hf_cache_get(c, 3));
    g_string_assign(out, "existing\n");
    hf_cache_stats_render(c, out);

    char *want = g_strdup_printf("existing\n"
                                 "hits: 1\n"
                                 "misses: 2\n"
                                 "evictions: 0\n"
                                 "insertions: 1\n"
                                 "entries: 1\n"
                                 "bytes: %" G_GUINT64_FORMAT "\n"
                                 "max bytes: 1000\n"
                                 "hit ratio: 0.33\n",
                                 (guint64)(10 + o));
    assert_string_equal(out->str, want);
    g_free(want);

    assert_true(present(c, 1)); /* 2 of 4 */
    g_string_truncate(out, 0);
    hf_cache_stats_render(c, out);
    assert_non_null(strstr(out->str, "hit ratio: 0.50\n"));
    for (int i = 0; i < 98; i++)
        assert_true(present(c, 1));
    g_string_truncate(out, 0);
    hf_cache_stats_render(c, out);
    assert_non_null(strstr(out->str, "hits: 100\nmisses: 2\n"));
    assert_non_null(strstr(out->str, "hit ratio: 0.98\n"));
    hf_cache_free(c);

    /* Rounded to the nearest hundredth, not truncated: 2 of 3 is 0.67. */
    c = hf_cache_new(1000);
    put_new(c, 1, 10);
    assert_true(present(c, 1));
    assert_true(present(c, 1));
    assert_null(hf_cache_get(c, 2));
    g_string_truncate(out, 0);
    hf_cache_stats_render(c, out);
    assert_non_null(strstr(out->str, "hit ratio: 0.67\n"));
    g_string_free(out, TRUE);
    hf_cache_free(c);
}

/* ---- multi-threaded stress ---- */

enum { STRESS_THREADS = 8, STRESS_ITERS = 40000, STRESS_KEYS = 97 };

typedef struct {
    hf_cache *c;
    guint32 seed;
    uint64_t gets, puts;
    int bad;      /* values that came back wrong */
    int overflow; /* times stats showed bytes over the bound */
} worker;

/* A key's value size is a function of the key and a version, so a reader can
 * check it got a whole, matching value without knowing which version. */
static size_t stress_size(uint64_t key, guint version)
{
    return (size_t)((key * 131 + version * 17) % 700);
}

static gpointer stress_worker(gpointer p)
{
    worker *w = p;
    GRand *r = g_rand_new_with_seed(w->seed);
    for (int i = 0; i < STRESS_ITERS; i++) {
        uint64_t key = (uint64_t)g_rand_int_range(r, 0, STRESS_KEYS);
        guint op = (guint)g_rand_int_range(r, 0, 100);
        if (op < 60) {
            GBytes *v = hf_cache_get(w->c, key);
            w->gets++;
            if (v) {
                size_t n = g_bytes_get_size(v);
                if (!value_ok(v, key, n))
                    w->bad++;
                g_bytes_unref(v);
            }
        } else if (op < 99) {
            put_new(w->c, key, stress_size(key, (guint)g_rand_int_range(r, 0, 8)));
            w->puts++;
        } else {
            hf_cache_stats s;
            hf_cache_stats_get(w->c, &s);
            if (s.bytes > s.max_bytes)
                w->overflow++;
            GString *g = g_string_new(NULL);
            hf_cache_stats_render(w->c, g);
            g_string_free(g, TRUE);
        }
    }
    g_rand_free(r);
    return NULL;
}

static void test_threads_stress(void **state)
{
    const uint64_t max = 16 * 1024;
    hf_cache *c = hf_cache_new(max);
    worker w[STRESS_THREADS];
    GThread *t[STRESS_THREADS];
    for (int i = 0; i < STRESS_THREADS; i++) {
        w[i] = (worker){ .c = c, .seed = (guint32)(1000 + i) };
        t[i] = g_thread_new("stress", stress_worker, &w[i]);
    }
    uint64_t gets = 0, puts = 0;
    for (int i = 0; i < STRESS_THREADS; i++) {
        g_thread_join(t[i]);
        assert_int_equal(w[i].bad, 0);
        assert_int_equal(w[i].overflow, 0);
        gets += w[i].gets;
        puts += w[i].puts;
    }

    hf_cache_stats s = stats(c);
    assert_true(s.bytes <= max);
    assert_int_equal(s.hits + s.misses, gets);
    assert_int_equal(s.insertions, puts); /* every value fits */
    assert_true(s.evictions > 0);
    assert_true(s.evictions <= s.insertions - s.entries);

    /* entries and bytes match a walk over every key. */
    uint64_t o = overhead(), n = 0, bytes = 0;
    for (uint64_t k = 0; k < STRESS_KEYS; k++) {
        GBytes *v = hf_cache_get(c, k);
        if (!v)
            continue;
        size_t size = g_bytes_get_size(v);
        assert_true(value_ok(v, k, size));
        n++;
        bytes += size + o;
        g_bytes_unref(v);
    }
    assert_int_equal(s.entries, n);
    assert_int_equal(s.bytes, bytes);
    hf_cache_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overhead_is_counted),
        cmocka_unit_test(test_put_get),
        cmocka_unit_test(test_miss_counting),
        cmocka_unit_test(test_lru_order),
        cmocka_unit_test(test_bound_random),
        cmocka_unit_test(test_oversize_refused),
        cmocka_unit_test(test_oversize_keeps_others),
        cmocka_unit_test(test_replacement),
        cmocka_unit_test(test_replacement_evicts_others),
        cmocka_unit_test(test_eviction_counts),
        cmocka_unit_test(test_reader_ref_survives_eviction),
        cmocka_unit_test(test_zero_bound),
        cmocka_unit_test(test_free_null_and_empty),
        cmocka_unit_test(test_stats_render),
        cmocka_unit_test(test_threads_stress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
