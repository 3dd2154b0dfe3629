/* Unit tests for decoders/heap/graph.c: CSR building and transposing,
 * dominators, retained sizes, the dominator tree and BFS parents.  Every
 * graph small enough is also checked against a brute force written from
 * the definitions (d dominates x iff removing d cuts x off from the
 * virtual root), which shares no code with the implementation
 * (graphcheck.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "decoders/core/cancel.h"
#include "decoders/core/workmem.h"
#include "decoders/heap/graph.h"
#include "tests/unit/helpers.h"

#include "tests/unit/graphcheck.h"

/* ---- textbook graphs ---- */

/* Lengauer & Tarjan 1979, figure 1: R, A..L; R is the only GC root. */
static void test_lengauer_tarjan_1979(void **state)
{
    enum { R, A, B, C, D, E, F, G, H, I, J, K, L, N };
    static const uint32_t e[][2] = {
        {N, R},
        {R, A}, {R, B}, {R, C}, {A, D}, {B, A}, {B, D}, {B, E}, {C, F}, {C, G},
        {D, L}, {E, H}, {F, I}, {G, I}, {G, J}, {H, E}, {H, K}, {I, K}, {J, I},
        {K, I}, {K, R}, {L, H},
    };
    static const uint32_t want[N] = {
        [R] = N, [A] = R, [B] = R, [C] = R, [D] = R, [E] = R, [F] = C,
        [G] = C, [H] = R, [I] = R, [J] = G, [K] = R, [L] = D,
    };
    result r;
    textbook(&r, N, e, G_N_ELEMENTS(e), want, NULL);
    assert_int_equal(r.reached, N);
    assert_int_equal(r.retained[C], 4); /* C, F, G, J */
    assert_int_equal(r.retained[D], 2); /* D, L */
    result_free(&r);
}

/* Cooper, Harvey & Kennedy, "A Simple, Fast Dominance Algorithm" (2001),
 * figure 2: irreducible, nodes named by postorder number, 5 the entry. */
static void test_chk_figure2(void **state)
{
    enum { N1, N2, N3, N4, N5, N };
    static const uint32_t e[][2] = {
        {N, N5}, {N5, N4}, {N5, N3}, {N4, N1}, {N3, N2}, {N1, N2}, {N2, N1},
    };
    static const uint32_t want[N] = {N5, N5, N5, N5, N};
    result r;
    textbook(&r, N, e, G_N_ELEMENTS(e), want, NULL);
    assert_int_equal(r.retained[N5], 5);
    result_free(&r);
}

/* CHK figure 4, where their iterative algorithm needs several passes. */
static void test_chk_figure4(void **state)
{
    enum { N1, N2, N3, N4, N5, N6, N };
    static const uint32_t e[][2] = {
        {N, N6}, {N6, N5}, {N6, N4}, {N5, N1}, {N4, N2}, {N4, N3},
        {N1, N2}, {N2, N1}, {N2, N3}, {N3, N2},
    };
    static const uint32_t want[N] = {N6, N6, N6, N6, N6, N};
    result r;
    textbook(&r, N, e, G_N_ELEMENTS(e), want, NULL);
    assert_int_equal(r.retained[N6], 6);
    result_free(&r);
}

static void test_diamond(void **state)
{
    static const uint32_t e[][2] = {{4, 0}, {0, 1}, {0, 2}, {1, 3}, {2, 3}};
    static const uint32_t want[4] = {4, 0, 0, 0};
    static const uint64_t s[5] = {10, 20, 30, 40, 0};
    result r;
    textbook(&r, 4, e, G_N_ELEMENTS(e), want, s);
    assert_int_equal(r.retained[0], 100);
    assert_int_equal(hf_graph_depth(r.parent, 4, 3), 3);
    result_free(&r);
}

