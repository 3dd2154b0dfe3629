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
#include <glib/gstdio.h>

#include "tests/unit/helpers.h"

#include "decoders/core/cancel.h"
#include "decoders/core/workmem.h"
#include "decoders/heap/heap.h"
#include "decoders/heap/retained.h"

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

/* With arrays in files, the arrays a mount keeps are files too, even
 * those filled once the dominators gave their RAM back: the shallow sizes
 * (the retained sizes) and the children.  The budget holds the link-eval
 * forest and a little more. */
static void test_kept_in_files(void **state)
{
    char *path = th_corpus("hprof", "mat_oracle_jdk8_05_x64.hprof");
    hf_dump *d = hf_open(path, &(hf_open_opts){.index = "none"}, NULL);
    assert_non_null(d);
    uint64_t n = hf_heap_snap((hf_heap *)d, 0)->n_objects;
    hf_dump_close(d);
    for (uint64_t k = 1; k <= 6; k++) {
        hf_open_opts o = {.index = "none", .work = {HF_WORK_LIMIT, k * 4 * (n + 1)}};
        d = hf_open(path, &o, NULL);
        const hf_hgraph *g = hf_heap_graph((hf_heap *)d, 0);
        assert_null(g->error);
        assert_true(hf_work_is_file(g->retained));
        assert_true(hf_work_is_file(g->kids));
        assert_true(hf_work_is_file(g->idom));
        hf_dump_close(d);
    }
    g_free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_on_two_threads),
        cmocka_unit_test(test_cancelled_on_two_threads),
        cmocka_unit_test(test_kept_in_files),
    };
    /* the working files' directory (nameless files): a cache of our own */
    char *cache = g_dir_make_tmp("test_retained.XXXXXX", NULL);
    g_setenv("XDG_CACHE_HOME", cache, TRUE);
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char *work = g_build_filename(cache, "heapfs", NULL);
    g_rmdir(work); /* empty: the files never had names */
    g_free(work);
    if (g_rmdir(cache) != 0)
        failed++;
    g_free(cache);
    return failed;
}
