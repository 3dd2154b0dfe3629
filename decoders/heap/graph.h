/*
 * graph.h - the object graph of one heap snapshot, as compact arrays, and
 * the whole-graph computations on it: dominators, retained sizes, the
 * dominator tree and shortest paths from the GC roots.
 *
 * Nodes.  Objects are numbered 0 .. n-1.  Node n is a virtual root whose
 * successors are the GC roots, so "reachable" always means reachable from
 * node n.  Every per-node array below has n+1 entries (the virtual root
 * included) unless stated otherwise; "none" is UINT32_MAX.  Hence
 * n <= UINT32_MAX - 2; in heapfs n < 2^31.
 *
 * Edges.  A graph is an hf_csr (compressed sparse row): the edges of v are
 * dst[off[v] .. off[v+1]).  off is uint32_t, so a graph has at most
 * UINT32_MAX edges; hf_csr_build() returns false beyond that.  Every dst
 * must be <= n: hf_csr_build() rejects other edges (returns false); for a
 * CSR filled by hand that is the caller's duty, and the functions here
 * assert() it.  Duplicate edges, self loops and edges
 * into the virtual root are allowed and harmless.
 *
 * A typical run (19.5 million objects):
 *
 *     hf_csr succ, pred, kids;
 *     hf_csr_build(&succ, n, my_edges, my_dump);     // once over the edges in RAM
 *     hf_csr_transpose(&succ, &pred);                 // referrers, kept
 *     hf_graph_bfs(&succ, parent);                   // then packed against pred:
 *     hf_parents_pack(parent, &pred, &parents);       // 1 byte per node, kept
 *     hf_dom_compute_pred(&succ, &succ, hf_pred_given, &pred, idom, order,
 *                         &reached);                  // in files, maybe _free_succ
 *     fill retained[v] with the shallow size of v;
 *     hf_dom_retained(n, idom, order, reached, retained, retained);
 *     hf_dom_children(n, idom, retained, &kids);
 *
 * Memory.  Successor or predecessor CSR: 4 bytes per node + 4 per edge.
 * idom, parent, order: 4 bytes per node each; retained: 8.  Temporaries,
 * freed before return:
 *     hf_csr_build:    in one pass (arrays in RAM), the edges again (4
 *                      bytes each) until placed; in two passes none
 *     hf_csr_transpose: none
 *     hf_dom_retained: none; with arrays in files (workmem.h) a copy of
 *                      retained in RAM when the budget has room, 8 bytes
 *                      per node: its adds at random stay out of the file
 *     hf_dom_compute:  16 bytes per node, 12 of them during the DFS (DFS
 *                      and path compression need no stack: the DFS walks
 *                      back along its parent array, the compression
 *                      reverses pointers in place); after the DFS, the
 *                      predecessors renumbered (4 bytes per reachable
 *                      node + 4 per edge from one) and, unless succ may
 *                      be overwritten (_free_succ), 4 bytes per edge;
 *                      hf_dom_compute_pred: none after the DFS
 *     hf_graph_bfs:    4 bytes per node (the queue)
 *     hf_dom_children: 8 bytes per child of the node with most children
 *                      (usually the virtual root); with arrays in files, 4
 *                      per node more while the children move to a file
 * So what heapfs keeps (pred, idom, packed parents, children without
 * offsets, and retained in 6 bytes: hf_size48) is 19 bytes per node + 4
 * per edge.  The peak, run as
 * above, is the DFS, with succ, pred, packed parents, idom, order and 12
 * bytes per node of temporaries alive: 29 bytes per node + 8 per edge.
 * Run with hf_dom_compute_free_succ it is where the dominator pass
 * renumbers the predecessors, with the renumbered pred alive too: 33
 * bytes per node + 12 per edge.
 *
 * Speed.  On a big graph nearly every step is a cache miss; what costs is
 * a chain of misses that depend on each other (DFS, path compression).
 * The loops prefetch what they can see coming.  Heap graphs whose
 * references mostly point near the referrer in dump order run several
 * times faster than graphs with uniformly random references.
 *
 * Ownership.  Every output array is allocated by the caller, with the size
 * stated at the function.  An hf_csr filled by hf_csr_build(),
 * hf_csr_transpose(), hf_csr_pred_renumbered() or hf_dom_children() owns
 * its two arrays and is released with hf_csr_free().  On failure (false)
 * an output CSR is left empty ({0}), and no memory is kept.
 *
 * Where the memory is.  Every array allocated here, output or temporary,
 * comes from core/workmem.h's hf_work_alloc (freed with hf_work_free): RAM
 * unless the calling thread has opened an hf_work, which puts arrays past
 * its budget in mapped files (a graph larger than memory).  The code is the
 * same either way; the loops' access order (sequential passes, prefetched
 * random reads) is what keeps the page faults of files in check.
 *
 * Stack.  Everything is iterative; a chain of any length is fine with the
 * default stack.
 *
 * Thread safety.  There is no global state but workmem.h's (a thread's
 * hf_work, a locked table of its arrays): every function is a pure
 * function of its arguments, so calls on different data may run
 * concurrently, and calls that only read the same graph (hf_dom_compute,
 * hf_graph_bfs and hf_csr_transpose on one succ; not
 * hf_dom_compute_free_succ, which overwrites and frees it) may too: the
 * dominators need succ alone until their DFS ends, so they may run beside
 * the transpose and the BFS; hf_dom_compute_pred reads pred only once
 * its wait has returned it, the hand-over being the caller's to lock.
 * Nothing here locks.
 *
 * Cancellation.  The one outside input: the functions that walk the whole
 * graph give up when hf_cancelled() (core/cancel.h, the mount is going
 * away), asked every 65536 steps: those returning bool return false, with
 * no memory kept, as on allocation failure; hf_dom_retained returns with
 * retained unfinished (its caller asks hf_cancelled()).
 *
 * Algorithm: Semi-NCA, from L. Georgiadis, R. E. Tarjan, R. F. Werneck,
 * "Finding Dominators in Practice", JGAA 10(1), 2006, which builds on
 * T. Lengauer, R. E. Tarjan, "A Fast Algorithm for Finding Dominators in a
 * Flowgraph", TOPLAS 1(1), 1979.  Semidominators by path compression,
 * O(m log n); then each idom by a search up the dominator tree built so
 * far, which jump pointers keep to O(log n) (plain Semi-NCA walks, and is
 * quadratic on a deep list whose tail fans out to shared objects).
 * Everything after the DFS is on DFS preorder numbers (graphdom.c): in
 * memory the semidominator pass reads the predecessors by node and looks
 * their numbers up, fetched ahead (hf_dom_compute_pred); else the
 * predecessors are rebuilt in that numbering by a counting sort (by
 * ranges of destinations when the arrays are files), so the pass reads
 * them in order, backwards.  The link-eval forest, asked for first so
 * that it is the array likeliest to get the RAM, is touched by numbers;
 * idom goes back to nodes once at the end.
 */
