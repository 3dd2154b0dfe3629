/*
 * mergedpaths.c - classes/NAME/paths: the shortest paths from the GC
 * roots to all instances of a class, merged into one tree with counts
 * (Eclipse MAT's "merge shortest paths to GC roots"), so "why are there
 * 40,000 Sessions" is one file:
 *
 *   # instances objects path
 *   40000   1      class sun.launcher.LauncherHelper (root: sticky-class)
 *   40000   1        class MatViews via appClass
 *   20000   1          java.util.ArrayList via LIST
 *   20000   1            java.lang.Object[] via elementData
 *   20000   20000          MatViews$Session via []
 *
 * A row is a step of the paths: what the object is (its class, or `class
 * NAME` for a class object), the field followed to reach it (`[]` for any
 * element of an array; at the top, the kinds of the GC roots it stands
 * for, all objects of that class that are roots), indented two spaces
 * a level (the instances themselves by their class, so the paths of
 * java.lang.Class end in java.lang.Class, not in each class's name).
 * instances: how many instances' paths take that step; objects:
 * how many distinct objects the step passes through.  Steps merge by
 * class and field, not by object, so 15,000 map entries are one row; and
 * consecutive steps through objects of one class (a linked list, a
 * tree's nodes) are one row, "a chain of up to N".  Children by
 * instances, then text.  The paths are retained.h's (BFS parents), so
 * soft, weak and phantom references are never followed at the default
 * level (-o retained=strong), as MAT's default excludes them.
 *
 * Bounded work: the first MAX_INSTANCES instances are followed, and the
 * walks stop after MAX_HOPS new objects; a walk up a path stops at the
 * first object another instance's walk met (its step is known), so the
 * work is that of the distinct objects on the paths.  Instances not
 * followed, and those no root reaches, are counted in a last row each,
 * "(...)" with objects 0.  Reading it computes the snapshot's retained
 * sizes.  Thread-safe: reads the finished graph only.
 */
#include "decoders/core/cancel.h"
#include "decoders/core/names.h"
#include "decoders/heap/retviews.h"

#include <string.h>

#define H(d) ((hf_heap *)(d))
#define MAX_INSTANCES 100000
#define MAX_HOPS 4000000
#define MAX_DEPTH 100 /* rows deeper are left out (said in a last row) */

typedef struct {
    uint32_t parent;   /* step above, HF_NONE at a root */
    uint32_t cls;      /* the class it is (described class for a class object) */
    bool is_class;
    char *via;         /* the field followed ("" at a root) */
    uint32_t kinds;    /* at a root: the kinds of its root objects, 1 << hf_root_kind */
    uint64_t instances, objects;
    uint32_t longest;  /* longest chain of objects of the class in this step */
} step;

typedef struct {
    uint32_t step, chain; /* an object's step, and its place in a chain */
} seen;

typedef struct {
    hf_heap *h;
    const hf_hsnap *sn;
    const hf_hgraph *g;
    GArray *steps;      /* step */
    GHashTable *by_key; /* step_key -> step + 1 */
    GHashTable *objs;   /* node -> index + 1 into seen */
    GArray *seen;
    uint64_t hops;
    uint32_t target;    /* the class whose instances these are */
    uint32_t last;      /* the object decoded last (siblings share it), HF_NONE */
    hf_hobj last_ob;
    bool last_ok;
    hf_rv_root_index roots;
} merge;

/* What makes a step: where it is, what it is and how it is reached (the
 * reference's slot in the object above, whose class the step above
 * fixes; VIA_ELEMENT for any element of an array, VIA_OTHER for its
 * class, loader or a local), so steps merge without naming every
 * reference: a step is named once, from its first object. */
enum { VIA_ELEMENT = UINT32_MAX, VIA_OTHER = UINT32_MAX - 1 };
typedef struct {
    uint32_t parent, cls, via;
    bool is_class;
} step_key;