static void test_cycle(void **state)
{
    static const uint32_t e[][2] = {{3, 0}, {0, 1}, {1, 2}, {2, 0}};
    static const uint32_t want[3] = {3, 0, 1};
    static const uint64_t s[4] = {1, 2, 4, 0};
    result r;
    textbook(&r, 3, e, G_N_ELEMENTS(e), want, s);
    assert_int_equal(r.retained[1], 6);
    assert_int_equal(r.parent[2], 1);
    result_free(&r);
}

/* Reachable from two roots: only the virtual root dominates it. */
static void test_two_roots(void **state)
{
    static const uint32_t e[][2] = {{3, 0}, {3, 1}, {0, 2}, {1, 2}};
    static const uint32_t want[3] = {3, 3, 3};
    result r;
    textbook(&r, 3, e, G_N_ELEMENTS(e), want, NULL);
    assert_int_equal(r.retained[3], 3);
    result_free(&r);
}

static void test_self_loops(void **state)
{
    static const uint32_t e[][2] = {{2, 0}, {0, 0}, {0, 1}, {1, 1}};
    static const uint32_t want[2] = {2, 0};
    result r;
    textbook(&r, 2, e, G_N_ELEMENTS(e), want, NULL);
    assert_int_equal(r.retained[0], 2);
    result_free(&r);
}

static void test_duplicate_edges(void **state)
{
    static const uint32_t e[][2] = {
        {3, 0}, {3, 0}, {0, 1}, {0, 1}, {0, 1}, {1, 2}, {0, 2}, {1, 2}, {2, 3},
    };
    static const uint32_t want[3] = {3, 0, 0};
    result r;
    textbook(&r, 3, e, G_N_ELEMENTS(e), want, NULL);
    assert_int_equal(hf_csr_edges(&r.succ), G_N_ELEMENTS(e));
    assert_int_equal(hf_csr_degree(&r.pred, 1), 3);
    assert_int_equal(r.retained[0], 3);
    assert_int_equal(hf_csr_degree(&r.kids, 0), 2);
    result_free(&r);
}

/* A node with 300 referrers, all roots, reached first from the last of
 * them in its (ascending) referrer list: its parent's place, 299, does not
 * fit the byte and goes to the far list; others' still do. */
static void test_parents_far(void **state)
{
    enum { R = 300, N = R + 2 };
    graph g = graph_new(N);
    for (uint32_t v = R; v-- > 0;) /* roots in descending order: BFS meets R-1 first */
        graph_add(&g, N, v);
    for (uint32_t v = 0; v < R; v++)
        graph_add(&g, v, R);
    graph_add(&g, R, R + 1);
    uint64_t *ones = g_new(uint64_t, N + 1);
    for (uint32_t v = 0; v <= N; v++)
        ones[v] = 1;
    result r;
    check_graph(&g, ones, &r);
    g_free(ones);
    assert_int_equal(r.parent[R], R - 1);
    assert_int_equal(r.packed.n_far, 1);
    assert_int_equal(r.packed.slot[R], HF_SLOT_FAR);
    assert_int_equal(hf_parents_get(&r.packed, &r.pred, R), R - 1);
    assert_int_equal(hf_parents_get(&r.packed, &r.pred, R + 1), R);
    assert_int_equal(hf_parents_depth(&r.packed, &r.pred, R + 1), 3);
    /* a damaged place (as from a file) is a miss, not a read past the list */
    r.packed.slot[R + 1] = 200;
    assert_int_equal(hf_parents_get(&r.packed, &r.pred, R + 1), HF_NONE);
    assert_int_equal(hf_parents_depth(&r.packed, &r.pred, R + 1), HF_NONE);
    result_free(&r);
    graph_free(&g);
}

