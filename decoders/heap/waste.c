/*
 * waste.c - where memory goes to no use (MAT's "duplicate arrays", "boxed
 * primitives", "primitive arrays with a constant value"):
 *
 *   snapshots/S/waste/arrays  primitive arrays of equal contents: how many
 *                             copies, the bytes the copies beyond the first
 *                             take, their length, the first copy, the type
 *   snapshots/S/waste/boxed   per box class (Integer, Long, ...): objects,
 *                             bytes, distinct values, bytes beyond one box
 *                             per value
 *   snapshots/S/waste/zeros   primitive arrays of 16 elements or more of
 *                             which 90% or more are zero, one row each
 *
 * An array that is a String's value is left out of waste/arrays: equal
 * Strings are `duplicates`' business (and one array shared by several
 * Strings is no copy at all).  Arrays without element data (Android's
 * NODATA) are left out of both array views.  Read-only over the finished
 * heap: thread-safe; the loops end early when the mount goes away.
 */
#include "decoders/core/cancel.h"
#include "decoders/core/search.h"
#include "decoders/heap/collections.h"
#include "decoders/heap/groups.h"
#include "decoders/heap/inspect.h"
#include "decoders/heap/render.h"

#include <stdlib.h>
#include <string.h>

#define H(d) ((hf_heap *)(d))

/* ---- waste/arrays ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The ids of the Strings' value arrays, sorted: *n of them. */
static uint64_t *string_values(hf_heap *h, const hf_hsnap *sn, size_t *n)
{
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    for (uint64_t o = 0; sn->str_value >= 0 && o < sn->n_objects && !hf_cancel_due(o); o++) {
        hf_hobj ob;
        uint64_t v;
        if (hf_heap_cls(sn, o) == sn->string_class && hf_heap_decode(h, sn, o, &ob) &&
            hf_heap_field(h, sn, &ob, (uint32_t)sn->str_value, &v) && v)
            g_array_append_val(ids, v);
    }
    if (ids->len)
        qsort(ids->data, ids->len, sizeof(uint64_t), cmp_u64);
    *n = ids->len;
    return (uint64_t *)g_array_free(ids, FALSE);
}

/* Whether two decoded primitive arrays hold the same elements. */
static bool same_elements(const hf_hobj *a, const hf_hobj *b)
{
    return a->elem == b->elem && a->length == b->length && a->end - a->data == b->end - b->data &&
           memcmp(a->data, b->data, (size_t)(a->end - a->data)) == 0;
}

static bool is_primitive_array(const hf_hsnap *sn, uint64_t o)
{
    uint8_t elem = hf_heap_class(sn, hf_heap_cls(sn, o))->elem;
    return elem && elem != HF_T_OBJECT;
}

static bool has_elements(const hf_hobj *ob)
{
    return ob->kind == HF_K_PRIMARRAY && !ob->nodata && ob->length && ob->data;
}

/* Arrays compared (groups.h hf_equal_ops): x the first of a group. */
typedef struct {
    hf_heap *h;
    const hf_hsnap *sn;
    hf_hobj x;
} arr_cmp;

static bool arr_first(void *ud, uint32_t o)
{
    arr_cmp *c = ud;
    return hf_heap_decode(c->h, c->sn, o, &c->x);
}

static bool arr_same(void *ud, uint32_t o, uint64_t *bytes)
{
    arr_cmp *c = ud;
    hf_hobj y;
    if (!hf_heap_decode(c->h, c->sn, o, &y) || !same_elements(&c->x, &y))
        return false;
    *bytes = hf_heap_shallow(c->h, c->sn, &y);
    return true;
}

static const char *const arrays_cols[] = {"objects", "wasted", "length", "id", "class"};

uint64_t hf_heap_waste_arrays_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    size_t n_str;
    uint64_t *strs = string_values(h, sn, &n_str);
    GArray *keys = g_array_new(FALSE, FALSE, sizeof(hf_equal_key));
    for (uint64_t o = 0; o < sn->n_objects && !hf_cancel_due(o); o++) {
        hf_hobj ob;
        if (!is_primitive_array(sn, o) || !hf_heap_decode(h, sn, o, &ob) || !has_elements(&ob) ||
            (n_str && bsearch(&ob.id, strs, n_str, sizeof *strs, cmp_u64)))
            continue;
        uint64_t hash = hf_hash_bytes(ob.data, (size_t)(ob.end - ob.data)) ^ ob.elem ^ ob.length << 8;
        hf_equal_key k = {hash, (uint32_t)o};
        g_array_append_val(keys, k);
    }
    g_free(strs);
    static const hf_equal_ops ops = {arr_first, arr_same};
    arr_cmp c = {h, sn};
    GArray *groups = hf_equal_groups(keys, &ops, &c);
    hf_tsv t = {out, 0, 0};
    hf_heap_put_header(&t, arrays_cols, G_N_ELEMENTS(arrays_cols));
    for (guint i = 0; i < groups->len; i++) {
        const hf_equal_group *g = &g_array_index(groups, hf_equal_group, i);
        hf_hobj ob;
        if (!hf_heap_decode(h, sn, g->o, &ob))
            continue;
        const uint64_t nums[] = {g->copies, g->wasted, ob.length};
        for (unsigned k = 0; k < G_N_ELEMENTS(nums); k++) {
            hf_tsv_put_u64(&t, nums[k]);
            hf_tsv_c(&t, '\t');
        }
        hf_tsv_put_id(&t, ob.id);
        hf_tsv_c(&t, '\t');
        hf_tsv_put_str(&t, hf_heap_class(sn, ob.cls)->dir);
        hf_tsv_c(&t, '\n');
    }
    g_array_free(groups, TRUE);
    g_array_free(keys, TRUE);
    return HF_DONE;
}

