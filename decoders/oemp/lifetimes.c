/*
 * lifetimes.c - the lifetime index of an .oemp recording (see oemp.h).
 * Calls read.c and scan.c (oemp_problem, while building).
 *
 * Built once after the parse pass, read-only afterwards:
 *   - tables and call-tree nodes sorted by id (first definition wins);
 *   - chg_by_obj: each object's size changes, oldest first (a counting sort
 *     of the file-order change list), for "bytes of g at snapshot s";
 *   - by_id: objects sorted by AppObjId, for objects/ID lookups;
 *   - groups: (type, resolved name) of every object, for the histogram;
 *   - checkpoints: the live sets of some snapshots.
 *
 * Live sets.  Objects are numbered in creation order, so the objects
 * created up to snapshot s are a prefix [0, obj_end(s)), and the live set of
 * s is that prefix filtered by deleted > s.  Rebuilding it from the last
 * checkpoint c <= s costs |live(c)| + (objects created in (c, s]).  A
 * checkpoint is taken when the objects created since the previous one reach
 * max(CHECKPOINT_MIN, |previous checkpoint|): so rebuilding any snapshot
 * costs at most about 2 |live(c)| + CHECKPOINT_MIN steps, and checkpoints
 * hold at most about 2 object indices (8 bytes) per object created.
 * Rebuilt sets are kept in a memo (live_memo, memo.h: CACHE_MAX_SETS
 * sets or CACHE_MAX_BYTES), so listing a snapshot's objects, stat-ing each
 * and reading their files rebuilds it once.
 *
 * Thread safety: everything but the memo is read-only after build; the
 * memo has its own lock, hands out references and makes a set once.
 */
#include "decoders/oemp/oemp.h"
#include "decoders/core/search.h"

#include <stdlib.h>
#include <string.h>

#define CHECKPOINT_MIN 65536u
#define CACHE_MAX_SETS 16u
#define CACHE_MAX_BYTES (256u << 20)

uint32_t oemp_n_snaps(const oemp_dump *d)
{
    return d->snaps->len;
}

uint32_t oemp_snap_obj_end(const oemp_dump *d, uint32_t s)
{
    return s + 1 < d->snaps->len ? oemp_snap_at(d, s + 1)->obj_first : d->objs->len;
}

uint32_t oemp_snap_chg_end(const oemp_dump *d, uint32_t s)
{
    return s + 1 < d->snaps->len ? oemp_snap_at(d, s + 1)->chg_first : d->chgs->len;
}

uint32_t oemp_snap_del_end(const oemp_dump *d, uint32_t s)
{
    return s + 1 < d->snaps->len ? oemp_snap_at(d, s + 1)->del_first : d->dels->len;
}

uint32_t oemp_snap_plat_end(const oemp_dump *d, uint32_t s)
{
    return s + 1 < d->snaps->len ? oemp_snap_at(d, s + 1)->plat_first : d->plats->len;
}

/* ---- searches ---------------------------------------------------------------- */

/* Exact lookups use bsearch(3); these are its comparators. */

/* Elements that start with their int64_t id (oemp_named, oemp_node), or a
 * key that is an int64_t id. */
static int cmp_leading_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The other searches look for where a sorted sequence crosses a value, which
 * bsearch cannot: hf_lower_bound (search.h) with these predicates, "the
 * i-th element's key < f->key", for keys that never decrease with i. */
typedef struct {
    const oemp_dump *d;
    uint64_t key;
} key_find;

static bool chg_snap_below(const void *ud, uint64_t i) /* i-th of chg_by_obj */
{
    const key_find *f = ud;
    return g_array_index(f->d->chgs, oemp_chg, f->d->chg_by_obj[i]).snap < f->key;
}

static bool checkpoint_snap_below(const void *ud, uint64_t i)
{
    const key_find *f = ud;
    return ((const oemp_live *)g_ptr_array_index(f->d->checkpoints, i))->snap < f->key;
}

static bool id_below(const void *ud, uint64_t i) /* i-th of by_id */
{
    const key_find *f = ud;
    return oemp_obj_at(f->d, f->d->by_id[i])->id < f->key;
}

/* ---- tables ---------------------------------------------------------------- */

