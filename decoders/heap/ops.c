/*
 * ops.c - the model ops (hf_dump_ops members) of a heap decoder.
 * Everything here only reads the finished hf_heap: thread-safe.
 */
#include "decoders/heap/fields.h"
#include "decoders/heap/render.h"
#include "decoders/core/names.h"

#include <stdlib.h>
#include <string.h>

#define H(d) ((hf_heap *)(d))

void hf_heap_id_name(uint64_t id, char name[HF_NAME_MAX])
{
    g_snprintf(name, HF_NAME_MAX, HF_FMT_ID, (guint64)id);
}

/* ---- model ops ---- */

uint32_t hf_heap_n_snapshots(hf_dump *d)
{
    return H(d)->snaps->len;
}

uint64_t hf_heap_snapshot_number(hf_dump *d, uint32_t s)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    return sn ? sn->number : 0;
}

uint64_t hf_heap_n_traces(hf_dump *d)
{
    return H(d)->traces->len;
}

uint64_t hf_heap_trace_number(hf_dump *d, uint64_t t)
{
    return t < H(d)->traces->len ? g_array_index(H(d)->traces, hf_htrace, t).serial : 0;
}

uint64_t hf_heap_n_threads(hf_dump *d)
{
    return H(d)->threads->len;
}

void hf_heap_thread_name(hf_dump *d, uint64_t t, char name[HF_NAME_MAX])
{
    name[0] = '\0';
    if (t < H(d)->threads->len)
        g_strlcpy(name, g_array_index(H(d)->threads, hf_hthread, t).dir, HF_NAME_MAX);
}

uint64_t hf_heap_n_classes(hf_dump *d, uint32_t s)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    return sn ? sn->classes->len : 0;
}

void hf_heap_class_name(hf_dump *d, uint32_t s, uint64_t c, char name[HF_NAME_MAX])
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    const hf_hclass *k = sn ? hf_heap_class(sn, c) : NULL;
    g_strlcpy(name, k ? k->dir : "", HF_NAME_MAX);
}

int64_t hf_heap_class_find(hf_dump *d, uint32_t s, const char *name)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    gpointer v = sn ? g_hash_table_lookup(sn->class_by_dir, name) : NULL;
    return v ? (int64_t)GPOINTER_TO_SIZE(v) - 1 : -1;
}

/* ---- links and link directories ---- */

bool hf_heap_link_super(hf_dump *d, uint32_t s, uint64_t c, hf_target *to)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    const hf_hclass *k = sn ? hf_heap_class(sn, c) : NULL;
    if (!k || k->super < 0)
        return false;
    to->kind = HF_TO_CLASS;
    g_strlcpy(to->name, hf_heap_class(sn, (uint64_t)k->super)->dir, HF_NAME_MAX);
    return true;
}

bool hf_heap_link_class(hf_dump *d, uint32_t s, uint64_t o, hf_target *to)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    if (!sn || o >= sn->n_objects)
        return false;
    to->kind = HF_TO_CLASS;
    g_strlcpy(to->name, hf_heap_class(sn, hf_heap_cls(sn, o))->dir, HF_NAME_MAX);
    return true;
}

uint64_t hf_heap_n_objects(hf_dump *d, uint32_t s)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    return sn ? sn->n_objects : 0;
}

void hf_heap_object_name(hf_dump *d, uint32_t s, uint64_t o, char name[HF_NAME_MAX])
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    name[0] = '\0';
    if (sn && o < sn->n_objects)
        hf_heap_id_name(hf_heap_object_id(H(d), sn, o), name);
}

/* "0x" + lowercase hex, no leading zeros (so each id has one name). */
static bool parse_id(const char *name, uint64_t *id)
{
    if (name[0] != '0' || name[1] != 'x' || !name[2] || (name[2] == '0' && name[3]) ||
        strlen(name) > 18)
        return false;
    uint64_t v = 0;
    for (const char *p = name + 2; *p; p++) {
        int x = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
        if (x < 0)
            return false;
        v = v << 4 | (uint64_t)x;
    }
    *id = v;
    return true;
}

