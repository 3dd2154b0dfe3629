/*
 * graphmem.h - what graph.c and graphbfs.c share, private to them: their
 * arrays from core/workmem.h, and prefetching (graph.h, "Speed").
 */
#ifndef HF_GRAPHMEM_H
#define HF_GRAPHMEM_H

#include "decoders/core/workmem.h"

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

#endif
