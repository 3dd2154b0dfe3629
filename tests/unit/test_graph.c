/* Unit tests for decoders/heap/graph.c: CSR building and transposing,
 * dominators, retained sizes, the dominator tree and BFS parents.  The
 * random tests compare against a brute force written from the definitions
 * (d dominates x iff removing d cuts x off from the virtual root), which
 * shares no code with the implementation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "decoders/heap/graph.h"

/* ---- graphs given as edge lists ---- */

typedef struct {
    uint32_t n;
    size_t m;
    const uint32_t (*e)[2]; /* {from, to}; from == n is a GC root edge */
} edges;

static void list_source(void *ud, uint32_t v, hf_edge_emit emit, void *ectx)
{
    const edges *g = ud;
    for (size_t k = 0; k < g->m; k++)
        if (g->e[k][0] == v)
            emit(ectx, g->e[k][1]);
}

/* Everything the module computes for one graph. */
typedef struct {
    uint32_t n, reached;
    hf_csr succ, pred, kids;
    uint32_t *idom, *order, *parent;
    uint64_t *retained;
} result;

static void run_all(result *r, uint32_t n, hf_edge_source src, void *ud, const uint64_t *shallow)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    assert_true(hf_csr_build(&r->succ, n, src, ud));
    assert_true(hf_csr_transpose(&r->succ, &r->pred));
    r->idom = g_new(uint32_t, n + 1);
    r->order = g_new(uint32_t, n + 1);
    r->parent = g_new(uint32_t, n + 1);
    r->retained = g_new(uint64_t, n + 1);
    assert_true(hf_dom_compute(&r->succ, &r->pred, r->idom, r->order, &r->reached));
    hf_dom_retained(n, r->idom, r->order, r->reached, shallow, r->retained);
    assert_true(hf_dom_children(n, r->idom, r->retained, &r->kids));
    assert_true(hf_graph_bfs(&r->succ, r->parent));
}

static void run_list(result *r, uint32_t n, const uint32_t (*e)[2], size_t m, const uint64_t *shallow)
{
    edges g = {n, m, e};
    run_all(r, n, list_source, &g, shallow);
}

static void result_free(result *r)
{
    hf_csr_free(&r->succ);
    hf_csr_free(&r->pred);
    hf_csr_free(&r->kids);
    g_free(r->idom);
    g_free(r->order);
    g_free(r->parent);
    g_free(r->retained);
}

static uint64_t *ones(uint32_t n)
{
    uint64_t *s = g_new(uint64_t, n + 1);
    for (uint32_t v = 0; v <= n; v++)
        s[v] = 1;
    return s;
}

/* idom[] as expected, HF_NONE for unreachable; want[n] is implied. */
static void expect_idom(const result *r, const uint32_t *want)
{
    for (uint32_t v = 0; v < r->n; v++)
        assert_int_equal(r->idom[v], want[v]);
    assert_int_equal(r->idom[r->n], r->n);
}

/* order holds each reachable node once, after its idom. */
static void check_order(const result *r)
{
    uint32_t *pos = g_new(uint32_t, r->n + 1);
    memset(pos, 0xff, (r->n + 1) * sizeof *pos);
    for (uint32_t k = 0; k < r->reached; k++) {
        uint32_t v = r->order[k];
        assert_true(v < r->n);
        assert_int_equal(pos[v], HF_NONE);
        pos[v] = k;
    }
    uint32_t reachable = 0;
    for (uint32_t v = 0; v < r->n; v++) {
        if (r->idom[v] == HF_NONE) {
            assert_int_equal(pos[v], HF_NONE);
            continue;
        }
        reachable++;
        assert_int_not_equal(pos[v], HF_NONE);
        if (r->idom[v] != r->n)
            assert_true(pos[r->idom[v]] < pos[v]);
    }
    assert_int_equal(reachable, r->reached);
    g_free(pos);
}

/* ---- textbook graphs ---- */

/* Lengauer & Tarjan 1979, figure 1: R, A..L; R is the only GC root. */
enum { R, A, B, C, D, E, F, G, H, I, J, K, L, LT_N };

