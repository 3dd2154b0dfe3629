/*
 * biggest.c - snapshots/S/biggest and biggest-shallow: the HF_BIGGEST
 * objects with the most retained bytes, and those with the most shallow
 * bytes, with their class and a short description (retviews.h
 * hf_rv_describe): MAT's "biggest objects" without a grep over every
 * objects/0xID/info.
 *
 *   biggest          # id shallow retained percent class what
 *   biggest-shallow  # id shallow class what
 *
 * Tables (a '# ' header line, TAB, plain integers, free text last);
 * largest first, ties by id.  biggest computes
 * the snapshot's retained sizes (retained.h); biggest-shallow reads the
 * index and the dump only, one pass over the objects.  Both end early
 * when the mount goes away (core/cancel.h).  Thread-safe.
 */
#include "decoders/core/cancel.h"
#include "decoders/core/names.h"
#include "decoders/heap/retviews.h"

#include <string.h>

#define H(d) ((hf_heap *)(d))

/* The last two columns and the end of the row: the object's class
 * ("java.lang.Class" for a class object, whose `what` names the class it
 * is) and what it is. */
static void append_class_what(hf_heap *h, const hf_hsnap *sn, uint32_t v, GString *out)
{
    const char *dir = hf_heap_class(sn, hf_heap_cls(sn, v))->dir;
    hf_escape_str(out, dir);
    g_string_append_c(out, '\t');
    hf_rv_describe(h, sn, v, out);
    g_string_append_c(out, '\n');
}

uint64_t hf_heap_view_biggest(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    const hf_hgraph *g = hf_rv_graph_or_say(d, v->snap, out);
    if (!g)
        return HF_DONE;
    hf_rv_top top;
    hf_rv_top_init(&top, HF_BIGGEST);
    for (uint32_t o = 0; o < g->n && !hf_cancel_due(o); o++)
        if (g->idom[o] != HF_NONE)
            hf_rv_top_add(&top, hf_hgraph_retained(g, o), o);
    hf_rv_top_sort(&top);
    g_string_append(out, "# id\tshallow\tretained\tpercent\tclass\twhat\n");
    for (uint32_t i = 0; i < top.len && !hf_cancelled(); i++) {
        uint32_t o = top.a[i].v;
        hf_hobj ob;
        uint64_t shallow = hf_heap_decode(h, sn, o, &ob) ? hf_heap_shallow(h, sn, &ob) : 0;
        g_string_append_printf(out, HF_FMT_ID "\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t",
                               (guint64)hf_heap_object_id(h, sn, o), (guint64)shallow,
                               (guint64)hf_hgraph_retained(g, o));
        hf_rv_pct(out, hf_hgraph_retained(g, o), hf_hgraph_retained(g, g->n));
        g_string_append_c(out, '\t');
        append_class_what(h, sn, o, out);
    }
    hf_rv_top_free(&top);
    return HF_DONE;
}

uint64_t hf_heap_view_biggest_shallow(hf_dump *d, const hf_view *v, uint64_t first,
                                      GString *out, size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    if (!sn)
        return HF_DONE;
    hf_rv_top top;
    hf_rv_top_init(&top, HF_BIGGEST);
    for (uint64_t o = 0; o < sn->n_objects && o < UINT32_MAX && !hf_cancel_due(o); o++) {
        uint32_t c = hf_heap_cls(sn, o);
        const hf_hclass *k = hf_heap_class(sn, c);
        hf_hobj ob;
        /* an instance (a class with fields is no array's): its class says */
        if (!h->stated_size && !k->elem && k->n_fields && c != sn->class_class)
            hf_rv_top_add(&top, k->shallow, (uint32_t)o);
        else if (hf_heap_decode(h, sn, o, &ob))
            hf_rv_top_add(&top, hf_heap_shallow(h, sn, &ob), (uint32_t)o);
    }
    hf_rv_top_sort(&top);
    g_string_append(out, "# id\tshallow\tclass\twhat\n");
    for (uint32_t i = 0; i < top.len && !hf_cancelled(); i++) {
        uint32_t o = top.a[i].v;
        g_string_append_printf(out, HF_FMT_ID "\t%" G_GUINT64_FORMAT "\t",
                               (guint64)hf_heap_object_id(h, sn, o), (guint64)top.a[i].key);
        append_class_what(h, sn, o, out);
    }
    hf_rv_top_free(&top);
    return HF_DONE;
}
