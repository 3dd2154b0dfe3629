/*
 * refname.c - the name of one reference, as refs/ and referrers/ show it
 * (retained.h: hf_heap_ref_name), in the order retained.c's graph emits a
 * node's references: class, fields or elements, loader, locals.
 */
#include "decoders/heap/fields.h"
#include "decoders/heap/retained.h"

#include "decoders/core/names.h"

#include <string.h>


typedef struct {
    uint64_t want;  /* target id */
    uint32_t skip;  /* matches still to pass over */
    int64_t slot;   /* found: the ref slot, -1 */
} find_ref;

static bool find_ref_cb(uint64_t target, uint32_t slot, void *ud)
{
    find_ref *f = ud;
    if (target != f->want)
        return true;
    if (f->skip) {
        f->skip--;
        return true;
    }
    f->slot = slot;
    return false;
}

/* The name refs/ gives reference slot `slot` of object ob. */
static void slot_name(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob, uint32_t slot,
                      char name[HF_NAME_MAX])
{
    if (h->codec->ref_name) {
        h->codec->ref_name(h, sn, ob, slot, name);
        return;
    }
    const hf_hclass *cl = hf_heap_class(sn, ob->cls), *self = hf_heap_described(sn, ob);
    if (ob->kind == HF_K_OBJARRAY) {
        g_snprintf(name, HF_NAME_MAX, "%u", slot);
    } else if (ob->kind == HF_K_CLASS) {
        const char *sname = self && slot < self->n_statics ? self->statics[slot].name : "?";
        char *e = hf_name_escape(sname, strlen(sname));
        g_strlcpy(name, e, HF_NAME_MAX);
        g_free(e);
    } else {
        g_strlcpy(name, "?", HF_NAME_MAX);
        hf_hfields it;
        hf_hfields_begin(&it, sn, cl);
        while (hf_hfields_next(&it))
            if (it.f->type == HF_T_OBJECT && it.ref == slot) {
                g_strlcpy(name, hf_hfields_refname(&it), HF_NAME_MAX);
                break;
            }
        hf_hfields_end(&it);
    }
}

bool hf_heap_ref_name(hf_heap *h, const hf_hsnap *sn, uint64_t from, uint64_t to, uint32_t slot,
                      char name[HF_NAME_MAX])
{
    hf_hobj ob;
    if (!hf_heap_decode(h, sn, from, &ob) || to >= sn->n_objects)
        return false;
    uint64_t to_id = hf_heap_object_id(h, sn, to);
    /* in the order source() emits them: class, fields, loader, locals */
    if (hf_heap_class(sn, ob.cls)->id == to_id && to != from) {
        if (slot == 0) {
            g_strlcpy(name, "<class>", HF_NAME_MAX);
            return true;
        }
        slot--;
    }
    find_ref f = {to_id, slot, -1};
    hf_heap_for_each_ref(h, sn, from, find_ref_cb, &f);
    if (f.slot >= 0) {
        slot_name(h, sn, &ob, (uint32_t)f.slot, name);
        return true;
    }
    const hf_hclass *self = hf_heap_described(sn, &ob);
    if (self && self->loader_id == to_id && f.skip-- == 0)
        g_strlcpy(name, "<loader>", HF_NAME_MAX);
    else
        g_strlcpy(name, "<local>", HF_NAME_MAX);
    return true;
}
