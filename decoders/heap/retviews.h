/*
 * retviews.h - what the views of retained sizes share (dominators.c,
 * suspects.c, biggest.c, consumers.c, mergedpaths.c, loaders.c): writing an object,
 * a share of the heap, a path from the GC roots, and getting the graph or
 * saying why there is none.
 *
 * Thread safety: every function only reads the finished graph and the
 * index (retained.h), so views may call them on several threads at once.
 */
#ifndef HF_HEAP_RETVIEWS_H
#define HF_HEAP_RETVIEWS_H

#include "decoders/heap/render.h"
#include "decoders/heap/retained.h"

/* Share of `whole` as "12.34". */
void hf_rv_pct(GString *out, uint64_t part, uint64_t whole);
/* What node v is: its class, or "class NAME" for a class object (every
 * view names a class object so, docs/views.md), escaped (core/names.h). */
void hf_rv_what(hf_heap *h, const hf_hsnap *sn, uint32_t v, GString *out);
/* "0xID WHAT" of node v. */
void hf_rv_node(hf_heap *h, const hf_hsnap *sn, uint32_t v, GString *out);
/* The graph of snapshot s, or NULL after writing "# no retained sizes:
 * why" to out. */
const hf_hgraph *hf_rv_graph_or_say(hf_dump *d, uint32_t s, GString *out);
/* A shortest path from a GC root to node v, one hop a line: the root with
 * its kinds ("(root: sticky class)"), then each object, its class and
 * "via FIELD", the reference followed (names escaped).  Lines start with `indent`; the
 * line of node `mark` (HF_NONE: none) ends with " <- " and `mark_text`. */
void hf_rv_path(hf_heap *h, const hf_hsnap *sn, const hf_hgraph *g, uint32_t v,
                const char *indent, uint32_t mark, const char *mark_text, GString *out);
/* Where each root kind starts in a snapshot's roots (sorted by kind,
 * then id): start[k] .. start[k + 1] are those of kind k. */
typedef struct {
    uint32_t start[HF_ROOT_NKINDS + 1];
} hf_rv_root_index;
void hf_rv_root_index_init(const hf_hsnap *sn, hf_rv_root_index *ix);
/* The GC root kinds of object `id`, a bit each (1 << hf_root_kind): a
 * binary search in each kind present (ix NULL: found first).  And their
 * names, "," separated ("root" for none). */
uint32_t hf_rv_root_mask(const hf_hsnap *sn, const hf_rv_root_index *ix, uint64_t id);
void hf_rv_root_names(uint32_t mask, GString *out);
/* The class whose share node v counts in: the class a class object
 * describes, else the object's class.  *is_class set for a class object. */
uint32_t hf_rv_owner_class(hf_heap *h, const hf_hsnap *sn, uint32_t v, bool *is_class);
/* Node of the class object of class c, HF_NONE when the dump has none. */
uint32_t hf_rv_class_node(hf_heap *h, const hf_hsnap *sn, uint32_t c);
/* A short description of object v for the free-text column of a table:
 * an array's length ("length=N"), a String's text (cut at 80 bytes, with
 * "..."), a collection's size ("size=N", from an int field `size`), a
 * class object's name ("class NAME"); nothing for others.  TAB-safe. */
void hf_rv_describe(hf_heap *h, const hf_hsnap *sn, uint32_t v, GString *out);

/* A class's row of a per-class view: objects, bytes and the key the rows
 * are sorted by. */
typedef struct {
    uint32_t cls;
    uint64_t count, bytes, key;
} hf_rv_class_row;
/* Sorts hf_rv_class_row rows by key, largest first, then by class name. */
void hf_rv_sort_class_rows(const hf_hsnap *sn, GArray *rows);

/* The n greatest of a stream of (key, node): key descending, then node
 * ascending (fed in ascending node order, an equal key keeps the first).
 * A min-heap of n entries: O(log n) an addition. */
typedef struct {
    uint64_t key;
    uint32_t v;
} hf_rv_ranked;
typedef struct {
    hf_rv_ranked *a;
    uint32_t len, cap;
} hf_rv_top;
void hf_rv_top_init(hf_rv_top *t, uint32_t cap);
void hf_rv_top_add(hf_rv_top *t, uint64_t key, uint32_t v);
/* Sorts what is kept, greatest first (t->a[0 .. t->len)). */
void hf_rv_top_sort(hf_rv_top *t);
void hf_rv_top_free(hf_rv_top *t);

#endif
