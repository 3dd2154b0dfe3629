/*
 * graphdom.c - immediate dominators by Semi-NCA, computed on DFS preorder
 * numbers.  See graph.h ("Algorithm").
 */
#include "decoders/heap/graph.h"
#include "decoders/heap/graphmem.h"

#include "decoders/core/cancel.h"
#include "decoders/core/workmem.h"

#include <assert.h>
#include <string.h>

/* The working arrays are indexed by DFS preorder number, not by node: the
 * virtual root is number 0 and order[i-1] is number i.  After the DFS the
 * predecessors are rebuilt in that numbering (hf_pred_renumber), so the
 * semidominator pass reads them in order, backwards, and looks nothing up
 * by node; the NCA pass works on numbers too, and idom goes back to nodes
 * once at the end.  On a graph larger than memory that turns the random
 * reads of a predecessor list and of pre[] of each predecessor (a 4 KiB
 * page fault each) into one sort by ranges and a pass in order.
 */

/* Per number, first the DFS: the parent and the next edge to follow.
 * Then the link-eval forest: the ancestor and the smallest semidominator
 * on the compressed path, side by side because eval() reads both at every
 * step and a step is a cache miss.  Then, once the semidominators are
 * known, the jump pointers of the NCA pass. */
typedef union {
    struct {
        uint32_t parent, edge;
    };
    struct {
        uint32_t anc, label;
    };
    struct {
        uint32_t jump, depth;
    };
} link_t;
_Static_assert(sizeof(link_t) == 8, "hf_dom_forest_bytes");

typedef struct {
    const hf_csr *succ;
    hf_csr pred;      /* by number: the numbers of each number's predecessors */
    uint32_t n;
    uint32_t *order;  /* caller's: number i >= 1 is node order[i-1] */
    uint32_t *pre;    /* node -> number, HF_NONE when unreached */
    uint32_t *idom;   /* caller's array, by number: DFS parent, then idom */
    uint32_t *semi;   /* by number: semidominator */
    link_t *link;     /* by number */
} snca;

static inline uint32_t node_of(const snca *s, uint32_t i)
{
    return i ? s->order[i - 1] : s->n;
}

/* On a big graph nearly every access here is a cache miss, and a chain of
 * dependent misses is what costs (about 150 ns each on a VM, against a few
 * ns for misses the CPU can overlap).  So the loops below ask for memory
 * they will need a little later, to turn chains into overlapping loads. */

/* Preorder DFS from the virtual root without a stack: the path back to the
 * root is the parent in link[] and each open node keeps its next edge
 * beside it.  Returns the number of nodes reached, root included; 0 when
 * cancelled. */
static uint32_t dfs(snca *s)
{
    const uint32_t *off = s->succ->off, *dst = s->succ->dst;
    uint32_t count = 1, cur = 0;
    s->pre[s->n] = 0;
    s->link[0] = (link_t){{.parent = HF_NONE, .edge = off[s->n]}};
    while (cur != HF_NONE) {
        uint32_t v = node_of(s, cur), e = s->link[cur].edge, end = off[v + 1];
        if (e == off[v]) /* first visit: fetch what the next steps test */
            for (uint32_t k = e; k < end && k < e + AHEAD; k++) {
                PREFETCH(&s->pre[dst[k]]);
                PREFETCH(&off[dst[k]]);
            }
        for (; e < end; e++) {
            assert(dst[e] <= s->n);
            if (s->pre[dst[e]] == HF_NONE)
                break;
        }
        if (e == end) {
            cur = s->link[cur].parent;
            continue;
        }
        uint32_t w = dst[e];
        s->link[cur].edge = e + 1;
        s->pre[w] = count;
        s->order[count - 1] = w;
        s->link[count] = (link_t){{.parent = cur, .edge = off[w]}};
        PREFETCH(&dst[off[w]]);
        cur = count++;
        if (hf_cancel_due(count))
            return 0;
    }
    return count;
}

/* eval(v) of Lengauer-Tarjan for a linked v (number > i, i = the node
 * being processed): the minimum label on the forest path from v up to,
 * not including, its first unlinked ancestor, compressing the path.  The
 * recursive compress updates labels from the top down; here the way up
 * reverses the anc pointers so the way down can follow them, which keeps
 * the stack flat on a path of any length. */
static uint32_t eval(link_t *link, uint32_t v, uint32_t i)
{
    uint32_t x = v, below = HF_NONE;
    while (link[x].anc > i) {
        uint32_t up = link[x].anc;
        link[x].anc = below;
        below = x;
        x = up;
    }
    uint32_t top = link[x].anc; /* unlinked: the compressed path points here */
    uint32_t min = link[x].label;
    while (below != HF_NONE) {
        link_t *b = &link[below];
        uint32_t next = b->anc;
        if (min < b->label)
            b->label = min;
        else
            min = b->label;
        b->anc = top;
        below = next;
    }
    return link[v].label;
}

