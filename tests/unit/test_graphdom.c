/* Unit tests for decoders/heap/graphdom.c's predecessors in DFS preorder
 * numbering (hf_csr_pred_renumbered, in graphsort.c beside the transpose it
 * shares its sort with): against a plain computation from adjacency
 * lists, in one range and in ranges of destinations of many sizes, in
 * RAM and in files; and the dominators from the predecessors by node
 * (hf_dom_compute_pred) against those from the renumbered ones.  The
 * dominators themselves are checked against a brute force by
 * test_graph.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include <glib.h>

#include "decoders/core/cancel.h"
#include "decoders/heap/graph.h"
#include "decoders/heap/graphmem.h"
#include "tests/unit/helpers.h"

typedef struct {
    uint32_t n;
    GArray **out; /* n+1 lists of uint32_t */
} lists;

static void lists_source(void *ud, uint32_t v, bool counting, hf_edge_emit emit, void *ectx)
{
    const lists *g = ud;
    for (guint k = 0; k < g->out[v]->len; k++)
        emit(ectx, g_array_index(g->out[v], uint32_t, k));
}

static lists random_lists(GRand *rnd, uint32_t n, uint32_t max_degree)
{
    lists g = {n, g_new(GArray *, n + 1)};
    for (uint32_t v = 0; v <= n; v++) {
        g.out[v] = g_array_new(false, false, sizeof(uint32_t));
        for (uint32_t k = g_rand_int_range(rnd, 0, max_degree + 1); k > 0; k--) {
            /* half near v (as in heaps), half anywhere, duplicates and all */
            uint32_t w = g_rand_boolean(rnd) ? (uint32_t)g_rand_int_range(rnd, 0, n + 1)
                                             : (v + g_rand_int_range(rnd, 0, 5)) % (n + 1);
            g_array_append_val(g.out[v], w);
        }
    }
    return g;
}

static void lists_free(lists *g)
{
    for (uint32_t v = 0; v <= g->n; v++)
        g_array_free(g->out[v], true);
    g_free(g->out);
}

/* A numbering of 0..n: a random permutation of count numbers, the other
 * nodes HF_NONE. */
static uint32_t *random_numbers(GRand *rnd, uint32_t n, uint32_t *count)
{
    uint32_t *num = g_new(uint32_t, n + 1);
    *count = 0;
    for (uint32_t v = 0; v <= n; v++)
        num[v] = g_rand_int_range(rnd, 0, 5) == 0 ? HF_NONE : (*count)++;
    for (uint32_t v = n; v > 0; v--) { /* shuffle, HF_NONE included */
        uint32_t u = g_rand_int_range(rnd, 0, v + 1), t = num[u];
        num[u] = num[v];
        num[v] = t;
    }
    return num;
}

/* The definition: list i holds num[v] of every edge v -> w with num[w] =
 * i, neither left out, in node order of v. */
static void check_renumbered(const lists *g, const uint32_t *num, uint32_t count,
                             const hf_csr *got)
{
    GArray **want = g_new(GArray *, count);
    for (uint32_t i = 0; i < count; i++)
        want[i] = g_array_new(false, false, sizeof(uint32_t));
    for (uint32_t v = 0; v <= g->n; v++)
        for (guint k = 0; num[v] != HF_NONE && k < g->out[v]->len; k++) {
            uint32_t w = g_array_index(g->out[v], uint32_t, k);
            if (num[w] != HF_NONE)
                g_array_append_val(want[num[w]], num[v]);
        }
    assert_int_equal(got->n, count - 1);
    assert_int_equal(got->off[0], 0);
    for (uint32_t i = 0; i < count; i++) {
        assert_int_equal(hf_csr_degree(got, i), want[i]->len);
        if (want[i]->len)
            assert_memory_equal(got->dst + got->off[i], want[i]->data,
                                want[i]->len * sizeof(uint32_t));
        g_array_free(want[i], true);
    }
    g_free(want);
}

/* part, freed, is one byte for byte. */
static void assert_same_csr(hf_csr *part, const hf_csr *one)
{
    assert_int_equal(part->n, one->n);
    assert_memory_equal(part->off, one->off, (one->n + 2) * sizeof *one->off);
    assert_memory_equal(part->dst, one->dst, hf_csr_edges(one) * sizeof *one->dst);
    hf_csr_free(part);
}

