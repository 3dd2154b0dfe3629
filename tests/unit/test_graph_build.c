/* Unit tests for decoders/heap/graph.c's hf_csr_build and
 * hf_csr_build_with: two passes over an edge source that must agree, and
 * the step between them (test_graph.c has the rest of graph.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "decoders/heap/graph.h"

#include <glib.h>

/* A source for nodes 0 -> 1 -> 0, root -> 0 that, on its second pass,
 * emits one edge more for node 1 (mode 1), or one fewer (mode 2); or
 * points an edge past the virtual root (mode 3). */
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
        assert_int_equal(hf_csr_build(&g, 2, bad_source, st), mode == 0);
        assert_int_equal(g.off != NULL, mode == 0); /* empty on failure */
        assert_int_equal(g.dst != NULL, mode == 0);
        if (mode == 0) {
            assert_int_equal(hf_csr_edges(&g), 3);
            assert_int_equal(st[1] + st[2] + st[3], 6); /* two passes */
        }
        hf_csr_free(&g);
    }
}

/* hf_csr_build_with: the first pass counts what it can (node 1's edge,
 * none of the root's), the step between adds the root's two edges, learnt
 * only then (as heapfs resolves the GC roots after its first pass), and
 * may refuse. */
typedef struct {
    bool learnt, refuse;
    unsigned between_calls;
} late_st;

static void late_source(void *ud, uint32_t v, bool counting, hf_edge_emit emit, void *ectx)
{
    late_st *st = ud;
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
    assert_int_equal(deg[0], 0);
    assert_int_equal(deg[1], 1);
    assert_int_equal(deg[2], 0);
    deg[2] += 2;
    st->learnt = true;
    return !st->refuse;
}

static void test_build_between(void **state)
{
    late_st st = {0};
    hf_csr g;
    assert_true(hf_csr_build_with(&g, 2, late_source, late_between, &st));
    assert_int_equal(st.between_calls, 1);
    assert_int_equal(hf_csr_edges(&g), 3);
    assert_int_equal(hf_csr_degree(&g, 2), 2);
    assert_int_equal(g.dst[g.off[2]], 1);
    assert_int_equal(g.dst[g.off[1]], 0);
    hf_csr_free(&g);
    st = (late_st){.refuse = true};
    assert_false(hf_csr_build_with(&g, 2, late_source, late_between, &st));
    assert_null(g.off);
}

/* Enough nodes for several chunks on every thread: each node is asked
 * for once a pass (from whichever thread), and its edges land in its row. */
#define MANY (3 * HF_CHUNK + 5)

static void many_source(void *ud, uint32_t v, bool counting, hf_edge_emit emit, void *ectx)
{
    gint *calls = ud;
    g_atomic_int_inc(&calls[v]);
    for (uint32_t k = 0; k < v % 4; k++)
        emit(ectx, (uint32_t)(((uint64_t)v * 7 + k) % (MANY + 1)));
}

static void test_build_chunks(void **state)
{
    gint *calls = g_new0(gint, MANY + 1);
    hf_csr g;
    assert_true(hf_csr_build(&g, MANY, many_source, calls));
    for (uint32_t v = 0; v <= MANY; v++) {
        assert_int_equal(calls[v], 2);
        assert_int_equal(hf_csr_degree(&g, v), v % 4);
        for (uint32_t k = 0; k < v % 4; k++)
            assert_int_equal(g.dst[g.off[v] + k], ((uint64_t)v * 7 + k) % (MANY + 1));
    }
    hf_csr_free(&g);
    g_free(calls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_rejects),
        cmocka_unit_test(test_build_between),
        cmocka_unit_test(test_build_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