static void test_lengauer_tarjan_1979(void **state)
{
    static const uint32_t e[][2] = {
        {LT_N, R},
        {R, A}, {R, B}, {R, C}, {A, D}, {B, A}, {B, D}, {B, E}, {C, F}, {C, G},
        {D, L}, {E, H}, {F, I}, {G, I}, {G, J}, {H, E}, {H, K}, {I, K}, {J, I},
        {K, I}, {K, R}, {L, H},
    };
    static const uint32_t want[LT_N] = {
        [R] = LT_N, [A] = R, [B] = R, [C] = R, [D] = R, [E] = R, [F] = C,
        [G] = C, [H] = R, [I] = R, [J] = G, [K] = R, [L] = D,
    };
    uint64_t *s = ones(LT_N);
    result r;
    run_list(&r, LT_N, e, G_N_ELEMENTS(e), s);
    expect_idom(&r, want);
    check_order(&r);
    assert_int_equal(r.reached, LT_N);
    assert_int_equal(r.retained[R], LT_N);
    assert_int_equal(r.retained[C], 4);  /* C, F, G, J */
    assert_int_equal(r.retained[D], 2);  /* D, L */
    assert_int_equal(r.retained[A], 1);
    result_free(&r);
    g_free(s);
}

/* Cooper, Harvey & Kennedy, "A Simple, Fast Dominance Algorithm", figure 2
 * (irreducible; nodes named by postorder number, 5 the entry): every node's
 * idom is the entry. */
static void test_chk_figure2(void **state)
{
    enum { N1, N2, N3, N4, N5, N };
    static const uint32_t e[][2] = {
        {N, N5}, {N5, N4}, {N5, N3}, {N4, N1}, {N3, N2}, {N1, N2}, {N2, N1},
    };
    static const uint32_t want[N] = {N5, N5, N5, N5, N};
    uint64_t *s = ones(N);
    result r;
    run_list(&r, N, e, G_N_ELEMENTS(e), s);
    expect_idom(&r, want);
    check_order(&r);
    assert_int_equal(r.retained[N5], 5);
    result_free(&r);
    g_free(s);
}

/* CHK figure 4: the graph where the iterative algorithm needs several
 * passes; 6 is the entry and dominates everything directly. */
static void test_chk_figure4(void **state)
{
    enum { N1, N2, N3, N4, N5, N6, N };
    static const uint32_t e[][2] = {
        {N, N6}, {N6, N5}, {N6, N4}, {N5, N1}, {N4, N2}, {N4, N3},
        {N1, N2}, {N2, N1}, {N2, N3}, {N3, N2},
    };
    static const uint32_t want[N] = {N6, N6, N6, N6, N6, N};
    uint64_t *s = ones(N);
    result r;
    run_list(&r, N, e, G_N_ELEMENTS(e), s);
    expect_idom(&r, want);
    check_order(&r);
    assert_int_equal(r.retained[N6], 6);
    assert_int_equal(r.retained[N2], 1);
    result_free(&r);
    g_free(s);
}

static void test_diamond(void **state)
{
    static const uint32_t e[][2] = {{4, 0}, {0, 1}, {0, 2}, {1, 3}, {2, 3}};
    static const uint32_t want[4] = {4, 0, 0, 0};
    static const uint64_t s[5] = {10, 20, 30, 40, 0};
    result r;
    run_list(&r, 4, e, G_N_ELEMENTS(e), s);
    expect_idom(&r, want);
    assert_int_equal(r.retained[0], 100);
    assert_int_equal(r.retained[1], 20);
    assert_int_equal(r.retained[3], 40);
    assert_int_equal(r.retained[4], 100);
    assert_int_equal(hf_graph_depth(r.parent, 4, 3), 3);
    result_free(&r);
}

static void test_cycle(void **state)
{
    static const uint32_t e[][2] = {{3, 0}, {0, 1}, {1, 2}, {2, 0}};
    static const uint32_t want[3] = {3, 0, 1};
    static const uint64_t s[4] = {1, 2, 4, 0};
    result r;
    run_list(&r, 3, e, G_N_ELEMENTS(e), s);
    expect_idom(&r, want);
    assert_int_equal(r.retained[0], 7);
    assert_int_equal(r.retained[1], 6);
    assert_int_equal(r.retained[2], 4);
    assert_int_equal(r.parent[0], 3);
    assert_int_equal(r.parent[2], 1);
    result_free(&r);
}

