/*
 * domclass.c - the dominator tree grouped by class, MAT's "group by
 * class" of its dominator tree:
 *
 *   snapshots/S/dominators-by-class     what only the GC roots keep alive
 *   objects/0xID/dominated-by-class     what the object immediately dominates
 *
 * both "# objects shallow retained percent class": per class, how many
 * objects of that level, their shallow bytes and their retained bytes
 * (none of them dominates another, so the sum is exact), by retained
 * bytes, then class name.  Class objects count as java.lang.Class, as MAT
 * groups them.  Reading either computes the snapshot's retained sizes
 * (retained.h).  Thread-safe: reads the finished graph only.
 */
#include "decoders/core/cancel.h"
#include "decoders/core/names.h"
#include "decoders/heap/retviews.h"

#include <string.h>

#define H(d) ((hf_heap *)(d))

/* The children of node v in the dominator tree, grouped by class. */
static void append_grouped(hf_heap *h, const hf_hsnap *sn, const hf_hgraph *g, uint32_t v,
                           GString *out)
{
    guint nc = sn->classes->len;
    hf_rv_class_row *by = g_new0(hf_rv_class_row, nc ? nc : 1);
    uint32_t a, b;
    hf_hgraph_kids(g, v, &a, &b);
    for (uint32_t i = a; i < b && !hf_cancel_due(i - a); i++) {
        uint32_t w = g->kids[i];
        hf_rv_class_row *r = &by[hf_heap_cls(sn, w)];
        hf_hobj ob;
        r->count++;
        r->key += hf_hgraph_retained(g, w);
        if (hf_heap_decode(h, sn, w, &ob))
            r->bytes += hf_heap_shallow(h, sn, &ob);
    }
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(hf_rv_class_row));
    for (guint c = 0; c < nc; c++)
        if (by[c].count) {
            by[c].cls = c;
            g_array_append_val(rows, by[c]);
        }
    hf_rv_sort_class_rows(sn, rows);
    g_string_append(out, "# objects\tshallow\tretained\tpercent\tclass\n");
    for (guint i = 0; i < rows->len; i++) {
        const hf_rv_class_row *r = &g_array_index(rows, hf_rv_class_row, i);
        g_string_append_printf(out, "%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%"
                               G_GUINT64_FORMAT "\t", (guint64)r->count, (guint64)r->bytes,
                               (guint64)r->key);
        hf_rv_pct(out, r->key, hf_hgraph_retained(g, g->n));
        g_string_append_c(out, '\t');
        const char *dir = hf_heap_class(sn, r->cls)->dir;
        hf_escape_str(out, dir);
        g_string_append_c(out, '\n');
    }
    g_array_free(rows, TRUE);
    g_free(by);
}

uint64_t hf_heap_view_dominators_by_class(hf_dump *d, const hf_view *v, uint64_t first,
                                          GString *out, size_t budget)
{
    const hf_hgraph *g = hf_rv_graph_or_say(d, v->snap, out);
    if (g)
        append_grouped(H(d), hf_heap_snap(H(d), v->snap), g, g->n, out);
    return HF_DONE;
}

uint64_t hf_heap_view_dominated_by_class(hf_dump *d, const hf_view *v, uint64_t first,
                                         GString *out, size_t budget)
{
    const hf_hgraph *g = hf_rv_graph_or_say(d, v->snap, out);
    if (g && v->index < g->n)
        append_grouped(H(d), hf_heap_snap(H(d), v->snap), g, (uint32_t)v->index, out);
    return HF_DONE;
}
