/*
 * graph.c - CSR graphs built, retained sizes and the dominator tree over a
 * heap snapshot; the counting sorts (transpose, predecessors renumbered)
 * are graphsort.c's, the dominators graphdom.c's, the BFS graphbfs.c's.
 * See graph.h.
 */
#include "decoders/heap/graph.h"
#include "decoders/heap/graphmem.h"

#include "decoders/core/cancel.h"
#include "decoders/core/search.h"
#include "decoders/core/workmem.h"

#include <assert.h>
#include <malloc.h>
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

/* The passes of a build.  Two passes (arrays in files): COUNT stores each
 * node's degree, STORE its edges at their place.  One pass (in RAM):
 * GATHER stores each node's degree and appends its edges to its chunk's
 * blocks, PLACE copies each chunk's blocks to their place in dst. */
typedef enum { PASS_COUNT, PASS_STORE, PASS_GATHER, PASS_PLACE } build_kind;

/* A chunk's edges in one pass, in the order emitted: a chain of blocks, the
 * last one filled as far as the chunk's degrees say.  512 KiB: a chunk of
 * the bench dump fills nine, and UINT32_MAX edges are 32 Ki blocks, within
 * the kernel's count of mappings should the budget send some to files. */
#define BLOCK_EDGES (1u << 17)
typedef struct edge_block {
    struct edge_block *next;
    uint32_t dst[BLOCK_EDGES];
} edge_block;

