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

bool hf_group_sums(const uint32_t *kids, uint32_t n_kids, const uint32_t *idom, uint32_t n,
                   const uint64_t *retained, hf_group_of group_of, void *ud,
                   const uint32_t *parent, uint32_t n_groups, hf_group_sum *out)
{
    memset(out, 0, sizeof *out * n_groups);
    uint32_t *above = g_try_new0(uint32_t, n_groups ? n_groups : 1);
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(frame));
    if (!above)
        return false;
    frame root = {0, 0, HF_NONE};
    hf_dom_kids_of(kids, n_kids, idom, n, n, &root.next, &root.end);
    g_array_append_val(stack, root);
    bool ok = true;
    for (uint64_t step = 1; stack->len; step++) {
        if (hf_cancel_due(step)) {
            ok = false;
            break;
        }
        frame *f = &g_array_index(stack, frame, stack->len - 1);
        if (f->next == f->end) {
            visit(parent, n_groups, above, f->group, -1, 0, false, out);
            g_array_set_size(stack, stack->len - 1);
            continue;
        }
        uint32_t w = kids[f->next++];
        if (w >= n)
            continue; /* a damaged file's entry */
        frame down = {0, 0, group_of(ud, w)};
        visit(parent, n_groups, above, down.group, +1, retained[w], stack->len == 1, out);
        hf_dom_kids_of(kids, n_kids, idom, n, w, &down.next, &down.end);
        g_array_append_val(stack, down);
    }
    g_array_free(stack, TRUE);
    g_free(above);
    return ok;
}
