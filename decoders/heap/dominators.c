/*
 * dominators.c - the views of what keeps objects alive (retained.h):
 *
 *   snapshots/S/dominators          the top of the dominator tree
 *   snapshots/S/histogram-retained  per class: instances, bytes, retained
 *   snapshots/S/unreachable         a histogram of what no root reaches
 *   classes/NAME/retained           the class's retained bytes
 *   objects/0xID/retained, path     retained bytes and dominator; the
 *                                   shortest path from a GC root
 *   objects/0xID/dominator          link to the immediate dominator
 *   objects/0xID/referrers/         who references it (inverse of refs/)
 *   objects/0xID/dominated/         what it immediately dominates
 *
 * Reading any of them computes the snapshot's graph once; listing them
 * does not.  Read-only after that: thread-safe.  The views that walk every
 * object end early when the mount goes away (core/cancel.h).
 */
#include "decoders/core/cancel.h"
#include "decoders/core/names.h"
#include "decoders/core/search.h"
#include "decoders/heap/groups.h"
#include "decoders/heap/retviews.h"

#include <stdio.h>
#include <string.h>

#define H(d) ((hf_heap *)(d))

/* The graph of snapshot s when it exists and has object o, else NULL. */
static const hf_hgraph *graph_for(hf_dump *d, uint32_t s, uint64_t o)
{
    const hf_hgraph *g = hf_heap_graph(H(d), s);
    return g->error || o >= g->n ? NULL : g;
}

/* ---- snapshot views ---- */

uint64_t hf_heap_view_dominators(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                 size_t budget)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), v->snap);
    const hf_hgraph *g = first ? hf_heap_graph(H(d), v->snap) : hf_rv_graph_or_say(d, v->snap, out);
    if (!g || g->error)
        return HF_DONE;
    uint32_t n = g->n, a, b;
    hf_hgraph_kids(g, n, &a, &b);
    size_t start = out->len;
    if (first == 0) /* the top of the dominator tree, largest first */
        g_string_append(out, "# id\tshallow\tretained\tpercent\twhat\n");
    for (uint64_t i = first ? first - 1 : 0; a + i < b; i++) {
        if (hf_budget_spent(out, start, budget))
            return i + 1;
        uint32_t w = g->kids[a + i];
        hf_hobj ob;
        uint64_t shallow = hf_heap_decode(H(d), sn, w, &ob) ? hf_heap_shallow(H(d), sn, &ob) : 0;
        g_string_append_printf(out, HF_FMT_ID "\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t",
                               (guint64)hf_heap_object_id(H(d), sn, w), (guint64)shallow,
                               (guint64)hf_hgraph_retained(g, w));
        hf_rv_pct(out, hf_hgraph_retained(g, w), hf_hgraph_retained(g, n));
        g_string_append_c(out, '\t');
        hf_rv_what(H(d), sn, w, out);
        g_string_append_c(out, '\n');
    }
    return HF_DONE;
}

static void append_rows(const hf_hsnap *sn, GArray *rows, bool with_key, GString *out)
{
    hf_rv_sort_class_rows(sn, rows);
    for (guint i = 0; i < rows->len; i++) {
        const hf_rv_class_row *r = &g_array_index(rows, hf_rv_class_row, i);
        g_string_append_printf(out, "%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t",
                               (guint64)r->count, (guint64)r->bytes);
        if (with_key)
            g_string_append_printf(out, "%" G_GUINT64_FORMAT "\t", (guint64)r->key);
        hf_escape_str(out, hf_heap_class(sn, r->cls)->dir);
        g_string_append_c(out, '\n');
    }
}

uint64_t hf_heap_view_histogram_retained(hf_dump *d, const hf_view *v, uint64_t first,
                                         GString *out, size_t budget)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), v->snap);
    const hf_hgraph *g = hf_rv_graph_or_say(d, v->snap, out);
    if (!g)
        return HF_DONE;
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(hf_rv_class_row));
    for (guint c = 0; c < sn->classes->len; c++) {
        const hf_hclass *k = hf_heap_class(sn, c);
        if (!k->count)
            continue;
        hf_rv_class_row r = {c, k->count, k->bytes, g->class_retained[c]};
        g_array_append_val(rows, r);
    }
    /* by retained bytes; an instance under another of its class counted once */
    g_string_append(out, "# objects\tbytes\tretained\tclass\n");
    append_rows(sn, rows, true, out);
    g_array_free(rows, TRUE);
    return HF_DONE;
}