static const char *const table_names[OEMP_T_N] = {
    "PlatObjCatalog", "AppObjCatalog", "BObjCatalog", "ABLNameList", "OtherNameList",
};

/* Sorts (stable: the first definition stays first) and drops repeats. */
static void sort_table(oemp_dump *d, int t)
{
    GArray *a = d->tables[t];
    g_array_sort(a, cmp_leading_id);
    guint w = 0;
    for (guint i = 0; i < a->len; i++) {
        oemp_named *n = &g_array_index(a, oemp_named, i);
        if (w > 0) {
            oemp_named *prev = &g_array_index(a, oemp_named, w - 1);
            if (prev->id == n->id) {
                if (strcmp(prev->name, n->name) != 0 || prev->line != n->line)
                    oemp_problem(d, OEMP_P_DUP, OEMP_NOOFF, "%s: id %" G_GINT64_FORMAT
                                 " defined again as \"%s\"; the first, \"%s\", is used",
                                 table_names[t], n->id, n->name, prev->name);
                continue;
            }
        }
        g_array_index(a, oemp_named, w++) = *n;
    }
    g_array_set_size(a, w);
}

static void sort_nodes(oemp_dump *d)
{
    GArray *a = d->nodes;
    g_array_sort(a, cmp_leading_id);
    guint w = 0;
    for (guint i = 0; i < a->len; i++) {
        oemp_node *n = &g_array_index(a, oemp_node, i);
        if (w > 0 && g_array_index(a, oemp_node, w - 1).id == n->id) {
            oemp_node *prev = &g_array_index(a, oemp_node, w - 1);
            if (prev->src != n->src || prev->parent != n->parent || prev->pline != n->pline)
                oemp_problem(d, OEMP_P_DUP, OEMP_NOOFF, "CallTreeNodes: node %" G_GINT64_FORMAT
                             " defined again differently; the first is used", n->id);
            continue;
        }
        g_array_index(a, oemp_node, w++) = *n;
    }
    g_array_set_size(a, w);
}

/* The element of id in an array sorted by id whose elements start with
 * their int64_t id (oemp_named, oemp_node), or NULL. */
static const void *find_by_id(GArray *a, int64_t id)
{
    return a->len ? bsearch(&id, a->data, a->len, g_array_get_element_size(a), cmp_leading_id)
                  : NULL;
}

const oemp_named *oemp_table_find(const oemp_dump *d, int t, int64_t id)
{
    return find_by_id(d->tables[t], id);
}

const oemp_node *oemp_node_find(const oemp_dump *d, int64_t id)
{
    return find_by_id(d->nodes, id);
}

oemp_type_kind oemp_type_kind_of(const char *type_name)
{
    char *l = g_ascii_strdown(type_name, -1);
    oemp_type_kind k = OEMP_K_OTHER;
    /* The format's specification names the types "Procedure", "OOABL Obj",
     * "OOABL Static Obj", "Reusable Obj" (named from ABLNameList) and "OO
     * Builtin"; match the words, not the exact spelling, which it does not
     * fix.  The naming rule is in docs/formats.md (section 5). */
    if (strstr(l, "builtin") || strstr(l, "built-in") || strstr(l, "built in"))
        k = OEMP_K_BUILTIN;
    else if (strstr(l, "procedure") || g_str_has_prefix(l, "ooabl") || strstr(l, "reusable") ||
             strstr(l, ".net obj"))
        k = OEMP_K_ABL;
    g_free(l);
    return k;
}

void oemp_type_name(const oemp_dump *d, int64_t type, GString *out)
{
    const oemp_named *n = oemp_table_find(d, OEMP_T_ACAT, type);
    if (n)
        oemp_append_oneline(out, n->name, strlen(n->name));
    else
        g_string_append_printf(out, "type %" G_GINT64_FORMAT, type);
}

void oemp_aobj_parse(const oemp_dump *d, uint64_t off, oemp_aobj *a)
{
    oemp_rec r;
    memset(a, 0, sizeof *a);
    if (off >= d->size || !oemp_read_record(d->text, d->size, off, &r) || r.ntok == 0)
        return;
    a->ok = oemp_tok_u64(&r.tok[0], &a->id);
    for (unsigned i = 0; i < 16; i++) {
        if (i >= r.ntok || !oemp_tok_i64(&r.tok[i], &a->v[i])) {
            a->v[i] = 0;
            a->unk[i] = true;
        }
    }
}

