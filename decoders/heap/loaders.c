/*
 * loaders.c - class loaders (MAT's class loader explorer and "duplicate
 * classes"):
 *
 *   snapshots/S/classloaders       each loader: the classes it defined,
 *                                  their instances and bytes, and what the
 *                                  loader object retains
 *   snapshots/S/duplicate-classes  every class name defined by several
 *                                  loaders (the classic class-loader leak):
 *                                  one row per copy with its loader, what
 *                                  that loader retains, and the shortest
 *                                  path from a GC root that keeps it alive
 *
 * Both compute the snapshot's retained sizes (retained.h) on first read.
 * The bootstrap loader is the id 0x0; it has the classes the dump does not
 * describe (made up for primitive arrays).  Read-only over the finished graph:
 * thread-safe.
 */
#include "decoders/core/cancel.h"
#include "decoders/heap/collections.h"
#include "decoders/heap/inspect.h"
#include "decoders/heap/retviews.h"

#include <string.h>

#define H(d) ((hf_heap *)(d))

/* Retained bytes of the object of id (0 for none, or not in the graph). */
static uint64_t retained_of(hf_heap *h, const hf_hsnap *sn, const hf_hgraph *g, uint64_t id)
{
    int64_t o = id ? hf_heap_find_id(h, sn, id) : -1;
    return o >= 0 && (uint64_t)o < g->n ? hf_hgraph_retained(g, o) : 0;
}

/* ---- classloaders ---- */

typedef struct {
    uint64_t loader, classes, objects, bytes, retained;
} loader_row;

static gint cmp_loader_id(gconstpointer a, gconstpointer b)
{
    uint64_t x = ((const loader_row *)a)->loader, y = ((const loader_row *)b)->loader;
    return x < y ? -1 : x > y;
}

static gint cmp_retained(gconstpointer a, gconstpointer b)
{
    const loader_row *x = a, *y = b;
    if (x->retained != y->retained)
        return x->retained > y->retained ? -1 : 1;
    if (x->classes != y->classes)
        return x->classes > y->classes ? -1 : 1;
    return cmp_loader_id(a, b);
}

/* The class name of the loader object `id` ("<bootstrap>" for 0). */
static void append_loader_class(hf_heap *h, const hf_hsnap *sn, uint64_t id, hf_tsv *t)
{
    int64_t o = id ? hf_heap_find_id(h, sn, id) : -1;
    hf_tsv_put_str(t, !id ? "<bootstrap>" : o < 0 ? "?" : hf_heap_class(sn, hf_heap_cls(sn, o))->dir);
}

static const char *const loader_cols[] = {"id", "classes", "objects", "bytes", "retained", "class"};

uint64_t hf_heap_view_classloaders(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    const hf_hgraph *g = hf_rv_graph_or_say(d, v->snap, out);
    if (!g)
        return HF_DONE;
    /* one row per loader id, by id, then looked up per class */
    GArray *rows = g_array_new(FALSE, TRUE, sizeof(loader_row));
    for (guint c = 0; c < sn->classes->len; c++) {
        const hf_hclass *k = hf_heap_class(sn, c);
        loader_row r = {k->loader_id, 0, 0, 0, 0};
        g_array_append_val(rows, r);
    }
    g_array_sort(rows, cmp_loader_id);
    guint n = 0;
    for (guint i = 0; i < rows->len; i++)
        if (!n || g_array_index(rows, loader_row, n - 1).loader != g_array_index(rows, loader_row, i).loader)
            g_array_index(rows, loader_row, n++) = g_array_index(rows, loader_row, i);
    g_array_set_size(rows, n);
    for (guint c = 0; c < sn->classes->len && !hf_cancelled(); c++) {
        const hf_hclass *k = hf_heap_class(sn, c);
        loader_row key = {k->loader_id};
        guint at;
        if (!g_array_binary_search(rows, &key, cmp_loader_id, &at))
            continue;
        loader_row *r = &g_array_index(rows, loader_row, at);
        r->classes++;
        r->objects += k->count;
        r->bytes += k->bytes;
    }
    for (guint i = 0; i < rows->len; i++) {
        loader_row *r = &g_array_index(rows, loader_row, i);
        r->retained = retained_of(h, sn, g, r->loader);
    }
    g_array_sort(rows, cmp_retained);
    hf_tsv t = {out, 0, 0};
    hf_heap_put_header(&t, loader_cols, G_N_ELEMENTS(loader_cols));
    for (guint i = 0; i < rows->len; i++) {
        const loader_row *r = &g_array_index(rows, loader_row, i);
        hf_tsv_put_id(&t, r->loader);
        hf_tsv_c(&t, '\t');
        const uint64_t nums[] = {r->classes, r->objects, r->bytes, r->retained};
        for (unsigned k = 0; k < G_N_ELEMENTS(nums); k++) {
            hf_tsv_put_u64(&t, nums[k]);
            hf_tsv_c(&t, '\t');
        }
        append_loader_class(h, sn, r->loader, &t);
        hf_tsv_c(&t, '\n');
    }
    g_array_free(rows, TRUE);
    return HF_DONE;
}

/* ---- duplicate-classes ---- */

