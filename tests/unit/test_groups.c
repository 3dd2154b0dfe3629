/* Unit tests for decoders/heap/groups.c: retained bytes of groups of
 * objects, each counted once, on dominator trees made by hand and at
 * random (against a walk up every node's dominators); groups of equal
 * objects among hashes that collide. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "decoders/heap/groups.h"

#include <glib.h>

typedef struct {
    uint32_t n;
    uint32_t *idom, *group;
    uint64_t *retained;
    hf_csr kids;
} tree;

static uint32_t group_of(void *ud, uint32_t v)
{
    return ((const tree *)ud)->group[v];
}

/* A tree of n nodes from idom (idom[v] < v, or n: the root) and shallow
 * sizes: retained sizes summed up, children made by graph.c. */
static void tree_make(tree *t, uint32_t n, const uint32_t *idom, const uint64_t *shallow,
                      const uint32_t *group)
{
    t->n = n;
    t->idom = g_new(uint32_t, n + 1);
    t->group = g_memdup2(group, sizeof *group * n);
    t->retained = g_new0(uint64_t, n + 1);
    memcpy(t->idom, idom, sizeof *idom * n);
    t->idom[n] = n;
    for (uint32_t v = n; v-- > 0;) { /* children come after their dominator */
        t->retained[v] += shallow[v];
        t->retained[idom[v]] += t->retained[v];
    }
    assert_true(hf_dom_children(n, t->idom, t->retained, &t->kids));
}

static void tree_free(tree *t)
{
    g_free(t->idom);
    g_free(t->group);
    g_free(t->retained);
    hf_csr_free(&t->kids);
}

/* The sums over the retained sizes as a mount keeps them (hf_size48). */
static void sums(tree *t, const uint32_t *parent, uint32_t n_groups, hf_group_sum *out)
{
    hf_size48 *kept = g_new(hf_size48, t->n + 1);
    for (uint32_t v = 0; v <= t->n; v++)
        hf_size48_set(kept, v, t->retained[v]);
    assert_true(hf_group_sums(t->kids.dst, hf_csr_edges(&t->kids), t->idom, t->n, kept,
                              group_of, t, parent, n_groups, out));
    g_free(kept);
}

static void assert_sum(const hf_group_sum *s, uint64_t retained, uint64_t objects,
                       uint64_t top_retained, uint64_t top_objects)
{
    assert_int_equal(s->retained, retained);
    assert_int_equal(s->objects, objects);
    assert_int_equal(s->top_retained, top_retained);
    assert_int_equal(s->top_objects, top_objects);
}

/*  root
 *   0 A (100)          an A under A and a B under B count no more
 *     1 B (60)
 *       2 A (50)
 *         3 B (20)
 *     4 C (30)
 *   5 B (40)
 *     6 A (10)          an A under a B: counts
 *   7 A (5)
 * Group D encloses A and C. */
enum { A, B, C, D };
static const uint32_t hand_idom[] = {8, 0, 1, 2, 0, 8, 5, 8};
static const uint64_t hand_shallow[] = {10, 10, 30, 20, 30, 30, 10, 5};
static const uint32_t hand_group[] = {A, B, A, B, C, B, A, A};

static void test_by_hand(void **state)
{
    tree t;
    tree_make(&t, 8, hand_idom, hand_shallow, hand_group);
    assert_int_equal(t.retained[8], 145);
    hf_group_sum s[4];
    sums(&t, NULL, 3, s);
    assert_sum(&s[A], 115, 3, 105, 2);
    assert_sum(&s[B], 100, 2, 40, 1);
    assert_sum(&s[C], 30, 1, 0, 0);
    const uint32_t parent[] = {D, HF_NONE, D, HF_NONE};
    sums(&t, parent, 4, s);
    assert_sum(&s[A], 115, 3, 105, 2);
    assert_sum(&s[C], 30, 1, 0, 0);
    assert_sum(&s[D], 115, 3, 105, 2); /* 4 is under 0; 6 is under a B only */
    tree_free(&t);
}

/* Nodes of no group count nowhere; groups of no node stay zero. */
static void test_none(void **state)
{
    const uint32_t group[] = {HF_NONE, 1, HF_NONE, 1, HF_NONE, HF_NONE, HF_NONE, HF_NONE};
    tree t;
    tree_make(&t, 8, hand_idom, hand_shallow, group);
    hf_group_sum s[3];
    sums(&t, NULL, 3, s);
    assert_sum(&s[0], 0, 0, 0, 0);
    assert_sum(&s[1], 60, 1, 0, 0);
    assert_sum(&s[2], 0, 0, 0, 0);
    tree_free(&t);
}

