/*
 * graph.c - CSR graphs, Semi-NCA dominators, retained sizes, the dominator
 * tree and BFS parents over a heap snapshot.  See graph.h.
 */
#include "decoders/heap/graph.h"
#include "decoders/heap/graphmem.h"

#include "decoders/core/cancel.h"
#include "decoders/core/search.h"
#include "decoders/core/workmem.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>


void hf_csr_free(hf_csr *g)
{
    hf_work_free(g->off);
    hf_work_free(g->dst);
    memset(g, 0, sizeof *g);
}

/* ---- building ---- */

#define HF_BUILD_THREADS 8

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

/* A pass of a build, shared by its threads. */
typedef struct {
    hf_edge_source src;
    void *ud;
    uint32_t *off;
    uint32_t n;     /* nodes 0..n */
    gint next;      /* the next chunk to take (hf_chunk_take) */
    gint stop;      /* a thread failed: the others stop too */
    bool counting;
} build_job;

/* One thread's part: its chunks' nodes, one at a time.  A cache line of
 * its own: c is written at every edge, and parts side by side in one line
 * made the two threads' counting pass take half as much CPU again. */
typedef struct {
    _Alignas(64) build_job *job;
    build_ctx c;
} build_part;

/* Pass 1 stores node v's degree in off[v + 1]; pass 2 fills its edges. */
static void build_node(build_job *j, build_ctx *c, uint32_t v)
{
    if (j->counting) {
        uint64_t before = c->count;
        j->src(j->ud, v, true, emit_count, c);
        if (c->count - before > UINT32_MAX)
            c->bad = true;
        j->off[v + 1] = (uint32_t)(c->count - before);
    } else {
        c->pos = j->off[v];
        c->end = j->off[v + 1];
        j->src(j->ud, v, false, emit_store, c);
        c->bad |= c->pos != c->end;
    }
}

static gpointer build_range(gpointer arg)
{
    build_part *p = arg;
    build_job *j = p->job;
    build_ctx *c = &p->c;
    uint64_t lo, hi, step = 0;
    while (!c->bad && !g_atomic_int_get(&j->stop) &&
           hf_chunk_take(&j->next, (uint64_t)j->n + 1, &lo, &hi)) {
        for (uint64_t v = lo; v < hi && !c->bad; v++) {
            c->bad |= hf_cancel_due(step++);
            if (!c->bad)
                build_node(j, c, (uint32_t)v);
        }
    }
    if (c->bad)
        g_atomic_int_set(&j->stop, 1);
    return NULL;
}

/* Runs a pass of job over `parts`, on threads of their own but the first. */
static bool build_pass(build_job *job, build_part *parts, unsigned n_parts, bool counting)
{
    GThread *t[HF_BUILD_THREADS];
    job->counting = counting;
    job->next = job->stop = 0;
    for (unsigned i = 0; i < n_parts; i++)
        t[i] = i ? g_thread_new("hf-graph", build_range, &parts[i]) : NULL;
    build_range(&parts[0]);
    bool bad = false;
    for (unsigned i = 0; i < n_parts; i++) {
        if (t[i])
            g_thread_join(t[i]);
        bad |= parts[i].c.bad;
    }
    return !bad;
}

bool hf_csr_build(hf_csr *out, uint32_t n, hf_edge_source src, void *ud)
{
    return hf_csr_build_with(out, n, src, NULL, ud);
}