#ifndef HF_GRAPH_H
#define HF_GRAPH_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HF_NONE UINT32_MAX /* "no node": unreachable, no parent */

typedef struct {
    uint32_t n;     /* real nodes 0..n-1; node n is the virtual root */
    uint32_t *off;  /* n+2 entries: edges of v are dst[off[v] .. off[v+1]) */
    uint32_t *dst;  /* off[n+1] entries */
} hf_csr;

/* Number of edges of g, and the out-degree of v (v <= n). */
static inline uint32_t hf_csr_edges(const hf_csr *g) { return g->off[g->n + 1]; }
static inline uint32_t hf_csr_degree(const hf_csr *g, uint32_t v) { return g->off[v + 1] - g->off[v]; }

/* Work over items [0, n) shared by threads that take chunks of
 * HF_CHUNK items in turn until none is left (*next, from 0, is the next
 * chunk): ranges of as many items can differ much in work (the second
 * half of the bench dump has twice the bytes and all the object arrays),
 * chunks even it out.  2^18 items: the threads' first writes to an array
 * of 8 bytes an item (the ids) stay 2 MiB apart, each thread faulting in
 * page tables of its own.  The next chunk as [*lo, *hi); false when none
 * is left. */
#define HF_CHUNK (1u << 18)
static inline bool hf_chunk_take(gint *next, uint64_t n, uint64_t *lo, uint64_t *hi)
{
    uint64_t k = (guint)g_atomic_int_add(next, 1);
    if (k >= (n + HF_CHUNK - 1) / HF_CHUNK)
        return false;
    *lo = k * HF_CHUNK;
    *hi = MIN(*lo + HF_CHUNK, n);
    return true;
}

/* The edge source of hf_csr_build: src(ud, v, counting, emit, ectx)
 * calls emit(ectx, w) once for every edge v -> w, v in 0..n (n: the GC
 * roots).  While `counting` (the first of two passes) only the number of
 * calls counts, so a source may skip resolving targets and emit any node
 * <= n. */
