/*
 * graphfile.h - a snapshot's dominator results (retained.h's hf_hgraph)
 * as sections of an index file (core/keepfile.h), and back: the file
 * retkeep.c keeps beside the index once a snapshot's graph is computed,
 * so that a remount answers retained sizes, dominators, referrers and
 * paths without computing them again.
 *
 * Sections: 1 the counts (n, classes, reachable, edges, bytes, time);
 * 2..9 the arrays: referrers (offsets, targets), dominator-tree children
 * (offsets, targets), idom, BFS parent, retained bytes, per-class retained
 * bytes.  The arrays are used in place from the mapping; each is
 * checksummed whole (CRC-32) and its length checked, so a loaded graph is
 * the one that was written (the file is the user's own: keepfile.h).
 *
 * Ownership: a loaded graph's arrays belong to the reader's mapping: the
 * caller keeps the hf_keepr for as long as the graph and never frees them.
 * Pure functions otherwise; no shared state.
 */
#ifndef HF_HEAP_GRAPHFILE_H
#define HF_HEAP_GRAPHFILE_H

#include "decoders/core/keepfile.h"
#include "decoders/heap/retained.h"

/* Adds g's sections to w (borrowed until the file is written). */
void hf_graphfile_save(const hf_hgraph *g, uint32_t n_classes, hf_keepw *w);
/* Fills *g (zeroed) from r for a snapshot of n objects and n_classes
 * classes; false when a section is missing or of the wrong size. */
bool hf_graphfile_load(hf_hgraph *g, const hf_keepr *r, uint32_t n, uint32_t n_classes);

#endif
