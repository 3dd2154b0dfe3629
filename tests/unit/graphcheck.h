/*
 * graphcheck.h - test_graph.c's oracle: a graph as adjacency lists, run
 * through graph.h's pipeline (CSR, transpose, BFS parents, dominators,
 * retained sizes, the dominator tree), and checked against a brute force
 * written from the definitions (d dominates x iff removing d cuts x off
 * from the virtual root), which shares no code with the implementation.
 * Static functions: include it in one test file.
 */
#ifndef HF_TEST_GRAPHCHECK_H
#define HF_TEST_GRAPHCHECK_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "decoders/core/workmem.h"
#include "decoders/heap/graph.h"

/* ---- graphs as adjacency lists, and everything computed on one ---- */

typedef struct {
    uint32_t n;
    GArray **out; /* n+1 lists of uint32_t; out[n] are the GC roots */
} graph;

static graph graph_new(uint32_t n)
{
    graph g = {n, g_new(GArray *, n + 1)};
    for (uint32_t v = 0; v <= n; v++)
        g.out[v] = g_array_new(false, false, sizeof(uint32_t));
    return g;
}

static void graph_add(graph *g, uint32_t from, uint32_t to)
{
    g_array_append_val(g->out[from], to);
}

static void graph_free(graph *g)
{
    for (uint32_t v = 0; v <= g->n; v++)
        g_array_free(g->out[v], true);
    g_free(g->out);
}

static bool has_edge(const graph *g, uint32_t from, uint32_t to)
{
    guint k = 0;
    while (k < g->out[from]->len && g_array_index(g->out[from], uint32_t, k) != to)
        k++;
    return k < g->out[from]->len;
}

static void graph_source(void *ud, uint32_t v, bool counting, hf_edge_emit emit, void *ectx)
{
    const graph *g = ud;
    for (guint k = 0; k < g->out[v]->len; k++)
        emit(ectx, g_array_index(g->out[v], uint32_t, k));
}

typedef struct {
    uint32_t n, reached;
    hf_csr succ, pred, kids;
    uint32_t *idom, *order, *parent;
    uint64_t *retained;
    hf_parents packed;
} result;

/* Retained sizes and children with their arrays in files and room in
 * RAM for the copies the tail makes of them (graph.c, ram_copy): the same
 * arrays as in RAM. */
static void tail_in_files(const result *r, const uint64_t *shallow)
{
    uint32_t n = r->n;
    size_t budget = 32 * ((size_t)n + 3), bytes = ((size_t)n + 1) * sizeof(uint64_t);
    char *dir = g_dir_make_tmp("test_graph.XXXXXX", NULL);
    hf_work *w = hf_work_begin(&(hf_work_opt){HF_WORK_LIMIT, budget}, dir);
    void *filler = hf_work_alloc(budget + 1); /* past the budget: a file */
    uint64_t *retained = hf_work_alloc_seq(bytes);
    assert_int_equal(hf_work_in_files(), budget + 1 + bytes);
    hf_dom_retained(n, r->idom, r->order, r->reached, shallow, retained);
    hf_csr kids;
    assert_true(hf_dom_children(n, r->idom, retained, &kids));
    /* the kept children in a file; their copy was RAM */
    assert_int_equal(hf_work_in_files(), budget + 1 + bytes + MAX(hf_csr_edges(&kids), 1) * 4);
    hf_work_end(w, NULL);
    assert_memory_equal(retained, r->retained, bytes);
    assert_memory_equal(kids.off, r->kids.off, ((size_t)n + 2) * sizeof *kids.off);
    assert_memory_equal(kids.dst, r->kids.dst, hf_csr_edges(&kids) * sizeof *kids.dst);
    hf_csr_free(&kids);
    hf_work_free(retained);
    hf_work_free(filler);
    assert_int_equal(g_rmdir(dir), 0);
    g_free(dir);
}

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
    assert_true(hf_dom_compute(&r->succ, r->idom, r->order, &r->reached));
    hf_dom_retained(n, r->idom, r->order, r->reached, shallow, r->retained);
    assert_true(hf_dom_children(n, r->idom, r->retained, &r->kids));
    if (n <= 5000 && !hf_work_current()) /* the RAM round opens no hf_work of its own */
        tail_in_files(r, shallow);
    /* without its offsets, each node's children are found again by idom */
    for (uint32_t v = 0; v <= n + 1; v++) {
        uint32_t a, b;
        hf_dom_kids_of(r->kids.dst, hf_csr_edges(&r->kids), r->idom, n, v, &a, &b);
        if (v > n) {
            assert_int_equal(b - a, 0);
            continue;
        }
        assert_int_equal(a, r->kids.off[v]);
        assert_int_equal(b, r->kids.off[v + 1]);
    }
    assert_true(hf_graph_bfs(&r->succ, r->parent));
    /* packed against pred, the parents and depths are the same */
    assert_true(hf_parents_pack(r->parent, &r->pred, &r->packed));
    for (uint32_t v = 0; v <= n; v++) {
        assert_int_equal(hf_parents_get(&r->packed, &r->pred, v), r->parent[v]);
        if (n <= 5000 || v % (n / 64) == 0) /* depth is O(path): not all of a long chain */
            assert_int_equal(hf_parents_depth(&r->packed, &r->pred, v),
                             hf_graph_depth(r->parent, n, v));
    }
    /* the variant that frees succ on the way gives the same answer */
    hf_csr succ2;
    uint32_t *idom2 = g_new(uint32_t, n + 1), *order2 = g_new(uint32_t, n + 1), reached2;
    assert_true(hf_csr_build(&succ2, n, src, ud));
    assert_true(hf_dom_compute_free_succ(&succ2, idom2, order2, &reached2));
    assert_null(succ2.off);
    assert_int_equal(reached2, r->reached);
    assert_memory_equal(idom2, r->idom, (n + 1) * sizeof *idom2);
    assert_memory_equal(order2, r->order, r->reached * sizeof *order2);
    /* and so does the one that reads the predecessors by node */
    memset(idom2, 0, (n + 1) * sizeof *idom2);
    assert_true(hf_dom_compute_pred(&r->succ, NULL, hf_pred_given, &r->pred, idom2, order2,
                                    &reached2));
    assert_int_equal(reached2, r->reached);
    assert_memory_equal(idom2, r->idom, (n + 1) * sizeof *idom2);
    assert_memory_equal(order2, r->order, r->reached * sizeof *order2);
    g_free(idom2);
    g_free(order2);
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
    hf_parents_free(&r->packed);
}