static guint key_hash(gconstpointer p)
{
    const step_key *k = p;
    return k->parent * 2654435761u ^ k->cls * 40503u ^ k->via * 97u ^ k->is_class;
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
    const step_key *x = a, *y = b;
    return x->parent == y->parent && x->cls == y->cls && x->via == y->via &&
           x->is_class == y->is_class;
}

/* The step a key makes, made (and named by `name` when not NULL) the
 * first time. */
static uint32_t step_of(merge *m, const step_key *look, const char *name)
{
    guint k = GPOINTER_TO_UINT(g_hash_table_lookup(m->by_key, look));
    if (k)
        return k - 1;
    step_key *key = g_memdup2(look, sizeof *look);
    step st = {look->parent, look->cls, look->is_class, g_strdup(name ? name : ""), 0, 0, 0, 1};
    g_array_append_val(m->steps, st);
    g_hash_table_insert(m->by_key, key, GUINT_TO_POINTER(m->steps->len));
    return m->steps->len - 1;
}

static const seen *seen_of(merge *m, uint32_t v)
{
    guint k = GPOINTER_TO_UINT(g_hash_table_lookup(m->objs, GUINT_TO_POINTER(v + 1)));
    return k ? &g_array_index(m->seen, seen, k - 1) : NULL;
}

static void see(merge *m, uint32_t v, uint32_t st, uint32_t chain)
{
    seen s = {st, chain};
    g_array_append_val(m->seen, s);
    g_hash_table_insert(m->objs, GUINT_TO_POINTER(v + 1), GUINT_TO_POINTER(m->seen->len));
    step *p = &g_array_index(m->steps, step, st);
    p->objects++;
    p->longest = MAX(p->longest, chain);
}

typedef struct {
    uint64_t want;
    int64_t slot;
} find_slot;

static bool slot_cb(uint64_t target, uint32_t slot, void *ud)
{
    find_slot *f = ud;
    if (target != f->want)
        return true;
    f->slot = slot;
    return false;
}

/* How object u references w: VIA_ELEMENT from an array, else the slot of
 * the first reference to it, VIA_OTHER for none of its fields. */
static uint32_t via_of(merge *m, uint32_t u, uint32_t w)
{
    if (m->last != u) { /* a class object's decoding reads all its statics */
        m->last = u;
        m->last_ok = hf_heap_decode(m->h, m->sn, u, &m->last_ob);
    }
    if (!m->last_ok)
        return VIA_OTHER;
    if (m->last_ob.kind == HF_K_OBJARRAY)
        return VIA_ELEMENT;
    find_slot f = {hf_heap_object_id(m->h, m->sn, w), -1};
    hf_heap_for_each_ref_of(m->h, m->sn, &m->last_ob, slot_cb, &f);
    return f.slot >= 0 && f.slot < VIA_OTHER ? (uint32_t)f.slot : VIA_OTHER;
}

/* Object w, reached from u (its BFS parent, HF_NONE: w is a root), whose
 * step `up` is known: w's step. */
static void step_down(merge *m, uint32_t u, uint32_t w)
{
    bool is_class;
    uint32_t cls = hf_heap_cls(m->sn, w);
    if (cls == m->target) /* the instances themselves merge by their class */
        is_class = false;
    else
        cls = hf_rv_owner_class(m->h, m->sn, w, &is_class);
    if (u == HF_NONE) {
        step_key k = {HF_NONE, cls, VIA_OTHER, is_class};
        uint32_t st = step_of(m, &k, NULL);
        g_array_index(m->steps, step, st).kinds |=
            hf_rv_root_mask(m->sn, &m->roots, hf_heap_object_id(m->h, m->sn, w));
        see(m, w, st, 1);
        return;
    }
    const seen *su = seen_of(m, u);
    uint32_t up = su->step, chain = su->chain;
    const step *p = &g_array_index(m->steps, step, up);
    if (p->cls == cls && p->is_class == is_class && p->parent != HF_NONE) {
        see(m, w, up, chain + 1); /* one more object of the chain */
        return;
    }
    step_key k = {up, cls, via_of(m, u, w), is_class};
    if (g_hash_table_lookup(m->by_key, &k)) {
        see(m, w, step_of(m, &k, NULL), 1);
        return;
    }
    char name[HF_NAME_MAX];
    if (k.via == VIA_ELEMENT)
        g_strlcpy(name, "[]", sizeof name);
    else if (!hf_heap_ref_name(m->h, m->sn, u, w, 0, name))
        g_strlcpy(name, "?", sizeof name);
    see(m, w, step_of(m, &k, name), 1);
}