/* Before the semidominator pass: each number's semidominator starts as its
 * DFS parent (in idom, whose field anc shares), its label as itself. */
static void semi_init(snca *s, uint32_t count)
{
    for (uint32_t i = 1; i < count; i++) {
        s->idom[i] = s->link[i].parent; /* anc: the same field */
        s->link[i].label = i;
    }
    s->idom[0] = 0;
    s->link[0].anc = s->link[0].label = 0;
}

/* The candidate for semi(i) that a predecessor numbered p gives: p itself
 * when it comes before i, else (linked already) the smallest
 * semidominator on its forest path. */
static inline uint32_t candidate(link_t *link, uint32_t p, uint32_t i)
{
    return p > i ? eval(link, p, i) : p;
}

static inline void semi_set(snca *s, uint32_t i, uint32_t best)
{
    s->semi[i] = best;
    s->link[i].label = best;
}

/* Semidominators in reverse preorder, from the renumbered predecessors
 * (s->pred).  The lists are read in order; what is fetched ahead is where
 * eval() starts. */
static bool semidominators(snca *s, uint32_t count)
{
    const uint32_t *off = s->pred.off, *src = s->pred.dst;
    semi_init(s, count);
    for (uint32_t i = count - 1; i >= 1; i--) {
        if (hf_cancel_due(i))
            return false;
        if (i > AHEAD) {
            uint32_t j = i - AHEAD;
            for (uint32_t e = off[j]; e < off[j + 1] && e < off[j] + 4; e++)
                if (src[e] > j)
                    PREFETCH(&s->link[src[e]]);
        }
        /* semi(i) is at most parent(i) and never below 0, the root: once
         * 0, no predecessor can lower it.  That skips the lists of the
         * root's children (the class objects of the JVM's sticky classes,
         * each held by all its instances from all over the numbers: on a
         * graph in files, each eval() there a page written at random) and
         * ends those that meet a 0 on their way. */
        uint32_t best = s->idom[i];
        for (uint32_t e = off[i]; e < off[i + 1] && best > 0; e++) {
            assert(src[e] < count);
            best = MIN(best, candidate(s->link, src[e], i));
        }
        semi_set(s, i, best);
    }
    return true;
}

/* The same from the predecessors by node (the transpose of succ): no
 * renumbering, for lookups at random, each list at node_of(i) and each
 * number in pre[].  In RAM those overlap when asked for early enough, so
 * the fetching ahead is in stages, each a step nearer: where the list
 * starts, the list, its numbers, the forest where eval() starts.  A list
 * is in ascending node order, so a root child (the virtual root, node n,
 * last in its list) is known at its end: semi 0 without reading the rest,
 * as the renumbered lists leave out the edges into root children. */
static bool semidominators_by_node(snca *s, uint32_t count, const hf_csr *pred)
{
    const uint32_t *off = pred->off, *src = pred->dst, *pre = s->pre;
    semi_init(s, count);
    for (uint32_t i = count - 1; i >= 1; i--) {
        if (hf_cancel_due(i))
            return false;
        if (i > 4 * AHEAD)
            PREFETCH(&off[node_of(s, i - 4 * AHEAD)]);
        if (i > 3 * AHEAD)
            PREFETCH(&src[off[node_of(s, i - 3 * AHEAD)]]);
        if (i > 2 * AHEAD) {
            uint32_t v = node_of(s, i - 2 * AHEAD);
            for (uint32_t e = off[v]; e < off[v + 1] && e < off[v] + 4; e++)
                PREFETCH(&pre[src[e]]);
        }
        if (i > AHEAD) {
            uint32_t j = i - AHEAD, v = node_of(s, j);
            for (uint32_t e = off[v]; e < off[v + 1] && e < off[v] + 4; e++) {
                uint32_t p = pre[src[e]];
                if (p != HF_NONE && p > j)
                    PREFETCH(&s->link[p]);
            }
        }
        uint32_t v = node_of(s, i), best = s->idom[i], end = off[v + 1];
        if (end > off[v] && src[end - 1] == s->n)
            best = 0;
        for (uint32_t e = off[v]; e < end && best > 0; e++) {
            uint32_t p = pre[src[e]];
            if (p != HF_NONE) /* an unreached referrer is no path */
                best = MIN(best, candidate(s->link, p, i));
        }
        semi_set(s, i, best);
    }
    return true;
}

/* NCA pass, in preorder: idom(w) is the nearest ancestor of parent(w), in
 * the dominator tree built so far, numbered at most semi(w).  Numbers
 * fall on the way up, so that is a search for the first ancestor below a
 * bound.  A plain walk up is quadratic on a deep list whose tail fans out
 * to objects also held from near the root (each walks the whole list), so
 * every node gets a jump pointer, by the skew-binary rule (E. W. Myers,
 * "An applicative random-access stack", IPL 17(5), 1983): a search takes
 * O(log depth) steps. */