/* ---- the brute force, from the definitions ---- */

typedef struct {
    uint32_t n, words;
    uint64_t *dom;      /* row d, bit x: d dominates x (reflexive) */
    uint64_t *retained;
    uint32_t *idom, *dist;
    bool *reach;
} brute;

static bool dominates(const brute *b, uint32_t d, uint32_t x)
{
    return b->dom[(size_t)d * b->words + x / 64] >> (x % 64) & 1;
}

/* Nodes reachable from the virtual root when node cut is removed. */
static void reach_without(const graph *g, uint32_t cut, bool *seen, uint32_t *queue)
{
    uint32_t head = 0, tail = 0;
    memset(seen, 0, g->n + 1);
    if (cut == g->n)
        return;
    seen[g->n] = true;
    queue[tail++] = g->n;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (guint k = 0; k < g->out[v]->len; k++) {
            uint32_t w = g_array_index(g->out[v], uint32_t, k);
            if (!seen[w] && w != cut) {
                seen[w] = true;
                queue[tail++] = w;
            }
        }
    }
}

static void brute_force(const graph *g, const uint64_t *shallow, brute *b)
{
    uint32_t n = g->n, *queue = g_new(uint32_t, n + 1);
    bool *cut = g_new(bool, n + 1);
    *b = (brute){.n = n, .words = (n + 64) / 64};
    b->dom = g_new0(uint64_t, (size_t)(n + 1) * (b->words + 1 + 1));
    b->retained = b->dom + (size_t)(n + 1) * b->words; /* one block, freed as dom */
    b->idom = (uint32_t *)(b->retained + n + 1);
    b->dist = b->idom + n + 1;
    b->reach = g_new(bool, n + 1);
    reach_without(g, HF_NONE, b->reach, queue);
    for (uint32_t d = 0; d <= n; d++) {
        reach_without(g, d, cut, queue);
        for (uint32_t x = 0; x <= n; x++)
            if (b->reach[x] && b->reach[d] && (x == d || !cut[x]))
                b->dom[(size_t)d * b->words + x / 64] |= 1ull << (x % 64);
    }
    /* The strict dominators of x form a chain; the immediate one is
     * dominated by all the others, so it is the one with most dominators. */
    uint32_t *ndom = g_new0(uint32_t, n + 1);
    for (uint32_t d = 0; d <= n; d++)
        for (uint32_t x = 0; x <= n; x++)
            ndom[x] += dominates(b, d, x);
    for (uint32_t x = 0; x < n; x++) {
        b->idom[x] = HF_NONE;
        for (uint32_t d = 0; d <= n && b->reach[x]; d++)
            if (d != x && dominates(b, d, x) && (b->idom[x] == HF_NONE || ndom[d] > ndom[b->idom[x]]))
                b->idom[x] = d;
        for (uint32_t o = 0; o <= n && b->reach[x]; o++) /* check the chain */
            if (o != x && dominates(b, o, x))
                assert_true(dominates(b, o, b->idom[x]));
    }
    for (uint32_t v = 0; v <= n; v++)
        for (uint32_t x = 0; x < n; x++)
            if (dominates(b, v, x))
                b->retained[v] += shallow[x];
    /* Bellman-Ford with unit weights */
    memset(b->dist, 0xff, (n + 1) * sizeof *b->dist);
    b->dist[n] = 0;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t u = 0; u <= n; u++)
            for (guint k = 0; b->dist[u] != HF_NONE && k < g->out[u]->len; k++) {
                uint32_t w = g_array_index(g->out[u], uint32_t, k);
                if (b->dist[u] + 1 < b->dist[w]) {
                    b->dist[w] = b->dist[u] + 1;
                    changed = true;
                }
            }
    }
    g_free(ndom);
    g_free(cut);
    g_free(queue);
}

