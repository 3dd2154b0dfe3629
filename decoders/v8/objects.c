/*
 * objects.c - the files of objects/0xID/ for V8 nodes: info, edges (every
 * edge, weak ones too, with its kind and name), value (a string's text)
 * and refs/ (one link per edge that leads to a node).
 *
 * refs/ names an edge as DevTools shows it: the property name, "[i]" for
 * an element, the index for a hidden edge, escaped (names.h); a name that
 * an earlier edge of the node already took gets "@K" (K: the edge's
 * position among the node's edges), as does one that another edge could
 * take too: empty, cut short, holding '@', or a property that reads as an
 * element or a hidden edge's index.  So no two of a node's names are the
 * same (but in a file whose string table repeats a text).
 *
 * Read-only over the finished dump: thread-safe.
 */
#include "decoders/v8/v8.h"
#include "decoders/core/names.h"
#include "decoders/heap/render.h"

#include <string.h>

#define D(d) ((v8_dump *)(d))

/* Snapshot s's node of object o, NULL when out of range. */
static const v8_snap *node_of(hf_dump *d, uint32_t s, uint64_t o, uint32_t *ord)
{
    const hf_hsnap *hs = hf_heap_snap(&D(d)->heap, s);
    if (!hs || o >= hs->n_objects)
        return NULL;
    *ord = v8_ord(D(d), s, o);
    const v8_snap *sn = g_ptr_array_index(D(d)->snaps, s);
    return *ord < sn->n ? sn : NULL;
}

uint64_t v8_view_object_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget)
{
    uint32_t ord;
    const v8_snap *sn = node_of(d, v->snap, v->index, &ord);
    if (!sn)
        return HF_DONE;
    const hf_hsnap *hs = hf_heap_snap(&D(d)->heap, v->snap);
    g_string_append_printf(out, "id: " HF_FMT_ID "\n", (guint64)sn->id[ord]);
    g_string_append_printf(out, "devtools: @%" G_GUINT64_FORMAT "\n", (guint64)sn->id[ord]);
    g_string_append_printf(out, "class: %s\n",
                           hf_heap_class(hs, hf_heap_cls(hs, v->index))->dir);
    g_string_append_printf(out, "type: %s\n", v8_node_type_names[sn->type[ord]]);
    g_string_append_printf(out, "size: %" G_GUINT64_FORMAT "\n", (guint64)sn->size[ord]);
    g_string_append_printf(out, "self size in the file: %" G_GUINT64_FORMAT "\n",
                           (guint64)sn->raw_size[ord]);
    /* "length": what tables/objects.tsv calls it (to the layer a node is an
     * array of its edges) */
    g_string_append_printf(out, "length: %u (edges)\n", sn->first[ord + 1] - sn->first[ord]);
    static const char *const states[] = {"unknown", "attached", "detached"};
    g_string_append_printf(out, "detachedness: %s\n",
                           sn->detached[ord] < 3 ? states[sn->detached[ord]] : "?");
    if (sn->trace[ord])
        g_string_append_printf(out, "trace node: %u\n", sn->trace[ord]);
    GString *t = g_string_new(NULL);
    v8_string(sn, sn->name[ord], t);
    if (t->len > 4096) /* a string's text: whole in value */
        g_string_truncate(t, 4096);
    g_string_append(out, "name: ");
    hf_heap_escape_line(out, t->str, t->len);
    g_string_append_c(out, '\n');
    g_string_free(t, TRUE);
    return HF_DONE;
}

/* edges: "TYPE 0xID NAME", item = edge position. */
uint64_t v8_view_object_edges(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget)
{
    uint32_t ord;
    const v8_snap *sn = node_of(d, v->snap, v->index, &ord);
    if (!sn)
        return HF_DONE;
    size_t start = out->len;
    uint32_t a = sn->first[ord], b = sn->first[ord + 1];
    if (!first)
        g_string_append(out, "# type\tid\tname\n");
    GString *t = g_string_new(NULL);
    for (uint64_t k = first; k < b - a; k++) {
        if (hf_budget_spent(out, start, budget)) {
            g_string_free(t, TRUE);
            return k;
        }
        uint32_t e = a + (uint32_t)k, to = sn->eto[e];
        g_string_truncate(t, 0);
        v8_edge_name(sn, e, t);
        g_string_append_printf(out, "%s\t", v8_edge_type_names[sn->etype[e]]);
        if (to == UINT32_MAX)
            g_string_append(out, "none\t");
        else
            g_string_append_printf(out, HF_FMT_ID "\t", (guint64)sn->id[to]);
        hf_heap_escape_line(out, t->str, t->len);
        g_string_append_c(out, '\n');
    }
    g_string_free(t, TRUE);
    return HF_DONE;
}

bool v8_has_value(hf_dump *d, uint32_t s, uint64_t o)
{
    uint32_t ord;
    const v8_snap *sn = node_of(d, s, o, &ord);
    return sn && (sn->type[ord] == V8N_STRING || sn->type[ord] == V8N_CONS_STRING ||
                  sn->type[ord] == V8N_SLICED_STRING);
}

