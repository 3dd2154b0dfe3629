/*
 * graph.c - CSR graphs, Semi-NCA dominators, retained sizes, the dominator
 * tree and BFS parents over a heap snapshot.  See graph.h.
 */
#include "decoders/heap/graph.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

/* Arrays of count uint32_t; at least one entry, because g_try_new(…, 0)
 * returns NULL, which would read as a failure for an empty graph. */
static uint32_t *try_u32(size_t count)
{
    return g_try_new(uint32_t, count ? count : 1);
}

void hf_csr_free(hf_csr *g)
{
    g_free(g->off);
    g_free(g->dst);
    memset(g, 0, sizeof *g);
}

/* ---- building ---- */

typedef struct {
    uint64_t count;   /* pass 1: edges seen, 64-bit so an overflow shows */
    uint32_t *dst;    /* pass 2: where the next edge goes */
    uint32_t pos, end;
    uint32_t limit;   /* largest valid dst (n) */
    bool bad;         /* a dst > n, or pass 2 emitted past the count */
} build_ctx;

static void emit_count(void *ectx, uint32_t dst)
{
    build_ctx *c = ectx;
    c->count++;
    c->bad |= dst > c->limit;
}

static void emit_store(void *ectx, uint32_t dst)
{
    build_ctx *c = ectx;
    if (c->pos < c->end && dst <= c->limit)
        c->dst[c->pos++] = dst;
    else
        c->bad = true;
}

bool hf_csr_build(hf_csr *out, uint32_t n, hf_edge_source src, void *ud)
{
    memset(out, 0, sizeof *out);
    if (n > UINT32_MAX - 2)
        return false;
    uint32_t *off = try_u32((size_t)n + 2);
    if (!off)
        return false;
    build_ctx c = {.limit = n};
    off[0] = 0;
    for (uint32_t v = 0; v <= n; v++) {
        src(ud, v, emit_count, &c);
        if (c.count > UINT32_MAX || c.bad) {
            g_free(off);
            return false;
        }
        off[v + 1] = (uint32_t)c.count;
    }
    c.dst = try_u32(off[n + 1]);
    if (!c.dst) {
        g_free(off);
        return false;
    }
    /* Each node gets exactly the room it asked for: a node that emits a
     * different number of edges the second time is caught here, not by
     * its neighbour's slots shifting. */
    for (uint32_t v = 0; v <= n && !c.bad; v++) {
        c.pos = off[v];
        c.end = off[v + 1];
        src(ud, v, emit_store, &c);
        c.bad |= c.pos != c.end;
    }
    if (c.bad) {
        g_free(off);
        g_free(c.dst);
        return false;
    }
    out->n = n;
    out->off = off;
    out->dst = c.dst;
    return true;
}

/* Counting sort of (src, dst) pairs by key: off[k+1] starts as the start of
 * bucket k and is advanced as the bucket fills, so it ends as the start of
 * bucket k+1.  No cursor array is needed. */
static void bucket_starts(uint32_t *off, uint32_t buckets)
{
    /* on entry off[k+2] = size of bucket k; on exit off[k+1] = its start */
    off[0] = 0;
    off[1] = 0;
    for (uint32_t k = 2; k <= buckets; k++)
        off[k] += off[k - 1];
}

bool hf_csr_transpose(const hf_csr *g, hf_csr *out)
{
    memset(out, 0, sizeof *out);
    uint32_t n = g->n, m = hf_csr_edges(g);
    /* n+3 entries: one extra slot for the shifted count of node n */
    uint32_t *off = try_u32((size_t)n + 3);
    uint32_t *dst = try_u32(m);
    if (!off || !dst) {
        g_free(off);
        g_free(dst);
        return false;
    }
    memset(off, 0, ((size_t)n + 3) * sizeof *off);
    for (uint32_t e = 0; e < m; e++) {
        assert(g->dst[e] <= n);
        off[g->dst[e] + 2]++;
    }
    bucket_starts(off, n + 1);
    for (uint32_t v = 0; v <= n; v++)
        for (uint32_t e = g->off[v]; e < g->off[v + 1]; e++)
            dst[off[g->dst[e] + 1]++] = v;
    out->n = n;
    out->off = g_realloc(off, ((size_t)n + 2) * sizeof *off);
    out->dst = dst;
    return true;
}

/* ---- dominators (Semi-NCA) ----
 *
 * The working arrays are indexed by DFS preorder number, not by node: the
 * virtual root is number 0 and order[i-1] is number i.  That keeps the
 * hot loops of the semidominator pass on sequential or nearby memory, and
 * lets the caller's order array double as the number -> node map.
 */