uint64_t hf_heap_view_unreachable(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), v->snap);
    const hf_hgraph *g = hf_rv_graph_or_say(d, v->snap, out);
    if (!g)
        return HF_DONE;
    guint nc = sn->classes->len;
    hf_rv_class_row *by = g_new0(hf_rv_class_row, nc ? nc : 1);
    for (uint32_t o = 0; o < g->n && !hf_cancel_due(o); o++) {
        if (g->idom[o] != HF_NONE)
            continue;
        hf_hobj ob;
        hf_rv_class_row *r = &by[hf_heap_cls(sn, o)];
        r->count++;
        if (hf_heap_decode(H(d), sn, o, &ob))
            r->bytes += hf_heap_shallow(H(d), sn, &ob);
    }
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(hf_rv_class_row));
    for (guint c = 0; c < nc; c++)
        if (by[c].count) {
            by[c].cls = c;
            by[c].key = by[c].bytes;
            g_array_append_val(rows, by[c]);
        }
    g_string_append(out, "# objects\tbytes\tclass\n");
    append_rows(sn, rows, false, out);
    g_array_free(rows, TRUE);
    g_free(by);
    return HF_DONE;
}

/* ---- classes ---- */

uint64_t hf_heap_view_class_retained(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                     size_t budget)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), v->snap);
    const hf_hgraph *g = hf_rv_graph_or_say(d, v->snap, out);
    if (!g || v->index >= sn->classes->len)
        return HF_DONE;
    const hf_hclass *c = hf_heap_class(sn, v->index);
    g_string_append_printf(out, "instances: %" G_GUINT64_FORMAT "\nbytes: %" G_GUINT64_FORMAT
                           "\nretained: %" G_GUINT64_FORMAT " (", (guint64)c->count,
                           (guint64)c->bytes, (guint64)g->class_retained[v->index]);
    hf_rv_pct(out, g->class_retained[v->index], hf_hgraph_retained(g, g->n));
    g_string_append(out, "% of the heap; an instance under another of this class counted once)\n");
    uint32_t cn = hf_rv_class_node(H(d), sn, (uint32_t)v->index);
    if (cn == HF_NONE || cn >= g->n) {
        g_string_append(out, "statics: 0 (the dump has no class object)\n");
        return HF_DONE;
    }
    g_string_append_printf(out, "statics: %" G_GUINT64_FORMAT " (",
                           (guint64)hf_hgraph_retained(g, cn));
    hf_rv_pct(out, hf_hgraph_retained(g, cn), hf_hgraph_retained(g, g->n));
    g_string_append_printf(out, "%% of the heap; what the class object " HF_FMT_ID " retains: "
                           "itself, its static fields and what only they keep alive)\n",
                           (guint64)hf_heap_object_id(H(d), sn, cn));
    return HF_DONE;
}

/* ---- objects ---- */

uint64_t hf_heap_view_object_retained(hf_dump *d, const hf_view *v, uint64_t first,
                                      GString *out, size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    const hf_hgraph *g = hf_rv_graph_or_say(d, v->snap, out);
    hf_hobj ob;
    if (!g || !hf_heap_decode(h, sn, v->index, &ob))
        return HF_DONE;
    uint32_t o = (uint32_t)v->index, idom = g->idom[o];
    g_string_append_printf(out, "shallow: %" G_GUINT64_FORMAT "\n",
                           (guint64)hf_heap_shallow(h, sn, &ob));
    g_string_append_printf(out, "retained: %" G_GUINT64_FORMAT " (",
                           (guint64)hf_hgraph_retained(g, o));
    hf_rv_pct(out, hf_hgraph_retained(g, o), hf_hgraph_retained(g, g->n));
    g_string_append(out, "% of the heap)\n");
    if (idom == HF_NONE) {
        g_string_append(out, "dominator: none: no GC root reaches this object (see unreachable)\n");
    } else if (idom == g->n) {
        g_string_append(out, "dominator: the GC roots (no single object keeps it alive)\n");
    } else {
        g_string_append(out, "dominator: ");
        hf_rv_node(h, sn, idom, out);
        g_string_append_c(out, '\n');
    }
    uint32_t a, b;
    hf_hgraph_kids(g, (uint32_t)o, &a, &b);
    g_string_append_printf(out, "dominates: %u objects directly\n", b - a);
    return HF_DONE;
}

uint64_t hf_heap_view_object_path(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), v->snap);
    const hf_hgraph *g = hf_rv_graph_or_say(d, v->snap, out);
    if (g && v->index < g->n)
        hf_rv_path(H(d), sn, g, (uint32_t)v->index, "", HF_NONE, NULL, out);
    return HF_DONE;
}