static void test_renumbered_random(void **state)
{
    GRand *rnd = g_rand_new_with_seed(26);
    for (int round = 0; round < 40; round++) {
        uint32_t n = g_rand_int_range(rnd, 1, 3000), count;
        lists g = random_lists(rnd, n, round % 2 ? 3 : 12);
        uint32_t *num = random_numbers(rnd, n, &count);
        hf_csr succ, one, part;
        assert_true(hf_csr_build(&succ, n, lists_source, &g));
        assert_true(hf_csr_pred_renumbered(&succ, num, count, 0, &one));
        check_renumbered(&g, num, count, &one);
        /* in ranges of one number, of a few, of sizes not dividing count:
         * the same CSR */
        for (size_t chunk = 1; chunk < 40000; chunk = chunk * 7 + 3) {
            assert_true(hf_csr_pred_renumbered(&succ, num, count, chunk, &part));
            assert_same_csr(&part, &one);
        }
        /* on two threads (in RAM: the sort too, by halves of the numbers) */
        g_setenv("HEAPFS_RETAINED_THREADS", "2", TRUE);
        assert_true(hf_csr_pred_renumbered(&succ, num, count, 0, &part));
        g_unsetenv("HEAPFS_RETAINED_THREADS");
        assert_same_csr(&part, &one);
        hf_csr_free(&one);
        hf_csr_free(&succ);
        lists_free(&g);
        g_free(num);
    }
    g_rand_free(rnd);
}

/* The numbering the dominator pass uses: DFS preorder.  Its predecessor
 * lists hold each predecessor's number once per edge, and the dominators
 * computed from succ alone, with succ kept or overwritten, agree. */
static void test_preorder_numbers(void **state)
{
    GRand *rnd = g_rand_new_with_seed(600);
    uint32_t n = 5000, reached, reached2;
    lists g = random_lists(rnd, n, 4);
    hf_csr succ, succ2;
    assert_true(hf_csr_build(&succ, n, lists_source, &g));
    assert_true(hf_csr_build(&succ2, n, lists_source, &g));
    uint32_t *idom = g_new(uint32_t, n + 1), *order = g_new(uint32_t, n + 1);
    uint32_t *idom2 = g_new(uint32_t, n + 1), *order2 = g_new(uint32_t, n + 1);
    assert_true(hf_dom_compute(&succ, idom, order, &reached));
    g_setenv("HEAPFS_RETAINED_THREADS", "2", TRUE); /* in place, on two threads */
    assert_true(hf_dom_compute_free_succ(&succ2, idom2, order2, &reached2));
    g_unsetenv("HEAPFS_RETAINED_THREADS");
    assert_null(succ2.dst);
    assert_int_equal(reached, reached2);
    assert_memory_equal(idom, idom2, (n + 1) * sizeof *idom);
    assert_memory_equal(order, order2, reached * sizeof *order);
    uint32_t *num = g_new(uint32_t, n + 1);
    memset(num, 0xff, (n + 1) * sizeof *num);
    num[n] = 0;
    for (uint32_t i = 0; i < reached; i++)
        num[order[i]] = i + 1;
    hf_csr pred;
    assert_true(hf_csr_pred_renumbered(&succ, num, reached + 1, 0, &pred));
    check_renumbered(&g, num, reached + 1, &pred);
    /* every reachable node but the root has its DFS parent, numbered
     * below it, among its predecessors, and its idom is numbered below */
    for (uint32_t i = 1; i <= reached; i++) {
        bool below = false;
        for (uint32_t e = pred.off[i]; e < pred.off[i + 1]; e++)
            below |= pred.dst[e] < i;
        assert_true(below);
        assert_true(num[idom[order[i - 1]]] < i);
    }
    hf_csr_free(&pred);
    hf_csr_free(&succ);
    lists_free(&g);
    g_free(num);
    g_free(idom);
    g_free(order);
    g_free(idom2);
    g_free(order2);
    g_rand_free(rnd);
}

/* What the dominator pass renumbers (hf_pred_renumber): the same lists
 * but for the edges into a child of the virtual root, which only the
 * root's own keep, in whatever numbering. */