/* Nodes 2 and 3 are unreachable (3 -> 2 and 2 -> 0 do not make them so). */
static void test_unreachable(void **state)
{
    static const uint32_t e[][2] = {{4, 0}, {0, 1}, {3, 2}, {2, 0}, {2, 3}};
    static const uint32_t want[4] = {4, 0, HF_NONE, HF_NONE};
    static const uint64_t s[5] = {1, 2, 4, 8, 0};
    result r;
    textbook(&r, 4, e, G_N_ELEMENTS(e), want, s);
    assert_int_equal(r.reached, 2);
    assert_int_equal(r.retained[3], 0);
    assert_int_equal(r.retained[4], 3);
    assert_int_equal(r.parent[3], HF_NONE);
    assert_int_equal(hf_graph_depth(r.parent, 4, 3), HF_NONE);
    assert_int_equal(hf_csr_edges(&r.kids), 2);
    result_free(&r);
}

/* No objects at all: only the virtual root. */
static void test_empty(void **state)
{
    result r;
    textbook(&r, 0, NULL, 0, NULL, NULL);
    assert_int_equal(r.reached, 0);
    assert_int_equal(r.idom[0], 0);
    assert_int_equal(r.parent[0], 0);
    assert_int_equal(hf_csr_edges(&r.kids), 0);
    result_free(&r);
}

/* ---- big shapes: a chain, and a deep list whose tail fans out ---- */

static void chain_source(void *ud, uint32_t v, bool counting, hf_edge_emit emit, void *ectx)
{
    uint32_t n = *(const uint32_t *)ud;
    if (v == n)
        emit(ectx, 0);
    else if (v + 1 < n)
        emit(ectx, v + 1);
}

static void test_chain_ten_million(void **state)
{
    uint32_t n = 10 * 1000 * 1000;
    uint64_t *s = g_new(uint64_t, n + 1), total = 0;
    for (uint32_t v = 0; v < n; v++)
        total += s[v] = (uint64_t)(v % 7 + 1) << 20; /* sums pass 2^32 */
    result r;
    run_all(&r, n, chain_source, &n, s);
    assert_int_equal(r.reached, n);
    assert_int_equal(r.idom[0], n);
    for (uint32_t v = 1; v < n; v++)
        if (r.idom[v] != v - 1 || r.parent[v] != v - 1 || r.order[v] != v)
            fail_msg("node %u: idom %u parent %u order %u", v, r.idom[v], r.parent[v], r.order[v]);
    assert_true(r.retained[0] == total);
    assert_true(r.retained[n] == total);
    assert_true(r.retained[n - 1] == s[n - 1] && total > UINT32_MAX);
    assert_int_equal(hf_graph_depth(r.parent, n, n - 1), n);
    assert_int_equal(r.kids.dst[r.kids.off[5]], 6);
    result_free(&r);
    g_free(s);
}

/* Roots: a list 0 .. K-1 and a holder H.  The list's tail K-1 refers to
 * fan-out objects K+1 .. K+F, which H refers to as well.  DFS reaches the
 * fan-out objects from the tail, so a plain walk up the dominator tree
 * for each would take K steps: K*F in all. */
enum { FAN_K = 200000, FAN_F = 200000, FAN_H = FAN_K, FAN_N = FAN_K + 1 + FAN_F };

static void fan_source(void *ud, uint32_t v, bool counting, hf_edge_emit emit, void *ectx)
{
    if (v == FAN_N) {
        emit(ectx, 0);
        emit(ectx, FAN_H);
    } else if (v + 1 < FAN_K) {
        emit(ectx, v + 1);
    } else if (v == FAN_K - 1 || v == FAN_H) {
        for (uint32_t k = 1; k <= FAN_F; k++)
            emit(ectx, FAN_K + k);
    }
}