/* Follows instance x up its path to the first object met before (or the
 * root), then gives each object on the way its step, top down. */
static void follow(merge *m, uint32_t x, GArray *path)
{
    const hf_hgraph *g = m->g;
    g_array_set_size(path, 0);
    uint32_t v = x;
    while (v != g->n && !seen_of(m, v) && path->len <= g->n) {
        g_array_append_val(path, v);
        v = hf_parents_get(&g->parent, &g->pred, v);
        if (v == HF_NONE)
            return; /* a damaged file's parents */
    }
    if (v != g->n && !seen_of(m, v))
        return; /* a cycle of parents (a damaged file) */
    m->hops += path->len;
    for (guint i = path->len; i-- > 0;) {
        uint32_t w = g_array_index(path, uint32_t, i);
        uint32_t u = i + 1 < path->len ? g_array_index(path, uint32_t, i + 1) : v;
        step_down(m, u == g->n ? HF_NONE : u, w);
    }
    g_array_index(m->steps, step, seen_of(m, x)->step).instances++;
}

/* ---- writing the tree ---- */

static void append_step(merge *m, const step *st, unsigned depth, GString *out)
{
    g_string_append_printf(out, "%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t",
                           (guint64)st->instances, (guint64)st->objects);
    GString *t = g_string_new(NULL);
    for (unsigned i = 0; i < depth; i++)
        g_string_append(t, "  ");
    if (st->is_class)
        g_string_append(t, "class ");
    g_string_append(t, hf_heap_class(m->sn, st->cls)->dir);
    if (st->parent != HF_NONE) {
        g_string_append_printf(t, " via %s", st->via);
    } else {
        g_string_append(t, " (root: ");
        hf_rv_root_names(st->kinds, t);
        g_string_append_c(t, ')');
    }
    if (st->longest > 1)
        g_string_append_printf(t, " (a chain of up to %u)", st->longest);
    hf_escape_text(out, t->str, t->len);
    g_string_append_c(out, '\n');
    g_string_free(t, TRUE);
}

static gint cmp_steps(gconstpointer a, gconstpointer b, gpointer ud)
{
    const merge *m = ud;
    const step *x = &g_array_index(m->steps, step, *(const uint32_t *)a);
    const step *y = &g_array_index(m->steps, step, *(const uint32_t *)b);
    uint32_t px = x->parent + 1, py = y->parent + 1; /* roots (HF_NONE) first */
    if (px != py)
        return px < py ? -1 : 1;
    if (x->instances != y->instances)
        return x->instances < y->instances ? 1 : -1;
    int c = strcmp(hf_heap_class(m->sn, x->cls)->dir, hf_heap_class(m->sn, y->cls)->dir);
    return c ? c : strcmp(x->via, y->via);
}

/* Instances summed up the tree (a step is made after its parent), then
 * the steps written depth first; the rows left out below MAX_DEPTH are
 * counted in *deep. */