/* ---- waste/boxed ---- */

typedef struct {
    uint32_t cls;
    uint64_t objects, bytes;
    GHashTable *values; /* distinct raw bits */
} box_sum;

static gint cmp_boxes(gconstpointer a, gconstpointer b, gpointer ud)
{
    const box_sum *x = a, *y = b;
    const hf_hsnap *sn = ud;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return strcmp(hf_heap_class(sn, x->cls)->dir, hf_heap_class(sn, y->cls)->dir);
}

static const char *const boxed_cols[] = {"objects", "bytes", "distinct", "wasted", "class"};

uint64_t hf_heap_waste_boxed_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    box_sum *by = g_new0(box_sum, sn->classes->len + 1);
    bool *is_box = g_new0(bool, sn->classes->len + 1);
    for (guint c = 0; c < sn->classes->len; c++)
        is_box[c] = hf_heap_box_class(hf_heap_class(sn, c)) != 0;
    for (uint64_t o = 0; o < sn->n_objects && !hf_cancel_due(o); o++) {
        uint32_t c = hf_heap_cls(sn, o);
        hf_hobj ob;
        unsigned type;
        uint64_t bits;
        if (!is_box[c] || !hf_heap_decode(h, sn, o, &ob) ||
            !hf_heap_boxed(h, sn, &ob, &type, &bits))
            continue;
        if (!by[c].values)
            by[c].values = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
        by[c].cls = c;
        by[c].objects++;
        by[c].bytes += hf_heap_shallow(h, sn, &ob);
        if (!g_hash_table_contains(by[c].values, &bits))
            g_hash_table_add(by[c].values, g_memdup2(&bits, sizeof bits));
    }
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(box_sum));
    for (guint c = 0; c < sn->classes->len; c++)
        if (by[c].objects)
            g_array_append_val(rows, by[c]);
    g_array_sort_with_data(rows, cmp_boxes, (gpointer)sn);
    hf_tsv t = {out, 0, 0};
    hf_heap_put_header(&t, boxed_cols, G_N_ELEMENTS(boxed_cols));
    for (guint i = 0; i < rows->len; i++) {
        box_sum *s = &g_array_index(rows, box_sum, i);
        uint64_t distinct = g_hash_table_size(s->values);
        uint64_t each = s->bytes / s->objects;
        const uint64_t nums[] = {s->objects, s->bytes, distinct, (s->objects - distinct) * each};
        hf_heap_put_row(&t, nums, G_N_ELEMENTS(nums), hf_heap_class(sn, s->cls)->dir);
        g_hash_table_destroy(s->values);
    }
    g_array_free(rows, TRUE);
    g_free(is_box);
    g_free(by);
    return HF_DONE;
}

/* ---- waste/zeros ---- */

#define ZEROS_MIN_LENGTH 16 /* shorter arrays are not worth a row */
#define ZEROS_PERCENT 90

/* Zero elements of a primitive array (all bytes of the element zero). */
static uint64_t zero_elements(const hf_hobj *ob)
{
    size_t width = (size_t)(ob->end - ob->data) / ob->length, zeros = 0;
    if (!width)
        return 0;
    for (const uint8_t *p = ob->data; p + width <= ob->end; p += width) {
        size_t k = 0;
        while (k < width && !p[k])
            k++;
        zeros += k == width;
    }
    return zeros;
}

static const char *const zeros_cols[] = {"id", "length", "zeros", "bytes", "class"};

static bool primitive_array(const hf_hsnap *sn, uint64_t o, void *ud)
{
    return is_primitive_array(sn, o);
}

static void zeros_row(hf_heap *h, const hf_hsnap *sn, uint64_t o, hf_tsv *t, void *ud)
{
    hf_hobj ob;
    if (!hf_heap_decode(h, sn, o, &ob) || !has_elements(&ob) || ob.length < ZEROS_MIN_LENGTH)
        return;
    uint64_t zeros = zero_elements(&ob);
    if (zeros * 100 < ob.length * ZEROS_PERCENT)
        return;
    hf_tsv_put_id(t, ob.id);
    hf_tsv_c(t, '\t');
    const uint64_t nums[] = {ob.length, zeros, hf_heap_shallow(h, sn, &ob)};
    hf_heap_put_row(t, nums, G_N_ELEMENTS(nums), hf_heap_class(sn, ob.cls)->dir);
}

static uint64_t zeros_rows(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
                           size_t budget)
{
    return hf_heap_object_rows(d, v, first, t, budget, zeros_cols, G_N_ELEMENTS(zeros_cols),
                               primitive_array, zeros_row, NULL);
}

HF_TSV_RENDER(hf_heap_waste_zeros, zeros_rows)
