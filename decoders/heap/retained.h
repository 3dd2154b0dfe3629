/*
 * retained.h - what keeps objects alive: a snapshot's object graph, its
 * dominator tree, retained sizes, referrers and shortest paths from the GC
 * roots (graph.h does the arithmetic), computed once per snapshot, the
 * first time a view asks.
 *
 * The graph (docs/retained.md says the same for users):
 *   - roots: every GC root record, except thread-local ones (Java frame,
 *     JNI local, native stack, thread block) of a thread whose object is in
 *     the snapshot: those hang under that thread object instead, so a
 *     thread retains what only its stack holds (as MAT shows it);
 *   - an instance references the objects in its reference fields and its
 *     class object; an object array its elements and its class; a class
 *     object its static fields' objects and its class loader, so a leaking
 *     loader retains its classes;
 *   - java.lang.ref referents: a Reference's `referent` keeps its object
 *     alive only when the reference is at least as strong as the mount's
 *     level (-o retained=strong|soft|finalizer|weak|phantom; default
 *     strong: soft, weak, phantom and finalizer referents do not count;
 *     phantom: every referent counts, MAT's view);
 *   - objects no root reaches are "unreachable": no dominator, retained 0,
 *     listed only in the snapshot's `unreachable` view.
 *
 * Memory per object, kept for the life of the mount: referrers 4 bytes
 * per reference + 4, idom 4, BFS parent 1 (graph.h: hf_parents), retained
 * 6 (graph.h: hf_size48; 8 while computed), dominator-tree children 4 (no
 * offsets: graph.h hf_dom_kids_of).
 * While computing also the successors (4 per reference + 4), 16 for the
 * dominator algorithm and 10 for resolving ids (4 when the ids' buckets
 * are narrow: retained.c resolver_narrow); the retained array is made
 * (shallow sizes, read back from the dump) only after the dominator pass,
 * so it is not part of the peak, unless it would be a file anyway: then
 * the second pass over the references fills it, one pass over the dump
 * less (docs/retained.md "How it is computed").  All of these arrays come from an
 * hf_work (core/workmem.h) opened for the computation with the mount's
 * -o retained_mem (hf_dump.work): RAM within its budget, mapped files in
 * the index file's directory beyond it, kept as they are for the mount's
 * life; .stats says which (hf_hgraph.work).
 *
 * Thread safety: hf_heap_graph may be called from any thread; the first
 * caller for a snapshot computes it (or maps it from its index file,
 * hf_heap_graphs_keep) while the others wait (g_once); the result is
 * read-only afterwards and lives until hf_heap_clear.  A computed graph
 * is written to its file by a thread of its own, joined by
 * hf_heap_graphs_free.
 */
#ifndef HF_HEAP_RETAINED_H
#define HF_HEAP_RETAINED_H

#include "decoders/core/keepfile.h"
#include "decoders/heap/graph.h"
#include "decoders/heap/heap.h"

typedef struct {
    uint32_t n;          /* objects; node n is the virtual root */
    hf_csr pred;         /* referrers of each node (n: a GC root) */
    uint32_t *kids;      /* dominator-tree children, grouped by dominator in node
                            order, largest retained first: hf_hgraph_kids */
    uint32_t n_kids;
    uint32_t *idom;      /* immediate dominator, n: the root, HF_NONE: unreachable */
    hf_parents parent;   /* BFS parents (against pred): shortest paths from the roots */
    hf_size48 *retained; /* retained bytes, 6 each: hf_hgraph_retained */
    uint64_t *class_retained; /* per class: its instances' retained bytes, each
                                 counted once (instances under another instance
                                 of the class are not added again) */
    uint64_t reachable, unreachable;          /* objects */
    uint64_t unreachable_bytes, edges;
    double seconds;      /* time the computation took */
    uint64_t bytes;      /* memory kept, in bytes */
    char *error;         /* why there is no graph (then the arrays are NULL) */
    char *work;          /* computed: where its working arrays were (workmem.h) */
} hf_hgraph;

