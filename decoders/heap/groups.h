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
 */
#ifndef HF_HEAP_GROUPS_H
#define HF_HEAP_GROUPS_H

#include "decoders/heap/graph.h"

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
 * the virtual root n; retained as hf_dom_retained gives it.  parent[k]:
 * the group enclosing group k, HF_NONE (parent NULL: no nesting; a chain
 * longer than n_groups is cut).  False when cancelled (out unfinished) or
 * out of memory. */
bool hf_group_sums(const uint32_t *kids, uint32_t n_kids, const uint32_t *idom, uint32_t n,
                   const uint64_t *retained, hf_group_of group_of, void *ud,
                   const uint32_t *parent, uint32_t n_groups, hf_group_sum *out);

#endif