typedef void (*hf_edge_emit)(void *ectx, uint32_t dst);
typedef void (*hf_edge_source)(void *ud, uint32_t v, bool counting, hf_edge_emit emit,
                               void *ectx);

/* Build *out from src.  Each pass over v = 0..n runs a thread per core (at
 * most 8), each taking chunks of nodes in turn (hf_chunk_take), so src is
 * called from several threads at once, each time for a different v: it
 * must be thread-safe for distinct nodes.  The order of a node's edges is
 * kept.
 *
 * With the working arrays in RAM (core/workmem.h: none in a file, and room
 * in the budget for 4 edges a node twice), in one pass: src is called once
 * per node (counting false), its edges go to blocks of their chunk of
 * nodes, then each chunk's to their place (temporary: the edges again,
 * 4 bytes each, and up to 512 KiB a chunk).  Otherwise in two passes, so
 * no edge list is ever held twice: the first counts, the second stores,
 * and src must emit the same edges both times.
 *
 * Returns false, with *out empty and no memory kept, when the two passes
 * disagree, an edge points past n, a node has more than UINT32_MAX edges,
 * the graph more than UINT32_MAX, memory runs out or it is cancelled. */
bool hf_csr_build(hf_csr *out, uint32_t n, hf_edge_source src, void *ud);

/* hf_csr_build with a step before src stores: in two passes,
 * between(ud, deg) between them, deg[v] (v in 0..n) the number of edges v
 * emitted in the first pass, which it may change, preparing src for the
 * second pass (resolve what the first pass gathered: one pass over the
 * input less); in one pass, between(ud, NULL) before it: there is no
 * first pass, so src must gather for itself what it needs, and emits all
 * of each node's edges then.  False stops the build (false, *out empty).
 * NULL: hf_csr_build. */
typedef bool (*hf_edge_between)(void *ud, uint32_t *deg);
bool hf_csr_build_with(hf_csr *out, uint32_t n, hf_edge_source src, hf_edge_between between,
                       void *ud);

/* The predecessor graph of g (same n), by counting sort in O(n + m);
 * each node's predecessors come out in ascending order.  False on
 * allocation failure. */
bool hf_csr_transpose(const hf_csr *g, hf_csr *out);

/* The same, over ranges of destinations of about `chunk` bytes of the
 * output each (R ranges: R + 1 passes over g, each placing one range and
 * counting the next): the writes of a range stay in its part of the
 * output.  hf_csr_transpose uses one range when the output
 * is in RAM, ranges of 1 GiB when its arrays are files (workmem.h), so
 * that each dirty page is written back once. */
bool hf_csr_transpose_chunked(const hf_csr *g, hf_csr *out, size_t chunk);

/* Frees what g owns and empties it; g may be empty or already freed. */
void hf_csr_free(hf_csr *g);

/* Immediate dominators of every node reachable from the virtual root,
 * from succ alone (the predecessors it needs it makes itself, in DFS
 * preorder numbering: hf_csr_pred_renumbered).
 *   idom[v]  (n+1 entries): the immediate dominator of v, n when that is
 *            the virtual root, HF_NONE when v is unreachable; idom[n] = n.
 *   order    (n entries):   order[0 .. *n_reached) are the reachable real
 *            nodes in DFS preorder, so idom[v] is n or comes before v.
 * Temporaries: 16 bytes per node, and the renumbered predecessors with
 * 4 bytes per edge while they are made.  O(m log n).  False on
 * allocation failure. */
bool hf_dom_compute(const hf_csr *succ, uint32_t *idom, uint32_t *order, uint32_t *n_reached);

/* hf_dom_compute from the predecessors by node, for a graph in RAM or
 * whose pred stays in the page cache (hf_dom_pred_by_node): after the
 * DFS, wait(ud) gives pred, the transpose of succ (hf_csr_transpose: each
 * list in ascending order), which a caller may be making on another
 * thread meanwhile; NULL gives up (false).  The semidominator pass then
 * reads pred and the numbers of its nodes at random instead of
 * renumbering the predecessors first: on the 1 GB bench dump 0.9 s less
 * on the way to the result, 2 CPU s less, and no renumbered lists (4
 * bytes a node + 4 an edge, and as much again while they are sorted).
 * drop: succ itself when the caller has no further use for it (freed
 * after the DFS, whatever the outcome), else NULL.  wait is called once
 * the DFS is done with succ, which the pass reads no more: a caller that
 * shares succ with another thread may free it from there. */
