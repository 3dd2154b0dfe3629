/*
 * heap.c - V8 snapshots on the heap layer (decoders/heap/): classes by the
 * name DevTools groups objects under, objects by node id, sizes as
 * DevTools shows them, the root node as the one GC root, and the codec
 * through which the layer reads a node back (its essential edges are its
 * references: the layer's dominators are then DevTools').
 *
 * Class names (DevTools' calculateObjectNames): hidden nodes "(system)",
 * code "(compiled code)", closures "Function", regexps "RegExp", objects
 * and natives their name (a DOM node "<div id=...>" cut to "<div>",
 * "Detached <div ...>" to "Detached <div>"), every other type "(TYPE)":
 * "(string)", "(array)", "(concatenated string)", "(number)", ...
 */
#include "decoders/v8/v8.h"
#include "decoders/core/names.h"
#include "decoders/heap/build.h"

#include <string.h>

/* The class name of node v into out. */
static void class_name(const v8_snap *sn, uint32_t v, GString *out)
{
    switch (sn->type[v]) {
    case V8N_HIDDEN: g_string_append(out, "(system)"); return;
    case V8N_CODE: g_string_append(out, "(compiled code)"); return;
    case V8N_CLOSURE: g_string_append(out, "Function"); return;
    case V8N_REGEXP: g_string_append(out, "RegExp"); return;
    case V8N_OBJECT:
    case V8N_NATIVE: {
        size_t at = out->len;
        if (sn->type[v] == V8N_NATIVE && sn->detached[v] == 2)
            g_string_append(out, "Detached ");
        v8_string(sn, sn->name[v], out);
        const char *s = out->str + at;
        const char *sp = NULL;
        if (s[0] == '<')
            sp = strchr(s, ' ');
        else if (g_str_has_prefix(s, "Detached <"))
            sp = strchr(s + 10, ' ');
        if (sp) {
            g_string_truncate(out, (gsize)(sp - out->str));
            g_string_append_c(out, '>');
        }
        return;
    }
    default:
        g_string_append_printf(out, "(%s)", v8_node_type_names[sn->type[v]]);
        return;
    }
}

/* Every node's class (sn->cls), classes added to the heap snapshot hs in
 * the order their first node comes. */
static void add_classes(v8_dump *d, v8_snap *sn, hf_hsnap *hs)
{
    hf_heap *h = &d->heap;
    GHashTable *by_name = g_hash_table_new(g_str_hash, g_str_equal);
    uint32_t *by_str = g_new(uint32_t, (size_t)sn->n_strings + 1); /* objects: by name index */
    memset(by_str, 0xff, ((size_t)sn->n_strings + 1) * 4);
    uint32_t by_type[V8N_N];
    memset(by_type, 0xff, sizeof by_type);
    uint32_t *iface;
    GPtrArray *defs = v8_interfaces(sn, &iface);
    uint32_t *by_iface = g_new(uint32_t, defs->len + 1);
    memset(by_iface, 0xff, (defs->len + 1) * 4);
    sn->cls = g_new(uint32_t, sn->n);
    GString *s = g_string_new(NULL);
    for (uint32_t v = 0; v < sn->n; v++) {
        uint8_t t = sn->type[v];
        bool named = t == V8N_OBJECT || t == V8N_NATIVE;
        uint32_t none = UINT32_MAX;
        uint32_t *memo = iface[v] != UINT32_MAX ? &by_iface[iface[v]]
                         : t == V8N_NATIVE && sn->detached[v] == 2 ? &none
                         : named ? &by_str[MIN(sn->name[v], sn->n_strings)] : &by_type[t];
        if (*memo == UINT32_MAX) {
            g_string_truncate(s, 0);
            if (iface[v] != UINT32_MAX)
                g_string_append(s, v8_interface_name(defs, iface[v]));
            else
                class_name(sn, v, s);
            gpointer k = g_hash_table_lookup(by_name, s->str);
            if (!k) {
                hf_hclass c = {0};
                c.name = hf_heap_intern(h, s->str, s->len);
                c.id = V8_CLASS_ID(hs->classes->len);
                c.synthetic = true;
                c.super = -1;
                k = GUINT_TO_POINTER(hf_heap_add_class(h, hs, &c) + 1);
                g_hash_table_insert(by_name, (gpointer)c.name, k);
            }
            *memo = GPOINTER_TO_UINT(k) - 1;
        }
        sn->cls[v] = *memo;
    }
    g_string_free(s, TRUE);
    g_free(by_iface);
    g_free(iface);
    g_ptr_array_free(defs, TRUE);
    g_free(by_str);
    g_hash_table_destroy(by_name);
}

static bool stated_size(const hf_heap *h, uint64_t loc, uint64_t *size)
{
    uint32_t v;
    const v8_snap *sn = v8_at((const v8_dump *)h, loc, &v);
    *size = sn ? sn->size[v] : 0;
    return true;
}

void v8_heap_hooks(hf_heap *h)
{
    h->stated_size = stated_size;
}