/* ---- groups (type, name) --------------------------------------------------- */

/* Where an object's name comes from: the naming rule of the format (see
 * docs/formats.md, section 5). */
typedef struct {
    int64_t type;
    int table; /* OEMP_T_*, or -1: no name */
    int64_t key;
} name_ref;

static guint ref_hash(gconstpointer p)
{
    const name_ref *r = p;
    uint64_t h = (uint64_t)r->type * 0x9E3779B97F4A7C15ULL ^ (uint64_t)r->key * 0xC2B2AE3D27D4EB4FULL ^
                 (uint64_t)(r->table + 2);
    return (guint)(h ^ (h >> 32));
}

static gboolean ref_equal(gconstpointer a, gconstpointer b)
{
    const name_ref *x = a, *y = b;
    return x->type == y->type && x->table == y->table && x->key == y->key;
}

/* kinds[i]: the kind of the i-th AppObjCatalog entry. */
static name_ref name_ref_of(const oemp_dump *d, const oemp_aobj *a, const uint8_t *kinds)
{
    name_ref r = {.type = a->v[OEMP_A_TYPE], .table = -1, .key = 0};
    const oemp_named *t = oemp_table_find(d, OEMP_T_ACAT, r.type);
    oemp_type_kind kind =
        t ? kinds[t - &g_array_index(d->tables[OEMP_T_ACAT], oemp_named, 0)] : OEMP_K_OTHER;
    int64_t src = a->v[OEMP_A_SRC], nameid = a->v[OEMP_A_NAMEID], bio = a->v[OEMP_A_BIOTYP];
    if (kind == OEMP_K_ABL) {
        if (src)
            r.table = OEMP_T_ABLN, r.key = src;
    } else if (nameid) {
        r.table = OEMP_T_OTHN, r.key = nameid;
    } else if (kind == OEMP_K_BUILTIN && bio) {
        r.table = OEMP_T_BCAT, r.key = bio;
    } else if (src) {
        /* a type whose catalog name we do not recognise: the format's
         * specification says SrcId is zero for all but the ABL-named types */
        r.table = OEMP_T_ABLN, r.key = src;
    }
    return r;
}

static const char *resolve(oemp_dump *d, const name_ref *r, uint64_t obj_id)
{
    if (r->table < 0)
        return "";
    const oemp_named *n = oemp_table_find(d, r->table, r->key);
    if (n)
        return n->name;
    static const char *const what[OEMP_T_N] = {"", "", "BioTypId", "SrcId", "NameId"};
    oemp_problem(d, OEMP_P_NAME, OEMP_NOOFF, "object %" G_GUINT64_FORMAT ": %s %" G_GINT64_FORMAT
                 " is not in %s", obj_id, what[r->table], r->key, table_names[r->table]);
    char *s = g_strdup_printf("<%s %" G_GINT64_FORMAT " unknown>", what[r->table], r->key);
    const char *c = g_string_chunk_insert_const(d->strs, s);
    g_free(s);
    return c;
}

static void build_groups(oemp_dump *d)
{
    GHashTable *by_ref = g_hash_table_new_full(ref_hash, ref_equal, g_free, NULL);
    GHashTable *by_text = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GArray *acat = d->tables[OEMP_T_ACAT];
    uint8_t *kinds = g_new(uint8_t, acat->len + 1);
    for (guint i = 0; i < acat->len; i++)
        kinds[i] = (uint8_t)oemp_type_kind_of(g_array_index(acat, oemp_named, i).name);
    for (guint g = 0; g < d->objs->len; g++) {
        oemp_obj *o = &g_array_index(d->objs, oemp_obj, g);
        oemp_aobj a;
        oemp_aobj_parse(d, o->off, &a);
        name_ref r = name_ref_of(d, &a, kinds);
        gpointer v;
        if (g_hash_table_lookup_extended(by_ref, &r, NULL, &v)) {
            o->group = GPOINTER_TO_UINT(v);
            continue;
        }
        const char *name = resolve(d, &r, o->id);
        char *text = g_strdup_printf("%" G_GINT64_FORMAT "\x01%s", r.type, name);
        if (g_hash_table_lookup_extended(by_text, text, NULL, &v)) {
            o->group = GPOINTER_TO_UINT(v);
            g_free(text);
        } else {
            oemp_group gr = {.type = r.type, .name = name};
            o->group = d->groups->len;
            g_array_append_val(d->groups, gr);
            g_hash_table_insert(by_text, text, GUINT_TO_POINTER(o->group));
        }
        g_hash_table_insert(by_ref, g_memdup2(&r, sizeof r), GUINT_TO_POINTER(o->group));
        if (!oemp_table_find(d, OEMP_T_ACAT, r.type))
            oemp_problem(d, OEMP_P_NAME, OEMP_NOOFF, "object %" G_GUINT64_FORMAT ": type %"
                         G_GINT64_FORMAT " is not in AppObjCatalog", o->id, r.type);
    }
    g_hash_table_destroy(by_ref);
    g_hash_table_destroy(by_text);
    g_free(kinds);
}

