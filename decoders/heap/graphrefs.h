/*
 * graphrefs.h - an object's references read straight from the dump, for
 * building a snapshot's graph (retained.c): the same references, in the
 * same order and with the same slots, as hf_heap_for_each_ref_of gives,
 * without walking each instance's class chain or calling the codec per
 * value.  Per class with instances, the offsets of its instances'
 * reference fields in the instance data, its supers' included, as the
 * walker visits them; object arrays' elements are read in a loop.
 *
 * Only where values are fixed-width big-endian with 4- or 8-byte
 * references (HPROF: hf_heap_codec.fixed_be) and only for instances,
 * object and primitive arrays; class objects (statics), other formats,
 * and the classes left out when the offsets of all would be more than
 * HF_REFTAB_MAX (deep chains of many fields) go through
 * hf_heap_for_each_ref_of: hf_reftab_fast says which.
 *
 * Ownership: the table is the caller's (hf_reftab_free); it points into
 * the heap, which must outlive it.  Thread safety: made by one thread,
 * then read by many.
 */
#ifndef HF_GRAPHREFS_H
#define HF_GRAPHREFS_H

#include "decoders/heap/heap.h"

/* Offsets kept at most, all classes together. */
#define HF_REFTAB_MAX (1u << 24)

typedef struct {
    const hf_hsnap *sn;
    unsigned idsz;   /* 4 or 8; 0: nothing is fast */
    uint32_t *first; /* per class + 1: its offsets are at[first[k] .. first[k + 1]) */
    uint32_t *at;
    uint8_t *fast;   /* per class: 1 when its instances are read here */
} hf_reftab;

/* The table of snapshot sn of h; false without memory. */
bool hf_reftab_init(hf_reftab *t, const hf_heap *h, const hf_hsnap *sn);
void hf_reftab_free(hf_reftab *t);

/* Whether hf_reftab_read reads ob's references (else the walker must). */
static inline bool hf_reftab_fast(const hf_reftab *t, const hf_hobj *ob)
{
    if (!t->idsz)
        return false;
    return ob->kind == HF_K_OBJARRAY || ob->kind == HF_K_PRIMARRAY ||
           (ob->kind == HF_K_INSTANCE && t->fast[ob->cls]);
}

/* Up to cap of ob's non-null references into out, from slot *pos on,
 * leaving out slot skip (HF_NONE: none); *pos moves past the last one
 * read.  The number read: 0 once there are no more. */
uint32_t hf_reftab_read(const hf_reftab *t, const hf_hobj *ob, uint32_t skip, uint64_t *pos,
                        uint64_t *out, uint32_t cap);

#endif