void v8_build_heap(v8_dump *d)
{
    hf_heap *h = &d->heap;
    v8_heap_hooks(h);
    for (guint s = 0; s < d->snaps->len; s++) {
        v8_snap *sn = g_ptr_array_index(d->snaps, s);
        hf_hsnap *hs = hf_heap_add_snap(h);
        add_classes(d, sn, hs);
        for (uint32_t v = 0; v < sn->n; v++)
            hf_heap_add_object(hs, sn->id[v], sn->base + v, false);
        hf_hroot r = {.id = sn->id[sn->root], .frame = UINT32_MAX, .kind = HF_ROOT_UNKNOWN};
        g_array_append_val(hs->roots, r);
    }
    hf_heap_finish(h);
    for (guint s = 0; s < d->snaps->len; s++) {
        v8_snap *sn = g_ptr_array_index(d->snaps, s);
        g_clear_pointer(&sn->cls, g_free);
    }
}

const v8_snap *v8_at(const v8_dump *d, uint64_t loc, uint32_t *ord)
{
    /* few snapshots: a short walk back from the last base not above loc */
    for (guint s = d->snaps->len; s-- > 0;) {
        const v8_snap *sn = g_ptr_array_index(d->snaps, s);
        if (loc >= sn->base) {
            if (loc - sn->base >= sn->n)
                return NULL;
            *ord = (uint32_t)(loc - sn->base);
            return sn;
        }
    }
    return NULL;
}

int64_t v8_object_of(const v8_dump *d, uint32_t s, uint32_t ord)
{
    const v8_snap *sn = g_ptr_array_index(d->snaps, s);
    const hf_hsnap *hs = hf_heap_snap(&d->heap, s);
    if (!hs || ord >= sn->n)
        return -1;
    int64_t o = hf_heap_find_id(&d->heap, hs, sn->id[ord]);
    /* a repeated id belongs to its first node */
    return o >= 0 && hf_heap_loc(hs, (uint64_t)o) == sn->base + ord ? o : -1;
}

/* ---- the codec ---- */

#define D(h) ((const v8_dump *)(h))

static uint64_t codec_object_id(const hf_heap *h, uint64_t loc)
{
    uint32_t v;
    const v8_snap *sn = v8_at(D(h), loc, &v);
    return sn ? sn->id[v] : 0;
}

static bool codec_shape(const hf_heap *h, uint64_t loc, hf_hshape *out)
{
    uint32_t v;
    const v8_snap *sn = v8_at(D(h), loc, &v);
    if (!sn || !sn->cls)
        return false;
    memset(out, 0, sizeof *out);
    out->kind = HF_K_OBJARRAY;
    out->length = sn->first[v + 1] - sn->first[v];
    out->class_id = V8_CLASS_ID(sn->cls[v]);
    return true;
}

static bool codec_object(const hf_heap *h, uint64_t loc, hf_hobj *ob)
{
    uint32_t v;
    const v8_snap *sn = v8_at(D(h), loc, &v);
    if (!sn)
        return false;
    ob->id = sn->id[v];
    ob->loc = loc;
    /* to the layer a node is an array of its edges: so tables/references.tsv
     * walks them (through refs/), and objects.tsv's length is their count */
    ob->kind = HF_K_OBJARRAY;
    ob->elem = HF_T_OBJECT;
    ob->nodata = false;
    ob->length = sn->first[v + 1] - sn->first[v];
    ob->trace = sn->trace[v] ? sn->tbase + sn->trace[v] : 0;
    ob->data = ob->end = NULL;
    return true;
}

/* References for dominators, paths and referrers: the essential edges,
 * slot = the edge's position among the node's edges; the root also
 * reaches the orphans, at slots after its own edges. */
static void codec_refs(const hf_heap *h, const hf_hsnap *hs, const hf_hobj *ob,
                       hf_heap_ref_fn fn, void *ud)
{
    uint32_t v;
    const v8_snap *sn = v8_at(D(h), ob->loc, &v);
    if (!sn)
        return;
    uint32_t a = sn->first[v], b = sn->first[v + 1];
    for (uint32_t e = a; e < b; e++)
        if (v8_essential(sn, e) && !fn(sn->id[sn->eto[e]], e - a, ud))
            return;
    if (v == sn->root)
        for (uint32_t i = 0; i < sn->n_orphans; i++)
            if (!fn(sn->id[sn->orphans[i]], b - a + i, ud))
                return;
}

static void codec_ref_name(const hf_heap *h, const hf_hsnap *hs, const hf_hobj *ob,
                           uint32_t slot, char name[HF_NAME_MAX])
{
    uint32_t v;
    const v8_snap *sn = v8_at(D(h), ob->loc, &v);
    if (!sn)
        return;
    uint32_t a = sn->first[v], b = sn->first[v + 1];
    if (slot >= b - a) {
        g_strlcpy(name, "(no strong retainer)", HF_NAME_MAX);
        return;
    }
    GString *s = g_string_new(NULL);
    v8_edge_name(sn, a + slot, s);
    char *e = hf_name_escape(s->str, s->len);
    g_strlcpy(name, e, HF_NAME_MAX);
    g_free(e);
    g_string_free(s, TRUE);
}

const hf_heap_codec v8_codec = {
    .fixed_be = false,
    .object_id = codec_object_id,
    .shape = codec_shape,
    .object = codec_object,
    .value = hf_codec_no_value,
    .element = hf_codec_no_element,
    .refs = codec_refs,
    .ref_name = codec_ref_name,
};
