/*
 * groups.c - see groups.h.
 */
#include "decoders/heap/groups.h"

#include "decoders/core/cancel.h"

#include <glib.h>
#include <string.h>

typedef struct {
    uint32_t next, end; /* the node's children not yet walked: kids[next .. end) */
    uint32_t group;     /* the node's own group */
} frame;

/* Calls up (+1) or down (-1) on group g and its enclosing groups; on the
 * way in, a group met for the first time on the path gets v's bytes. */
static void visit(const uint32_t *parent, uint32_t n_groups, uint32_t *above, uint32_t g,
                  int dir, uint64_t bytes, bool top, hf_group_sum *out)
{
    for (uint32_t steps = 0; g != HF_NONE && g < n_groups && steps < n_groups; steps++) {
        if (dir > 0 && above[g]++ == 0) {
            out[g].retained += bytes;
            out[g].objects++;
            if (top) {
                out[g].top_retained += bytes;
                out[g].top_objects++;
            }
        } else if (dir < 0) {
            above[g]--;
        }
        g = parent ? parent[g] : HF_NONE;
    }
}

/* Where each node's children start in kids (n + 2 entries; v's are
 * kids[off[v] .. off[v + 1])): kids is grouped by dominator in node
 * order, so one pass counts them.  NULL without memory. */
static uint32_t *kid_offsets(const uint32_t *kids, uint32_t n_kids, const uint32_t *idom,
                             uint32_t n)
{
    uint32_t *off = g_try_new0(uint32_t, (size_t)n + 2);
    if (!off)
        return NULL;
    for (uint32_t i = 0; i < n_kids; i++) {
        uint32_t w = kids[i], p = w < n ? idom[w] : HF_NONE;
        if (p <= n)
            off[p + 1]++;
    }
    for (uint32_t v = 1; v <= n + 1; v++)
        off[v] += off[v - 1];
    if (off[n + 1] != n_kids) { /* not grouped as said (a damaged file): search instead */
        for (uint32_t v = 0; v <= n; v++)
            hf_dom_kids_of(kids, n_kids, idom, n, v, &off[v], &off[v + 1]);
    }
    return off;
}

bool hf_group_sums(const uint32_t *kids, uint32_t n_kids, const uint32_t *idom, uint32_t n,
                   const hf_size48 *retained, hf_group_of group_of, void *ud,
                   const uint32_t *parent, uint32_t n_groups, hf_group_sum *out)
{
    memset(out, 0, sizeof *out * n_groups);
    uint32_t *above = g_try_new0(uint32_t, n_groups ? n_groups : 1);
    uint32_t *off = kid_offsets(kids, n_kids, idom, n);
    if (!above || !off) {
        g_free(above);
        g_free(off);
        return false;
    }
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(frame));
    frame root = {off[n], off[n + 1], HF_NONE};
    g_array_append_val(stack, root);
    bool ok = true;
    for (uint64_t step = 1; stack->len; step++) {
        if (hf_cancel_due(step)) {
            ok = false;
            break;
        }
        frame *f = &g_array_index(stack, frame, stack->len - 1);
        if (f->next >= f->end) {
            visit(parent, n_groups, above, f->group, -1, 0, false, out);
            g_array_set_size(stack, stack->len - 1);
            continue;
        }
        uint32_t w = kids[f->next++];
        if (w >= n || stack->len > n)
            continue; /* a damaged file's entry */
        frame down = {off[w], off[w + 1], group_of(ud, w)};
        visit(parent, n_groups, above, down.group, +1, hf_size48_get(retained, w),
              stack->len == 1, out);
        g_array_append_val(stack, down);
    }
    g_array_free(stack, TRUE);
    g_free(above);
    g_free(off);
    return ok;
}

/* ---- groups of equal objects ---- */

static gint cmp_keys(gconstpointer a, gconstpointer b)
{
    const hf_equal_key *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return x->o < y->o ? -1 : x->o > y->o;
}

static gint cmp_groups(gconstpointer a, gconstpointer b)
{
    const hf_equal_group *x = a, *y = b;
    if (x->wasted != y->wasted)
        return x->wasted > y->wasted ? -1 : 1;
    return x->o < y->o ? -1 : x->o > y->o;
}

/* The groups of equal objects among the run keys[0 .. n) of one hash;
 * done: those already in a group. */
static void group_run(const hf_equal_key *keys, guint n, bool *done, const hf_equal_ops *ops,
                      void *ud, GArray *groups)
{
    for (guint a = 0; a < n; a++) {
        if (done[a] || !ops->first(ud, keys[a].o))
            continue;
        hf_equal_group g = {keys[a].o, 1, 0};
        uint64_t bytes;
        for (guint b = a + 1; b < n; b++)
            if (!done[b] && ops->same(ud, keys[b].o, &bytes)) {
                done[b] = true;
                g.copies++;
                g.wasted += bytes;
            }
        if (g.copies > 1)
            g_array_append_val(groups, g);
    }
}

GArray *hf_equal_groups(GArray *keys, const hf_equal_ops *ops, void *ud)
{
    g_array_sort(keys, cmp_keys);
    GArray *groups = g_array_new(FALSE, FALSE, sizeof(hf_equal_group));
    bool *done = g_new0(bool, keys->len + 1);
    const hf_equal_key *kv = (const hf_equal_key *)(const void *)keys->data;
    for (guint i = 0, j; i < keys->len && !hf_cancelled(); i = j) {
        for (j = i + 1; j < keys->len && kv[j].hash == kv[i].hash;)
            j++;
        if (j - i > 1)
            group_run(kv + i, j - i, done + i, ops, ud, groups);
    }
    g_free(done);
    g_array_sort(groups, cmp_groups);
    return groups;
}