/* The process's CPU seconds so far (all its threads). */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_deep_list_fan_out(void **state)
{
    uint64_t *s = g_new(uint64_t, FAN_N + 1);
    for (uint32_t v = 0; v <= FAN_N; v++)
        s[v] = 1;
    double t0 = cpu_seconds();
    result r;
    run_all(&r, FAN_N, fan_source, NULL, s);
    double secs = cpu_seconds() - t0;
    assert_int_equal(r.idom[FAN_K - 1], FAN_K - 2);
    for (uint32_t k = 1; k <= FAN_F; k++)
        assert_int_equal(r.idom[FAN_K + k], FAN_N);
    assert_true(r.retained[0] == FAN_K);
    /* O(n log n) takes milliseconds; quadratic, 4e10 steps, a minute.  CPU
     * time, not wall time: a busy machine must not fail the test */
    if (secs > 5)
        fail_msg("took %.1f s of CPU", secs);
    result_free(&r);
    g_free(s);
}

/* ---- random graphs against the brute force ---- */

static void check_random(graph *g, GRand *rnd)
{
    uint64_t *shallow = g_new(uint64_t, g->n + 1);
    for (uint32_t v = 0; v <= g->n; v++)
        shallow[v] = g_rand_int_range(rnd, 0, 1000);
    result r;
    check_graph(g, shallow, &r);
    result_free(&r);
    graph_free(g);
    g_free(shallow);
}

static void test_random_small_graphs(void **state)
{
    GRand *rnd = g_rand_new_with_seed(20240611);
    for (int round = 0; round < 300; round++) {
        uint32_t n = g_rand_int_range(rnd, 2, 41);
        graph g = graph_new(n);
        double density = g_rand_double_range(rnd, 0.02, 0.25);
        for (uint32_t v = 0; v < n; v++)
            for (uint32_t w = 0; w <= n; w++)
                for (int dup = 0; g_rand_double(rnd) < (w == n ? 0.01 : density) && dup < 2; dup++)
                    graph_add(&g, v, w); /* sometimes twice */
        for (uint32_t k = g_rand_int_range(rnd, 1, 4); k > 0; k--)
            graph_add(&g, n, g_rand_int_range(rnd, 0, n));
        check_random(&g, rnd);
    }
    g_rand_free(rnd);
}

/* Deep dominator trees, which small graphs do not make: a random tree
 * whose parents are close in number, plus edges forward, back and across,
 * and a few nodes with many references. */
static void test_random_deep_graphs(void **state)
{
    GRand *rnd = g_rand_new_with_seed(42);
    for (int round = 0; round < 30; round++) {
        uint32_t n = g_rand_int_range(rnd, 100, 1200);
        graph g = graph_new(n);
        graph_add(&g, n, 0);
        for (uint32_t v = 1; v < n; v++)
            graph_add(&g, v - 1 - g_rand_int_range(rnd, 0, MIN(v, 4)), v);
        for (uint32_t k = g_rand_int_range(rnd, 0, n); k > 0; k--) {
            uint32_t a = g_rand_int_range(rnd, 0, n), span = g_rand_boolean(rnd) ? 50 : n;
            uint32_t b = (a + g_rand_int_range(rnd, 0, span) + n - span / 2) % n;
            graph_add(&g, a, b);
        }
        for (uint32_t k = g_rand_int_range(rnd, 0, 4); k > 0; k--) {
            uint32_t a = g_rand_int_range(rnd, 0, n);
            for (uint32_t f = g_rand_int_range(rnd, 10, 100); f > 0; f--)
                graph_add(&g, a, g_rand_int_range(rnd, 0, n));
        }
        for (uint32_t k = g_rand_int_range(rnd, 0, 3); k > 0; k--)
            graph_add(&g, n, g_rand_int_range(rnd, 0, n));
        check_random(&g, rnd);
    }
    g_rand_free(rnd);
}

/* Many children of the virtual root, pointed at from everywhere (the
 * JVM's class objects of sticky classes): the dominator pass leaves the
 * edges into them out of its predecessors, which must change no idom,
 * also where a root child is reached by the DFS through another node
 * first, or points at other root children. */
