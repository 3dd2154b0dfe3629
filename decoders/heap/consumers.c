/*
 * consumers.c - snapshots/S/consumers-by-class, consumers-by-loader and
 * consumers-by-package: Eclipse MAT's "top consumers", retained bytes by
 * class, by class loader and by package, each object counted once
 * (groups.h: an object counts in a group only when nothing above it in
 * the dominator tree belongs to the group).
 *
 *   # objects retained percent top_objects top_retained class|loader|package
 *
 * objects and retained: the group's objects that count and what they
 * retain; top_objects and top_retained: those of them at the top of the
 * dominator tree, the figures MAT's report gives.  By class, a class
 * with no instances whose class object keeps nothing but itself has no
 * row (every loaded class would have one).  A class object counts
 * as the class it describes (what a class holds in its static fields is
 * that class's, and its loader's, and its package's), as MAT's package
 * grouping does.  Packages nest: java.util's objects count in java too;
 * array classes are in their element's package, primitive arrays in
 * "<primitive arrays>", classes of no package in "<default>".  Loaders are
 * "0xID CLASS" ("<bootstrap>" for the JVM's own).  By retained bytes, then
 * name.  Reading one computes the snapshot's retained sizes (retained.h);
 * one walk of the dominator tree per read.  Thread-safe.
 */
#include "decoders/core/names.h"
#include "decoders/heap/groups.h"
#include "decoders/heap/retviews.h"

#include <string.h>

#define H(d) ((hf_heap *)(d))

typedef enum { BY_CLASS, BY_LOADER, BY_PACKAGE } grouping;

typedef struct {
    hf_heap *h;
    const hf_hsnap *sn;
    uint32_t *class_group; /* per class: its group */
    GPtrArray *names;      /* per group: its label (char *, owned) */
    GArray *parent;        /* per group: the enclosing group, HF_NONE */
    GHashTable *index;     /* label -> group + 1 */
} groups;

static uint32_t group_of(void *ud, uint32_t v)
{
    const groups *gs = ud;
    bool is_class;
    return gs->class_group[hf_rv_owner_class(gs->h, gs->sn, v, &is_class)];
}

/* The group labelled `name` (taken), made with parent `up` when new. */
static uint32_t group_named(groups *gs, char *name, uint32_t up)
{
    guint k = GPOINTER_TO_UINT(g_hash_table_lookup(gs->index, name));
    if (k) {
        g_free(name);
        return k - 1;
    }
    g_ptr_array_add(gs->names, name);
    g_array_append_val(gs->parent, up);
    g_hash_table_insert(gs->index, name, GUINT_TO_POINTER(gs->names->len));
    return gs->names->len - 1;
}

/* Whether name[0 .. len) names a basic type ("int"). */
static bool basic_type(const char *name, size_t len)
{
    for (unsigned t = 0; t < HF_T_MAX; t++) {
        const char *b = t == HF_T_OBJECT ? NULL : hf_btype_name(t);
        if (b && strlen(b) == len && memcmp(b, name, len) == 0)
            return true;
    }
    return false;
}

/* The innermost package group of class name `name`, after its enclosing
 * ones (java, java.util, ...). */
static uint32_t package_group(groups *gs, const char *name)
{
    size_t len = strlen(name);
    while (len >= 2 && name[len - 2] == '[' && name[len - 1] == ']')
        len -= 2;
    const char *dot = memrchr(name, '.', len);
    if (!dot)
        return group_named(gs, g_strdup(basic_type(name, len) ? "<primitive arrays>" : "<default>"),
                           HF_NONE);
    uint32_t up = HF_NONE;
    for (const char *p = memchr(name, '.', len); p; p = p < dot ? memchr(p + 1, '.', (size_t)(dot - p)) : NULL)
        up = group_named(gs, g_strndup(name, (size_t)(p - name)), up);
    return up;
}

/* "0xID CLASS" of a class loader, "<bootstrap>" for none. */
static char *loader_label(hf_heap *h, const hf_hsnap *sn, uint64_t id)
{
    if (!id)
        return g_strdup("<bootstrap>");
    int64_t o = hf_heap_find_id(h, sn, id);
    if (o < 0)
        return g_strdup_printf(HF_FMT_ID, (guint64)id);
    /* raw: the row escapes it (a loader object is never a class object) */
    return g_strdup_printf(HF_FMT_ID " %s", (guint64)id,
                           hf_heap_class(sn, hf_heap_cls(sn, (uint32_t)o))->dir);
}