static void test_renumbered_without_root_children(void **state)
{
    GRand *rnd = g_rand_new_with_seed(44);
    for (int round = 0; round < 20; round++) {
        uint32_t n = g_rand_int_range(rnd, 1, 3000), count;
        lists g = random_lists(rnd, n, 6);
        for (uint32_t k = g_rand_int_range(rnd, 0, n); k > 0; k--) /* many root children */
            g_array_append_vals(g.out[n], &(uint32_t){g_rand_int_range(rnd, 0, n + 1)}, 1);
        uint32_t *num = random_numbers(rnd, n, &count);
        hf_csr succ, got;
        assert_true(hf_csr_build(&succ, n, lists_source, &g));
        assert_true(hf_pred_renumber(&succ, NULL, num, count, round % 3 ? 0 : 64, &got));
        bool *kid = g_new0(bool, n + 1);
        for (guint k = 0; k < g.out[n]->len; k++)
            kid[g_array_index(g.out[n], uint32_t, k)] = true;
        for (uint32_t v = 0; v < n; v++)
            for (guint k = g.out[v]->len; k-- > 0;)
                if (kid[g_array_index(g.out[v], uint32_t, k)])
                    g_array_remove_index(g.out[v], k);
        check_renumbered(&g, num, count, &got);
        hf_csr_free(&got);
        hf_csr_free(&succ);
        lists_free(&g);
        g_free(kid);
        g_free(num);
    }
    g_rand_free(rnd);
}

/* The dominators from the predecessors by node agree with those from the
 * renumbered ones on graphs with many root children (whose lists the
 * pass by node cuts short where the root ends them) and unreached
 * referrers; a wait that gives up makes the pass give up. */
static void test_by_node(void **state)
{
    GRand *rnd = g_rand_new_with_seed(45);
    for (int round = 0; round < 40; round++) {
        uint32_t n = g_rand_int_range(rnd, 1, 3000), reached, reached2;
        lists g = random_lists(rnd, n, round % 2 ? 2 : 6);
        for (uint32_t k = g_rand_int_range(rnd, 0, n / 4 + 1); k > 0; k--)
            g_array_append_vals(g.out[n], &(uint32_t){g_rand_int_range(rnd, 0, n + 1)}, 1);
        hf_csr succ, pred;
        assert_true(hf_csr_build(&succ, n, lists_source, &g));
        assert_true(hf_csr_transpose(&succ, &pred));
        uint32_t *idom = g_new(uint32_t, n + 1), *order = g_new(uint32_t, n + 1);
        uint32_t *idom2 = g_new(uint32_t, n + 1), *order2 = g_new(uint32_t, n + 1);
        assert_true(hf_dom_compute(&succ, idom, order, &reached));
        assert_true(
            hf_dom_compute_pred(&succ, NULL, hf_pred_given, &pred, idom2, order2, &reached2));
        assert_int_equal(reached, reached2);
        assert_memory_equal(idom, idom2, (n + 1) * sizeof *idom);
        assert_memory_equal(order, order2, reached * sizeof *order);
        if (round == 0)
            assert_false(
                hf_dom_compute_pred(&succ, NULL, hf_pred_given, NULL, idom2, order2, &reached2));
        hf_csr_free(&pred);
        hf_csr_free(&succ);
        lists_free(&g);
        g_free(idom);
        g_free(order);
        g_free(idom2);
        g_free(order2);
    }
    g_rand_free(rnd);
}

static bool cancel_now(void *ud)
{
    return true;
}

static void test_renumbered_cancelled(void **state)
{
    GRand *rnd = g_rand_new_with_seed(1);
    uint32_t n = 200000, count;
    lists g = random_lists(rnd, n, 2);
    uint32_t *num = random_numbers(rnd, n, &count);
    hf_csr succ, out;
    assert_true(hf_csr_build(&succ, n, lists_source, &g));
    hf_cancel_when(cancel_now, NULL);
    assert_false(hf_csr_pred_renumbered(&succ, num, count, 0, &out));
    assert_null(out.off);
    hf_cancel_when(NULL, NULL);
    hf_csr_free(&succ);
    lists_free(&g);
    g_free(num);
    g_rand_free(rnd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_renumbered_random),
        cmocka_unit_test(test_preorder_numbers),
        cmocka_unit_test(test_renumbered_without_root_children),
        cmocka_unit_test(test_renumbered_cancelled),
        cmocka_unit_test(test_by_node),
    };
    return th_run_in_ram_and_files("graphdom", tests, sizeof tests / sizeof tests[0]);
}