bool hf_csr_build_with(hf_csr *out, uint32_t n, hf_edge_source src, hf_edge_between between,
                       void *ud)
{
    memset(out, 0, sizeof *out);
    if (n > UINT32_MAX - 2)
        return false;
    uint32_t *off = try_u32_seq((size_t)n + 2);
    if (!off)
        return false;
    /* A thread per core: resolving references is most of the work and
     * needs no locks. */
    unsigned n_parts = MIN(MAX(g_get_num_processors(), 1), HF_BUILD_THREADS);
    if (n < 4096)
        n_parts = 1;
    build_job job = {src, ud, off, n, 0, 0, true};
    build_part parts[HF_BUILD_THREADS];
    hf_work_phase("count references");
    for (unsigned i = 0; i < n_parts; i++)
        parts[i] = (build_part){&job, {.limit = n}};
    bool ok = build_pass(&job, parts, n_parts, true);
    ok = ok && (!between || between(ud, off + 1));
    uint64_t total = 0;
    off[0] = 0;
    for (uint64_t v = 0; ok && v <= n; v++) {
        total += off[v + 1];
        ok = total <= UINT32_MAX;
        off[v + 1] = (uint32_t)total;
    }
    uint32_t *dst = ok ? try_u32_seq((size_t)total) : NULL;
    hf_work_phase("store references");
    for (unsigned i = 0; i < n_parts; i++)
        parts[i].c.dst = dst;
    /* Each node gets exactly the room it asked for: a node that emits a
     * different number of edges the second time is caught here, not by
     * its neighbour's slots shifting. */
    if (!dst || !build_pass(&job, parts, n_parts, false)) {
        hf_work_free(off);
        hf_work_free(dst);
        return false;
    }
    out->n = n;
    out->off = off;
    out->dst = dst;
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

/* One range [a, b) of destinations: count their edges, turn the counts
 * into starts (off[a + 1] is a's start already), and place the sources.
 * False when cancelled. */
static bool transpose_range(const hf_csr *g, uint32_t *off, uint32_t *dst, uint32_t a, uint32_t b)
{
    uint32_t n = g->n, m = hf_csr_edges(g);
    for (uint32_t e = 0; e < m; e++) {
        assert(g->dst[e] <= n);
        if (g->dst[e] - a < b - a)
            off[g->dst[e] + 2]++;
    }
    for (uint64_t k = (uint64_t)a + 2; k <= (uint64_t)b + 1; k++)
        off[k] += off[k - 1];
    for (uint32_t v = 0; v <= n; v++) {
        if (hf_cancel_due(v))
            return false;
        for (uint32_t e = g->off[v]; e < g->off[v + 1]; e++)
            if (g->dst[e] - a < b - a)
                dst[off[g->dst[e] + 1]++] = v;
    }
    return true;
}

bool hf_csr_transpose_chunked(const hf_csr *g, hf_csr *out, size_t chunk)
{
    memset(out, 0, sizeof *out);
    uint32_t n = g->n, m = hf_csr_edges(g);
    /* n+3 entries: one extra slot for the shifted count of node n */
    uint32_t *off = try_u32((size_t)n + 3);
    uint32_t *dst = try_u32(m);
    if (!off || !dst) {
        hf_work_free(off);
        hf_work_free(dst);
        return false;
    }
    hf_work_phase("transpose");
    memset(off, 0, ((size_t)n + 3) * sizeof *off);
    /* destinations per range: chunk bytes of off and dst, at the mean degree */
    uint64_t per = MAX(chunk / (4 + 4 * ((uint64_t)m / ((uint64_t)n + 1) + 1)), 1);
    for (uint64_t a = 0; a <= n; a += per) {
        uint32_t b = (uint32_t)MIN(a + per, (uint64_t)n + 1);
        if (!transpose_range(g, off, dst, (uint32_t)a, b)) {
            hf_work_free(off);
            hf_work_free(dst);
            return false;
        }
    }
    out->n = n; /* off keeps its spare entry: n + 3 */
    out->off = off;
    out->dst = dst;
    return true;
}

bool hf_csr_transpose(const hf_csr *g, hf_csr *out)
{
    /* in files, ranges of 512 MiB: a random write dirties only the range's
     * pages, each written back once, not again and again as the page cache
     * cycles through the whole array; in RAM one range */
    uint64_t m = hf_csr_edges(g);
    bool ram = hf_work_in_ram((size_t)(m ? m : 1) * 4) && hf_work_in_ram(((size_t)g->n + 3) * 4);
    return hf_csr_transpose_chunked(g, out, ram ? SIZE_MAX : (size_t)512 << 20);
}

/* ---- dominators (Semi-NCA) ----
 *
 * The working arrays are indexed by DFS preorder number, not by node: the
 * virtual root is number 0 and order[i-1] is number i.  That keeps the
 * hot loops of the semidominator pass on sequential or nearby memory, and
 * lets the caller's order array double as the number -> node map.
 */

/* Per number, first the link-eval forest: the ancestor and the smallest
 * semidominator on the compressed path, side by side because eval() reads
 * both at every step and a step is a cache miss.  Then, once the
 * semidominators are known, the jump pointers of the NCA pass. */
typedef union {
    struct {
        uint32_t anc, label;
    };
    struct {
        uint32_t jump, depth;
    };
} link_t;

typedef struct {
    const hf_csr *succ, *pred;
    uint32_t n;
    uint32_t *order;  /* caller's: number i >= 1 is node order[i-1] */
    uint32_t *pre;    /* node -> number, HF_NONE when unreached */
    uint32_t *idom;   /* caller's array, by number: DFS parent, then idom */
    uint32_t *semi;   /* by number: DFS edge cursor, then semidominator */
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
 * root is the parent array (idom[], by number) and each open node keeps
 * its next edge in semi[].  Returns the number of nodes reached, root
 * included; 0 when cancelled. */
static uint32_t dfs(snca *s)
{
    const uint32_t *off = s->succ->off, *dst = s->succ->dst;
    uint32_t count = 1, cur = 0;
    s->pre[s->n] = 0;
    s->idom[0] = HF_NONE;
    s->semi[0] = off[s->n];
    while (cur != HF_NONE) {
        uint32_t v = node_of(s, cur), e = s->semi[cur], end = off[v + 1];
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
            cur = s->idom[cur];
            continue;
        }
        uint32_t w = dst[e];
        s->semi[cur] = e + 1;
        s->pre[w] = count;
        s->order[count - 1] = w;
        s->idom[count] = cur;
        s->semi[count] = off[w];
        PREFETCH(&dst[off[w]]);
        cur = count++;
        if (hf_cancel_due(count))
            return 0;
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

/* Fetches ahead of the semidominator loop at number i, one stage per
 * distance, each stage using what the one before brought in: the offsets
 * of a predecessor list, the list, the predecessors' numbers, and where
 * eval() will start for them. */
static inline void prefetch_preds(const snca *s, uint32_t i)
{
    const uint32_t *off = s->pred->off, *src = s->pred->dst;
    if (i > 4 * AHEAD)
        PREFETCH(&off[s->order[i - 4 * AHEAD - 1]]);
    if (i > 3 * AHEAD)
        PREFETCH(&src[off[s->order[i - 3 * AHEAD - 1]]]);
    if (i > 2 * AHEAD) {
        uint32_t w = s->order[i - 2 * AHEAD - 1];
        for (uint32_t e = off[w]; e < off[w + 1] && e < off[w] + 4; e++)
            PREFETCH(&s->pre[src[e]]);
    }
    if (i > AHEAD) {
        uint32_t j = i - AHEAD, w = s->order[j - 1];
        for (uint32_t e = off[w]; e < off[w + 1] && e < off[w] + 4; e++) {
            uint32_t p = src[e] <= s->n ? s->pre[src[e]] : HF_NONE; /* bad: assert later */
            if (p != HF_NONE && p > j)
                PREFETCH(&s->link[p]);
        }
    }
}

/* Semidominators in reverse preorder.  A predecessor numbered below i is a
 * candidate itself; one numbered above i has been linked, and its
 * candidate is the smallest semidominator on its forest path. */
static bool semidominators(snca *s, uint32_t count)
{
    const uint32_t *off = s->pred->off, *src = s->pred->dst;
    for (uint32_t i = 0; i < count; i++)
        s->link[i] = (link_t){{.anc = s->idom[i], .label = i}};
    for (uint32_t i = count - 1; i >= 1; i--) {
        if (hf_cancel_due(i))
            return false;
        prefetch_preds(s, i);
        uint32_t w = node_of(s, i), best = s->idom[i];
        for (uint32_t e = off[w]; e < off[w + 1]; e++) {
            assert(src[e] <= s->n);
            uint32_t p = s->pre[src[e]];
            if (p == HF_NONE)
                continue;
            if (p > i)
                p = eval(s->link, p, i);
            if (p < best)
                best = p;
        }
        s->semi[i] = best;
        s->link[i].label = best;
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

/* idom by number -> idom by node, in place, via semi[] (free by now). */
static void idom_to_nodes(snca *s, uint32_t count)
{
    for (uint32_t i = 1; i < count; i++)
        s->semi[i] = node_of(s, s->idom[i]);
    for (uint32_t v = 0; v < s->n; v++)
        s->idom[v] = s->pre[v] == HF_NONE ? HF_NONE : s->semi[s->pre[v]];
    s->idom[s->n] = s->n;
}

/* The DFS is the last user of succ: when the caller lets us, it goes
 * before link[] (8 bytes per node) is allocated, which lowers the peak. */
static bool dom_compute(const hf_csr *succ, hf_csr *drop, const hf_csr *pred, uint32_t *idom,
                        uint32_t *order, uint32_t *n_reached)
{
    uint32_t n = succ->n, count = 0;
    assert(pred->n == n && hf_csr_edges(pred) == hf_csr_edges(succ));
    size_t len = (size_t)n + 1;
    snca s = {.succ = succ, .pred = pred, .n = n, .order = order, .idom = idom,
              .pre = try_u32(len), .semi = try_u32(len)};
    if (s.pre && s.semi) {
        memset(s.pre, 0xff, len * sizeof *s.pre);
        hf_work_random(s.pre); /* filled in order, then read by node: at random */
        hf_work_phase("dfs");
        count = dfs(&s);
    }
    if (drop)
        hf_csr_free(drop);
    if (count)
        s.link = hf_work_alloc(count * sizeof(link_t));
    hf_work_phase("semidominators");
    bool ok = s.link && semidominators(&s, count);
    hf_work_phase("nca");
    ok = ok && nearest_common_ancestors(&s, count);
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

bool hf_dom_compute(const hf_csr *succ, const hf_csr *pred, uint32_t *idom, uint32_t *order,
                    uint32_t *n_reached)
{
    return dom_compute(succ, NULL, pred, idom, order, n_reached);
}

bool hf_dom_compute_free_succ(hf_csr *succ, const hf_csr *pred, uint32_t *idom, uint32_t *order,
                              uint32_t *n_reached)
{
    return dom_compute(succ, succ, pred, idom, order, n_reached);
}

/* ---- retained sizes and the dominator tree ---- */

void hf_dom_retained(uint32_t n, const uint32_t *idom, const uint32_t *order, uint32_t n_reached,
                     const uint64_t *shallow, uint64_t *retained)
{
    /* shallow may alias retained: each entry is read before it is written */
    hf_work_phase("retained");
    for (uint32_t v = 0; v < n; v++)
        retained[v] = idom[v] == HF_NONE ? 0 : shallow[v];
    retained[n] = 0;
    /* reverse preorder: all of v's dominator subtree comes after v */
    for (uint32_t k = n_reached; k-- > 0;) {
        if (hf_cancel_due(k))
            return; /* the caller asks hf_cancelled() */
        uint32_t v = order[k];
        retained[idom[v]] += retained[v];
    }
}

/* Sorting one node's children: larger retained first, then smaller node
 * number, a strict total order since node numbers are distinct.  The
 * retained sizes are gathered next to the segment first (key[i] belongs
 * to node[i], and the two move together), because comparing through
 * retained[] is a cache miss per comparison and the virtual root alone
 * may have millions of children.  Written out rather than qsort_r() so the
 * comparison inlines and nothing mallocs behind our back. */
typedef struct {
    uint64_t *key;
    uint32_t *node;
} kids_t;

static inline bool kid_before(uint64_t ka, uint32_t a, uint64_t kb, uint32_t b)
{
    return ka != kb ? ka > kb : a < b;
}

static inline bool before(kids_t k, size_t i, size_t j)
{
    return kid_before(k.key[i], k.node[i], k.key[j], k.node[j]);
}

static inline void swap_kids(kids_t k, size_t i, size_t j)
{
    uint64_t tk = k.key[i];
    uint32_t tn = k.node[i];
    k.key[i] = k.key[j];
    k.node[i] = k.node[j];
    k.key[j] = tk;
    k.node[j] = tn;
}

static void insertion_sort(kids_t k, uint32_t lo, uint32_t hi)
{
    for (uint32_t i = lo + 1; i < hi; i++)
        for (uint32_t j = i; j > lo && before(k, j, j - 1); j--)
            swap_kids(k, j, j - 1);
}

/* Heapsort: the fallback that bounds the quicksort below by O(n log n). */
static void sift_down(kids_t k, size_t base, size_t len, size_t i)
{
    for (size_t c; (c = 2 * i + 1) < len; i = c) {
        if (c + 1 < len && before(k, base + c, base + c + 1))
            c++;
        if (!before(k, base + i, base + c))
            break;
        swap_kids(k, base + i, base + c);
    }
}

static void heap_sort(kids_t k, uint32_t lo, uint32_t hi)
{
    size_t len = hi - lo;
    for (size_t i = len / 2; i-- > 0;)
        sift_down(k, lo, len, i);
    for (size_t end = len; end-- > 1;) {
        swap_kids(k, lo, lo + end);
        sift_down(k, lo, end, 0);
    }
}

/* Hoare partition of [lo, hi) (hi - lo > 16) around the median of three;
 * returns j with [lo, j] before [j+1, hi), both parts non-empty. */
static uint32_t partition(kids_t k, uint32_t lo, uint32_t hi)
{
    uint32_t mid = lo + (hi - lo) / 2;
    if (before(k, mid, lo))
        swap_kids(k, mid, lo);
    if (before(k, hi - 1, mid))
        swap_kids(k, hi - 1, mid);
    if (before(k, mid, lo))
        swap_kids(k, mid, lo);
    uint64_t pk = k.key[mid];
    uint32_t pn = k.node[mid], i = lo - 1, j = hi;
    for (;;) {
        do
            i++;
        while (kid_before(k.key[i], k.node[i], pk, pn));
        do
            j--;
        while (kid_before(pk, pn, k.key[j], k.node[j]));
        if (i >= j)
            return j;
        swap_kids(k, i, j);
    }
}

typedef struct {
    uint32_t lo, hi, depth;
} range_t;

/* Introsort without recursion: the smaller part is sorted first, the
 * larger waits on a stack, so the stack holds at most log2(len) ranges. */
static void sort_kids(kids_t k, uint32_t len)
{
    range_t stack[40];
    uint32_t top = 0, lo = 0, hi = len, depth = 2 * (uint32_t)g_bit_storage(len);
    for (;;) {
        while (hi - lo > 16) {
            if (depth-- == 0) {
                heap_sort(k, lo, hi);
                lo = hi;
                break;
            }
            uint32_t j = partition(k, lo, hi) + 1;
            bool left_smaller = j - lo < hi - j;
            stack[top++] = left_smaller ? (range_t){j, hi, depth} : (range_t){lo, j, depth};
            if (left_smaller)
                hi = j;
            else
                lo = j;
        }
        insertion_sort(k, lo, hi);
        if (top == 0)
            return;
        top--;
        lo = stack[top].lo;
        hi = stack[top].hi;
        depth = stack[top].depth;
    }
}

bool hf_dom_children(uint32_t n, const uint32_t *idom, const uint64_t *retained, hf_csr *out)
{
    memset(out, 0, sizeof *out);
    uint32_t *off = try_u32((size_t)n + 3);
    if (!off)
        return false;
    hf_work_phase("children");
    memset(off, 0, ((size_t)n + 3) * sizeof *off);
    uint32_t kids = 0;
    for (uint32_t v = 0; v < n; v++)
        if (idom[v] != HF_NONE) {
            assert(idom[v] <= n);
            off[idom[v] + 2]++;
            kids++;
        }
    uint32_t most = 0;
    for (uint32_t v = 0; v <= n; v++)
        most = off[v + 2] > most ? off[v + 2] : most;
    uint32_t *dst = try_u32(kids);
    uint64_t *key = hf_work_alloc((most ? most : 1) * sizeof(uint64_t));
    if (!dst || !key)
        goto fail;
    bucket_starts(off, n + 1);
    for (uint32_t v = 0; v < n; v++)
        if (idom[v] != HF_NONE)
            dst[off[idom[v] + 1]++] = v;
    for (uint32_t v = 0; v <= n; v++) {
        if (hf_cancel_due(v))
            goto fail;
        kids_t k = {key, dst + off[v]};
        uint32_t len = off[v + 1] - off[v];
        if (len < 2) /* most nodes: nothing to sort, and no call for it */
            continue;
        for (uint32_t i = 0; i < len; i++)
            key[i] = retained[k.node[i]];
        sort_kids(k, len);
    }
    hf_work_free(key);
    out->n = n; /* off keeps its spare entry: n + 3 */
    out->off = off;
    out->dst = dst;
    return true;
fail:
    hf_work_free(off);
    hf_work_free(dst);
    hf_work_free(key);
    return false;
}

/* ---- children without offsets ---- */

typedef struct {
    const uint32_t *kids, *idom;
    uint32_t n, v;
    bool upper;
} kids_key;

/* Whether child i's dominator is below v (upper: not above v). */
static bool kid_below(const void *ud, uint64_t i)
{
    const kids_key *k = ud;
    uint32_t d = k->kids[i] <= k->n ? k->idom[k->kids[i]] : HF_NONE;
    return k->upper ? d <= k->v : d < k->v;
}

void hf_dom_kids_of(const uint32_t *kids, uint32_t n_kids, const uint32_t *idom, uint32_t n,
                    uint32_t v, uint32_t *a, uint32_t *b)
{
    kids_key k = {kids, idom, n, v, false};
    *a = (uint32_t)hf_lower_bound(0, n_kids, kid_below, &k);
    k.upper = true;
    *b = (uint32_t)hf_lower_bound(*a, n_kids, kid_below, &k);
}
