/*
 * graphids.c - see graphids.h.
 */
#include "decoders/heap/graphids.h"

#include "decoders/core/workmem.h"

#include <glib.h>

/* The ids array, filled by the first of two passes over the references
 * (source: one pass over the dump for both), or, when they are read in
 * one pass, by a pass over the objects' first bytes before it.  Written
 * in order, then either replaced by low[] or searched. */
bool hf_resolver_alloc(hf_resolver *r, uint32_t n)
{
    r->n = n;
    r->ids = hf_work_alloc_seq(sizeof(uint64_t) * (n ? n : 1));
    return r->ids != NULL;
}

/* ids[] as low[]: 2 bytes an object instead of 8, so that the table and
 * low[], which the second pass reads at random, hold 4 bytes an object
 * and stay in RAM when the 8-byte ids would be a file. */
static bool hf_resolver_narrow(hf_resolver *r)
{
    if (r->shift > 16)
        return true;
    r->low = hf_work_alloc(sizeof(uint16_t) * (r->n ? r->n : 1));
    if (!r->low)
        return false;
    for (uint32_t i = 0; i < r->n; i++)
        r->low[i] = (uint16_t)(r->ids[i] - r->lo);
    g_clear_pointer(&r->ids, hf_work_free);
    return true;
}


/* The dense bitmap of strictly ascending ids, when it takes no more than
 * the sparse form would (about 4 bytes an object): slot s of the range
 * stands for id lo + (s << shift).  True when made, or when the ids are
 * too far apart (blocks stays NULL); false without memory. */
static bool hf_resolver_dense(hf_resolver *r, uint64_t hi, uint64_t align_bits)
{
    uint32_t n = r->n;
    unsigned shift = align_bits ? (unsigned)__builtin_ctzll(align_bits) : 0;
    uint64_t last = (hi - r->lo) >> shift; /* the last slot: + 1 may wrap around */
    uint64_t n_blocks = last / HF_RESOLVER_BLOCK_SLOTS + 1;
    if (n_blocks > (4 * (uint64_t)n + 63) / 64 || n_blocks > SIZE_MAX / 64 - 1)
        return true;
    uint64_t slots = last + 1;
    r->blocks_mem = hf_work_alloc0(n_blocks * 64 + 64); /* zero: no bits set */
    if (!r->blocks_mem)
        return false;
    r->blocks = (hf_idblock *)(((uintptr_t)r->blocks_mem + 63) & ~(uintptr_t)63);
    r->shift = shift;
    r->nb = slots;
    uint64_t done = 0; /* blocks whose base is set */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t s = (r->ids[i] - r->lo) >> shift;
        hf_idblock *b = r->blocks + s / HF_RESOLVER_BLOCK_SLOTS;
        while (done <= s / HF_RESOLVER_BLOCK_SLOTS) /* ascending ids: i lie before */
            r->blocks[done++].base = i;
        unsigned w = (unsigned)(s % HF_RESOLVER_BLOCK_SLOTS) / 64;
        b->bits[w] |= UINT64_C(1) << (s % 64);
    }
    for (uint64_t k = 0; k < n_blocks; k++) /* the counts before each word, once its bits are in */
        for (unsigned w = 1; w < HF_RESOLVER_BLOCK_WORDS; w++)
            r->blocks[k].before[w] = (uint16_t)(r->blocks[k].before[w - 1] +
                                                hf_popcount64(r->blocks[k].bits[w - 1]));
    g_clear_pointer(&r->ids, hf_work_free);
    return true;
}

/* The sparse table: buckets of about two ids. */
static bool hf_resolver_sparse(hf_resolver *r, uint64_t hi)
{
    uint32_t n = r->n;
    uint64_t range = hi - r->lo, want = n / 2 + 1;
    r->shift = 0;
    while ((range >> r->shift) >= want) /* (range >> shift) + 1 > want, without overflow */
        r->shift++;
    r->nb = (range >> r->shift) + 1;
    r->tab = hf_work_alloc(sizeof(uint32_t) * (r->nb + 1));
    if (!r->tab)
        return false;
    hf_work_random(r->ids); /* filled in order; now binary searches: no read-around */
    /* A dump that changed underneath may give ids out of order: clamp, so
     * lookups can only miss, never read outside the table. */
    uint64_t b = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t bi = r->ids[i] < r->lo ? 0 : (r->ids[i] - r->lo) >> r->shift;
        if (bi >= r->nb)
            bi = r->nb - 1;
        while (b <= bi)
            r->tab[b++] = i;
    }
    while (b <= r->nb)
        r->tab[b++] = n;
    return hf_resolver_narrow(r);
}

/* The dense bitmap or the sparse table, once every id is in r->ids. */
bool hf_resolver_index(hf_resolver *r)
{
    uint32_t n = r->n;
    /* Sorted ids: the first is the least and the last the greatest.  A dump
     * that changed underneath may break that, so take both from all ids:
     * last - first could wrap around and size the table wrong. */
    uint64_t lo = n ? r->ids[0] : 0, hi = lo, bits = 0;
    bool ascending = true; /* no duplicates, no dump changed underneath */
    for (uint32_t i = 0; i < n; i++) {
        lo = MIN(lo, r->ids[i]);
        hi = MAX(hi, r->ids[i]);
        bits |= r->ids[i] - r->ids[0]; /* the ids' common alignment */
        ascending &= i == 0 || r->ids[i] > r->ids[i - 1];
    }
    r->lo = lo;
    if (ascending && !hf_resolver_dense(r, hi, bits))
        return false;
    return r->blocks || hf_resolver_sparse(r, hi);
}

void hf_resolver_free(hf_resolver *r)
{
    hf_work_free(r->ids);
    hf_work_free(r->low);
    hf_work_free(r->tab);
    hf_work_free(r->blocks_mem);
}