/* Reachable from two roots: only the virtual root dominates it. */
static void test_two_roots(void **state)
{
    static const uint32_t e[][2] = {{3, 0}, {3, 1}, {0, 2}, {1, 2}};
    static const uint32_t want[3] = {3, 3, 3};
    static const uint64_t s[4] = {1, 2, 4, 0};
    result r;
    run_list(&r, 3, e, G_N_ELEMENTS(e), s);
    expect_idom(&r, want);
    assert_int_equal(r.retained[0], 1);
    assert_int_equal(r.retained[1], 2);
    assert_int_equal(r.retained[3], 7);
    assert_int_equal(hf_graph_depth(r.parent, 3, 2), 2);
    result_free(&r);
}

static void test_self_loops(void **state)
{
    static const uint32_t e[][2] = {{2, 0}, {0, 0}, {0, 1}, {1, 1}};
    static const uint32_t want[2] = {2, 0};
    static const uint64_t s[3] = {5, 7, 0};
    result r;
    run_list(&r, 2, e, G_N_ELEMENTS(e), s);
    expect_idom(&r, want);
    assert_int_equal(r.retained[0], 12);
    assert_int_equal(r.parent[1], 0);
    result_free(&r);
}

static void test_duplicate_edges(void **state)
{
    static const uint32_t e[][2] = {
        {3, 0}, {3, 0}, {0, 1}, {0, 1}, {0, 1}, {1, 2}, {0, 2}, {1, 2}, {2, 3},
    };
    static const uint32_t want[3] = {3, 0, 0};
    static const uint64_t s[4] = {1, 2, 4, 0};
    result r;
    run_list(&r, 3, e, G_N_ELEMENTS(e), s);
    expect_idom(&r, want);
    assert_int_equal(hf_csr_edges(&r.succ), G_N_ELEMENTS(e));
    assert_int_equal(hf_csr_degree(&r.pred, 1), 3);
    assert_int_equal(r.retained[0], 7);
    assert_int_equal(r.parent[2], 0);
    assert_int_equal(hf_csr_degree(&r.kids, 0), 2);
    result_free(&r);
}

/* Nodes 2 and 3 are unreachable (3 -> 2 and 2 -> 0 do not make them so). */
static void test_unreachable(void **state)
{
    static const uint32_t e[][2] = {{4, 0}, {0, 1}, {3, 2}, {2, 0}, {2, 3}};
    static const uint32_t want[4] = {4, 0, HF_NONE, HF_NONE};
    static const uint64_t s[5] = {1, 2, 4, 8, 0};
    result r;
    run_list(&r, 4, e, G_N_ELEMENTS(e), s);
    expect_idom(&r, want);
    check_order(&r);
    assert_int_equal(r.reached, 2);
    assert_int_equal(r.retained[2], 0);
    assert_int_equal(r.retained[3], 0);
    assert_int_equal(r.retained[4], 3);
    assert_int_equal(r.parent[2], HF_NONE);
    assert_int_equal(r.parent[3], HF_NONE);
    assert_int_equal(hf_graph_depth(r.parent, 4, 3), HF_NONE);
    assert_int_equal(hf_csr_degree(&r.kids, 2), 0);
    assert_int_equal(hf_csr_degree(&r.kids, 3), 0);
    assert_int_equal(hf_csr_edges(&r.kids), 2);
    result_free(&r);
}

/* No objects at all: only the virtual root. */
static void test_empty(void **state)
{
    uint64_t s[1] = {0};
    result r;
    run_list(&r, 0, NULL, 0, s);
    assert_int_equal(r.reached, 0);
    assert_int_equal(r.idom[0], 0);
    assert_int_equal(r.retained[0], 0);
    assert_int_equal(r.parent[0], 0);
    assert_int_equal(hf_csr_edges(&r.kids), 0);
    result_free(&r);
}

/* ---- a long chain: root -> 0 -> 1 -> ... -> n-1 ---- */

