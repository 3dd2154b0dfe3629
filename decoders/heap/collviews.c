/*
 * collviews.c - the views of the JDK's collections (collections.h):
 *
 *   snapshots/S/collections/instances  one row per collection: size,
 *                                      capacity, fill, bytes an exact copy saves
 *   snapshots/S/collections/classes    per class: totals, empty ones, fill
 *                                      ratios in four bands
 *   snapshots/S/waste/collections      per class: empty and one-element ones
 *                                      and the bytes they take
 *   objects/0xID/entries               a map's keys and values, a list's
 *                                      or set's elements, each described
 *
 * Tables follow the views' convention (docs/views.md).  None needs retained
 * sizes; the snapshot views read every object of a collection class (a
 * class's answer is looked up once per view call), entries one object.
 * Read-only over the finished heap: thread-safe.
 */
#include "decoders/core/cancel.h"
#include "decoders/core/tsv.h"
#include "decoders/heap/collections.h"
#include "decoders/heap/render.h"
#include "decoders/heap/inspect.h"

#include <string.h>

#define H(d) ((hf_heap *)(d))

/* Whether class c is a collection, remembered in memo (0: not asked yet,
 * 1: no, 2: yes): a view asks once per class, not once per object. */
bool hf_heap_coll_memo(const hf_hsnap *sn, uint8_t *memo, uint32_t c)
{
    if (!memo[c])
        memo[c] = hf_hcoll_class(sn, c) ? 2 : 1;
    return memo[c] == 2;
}

/* fill as a percent with two decimals: size of capacity (0 when empty). */
static void put_fill(hf_tsv *t, const hf_hcoll *c)
{
    double f = c->capacity ? 100.0 * (double)c->size / (double)c->capacity
                           : (c->size ? 100.0 : 0.0);
    char buf[32];
    g_ascii_formatd(buf, sizeof buf, "%.2f", f);
    hf_tsv_put_str(t, buf);
}

/* ---- collections/instances ---- */

static const char *const inst_cols[] = {"id", "size", "capacity", "fill_percent", "wasted",
                                        "bytes", "class"};

uint64_t hf_heap_object_rows(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
                             size_t budget, const char *const *cols, unsigned n_cols,
                             hf_heap_wanted_fn wanted, hf_heap_row_fn row, void *ud)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    uint64_t start = hf_tsv_pos(t), o = first ? first - 1 : 0;
    if (first == 0)
        hf_heap_put_header(t, cols, n_cols);
    for (; o < sn->n_objects && !hf_cancel_due(o); o++) {
        if (!wanted(sn, o, ud))
            continue;
        if (hf_tsv_stop(t, start, budget, o + 1))
            break;
        row(h, sn, o, t, ud);
    }
    return o < sn->n_objects && !hf_cancelled() ? o + 1 : HF_DONE;
}

typedef struct {
    uint8_t *memo;
    hf_hcolls *cc;
} inst_ctx;

static bool is_collection(const hf_hsnap *sn, uint64_t o, void *ud)
{
    return hf_heap_coll_memo(sn, ((inst_ctx *)ud)->memo, hf_heap_cls(sn, o));
}

static void instance_row(hf_heap *h, const hf_hsnap *sn, uint64_t o, hf_tsv *t, void *ud)
{
    hf_hobj ob;
    hf_hcoll c;
    if (!hf_heap_decode(h, sn, o, &ob) || !hf_hcoll_measure(((inst_ctx *)ud)->cc, &ob, &c))
        return;
    hf_tsv_put_id(t, ob.id);
    hf_tsv_c(t, '\t');
    hf_tsv_put_u64(t, c.size);
    hf_tsv_c(t, '\t');
    hf_tsv_put_u64(t, c.capacity);
    hf_tsv_c(t, '\t');
    put_fill(t, &c);
    hf_tsv_c(t, '\t');
    const uint64_t nums[] = {c.wasted, c.bytes};
    hf_heap_put_row(t, nums, G_N_ELEMENTS(nums), hf_heap_class(sn, ob.cls)->dir);
}