static void append_tree(merge *m, GString *out, uint64_t *deep)
{
    guint n = m->steps->len;
    for (guint i = n; i-- > 0;) {
        const step *st = &g_array_index(m->steps, step, i);
        if (st->parent != HF_NONE)
            g_array_index(m->steps, step, st->parent).instances += st->instances;
    }
    uint32_t *order = g_new(uint32_t, n + 1), *off = g_new0(uint32_t, n + 2);
    for (guint i = 0; i < n; i++)
        order[i] = i;
    g_qsort_with_data(order, (gint)n, sizeof *order, cmp_steps, m);
    for (guint i = 0; i < n; i++) /* children of p: order[off[p + 1] .. off[p + 2]) */
        off[g_array_index(m->steps, step, i).parent + 2]++;
    for (guint p = 1; p <= n + 1; p++)
        off[p] += off[p - 1];
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(uint64_t)); /* step << 8 | depth */
    for (guint i = off[1]; i-- > off[0];) {
        uint64_t e = (uint64_t)order[i] << 8;
        g_array_append_val(stack, e);
    }
    while (stack->len) {
        uint64_t e = g_array_index(stack, uint64_t, stack->len - 1);
        g_array_set_size(stack, stack->len - 1);
        uint32_t s = (uint32_t)(e >> 8), depth = (uint32_t)(e & 0xff);
        if (depth >= MAX_DEPTH) {
            *deep += g_array_index(m->steps, step, s).instances;
            continue;
        }
        append_step(m, &g_array_index(m->steps, step, s), depth, out);
        for (guint i = off[s + 2]; i-- > off[s + 1];) {
            uint64_t k = (uint64_t)order[i] << 8 | (depth + 1);
            g_array_append_val(stack, k);
        }
    }
    g_array_free(stack, TRUE);
    g_free(order);
    g_free(off);
}

static void clear_step(gpointer p)
{
    g_free(((step *)p)->via);
}

uint64_t hf_heap_view_class_paths(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    const hf_hgraph *g = hf_rv_graph_or_say(d, v->snap, out);
    if (!g || v->index >= sn->classes->len)
        return HF_DONE;
    merge m = {h, sn, g, g_array_new(FALSE, FALSE, sizeof(step)),
               g_hash_table_new_full(key_hash, key_equal, g_free, NULL),
               g_hash_table_new(g_direct_hash, g_direct_equal),
               g_array_new(FALSE, FALSE, sizeof(seen)), 0, (uint32_t)v->index, HF_NONE};
    g_array_set_clear_func(m.steps, clear_step);
    hf_rv_root_index_init(sn, &m.roots);
    GArray *path = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    uint64_t followed = 0, unreachable = 0, left = 0, deep = 0;
    for (uint32_t o = 0; o < g->n && !hf_cancel_due(o); o++) {
        if (hf_heap_cls(sn, o) != v->index)
            continue;
        if (g->idom[o] == HF_NONE) {
            unreachable++;
        } else if (followed >= MAX_INSTANCES || m.hops >= MAX_HOPS) {
            left++;
        } else {
            followed++;
            follow(&m, o, path);
        }
    }
    g_string_append(out, "# instances\tobjects\tpath\n");
    append_tree(&m, out, &deep);
    if (deep)
        g_string_append_printf(out, "%" G_GUINT64_FORMAT "\t0\t(paths deeper than %u steps: "
                               "cut there)\n", (guint64)deep, MAX_DEPTH);
    if (left)
        g_string_append_printf(out, "%" G_GUINT64_FORMAT "\t0\t(not followed: the work is "
                               "bounded to %u instances and %u objects on their paths)\n",
                               (guint64)left, MAX_INSTANCES, MAX_HOPS);
    if (unreachable)
        g_string_append_printf(out, "%" G_GUINT64_FORMAT "\t0\t(unreachable: no GC root "
                               "reaches them)\n", (guint64)unreachable);
    g_array_free(path, TRUE);
    g_array_free(m.steps, TRUE);
    g_array_free(m.seen, TRUE);
    g_hash_table_destroy(m.by_key);
    g_hash_table_destroy(m.objs);
    return HF_DONE;
}
