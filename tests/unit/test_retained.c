/*
 * test_retained.c - a snapshot's retained-size computation
 * (decoders/heap/retained.c) with its phases on two threads
 * (HEAPFS_RETAINED_THREADS=2: the BFS beside the transpose, the shallow
 * sizes beside the dominator pass): the same views as on one thread, and
 * a mount going away (core/cancel.h) at any point of either thread stops
 * both, with nothing kept (ASan: no leak) and no thread left waiting.
 *
 * Run from the project root (the corpus is tests/corpus).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include <glib.h>

#include "tests/unit/helpers.h"

#include "decoders/core/cancel.h"
#include "decoders/heap/heap.h"

static const char *const views[] = {"dominators", "histogram-retained", "suspects",
                                    "unreachable", "tables/retained.tsv"};

/* Every view above of the corpus dump, on `threads` threads. */
static char *all_views(const char *threads)
{
    g_setenv("HEAPFS_RETAINED_THREADS", threads, TRUE);
    hf_open_opts o = {.index = "none"};
    char *path = th_corpus("hprof", "mat_oracle_jdk8_05_x64.hprof");
    hf_dump *d = hf_open(path, &o, NULL);
    assert_non_null(d);
    GString *all = g_string_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(views); i++) {
        char *v = th_snap_file(d, 0, views[i]);
        g_string_append(all, v);
        g_free(v);
    }
    hf_dump_close(d);
    g_free(path);
    g_unsetenv("HEAPFS_RETAINED_THREADS");
    return g_string_free(all, FALSE);
}

static void test_same_on_two_threads(void **state)
{
    char *one = all_views("1"), *two = all_views("2");
    assert_true(strlen(one) > 1000);
    assert_string_equal(one, two);
    g_free(one);
    g_free(two);
}

/* The question is answered "give up" from its k-th asking on, whichever
 * thread asks. */
static gint asked, cancel_at;

static bool cancel_from_kth(void *ud)
{
    return g_atomic_int_add(&asked, 1) + 1 >= cancel_at;
}

static void test_cancelled_on_two_threads(void **state)
{
    char *whole = all_views("2");
    g_setenv("HEAPFS_RETAINED_THREADS", "2", TRUE);
    hf_open_opts o = {.index = "none"};
    char *path = th_corpus("hprof", "mat_oracle_jdk8_05_x64.hprof");
    unsigned cancelled = 0;
    for (cancel_at = 1;; cancel_at++) {
        hf_dump *d = hf_open(path, &o, NULL);
        assert_non_null(d);
        asked = 0;
        hf_cancel_when(cancel_from_kth, NULL);
        char *v = th_snap_file(d, 0, "dominators");
        hf_cancel_when(NULL, NULL);
        bool gave_up = strcmp(v, "# no retained sizes: cancelled: the mount is going away\n") == 0;
        if (!gave_up)
            assert_true(g_str_has_prefix(whole, v)); /* finished: the whole answer */
        cancelled += gave_up;
        g_free(v);
        hf_dump_close(d);
        if (!gave_up)
            break;
    }
    print_message("given up at each of %u askings\n", cancelled);
    assert_true(cancelled >= 10); /* the reading, both threads' phases, the tree */
    g_unsetenv("HEAPFS_RETAINED_THREADS");
    g_free(path);
    g_free(whole);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_on_two_threads),
        cmocka_unit_test(test_cancelled_on_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