/* ---- changes and ids ----------------------------------------------------- */

static void build_changes(oemp_dump *d)
{
    guint n = d->objs->len, m = d->chgs->len;
    uint32_t *count = g_new0(uint32_t, (gsize)n + 1);
    for (guint i = 0; i < m; i++)
        count[g_array_index(d->chgs, oemp_chg, i).obj]++;
    uint32_t sum = 0;
    for (guint g = 0; g < n; g++) {
        uint32_t c = count[g];
        g_array_index(d->objs, oemp_obj, g).chg = sum;
        count[g] = sum; /* now the next free slot */
        sum += c;
    }
    d->chg_by_obj = g_new(uint32_t, m ? m : 1);
    for (guint i = 0; i < m; i++)
        d->chg_by_obj[count[g_array_index(d->chgs, oemp_chg, i).obj]++] = i;
    g_free(count);
}

static gint cmp_by_id(gconstpointer a, gconstpointer b, gpointer data)
{
    const oemp_dump *d = data;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t ix = oemp_obj_at(d, x)->id, iy = oemp_obj_at(d, y)->id;
    if (ix != iy)
        return ix < iy ? -1 : 1;
    return (x > y) - (x < y);
}

static void build_by_id(oemp_dump *d)
{
    guint n = d->objs->len;
    d->by_id = g_new(uint32_t, n ? n : 1);
    bool sorted = true;
    for (guint g = 0; g < n; g++) {
        d->by_id[g] = g;
        if (g && oemp_obj_at(d, g)->id < oemp_obj_at(d, g - 1)->id)
            sorted = false;
    }
    if (!sorted) /* the usual case is ids handed out in ascending order */
        g_qsort_with_data(d->by_id, (gint)n, sizeof(uint32_t), cmp_by_id, d);
}

/* Object g's changes are chg_by_obj[oemp_obj_at(d, g)->chg .. chg_end(d, g)),
 * oldest first. */
static uint32_t chg_end(const oemp_dump *d, uint32_t g)
{
    return g + 1 < d->objs->len ? oemp_obj_at(d, g + 1)->chg : d->chgs->len;
}

const oemp_chg *oemp_change_at(const oemp_dump *d, uint32_t g, uint32_t s)
{
    uint32_t first = oemp_obj_at(d, g)->chg;
    uint32_t after = (uint32_t)hf_lower_bound(first, chg_end(d, g), chg_snap_below,
                                              &(key_find){d, (uint64_t)s + 1});
    return after > first ? &g_array_index(d->chgs, oemp_chg, d->chg_by_obj[after - 1]) : NULL;
}

int64_t oemp_size_at(const oemp_dump *d, uint32_t g, uint32_t s)
{
    const oemp_chg *c = oemp_change_at(d, g, s);
    return c ? c->mem : oemp_obj_at(d, g)->mem;
}

int64_t oemp_size_before(const oemp_dump *d, uint32_t c)
{
    uint32_t g = g_array_index(d->chgs, oemp_chg, c).obj;
    const uint32_t *first = d->chg_by_obj + oemp_obj_at(d, g)->chg;
    const uint32_t *at = bsearch(&c, first, chg_end(d, g) - oemp_obj_at(d, g)->chg,
                                 sizeof *first, cmp_u32);
    if (!at || at == first)
        return oemp_obj_at(d, g)->mem;
    return g_array_index(d->chgs, oemp_chg, at[-1]).mem;
}

