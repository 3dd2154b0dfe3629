/*
 * graphids.h - object ids to node numbers for building a snapshot's graph
 * (retained.c): the sorted ids, and a table of where each bucket of the id
 * range starts, so a lookup reads one bucket of a few ids.  The arrays come
 * from core/workmem.h.  Filled by one thread, then read by many (resolve
 * is pure).
 */
#ifndef HF_GRAPHIDS_H
#define HF_GRAPHIDS_H

#include "decoders/core/search.h"
#include "decoders/heap/graph.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint64_t *ids;
    uint16_t *low; /* instead of ids when the buckets are 2^16 ids wide or less:
                      the low bits of id - lo (the bucket gives the rest) */
    uint32_t *tab;
    uint64_t lo, nb;
    unsigned shift;
    uint32_t n;
} hf_resolver;

/* r for n objects: ids[] to fill, in node order (sorted ids); false
 * without memory. */
bool hf_resolver_alloc(hf_resolver *r, uint32_t n);
/* Once ids[] is filled: the table (and ids cut to low[] when the buckets
 * are narrow); false without memory. */
bool hf_resolver_index(hf_resolver *r);
void hf_resolver_free(hf_resolver *r);

static inline bool below_u16(const void *ud, uint64_t i)
{
    const hf_search_key *k = ud;
    return ((const uint16_t *)k->a)[i] < k->key;
}

/* The node of id, HF_NONE when it is not in the snapshot. */
static inline uint32_t hf_resolve(const hf_resolver *r, uint64_t id)
{
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

#endif
