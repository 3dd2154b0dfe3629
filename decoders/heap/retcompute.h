/*
 * retcompute.h - private to retained.c and retkeep.c: the computation of
 * one snapshot's graph, which retkeep.c runs at most once per snapshot.
 */
#ifndef HF_HEAP_RETCOMPUTE_H
#define HF_HEAP_RETCOMPUTE_H

#include "decoders/heap/retained.h"

/* Snapshot s's graph, computed with the working arrays placed by the
 * mount's -o retained_mem (an hf_work of the calling thread, past its
 * budget in files in dir).  Never NULL: on failure, or for a snapshot too
 * large for 32-bit node numbers, a graph with only its error set.  The
 * caller owns the result (freed as retkeep.c's graph_free does). */
hf_hgraph *hf_hgraph_compute(hf_heap *h, uint32_t s, const char *dir);

#endif