/* ---- live sets ------------------------------------------------------------- */

/* The live set of s, from checkpoint `base` (NULL: from the start). */
static oemp_live *materialize(const oemp_dump *d, const oemp_live *base, uint32_t s)
{
    uint32_t start = base ? oemp_snap_obj_end(d, base->snap) : 0;
    uint32_t end = oemp_snap_obj_end(d, s);
    uint64_t n = 0;
    if (base)
        for (uint32_t i = 0; i < base->n; i++)
            n += oemp_obj_at(d, base->g[i])->deleted > s;
    for (uint32_t g = start; g < end; g++)
        n += oemp_obj_at(d, g)->deleted > s;
    oemp_live *l = g_malloc(sizeof *l + n * sizeof(uint32_t));
    l->checkpoint = false;
    l->snap = s;
    l->n = (uint32_t)n;
    uint32_t w = 0;
    if (base)
        for (uint32_t i = 0; i < base->n; i++)
            if (oemp_obj_at(d, base->g[i])->deleted > s)
                l->g[w++] = base->g[i];
    for (uint32_t g = start; g < end; g++)
        if (oemp_obj_at(d, g)->deleted > s)
            l->g[w++] = g;
    return l;
}

static void build_checkpoints(oemp_dump *d)
{
    d->checkpoints = g_ptr_array_new_with_free_func(g_free);
    oemp_live *prev = NULL;
    uint64_t since = 0;
    for (uint32_t s = 0; s < d->snaps->len; s++) {
        since += oemp_snap_obj_end(d, s) - oemp_snap_at(d, s)->obj_first;
        if (since >= MAX(CHECKPOINT_MIN, prev ? prev->n : 0)) {
            prev = materialize(d, prev, s);
            prev->checkpoint = true;
            g_ptr_array_add(d->checkpoints, prev);
            since = 0;
        }
    }
}

/* The last checkpoint at or before s, or NULL. */
static oemp_live *checkpoint_before(const oemp_dump *d, uint32_t s)
{
    uint32_t after = (uint32_t)hf_lower_bound(0, d->checkpoints->len, checkpoint_snap_below,
                                              &(key_find){d, (uint64_t)s + 1});
    return after ? g_ptr_array_index(d->checkpoints, after - 1) : NULL;
}

static gsize live_bytes(gconstpointer p)
{
    const oemp_live *l = p;
    return sizeof *l + (gsize)l->n * sizeof(uint32_t);
}

/* The memo's make: the live set of snapshot `s` from its checkpoint. */
static gpointer make_live(guint64 s, gpointer d)
{
    return materialize(d, checkpoint_before(d, (uint32_t)s), (uint32_t)s);
}

oemp_live *oemp_live_get(oemp_dump *d, uint32_t s)
{
    oemp_live *base = checkpoint_before(d, s);
    if (base && base->snap == s)
        return base;
    return oemp_memo_get(d->live_memo, s, make_live, d);
}

void oemp_live_unref(oemp_dump *d, oemp_live *l)
{
    if (l && !l->checkpoint)
        oemp_memo_unref(d->live_memo, l);
}

/* Position of object g in l, or -1. */
static int64_t live_rank(const oemp_live *l, uint32_t g)
{
    const uint32_t *at = l->n ? bsearch(&g, l->g, l->n, sizeof g, cmp_u32) : NULL;
    return at ? at - l->g : -1;
}

int64_t oemp_find_live(oemp_dump *d, uint32_t s, uint64_t id)
{
    uint32_t lo = (uint32_t)hf_lower_bound(0, d->objs->len, id_below, &(key_find){d, id});
    for (; lo < d->objs->len && oemp_obj_at(d, d->by_id[lo])->id == id; lo++) {
        const oemp_obj *o = oemp_obj_at(d, d->by_id[lo]);
        if (o->created <= s && s < o->deleted)
            return d->by_id[lo];
    }
    return -1;
}

