/*
 * retcompute.h - private to retained.c, retobjects.c, retrefuse.c and
 * retkeep.c: the computation of one snapshot's graph, which retkeep.c runs
 * at most once per snapshot, its passes over the objects (retobjects.c),
 * and the snapshots it refuses (retrefuse.c).
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

/* Why snapshot sn's graph is not computed at all (to g_free), or NULL:
 * too many objects for 32-bit node numbers, or, with the default budget
 * (-o retained_mem=auto), a dominator pass that could not keep what it
 * reads at random in all the memory the daemon may have (retrefuse.c). */
char *hf_hgraph_refused(const hf_heap *h, const hf_hsnap *sn);

/* Passes over every object of snapshot sn, on a second thread too when
 * there are many (for the shallow sizes, when `two` too); each gives up
 * when cancelled (the caller asks hf_cancelled()). */

/* ids[v] = object v's id (the caller's array of n entries). */
void hf_objects_ids(hf_heap *h, const hf_hsnap *sn, uint64_t *ids);
/* Each object's shallow size, read back from the dump: n + 1 entries, the
 * virtual root's 0; NULL without memory.  Written in order and kept (the
 * retained sizes): from the calling thread's hf_work (core/workmem.h)
 * with hf_work_alloc_seq, so with arrays in files, a file, not the RAM the
 * dominators gave back (the retained pass adds up in a copy in RAM). */
uint64_t *hf_objects_shallow(hf_heap *h, const hf_hsnap *sn, bool two);

#endif
