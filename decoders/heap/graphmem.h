/*
 * graphmem.h - what graph.c, graphbfs.c and graphdom.c share, private to
 * them: their arrays from core/workmem.h, prefetching (graph.h, "Speed"),
 * and the renumbered predecessors of the dominator pass.
 */
#ifndef HF_GRAPHMEM_H
#define HF_GRAPHMEM_H

#include "decoders/core/workmem.h"
#include "decoders/heap/graph.h"

#include <stddef.h>
#include <stdint.h>

/* Arrays of count uint32_t, from the thread's working memory (core/
 * workmem.h: RAM, or a file for a graph larger than memory); at least one
 * entry, so that an empty graph's arrays are not NULL (a failure). */
static inline uint32_t *try_u32(size_t count)
{
    return hf_work_alloc((count ? count : 1) * sizeof(uint32_t));
}

/* The same for an array its maker writes in order (hf_work_alloc_seq):
 * it leaves the RAM to what the same phase reads at random. */
static inline uint32_t *try_u32_seq(size_t count)
{
    return hf_work_alloc_seq((count ? count : 1) * sizeof(uint32_t));
}

/* On a big graph nearly every access is a cache miss; the loops ask for
 * memory they will need a little later (graph.c explains). */
#define PREFETCH(p) __builtin_prefetch(p)
enum { AHEAD = 8 }; /* how many edges or nodes to fetch ahead */

/* hf_csr_pred_renumbered (graph.h) for the dominator pass: without the
 * edges into the virtual root's children but the root's own (which
 * change no dominator: graphsort.c), and with the renumbered destinations
 * written to scratch (m entries) on the way: NULL to have an array of its
 * own for them, or g->dst itself for a caller that has no further use for
 * g (the dominator pass that frees succ): then nothing is allocated but
 * out.  chunk 0: one range in RAM, ranges of 1 GiB when the arrays are
 * files (as hf_csr_transpose). */
bool hf_pred_renumber(const hf_csr *g, uint32_t *scratch, const uint32_t *num, uint32_t count,
                      size_t chunk, hf_csr *out);

#endif