static void chain_source(void *ud, uint32_t v, hf_edge_emit emit, void *ectx)
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
    uint64_t *s = g_new(uint64_t, n + 1);
    uint64_t total = 0;
    for (uint32_t v = 0; v < n; v++)
        total += s[v] = v % 7 + 1;
    result r;
    run_all(&r, n, chain_source, &n, s);
    g_free(s);
    assert_int_equal(r.reached, n);
    assert_int_equal(r.idom[0], n);
    for (uint32_t v = 1; v < n; v++)
        if (r.idom[v] != v - 1 || r.parent[v] != v - 1 || r.order[v] != v)
            fail_msg("node %u: idom %u parent %u order %u", v, r.idom[v], r.parent[v], r.order[v]);
    assert_true(r.retained[0] == total);
    assert_true(r.retained[n] == total);
    assert_true(r.retained[n - 1] == (n - 1) % 7 + 1);
    assert_int_equal(hf_graph_depth(r.parent, n, n - 1), n);
    assert_int_equal(hf_csr_degree(&r.kids, 5), 1);
    assert_int_equal(r.kids.dst[r.kids.off[5]], 6);
    result_free(&r);
}

/* ---- the brute force, from the definitions ---- */

enum { MAXN = 41 }; /* real nodes + the virtual root */

typedef struct {
    uint32_t n;
    bool adj[MAXN][MAXN];
} small;

/* Nodes reachable from the virtual root with node cut removed. */
static void reach_without(const small *g, uint32_t cut, bool *seen)
{
    uint32_t stack[MAXN], top = 0;
    memset(seen, 0, MAXN);
    if (cut == g->n)
        return;
    seen[g->n] = true;
    stack[top++] = g->n;
    while (top) {
        uint32_t v = stack[--top];
        for (uint32_t w = 0; w <= g->n; w++)
            if (g->adj[v][w] && !seen[w] && w != cut) {
                seen[w] = true;
                stack[top++] = w;
            }
    }
}

typedef struct {
    bool reach[MAXN];
    bool dom[MAXN][MAXN];   /* dom[d][x]: d dominates x (reflexive) */
    uint32_t idom[MAXN];
    uint64_t retained[MAXN];
    uint32_t dist[MAXN];    /* edges on a shortest path from the root */
} brute;

static void brute_force(const small *g, const uint64_t *shallow, brute *b)
{
    uint32_t n = g->n;
    reach_without(g, HF_NONE, b->reach);
    for (uint32_t d = 0; d <= n; d++) {
        bool cut[MAXN];
        reach_without(g, d, cut);
        for (uint32_t x = 0; x <= n; x++)
            b->dom[d][x] = b->reach[x] && b->reach[d] && (x == d || !cut[x]);
    }
    for (uint32_t x = 0; x < n; x++) {
        b->idom[x] = HF_NONE;
        if (!b->reach[x])
            continue;
        /* the strict dominator that every other strict dominator dominates */
        for (uint32_t d = 0; d <= n; d++) {
            if (d == x || !b->dom[d][x])
                continue;
            bool closest = true;
            for (uint32_t o = 0; o <= n; o++)
                if (o != x && o != d && b->dom[o][x] && !b->dom[o][d])
                    closest = false;
            if (closest) {
                assert_int_equal(b->idom[x], HF_NONE); /* unique */
                b->idom[x] = d;
            }
        }
        assert_int_not_equal(b->idom[x], HF_NONE);
    }
    for (uint32_t v = 0; v <= n; v++) {
        b->retained[v] = 0;
        for (uint32_t x = 0; x < n; x++)
            if (b->dom[v][x])
                b->retained[v] += shallow[x];
    }
    /* Bellman-Ford with unit weights */
    for (uint32_t v = 0; v <= n; v++)
        b->dist[v] = HF_NONE;
    b->dist[n] = 0;
    for (uint32_t round = 0; round <= n; round++)
        for (uint32_t u = 0; u <= n; u++)
            for (uint32_t w = 0; w <= n; w++)
                if (g->adj[u][w] && b->dist[u] != HF_NONE && b->dist[u] + 1 < b->dist[w])
                    b->dist[w] = b->dist[u] + 1;
}

static bool kid_ok(const uint64_t *ret, uint32_t a, uint32_t b)
{
    return ret[a] > ret[b] || (ret[a] == ret[b] && a < b);
}

