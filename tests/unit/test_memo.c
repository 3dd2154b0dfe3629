/*
 * test_memo.c - unit tests of the per-key memo (decoders/oemp/memo.h): one
 * make per key, references, LRU order of eviction, the byte bound, values in use
 * never freed, and threads asking for the same keys at once with counters
 * that prove one make per key.
 *
 * Values are small structs that say which key they were made for; every
 * make and every free is counted (atomically: workers make values too), and
 * single-threaded tests also record the order of frees.  Worker threads
 * never call cmocka (it is not thread-safe): they count problems, and the
 * main thread asserts on the counts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "decoders/oemp/memo.h"

#define ALIVE 0x600dcafeu
#define KEYS_MAX 64

typedef struct {
    guint64 key;
    guint magic; /* ALIVE until freed */
    gsize bytes; /* what size_of reports */
} value;

static gint makes[KEYS_MAX]; /* per key */
static gint made, freed;     /* in all */
static GArray *free_order;   /* keys, in the order freed (main thread only) */
static gsize next_bytes;     /* bytes of the next value made */
static gulong make_sleep_us; /* how long a make takes */

static void reset(void)
{
    memset(makes, 0, sizeof makes);
    made = freed = 0;
    next_bytes = 0;
    make_sleep_us = 0;
    if (free_order)
        g_array_set_size(free_order, 0);
    else
        free_order = g_array_new(FALSE, FALSE, sizeof(guint64));
}

static gpointer make_value(guint64 key, gpointer ud)
{
    if (make_sleep_us)
        g_usleep(make_sleep_us);
    value *v = g_new(value, 1);
    v->key = key;
    v->magic = ALIVE;
    v->bytes = next_bytes;
    g_atomic_int_inc(&makes[key % KEYS_MAX]);
    g_atomic_int_inc(&made);
    if (ud)
        g_atomic_int_inc((gint *)ud);
    return v;
}

static void free_value(gpointer p)
{
    value *v = p;
    v->magic = 0;
    g_atomic_int_inc(&freed);
    g_free(v);
}

static void free_value_recorded(gpointer p)
{
    g_array_append_val(free_order, ((value *)p)->key);
    free_value(p);
}

static gsize size_of(gconstpointer p)
{
    return ((const value *)p)->bytes;
}

static value *get(oemp_memo *m, guint64 key)
{
    value *v = oemp_memo_get(m, key, make_value, NULL);
    assert_non_null(v);
    assert_int_equal(v->key, key);
    assert_int_equal(v->magic, ALIVE);
    return v;
}

/* get and unref at once: the key becomes the most recently used. */
static void use(oemp_memo *m, guint64 key)
{
    oemp_memo_unref(m, get(m, key));
}

static void assert_freed(const guint64 *keys, guint n)
{
    assert_int_equal(free_order->len, n);
    for (guint i = 0; i < n; i++)
        assert_int_equal(g_array_index(free_order, guint64, i), keys[i]);
}

/* ---- single-threaded ------------------------------------------------------- */

static void test_make_once(void **state)
{
    reset();
    oemp_memo *m = oemp_memo_new(8, free_value);
    gint calls = 0;
    value *a = oemp_memo_get(m, 7, make_value, &calls);
    value *b = oemp_memo_get(m, 7, make_value, &calls);
    assert_ptr_equal(a, b);
    assert_int_equal(calls, 1);
    oemp_memo_unref(m, a);
    oemp_memo_unref(m, b);
    /* released, still kept: no second make */
    value *c = oemp_memo_get(m, 7, make_value, &calls);
    assert_ptr_equal(c, a);
    assert_int_equal(calls, 1);
    oemp_memo_unref(m, c);
    /* another key, another value */
    value *d = oemp_memo_get(m, 8, make_value, &calls);
    assert_ptr_not_equal(d, a);
    assert_int_equal(d->key, 8);
    assert_int_equal(calls, 2);
    oemp_memo_unref(m, d);
    oemp_memo_unref(m, NULL); /* harmless */
    assert_int_equal(freed, 0);
    oemp_memo_free(m);
    assert_int_equal(freed, 2);
    oemp_memo_free(NULL);
}

/* A value is freed only once every reference is given back. */
static void test_refcounts(void **state)
{
    reset();
    oemp_memo *m = oemp_memo_new_bytes(0, 0, NULL, free_value_recorded);
    value *a1 = get(m, 1), *a2 = get(m, 1);
    oemp_memo_unref(m, a1);
    use(m, 2); /* over the bound (0), but 1 is held and 2 the latest */
    assert_int_equal(freed, 0);
    assert_int_equal(a2->magic, ALIVE);
    oemp_memo_unref(m, a2); /* 1 is now the latest: 2 goes */
    assert_freed((guint64[]){2}, 1);
    use(m, 1); /* still there */
    assert_int_equal(makes[1], 1);
    use(m, 3);
    assert_freed((guint64[]){2, 1}, 2);
    oemp_memo_free(m);
    assert_freed((guint64[]){2, 1, 3}, 3);
    assert_int_equal(made, freed);
}

/* Least recently released first out; a hit makes a key recent again. */
static void test_eviction_order(void **state)
{
    reset();
    oemp_memo *m = oemp_memo_new(2, free_value_recorded);
    use(m, 1);
    use(m, 2);
    assert_int_equal(freed, 0);
    use(m, 3); /* three entries: 1 goes */
    assert_freed((guint64[]){1}, 1);
    use(m, 2); /* a hit: now 3 is the oldest */
    use(m, 4);
    assert_freed((guint64[]){1, 3}, 2);
    use(m, 2);
    use(m, 4);
    assert_int_equal(makes[2], 1);
    assert_int_equal(makes[4], 1);
    use(m, 1); /* made again */
    assert_int_equal(makes[1], 2);
    assert_freed((guint64[]){1, 3, 2}, 3);
    oemp_memo_free(m);
    assert_int_equal(made, freed);
}