/* The retained bytes of node v (n: all reachable bytes). */
static inline uint64_t hf_hgraph_retained(const hf_hgraph *g, uint32_t v)
{
    return hf_size48_get(g->retained, v);
}

/* The dominator-tree children of node v (n: the GC roots' own) are
 * g->kids[*a .. *b). */
static inline void hf_hgraph_kids(const hf_hgraph *g, uint32_t v, uint32_t *a, uint32_t *b)
{
    hf_dom_kids_of(g->kids, g->n_kids, g->idom, g->n, v, a, b);
}

/* The graph of snapshot s, computed on first use.  Never NULL; when it
 * could not be computed (2^32 - 2 objects or more, more than 2^32
 * references, no memory or disk for the working arrays) g->error says why
 * and the arrays are NULL. */
const hf_hgraph *hf_heap_graph(hf_heap *h, uint32_t s);
/* Whether snapshot s's graph is computed already (never waits). */
bool hf_heap_graph_ready(const hf_heap *h, uint32_t s);
/* One line per computed snapshot for MOUNT/.stats: time, memory (an
 * hf_dump_ops.status; d is the hf_heap). */
void hf_heap_graph_status(hf_dump *d, GString *out);

/* Slot-th reference from object `from` to object `to` (slot counts the
 * references of `from` that point at `to`, from 0): its name as refs/
 * names it ("next", "3" for an array element, "<class>", "<loader>").
 * False when there is no such reference. */
bool hf_heap_ref_name(hf_heap *h, const hf_hsnap *sn, uint64_t from, uint64_t to, uint32_t slot,
                      char name[HF_NAME_MAX]);

/* Per-snapshot state; made by hf_heap_finish, freed by hf_heap_clear
 * (which waits for a graph file being written). */
typedef struct hf_hgraphs hf_hgraphs;
hf_hgraphs *hf_heap_graphs_new(uint32_t n_snaps);
void hf_heap_graphs_free(hf_hgraphs *g);

/* Keep computed graphs in index files (graphfile.h), one per snapshot:
 * hf_keep_candidates(dump_path, index_opt, ".retained-LEVEL.N") with
 * LEVEL the name of the mount's level (hf_dump.reach) and N the
 * snapshot's position from 1 (so DUMP.heapfs-index.retained-strong.1 by
 * default), keyed by the dump's key (its variant replaced by 1 + reach;
 * key->source the index file's id).  hf_heap_graph then maps a
 * snapshot's graph from its file when there is a valid one, and otherwise
 * computes it and writes the file on a thread of its own.  Call once,
 * inside open, before any hf_heap_graph. */
void hf_heap_graphs_keep(hf_hgraphs *g, const char *dump_path, const char *index_opt,
                         const hf_keepkey *key);
/* The same for a dump read from several files (a series), one snapshot
 * at a time: snapshot s is snapshot `number` (from 1) of the file at path,
 * whose key is *key, so that its results file is the one a mount of that
 * file alone reads and writes.  Before a graph is written, a file the dump
 * does not map as its own (hf_dump.data NULL) is mapped again to see it is
 * unchanged. */
void hf_heap_graphs_keep_file(hf_hgraphs *g, uint32_t s, const char *path, uint32_t number,
                              const char *index_opt, const hf_keepkey *key);
/* The id of the index file the heap now corresponds to (key.source of the
 * results files): the loaded one's, given to hf_heap_graphs_keep; or, for
 * a heap indexed at open, that of the index file written from it, once it
 * is (any thread).  Results files of another index file are not loaded,
 * so an index rebuilt (after damage its checksum missed, say) makes the
 * results computed from the old one stale. */
void hf_heap_graphs_source(hf_hgraphs *g, uint64_t index_id);
/* The same for snapshot s alone (hf_heap_graphs_keep_file). */
void hf_heap_graphs_source_of(hf_hgraphs *g, uint32_t s, uint64_t index_id);

#endif