static void test_random_root_children(void **state)
{
    GRand *rnd = g_rand_new_with_seed(44);
    for (int round = 0; round < 200; round++) {
        uint32_t n = g_rand_int_range(rnd, 2, 60);
        graph g = graph_new(n);
        for (uint32_t v = 0; v < n; v++)
            for (uint32_t k = g_rand_int_range(rnd, 0, 4); k > 0; k--)
                graph_add(&g, v, g_rand_int_range(rnd, 0, n));
        for (uint32_t k = g_rand_int_range(rnd, 1, n / 2 + 2); k > 0; k--)
            graph_add(&g, n, g_rand_int_range(rnd, 0, n));
        check_random(&g, rnd);
    }
    g_rand_free(rnd);
}

/* Leaf trees, the shape of most of a heap: most nodes hang in trees, one
 * referrer each, below a tangled core (their idom is their referrer, and
 * they change no other node's: a pass may leave them out); root children
 * are referred to from everywhere (leaf trees included: such edges keep
 * a tree whole, as they change no dominator), and some trees get what
 * takes a node out of one: a second referrer, the same edge twice, a self
 * loop, an edge back into the core; edges from unreachable nodes into the
 * trees must not count. */
static void test_random_leaf_trees(void **state)
{
    GRand *rnd = g_rand_new_with_seed(1972);
    for (int round = 0; round < 150; round++) {
        uint32_t n = g_rand_int_range(rnd, 4, round % 5 ? 60 : 300);
        uint32_t core = g_rand_int_range(rnd, 1, n / 3 + 2), lost = n - n / 8;
        graph g = graph_new(n);
        for (uint32_t k = g_rand_int_range(rnd, 1, 4); k > 0; k--)
            graph_add(&g, n, g_rand_int_range(rnd, 0, core));
        for (uint32_t k = g_rand_int_range(rnd, 0, core * 2); k > 0; k--)
            graph_add(&g, g_rand_int_range(rnd, 0, core), g_rand_int_range(rnd, 0, core));
        uint32_t kids = g_rand_int_range(rnd, 0, 4); /* the root's, from core .. */
        for (uint32_t v = core; v < n && v < core + kids; v++)
            graph_add(&g, n, v);
        for (uint32_t v = core + kids; v < lost; v++) { /* one parent: core or an earlier leaf */
            uint32_t far = g_rand_int_range(rnd, 0, v);
            graph_add(&g, g_rand_int_range(rnd, 0, 4) ? v - 1 : far, v);
        }
        for (uint32_t v = lost; v < n; v++) /* unreachable, into the trees */
            graph_add(&g, v, g_rand_int_range(rnd, core, n));
        for (uint32_t k = g_rand_int_range(rnd, 0, n); k > 0; k--) { /* to root children */
            uint32_t kid = g_rand_int_range(rnd, core, MIN(core + kids, n) + 1);
            graph_add(&g, g_rand_int_range(rnd, 0, n), kid);
        }
        for (uint32_t k = g_rand_int_range(rnd, 0, 4); k > 0; k--) {
            uint32_t v = g_rand_int_range(rnd, core, n), w = g_rand_int_range(rnd, 0, n);
            switch (g_rand_int_range(rnd, 0, 4)) {
            case 0: graph_add(&g, g_rand_int_range(rnd, 0, lost), v); break;
            case 1: graph_add(&g, w, v); graph_add(&g, w, v); break;
            case 2: graph_add(&g, v, v); break;
            default: graph_add(&g, v, g_rand_int_range(rnd, 0, core)); break;
            }
        }
        check_random(&g, rnd);
    }
    g_rand_free(rnd);
}

/* ---- the dominator tree's order, transpose, builder failures ---- */