typedef struct {
    const hf_csr *succ, *pred;
    uint32_t n;
    uint32_t *order;  /* caller's: number i >= 1 is node order[i-1] */
    uint32_t *pre;    /* node -> number, HF_NONE when unreached */
    uint32_t *idom;   /* caller's array, by number: DFS parent, then idom */
    uint32_t *semi;   /* by number: DFS edge cursor, then semidominator */
    uint32_t *label;  /* by number: min semi on the compressed path */
    uint32_t *anc;    /* by number: ancestor in the link-eval forest */
} snca;

static inline uint32_t node_of(const snca *s, uint32_t i)
{
    return i ? s->order[i - 1] : s->n;
}

/* Preorder DFS from the virtual root without a stack: the path back to the
 * root is the parent array (idom[], by number) and each open node keeps
 * its next edge in semi[].  Returns the number of nodes reached, root
 * included. */
static uint32_t dfs(snca *s)
{
    const uint32_t *off = s->succ->off, *dst = s->succ->dst;
    uint32_t count = 1, cur = 0;
    s->pre[s->n] = 0;
    s->idom[0] = HF_NONE;
    s->semi[0] = off[s->n];
    while (cur != HF_NONE) {
        uint32_t v = node_of(s, cur), e = s->semi[cur], end = off[v + 1];
        for (; e < end; e++) {
            assert(dst[e] <= s->n);
            if (s->pre[dst[e]] == HF_NONE)
                break;
        }
        if (e == end) {
            cur = s->idom[cur];
            continue;
        }
        uint32_t w = dst[e];
        s->semi[cur] = e + 1;
        s->pre[w] = count;
        s->order[count - 1] = w;
        s->idom[count] = cur;
        s->semi[count] = off[w];
        cur = count++;
    }
    s->idom[0] = 0;
    return count;
}

/* eval(v) of Lengauer-Tarjan for a linked v (number > i, i = the node
 * being processed): the minimum label on the forest path from v up to,
 * not including, its first unlinked ancestor, compressing the path.  The
 * recursive compress updates labels from the top down; here the way up
 * reverses the anc pointers so the way down can follow them, which keeps
 * the stack flat on a path of any length. */
static uint32_t eval(snca *s, uint32_t v, uint32_t i)
{
    uint32_t *anc = s->anc, *label = s->label;
    uint32_t x = v, below = HF_NONE;
    while (anc[x] > i) {
        uint32_t up = anc[x];
        anc[x] = below;
        below = x;
        x = up;
    }
    uint32_t top = anc[x]; /* unlinked: every compressed node now points here */
    uint32_t above = x;
    while (below != HF_NONE) {
        uint32_t next = anc[below];
        if (label[above] < label[below])
            label[below] = label[above];
        anc[below] = top;
        above = below;
        below = next;
    }
    return label[v];
}

/* Semidominators in reverse preorder.  A predecessor numbered below i is a
 * candidate itself; one numbered above i has been linked, and its
 * candidate is the smallest semidominator on its forest path. */
static void semidominators(snca *s, uint32_t count)
{
    const uint32_t *off = s->pred->off, *src = s->pred->dst;
    for (uint32_t i = 0; i < count; i++) {
        s->label[i] = i;
        s->anc[i] = s->idom[i];
    }
    for (uint32_t i = count - 1; i >= 1; i--) {
        uint32_t w = node_of(s, i), best = s->idom[i];
        for (uint32_t e = off[w]; e < off[w + 1]; e++) {
            uint32_t p = s->pre[src[e]];
            if (p == HF_NONE)
                continue;
            if (p > i)
                p = eval(s, p, i);
            if (p < best)
                best = p;
        }
        s->semi[i] = best;
        s->label[i] = best;
    }
}

/* NCA pass: idom(w) is the nearest ancestor of parent(w), in the tree
 * built so far, whose number is at most semi(w). */
static void nearest_common_ancestors(snca *s, uint32_t count)
{
    for (uint32_t i = 1; i < count; i++) {
        uint32_t j = s->idom[i];
        while (j > s->semi[i])
            j = s->idom[j];
        s->idom[i] = j;
    }
}