uint32_t oemp_live_obj(oemp_dump *d, uint32_t s, uint64_t o)
{
    if (s >= oemp_n_snaps(d))
        return OEMP_NOOBJ;
    oemp_live *l = oemp_live_get(d, s);
    uint32_t g = o < l->n ? l->g[o] : OEMP_NOOBJ;
    oemp_live_unref(d, l);
    return g;
}

int64_t oemp_live_pos(oemp_dump *d, uint32_t s, uint64_t id)
{
    if (s >= oemp_n_snaps(d))
        return -1;
    int64_t g = oemp_find_live(d, s, id);
    if (g < 0)
        return -1;
    oemp_live *l = oemp_live_get(d, s);
    int64_t o = live_rank(l, (uint32_t)g);
    oemp_live_unref(d, l);
    return o;
}

void oemp_index_build(oemp_dump *d)
{
    for (int t = 0; t < OEMP_T_N; t++)
        sort_table(d, t);
    sort_nodes(d);
    build_changes(d);
    build_by_id(d);
    build_groups(d);
    build_checkpoints(d);
    d->live_memo = oemp_memo_new_bytes(CACHE_MAX_SETS, CACHE_MAX_BYTES, live_bytes, g_free);
}

uint64_t oemp_index_bytes(const oemp_dump *d)
{
    uint64_t b = sizeof *d;
    b += (uint64_t)d->snaps->len * sizeof(oemp_snap);
    b += (uint64_t)d->objs->len * (sizeof(oemp_obj) + sizeof(uint32_t)); /* + by_id */
    b += (uint64_t)d->chgs->len * (sizeof(oemp_chg) + sizeof(uint32_t)); /* + chg_by_obj */
    b += (uint64_t)d->dels->len * sizeof(oemp_del);
    b += (uint64_t)d->plats->len * sizeof(oemp_plat);
    b += (uint64_t)d->nodes->len * sizeof(oemp_node);
    b += (uint64_t)d->groups->len * sizeof(oemp_group);
    for (int t = 0; t < OEMP_T_N; t++)
        for (guint i = 0; i < d->tables[t]->len; i++)
            b += sizeof(oemp_named) + strlen(g_array_index(d->tables[t], oemp_named, i).name) + 1;
    for (guint i = 0; i < d->checkpoints->len; i++)
        b += live_bytes(g_ptr_array_index(d->checkpoints, i));
    return b;
}

void oemp_index_free(oemp_dump *d)
{
    if (d->checkpoints)
        g_ptr_array_free(d->checkpoints, TRUE);
    oemp_memo_free(d->live_memo);
    d->live_memo = NULL;
    g_free(d->chg_by_obj);
    g_free(d->by_id);
}

/* ---- stacks ---------------------------------------------------------------- */

void oemp_frame_label(const oemp_dump *d, int64_t src, int64_t line, GString *out)
{
    const oemp_named *n = oemp_table_find(d, OEMP_T_ABLN, src);
    if (n)
        oemp_append_oneline(out, n->name, strlen(n->name));
    else
        g_string_append_printf(out, "<SrcId %" G_GINT64_FORMAT " unknown>", src);
    if (line > 0)
        g_string_append_printf(out, ":%" G_GINT64_FORMAT, line);
}

unsigned oemp_stack_append(const oemp_dump *d, int64_t node, int64_t line, GString *out,
                           const char *prefix, const char *suffix, unsigned max_frames)
{
    unsigned n = 0;
    /* a parent chain longer than the node count has a cycle */
    guint limit = MIN(max_frames, d->nodes->len + 1);
    while (node > 0) {
        if (n >= limit) {
            g_string_append_printf(out, "%s<more than %u frames, or a cycle>%s", prefix, n,
                                   suffix);
            break;
        }
        const oemp_node *nd = oemp_node_find(d, node);
        g_string_append(out, prefix);
        if (!nd) {
            g_string_append_printf(out, "<node %" G_GINT64_FORMAT " unknown>", node);
            if (line > 0)
                g_string_append_printf(out, ":%" G_GINT64_FORMAT, line);
            g_string_append(out, suffix);
            n++;
            break;
        }
        oemp_frame_label(d, nd->src, line, out);
        g_string_append(out, suffix);
        n++;
        line = nd->pline;
        node = nd->parent;
    }
    return n;
}
