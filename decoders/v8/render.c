/*
 * render.c - V8's own views (model.h render protocol): info, a snapshot's
 * info, roots, strings, detached DOM nodes, objects new since the previous
 * snapshot and memlab's leak candidates; a class's info; an object's info,
 * edges, value and refs/.  Read-only over the finished dump: thread-safe.
 */
#include "decoders/v8/v8.h"
#include "decoders/core/names.h"
#include "decoders/heap/render.h"

#include <string.h>

#define D(d) ((v8_dump *)(d))

static const v8_snap *snap_of(hf_dump *d, uint32_t s)
{
    return s < D(d)->snaps->len ? g_ptr_array_index(D(d)->snaps, s) : NULL;
}

static bool is_string(uint8_t t)
{
    return t == V8N_STRING || t == V8N_CONS_STRING || t == V8N_SLICED_STRING;
}

/* The class directory of node ord of snapshot s. */
static const char *class_dir(hf_dump *d, uint32_t s, uint32_t ord)
{
    int64_t o = v8_object_of(D(d), s, ord);
    const hf_hsnap *hs = hf_heap_snap(&D(d)->heap, s);
    return o >= 0 ? hf_heap_class(hs, hf_heap_cls(hs, (uint64_t)o))->dir : "?";
}

void v8_describe(hf_dump *d, GString *out)
{
    g_string_append(out,
        "A V8 heap snapshot (Node.js v8.writeHeapSnapshot(), Chrome DevTools), one snapshot\n"
        "per file.  Classes are the names DevTools groups objects under (constructor names,\n"
        "\"(system)\", \"(string)\", \"Function\", ...), objects/0xID are nodes by their V8 id\n"
        "in hex (DevTools shows @ID in decimal), edges lists every edge with its kind and\n"
        "name, refs/ links them.  Sizes, dominators and retained sizes are computed the way\n"
        "DevTools computes them: weak edges never retain; roots lists V8's GC roots; detached\n"
        "lists detached DOM nodes; new and leaks compare with earlier snapshots by node id.\n"
        "With allocation tracking, traces/N is the stack of sites' trace N, leaf first.\n");
}

uint64_t v8_view_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out, size_t budget)
{
    hf_info_format(out, d->ops->format);
    for (guint s = 0; s < D(d)->snaps->len; s++) {
        const v8_snap *sn = g_ptr_array_index(D(d)->snaps, s);
        g_string_append_printf(out, "snapshot %u: %s%s\n", s + 1, sn->path,
                               sn->gzipped ? " (gzip)" : "");
    }
    hf_heap_render_counts(&D(d)->heap, out);
    g_string_append(out, "object names: 0x + the V8 node id in hex (DevTools: @ + decimal)\n");
    g_string_append(out, "sizes: DevTools' shallow sizes (the self sizes of hidden and array "
                         "nodes counted in the one object that owns them)\n");
    g_string_append_printf(out, "problems: %" G_GUINT64_FORMAT "\n", d->n_problems);
    return HF_DONE;
}

uint64_t v8_view_snap_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                           size_t budget)
{
    const v8_snap *sn = snap_of(d, v->snap);
    const hf_hsnap *hs = hf_heap_snap(&D(d)->heap, v->snap);
    if (!sn || !hs)
        return HF_DONE;
    g_string_append_printf(out, "file: %s\n", sn->path);
    g_string_append_printf(out, "gzip: %s\n", sn->gzipped ? "yes" : "no");
    g_string_append_printf(out, "nodes: %u\n", sn->n);
    g_string_append_printf(out, "edges: %u\n", sn->n_edges);
    g_string_append_printf(out, "strings: %u\n", sn->n_strings);
    g_string_append_printf(out, "objects: %" G_GUINT64_FORMAT "\n", hs->n_objects);
    g_string_append_printf(out, "classes: %u\n", hs->n_hist);
    g_string_append_printf(out, "bytes: %" G_GUINT64_FORMAT "\n", hs->total_bytes);
    g_string_append_printf(out, "root: " HF_FMT_ID "\n", (guint64)sn->id[sn->root]);
    g_string_append_printf(out, "user roots: %s\n", sn->user_roots ? "yes" : "no");
    g_string_append_printf(out, "under the root for want of a strong retainer: %u\n",
                           sn->n_orphans);
    g_string_append_printf(out, "trace functions: %u\n", sn->trace_functions);
    return HF_DONE;
}

