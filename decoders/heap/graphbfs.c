/*
 * graphbfs.c - shortest paths from the GC roots: the BFS, its parents
 * packed to a byte a node against the predecessors.  See graph.h.
 */
#include "decoders/heap/graph.h"
#include "decoders/heap/graphmem.h"

#include "decoders/core/cancel.h"
#include "decoders/core/search.h"

#include <assert.h>
#include <string.h>

#include <glib.h>

/* ---- shortest paths ---- */

/* The queue gives the next nodes in advance, so each is fetched in three
 * stages: its offsets, then its edge list, then its targets' parents. */
static inline void prefetch_queue(const hf_csr *g, const uint32_t *queue, uint32_t head,
                                  uint32_t tail, const uint32_t *parent)
{
    if (head + 3 * AHEAD < tail)
        PREFETCH(&g->off[queue[head + 3 * AHEAD]]);
    if (head + 2 * AHEAD < tail)
        PREFETCH(&g->dst[g->off[queue[head + 2 * AHEAD]]]);
    if (head + AHEAD < tail) {
        uint32_t u = queue[head + AHEAD];
        for (uint32_t e = g->off[u]; e < g->off[u + 1] && e < g->off[u] + 4; e++)
            PREFETCH(&parent[g->dst[e]]);
    }
}

bool hf_graph_bfs(const hf_csr *succ, uint32_t *parent)
{
    uint32_t n = succ->n;
    uint32_t *queue = try_u32_seq((size_t)n + 1);
    if (!queue)
        return false;
    hf_work_phase("bfs");
    memset(parent, 0xff, ((size_t)n + 1) * sizeof *parent);
    const uint32_t *off = succ->off, *dst = succ->dst;
    uint32_t head = 0, tail = 0;
    parent[n] = n;
    queue[tail++] = n;
    while (head < tail) {
        if (hf_cancel_due(head)) {
            hf_work_free(queue);
            return false;
        }
        prefetch_queue(succ, queue, head, tail, parent);
        uint32_t v = queue[head++];
        for (uint32_t e = off[v]; e < off[v + 1]; e++) {
            uint32_t w = dst[e];
            assert(w <= n);
            if (parent[w] == HF_NONE) {
                parent[w] = v;
                queue[tail++] = w;
            }
        }
    }
    hf_work_free(queue);
    return true;
}

uint32_t hf_graph_depth(const uint32_t *parent, uint32_t n, uint32_t v)
{
    if (parent[v] == HF_NONE)
        return HF_NONE;
    uint32_t d = 0;
    for (; v != n; v = parent[v])
        d++;
    return d;
}

/* ---- packed parents ---- */

bool hf_parents_pack(const uint32_t *parent, const hf_csr *pred, hf_parents *out)
{
    uint32_t n = pred->n;
    memset(out, 0, sizeof *out);
    out->slot = hf_work_alloc_seq((size_t)n + 1);
    if (!out->slot)
        return false;
    hf_work_phase("parents");
    GArray *far = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    for (uint32_t v = 0; v < n; v++) {
        if (hf_cancel_due(v)) {
            g_array_free(far, TRUE);
            g_clear_pointer(&out->slot, hf_work_free);
            return false;
        }
        uint32_t u = parent[v];
        if (u == HF_NONE) {
            out->slot[v] = HF_SLOT_NONE;
            continue;
        }
        /* the first place of u in v's referrers (ascending) */
        uint32_t a = pred->off[v];
        uint32_t k = (uint32_t)hf_lower_bound_u32(pred->dst + a, pred->off[v + 1] - a, u);
        assert(a + k < pred->off[v + 1] && pred->dst[a + k] == u);
        if (k < HF_SLOT_FAR) {
            out->slot[v] = (uint8_t)k;
        } else {
            out->slot[v] = HF_SLOT_FAR;
            uint64_t e = (uint64_t)v << 32 | u;
            g_array_append_val(far, e);
        }
    }
    out->slot[n] = 0; /* n's parent is n: hf_parents_get knows */
    /* far is in ascending order: v ascends */
    out->n_far = far->len;
    out->far = (uint64_t *)(void *)g_array_free(far, FALSE);
    return true;
}

uint32_t hf_parents_get(const hf_parents *p, const hf_csr *pred, uint32_t v)
{
    uint32_t n = pred->n;
    if (v >= n)
        return v == n ? n : HF_NONE;
    uint8_t k = p->slot[v];
    if (k == HF_SLOT_NONE)
        return HF_NONE;
    if (k < HF_SLOT_FAR) {
        uint32_t e = pred->off[v] + k;
        return e < pred->off[v + 1] && pred->dst[e] <= n ? pred->dst[e] : HF_NONE;
    }
    size_t a = hf_lower_bound_u64(p->far, p->n_far, (uint64_t)v << 32);
    if (a == p->n_far || (p->far[a] >> 32) != v || (uint32_t)p->far[a] > n)
        return HF_NONE;
    return (uint32_t)p->far[a];
}

uint32_t hf_parents_depth(const hf_parents *p, const hf_csr *pred, uint32_t v)
{
    uint32_t n = pred->n, d = 0;
    for (; v != n; d++) {
        if (d > n)
            return HF_NONE; /* a loop: only a damaged file has one */
        v = hf_parents_get(p, pred, v);
        if (v == HF_NONE)
            return HF_NONE;
    }
    return d;
}

void hf_parents_free(hf_parents *p)
{
    hf_work_free(p->slot);
    g_free(p->far);
    memset(p, 0, sizeof *p);
}
