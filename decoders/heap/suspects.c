/*
 * suspects.c - snapshots/S/suspects: leak suspects by Eclipse MAT's rule
 * (retained.h computes the graph).
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
        if (hf_heap_cls(sn, v) == sn->class_class && g->retained[v] >= limit) {
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
        if ((double)g->retained[big] < ACC_SHARE * (double)g->retained[v])
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
    g_string_append_printf(out, " retains %" G_GUINT64_FORMAT " bytes (", (guint64)g->retained[v]);
    hf_rv_pct(out, g->retained[v], g->retained[g->n]);
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

/* A single object at the top of the tree: reported as the class whose
 * statics hold the memory when one is on the way down. */
static void append_object_suspect(hf_heap *h, const hf_hsnap *sn, const hf_hgraph *g, uint32_t w,
                                  uint64_t limit, unsigned k, GString *out)
{
    uint32_t cls, acc = accumulation_point(h, sn, g, w, limit, &cls);
    g_string_append_printf(out, "suspect %u: ", k);
    if (cls != HF_NONE && cls != w) {
        append_retains(h, sn, g, cls, out);
        g_string_append(out, " through its static fields; kept alive by ");
        hf_rv_node(h, sn, w, out);
        g_string_append_c(out, '\n');
        append_details(h, sn, g, cls, acc, out);
        return;
    }
    append_retains(h, sn, g, w, out);
    g_string_append(out, cls == w ? " through its static fields\n" : "\n");
    append_details(h, sn, g, w, acc, out);
}

uint64_t hf_heap_view_suspects(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                               size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    const hf_hgraph *g = hf_rv_graph_or_say(d, v->snap, out);
    if (!g)
        return HF_DONE;
    uint64_t total = g->retained[g->n], limit = total / 10;
    unsigned k = 0;
    g_string_append_printf(out, "# leak suspects (MAT's rule): a single object, or all "
                           "instances of a class, retaining at least 10%% of the %"
                           G_GUINT64_FORMAT " reachable bytes\n", (guint64)total);
    /* single objects: the top of the tree is sorted, largest first */
    uint32_t top_a, top_b;
    hf_hgraph_kids(g, g->n, &top_a, &top_b);
    for (uint32_t i = top_a; i < top_b && limit; i++) {
        uint32_t w = g->kids[i];
        if (g->retained[w] < limit)
            break;
        append_object_suspect(h, sn, g, w, limit, ++k, out);
    }
    /* classes whose top-level instances together pass the limit, when no
     * single one of them did; class objects are single objects, each its
     * own class, never "instances of java.lang.Class" */
    for (guint c = 0; c < sn->classes->len && limit && !hf_cancelled(); c++) {
        if (c == sn->class_class)
            continue;
        uint64_t sum = 0, count = 0;
        uint32_t biggest = HF_NONE;
        for (uint32_t i = top_a; i < top_b; i++) {
            uint32_t w = g->kids[i];
            if (hf_heap_cls(sn, w) != c)
                continue;
            sum += g->retained[w];
            count++;
            if (biggest == HF_NONE)
                biggest = w;
        }
        if (count < 2 || sum < limit || g->retained[biggest] >= limit)
            continue;
        g_string_append_printf(out, "suspect %u: %" G_GUINT64_FORMAT " instances of %s retain %"
                               G_GUINT64_FORMAT " bytes (", ++k, (guint64)count,
                               hf_heap_class(sn, c)->dir, (guint64)sum);
        hf_rv_pct(out, sum, total);
        g_string_append(out, "%); the largest:\n");
        uint32_t cls, acc = accumulation_point(h, sn, g, biggest, limit, &cls);
        append_details(h, sn, g, biggest, acc, out);
    }
    if (!k)
        g_string_append(out, "# none: no object or class retains 10% of the heap\n");
    return HF_DONE;
}