static uint64_t instances_rows(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
                               size_t budget)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), v->snap);
    inst_ctx c = {g_new0(uint8_t, sn->classes->len + 1), hf_hcolls_new(H(d), sn)};
    uint64_t next = hf_heap_object_rows(d, v, first, t, budget, inst_cols,
                                        G_N_ELEMENTS(inst_cols), is_collection, instance_row, &c);
    hf_hcolls_free(c.cc);
    g_free(c.memo);
    return next;
}

HF_TSV_RENDER(hf_heap_collections_instances, instances_rows)

/* ---- per class ---- */

#define FILL_BANDS 4 /* (0,25] (25,50] (50,75] (75,100] percent */

typedef struct {
    uint32_t cls;
    uint64_t objects, empty, one, size, capacity, wasted, bytes, empty_bytes, one_bytes;
    uint64_t fill[FILL_BANDS];
} class_sum;

/* Every collection of snapshot sn summed by class, in class order. */
static GArray *sum_classes(hf_heap *h, const hf_hsnap *sn)
{
    class_sum *by = g_new0(class_sum, sn->classes->len + 1);
    uint8_t *memo = g_new0(uint8_t, sn->classes->len + 1);
    hf_hcolls *cc = hf_hcolls_new(h, sn);
    for (uint64_t o = 0; o < sn->n_objects && !hf_cancel_due(o); o++) {
        uint32_t k = hf_heap_cls(sn, o);
        hf_hobj ob;
        hf_hcoll c;
        if (!hf_heap_coll_memo(sn, memo, k) || !hf_heap_decode(h, sn, o, &ob) ||
            !hf_hcoll_measure(cc, &ob, &c))
            continue;
        class_sum *s = &by[k];
        s->objects++;
        s->size += c.size;
        s->capacity += c.capacity;
        s->wasted += c.wasted;
        s->bytes += c.bytes;
        if (c.size == 0) {
            s->empty++;
            s->empty_bytes += c.bytes;
            continue;
        }
        if (c.size == 1) {
            s->one++;
            s->one_bytes += c.bytes;
        }
        uint64_t band = c.capacity ? (c.size * 100 - 1) / (c.capacity * 25) : FILL_BANDS - 1;
        s->fill[MIN(band, FILL_BANDS - 1)]++;
    }
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(class_sum));
    for (guint k = 0; k < sn->classes->len; k++)
        if (by[k].objects) {
            by[k].cls = k;
            g_array_append_val(rows, by[k]);
        }
    hf_hcolls_free(cc);
    g_free(memo);
    g_free(by);
    return rows;
}

static gint cmp_by_name(const hf_hsnap *sn, const class_sum *x, const class_sum *y)
{
    return strcmp(hf_heap_class(sn, x->cls)->dir, hf_heap_class(sn, y->cls)->dir);
}

/* Largest waste first, then most objects, then name. */
static gint cmp_wasted(gconstpointer a, gconstpointer b, gpointer ud)
{
    const class_sum *x = a, *y = b;
    if (x->wasted != y->wasted)
        return x->wasted > y->wasted ? -1 : 1;
    if (x->objects != y->objects)
        return x->objects > y->objects ? -1 : 1;
    return cmp_by_name(ud, x, y);
}

/* Most bytes in empty and one-element collections first, then name. */
static gint cmp_small(gconstpointer a, gconstpointer b, gpointer ud)
{
    const class_sum *x = a, *y = b;
    uint64_t bx = x->empty_bytes + x->one_bytes, by = y->empty_bytes + y->one_bytes;
    if (bx != by)
        return bx > by ? -1 : 1;
    return cmp_by_name(ud, x, y);
}

static const char *const class_cols[] = {
    "objects", "empty", "one", "size", "capacity", "wasted", "bytes", "fill_0_25",
    "fill_25_50", "fill_50_75", "fill_75_100", "class"};
