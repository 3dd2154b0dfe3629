/*
 * suspects.c - snapshots/S/suspects and suspects-report: leak suspects by
 * Eclipse MAT's rule (retained.h computes the graph).  `suspects` is a
 * table of docs/views.md, one row per suspect; `suspects-report` the same
 * suspects in words.
 *
 * A suspect is an object of the top of the dominator tree retaining at
 * least 10% of the reachable bytes, or the top-level instances of one
 * class that together do (when no single one does).  Each is reported with
 * the path from a GC root down to its accumulation point (where the
 * memory sits: down the dominator tree while one child keeps 70% of its
 * parent), a field name at every step, and what the accumulation point
 * dominates, largest first.  A class object on the way down that itself
 * retains 10% (a class holding much through its statics) is the suspect,
 * named as that class, rather than the class loader above it; class
 * objects are never grouped as "instances of java.lang.Class".
 *
 * Reads the finished graph only: thread-safe.
 */
#include "decoders/core/cancel.h"
#include "decoders/core/names.h"
#include "decoders/heap/retviews.h"

#define H(d) ((hf_heap *)(d))
#define ACC_SHARE 0.7  /* a child keeping this share of its parent: go down */
#define ACC_KIDS 10    /* the accumulation point's dominated objects listed */

/* Down the dominator tree from v while one child keeps most of it: where
 * the memory accumulates.  *cls: the deepest class object on the way (v
 * and the point included) retaining at least `limit`, else HF_NONE. */
static uint32_t accumulation_point(hf_heap *h, const hf_hsnap *sn, const hf_hgraph *g,
                                   uint32_t v, uint64_t limit, uint32_t *cls)
{
    *cls = HF_NONE;
    for (uint32_t steps = 0; steps < g->n; steps++) {
        if (hf_heap_cls(sn, v) == sn->class_class && hf_hgraph_retained(g, v) >= limit) {
            bool is_class;
            hf_rv_owner_class(h, sn, v, &is_class);
            if (is_class)
                *cls = v;
        }
        uint32_t a, b;
        hf_hgraph_kids(g, v, &a, &b);
        if (a == b)
            break;
        uint32_t big = g->kids[a];
        if ((double)hf_hgraph_retained(g, big) < ACC_SHARE * (double)hf_hgraph_retained(g, v))
            break;
        v = big;
    }
    return v;
}

/* "0xID CLASS retains N bytes (P%)" */
static void append_retains(hf_heap *h, const hf_hsnap *sn, const hf_hgraph *g, uint32_t v,
                           GString *out)
{
    hf_rv_node(h, sn, v, out);
    g_string_append_printf(out, " retains %" G_GUINT64_FORMAT " bytes (",
                           (guint64)hf_hgraph_retained(g, v));
    hf_rv_pct(out, hf_hgraph_retained(g, v), hf_hgraph_retained(g, g->n));
    g_string_append(out, "%)");
}

/* The path to the accumulation point of suspect v, and what it holds. */
static void append_details(hf_heap *h, const hf_hsnap *sn, const hf_hgraph *g, uint32_t v,
                           uint32_t acc, GString *out)
{
    g_string_append(out, "  path from a GC root to the accumulation point:\n");
    GString *p = g_string_new(NULL);
    hf_rv_path(h, sn, g, acc, "    ", v, acc == v ? "suspect, accumulation point" : "suspect", p);
    g_string_append_len(out, p->str, p->len);
    g_string_free(p, TRUE);
    g_string_append(out, "  accumulation point: ");
    append_retains(h, sn, g, acc, out);
    g_string_append_c(out, '\n');
    uint32_t a, b;
    hf_hgraph_kids(g, acc, &a, &b);
    if (a == b)
        return;
    g_string_append_printf(out, "  its biggest dominated objects (%u of %u):\n",
                           MIN(b - a, ACC_KIDS), b - a);
    for (uint32_t i = a; i < b && i - a < ACC_KIDS; i++) {
        g_string_append(out, "    ");
        append_retains(h, sn, g, g->kids[i], out);
        g_string_append_c(out, '\n');
    }
}

/* One suspect: a single object (cls HF_NONE) or the top-level instances
 * of class cls together.  v is the object (for a class, its largest
 * instance); a class object found on the way down that retains the limit
 * itself replaces the object, then `keeper` is the object above it. */
typedef struct {
    uint64_t retained, count;
    uint32_t v, keeper, acc, cls;
    bool statics; /* v is a class object holding the memory in its statics */
} suspect;