static void check_against(const result *r, const small *g, const brute *b)
{
    uint32_t n = g->n;
    for (uint32_t v = 0; v < n; v++) {
        assert_int_equal(r->idom[v], b->idom[v]);
        assert_true(r->retained[v] == b->retained[v]);
        if (!b->reach[v]) {
            assert_int_equal(r->parent[v], HF_NONE);
            continue;
        }
        assert_true(r->parent[v] <= n);
        assert_true(g->adj[r->parent[v]][v]); /* the path uses real edges */
        assert_int_equal(hf_graph_depth(r->parent, n, v), b->dist[v]);
    }
    assert_true(r->retained[n] == b->retained[n]);
    check_order(r);
    /* children: exactly the nodes whose idom is v, in the promised order */
    for (uint32_t v = 0; v <= n; v++) {
        uint32_t want = 0;
        for (uint32_t x = 0; x < n; x++)
            want += b->idom[x] == v;
        assert_int_equal(hf_csr_degree(&r->kids, v), want);
        for (uint32_t k = r->kids.off[v]; k < r->kids.off[v + 1]; k++) {
            assert_int_equal(b->idom[r->kids.dst[k]], v);
            if (k > r->kids.off[v])
                assert_true(kid_ok(r->retained, r->kids.dst[k - 1], r->kids.dst[k]));
        }
    }
}

static void small_source(void *ud, uint32_t v, hf_edge_emit emit, void *ectx)
{
    const small *g = ud;
    for (uint32_t w = 0; w <= g->n; w++)
        if (g->adj[v][w]) {
            emit(ectx, w);
            if ((v * 31 + w) % 5 == 0)
                emit(ectx, w); /* some duplicate edges too */
        }
}

static void test_random_against_brute_force(void **state)
{
    GRand *rnd = g_rand_new_with_seed(20240611);
    for (int round = 0; round < 300; round++) {
        small *g = g_new0(small, 1);
        uint32_t n = g_rand_int_range(rnd, 2, MAXN);
        g->n = n;
        double density = g_rand_double_range(rnd, 0.02, 0.25);
        for (uint32_t v = 0; v < n; v++)
            for (uint32_t w = 0; w <= n; w++)
                g->adj[v][w] = g_rand_double(rnd) < (w == n ? 0.01 : density);
        uint32_t roots = g_rand_int_range(rnd, 1, 4);
        for (uint32_t k = 0; k < roots; k++)
            g->adj[n][g_rand_int_range(rnd, 0, n)] = true;
        uint64_t shallow[MAXN];
        for (uint32_t v = 0; v <= n; v++)
            shallow[v] = g_rand_int_range(rnd, 0, 1000);
        brute *b = g_new(brute, 1);
        brute_force(g, shallow, b);
        result r;
        run_all(&r, n, small_source, g, shallow);
        check_against(&r, g, b);
        result_free(&r);
        g_free(b);
        g_free(g);
    }
    g_rand_free(rnd);
}

/* ---- the dominator tree's order, transpose, builder failures ---- */