/* ---- roots: the root's edges, and the GC root categories' ---- */

/* Item: 1 + (edge of the root (high 32 bits), edge of its target (low)). */
uint64_t v8_view_roots(hf_dump *d, const hf_view *v, uint64_t first, GString *out, size_t budget)
{
    const v8_snap *sn = snap_of(d, v->snap);
    if (!sn)
        return HF_DONE;
    size_t start = out->len;
    GString *cat = g_string_new(NULL);
    if (!first)
        g_string_append(out, "# id\tclass\troot\n");
    uint32_t r = sn->root, ra = sn->first[r], rb = sn->first[r + 1];
    uint64_t next = HF_DONE, at = first ? first - 1 : 0;
    for (uint32_t e = MAX(ra, (uint32_t)(at >> 32)); e < rb && next == HF_DONE; e++) {
        uint32_t t = sn->eto[e];
        if (t == UINT32_MAX)
            continue;
        g_string_truncate(cat, 0);
        v8_string(sn, sn->name[t], cat);
        if (sn->type[t] != V8N_SYNTHETIC) { /* a user root: a global object */
            g_string_append_printf(out, HF_FMT_ID "\t%s\t(user roots)\n", (guint64)sn->id[t],
                                   class_dir(d, v->snap, t));
            continue;
        }
        /* a category: its targets, and those of its subcategories */
        uint32_t lo = first && e == (uint32_t)(at >> 32) ? (uint32_t)(at & UINT32_MAX) : 0;
        for (uint32_t f = sn->first[t] + lo; f < sn->first[t + 1]; f++) {
            if (hf_budget_spent(out, start, budget)) {
                next = 1 + ((uint64_t)e << 32 | (f - sn->first[t]));
                break;
            }
            uint32_t u = sn->eto[f];
            if (u == UINT32_MAX)
                continue;
            if (sn->type[u] == V8N_SYNTHETIC) {
                GString *sub = g_string_new(NULL);
                v8_string(sn, sn->name[u], sub);
                for (uint32_t k = sn->first[u]; k < sn->first[u + 1]; k++) {
                    uint32_t w = sn->eto[k];
                    if (w == UINT32_MAX)
                        continue;
                    g_string_append_printf(out, HF_FMT_ID "\t%s\t", (guint64)sn->id[w],
                                           class_dir(d, v->snap, w));
                    hf_heap_escape_line(out, cat->str, cat->len);
                    g_string_append(out, " / ");
                    hf_heap_escape_line(out, sub->str, sub->len);
                    g_string_append_c(out, '\n');
                }
                g_string_free(sub, TRUE);
            } else {
                g_string_append_printf(out, HF_FMT_ID "\t%s\t", (guint64)sn->id[u],
                                       class_dir(d, v->snap, u));
                hf_heap_escape_line(out, cat->str, cat->len);
                g_string_append_c(out, '\n');
            }
        }
    }
    g_string_free(cat, TRUE);
    return next;
}

/* ---- strings ---- */

bool v8_text(hf_dump *d, uint32_t s, uint64_t o, GString *out)
{
    const v8_snap *sn = snap_of(d, s);
    if (!sn || o >= hf_heap_snap(&D(d)->heap, s)->n_objects)
        return false;
    uint32_t ord = v8_ord(D(d), s, o);
    if (!is_string(sn->type[ord]))
        return false;
    GString *t = g_string_new(NULL);
    v8_string(sn, sn->name[ord], t);
    hf_heap_escape_line(out, t->str, t->len);
    g_string_free(t, TRUE);
    return true;
}

uint64_t v8_view_strings(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                         size_t budget)
{
    const hf_hsnap *hs = hf_heap_snap(&D(d)->heap, v->snap);
    size_t start = out->len;
    if (!first)
        g_string_append(out, "# id\ttext\n");
    for (uint64_t o = first; hs && o < hs->n_objects; o++) {
        if (hf_budget_spent(out, start, budget))
            return o;
        size_t at = out->len;
        g_string_append_printf(out, HF_FMT_ID "\t", (guint64)hf_heap_object_id(&D(d)->heap, hs, o));
        if (v8_text(d, v->snap, o, out))
            g_string_append_c(out, '\n');
        else
            g_string_truncate(out, at);
    }
    return HF_DONE;
}

/* ---- detached DOM nodes ---- */

static bool is_detached(const v8_snap *sn, uint32_t ord)
{
    return sn->detached[ord] == 2;
}