/* However many other keys come and go, a held value stays valid and is the
 * value its key gives until it is released. */
static void test_in_use_never_freed(void **state)
{
    reset();
    oemp_memo *m = oemp_memo_new(1, free_value_recorded);
    value *held = get(m, 0);
    for (guint64 k = 1; k < 50; k++)
        use(m, k);
    assert_int_equal(held->magic, ALIVE);
    for (guint i = 0; i < free_order->len; i++)
        assert_int_not_equal(g_array_index(free_order, guint64, i), 0);
    value *again = get(m, 0);
    assert_ptr_equal(again, held);
    assert_int_equal(makes[0], 1);
    oemp_memo_unref(m, again);
    oemp_memo_unref(m, held); /* the latest now: key 49 goes */
    assert_int_equal(g_array_index(free_order, guint64, free_order->len - 1), 49);
    use(m, 50);
    assert_int_equal(g_array_index(free_order, guint64, free_order->len - 1), 0);
    oemp_memo_free(m);
    assert_int_equal(made, freed);
}

/* With a byte bound, values go oldest first while their bytes exceed it;
 * the latest stays, even alone above the bound. */
static void test_byte_bound(void **state)
{
    reset();
    oemp_memo *m = oemp_memo_new_bytes(16, 100, size_of, free_value_recorded);
    next_bytes = 40;
    use(m, 1);
    use(m, 2);
    assert_int_equal(freed, 0);
    use(m, 3); /* 120 bytes: 1 goes */
    assert_freed((guint64[]){1}, 1);
    next_bytes = 500;
    use(m, 4); /* bigger than the bound: everything else goes, 4 stays */
    assert_freed((guint64[]){1, 2, 3}, 3);
    use(m, 4);
    assert_int_equal(makes[4], 1);
    next_bytes = 10;
    use(m, 5);
    assert_freed((guint64[]){1, 2, 3, 4}, 4);
    oemp_memo_free(m);
    assert_int_equal(made, freed);
}

/* ---- threads ----------------------------------------------------------------- */

typedef struct {
    oemp_memo *m;
    guint keys;      /* keys 0 .. keys-1 */
    guint rounds;
    guint seed;
    gint *go;        /* threads spin until it is set, to start together */
    gint bad;        /* values of the wrong key or already freed */
} worker_arg;

static gpointer worker(gpointer p)
{
    worker_arg *a = p;
    while (!g_atomic_int_get(a->go))
        g_thread_yield();
    guint32 x = a->seed * 2654435761u + 1;
    for (guint i = 0; i < a->rounds; i++) {
        /* the first round asks for key 0 in every thread at once */
        guint64 key = i == 0 ? 0 : (x = x * 1103515245u + 12345u) >> 16 & 0xffff;
        key %= a->keys;
        value *v = oemp_memo_get(a->m, key, make_value, NULL);
        if (v->key != key || v->magic != ALIVE)
            a->bad++;
        g_thread_yield();
        if (v->key != key || v->magic != ALIVE)
            a->bad++;
        oemp_memo_unref(a->m, v);
    }
    return NULL;
}

static void run_threads(oemp_memo *m, guint nthreads, guint keys, guint rounds)
{
    GThread *th[16];
    worker_arg args[16];
    gint go = 0;
    g_assert(nthreads <= 16);
    for (guint i = 0; i < nthreads; i++) {
        args[i] = (worker_arg){.m = m, .keys = keys, .rounds = rounds, .seed = i, .go = &go};
        th[i] = g_thread_new("memo", worker, &args[i]);
    }
    g_atomic_int_set(&go, 1);
    for (guint i = 0; i < nthreads; i++) {
        g_thread_join(th[i]);
        assert_int_equal(args[i].bad, 0);
    }
}

/* Every key wanted by many threads at once, each make slow: one make per
 * key (the others waited for it), and every thread got that value. */
static void test_threads_make_once(void **state)
{
    reset();
    enum { KEYS = 12, THREADS = 8 };
    oemp_memo *m = oemp_memo_new(KEYS, free_value);
    make_sleep_us = 20000; /* long enough for every thread to ask meanwhile */
    run_threads(m, THREADS, KEYS, 60);
    for (guint k = 0; k < KEYS; k++)
        assert_int_equal(g_atomic_int_get(&makes[k]), 1);
    assert_int_equal(made, KEYS);
    assert_int_equal(freed, 0);
    oemp_memo_free(m);
    assert_int_equal(freed, KEYS);
}

/* More keys than the memo keeps: values come and go while other threads
 * hold them.  None is used after its free (the workers check, and the
 * sanitizer build would trap), each make is freed exactly once, and at most
 * the bound plus the threads' holdings are kept. */
static void test_threads_evicting(void **state)
{
    reset();
    enum { KEYS = 40, THREADS = 6, KEEP = 3 };
    oemp_memo *m = oemp_memo_new(KEEP, free_value);
    run_threads(m, THREADS, KEYS, 2000);
    assert_true(made >= KEYS);
    assert_true(made - freed <= KEEP); /* nothing is held now */
    oemp_memo_free(m);
    assert_int_equal(made, freed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_make_once),         cmocka_unit_test(test_refcounts),
        cmocka_unit_test(test_eviction_order),    cmocka_unit_test(test_in_use_never_freed),
        cmocka_unit_test(test_byte_bound),        cmocka_unit_test(test_threads_make_once),
        cmocka_unit_test(test_threads_evicting),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (free_order)
        g_array_free(free_order, TRUE);
    return rc;
}