bool hf_heap_link_dominator(hf_dump *d, uint32_t s, uint64_t o, hf_target *to)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    const hf_hgraph *g = graph_for(d, s, o);
    if (!g)
        return false;
    uint32_t idom = g->idom[o];
    if (idom == HF_NONE || idom == g->n) {
        to->kind = HF_TO_SNAP_FILE; /* the top of the tree, or no tree at all */
        g_strlcpy(to->name, idom == HF_NONE ? "unreachable" : "dominators", HF_NAME_MAX);
        return true;
    }
    to->kind = HF_TO_OBJECT;
    hf_heap_id_name(hf_heap_object_id(H(d), sn, idom), to->name);
    return true;
}

bool hf_heap_has_always(hf_dump *d, uint32_t s, uint64_t index)
{
    return true;
}

/* referrers/: entry k is the k-th referrer edge, "0xFROM.FIELD". */
hf_ref_status hf_heap_referrers_entry(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                                      char name[HF_NAME_MAX], hf_target *to)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, s);
    const hf_hgraph *g = graph_for(d, s, o);
    if (!g)
        return HF_REF_END;
    uint32_t a = g->pred.off[o], b = g->pred.off[o + 1];
    if (slot >= b - a)
        return HF_REF_END;
    uint32_t p = g->pred.dst[a + slot];
    if (p == g->n) { /* o is a GC root */
        g_strlcpy(name, "<root>", HF_NAME_MAX);
        to->kind = HF_TO_SNAP_FILE;
        g_strlcpy(to->name, "roots", HF_NAME_MAX);
        return HF_REF_OK;
    }
    uint32_t dup = 0; /* earlier edges from the same referrer */
    while (dup < slot && g->pred.dst[a + slot - dup - 1] == p)
        dup++;
    char field[HF_NAME_MAX];
    if (!hf_heap_ref_name(h, sn, p, o, dup, field))
        return HF_REF_EMPTY;
    g_snprintf(name, HF_NAME_MAX, HF_FMT_ID ".%s", (guint64)hf_heap_object_id(h, sn, p), field);
    to->kind = HF_TO_OBJECT;
    hf_heap_id_name(hf_heap_object_id(h, sn, p), to->name);
    return HF_REF_OK;
}

int64_t hf_heap_referrers_find(hf_dump *d, uint32_t s, uint64_t o, const char *name)
{
    const hf_hgraph *g = graph_for(d, s, o);
    if (!g)
        return -1;
    uint32_t a = g->pred.off[o], b = g->pred.off[o + 1];
    int64_t p = -1;
    if (strcmp(name, "<root>") != 0) {
        const char *dot = strchr(name, '.');
        if (!dot || dot - name >= HF_NAME_MAX)
            return -1;
        char id[HF_NAME_MAX];
        g_strlcpy(id, name, (size_t)(dot - name) + 1);
        p = hf_heap_object_find(d, s, id);
        if (p < 0)
            return -1;
    } else {
        p = g->n;
    }
    char buf[HF_NAME_MAX];
    hf_target to;
    /* only the slots fs/ lists (fs/inode.h: 15 bits) can be looked up */
    for (uint32_t k = 0; k < b - a && k < (1u << 15); k++) {
        if (g->pred.dst[a + k] != (uint32_t)p)
            continue;
        if (hf_heap_referrers_entry(d, s, o, k, buf, &to) == HF_REF_OK && strcmp(buf, name) == 0)
            return k;
    }
    return -1;
}

/* dominated/: "RANK-0xID", largest retained first, so ls lists them in
 * that order. */
static int rank_width(uint32_t n)
{
    int w = 1;
    while (n >= 10) {
        n /= 10;
        w++;
    }
    return w;
}

hf_ref_status hf_heap_dominated_entry(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                                      char name[HF_NAME_MAX], hf_target *to)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, s);
    const hf_hgraph *g = graph_for(d, s, o);
    if (!g)
        return HF_REF_END;
    uint32_t a, b;
    hf_hgraph_kids(g, (uint32_t)o, &a, &b);
    if (slot >= b - a)
        return HF_REF_END;
    uint64_t id = hf_heap_object_id(h, sn, g->kids[a + slot]);
    g_snprintf(name, HF_NAME_MAX, "%0*u-" HF_FMT_ID, rank_width(b - a), slot + 1, (guint64)id);
    to->kind = HF_TO_OBJECT;
    hf_heap_id_name(id, to->name);
    return HF_REF_OK;
}

int64_t hf_heap_dominated_find(hf_dump *d, uint32_t s, uint64_t o, const char *name)
{
    char *end;
    uint64_t rank = g_ascii_strtoull(name, &end, 10);
    char buf[HF_NAME_MAX];
    hf_target to;
    if (end == name || *end != '-' || rank == 0 || rank > UINT32_MAX ||
        hf_heap_dominated_entry(d, s, o, (uint32_t)(rank - 1), buf, &to) != HF_REF_OK ||
        strcmp(buf, name) != 0)
        return -1;
    return (int64_t)(rank - 1);
}