/* A string's text as V8 wrote it (V8 cuts long ones), not escaped. */
uint64_t v8_view_object_value(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget)
{
    uint32_t ord;
    const v8_snap *sn = node_of(d, v->snap, v->index, &ord);
    if (sn)
        v8_string(sn, sn->name[ord], out);
    return HF_DONE;
}

/* What an edge's name is made from: an element's index, a hidden edge's
 * number, or a string. */
enum { KIND_ELEMENT, KIND_HIDDEN, KIND_STRING };

static int name_kind(const v8_snap *sn, uint32_t e)
{
    return sn->etype[e] == V8E_ELEMENT ? KIND_ELEMENT
           : sn->etype[e] == V8E_HIDDEN ? KIND_HIDDEN
                                        : KIND_STRING;
}

/* Whether property text t of edge e names it alone among the names of
 * other strings and kinds: a string of the table, not empty, no '@' (the
 * "@K" of the names that need one), not "[i]" nor "i" (an element, a
 * hidden edge). */
static bool plain_property(const v8_snap *sn, uint32_t e, const GString *t)
{
    if (sn->ename[e] >= sn->n_strings || t->len == 0 || memchr(t->str, '@', t->len))
        return false;
    const char *p = t->str + (t->str[0] == '[');
    size_t digits = strspn(p, "0123456789");
    return !digits || !(p[digits] == '\0' || (p[digits] == ']' && p[digits + 1] == '\0' &&
                                               t->str[0] == '['));
}

/* The refs/ name of edge k of node ord (see the top). */
static void ref_name(const v8_snap *sn, uint32_t ord, uint32_t k, char name[HF_NAME_MAX],
                     GString *t)
{
    uint32_t a = sn->first[ord], e = a + k;
    g_string_truncate(t, 0);
    if (sn->etype[e] == V8E_ELEMENT)
        g_string_append_printf(t, "[%u]", sn->ename[e]);
    else
        v8_edge_name(sn, e, t);
    char *esc = hf_name_escape(t->str, MIN(t->len, 200));
    g_strlcpy(name, esc, HF_NAME_MAX);
    bool taken = t->len > 200 || strlen(esc) >= HF_NAME_MAX ||
                 (name_kind(sn, e) == KIND_STRING && !plain_property(sn, e, t));
    g_free(esc);
    /* the same name twice: the same kind of name and the same index (V8
     * keeps each string once) */
    for (uint32_t j = a; j < e && !taken; j++)
        taken = sn->ename[j] == sn->ename[e] && name_kind(sn, j) == name_kind(sn, e);
    if (taken) {
        char tail[16];
        g_snprintf(tail, sizeof tail, "@%u", k);
        name[MIN(strlen(name), HF_NAME_MAX - 1 - strlen(tail))] = '\0';
        g_strlcat(name, tail, HF_NAME_MAX);
    }
}

/* Whether edge k of node ord has a refs/ entry: it leads to a node. */
static bool listed(v8_dump *d, uint32_t s, const v8_snap *sn, uint32_t ord, uint32_t k)
{
    uint32_t t = sn->eto[sn->first[ord] + k];
    return t != UINT32_MAX && v8_object_of(d, s, t) >= 0;
}

hf_ref_status v8_refs_entry(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                            char name[HF_NAME_MAX], hf_target *to)
{
    uint32_t ord;
    const v8_snap *sn = node_of(d, s, o, &ord);
    if (!sn || slot >= sn->first[ord + 1] - sn->first[ord])
        return HF_REF_END;
    if (!listed(D(d), s, sn, ord, slot))
        return HF_REF_EMPTY;
    uint32_t t = sn->eto[sn->first[ord] + slot];
    GString *tmp = g_string_new(NULL);
    ref_name(sn, ord, slot, name, tmp);
    g_string_free(tmp, TRUE);
    to->kind = HF_TO_OBJECT;
    hf_heap_id_name(sn->id[t], to->name);
    return HF_REF_OK;
}

int64_t v8_refs_find(hf_dump *d, uint32_t s, uint64_t o, const char *name)
{
    uint32_t ord;
    const v8_snap *sn = node_of(d, s, o, &ord);
    if (!sn)
        return -1;
    /* "NAME@K" names edge K */
    const char *at = strrchr(name, '@');
    uint64_t k;
    uint32_t n = sn->first[ord + 1] - sn->first[ord];
    char got[HF_NAME_MAX];
    GString *tmp = g_string_new(NULL);
    int64_t found = -1;
    if (at && hf_parse_decimal(at + 1, &k) && k < n && listed(D(d), s, sn, ord, (uint32_t)k)) {
        ref_name(sn, ord, (uint32_t)k, got, tmp);
        if (strcmp(got, name) == 0)
            found = (int64_t)k;
    }
    for (uint32_t j = 0; j < n && found < 0 && n <= 65536; j++) {
        if (!listed(D(d), s, sn, ord, j))
            continue;
        ref_name(sn, ord, j, got, tmp);
        if (strcmp(got, name) == 0)
            found = j;
    }
    g_string_free(tmp, TRUE);
    return found;
}