static void test_children_order(void **state)
{
    /* root -> 0 -> 1..4; 1 and 3 tie, 2 and 4 tie */
    static const uint32_t e[][2] = {{5, 0}, {0, 3}, {0, 1}, {0, 4}, {0, 2}};
    static const uint64_t s[6] = {1, 5, 10, 5, 10, 0};
    static const uint32_t want[4] = {2, 4, 1, 3};
    result r;
    run_list(&r, 5, e, G_N_ELEMENTS(e), s);
    assert_int_equal(hf_csr_degree(&r.kids, 0), 4);
    assert_memory_equal(r.kids.dst + r.kids.off[0], want, sizeof want);
    assert_int_equal(r.kids.dst[r.kids.off[5]], 0);
    result_free(&r);

    /* many children with few distinct sizes: the qsort path */
    uint32_t n = 500;
    uint64_t *sz = g_new(uint64_t, n + 1);
    uint32_t *idom = g_new(uint32_t, n + 1);
    for (uint32_t v = 0; v < n; v++) {
        idom[v] = n;
        sz[v] = (v * 7919u) % 13;
    }
    idom[n] = n;
    hf_csr k;
    assert_true(hf_dom_children(n, idom, sz, &k));
    assert_int_equal(hf_csr_degree(&k, n), n);
    for (uint32_t i = 1; i < n; i++)
        assert_true(kid_ok(sz, k.dst[i - 1], k.dst[i]));
    hf_csr_free(&k);
    g_free(sz);
    g_free(idom);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

typedef struct {
    uint32_t n;
    uint32_t **out;
    uint32_t *deg;
} adjlist;

static void adj_source(void *ud, uint32_t v, hf_edge_emit emit, void *ectx)
{
    const adjlist *g = ud;
    for (uint32_t k = 0; k < g->deg[v]; k++)
        emit(ectx, g->out[v][k]);
}

static void test_transpose_random(void **state)
{
    GRand *rnd = g_rand_new_with_seed(7);
    uint32_t n = 1000;
    adjlist g = {n, g_new0(uint32_t *, n + 1), g_new0(uint32_t, n + 1)};
    GArray **naive = g_new(GArray *, n + 1);
    for (uint32_t v = 0; v <= n; v++)
        naive[v] = g_array_new(false, false, sizeof(uint32_t));
    for (uint32_t v = 0; v <= n; v++) {
        g.deg[v] = g_rand_int_range(rnd, 0, 12);
        g.out[v] = g_new(uint32_t, g.deg[v] + 1);
        for (uint32_t k = 0; k < g.deg[v]; k++) {
            uint32_t w = g_rand_int_range(rnd, 0, n + 1);
            g.out[v][k] = w;
            g_array_append_val(naive[w], v);
        }
    }
    hf_csr succ, pred;
    assert_true(hf_csr_build(&succ, n, adj_source, &g));
    assert_true(hf_csr_transpose(&succ, &pred));
    assert_int_equal(pred.n, n);
    assert_int_equal(hf_csr_edges(&pred), hf_csr_edges(&succ));
    for (uint32_t v = 0; v <= n; v++) {
        GArray *a = naive[v];
        assert_int_equal(hf_csr_degree(&pred, v), a->len);
        if (a->len) { /* an empty GArray's data is NULL */
            uint32_t *got = g_memdup2(pred.dst + pred.off[v], a->len * sizeof *got);
            qsort(got, a->len, sizeof *got, cmp_u32);
            qsort(a->data, a->len, sizeof(uint32_t), cmp_u32);
            assert_memory_equal(got, a->data, a->len * sizeof *got);
            g_free(got);
        }
        g_array_free(a, true);
        g_free(g.out[v]);
    }
    hf_csr_free(&succ);
    hf_csr_free(&pred);
    g_free(naive);
    g_free(g.out);
    g_free(g.deg);
    g_rand_free(rnd);
}

/* A source that misbehaves on its second pass over node 1, or points an
 * edge past the virtual root. */
typedef struct {
    int mode, calls[3];
} bad_src;

static void bad_source(void *ud, uint32_t v, hf_edge_emit emit, void *ectx)
{
    bad_src *b = ud;
    bool second = b->calls[v]++ > 0;
    if (v == 2)
        emit(ectx, 0);
    if (v == 0)
        emit(ectx, b->mode == 3 ? 3 : 1);
    if (v == 1 && second && b->mode == 1)
        emit(ectx, 0); /* one more than counted */
    if (v == 1 && !(second && b->mode == 2))
        emit(ectx, 0); /* mode 2: one fewer than counted */
}

static void test_build_rejects(void **state)
{
    for (int mode = 0; mode <= 3; mode++) {
        bad_src b = {mode, {0}};
        hf_csr g;
        bool ok = hf_csr_build(&g, 2, bad_source, &b);
        assert_int_equal(ok, mode == 0);
        if (ok) {
            assert_int_equal(hf_csr_edges(&g), 3);
            assert_int_equal(b.calls[0], 2);
            assert_int_equal(b.calls[2], 2);
        } else {
            assert_null(g.off);
            assert_null(g.dst);
        }
        hf_csr_free(&g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lengauer_tarjan_1979),
        cmocka_unit_test(test_chk_figure2),
        cmocka_unit_test(test_chk_figure4),
        cmocka_unit_test(test_diamond),
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_two_roots),
        cmocka_unit_test(test_self_loops),
        cmocka_unit_test(test_duplicate_edges),
        cmocka_unit_test(test_unreachable),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_chain_ten_million),
        cmocka_unit_test(test_random_against_brute_force),
        cmocka_unit_test(test_children_order),
        cmocka_unit_test(test_transpose_random),
        cmocka_unit_test(test_build_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