static bool kid_ok(const uint64_t *ret, uint32_t a, uint32_t b)
{
    return ret[a] > ret[b] || (ret[a] == ret[b] && a < b);
}

/* Runs everything on g and compares with the brute force. */
static void check_graph(const graph *g, const uint64_t *shallow, result *r)
{
    uint32_t n = g->n;
    brute b;
    brute_force(g, shallow, &b);
    run_all(r, n, graph_source, (void *)g, shallow);
    for (uint32_t v = 0; v < n; v++) {
        assert_int_equal(r->idom[v], b.idom[v]);
        assert_true(r->retained[v] == b.retained[v]);
        if (!b.reach[v]) {
            assert_int_equal(r->parent[v], HF_NONE);
            continue;
        }
        assert_true(r->parent[v] <= n && has_edge(g, r->parent[v], v));
        assert_int_equal(hf_graph_depth(r->parent, n, v), b.dist[v]);
    }
    assert_int_equal(r->idom[n], n);
    assert_true(r->retained[n] == b.retained[n]);
    /* order holds each reachable node once, after its idom */
    uint32_t *pos = g_new(uint32_t, n + 1);
    memset(pos, 0xff, (n + 1) * sizeof *pos);
    for (uint32_t k = 0; k < r->reached; k++) {
        assert_true(r->order[k] < n && pos[r->order[k]] == HF_NONE);
        pos[r->order[k]] = k;
    }
    for (uint32_t v = 0; v < n; v++) {
        assert_int_equal(b.reach[v], pos[v] != HF_NONE);
        if (b.reach[v] && r->idom[v] != n)
            assert_true(pos[r->idom[v]] < pos[v]);
    }
    g_free(pos);
    /* children: exactly the nodes whose idom is v, in the promised order */
    for (uint32_t v = 0; v <= n; v++) {
        uint32_t want = 0;
        for (uint32_t x = 0; x < n; x++)
            want += b.idom[x] == v;
        assert_int_equal(hf_csr_degree(&r->kids, v), want);
        for (uint32_t k = r->kids.off[v]; k < r->kids.off[v + 1]; k++) {
            assert_int_equal(b.idom[r->kids.dst[k]], v);
            if (k > r->kids.off[v])
                assert_true(kid_ok(r->retained, r->kids.dst[k - 1], r->kids.dst[k]));
        }
    }
    g_free(b.dom);
    g_free(b.reach);
}

/* A textbook graph: hand-written idoms, then the brute force too. */
static void textbook(result *r, uint32_t n, const uint32_t (*e)[2], size_t m, const uint32_t *want,
                     const uint64_t *shallow)
{
    uint64_t ones[64];
    graph g = graph_new(n);
    for (size_t k = 0; k < m; k++)
        graph_add(&g, e[k][0], e[k][1]);
    for (int k = 0; k < 64; k++)
        ones[k] = 1;
    check_graph(&g, shallow ? shallow : ones, r);
    graph_free(&g);
    for (uint32_t v = 0; v < n; v++)
        assert_int_equal(r->idom[v], want[v]);
}

#endif