/* "0xID WHAT" of object o: its id and short description (collections.h). */
static void append_object(hf_hcolls *cc, hf_heap *h, const hf_hsnap *sn, uint32_t o,
                          GString *out)
{
    uint64_t id = hf_heap_object_id(h, sn, o);
    g_string_append_printf(out, HF_FMT_ID " ", (guint64)id);
    hf_heap_describe_raw(cc, id, out);
}

/* The shortest path from a GC root to v on one line: the root's kinds and
 * the root, then " .FIELD 0xID CLASS" per hop; "unreachable" when none. */
static void path_line(hf_heap *h, const hf_hsnap *sn, const hf_hgraph *g, uint32_t v,
                      GString *out)
{
    uint32_t depth = v < g->n ? hf_parents_depth(&g->parent, &g->pred, v) : HF_NONE;
    if (depth == HF_NONE || depth == 0) {
        g_string_append(out, "unreachable");
        return;
    }
    uint32_t *hops = g_new(uint32_t, depth);
    for (uint32_t i = depth, w = v; i-- > 0; w = hf_parents_get(&g->parent, &g->pred, w))
        hops[i] = w;
    uint64_t root = hf_heap_object_id(h, sn, hops[0]);
    bool any = false;
    for (guint i = 0; i < sn->roots->len; i++) {
        const hf_hroot *r = &g_array_index(sn->roots, hf_hroot, i);
        if (r->id == root) {
            g_string_append_printf(out, "%s%s", any ? "," : "", hf_root_names[r->kind]);
            any = true;
        }
    }
    g_string_append(out, any ? " " : "root ");
    hf_hcolls *cc = hf_hcolls_new(h, sn);
    append_object(cc, h, sn, hops[0], out);
    for (uint32_t i = 1; i < depth; i++) {
        char name[HF_NAME_MAX];
        if (!hf_heap_ref_name(h, sn, hops[i - 1], hops[i], 0, name))
            g_strlcpy(name, "?", sizeof name);
        g_string_append_printf(out, " .%s ", name);
        append_object(cc, h, sn, hops[i], out);
    }
    hf_hcolls_free(cc);
    g_free(hops);
}

static gint cmp_by_name(gconstpointer a, gconstpointer b, gpointer ud)
{
    const hf_hsnap *sn = ud;
    const hf_hclass *x = hf_heap_class(sn, *(const uint32_t *)a);
    const hf_hclass *y = hf_heap_class(sn, *(const uint32_t *)b);
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->loader_id < y->loader_id ? -1 : x->loader_id > y->loader_id;
}

static const char *const dup_cols[] = {"copies", "id",    "objects", "loader",
                                       "loader_retained", "class", "path"};

/* One row: copy c of a class defined `copies` times. */
static void dup_row(hf_heap *h, const hf_hsnap *sn, const hf_hgraph *g, uint32_t c,
                    uint64_t copies, hf_tsv *t, GString *path)
{
    const hf_hclass *k = hf_heap_class(sn, c);
    hf_tsv_put_u64(t, copies);
    hf_tsv_c(t, '\t');
    hf_tsv_put_id(t, k->id);
    hf_tsv_c(t, '\t');
    hf_tsv_put_u64(t, k->count);
    hf_tsv_c(t, '\t');
    hf_tsv_put_id(t, k->loader_id);
    hf_tsv_c(t, '\t');
    hf_tsv_put_u64(t, retained_of(h, sn, g, k->loader_id));
    hf_tsv_c(t, '\t');
    hf_tsv_put_str(t, k->dir);
    hf_tsv_c(t, '\t');
    int64_t lo = k->loader_id ? hf_heap_find_id(h, sn, k->loader_id) : -1;
    g_string_truncate(path, 0);
    if (lo >= 0)
        path_line(h, sn, g, (uint32_t)lo, path);
    else
        g_string_append(path, k->loader_id ? "?" : "bootstrap");
    hf_tsv_put_text(t, path->str, path->len);
    hf_tsv_c(t, '\n');
}

uint64_t hf_heap_view_duplicate_classes(hf_dump *d, const hf_view *v, uint64_t first,
                                        GString *out, size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    const hf_hgraph *g = hf_rv_graph_or_say(d, v->snap, out);
    if (!g)
        return HF_DONE;
    GArray *cls = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (uint32_t c = 0; c < sn->classes->len; c++) {
        const hf_hclass *k = hf_heap_class(sn, c);
        if (!k->synthetic && !k->elem)
            g_array_append_val(cls, c);
    }
    g_array_sort_with_data(cls, cmp_by_name, (gpointer)sn);
    hf_tsv t = {out, 0, 0};
    GString *path = g_string_new(NULL);
    hf_heap_put_header(&t, dup_cols, G_N_ELEMENTS(dup_cols));
    const uint32_t *c = (const uint32_t *)cls->data;
    for (guint i = 0, j; i < cls->len && !hf_cancelled(); i = j) {
        const char *name = hf_heap_class(sn, c[i])->name;
        for (j = i + 1; j < cls->len && strcmp(hf_heap_class(sn, c[j])->name, name) == 0;)
            j++;
        for (guint k = i; j - i > 1 && k < j; k++)
            dup_row(h, sn, g, c[k], j - i, &t, path);
    }
    g_string_free(path, TRUE);
    g_array_free(cls, TRUE);
    return HF_DONE;
}
