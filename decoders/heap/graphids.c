/*
 * graphids.c - see graphids.h.
 */
#include "decoders/heap/graphids.h"

#include "decoders/core/workmem.h"

#include <glib.h>

/* The ids array, filled by the first pass over the references (source):
 * one pass over the dump for both.  Written in order, then either
 * replaced by low[] or searched. */
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


/* The table, once every id is in r->ids. */
bool hf_resolver_index(hf_resolver *r)
{
    uint32_t n = r->n;
    /* Sorted ids: the first is the least and the last the greatest.  A dump
     * that changed underneath may break that, so take both from all ids:
     * last - first could wrap around and size the table wrong. */
    uint64_t lo = n ? r->ids[0] : 0, hi = lo;
    for (uint32_t i = 0; i < n; i++) {
        lo = MIN(lo, r->ids[i]);
        hi = MAX(hi, r->ids[i]);
    }
    r->lo = lo;
    uint64_t range = hi - lo, want = n / 2 + 1;
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

void hf_resolver_free(hf_resolver *r)
{
    hf_work_free(r->ids);
    hf_work_free(r->low);
    hf_work_free(r->tab);
}