static void groups_init(groups *gs, hf_heap *h, const hf_hsnap *sn, grouping by)
{
    guint nc = sn->classes->len;
    *gs = (groups){h, sn, g_new(uint32_t, nc ? nc : 1), g_ptr_array_new_with_free_func(g_free),
                   g_array_new(FALSE, FALSE, sizeof(uint32_t)),
                   g_hash_table_new(g_str_hash, g_str_equal)};
    for (guint c = 0; c < nc; c++) {
        const hf_hclass *k = hf_heap_class(sn, c);
        if (by == BY_CLASS)
            gs->class_group[c] = group_named(gs, g_strdup(k->dir), HF_NONE);
        else if (by == BY_LOADER)
            gs->class_group[c] = group_named(gs, loader_label(h, sn, k->loader_id), HF_NONE);
        else
            gs->class_group[c] = package_group(gs, k->name);
    }
}

static void groups_free(groups *gs)
{
    g_hash_table_destroy(gs->index);
    g_ptr_array_free(gs->names, TRUE);
    g_array_free(gs->parent, TRUE);
    g_free(gs->class_group);
}

typedef struct {
    const hf_group_sum *sum;
    const char *name;
} row;

static gint cmp_rows(gconstpointer a, gconstpointer b)
{
    const row *x = a, *y = b;
    if (x->sum->retained != y->sum->retained)
        return x->sum->retained < y->sum->retained ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Whether class c's only share is its class object keeping nothing but
 * itself (no instances, nothing in its statics of its own): a row of
 * every loaded class would bury the others. */
static bool bare_class(hf_heap *h, const hf_hsnap *sn, uint32_t c, const hf_group_sum *sum)
{
    uint32_t cn = hf_rv_class_node(h, sn, c);
    hf_hobj ob;
    return hf_heap_class(sn, c)->count == 0 && cn != HF_NONE && hf_heap_decode(h, sn, cn, &ob) &&
           sum->retained <= hf_heap_shallow(h, sn, &ob);
}

static void append_consumers(hf_dump *d, uint32_t s, grouping by, const char *what, GString *out)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, s);
    const hf_hgraph *g = hf_rv_graph_or_say(d, s, out);
    if (!g)
        return;
    groups gs;
    groups_init(&gs, h, sn, by);
    uint32_t n_groups = gs.names->len;
    hf_group_sum *sum = g_new(hf_group_sum, n_groups ? n_groups : 1);
    if (!hf_group_sums(g->kids, g->n_kids, g->idom, g->n, g->retained, group_of, &gs,
                       (const uint32_t *)gs.parent->data, n_groups, sum)) {
        g_string_append(out, "# cancelled, or out of memory\n");
    } else {
        GArray *rows = g_array_new(FALSE, FALSE, sizeof(row));
        for (uint32_t k = 0; k < n_groups; k++)
            if (sum[k].objects && !(by == BY_CLASS && bare_class(h, sn, k, &sum[k]))) {
                row r = {&sum[k], g_ptr_array_index(gs.names, k)};
                g_array_append_val(rows, r);
            }
        g_array_sort(rows, cmp_rows);
        g_string_append_printf(out, "# objects\tretained\tpercent\ttop_objects\ttop_retained\t%s\n",
                               what);
        for (guint i = 0; i < rows->len; i++) {
            const row *r = &g_array_index(rows, row, i);
            g_string_append_printf(out, "%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t",
                                   (guint64)r->sum->objects, (guint64)r->sum->retained);
            hf_rv_pct(out, r->sum->retained, hf_hgraph_retained(g, g->n));
            g_string_append_printf(out, "\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t",
                                   (guint64)r->sum->top_objects, (guint64)r->sum->top_retained);
            hf_escape_str(out, r->name);
            g_string_append_c(out, '\n');
        }
        g_array_free(rows, TRUE);
    }
    g_free(sum);
    groups_free(&gs);
}

uint64_t hf_heap_view_consumers_class(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                      size_t budget)
{
    append_consumers(d, v->snap, BY_CLASS, "class", out);
    return HF_DONE;
}

uint64_t hf_heap_view_consumers_loader(hf_dump *d, const hf_view *v, uint64_t first,
                                       GString *out, size_t budget)
{
    append_consumers(d, v->snap, BY_LOADER, "loader", out);
    return HF_DONE;
}

uint64_t hf_heap_view_consumers_package(hf_dump *d, const hf_view *v, uint64_t first,
                                        GString *out, size_t budget)
{
    append_consumers(d, v->snap, BY_PACKAGE, "package", out);
    return HF_DONE;
}
