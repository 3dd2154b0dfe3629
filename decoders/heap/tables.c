/*
 * tables.c - tables/objects.tsv, classes.tsv and retained.tsv of a heap
 * snapshot (tables.h; references.tsv and classes/NAME/table.tsv are in
 * tables_refs.c).  Rows are written through an hf_tsv sink, once for the
 * renderer and the measure both.
 */
#include "decoders/heap/tables.h"

#include "decoders/core/tsv.h"
#include "decoders/heap/retained.h"

#define H(d) ((hf_heap *)(d))

/* Writes row i (an object or class index) of snapshot sn, or nothing. */
typedef void (*row_fn)(hf_heap *h, const hf_hsnap *sn, uint64_t i, const void *ud, hf_tsv *t);

/* The rows protocol (hf_tsv_rows_fn) for a table of one row per index
 * below n: item 0 is the header row (cols), item i + 1 is row i. */
static uint64_t index_rows(hf_heap *h, const hf_hsnap *sn, uint64_t first, hf_tsv *t,
                           size_t budget, const char *const *cols, unsigned n_cols, uint64_t n,
                           row_fn row, const void *ud)
{
    uint64_t start = hf_tsv_pos(t);
    if (first == 0)
        hf_tsv_put_header(t, cols, n_cols);
    for (uint64_t i = first ? first - 1 : 0; i < n; i++) {
        if (hf_tsv_stop(t, start, budget, i + 1))
            return i + 1;
        row(h, sn, i, ud, t);
    }
    return HF_DONE;
}

/* ---- objects.tsv: id, class, shallow, length (empty for instances and
 * class objects), and heap where the dump names heaps (Android) ---- */

static const char *const object_cols[] = {"id", "class", "shallow", "length", "heap"};

static void object_row(hf_heap *h, const hf_hsnap *sn, uint64_t o, const void *ud, hf_tsv *t)
{
    hf_hobj obj, *ob = &obj;
    if (!hf_heap_decode(h, sn, o, ob))
        return;
    const hf_hclass *c = hf_heap_class(sn, ob->cls);
    const uint32_t *dir_lens = ud; /* when only counting */
    hf_tsv_put_id(t, ob->id);
    hf_tsv_c(t, '\t');
    if (t->out)
        hf_tsv_put_str(t, c->dir);
    else
        t->n += dir_lens[ob->cls];
    hf_tsv_c(t, '\t');
    hf_tsv_put_u64(t, hf_heap_shallow(h, sn, ob));
    hf_tsv_c(t, '\t');
    if (ob->kind == HF_K_OBJARRAY || ob->kind == HF_K_PRIMARRAY)
        hf_tsv_put_u64(t, ob->length);
    if (sn->heap_names->len) {
        const char *heap = hf_heap_heap_name(sn, ob->loc);
        hf_tsv_c(t, '\t');
        if (heap)
            hf_tsv_put_str(t, heap);
    }
    hf_tsv_c(t, '\n');
}

static uint64_t objects_rows(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
                             size_t budget)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), v->snap);
    if (!sn)
        return HF_DONE;
    return index_rows(H(d), sn, first, t, budget, object_cols, sn->heap_names->len ? 5 : 4,
                      sn->n_objects, object_row, t->out ? NULL : hf_heap_dir_lens(H(d), v->snap));
}

HF_HEAP_TABLE(hf_heap_objects_tsv, objects_rows, 0)

/* ---- classes.tsv: one row per class ---- */

static const char *const class_cols[] = {"id",       "name",    "super", "loader",
                                         "instance_size", "objects", "bytes"};

static void class_row(hf_heap *h, const hf_hsnap *sn, uint64_t i, const void *ud, hf_tsv *t)
{
    const hf_hclass *c = hf_heap_class(sn, i);
    hf_tsv_put_id0(t, c->id);
    hf_tsv_c(t, '\t');
    hf_tsv_put_str(t, c->dir);
    hf_tsv_c(t, '\t');
    if (c->super >= 0)
        hf_tsv_put_str(t, hf_heap_class(sn, (uint64_t)c->super)->dir);
    hf_tsv_c(t, '\t');
    hf_tsv_put_id0(t, c->loader_id);
    hf_tsv_c(t, '\t');
    if (!c->elem)
        hf_tsv_put_u64(t, c->shallow);
    hf_tsv_c(t, '\t');
    hf_tsv_put_u64(t, c->count);
    hf_tsv_c(t, '\t');
    hf_tsv_put_u64(t, c->bytes);
    hf_tsv_c(t, '\n');
}

static uint64_t classes_rows(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
                             size_t budget)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), v->snap);
    return sn ? index_rows(H(d), sn, first, t, budget, class_cols, G_N_ELEMENTS(class_cols),
                           sn->classes->len, class_row, NULL)
              : HF_DONE;
}

HF_TSV_VIEW(hf_heap_classes_tsv, classes_rows)

/* ---- retained.tsv: id, retained, dominator (empty: the GC roots); one
 * row per reachable object (the unreachable ones are in `unreachable`) ---- */

static const char *const retained_cols[] = {"id", "retained", "dominator"};

static void retained_row(hf_heap *h, const hf_hsnap *sn, uint64_t o, const void *ud, hf_tsv *t)
{
    const hf_hgraph *g = ud;
    uint32_t idom = g->idom[o];
    if (idom == HF_NONE)
        return;
    hf_tsv_put_id(t, hf_heap_object_id(h, sn, o));
    hf_tsv_c(t, '\t');
    hf_tsv_put_u64(t, hf_hgraph_retained(g, o));
    hf_tsv_c(t, '\t');
    if (idom != g->n)
        hf_tsv_put_id(t, hf_heap_object_id(h, sn, idom));
    hf_tsv_c(t, '\n');
}

static uint64_t retained_rows(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
                              size_t budget)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), v->snap);
    if (!sn)
        return HF_DONE;
    const hf_hgraph *g = hf_heap_graph(H(d), v->snap);
    /* no graph: said in `dominators`; the table stays a table */
    return index_rows(H(d), sn, first, t, budget, retained_cols, G_N_ELEMENTS(retained_cols),
                      g->error ? 0 : MIN((uint64_t)g->n, sn->n_objects), retained_row, g);
}

HF_HEAP_TABLE(hf_heap_retained_tsv, retained_rows, 0)