/* Random trees, groups and nesting against the definition: v counts in
 * group k when k is v's group or encloses it and no dominator of v does. */
static bool in_group(const uint32_t *parent, uint32_t g, uint32_t k)
{
    for (; g != HF_NONE; g = parent[g])
        if (g == k)
            return true;
    return false;
}

static void test_random(void **state)
{
    GRand *r = g_rand_new_with_seed(2024);
    for (int round = 0; round < 50; round++) {
        uint32_t n = (uint32_t)g_rand_int_range(r, 1, 400), ng = (uint32_t)g_rand_int_range(r, 1, 9);
        uint32_t *idom = g_new(uint32_t, n), *group = g_new(uint32_t, n), parent[9];
        uint64_t *shallow = g_new(uint64_t, n);
        for (uint32_t v = 0; v < n; v++) {
            idom[v] = v == 0 || g_rand_int_range(r, 0, 5) == 0 ? n : (uint32_t)g_rand_int_range(r, 0, (gint32)v);
            group[v] = (uint32_t)g_rand_int_range(r, 0, (gint32)ng);
            shallow[v] = (uint64_t)g_rand_int_range(r, 1, 1000);
        }
        for (uint32_t k = 0; k < ng; k++) /* enclosing groups have lower numbers */
            parent[k] = k == 0 || g_rand_boolean(r) ? HF_NONE : (uint32_t)g_rand_int_range(r, 0, (gint32)k);
        tree t;
        tree_make(&t, n, idom, shallow, group);
        hf_group_sum got[9], want[9];
        sums(&t, parent, ng, got);
        memset(want, 0, sizeof want);
        for (uint32_t v = 0; v < n; v++)
            for (uint32_t k = 0; k < ng; k++) {
                if (!in_group(parent, group[v], k))
                    continue;
                bool above = false;
                for (uint32_t u = idom[v]; u != n && !above; u = idom[u])
                    above = in_group(parent, group[u], k);
                if (above)
                    continue;
                want[k].retained += t.retained[v];
                want[k].objects++;
                if (idom[v] == n) {
                    want[k].top_retained += t.retained[v];
                    want[k].top_objects++;
                }
            }
        for (uint32_t k = 0; k < ng; k++)
            assert_sum(&got[k], want[k].retained, want[k].objects, want[k].top_retained,
                       want[k].top_objects);
        tree_free(&t);
        g_free(idom);
        g_free(group);
        g_free(shallow);
    }
    g_rand_free(r);
}

/* ---- groups of equal objects ---- */

/* Objects are values; the hash is the value mod 3, so unequal values
 * share runs; an object's bytes are its index + 1; value 0 cannot be read. */
typedef struct {
    const int *value;
    int x;
} eq_objs;

static bool eq_first(void *ud, uint32_t o)
{
    eq_objs *e = ud;
    e->x = e->value[o];
    return e->x != 0;
}

static bool eq_same(void *ud, uint32_t o, uint64_t *bytes)
{
    eq_objs *e = ud;
    *bytes = o + 1;
    return e->value[o] != 0 && e->value[o] == e->x;
}

static void test_equal_groups(void **state)
{
    /*                 0  1  2  3  4  5  6  7  8  9 */
    const int v[] = {7, 4, 7, 1, 4, 7, 0, 0, 9, 2};
    GArray *keys = g_array_new(FALSE, FALSE, sizeof(hf_equal_key));
    for (uint32_t o = G_N_ELEMENTS(v); o-- > 0;) { /* in reverse: sorted by the call */
        hf_equal_key k = {(uint64_t)v[o] % 3, o};
        g_array_append_val(keys, k);
    }
    eq_objs e = {v, 0};
    static const hf_equal_ops ops = {eq_first, eq_same};
    GArray *g = hf_equal_groups(keys, &ops, &e);
    /* 7 at 0, 2, 5: copies 3, wasted 3 + 6; 4 at 1, 4: wasted 5; the
     * unreadable 0s, 1, 9 and 2 alone are no group */
    assert_int_equal(g->len, 2);
    const hf_equal_group *a = &g_array_index(g, hf_equal_group, 0),
                         *b = &g_array_index(g, hf_equal_group, 1);
    assert_int_equal(a->o, 0);
    assert_int_equal(a->copies, 3);
    assert_int_equal(a->wasted, 9);
    assert_int_equal(b->o, 1);
    assert_int_equal(b->copies, 2);
    assert_int_equal(b->wasted, 5);
    g_array_free(g, TRUE);
    g_array_free(keys, TRUE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_none),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_equal_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