/* ---- duplicate Strings ---- */

static gint cmp_u32(gconstpointer a, gconstpointer b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The index of String ob's value array, -1 when it has none. */
static int64_t string_array(hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob)
{
    uint64_t arr;
    if (sn->str_value < 0 || !hf_heap_field(h, sn, ob, (uint32_t)sn->str_value, &arr) || !arr)
        return -1;
    return hf_heap_find_id(h, sn, arr);
}

/* Bytes a String alone keeps alive: itself, and its value array unless
 * another String shares it (JDK 6 and Android: offset/count windows into
 * one char[]), which dropping this copy would not free.  shared: the
 * value arrays of every String, sorted. */
static uint64_t string_bytes(hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob,
                             const GArray *shared)
{
    uint64_t n = hf_heap_shallow(h, sn, ob);
    int64_t ai = string_array(h, sn, ob);
    const uint32_t *v = (const uint32_t *)(const void *)shared->data;
    hf_hobj a;
    if (ai >= 0 && hf_upper_bound_u32(v, shared->len, (uint32_t)ai) -
                       hf_lower_bound_u32(v, shared->len, (uint32_t)ai) == 1 &&
        hf_heap_decode(h, sn, (uint64_t)ai, &a))
        n += hf_heap_shallow(h, sn, &a);
    return n;
}

/* Strings compared (groups.h hf_equal_ops): t the first's text. */
typedef struct {
    hf_heap *h;
    const hf_hsnap *sn;
    const GArray *shared; /* every String's value array, sorted */
    GString *t, *u;
} str_cmp;

static bool str_text(str_cmp *c, uint32_t o, hf_hobj *ob, GString *out)
{
    g_string_truncate(out, 0);
    return hf_heap_decode(c->h, c->sn, o, ob) && hf_heap_text(c->h, c->sn, ob, out);
}

static bool str_first(void *ud, uint32_t o)
{
    str_cmp *c = ud;
    hf_hobj ob;
    return str_text(c, o, &ob, c->t);
}

static bool str_same(void *ud, uint32_t o, uint64_t *bytes)
{
    str_cmp *c = ud;
    hf_hobj ob;
    if (!str_text(c, o, &ob, c->u) || !g_string_equal(c->t, c->u))
        return false;
    *bytes = string_bytes(c->h, c->sn, &ob, c->shared);
    return true;
}

/* Strings with equal text (groups.h hf_equal_groups, by a hash of the
 * text). */
uint64_t hf_heap_view_duplicates(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                 size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    if (!sn || sn->string_class == UINT32_MAX)
        return HF_DONE;
    GArray *keys = g_array_new(FALSE, FALSE, sizeof(hf_equal_key));
    GArray *arrays = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    GString *t = g_string_new(NULL), *u = g_string_new(NULL);
    for (uint64_t o = 0; o < sn->n_objects && !hf_cancel_due(o); o++) {
        hf_hobj ob;
        if (hf_heap_cls(sn, o) != sn->string_class || !hf_heap_decode(h, sn, o, &ob))
            continue;
        g_string_truncate(t, 0);
        if (!hf_heap_text(h, sn, &ob, t))
            continue;
        hf_equal_key k = {hf_hash_bytes(t->str, t->len), (uint32_t)o};
        g_array_append_val(keys, k);
        int64_t ai = string_array(h, sn, &ob);
        if (ai >= 0) {
            uint32_t a = (uint32_t)ai;
            g_array_append_val(arrays, a);
        }
    }
    g_array_sort(arrays, cmp_u32);
    static const hf_equal_ops ops = {str_first, str_same};
    str_cmp c = {h, sn, arrays, t, u};
    GArray *groups = hf_equal_groups(keys, &ops, &c);
    g_string_append(out, "# count\twasted\ttext\n");
    for (guint i = 0; i < groups->len; i++) {
        const hf_equal_group *gr = &g_array_index(groups, hf_equal_group, i);
        hf_hobj ob;
        if (!str_text(&c, gr->o, &ob, t))
            continue;
        g_string_append_printf(out, "%u\t%" G_GUINT64_FORMAT "\t", gr->copies, (guint64)gr->wasted);
        hf_heap_escape_line(out, t->str, t->len);
        g_string_append_c(out, '\n');
    }
    g_array_free(groups, TRUE);
    g_array_free(keys, TRUE);
    g_array_free(arrays, TRUE);
    g_string_free(t, TRUE);
    g_string_free(u, TRUE);
    return HF_DONE;
}