int64_t hf_heap_object_find(hf_dump *d, uint32_t s, const char *name)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    uint64_t id;
    if (!sn || !parse_id(name, &id))
        return -1;
    return hf_heap_find_id(H(d), sn, id);
}

bool hf_heap_has_refs(hf_dump *d, uint32_t s, uint64_t o)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    hf_hobj ob;
    if (!sn || !hf_heap_decode(H(d), sn, o, &ob))
        return false;
    switch (ob.kind) {
    case HF_K_INSTANCE:
        return hf_heap_class(sn, ob.cls)->n_refs > 0;
    case HF_K_OBJARRAY:
        return ob.length > 0;
    case HF_K_CLASS: {
        const hf_hclass *c = hf_heap_described(sn, &ob);
        for (uint32_t i = 0; c && i < c->n_statics; i++)
            if (c->statics[i].type == HF_T_OBJECT)
                return true;
        return false;
    }
    default:
        return false;
    }
}

hf_ref_status hf_heap_refs_entry(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                                 char name[HF_NAME_MAX], hf_target *to)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, s);
    hf_hobj ob;
    if (!sn || !hf_heap_decode(h, sn, o, &ob))
        return HF_REF_END;
    uint64_t v = 0;
    switch (ob.kind) {
    case HF_K_INSTANCE: {
        const hf_hclass *c = hf_heap_class(sn, ob.cls);
        uint32_t off;
        const hf_hfield *f = hf_hfield_at(sn, c, slot, &off);
        if (!f)
            return HF_REF_END;
        if (f->type != HF_T_OBJECT || !hf_heap_field(h, sn, &ob, slot, &v) || !v ||
            !hf_hfield_refname(sn, c, slot, name))
            return HF_REF_EMPTY;
        break;
    }
    case HF_K_OBJARRAY:
        if (slot >= ob.length)
            return HF_REF_END;
        if (!(v = hf_heap_element(h, &ob, slot)))
            return HF_REF_EMPTY;
        g_snprintf(name, HF_NAME_MAX, "%u", slot);
        break;
    case HF_K_CLASS: {
        const hf_hclass *c = hf_heap_described(sn, &ob);
        if (!c || slot >= c->n_statics)
            return HF_REF_END;
        if (c->statics[slot].type != HF_T_OBJECT || !(v = c->statics[slot].value))
            return HF_REF_EMPTY;
        char *e = hf_name_escape(c->statics[slot].name, strlen(c->statics[slot].name));
        g_strlcpy(name, e, HF_NAME_MAX);
        g_free(e);
        break;
    }
    default:
        return HF_REF_END;
    }
    to->kind = HF_TO_OBJECT;
    hf_heap_id_name(v, to->name);
    return HF_REF_OK;
}

int64_t hf_heap_refs_find(hf_dump *d, uint32_t s, uint64_t o, const char *name)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, s);
    hf_hobj ob;
    if (!sn || !hf_heap_decode(h, sn, o, &ob))
        return -1;
    uint64_t v = 0;
    switch (ob.kind) {
    case HF_K_INSTANCE: {
        int64_t i = hf_hfield_ref_named(sn, hf_heap_class(sn, ob.cls), name);
        return i >= 0 && hf_heap_field(h, sn, &ob, (uint32_t)i, &v) && v ? i : -1;
    }
    case HF_K_OBJARRAY: {
        uint64_t i;
        if (!hf_parse_decimal(name, &i) || i >= ob.length || !hf_heap_element(h, &ob, i))
            return -1;
        return (int64_t)i;
    }
    case HF_K_CLASS: {
        const hf_hclass *c = hf_heap_described(sn, &ob);
        char *un = hf_name_unescape(name);
        int64_t r = -1;
        for (uint32_t i = 0; un && c && i < c->n_statics; i++)
            if (c->statics[i].type == HF_T_OBJECT && c->statics[i].value &&
                strcmp(c->statics[i].name, un) == 0) {
                r = i;
                break;
            }
        g_free(un);
        return r;
    }
    }
    return -1;
}