static const char *const small_cols[] = {"empty", "empty_bytes", "one", "one_bytes", "class"};

/* collections/classes, or with `small` waste/collections (only the classes
 * that have empty or one-element collections). */
static void class_view(hf_dump *d, const hf_view *v, GString *out, bool small)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), v->snap);
    GArray *rows = sum_classes(H(d), sn);
    g_array_sort_with_data(rows, small ? cmp_small : cmp_wasted, (gpointer)sn);
    hf_tsv t = {out, 0, 0};
    if (small)
        hf_heap_put_header(&t, small_cols, G_N_ELEMENTS(small_cols));
    else
        hf_heap_put_header(&t, class_cols, G_N_ELEMENTS(class_cols));
    for (guint i = 0; i < rows->len && !hf_cancelled(); i++) {
        const class_sum *s = &g_array_index(rows, class_sum, i);
        const uint64_t all[] = {s->objects, s->empty, s->one, s->size, s->capacity,
                                s->wasted, s->bytes, s->fill[0], s->fill[1], s->fill[2],
                                s->fill[3]};
        const uint64_t few[] = {s->empty, s->empty_bytes, s->one, s->one_bytes};
        if (!small)
            hf_heap_put_row(&t, all, G_N_ELEMENTS(all), hf_heap_class(sn, s->cls)->dir);
        else if (s->empty + s->one)
            hf_heap_put_row(&t, few, G_N_ELEMENTS(few), hf_heap_class(sn, s->cls)->dir);
    }
    g_array_free(rows, TRUE);
}

uint64_t hf_heap_collections_classes_view(hf_dump *d, const hf_view *v, uint64_t first,
                                          GString *out, size_t budget)
{
    class_view(d, v, out, false);
    return HF_DONE;
}

uint64_t hf_heap_waste_collections_view(hf_dump *d, const hf_view *v, uint64_t first,
                                        GString *out, size_t budget)
{
    class_view(d, v, out, true);
    return HF_DONE;
}

/* ---- objects/0xID/entries ---- */

typedef struct {
    hf_hcolls *cc;
    GString *out;
    bool map;
    uint64_t index;
} entries_ctx;

static bool put_entry(uint64_t key, uint64_t value, void *ud)
{
    entries_ctx *e = ud;
    if (e->map) {
        hf_tsv_id(e->out, key);
        g_string_append_c(e->out, '\t');
        hf_tsv_id(e->out, value);
        g_string_append_c(e->out, '\t');
        hf_heap_describe(e->cc, key, e->out);
        g_string_append(e->out, " = ");
        hf_heap_describe(e->cc, value, e->out);
    } else {
        hf_tsv_u64(e->out, e->index);
        g_string_append_c(e->out, '\t');
        hf_tsv_id(e->out, key);
        g_string_append_c(e->out, '\t');
        hf_heap_describe(e->cc, key, e->out);
    }
    g_string_append_c(e->out, '\n');
    e->index++;
    return !hf_cancel_due(e->index);
}

/* Whole in one call: a restart would walk the buckets again from the
 * first (the view is as long as the collection, one pass). */
uint64_t hf_heap_view_object_entries(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                     size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    hf_hobj ob;
    hf_hcoll c;
    if (!sn || !hf_heap_decode(h, sn, v->index, &ob))
        return HF_DONE;
    hf_hcolls *cc = hf_hcolls_new(h, sn);
    if (hf_hcoll_measure(cc, &ob, &c)) {
        entries_ctx e = {cc, out, c.map, 0};
        g_string_append(out, c.map ? "# key\tvalue\twhat\n" : "# index\telement\twhat\n");
        hf_hcoll_entries(cc, &ob, put_entry, &e);
    }
    hf_hcolls_free(cc);
    return HF_DONE;
}

bool hf_heap_has_object_entries(hf_dump *d, uint32_t s, uint64_t o)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    return sn && o < sn->n_objects && hf_hcoll_class(sn, hf_heap_cls(sn, o));
}