typedef const hf_csr *(*hf_pred_wait)(void *ud);
bool hf_dom_compute_pred(const hf_csr *succ, hf_csr *drop, hf_pred_wait wait, void *ud,
                         uint32_t *idom, uint32_t *order, uint32_t *n_reached);
/* The wait for a pred there already: returns ud. */
const hf_csr *hf_pred_given(void *ud);
/* Whether hf_dom_compute_pred pays for pred, made by the calling thread's
 * computation (workmem.h): always with every array in RAM; in files when
 * pred and the DFS numbers (4 bytes a node), read at random, take at most
 * two thirds of the memory available (hf_mem_available), so that the page
 * cache keeps them (the 600 M dump: 338 s instead of 457;
 * docs/retained.md, step 3).  With less (a memory cgroup) each lookup
 * would be a read from disk: hf_dom_compute_free_succ. */
bool hf_dom_pred_by_node(const hf_csr *pred);

/* The bytes of hf_dom_compute's link-eval forest (8 per node), its
 * first array and the one it writes at random (path compression): what a
 * caller with arrays in files reserves RAM for (workmem.h,
 * hf_work_reserve) before asking for arrays of its own. */
static inline size_t hf_dom_forest_bytes(uint32_t n)
{
    return ((size_t)n + 1) * 8;
}

/* The same, for a caller that has no further use for succ (run
 * hf_graph_bfs first): renumbers succ's edges in place (4 bytes per edge
 * less) and frees it (hf_csr_free) once the predecessors are made, before
 * the last 4 bytes per node of temporaries are allocated.  succ is freed
 * whatever the outcome. */
bool hf_dom_compute_free_succ(hf_csr *succ, uint32_t *idom, uint32_t *order,
                              uint32_t *n_reached);

/* The predecessors of g renumbered: num (n+1 entries) gives node v the
 * number num[v] < count, or HF_NONE to leave v and its edges out.  out
 * gets count nodes (out->n = count - 1, off with count+2 entries), the list
 * of number i holding num[v] of each edge v -> w with num[w] = i (its
 * duplicates kept), the sources in node order.  One pass over g in node
 * order (num[w] read at random, fetched ahead), then a counting sort by
 * ranges of destinations of about chunk bytes of output (0: one range in
 * RAM, 1 GiB when the arrays are files), as hf_csr_transpose_chunked.
 * With the arrays in RAM and a processor to spare (workmem.h's
 * hf_work_beside_pays), the pass runs on two threads, each on the
 * sources of half the edges, and so does a sort in one range (4 bytes per
 * number more, for the second thread's counts): the same result.
 * Temporary: 4 bytes per edge.  False on allocation failure or when
 * cancelled. */
bool hf_csr_pred_renumbered(const hf_csr *g, const uint32_t *num, uint32_t count, size_t chunk,
                            hf_csr *out);

/* Retained sizes: retained[v] = shallow[v] + the retained sizes of the
 * nodes v immediately dominates, in one pass over order in reverse.
 * retained (n+1 entries): retained[n] = all reachable bytes; 0 for an
 * unreachable node.  shallow (n entries) may be the same array as
 * retained: fill retained with shallow sizes and pass it twice.  That is
 * why this takes an array and not a callback: the caller computes shallow
 * sizes in one sequential pass anyway, and doing it in place costs no
 * extra 8 bytes per node and no indirect call per node here. */
void hf_dom_retained(uint32_t n, const uint32_t *idom, const uint32_t *order, uint32_t n_reached,
                     const uint64_t *shallow, uint64_t *retained);

/* Sizes kept in 6 bytes, for the retained sizes a mount keeps (2 bytes
 * a node less than uint64_t: 38 MB on the 1 GB bench dump, 1.2 GB on a
 * dump of 600 M objects).  48 bits hold 256 TiB, far beyond any heap; a
 * larger figure (only a forged dump's shallow sizes add up to that) is
 * kept as 2^48 - 1.  Three 16-bit words, so the array needs no alignment
 * beyond 2 and a lookup reads one cache line (two at a line's end). */
typedef struct {
    uint16_t w[3];
} hf_size48;
#define HF_SIZE48_MAX ((UINT64_C(1) << 48) - 1)