static void test_children_order(void **state)
{
    /* root -> 0 -> 1..4; 1 and 3 tie, 2 and 4 tie */
    static const uint32_t e[][2] = {{5, 0}, {0, 3}, {0, 1}, {0, 4}, {0, 2}};
    static const uint32_t want_idom[5] = {5, 0, 0, 0, 0};
    static const uint64_t s[6] = {1, 5, 10, 5, 10, 0};
    static const uint32_t want[4] = {2, 4, 1, 3};
    result r;
    textbook(&r, 5, e, G_N_ELEMENTS(e), want_idom, s);
    assert_int_equal(hf_csr_degree(&r.kids, 0), 4);
    assert_memory_equal(r.kids.dst + r.kids.off[0], want, sizeof want);
    result_free(&r);

    /* 5000 children of the root, few distinct sizes, some over 2^32 */
    uint32_t n = 5000, *idom = g_new(uint32_t, n + 1);
    uint64_t *sz = g_new(uint64_t, n + 1);
    for (uint32_t v = 0; v <= n; v++) {
        idom[v] = n;
        sz[v] = (v * 7919u) % 13 + (v % 5 == 0 ? 1ull << 40 : 0);
    }
    hf_csr k;
    assert_true(hf_dom_children(n, idom, sz, &k));
    assert_int_equal(hf_csr_degree(&k, n), n);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        sum += k.dst[i];
        if (i > 0)
            assert_true(kid_ok(sz, k.dst[i - 1], k.dst[i]));
    }
    assert_true(sum == (uint64_t)n * (n - 1) / 2); /* strictly ordered: a permutation */
    hf_csr_free(&k);
    g_free(sz);
    g_free(idom);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void test_transpose_random(void **state)
{
    GRand *rnd = g_rand_new_with_seed(7);
    uint32_t n = 1000;
    graph g = graph_new(n), naive = graph_new(n);
    for (uint32_t v = 0; v <= n; v++)
        for (uint32_t k = g_rand_int_range(rnd, 0, 12); k > 0; k--) {
            uint32_t w = g_rand_int_range(rnd, 0, n + 1);
            graph_add(&g, v, w);
            graph_add(&naive, w, v);
        }
    hf_csr succ, pred, part;
    assert_true(hf_csr_build(&succ, n, graph_source, &g));
    assert_true(hf_csr_transpose(&succ, &pred));
    assert_int_equal(pred.n, n);
    assert_int_equal(hf_csr_edges(&pred), hf_csr_edges(&succ));
    /* in ranges of destinations (as for arrays in files): the same CSR,
     * for ranges of one node, of a few, and of a size not dividing n + 1 */
    for (size_t chunk = 1; chunk < 4000; chunk = chunk * 7 + 3) {
        assert_true(hf_csr_transpose_chunked(&succ, &part, chunk));
        assert_memory_equal(part.off, pred.off, (n + 2) * sizeof *pred.off);
        assert_memory_equal(part.dst, pred.dst, hf_csr_edges(&pred) * sizeof *pred.dst);
        hf_csr_free(&part);
    }
    for (uint32_t v = 0; v <= n; v++) {
        GArray *a = naive.out[v];
        assert_int_equal(hf_csr_degree(&pred, v), a->len);
        if (a->len == 0) /* an empty GArray's data is NULL */
            continue;
        uint32_t *got = g_memdup2(pred.dst + pred.off[v], a->len * sizeof *got);
        qsort(got, a->len, sizeof *got, cmp_u32);
        qsort(a->data, a->len, sizeof(uint32_t), cmp_u32);
        assert_memory_equal(got, a->data, a->len * sizeof *got);
        g_free(got);
    }
    hf_csr_free(&succ);
    hf_csr_free(&pred);
    graph_free(&g);
    graph_free(&naive);
    g_rand_free(rnd);
}

/* Cancellation (core/cancel.h): the question is answered "give up" at its
 * k-th asking; every long function then fails with nothing kept (ASan),
 * and the dominator pass asks in each of its phases. */
static unsigned asked, cancel_at;

static bool cancel_on_kth(void *ud)
{
    return ++asked >= cancel_at;
}