/* The suspects of a snapshot, in the order both views list them. */
static GArray *find_suspects(hf_heap *h, const hf_hsnap *sn, const hf_hgraph *g)
{
    GArray *all = g_array_new(FALSE, FALSE, sizeof(suspect));
    uint64_t limit = hf_hgraph_retained(g, g->n) / 10;
    if (!limit)
        return all;
    /* single objects: the top of the tree is sorted, largest first */
    uint32_t top_a, top_b;
    hf_hgraph_kids(g, g->n, &top_a, &top_b);
    for (uint32_t i = top_a; i < top_b && hf_hgraph_retained(g, g->kids[i]) >= limit; i++) {
        suspect x = {.count = 1, .v = g->kids[i], .keeper = HF_NONE, .cls = HF_NONE};
        uint32_t cn;
        x.acc = accumulation_point(h, sn, g, x.v, limit, &cn);
        x.statics = cn != HF_NONE;
        if (x.statics && cn != x.v) {
            x.keeper = x.v;
            x.v = cn;
        }
        x.retained = hf_hgraph_retained(g, x.v);
        g_array_append_val(all, x);
    }
    /* classes whose top-level instances together pass the limit, when no
     * single one of them did; class objects are single objects, each its
     * own class, never "instances of java.lang.Class".  One pass over the
     * top of the tree adds up every class (a pass per class was
     * classes x top-level objects: minutes on a big dump) */
    guint nc = sn->classes->len;
    suspect *by = g_new(suspect, nc ? nc : 1);
    for (guint c = 0; c < nc; c++)
        by[c] = (suspect){.v = HF_NONE, .keeper = HF_NONE, .cls = c};
    for (uint32_t i = top_a; i < top_b; i++) {
        uint32_t w = g->kids[i];
        suspect *x = &by[hf_heap_cls(sn, w)];
        x->retained += hf_hgraph_retained(g, w);
        x->count++;
        if (x->v == HF_NONE)
            x->v = w;
    }
    for (guint c = 0; c < nc && !hf_cancelled(); c++) {
        suspect x = by[c];
        if (c == sn->class_class || x.count < 2 || x.retained < limit ||
            hf_hgraph_retained(g, x.v) >= limit)
            continue;
        uint32_t cn;
        x.acc = accumulation_point(h, sn, g, x.v, limit, &cn);
        g_array_append_val(all, x);
    }
    g_free(by);
    return all;
}

uint64_t hf_heap_view_suspects(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                               size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    const hf_hgraph *g = hf_rv_graph_or_say(d, v->snap, out);
    if (!g)
        return HF_DONE;
    g_string_append(out, "# retained\tpercent\tobjects\tid\taccumulation\twhat\n");
    GArray *all = find_suspects(h, sn, g);
    for (guint i = 0; i < all->len; i++) {
        const suspect *x = &g_array_index(all, suspect, i);
        g_string_append_printf(out, "%" G_GUINT64_FORMAT "\t", (guint64)x->retained);
        hf_rv_pct(out, x->retained, hf_hgraph_retained(g, g->n));
        g_string_append_printf(out, "\t%" G_GUINT64_FORMAT "\t" HF_FMT_ID "\t" HF_FMT_ID "\t",
                               (guint64)x->count, (guint64)hf_heap_object_id(h, sn, x->v),
                               (guint64)hf_heap_object_id(h, sn, x->acc));
        if (x->cls != HF_NONE)
            hf_escape_str(out, hf_heap_class(sn, x->cls)->dir);
        else
            hf_rv_what(h, sn, x->v, out);
        g_string_append_c(out, '\n');
    }
    g_array_free(all, TRUE);
    return HF_DONE;
}

uint64_t hf_heap_view_suspects_report(hf_dump *d, const hf_view *v, uint64_t first,
                                      GString *out, size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    const hf_hgraph *g = hf_rv_graph_or_say(d, v->snap, out);
    if (!g)
        return HF_DONE;
    uint64_t total = hf_hgraph_retained(g, g->n);
    g_string_append_printf(out, "# leak suspects (MAT's rule): a single object, or all "
                           "instances of a class, retaining at least 10%% of the %"
                           G_GUINT64_FORMAT " reachable bytes\n", (guint64)total);
    GArray *all = find_suspects(h, sn, g);
    for (guint i = 0; i < all->len; i++) {
        const suspect *x = &g_array_index(all, suspect, i);
        g_string_append_printf(out, "suspect %u: ", i + 1);
        if (x->cls != HF_NONE) {
            g_string_append_printf(out, "%" G_GUINT64_FORMAT " instances of ", (guint64)x->count);
            hf_escape_str(out, hf_heap_class(sn, x->cls)->dir);
            g_string_append_printf(out, " retain %" G_GUINT64_FORMAT " bytes (",
                                   (guint64)x->retained);
            hf_rv_pct(out, x->retained, total);
            g_string_append(out, "%); the largest:\n");
        } else {
            append_retains(h, sn, g, x->v, out);
            if (x->statics)
                g_string_append(out, " through its static fields");
            if (x->keeper != HF_NONE) {
                g_string_append(out, "; kept alive by ");
                hf_rv_node(h, sn, x->keeper, out);
            }
            g_string_append_c(out, '\n');
        }
        append_details(h, sn, g, x->v, x->acc, out);
    }
    if (!all->len)
        g_string_append(out, "# none: no object or class retains 10% of the heap\n");
    g_array_free(all, TRUE);
    return HF_DONE;
}