static inline uint64_t hf_size48_get(const hf_size48 *a, size_t i)
{
    const uint16_t *w = a[i].w;
    return (uint64_t)w[0] | (uint64_t)w[1] << 16 | (uint64_t)w[2] << 32;
}

static inline void hf_size48_set(hf_size48 *a, size_t i, uint64_t v)
{
    if (v > HF_SIZE48_MAX)
        v = HF_SIZE48_MAX;
    a[i] = (hf_size48){{(uint16_t)v, (uint16_t)(v >> 16), (uint16_t)(v >> 32)}};
}

/* The dominator tree as a CSR over the same n+1 nodes: out->dst[off[v] ..
 * off[v+1]) are the nodes v immediately dominates, by retained size
 * descending, ties by node number ascending.  Unreachable nodes have no
 * children and are nobody's child.  False on allocation failure. */
bool hf_dom_children(uint32_t n, const uint32_t *idom, const uint64_t *retained, hf_csr *out);

/* hf_dom_children in its three steps, for a caller that walks the tree
 * before its children are sorted (retained.c: each class's retained bytes
 * need the tree, not its order).  hf_dom_group: the children grouped by
 * immediate dominator, in node order within a group (dst in RAM when the
 * budget has room: it is written at random).  hf_dom_sort_kids: each
 * group in hf_dom_children's order, in place; false when cancelled.
 * hf_dom_kids_keep: when the computation has arrays in files and dst is
 * not one, dst moves to a file (written once, in order), as an array kept
 * for the life of a mount should. */
bool hf_dom_group(uint32_t n, const uint32_t *idom, hf_csr *out);
bool hf_dom_sort_kids(const hf_csr *kids, const uint64_t *retained);
void hf_dom_kids_keep(hf_csr *kids);

/* The children of v in a dominator tree kept without its offsets: kids is
 * hf_dom_children's dst alone (n_kids entries, grouped by immediate
 * dominator in node order), idom the same graph's; [*a, *b) is v's group,
 * found by binary search on idom (O(log n); 4 bytes per node less than
 * the offsets).  Entries out of range (a damaged file) read as dominated by
 * nothing, so the answer may be wrong but no read leaves the arrays. */
void hf_dom_kids_of(const uint32_t *kids, uint32_t n_kids, const uint32_t *idom, uint32_t n,
                    uint32_t v, uint32_t *a, uint32_t *b);

/* Breadth-first search from the virtual root.  parent (n+1 entries):
 * parent[v] = the node v was first reached from (n for a GC root), HF_NONE
 * when v is unreachable; parent[n] = n.  Following parent from v to n
 * gives a shortest path from the roots to v (reversed).  False on
 * allocation failure. */
bool hf_graph_bfs(const hf_csr *succ, uint32_t *parent);

/* Number of edges on the parent chain from v to the virtual root (1 for
 * a GC root, 0 for n); HF_NONE when v is unreachable.  O(path length). */
uint32_t hf_graph_depth(const uint32_t *parent, uint32_t n, uint32_t v);

/* BFS parents packed to about one byte per node: a parent is always among
 * v's referrers, so keep its place in pred's list of v (the first place,
 * pred's lists being in node order as hf_csr_transpose makes them).  A
 * place of HF_SLOT_FAR or more goes to a short sorted list instead.  The
 * arrays come from hf_work_alloc (hf_parents_free) or mapped from a graph file; a
 * lookup checks every place against pred, so a damaged file gives a wrong
 * parent (HF_NONE), never a read outside the arrays. */
#define HF_SLOT_FAR 254  /* the parent is in far[] */
#define HF_SLOT_NONE 255 /* unreachable */
typedef struct {
    uint8_t *slot;  /* n+1 */
    uint64_t *far;  /* v << 32 | parent, ascending */
    uint32_t n_far;
} hf_parents;

/* Pack parent (from hf_graph_bfs) against pred; false on allocation
 * failure (then out is empty). */
bool hf_parents_pack(const uint32_t *parent, const hf_csr *pred, hf_parents *out);
/* v's BFS parent as hf_graph_bfs gave it (n for v == n), HF_NONE when v is
 * unreachable. */
uint32_t hf_parents_get(const hf_parents *p, const hf_csr *pred, uint32_t v);
/* hf_graph_depth on packed parents; HF_NONE also for a chain that does not
 * reach the root within n steps (a damaged file). */
uint32_t hf_parents_depth(const hf_parents *p, const hf_csr *pred, uint32_t v);
void hf_parents_free(hf_parents *p);

#endif
