/*
 * graphids.h - object ids to node numbers for building a snapshot's graph
 * (retained.c).  Two forms, chosen by hf_resolver_index:
 *
 * dense: when the ids are strictly ascending and close together (a JVM's
 *   addresses: every id a multiple of their common alignment, most of the
 *   range taken), a bitmap of the range, one bit per aligned slot, in
 *   blocks of one cache line: a 64-bit count of the ids before the block,
 *   then 7 words of bits (448 slots).  An id's node is that count plus
 *   the bits before its own: one cache line read per lookup, 1.2 bytes an
 *   object on the 1 GB bench dump.
 * sparse: otherwise, the sorted ids and a table of where each bucket of
 *   the id range starts, so a lookup reads one bucket of a few ids (two
 *   dependent reads: the table, then the bucket).
 *
 * The arrays come from core/workmem.h.  Filled by one thread, then read by
 * many (resolve and prefetch are pure).
 */
#ifndef HF_GRAPHIDS_H
#define HF_GRAPHIDS_H

#include "decoders/core/search.h"
#include "decoders/heap/graph.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* A dense block, one cache line: the node of its first id, how many of
 * its ids lie before each word of bits, and 6 words of bits (384 slots):
 * a lookup counts the bits of one word (the build does not assume the
 * CPU's popcount instruction: the library call cost more than the miss). */
#define HF_RESOLVER_BLOCK_WORDS 6
#define HF_RESOLVER_BLOCK_SLOTS (HF_RESOLVER_BLOCK_WORDS * 64)
typedef struct {
    uint32_t base;
    uint16_t before[HF_RESOLVER_BLOCK_WORDS];
    uint64_t bits[HF_RESOLVER_BLOCK_WORDS];
} hf_idblock;
G_STATIC_ASSERT(sizeof(hf_idblock) == 64);

typedef struct {
    uint64_t *ids;
    uint16_t *low; /* instead of ids when the buckets are 2^16 ids wide or less:
                      the low bits of id - lo (the bucket gives the rest) */
    uint32_t *tab;
    hf_idblock *blocks; /* dense: 64-byte aligned in blocks_mem */
    void *blocks_mem;
    uint64_t lo, nb;  /* nb: sparse buckets, or dense slots */
    unsigned shift;   /* log2 of a bucket's width, or of a dense slot's */
    uint32_t n;
} hf_resolver;

/* r for n objects: ids[] to fill, in node order (sorted ids); false
 * without memory. */
bool hf_resolver_alloc(hf_resolver *r, uint32_t n);
/* Once ids[] is filled: the dense bitmap, else the sparse table (and ids
 * cut to low[] when the buckets are narrow); false without memory. */
bool hf_resolver_index(hf_resolver *r);
void hf_resolver_free(hf_resolver *r);

static inline bool below_u16(const void *ud, uint64_t i)
{
    const hf_search_key *k = ud;
    return ((const uint16_t *)k->a)[i] < k->key;
}

/* The dense block slot s lies in. */
static inline const hf_idblock *hf_resolver_block(const hf_resolver *r, uint64_t s)
{
    return r->blocks + s / HF_RESOLVER_BLOCK_SLOTS;
}

static inline unsigned hf_popcount64(uint64_t x)
{
    x -= (x >> 1) & UINT64_C(0x5555555555555555);
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
}

static inline uint32_t resolve_dense(const hf_resolver *r, uint64_t id)
{
    uint64_t d = id - r->lo;
    if (id < r->lo || (d & ((UINT64_C(1) << r->shift) - 1)))
        return HF_NONE;
    uint64_t s = d >> r->shift;
    if (s >= r->nb)
        return HF_NONE;
    const hf_idblock *b = hf_resolver_block(r, s);
    unsigned w = (unsigned)(s % HF_RESOLVER_BLOCK_SLOTS) / 64;
    uint64_t bit = UINT64_C(1) << (s % 64);
    if (!(b->bits[w] & bit))
        return HF_NONE;
    return b->base + b->before[w] + hf_popcount64(b->bits[w] & (bit - 1));
}

/* The node of id, HF_NONE when it is not in the snapshot. */
static inline uint32_t hf_resolve(const hf_resolver *r, uint64_t id)
{
    if (r->blocks)
        return resolve_dense(r, id);
    if (id < r->lo)
        return HF_NONE;
    uint64_t b = (id - r->lo) >> r->shift;
    if (b >= r->nb)
        return HF_NONE;
    uint32_t i = r->tab[b], j = r->tab[b + 1];
    if (r->low) { /* the bucket's ids share their high bits (a dump changed
                     underneath, its ids out of order, may give a wrong node) */
        uint16_t key = (uint16_t)(id - r->lo);
        i += (uint32_t)hf_lower_bound(0, j - i, below_u16, &(hf_search_key){r->low + i, key, false});
        return i < j && r->low[i] == key ? i : HF_NONE;
    }
    i += (uint32_t)hf_lower_bound_u64(r->ids + i, j - i, id);
    return i < r->n && r->ids[i] == id ? i : HF_NONE;
}

/* Starts reading what hf_resolve(r, id) will read first, so that the
 * lookups of several ids overlap their cache misses. */
static inline void hf_resolve_prefetch(const hf_resolver *r, uint64_t id)
{
    uint64_t s = (id - r->lo) >> r->shift;
    if (id >= r->lo && s < r->nb)
        __builtin_prefetch(r->blocks ? (const void *)hf_resolver_block(r, s)
                                     : (const void *)(r->tab + s));
}

#endif