typedef struct {
    uint64_t count;    /* COUNT: edges seen (64-bit so an overflow shows);
                          GATHER: edges of the chunk in its full blocks */
    uint32_t *dst;     /* STORE: the graph's dst; GATHER: the block filled */
    uint32_t pos, end; /* STORE: the node's slots; GATHER: the block's */
    uint32_t limit;    /* largest valid dst (n) */
    edge_block **tail; /* GATHER: where the chunk's next block goes */
    bool bad;          /* a dst > n, STORE past the count, no memory */
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

/* GATHER: the chunk's next block, appended to its chain; false without
 * memory (then nothing more is stored: c->bad stops the pass). */
static bool next_block(build_ctx *c)
{
    edge_block *b = hf_work_alloc_seq(sizeof *b); /* written and read in order */
    if (!b) {
        c->bad = true;
        return false;
    }
    b->next = NULL;
    *c->tail = b;
    c->tail = &b->next;
    c->count += c->end;
    c->dst = b->dst;
    c->pos = 0;
    c->end = BLOCK_EDGES;
    return true;
}

static void emit_gather(void *ectx, uint32_t dst)
{
    build_ctx *c = ectx;
    if (G_UNLIKELY(c->pos == c->end) && !next_block(c))
        return;
    c->dst[c->pos++] = dst;
    c->bad |= dst > c->limit;
}

/* A pass of a build, shared by its threads. */
typedef struct {
    hf_edge_source src;
    void *ud;
    uint32_t *off;
    uint32_t *dst;        /* STORE, PLACE: the graph's */
    edge_block **chunks;  /* one pass: each chunk's blocks, NULL once placed */
    hf_work *work;        /* GATHER: the caller's, joined by the helpers */
    uint32_t n;           /* nodes 0..n */
    gint next;            /* the next chunk to take (hf_chunk_take) */
    gint stop;            /* a thread failed: the others stop too */
    build_kind kind;
} build_job;

/* One thread's part: its chunks' nodes, one at a time.  A cache line of
 * its own: c is written at every edge, and parts side by side in one line
 * made the two threads' counting pass take half as much CPU again. */
typedef struct {
    _Alignas(64) build_job *job;
    build_ctx c;
} build_part;

/* COUNT and GATHER store node v's degree in off[v + 1]; STORE fills its
 * edges. */
static void build_node(build_job *j, build_ctx *c, uint32_t v)
{
    if (j->kind == PASS_STORE) {
        c->pos = j->off[v];
        c->end = j->off[v + 1];
        j->src(j->ud, v, false, emit_store, c);
        c->bad |= c->pos != c->end;
        return;
    }
    bool counting = j->kind == PASS_COUNT; /* then pos stays 0 */
    uint64_t before = c->count + c->pos;
    j->src(j->ud, v, counting, counting ? emit_count : emit_gather, c);
    uint64_t deg = c->count + c->pos - before;
    c->bad |= deg > UINT32_MAX;
    j->off[v + 1] = (uint32_t)deg;
}

/* PLACE: chunk [lo, hi)'s blocks copied to its edges' place, each freed
 * once copied. */
static void place_chunk(build_job *j, uint64_t lo, uint64_t hi)
{
    edge_block **head = &j->chunks[lo / HF_CHUNK];
    uint32_t *to = j->dst + j->off[lo];
    uint64_t left = j->off[hi] - j->off[lo];
    while (*head) {
        edge_block *b = *head;
        uint64_t k = MIN(left, BLOCK_EDGES);
        memcpy(to, b->dst, k * sizeof *to);
        to += k;
        left -= k;
        *head = b->next;
        hf_work_free(b);
    }
}

static void free_chunks(build_job *j)
{
    for (uint64_t k = 0; j->chunks && k <= j->n / HF_CHUNK; k++)
        while (j->chunks[k]) {
            edge_block *b = j->chunks[k];
            j->chunks[k] = b->next;
            hf_work_free(b);
        }
    g_free(j->chunks);
    j->chunks = NULL;
}

static gpointer build_range(gpointer arg)
{
    build_part *p = arg;
    build_job *j = p->job;
    build_ctx *c = &p->c;
    uint64_t lo, hi, step = 0;
    while (!c->bad && !g_atomic_int_get(&j->stop) &&
           hf_chunk_take(&j->next, (uint64_t)j->n + 1, &lo, &hi)) {
        if (j->kind == PASS_PLACE) {
            c->bad |= hf_cancel_due(step++);
            if (!c->bad)
                place_chunk(j, lo, hi);
            continue;
        }
        if (j->kind == PASS_GATHER) { /* the chunk's blocks start */
            c->tail = &j->chunks[lo / HF_CHUNK];
            c->count = c->pos = c->end = 0;
        }
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

/* A helper of GATHER allocates blocks: in the caller's hf_work, so that
 * they are placed and counted as its arrays. */
static gpointer helper_range(gpointer arg)
{
    build_part *p = arg;
    hf_work *w = p->job->kind == PASS_GATHER ? p->job->work : NULL;
    if (w)
        hf_work_join(w);
    build_range(p);
    if (w)
        hf_work_leave();
    return NULL;
}

/* Runs a pass of job over `parts`, on threads of their own but the first. */
static bool build_pass(build_job *job, build_part *parts, unsigned n_parts, build_kind kind)
{
    GThread *t[HF_BUILD_THREADS];
    job->kind = kind;
    job->next = job->stop = 0;
    for (unsigned i = 0; i < n_parts; i++)
        t[i] = i ? g_thread_new("hf-graph", helper_range, &parts[i]) : NULL;
    build_range(&parts[0]);
    bool bad = false;
    for (unsigned i = 0; i < n_parts; i++) {
        if (t[i])
            g_thread_join(t[i]);
        bad |= parts[i].c.bad;
    }
    return !bad;
}

/* One pass holds the edges twice at its end (in blocks, and placed): it
 * is for arrays in RAM, with room for 4 edges a node so (heap graphs have
 * 2 or 3); past that budget, a graph larger than memory (workmem.h), two
 * passes hold nothing but the graph. */
static bool build_in_one_pass(uint32_t n)
{
    return hf_work_in_files() == 0 && hf_work_in_ram(((size_t)n + 1) * 4 * 2 * sizeof(uint32_t));
}

bool hf_csr_build(hf_csr *out, uint32_t n, hf_edge_source src, void *ud)
{
    return hf_csr_build_with(out, n, src, NULL, ud);
}

/* off[v + 1] from degrees to where v's edges end; the number of edges, or
 * more than UINT32_MAX when they do not fit. */
static uint64_t degrees_to_offsets(uint32_t *off, uint32_t n)
{
    uint64_t total = 0;
    off[0] = 0;
    for (uint64_t v = 0; v <= n && total <= UINT32_MAX; v++) {
        total += off[v + 1];
        off[v + 1] = (uint32_t)total;
    }
    return total;
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
    /* A thread per core, taking chunks of nodes in turn: resolving references is
     * most of the work and needs no locks. */
    unsigned n_parts = MIN(hf_work_cpus(), HF_BUILD_THREADS);
    if (n < 4096)
        n_parts = 1;
    bool one = build_in_one_pass(n);
    build_job job = {src, ud, off, .work = hf_work_current(), .n = n};
    build_part parts[HF_BUILD_THREADS];
    for (unsigned i = 0; i < n_parts; i++)
        parts[i] = (build_part){&job, {.limit = n}};
    bool ok;
    if (one) {
        ok = (!between || between(ud, NULL)) &&
             (job.chunks = g_try_new0(edge_block *, n / HF_CHUNK + 1)) != NULL;
        hf_work_phase("read references");
        ok = ok && build_pass(&job, parts, n_parts, PASS_GATHER);
    } else {
        hf_work_phase("count references");
        ok = build_pass(&job, parts, n_parts, PASS_COUNT) && (!between || between(ud, off + 1));
    }
    uint64_t total = ok ? degrees_to_offsets(off, n) : 0;
    uint32_t *dst = ok && total <= UINT32_MAX ? try_u32_seq((size_t)total) : NULL;
    hf_work_phase(one ? "place references" : "store references");
    job.dst = dst;
    for (unsigned i = 0; i < n_parts; i++)
        parts[i].c = (build_ctx){.dst = dst, .limit = n};
    /* Two passes: each node gets exactly the room it asked for, so a node
     * that emits a different number of edges the second time is caught
     * here, not by its neighbour's slots shifting. */
    ok = dst && build_pass(&job, parts, n_parts, one ? PASS_PLACE : PASS_STORE);
    free_chunks(&job);
#ifdef __GLIBC__
    /* The blocks were malloc's, in its heaps, which keep what is freed
     * between what is not: 117 MB of the bench dump's 174 held for the
     * life of the mount, and at the dominators' peak. */
    if (one)
        malloc_trim(0);
#endif
    if (!ok) {
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

/* ---- retained sizes and the dominator tree ---- */

void hf_dom_retained(uint32_t n, const uint32_t *idom, const uint32_t *order, uint32_t n_reached,
                     const uint64_t *shallow, uint64_t *retained)
{
    /* shallow may alias retained: each entry is read before it is written */
    hf_work_phase("retained");
    /* With arrays in files, retained may be one, whose pages the adds at
     * random below would write back again and again (with idom and the
     * children, about 100 GB on the 600 M dump): they go to a copy in RAM
     * when the budget has room (the link-eval forest's, freed by now), and
     * the file is written once, in order. */
    size_t bytes = ((size_t)n + 1) * sizeof *retained;
    uint64_t *copy = hf_work_in_files() && hf_work_in_ram(bytes) ? hf_work_alloc(bytes) : NULL;
    uint64_t *r = copy ? copy : retained;
    for (uint32_t v = 0; v < n; v++)
        r[v] = idom[v] == HF_NONE ? 0 : shallow[v];
    r[n] = 0;
    /* reverse preorder: all of v's dominator subtree comes after v.  The
     * nodes come from order, so what they read is fetched ahead: idom
     * two rounds ahead, their sizes and their dominators' the round after */
    for (uint32_t k = n_reached; k-- > 0;) {
        if (hf_cancel_due(k))
            break; /* the caller asks hf_cancelled() */
        if (k >= 8 * AHEAD)
            PREFETCH(&idom[order[k - 8 * AHEAD]]);
        if (k >= 4 * AHEAD) {
            uint32_t a = order[k - 4 * AHEAD];
            PREFETCH(&r[a]);
            PREFETCH(&r[idom[a]]);
        }
        uint32_t v = order[k];
        r[idom[v]] += r[v];
    }
    if (copy) {
        memcpy(retained, copy, bytes);
        hf_work_free(copy);
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

bool hf_dom_group(uint32_t n, const uint32_t *idom, hf_csr *out)
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
    /* written at random: RAM when there is room, even with arrays in
     * files (hf_dom_kids_keep moves it to one when sorted) */
    uint32_t *dst = try_u32(kids);
    if (!dst) {
        hf_work_free(off);
        return false;
    }
    bucket_starts(off, n + 1);
    for (uint32_t v = 0; v < n; v++)
        if (idom[v] != HF_NONE)
            dst[off[idom[v] + 1]++] = v;
    out->n = n; /* off keeps its spare entry: n + 3 */
    out->off = off;
    out->dst = dst;
    return true;
}

bool hf_dom_sort_kids(const hf_csr *kids, const uint64_t *retained)
{
    const uint32_t *off = kids->off;
    uint32_t most = 0;
    for (uint32_t v = 0; v <= kids->n; v++)
        most = MAX(most, off[v + 1] - off[v]);
    uint64_t *key = hf_work_alloc((most ? most : 1) * sizeof(uint64_t));
    if (!key)
        return false;
    hf_work_phase("sort children");
    bool ok = true;
    for (uint32_t v = 0; ok && v <= kids->n; v++) {
        ok = !hf_cancel_due(v);
        kids_t k = {key, kids->dst + off[v]};
        uint32_t len = off[v + 1] - off[v];
        if (len < 2) /* most nodes: nothing to sort, and no call for it */
            continue;
        for (uint32_t i = 0; i < len; i++)
            key[i] = retained[k.node[i]];
        sort_kids(k, len);
    }
    hf_work_free(key);
    return ok;
}

void hf_dom_kids_keep(hf_csr *kids)
{
    uint32_t m = hf_csr_edges(kids);
    kids->dst = hf_work_keep(kids->dst, (size_t)(m ? m : 1) * sizeof *kids->dst); /* try_u32's */
}

bool hf_dom_children(uint32_t n, const uint32_t *idom, const uint64_t *retained, hf_csr *out)
{
    if (!hf_dom_group(n, idom, out))
        return false;
    if (!hf_dom_sort_kids(out, retained)) {
        hf_csr_free(out);
        return false;
    }
    hf_dom_kids_keep(out);
    return true;
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