/* idom by number -> idom by node, in place, via label[] (free by now). */
static void idom_to_nodes(snca *s, uint32_t count)
{
    for (uint32_t i = 1; i < count; i++)
        s->label[i] = node_of(s, s->idom[i]);
    for (uint32_t v = 0; v < s->n; v++)
        s->idom[v] = s->pre[v] == HF_NONE ? HF_NONE : s->label[s->pre[v]];
    s->idom[s->n] = s->n;
}

bool hf_dom_compute(const hf_csr *succ, const hf_csr *pred, uint32_t *idom, uint32_t *order,
                    uint32_t *n_reached)
{
    uint32_t n = succ->n;
    assert(pred->n == n && hf_csr_edges(pred) == hf_csr_edges(succ));
    size_t len = (size_t)n + 1;
    snca s = {.succ = succ, .pred = pred, .n = n, .order = order, .idom = idom,
              .pre = try_u32(len), .semi = try_u32(len), .label = try_u32(len), .anc = try_u32(len)};
    bool ok = s.pre && s.semi && s.label && s.anc;
    if (ok) {
        memset(s.pre, 0xff, len * sizeof *s.pre);
        uint32_t count = dfs(&s);
        semidominators(&s, count);
        nearest_common_ancestors(&s, count);
        idom_to_nodes(&s, count);
        *n_reached = count - 1;
    }
    g_free(s.pre);
    g_free(s.semi);
    g_free(s.label);
    g_free(s.anc);
    return ok;
}

/* ---- retained sizes and the dominator tree ---- */

void hf_dom_retained(uint32_t n, const uint32_t *idom, const uint32_t *order, uint32_t n_reached,
                     const uint64_t *shallow, uint64_t *retained)
{
    /* shallow may alias retained: each entry is read before it is written */
    for (uint32_t v = 0; v < n; v++)
        retained[v] = idom[v] == HF_NONE ? 0 : shallow[v];
    retained[n] = 0;
    /* reverse preorder: all of v's dominator subtree comes after v */
    for (uint32_t k = n_reached; k-- > 0;) {
        uint32_t v = order[k];
        retained[idom[v]] += retained[v];
    }
}

/* larger retained first, then smaller node number */
static inline bool kid_before(const uint64_t *retained, uint32_t a, uint32_t b)
{
    return retained[a] != retained[b] ? retained[a] > retained[b] : a < b;
}

static int kid_cmp(const void *pa, const void *pb, void *ud)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a == b ? 0 : kid_before(ud, a, b) ? -1 : 1;
}

static void sort_kids(uint32_t *k, uint32_t len, const uint64_t *retained)
{
    if (len > 16) {
        qsort_r(k, len, sizeof *k, kid_cmp, (void *)retained);
        return;
    }
    /* most nodes have a handful of children: insertion sort beats a call */
    for (uint32_t i = 1; i < len; i++) {
        uint32_t x = k[i], j = i;
        for (; j > 0 && kid_before(retained, x, k[j - 1]); j--)
            k[j] = k[j - 1];
        k[j] = x;
    }
}

bool hf_dom_children(uint32_t n, const uint32_t *idom, const uint64_t *retained, hf_csr *out)
{
    memset(out, 0, sizeof *out);
    uint32_t *off = try_u32((size_t)n + 3);
    if (!off)
        return false;
    memset(off, 0, ((size_t)n + 3) * sizeof *off);
    uint32_t kids = 0;
    for (uint32_t v = 0; v < n; v++)
        if (idom[v] != HF_NONE) {
            off[idom[v] + 2]++;
            kids++;
        }
    uint32_t *dst = try_u32(kids);
    if (!dst) {
        g_free(off);
        return false;
    }
    bucket_starts(off, n + 1);
    for (uint32_t v = 0; v < n; v++)
        if (idom[v] != HF_NONE)
            dst[off[idom[v] + 1]++] = v;
    for (uint32_t v = 0; v <= n; v++)
        sort_kids(dst + off[v], off[v + 1] - off[v], retained);
    out->n = n;
    out->off = g_realloc(off, ((size_t)n + 2) * sizeof *off);
    out->dst = dst;
    return true;
}

/* ---- shortest paths ---- */

bool hf_graph_bfs(const hf_csr *succ, uint32_t *parent)
{
    uint32_t n = succ->n;
    uint32_t *queue = try_u32((size_t)n + 1);
    if (!queue)
        return false;
    memset(parent, 0xff, ((size_t)n + 1) * sizeof *parent);
    const uint32_t *off = succ->off, *dst = succ->dst;
    uint32_t head = 0, tail = 0;
    parent[n] = n;
    queue[tail++] = n;
    while (head < tail) {
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
    g_free(queue);
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
