/*
 * graphrefs.c - see graphrefs.h.
 */
#include "decoders/heap/graphrefs.h"
#include "decoders/heap/fields.h"

#include <string.h>

/* Class c's reference offsets appended to at, as hf_heap_for_each_ref_of
 * visits them: each class's part in turn, up the chain as it was laid
 * out.  False when at would pass HF_REFTAB_MAX. */
static bool class_offsets(const hf_hsnap *sn, const hf_hclass *c, GArray *at)
{
    uint32_t base = 0, left = c->n_fields;
    for (unsigned levels = 0; c && levels <= HF_HCHAIN_MAX; levels++) {
        if (c->n_own_refs > HF_REFTAB_MAX - at->len)
            return false;
        for (uint32_t i = 0; i < c->n_own_refs; i++) { /* past 4 GiB: in no instance */
            uint32_t o = (uint32_t)MIN((uint64_t)base + c->own_refs[i], (uint64_t)UINT32_MAX);
            g_array_append_val(at, o);
        }
        if (left <= c->n_decl)
            break; /* the chain as laid out ends here */
        left -= c->n_decl;
        c = hf_hclass_next_part(sn, c, &base);
    }
    return true;
}

bool hf_reftab_init(hf_reftab *t, const hf_heap *h, const hf_hsnap *sn)
{
    memset(t, 0, sizeof *t);
    t->sn = sn;
    if (!h->codec->fixed_be || h->codec->refs || (h->id_size != 4 && h->id_size != 8))
        return true; /* nothing fast: the walker reads every object */
    guint nc = sn->classes->len;
    t->first = g_try_new(uint32_t, nc + 1);
    t->fast = g_try_new0(uint8_t, nc ? nc : 1);
    if (!t->first || !t->fast) {
        hf_reftab_free(t);
        return false;
    }
    GArray *at = g_array_sized_new(FALSE, FALSE, sizeof(uint32_t), 64); /* never NULL */
    for (guint k = 0; k < nc; k++) {
        const hf_hclass *c = hf_heap_class(sn, k);
        guint before = at->len;
        t->first[k] = before;
        t->fast[k] = c->count && c->own_refs && class_offsets(sn, c, at);
        if (!t->fast[k])
            g_array_set_size(at, before);
    }
    t->first[nc] = at->len;
    t->at = (uint32_t *)(void *)g_array_free(at, FALSE);
    t->idsz = h->id_size;
    return true;
}

void hf_reftab_free(hf_reftab *t)
{
    g_free(t->first);
    g_free(t->at);
    g_free(t->fast);
    memset(t, 0, sizeof *t);
}

static inline uint64_t read_id(const uint8_t *p, unsigned idsz)
{
    if (idsz == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return GUINT64_FROM_BE(v);
    }
    uint32_t v;
    memcpy(&v, p, 4);
    return GUINT32_FROM_BE(v);
}

uint32_t hf_reftab_read(const hf_reftab *t, const hf_hobj *ob, uint32_t skip, uint64_t *pos,
                        uint64_t *out, uint32_t cap)
{
    const unsigned idsz = t->idsz;
    uint32_t got = 0;
    if (!ob->data)
        return 0;
    size_t len = (size_t)(ob->end - ob->data);
    uint64_t i = *pos;
    if (ob->kind == HF_K_INSTANCE) {
        const uint32_t *at = t->at + t->first[ob->cls];
        uint64_t m = t->first[ob->cls + 1] - t->first[ob->cls];
        for (; i < m && got < cap; i++) {
            if (at[i] >= len) { /* an instance shorter than its class: the walk ends */
                i = m;
                break;
            }
            uint64_t v = len - at[i] >= idsz ? read_id(ob->data + at[i], idsz) : 0;
            if (v && i != skip)
                out[got++] = v;
        }
    } else if (ob->kind == HF_K_OBJARRAY) {
        uint64_t m = MIN(ob->length, len / idsz); /* past the data: none readable */
        for (; i < m && got < cap; i++) {
            uint64_t v = read_id(ob->data + i * idsz, idsz);
            if (v)
                out[got++] = v;
        }
    }
    *pos = i;
    return got;
}
