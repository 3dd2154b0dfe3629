/* Unit tests for decoders/heap/graph.c's hf_csr_build and
 * hf_csr_build_with: in one pass over the edge source with the working
 * arrays in RAM, in two that must agree with them in files, the step
 * before the edges are stored, and failures that keep no memory
 * (test_graph.c has the rest of graph.c).  Each test of `both` runs with
 * the arrays in RAM, then in files (helpers.h): hf_work_current() says
 * which. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "decoders/core/cancel.h"
#include "decoders/core/workmem.h"
#include "decoders/heap/graph.h"
#include "tests/unit/helpers.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

/* How many times the source is asked for each node: once in RAM. */
static int passes(void)
{
    return hf_work_current() ? 2 : 1;
}

/* A source for nodes 0 -> 1 -> 0, root -> 0 that, on its second call,
 * emits one edge more for node 1 (mode 1), or one fewer (mode 2); or
 * points an edge past the virtual root (mode 3).  In one pass there is no
 * second call: modes 1 and 2 build. */
static void bad_source(void *ud, uint32_t v, bool counting, hf_edge_emit emit, void *ectx)
{
    int *st = ud, mode = st[0];
    bool second = st[1 + v]++ > 0;
    int edges = v == 1 ? 1 + (second && mode == 1) - (second && mode == 2) : 1;
    for (int k = 0; k < edges; k++)
        emit(ectx, v == 0 ? (mode == 3 ? 3 : 1) : 0);
}

static void test_build_rejects(void **state)
{
    for (int mode = 0; mode <= 3; mode++) {
        int st[4] = {mode};
        hf_csr g;
        bool builds = mode == 0 || (mode < 3 && passes() == 1);
        assert_int_equal(hf_csr_build(&g, 2, bad_source, st), builds);
        assert_int_equal(g.off != NULL, builds); /* empty on failure */
        assert_int_equal(g.dst != NULL, builds);
        if (builds) {
            assert_int_equal(hf_csr_edges(&g), 3);
            assert_int_equal(st[1] + st[2] + st[3], 3 * passes());
        }
        hf_csr_free(&g);
    }
}

/* hf_csr_build_with: in two passes the first counts what it can (node 1's
 * edge, none of the root's), the step between adds the root's two edges,
 * learnt only then (as heapfs resolves the GC roots after its first
 * pass); in one pass the step comes first, with no degrees, and the
 * source emits them all.  The step may refuse. */
typedef struct {
    bool learnt, refuse;
    unsigned between_calls, source_calls;
} late_st;

static void late_source(void *ud, uint32_t v, bool counting, hf_edge_emit emit, void *ectx)
{
    late_st *st = ud;
    st->source_calls++;
    if (v == 1)
        emit(ectx, 0);
    if (v == 2 && !counting) {
        assert_true(st->learnt);
        emit(ectx, 1);
        emit(ectx, 0);
    }
}

static bool late_between(void *ud, uint32_t *deg)
{
    late_st *st = ud;
    st->between_calls++;
    assert_int_equal(deg != NULL, passes() == 2);
    assert_int_equal(st->source_calls, deg ? 3 : 0);
    if (deg) {
        assert_int_equal(deg[0], 0);
        assert_int_equal(deg[1], 1);
        assert_int_equal(deg[2], 0);
        deg[2] += 2;
    }
    st->learnt = true;
    return !st->refuse;
}

static void test_build_between(void **state)
{
    late_st st = {0};
    hf_csr g;
    assert_true(hf_csr_build_with(&g, 2, late_source, late_between, &st));
    assert_int_equal(st.between_calls, 1);
    assert_int_equal(st.source_calls, 3 * passes());
    assert_int_equal(hf_csr_edges(&g), 3);
    assert_int_equal(hf_csr_degree(&g, 2), 2);
    assert_int_equal(g.dst[g.off[2]], 1);
    assert_int_equal(g.dst[g.off[2] + 1], 0);
    assert_int_equal(g.dst[g.off[1]], 0);
    hf_csr_free(&g);
    st = (late_st){.refuse = true};
    assert_false(hf_csr_build_with(&g, 2, late_source, late_between, &st));
    assert_null(g.off);
    assert_null(g.dst);
}

/* Enough nodes for several chunks on every thread, and nodes with more
 * edges than a block of the one pass holds: each node is asked for once a
 * pass (from whichever thread), and its edges land in its row, in the
 * order emitted. */
#define MANY (3 * HF_CHUNK + 5)
#define WIDE ((1u << 17) + 3) /* the edges of node 5 (a block holds 2^17) */

static uint32_t many_degree(uint32_t v)
{
    return v == 5 ? WIDE : v % 4;
}

static void many_source(void *ud, uint32_t v, bool counting, hf_edge_emit emit, void *ectx)
{
    gint *calls = ud;
    g_atomic_int_inc(&calls[v]);
    for (uint32_t k = 0; k < many_degree(v); k++)
        emit(ectx, (uint32_t)(((uint64_t)v * 7 + k) % (MANY + 1)));
}