bool v8_has_detached(hf_dump *d, uint32_t s, uint64_t index)
{
    const v8_snap *sn = snap_of(d, s);
    return sn && sn->n_detached;
}

/* Detached objects (V8's detachedness 2, spread as DevTools does), by id. */
uint64_t v8_view_detached(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                          size_t budget)
{
    const v8_snap *sn = snap_of(d, v->snap);
    const hf_hsnap *hs = hf_heap_snap(&D(d)->heap, v->snap);
    if (!sn || !hs)
        return HF_DONE;
    size_t start = out->len;
    if (!first)
        g_string_append(out, "# id\tshallow\tclass\tname\n");
    GString *t = g_string_new(NULL);
    for (uint64_t o = first; o < hs->n_objects; o++) {
        uint32_t ord = v8_ord(D(d), v->snap, o);
        if (!is_detached(sn, ord))
            continue;
        if (hf_budget_spent(out, start, budget)) {
            g_string_free(t, TRUE);
            return o;
        }
        g_string_truncate(t, 0);
        v8_string(sn, sn->name[ord], t);
        g_string_append_printf(out, HF_FMT_ID "\t%" G_GUINT64_FORMAT "\t%s\t",
                               (guint64)sn->id[ord], (guint64)sn->size[ord],
                               hf_heap_class(hs, hf_heap_cls(hs, o))->dir);
        hf_heap_escape_line(out, t->str, t->len);
        g_string_append_c(out, '\n');
    }
    g_string_free(t, TRUE);
    return HF_DONE;
}

/* ---- new objects, and memlab's leak candidates ---- */

static bool in_snap(hf_dump *d, uint32_t s, uint64_t id)
{
    return hf_heap_find_id(&D(d)->heap, hf_heap_snap(&D(d)->heap, s), id) >= 0;
}

bool v8_has_new(hf_dump *d, uint32_t s, uint64_t index)
{
    return s >= 1;
}

bool v8_has_leaks(hf_dump *d, uint32_t s, uint64_t index)
{
    return s >= 2;
}

/* new: objects whose id the previous snapshot lacks; leaks (from the third
 * snapshot): objects of the previous snapshot that the first lacks and
 * this one still has (memlab's baseline, target, final). */
static uint64_t render_new(hf_dump *d, const hf_view *v, bool leaks, uint64_t first,
                           GString *out, size_t budget)
{
    const hf_hsnap *hs = hf_heap_snap(&D(d)->heap, v->snap);
    const v8_snap *sn = snap_of(d, v->snap);
    if (!hs || !sn || v->snap < (leaks ? 2u : 1u))
        return HF_DONE;
    size_t start = out->len;
    if (!first)
        g_string_append(out, "# id\tshallow\tclass\n");
    for (uint64_t o = first; o < hs->n_objects; o++) {
        uint64_t id = hf_heap_object_id(&D(d)->heap, hs, o);
        bool pick = leaks ? in_snap(d, v->snap - 1, id) && !in_snap(d, 0, id)
                          : !in_snap(d, v->snap - 1, id);
        if (!pick)
            continue;
        if (hf_budget_spent(out, start, budget))
            return o;
        g_string_append_printf(out, HF_FMT_ID "\t%" G_GUINT64_FORMAT "\t%s\n", (guint64)id,
                               (guint64)sn->size[v8_ord(D(d), v->snap, o)],
                               hf_heap_class(hs, hf_heap_cls(hs, o))->dir);
    }
    return HF_DONE;
}

uint64_t v8_view_new(hf_dump *d, const hf_view *v, uint64_t first, GString *out, size_t budget)
{
    return render_new(d, v, false, first, out, budget);
}

uint64_t v8_view_leaks(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                       size_t budget)
{
    return render_new(d, v, true, first, out, budget);
}

/* ---- classes ---- */

uint64_t v8_view_class_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget)
{
    const hf_hsnap *hs = hf_heap_snap(&D(d)->heap, v->snap);
    const hf_hclass *c = hs ? hf_heap_class(hs, v->index) : NULL;
    if (!c)
        return HF_DONE;
    g_string_append_printf(out, "name: %s\n", c->name);
    g_string_append_printf(out, "instance count: %" G_GUINT64_FORMAT "\n", (guint64)c->count);
    g_string_append_printf(out, "total bytes: %" G_GUINT64_FORMAT "\n", (guint64)c->bytes);
    return HF_DONE;
}