static void test_cancelled(void **state)
{
    uint32_t n = 200000; /* a chain: 3 questions in each dominator phase */
    hf_csr succ, pred, x;
    uint32_t *parent = g_new(uint32_t, n + 1), *idom = g_new(uint32_t, n + 1);
    uint32_t *order = g_new(uint32_t, n + 1), reached;
    uint64_t *retained = g_new0(uint64_t, n + 1);
    hf_parents pp;
    assert_true(hf_csr_build(&succ, n, chain_source, &n) && hf_csr_transpose(&succ, &pred) &&
                hf_graph_bfs(&succ, parent));
    hf_cancel_when(cancel_on_kth, NULL);
    cancel_at = 1;
    asked = 0;
    assert_false(hf_csr_build(&x, n, chain_source, &n));
    assert_null(x.off);
    assert_false(hf_csr_transpose(&succ, &x));
    assert_false(hf_graph_bfs(&succ, order));
    assert_false(hf_parents_pack(parent, &pred, &pp));
    assert_null(pp.slot);
    for (cancel_at = 1;; cancel_at++) {
        asked = 0;
        if (hf_dom_compute(&succ, idom, order, &reached))
            break;
    }
    print_message("the dominator pass asked %u times\n", cancel_at - 1);
    assert_true(cancel_at - 1 >= 6); /* the DFS, semidominators and NCA each */
    assert_int_equal(reached, n);
    assert_int_equal(idom[n - 1], n - 2);
    cancel_at = 1;
    asked = 0;
    assert_false(hf_dom_children(n, idom, retained, &x));
    hf_cancel_when(NULL, NULL);
    assert_true(hf_dom_children(n, idom, retained, &x));
    hf_csr_free(&x);
    hf_csr_free(&succ);
    hf_csr_free(&pred);
    g_free(parent);
    g_free(idom);
    g_free(order);
    g_free(retained);
}

/* Sizes in 6 bytes: every bit of 48 comes back, past 32 bits too, beside
 * neighbours; beyond 2^48 - 1 they stay at 2^48 - 1. */
static void test_size48(void **state)
{
    const uint64_t v[] = {0, 1, 0xffff, 0x10000, UINT32_MAX, (uint64_t)UINT32_MAX + 1,
                          0x123456789abcULL, HF_SIZE48_MAX};
    enum { N = sizeof v / sizeof *v };
    hf_size48 a[N + 1];
    assert_int_equal(sizeof a[0], 6);
    hf_size48_set(a, N, UINT64_MAX);
    for (size_t i = 0; i < N; i++)
        hf_size48_set(a, i, v[i]);
    for (size_t i = 0; i < N; i++)
        assert_true(hf_size48_get(a, i) == v[i]);
    assert_true(hf_size48_get(a, N) == HF_SIZE48_MAX);
    hf_size48_set(a, N, HF_SIZE48_MAX + 1);
    assert_true(hf_size48_get(a, N) == HF_SIZE48_MAX);
    assert_true(hf_size48_get(a, N - 1) == HF_SIZE48_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lengauer_tarjan_1979),
        cmocka_unit_test(test_size48),
        cmocka_unit_test(test_chk_figure2),
        cmocka_unit_test(test_chk_figure4),
        cmocka_unit_test(test_diamond),
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_two_roots),
        cmocka_unit_test(test_self_loops),
        cmocka_unit_test(test_duplicate_edges),
        cmocka_unit_test(test_unreachable),
        cmocka_unit_test(test_parents_far),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_chain_ten_million),
        cmocka_unit_test(test_deep_list_fan_out),
        cmocka_unit_test(test_random_small_graphs),
        cmocka_unit_test(test_random_deep_graphs),
        cmocka_unit_test(test_random_root_children),
        cmocka_unit_test(test_random_leaf_trees),
        cmocka_unit_test(test_children_order),
        cmocka_unit_test(test_transpose_random),
        cmocka_unit_test(test_cancelled),
    };
    /* every check twice: arrays in RAM, then all in files (core/workmem.h,
     * -o retained_mem=file), the mode of a dump larger than memory */
    return th_run_in_ram_and_files("graph", tests, sizeof tests / sizeof tests[0]);
}