static void check_many(const hf_csr *g, const gint *calls, int asked)
{
    for (uint32_t v = 0; v <= MANY; v++) {
        assert_int_equal(calls[v], asked);
        assert_int_equal(hf_csr_degree(g, v), many_degree(v));
        for (uint32_t k = 0; k < many_degree(v); k++)
            assert_int_equal(g->dst[g->off[v] + k], ((uint64_t)v * 7 + k) % (MANY + 1));
    }
}

static void test_build_chunks(void **state)
{
    gint *calls = g_new0(gint, MANY + 1);
    hf_csr g;
    assert_true(hf_csr_build(&g, MANY, many_source, calls));
    check_many(&g, calls, passes());
    hf_csr_free(&g);
    g_free(calls);
}

/* Cancelled at each asking in turn (the passes, the placing of chunks),
 * until the build ends: every failure keeps nothing (ASan), and the
 * build that ends is the graph. */
static unsigned asked, cancel_at;

static bool cancel_on_kth(void *ud)
{
    return ++asked >= cancel_at;
}

static void test_build_cancelled(void **state)
{
    gint *calls = g_new0(gint, MANY + 1);
    hf_csr g;
    hf_cancel_when(cancel_on_kth, NULL);
    for (cancel_at = 1;; cancel_at++) {
        asked = 0;
        memset(calls, 0, sizeof(gint) * (MANY + 1));
        if (hf_csr_build(&g, MANY, many_source, calls))
            break;
        assert_null(g.off);
        assert_null(g.dst);
    }
    hf_cancel_when(NULL, NULL);
    assert_true(cancel_at > 2); /* at least one failure in each pass */
    check_many(&g, calls, passes());
    hf_csr_free(&g);
    g_free(calls);
}

/* A budget with room for the graph in RAM, on two threads: one pass,
 * its blocks in the hf_work of the caller (the helper joins it), all
 * given back; a budget too small for any array: two passes in files. */
static void test_build_budget(void **state)
{
    char *dir = g_dir_make_tmp("test_graph_build.XXXXXX", NULL);
    for (int roomy = 0; roomy <= 1; roomy++) {
        size_t budget = roomy ? (size_t)64 << 20 : 0;
        hf_work *w = hf_work_begin(&(hf_work_opt){HF_WORK_LIMIT, budget}, dir);
        gint *calls = g_new0(gint, MANY + 1);
        hf_csr g;
        assert_true(hf_csr_build(&g, MANY, many_source, calls));
        check_many(&g, calls, roomy ? 1 : 2);
        assert_int_equal(hf_work_in_files() > 0, !roomy);
        hf_csr_free(&g);
        if (roomy)
            assert_true(hf_work_in_ram(budget)); /* nothing held */
        GString *said = g_string_new(NULL);
        hf_work_end(w, said);
        /* (a slice shorter than a tenth of a second while a helper runs
         * is not listed: the one pass's reading may not be) */
        assert_non_null(strstr(said->str, roomy ? "place references" : "store references"));
        assert_null(strstr(said->str, roomy ? "count references" : "place references"));
        g_string_free(said, TRUE);
        g_free(calls);
    }
    assert_int_equal(g_rmdir(dir), 0);
    g_free(dir);
}

/* One pass whose blocks outgrow the budget (a node has 1000 edges, where
 * the budget allowed for 4) in a directory that cannot hold files: a
 * block cannot be had, the build fails and keeps nothing. */
#define DENSE 5000

static void dense_source(void *ud, uint32_t v, bool counting, hf_edge_emit emit, void *ectx)
{
    gint *calls = ud;
    g_atomic_int_inc(&calls[v]);
    for (uint32_t k = 0; k < 1000; k++)
        emit(ectx, (v + k) % DENSE);
}

static void test_build_no_memory(void **state)
{
    size_t budget = (size_t)4 << 20; /* 8 blocks; the edges need 38 */
    hf_work *w = hf_work_begin(&(hf_work_opt){HF_WORK_LIMIT, budget}, "/proc/no/such/dir");
    gint *calls = g_new0(gint, DENSE + 1);
    hf_csr g;
    assert_false(hf_csr_build(&g, DENSE, dense_source, calls));
    assert_null(g.off);
    assert_null(g.dst);
    assert_true(hf_work_failures(w) > 0);
    assert_true(hf_work_in_ram(budget)); /* the blocks made, given back */
    for (uint32_t v = 0; v <= DENSE; v++)
        assert_true(calls[v] <= 1); /* one pass, given up */
    hf_work_end(w, NULL);
    g_free(calls);
}

int main(void)
{
    const struct CMUnitTest both[] = {
        cmocka_unit_test(test_build_rejects),
        cmocka_unit_test(test_build_between),
        cmocka_unit_test(test_build_chunks),
        cmocka_unit_test(test_build_cancelled),
    };
    const struct CMUnitTest once[] = {
        cmocka_unit_test(test_build_budget),
        cmocka_unit_test(test_build_no_memory),
    };
    int failed = th_run_in_ram_and_files("graph_build", both, sizeof both / sizeof both[0]);
    return failed + cmocka_run_group_tests(once, NULL, NULL);
}