static bool nearest_common_ancestors(snca *s, uint32_t count)
{
    link_t *t = s->link;
    t[0].jump = t[0].depth = 0;
    for (uint32_t i = 1; i < count; i++) {
        if (hf_cancel_due(i))
            return false;
        uint32_t j = s->idom[i], bound = s->semi[i];
        while (j > bound) /* all between j and its jump are above jump */
            j = t[j].jump > bound ? t[j].jump : s->idom[j];
        s->idom[i] = j;
        uint32_t a = t[j].jump, b = t[a].jump;
        bool even = t[j].depth - t[a].depth == t[a].depth - t[b].depth;
        t[i].jump = even ? b : j;
        t[i].depth = t[j].depth + 1;
    }
    return true;
}

/* idom by number -> idom by node, in place, via the link-eval forest's
 * memory (free by now, and the RAM when any array has it: its pages are
 * read at random here): pre[] in order, the forest at random. */
static void idom_to_nodes(snca *s, uint32_t count)
{
    uint32_t *node = (uint32_t *)s->link;
    for (uint32_t i = 1; i < count; i++)
        node[i] = node_of(s, s->idom[i]);
    for (uint32_t v = 0; v < s->n; v++)
        s->idom[v] = s->pre[v] == HF_NONE ? HF_NONE : node[s->pre[v]];
    s->idom[s->n] = s->n;
}

/* succ's last use is the renumbering of the predecessors: when the caller
 * lets us (drop), that renumbers its dst in place, and succ goes before
 * semi[] is allocated.  link[] is asked for first: its path compression
 * writes at random, so it is the array that most needs the RAM
 * (workmem.h gives it to the first arrays asked for, or to the one a
 * caller reserved RAM for: hf_dom_forest_bytes). */
static bool dom_compute(const hf_csr *succ, hf_csr *drop, hf_pred_wait wait, void *ud,
                        uint32_t *idom, uint32_t *order, uint32_t *n_reached)
{
    uint32_t n = succ->n, count = 0;
    size_t len = (size_t)n + 1;
    snca s = {.succ = succ, .n = n, .order = order, .idom = idom};
    s.link = hf_work_alloc(hf_dom_forest_bytes(n));
    s.pre = s.link ? try_u32(len) : NULL;
    if (s.pre) {
        memset(s.pre, 0xff, len * sizeof *s.pre);
        hf_work_random(s.pre); /* filled in order, then read by node: at random */
        hf_work_random(s.link);
        hf_work_phase("dfs");
        count = dfs(&s);
    }
    bool ok = count > 0;
    const hf_csr *by_node = NULL;
    if (ok && wait) {
        ok = (by_node = wait(ud)) != NULL;
    } else if (ok) {
        hf_work_phase("preorder predecessors");
        ok = hf_pred_renumber(succ, drop ? drop->dst : NULL, s.pre, count, 0, &s.pred);
        hf_work_cold(s.pre); /* read again only at the end */
    }
    if (drop)
        hf_csr_free(drop);
    if (by_node) { /* cold while the DFS ran, when in a file: back in order */
        hf_work_willneed(by_node->off);
        hf_work_willneed(by_node->dst);
    }
    ok = ok && (s.semi = try_u32(count)) != NULL;
    hf_work_phase("semidominators");
    ok = ok && (by_node ? semidominators_by_node(&s, count, by_node) : semidominators(&s, count));
    hf_csr_free(&s.pred);
    hf_work_phase("nca");
    ok = ok && nearest_common_ancestors(&s, count);
    g_clear_pointer(&s.semi, hf_work_free);
    if (ok) {
        hf_work_phase("idom");
        idom_to_nodes(&s, count);
        *n_reached = count - 1;
    }
    hf_work_free(s.pre);
    hf_work_free(s.semi);
    hf_work_free(s.link);
    return ok;
}

bool hf_dom_compute(const hf_csr *succ, uint32_t *idom, uint32_t *order, uint32_t *n_reached)
{
    return dom_compute(succ, NULL, NULL, NULL, idom, order, n_reached);
}

bool hf_dom_pred_by_node(const hf_csr *pred)
{
    if (hf_work_in_files() == 0)
        return true;
    uint64_t bytes = ((uint64_t)pred->n * 2 + 4 + hf_csr_edges(pred)) * sizeof(uint32_t);
    return bytes <= hf_mem_available("", NULL) / 3 * 2;
}

const hf_csr *hf_pred_given(void *ud)
{
    return ud;
}

bool hf_dom_compute_pred(const hf_csr *succ, hf_csr *drop, hf_pred_wait wait, void *ud,
                         uint32_t *idom, uint32_t *order, uint32_t *n_reached)
{
    assert(!drop || drop == succ);
    return dom_compute(succ, drop, wait, ud, idom, order, n_reached);
}

bool hf_dom_compute_free_succ(hf_csr *succ, uint32_t *idom, uint32_t *order, uint32_t *n_reached)
{
    return dom_compute(succ, succ, NULL, NULL, idom, order, n_reached);
}
