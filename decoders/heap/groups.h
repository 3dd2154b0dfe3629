/*
 * groups.h - the retained bytes of groups of objects (classes, class
 * loaders, packages), each object counted once, from a dominator tree
 * (graph.h): an object adds its retained bytes to a group only when no
 * object above it in the tree belongs to that group, since what it
 * retains is in that one's already.  So a group's figure is what would be
 * freed if all its objects went, and never more than the heap.  Of those
 * objects, the ones at the top of the tree (immediately dominated by the
 * GC roots) are also summed apart: Eclipse MAT's "top consumers", which
 * groups the top of the tree only.
 *
 * Groups may nest (java.util in java): an object counts in its group and
 * in every enclosing one, each by the same rule.
 *
 * One iterative walk of the tree, top down: O(n) plus the depth of the
 * group nesting a node.  Memory, for the walk only: where each node's
 * children start (4 bytes a node: one pass over the children counts
 * them; a binary search per node, hf_dom_kids_of, took 20 times longer),
 * 4 bytes per group, and 12 per level of the deepest path.
 * Pure but for hf_cancelled() (core/cancel.h), asked every 65536 nodes:
 * thread-safe.
 *
 * And groups of equal objects (hf_equal_groups: waste/arrays' arrays of
 * equal elements, duplicates' Strings of equal text): objects sorted by a
 * 64-bit hash of what makes them equal (no table per object), then each
 * run of one hash compared pairwise by the caller's functions; the groups
 * of two or more, by the bytes their copies waste.  Thread-safe as the
 * caller's functions are.
 */
#ifndef HF_HEAP_GROUPS_H
#define HF_HEAP_GROUPS_H

#include "decoders/heap/graph.h"

#include <glib.h>

typedef struct {
    uint64_t retained;     /* bytes, each object counted once */
    uint64_t objects;      /* the group's objects counted: none above them in the group */
    uint64_t top_retained; /* of those, the ones at the top of the tree */
    uint64_t top_objects;
} hf_group_sum;

/* The group of node v (< n), HF_NONE for none. */
typedef uint32_t (*hf_group_of)(void *ud, uint32_t v);

/* Sums each group's objects into out[0 .. n_groups) (zeroed here).  The
 * tree: kids, n_kids and idom as hf_dom_kids_of takes them, n nodes and
 * the virtual root n; retained as an hf_hgraph keeps it.  parent[k]:
 * the group enclosing group k, HF_NONE (parent NULL: no nesting; a chain
 * longer than n_groups is cut).  False when cancelled (out unfinished) or
 * out of memory. */
bool hf_group_sums(const uint32_t *kids, uint32_t n_kids, const uint32_t *idom, uint32_t n,
                   const hf_size48 *retained, hf_group_of group_of, void *ud,
                   const uint32_t *parent, uint32_t n_groups, hf_group_sum *out);

/* ---- groups of equal objects ---- */

/* Object o, and a hash of what makes it equal to another. */
typedef struct {
    uint64_t hash;
    uint32_t o;
} hf_equal_key;

/* Equal objects: o the first of them (the lowest index), how many, and
 * the bytes the copies beyond the first keep. */
typedef struct {
    uint32_t o;
    uint32_t copies;
    uint64_t wasted;
} hf_equal_group;

typedef struct {
    /* Makes o the object the next calls of `same` compare with; false:
     * o cannot be read, and is compared with nothing. */
    bool (*first)(void *ud, uint32_t o);
    /* Whether o equals that object; if so, *bytes: what copy o keeps. */
    bool (*same)(void *ud, uint32_t o, uint64_t *bytes);
} hf_equal_ops;

/* The groups of two or more equal objects among keys (an array of
 * hf_equal_key, sorted here by hash, then object), by wasted bytes, most
 * first, then by first object: a new array of hf_equal_group.  The runs
 * not compared yet are left out when the mount goes away (hf_cancelled). */
GArray *hf_equal_groups(GArray *keys, const hf_equal_ops *ops, void *ud);

#endif
