/*
 * collections.c - reading the JDK's collections out of a heap
 * (collections.h): the table of known classes, their figures and entries,
 * and a short description of any object.
 *
 * Field names per JDK (the layouts MAT's collection extractors know too):
 *   HashMap, LinkedHashMap   table, size; entries key, value, next
 *                            (HashMap$Entry up to JDK 7, HashMap$Node and
 *                            TreeNode from JDK 8: tree bins still chain by next)
 *   Hashtable                table, count; Hashtable$Entry key, value, next
 *   WeakHashMap              table, size; entries referent (the key), value, next
 *   ThreadLocal$ThreadLocalMap  table, size; entries referent, value (open addressing)
 *   ConcurrentHashMap        JDK 8+: table of Node key, val, next (TreeBin: first;
 *                            ForwardingNode: skipped), no size field (baseCount and
 *                            counter cells): the entries are counted;
 *                            JDK 6-7: segments, each a Segment with table, count
 *                            and HashEntry key, value, next
 *   IdentityHashMap          table (key, value alternating), size
 *   ArrayList, Vector        elementData, size / elementCount
 *   PriorityQueue            queue, size;  CopyOnWriteArrayList  array (exact)
 *   ArrayDeque               elements, head, tail: size (tail - head) mod length
 *   ImmutableCollections (JDK 9+: List.of, Set.of, Map.of of 3 or more)
 *                            ListN elements (exact); SetN elements (open
 *                            addressing), size; MapN table (key, value
 *                            alternating), size
 *   LinkedList               JDK 7+: first, size, Node item, next;
 *                            JDK 6: header (a sentinel), size, Entry element, next
 *   TreeMap                  root, size; Entry key, value, left, right
 *   wrappers                 HashSet map, TreeSet m, Properties map (JDK 9+: a
 *                            ConcurrentHashMap; before, Properties is a Hashtable),
 *                            CopyOnWriteArraySet al, Collections$SetFromMap m,
 *                            Collections$Synchronized* / Unmodifiable* m or c
 * A class may have several rows: the first whose main field the class has
 * is taken (Properties, ConcurrentHashMap), else the next known class up.
 */
#include "decoders/heap/collections.h"
#include "decoders/core/tsv.h"
#include "decoders/heap/build.h"
#include "decoders/heap/fields.h"

#include <stdlib.h>
#include <string.h>

enum {
    F_NONE, F_SIZE, F_COUNT, F_ELEMENTCOUNT, F_TABLE, F_ELEMENTDATA, F_ELEMENTS, F_QUEUE,
    F_ARRAY, F_HEAD, F_TAIL, F_FIRST, F_HEADER, F_ROOT, F_SEGMENTS, F_MAP, F_M, F_C, F_AL,
    F_KEY, F_VALUE, F_VAL, F_REFERENT, F_NEXT, F_ITEM, F_ELEMENT, F_LEFT, F_RIGHT, F_N
};
static const char *const fnames[F_N] = {
    "", "size", "count", "elementCount", "table", "elementData", "elements", "queue",
    "array", "head", "tail", "first", "header", "root", "segments", "map", "m", "c", "al",
    "key", "value", "val", "referent", "next", "item", "element", "left", "right"};

typedef enum {
    K_HASH, K_SEGMENTS, K_IDENTITY, K_ARRAY, K_SPARSE, K_DEQUE, K_LINKED, K_TREE, K_WRAP
} kind;

typedef struct {
    const char *cls;
    uint8_t kind;
    bool map;
    uint8_t size, main; /* size field (F_NONE: counted, or the array's length);
                           main: table, array, first node or wrapped field */
    uint8_t key, value; /* entry fields */
} spec;

/* Sorted by class name (strcmp); rows of one class in the order tried. */
static const spec specs[] = {
    {"java.lang.ThreadLocal$ThreadLocalMap", K_HASH, true, F_SIZE, F_TABLE, F_REFERENT, F_VALUE},
    {"java.util.ArrayDeque", K_DEQUE, false, F_NONE, F_ELEMENTS, 0, 0},
    {"java.util.ArrayList", K_ARRAY, false, F_SIZE, F_ELEMENTDATA, 0, 0},
    {"java.util.Collections$SetFromMap", K_WRAP, false, 0, F_M, 0, 0},
    {"java.util.Collections$SynchronizedCollection", K_WRAP, false, 0, F_C, 0, 0},
    {"java.util.Collections$SynchronizedMap", K_WRAP, true, 0, F_M, 0, 0},
    {"java.util.Collections$UnmodifiableCollection", K_WRAP, false, 0, F_C, 0, 0},
    {"java.util.Collections$UnmodifiableMap", K_WRAP, true, 0, F_M, 0, 0},
    {"java.util.HashMap", K_HASH, true, F_SIZE, F_TABLE, F_KEY, F_VALUE},
    {"java.util.HashSet", K_WRAP, false, 0, F_MAP, 0, 0},
    {"java.util.Hashtable", K_HASH, true, F_COUNT, F_TABLE, F_KEY, F_VALUE},
    {"java.util.IdentityHashMap", K_IDENTITY, true, F_SIZE, F_TABLE, 0, 0},
    {"java.util.ImmutableCollections$ListN", K_ARRAY, false, F_NONE, F_ELEMENTS, 0, 0},
    {"java.util.ImmutableCollections$MapN", K_IDENTITY, true, F_SIZE, F_TABLE, 0, 0},
    {"java.util.ImmutableCollections$SetN", K_SPARSE, false, F_SIZE, F_ELEMENTS, 0, 0},
    {"java.util.LinkedList", K_LINKED, false, F_SIZE, F_FIRST, F_ITEM, 0},
    {"java.util.LinkedList", K_LINKED, false, F_SIZE, F_HEADER, F_ELEMENT, 0},
    {"java.util.PriorityQueue", K_ARRAY, false, F_SIZE, F_QUEUE, 0, 0},
    {"java.util.Properties", K_WRAP, true, 0, F_MAP, 0, 0},
    {"java.util.TreeMap", K_TREE, true, F_SIZE, F_ROOT, F_KEY, F_VALUE},
    {"java.util.TreeSet", K_WRAP, false, 0, F_M, 0, 0},
    {"java.util.Vector", K_ARRAY, false, F_ELEMENTCOUNT, F_ELEMENTDATA, 0, 0},
    {"java.util.WeakHashMap", K_HASH, true, F_SIZE, F_TABLE, F_REFERENT, F_VALUE},
    {"java.util.concurrent.ConcurrentHashMap", K_HASH, true, F_NONE, F_TABLE, F_KEY, F_VAL},
    {"java.util.concurrent.ConcurrentHashMap", K_SEGMENTS, true, F_COUNT, F_SEGMENTS, F_KEY, F_VALUE},
    {"java.util.concurrent.CopyOnWriteArrayList", K_ARRAY, false, F_NONE, F_ARRAY, 0, 0},
    {"java.util.concurrent.CopyOnWriteArraySet", K_WRAP, false, 0, F_AL, 0, 0},
};
#define N_SPECS G_N_ELEMENTS(specs)
#define WRAP_DEPTH 4 /* wrappers of wrappers followed at most */

bool hf_hcoll_table_sorted(void)
{
    for (size_t i = 1; i < N_SPECS; i++)
        if (strcmp(specs[i - 1].cls, specs[i].cls) > 0)
            return false;
    return true;
}

struct hf_hcolls {
    const hf_heap *h;
    const hf_hsnap *sn;
    GHashTable *memo; /* (class << 8 | what) + 1 -> answer + 1 (see fidx, resolve) */
};

hf_hcolls *hf_hcolls_new(const hf_heap *h, const hf_hsnap *sn)
{
    G_STATIC_ASSERT(sizeof(gsize) >= 8);
    hf_hcolls *cc = g_new0(hf_hcolls, 1);
    cc->h = h;
    cc->sn = sn;
    cc->memo = g_hash_table_new(g_direct_hash, g_direct_equal);
    return cc;
}

void hf_hcolls_free(hf_hcolls *cc)
{
    if (!cc)
        return;
    g_hash_table_destroy(cc->memo);
    g_free(cc);
}

/* ---- classes and fields ---- */

/* Whether class `decl` is `from` or one of its supers. */
static bool at_or_above(const hf_hsnap *sn, uint32_t decl, uint32_t from)
{
    int64_t k = from;
    for (unsigned depth = 0; k >= 0 && depth < HF_HCHAIN_MAX; depth++) {
        if ((uint64_t)k == decl)
            return true;
        k = hf_heap_class(sn, (uint64_t)k)->super;
    }
    return false;
}

int64_t hf_hfield_named(const hf_hsnap *sn, uint32_t c, const char *name, uint32_t from)
{
    if (c >= sn->classes->len)
        return -1;
    hf_hfields it;
    int64_t found = -1;
    hf_hfields_begin(&it, sn, hf_heap_class(sn, c));
    while (found < 0 && hf_hfields_next(&it))
        if (strcmp(it.f->name, name) == 0 &&
            (from == UINT32_MAX || at_or_above(sn, it.f->decl, from)))
            found = it.index;
    hf_hfields_end(&it);
    return found;
}

/* Field f of class c declared at or above `from`, remembered. */
static int64_t fidx(hf_hcolls *cc, uint32_t c, unsigned f, uint32_t from)
{
    gpointer key = GSIZE_TO_POINTER(((gsize)c << 8 | f) + 1);
    gpointer got = g_hash_table_lookup(cc->memo, key);
    if (got)
        return (int64_t)GPOINTER_TO_SIZE(got) - 2;
    int64_t i = f == F_NONE ? -1 : hf_hfield_named(cc->sn, c, fnames[f], from);
    g_hash_table_insert(cc->memo, key, GSIZE_TO_POINTER((gsize)(i + 2)));
    return i;
}

static int cmp_spec(const void *k, const void *e)
{
    return strcmp(k, ((const spec *)e)->cls);
}

/* The first row of class name `name`, or NULL. */
static const spec *spec_named(const char *name)
{
    const spec *s = bsearch(name, specs, N_SPECS, sizeof *specs, cmp_spec);
    while (s && s > specs && strcmp(s[-1].cls, name) == 0)
        s--;
    return s;
}

bool hf_hcoll_class(const hf_hsnap *sn, uint32_t c)
{
    int64_t k = c < sn->classes->len ? (int64_t)c : -1;
    for (unsigned depth = 0; k >= 0 && depth < HF_HCHAIN_MAX; depth++) {
        const hf_hclass *hc = hf_heap_class(sn, (uint64_t)k);
        if (!hc->elem && spec_named(hc->name))
            return true;
        k = hc->super;
    }
    return false;
}

/* The row that reads class c and the known class `*known` it names, or
 * NULL; remembered per class. */
static const spec *resolve(hf_hcolls *cc, uint32_t c, uint32_t *known)
{
    gpointer key = GSIZE_TO_POINTER(((gsize)c << 8 | 0xff) + 1);
    gpointer got = g_hash_table_lookup(cc->memo, key);
    if (got) {
        gsize v = GPOINTER_TO_SIZE(got) - 1;
        *known = (uint32_t)(v >> 8);
        return (v & 0xff) == 0xff ? NULL : &specs[v & 0xff];
    }
    const spec *found = NULL;
    int64_t k = c < cc->sn->classes->len ? (int64_t)c : -1;
    for (unsigned depth = 0; !found && k >= 0 && depth < HF_HCHAIN_MAX; depth++) {
        const hf_hclass *hc = hf_heap_class(cc->sn, (uint64_t)k);
        const spec *s = hc->elem ? NULL : spec_named(hc->name);
        for (; s && s < specs + N_SPECS && strcmp(s->cls, hc->name) == 0 && !found; s++)
            if (fidx(cc, c, s->main, (uint32_t)k) >= 0) {
                found = s;
                *known = (uint32_t)k;
            }
        k = hc->super;
    }
    gsize v = found ? ((gsize)*known << 8 | (gsize)(found - specs)) : 0xff;
    g_hash_table_insert(cc->memo, key, GSIZE_TO_POINTER(v + 1));
    return found;
}

/* ---- values ---- */

static bool decode_id(hf_hcolls *cc, uint64_t id, hf_hobj *ob)
{
    int64_t o = id ? hf_heap_find_id(cc->h, cc->sn, id) : -1;
    return o >= 0 && hf_heap_decode(cc->h, cc->sn, (uint64_t)o, ob);
}

/* Field f of instance ob (declared at or above `from`), 0 when none. */
static uint64_t get(hf_hcolls *cc, const hf_hobj *ob, unsigned f, uint32_t from)
{
    uint64_t v = 0;
    int64_t i = ob->kind == HF_K_INSTANCE ? fidx(cc, ob->cls, f, from) : -1;
    if (i < 0 || !hf_heap_field(cc->h, cc->sn, ob, (uint32_t)i, &v))
        return 0;
    return v;
}

static bool has(hf_hcolls *cc, const hf_hobj *ob, unsigned f)
{
    return ob->kind == HF_K_INSTANCE && fidx(cc, ob->cls, f, UINT32_MAX) >= 0;
}

static int64_t get_int(hf_hcolls *cc, const hf_hobj *ob, unsigned f, uint32_t from)
{
    return (int32_t)(uint32_t)get(cc, ob, f, from);
}

/* The object array named by field f of ob, decoded; false when none. */
static bool get_array(hf_hcolls *cc, const hf_hobj *ob, unsigned f, uint32_t from, hf_hobj *arr)
{
    return decode_id(cc, get(cc, ob, f, from), arr) && arr->kind == HF_K_OBJARRAY;
}

static uint64_t slots_bytes(hf_hcolls *cc, uint64_t n)
{
    return hf_heap_array_size(cc->h, HF_T_OBJECT, n);
}

/* ---- entries ---- */

typedef struct {
    hf_hcoll_entry_fn fn;
    void *ud;
    uint64_t seen, budget; /* entries met; nodes a walk may visit at most */
    bool stop;
} walk;

/* Steps a walk may take: a tree takes two per node, and no collection has
 * more nodes than the snapshot has objects; a loop in a damaged dump ends. */
#define WALK_BUDGET(cc) (2 * (cc)->sn->n_objects + 2)

static void emit(walk *w, uint64_t key, uint64_t value)
{
    w->seen++;
    if (w->fn && !w->stop && !w->fn(key, value, w->ud))
        w->stop = true;
}

/* A hash bucket's chain from node id. */
static void walk_chain(hf_hcolls *cc, uint64_t id, const spec *s, walk *w)
{
    hf_hobj n;
    while (id && !w->stop && w->budget && w->budget-- && decode_id(cc, id, &n) &&
           n.kind == HF_K_INSTANCE) {
        if (!has(cc, &n, s->key)) {
            id = has(cc, &n, F_FIRST) ? get(cc, &n, F_FIRST, UINT32_MAX) : 0; /* a TreeBin */
            continue;
        }
        emit(w, get(cc, &n, s->key, UINT32_MAX), get(cc, &n, s->value, UINT32_MAX));
        id = get(cc, &n, F_NEXT, UINT32_MAX);
    }
}

static void walk_table(hf_hcolls *cc, const hf_hobj *table, const spec *s, walk *w)
{
    for (uint64_t i = 0; i < table->length && !w->stop; i++)
        walk_chain(cc, hf_heap_element(cc->h, table, i), s, w);
}

/* A TreeMap's entries in key order: left, the node, right. */
static void walk_tree(hf_hcolls *cc, uint64_t root, const spec *s, walk *w)
{
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    uint64_t id = root;
    hf_hobj n;
    while ((id || stack->len) && !w->stop && w->budget && w->budget--) {
        if (id) {
            g_array_append_val(stack, id);
            id = decode_id(cc, id, &n) ? get(cc, &n, F_LEFT, UINT32_MAX) : 0;
            continue;
        }
        id = g_array_index(stack, uint64_t, stack->len - 1);
        g_array_set_size(stack, stack->len - 1);
        if (!decode_id(cc, id, &n))
            break;
        emit(w, get(cc, &n, s->key, UINT32_MAX), get(cc, &n, s->value, UINT32_MAX));
        id = get(cc, &n, F_RIGHT, UINT32_MAX);
    }
    g_array_free(stack, TRUE);
}

/* A LinkedList's items: from `first` to null (JDK 7+), or from the
 * header's next round to the header (JDK 6). */
static void walk_linked(hf_hcolls *cc, const hf_hobj *ob, const spec *s, uint32_t known, walk *w)
{
    uint64_t head = get(cc, ob, s->main, known), id = head;
    hf_hobj n;
    if (s->main == F_HEADER)
        id = decode_id(cc, head, &n) ? get(cc, &n, F_NEXT, UINT32_MAX) : 0;
    while (id && id != (s->main == F_HEADER ? head : 0) && !w->stop && w->budget && w->budget-- &&
           decode_id(cc, id, &n)) {
        emit(w, get(cc, &n, s->key, UINT32_MAX), 0);
        id = get(cc, &n, F_NEXT, UINT32_MAX);
    }
}

/* ---- one collection ---- */

/* Figures (and, with w->fn, entries) of ob read by row s of known class
 * `known`; depth counts wrappers. */
static bool collection(hf_hcolls *cc, const hf_hobj *ob, hf_hcoll *out, walk *w, unsigned depth);

static bool read_as(hf_hcolls *cc, const hf_hobj *ob, const spec *s, uint32_t known,
                    hf_hcoll *out, walk *w, unsigned depth)
{
    hf_hobj arr;
    memset(out, 0, sizeof *out);
    out->map = s->map;
    out->bytes = hf_heap_shallow(cc->h, cc->sn, ob);
    bool has_arr = s->kind != K_LINKED && s->kind != K_TREE && s->kind != K_WRAP &&
                   get_array(cc, ob, s->main, known, &arr);
    if (has_arr) {
        out->array = arr.id;
        out->capacity = arr.length;
        if (arr.length)
            out->bytes += hf_heap_shallow(cc->h, cc->sn, &arr);
    }
    uint64_t need = 0; /* slots an exact copy would have */
    switch (s->kind) {
    case K_HASH:
        if (has_arr && (s->size == F_NONE || w->fn))
            walk_table(cc, &arr, s, w);
        out->size = s->size == F_NONE ? w->seen : (uint64_t)MAX(0, get_int(cc, ob, s->size, known));
        need = out->size;
        break;
    case K_SEGMENTS:
        out->capacity = 0; /* the segments' tables' */
        for (uint64_t i = 0; has_arr && i < arr.length && !w->stop; i++) {
            hf_hobj seg, table;
            if (!decode_id(cc, hf_heap_element(cc->h, &arr, i), &seg))
                continue;
            uint64_t count = (uint64_t)MAX(0, get_int(cc, &seg, F_COUNT, UINT32_MAX));
            out->size += count;
            out->bytes += hf_heap_shallow(cc->h, cc->sn, &seg);
            if (!get_array(cc, &seg, F_TABLE, UINT32_MAX, &table))
                continue;
            out->capacity += table.length;
            out->wasted += slots_bytes(cc, table.length) - slots_bytes(cc, MIN(table.length, count));
            out->bytes += hf_heap_shallow(cc->h, cc->sn, &table);
            if (w->fn)
                walk_table(cc, &table, s, w);
        }
        out->array = 0;
        return true;
    case K_IDENTITY:
        out->capacity /= 2;
        out->size = (uint64_t)MAX(0, get_int(cc, ob, s->size, known));
        need = 2 * out->size;
        for (uint64_t i = 0; has_arr && w->fn && i + 1 < arr.length && !w->stop; i += 2) {
            uint64_t k = hf_heap_element(cc->h, &arr, i);
            if (k)
                emit(w, k, hf_heap_element(cc->h, &arr, i + 1));
        }
        break;
    case K_ARRAY:
        out->size = s->size == F_NONE ? out->capacity
                                      : (uint64_t)MAX(0, get_int(cc, ob, s->size, known));
        need = out->size;
        for (uint64_t i = 0; has_arr && w->fn && i < MIN(out->size, arr.length) && !w->stop; i++)
            emit(w, hf_heap_element(cc->h, &arr, i), 0);
        break;
    case K_SPARSE: /* open addressing: the non-null slots */
        out->size = (uint64_t)MAX(0, get_int(cc, ob, s->size, known));
        need = out->size;
        for (uint64_t i = 0; has_arr && w->fn && i < arr.length && !w->stop; i++) {
            uint64_t e = hf_heap_element(cc->h, &arr, i);
            if (e)
                emit(w, e, 0);
        }
        break;
    case K_DEQUE: {
        int64_t len = has_arr ? (int64_t)arr.length : 0;
        int64_t head = get_int(cc, ob, F_HEAD, known), tail = get_int(cc, ob, F_TAIL, known);
        out->size = len ? (uint64_t)(((tail - head) % len + len) % len) : 0;
        need = out->size;
        for (uint64_t i = 0; w->fn && i < out->size && !w->stop; i++)
            emit(w, hf_heap_element(cc->h, &arr, ((uint64_t)MAX(0, head) + i) % (uint64_t)len), 0);
        break;
    }
    case K_LINKED:
    case K_TREE:
        out->size = out->capacity = (uint64_t)MAX(0, get_int(cc, ob, s->size, known));
        if (w->fn && s->kind == K_LINKED)
            walk_linked(cc, ob, s, known, w);
        else if (w->fn)
            walk_tree(cc, get(cc, ob, s->main, known), s, w);
        return true;
    case K_WRAP: {
        hf_hobj inner;
        uint64_t own = out->bytes;
        if (depth >= WRAP_DEPTH || !decode_id(cc, get(cc, ob, s->main, known), &inner) ||
            !collection(cc, &inner, out, w, depth + 1))
            memset(out, 0, sizeof *out);
        out->bytes += own;
        out->map = s->map;
        return true;
    }
    }
    uint64_t slots = s->kind == K_IDENTITY ? 2 * out->capacity : out->capacity;
    if (slots > need)
        out->wasted = slots_bytes(cc, slots) - slots_bytes(cc, need);
    return true;
}

/* A set's entries are its map's keys: values dropped on the way up. */
typedef struct {
    hf_hcoll_entry_fn fn;
    void *ud;
} keys_only;

static bool key_only(uint64_t key, uint64_t value, void *ud)
{
    keys_only *k = ud;
    return k->fn(key, 0, k->ud);
}

static bool collection(hf_hcolls *cc, const hf_hobj *ob, hf_hcoll *out, walk *w, unsigned depth)
{
    uint32_t known = 0;
    const spec *s = ob->kind == HF_K_INSTANCE ? resolve(cc, ob->cls, &known) : NULL;
    if (!s)
        return false;
    if (s->kind != K_WRAP || s->map || !w->fn)
        return read_as(cc, ob, s, known, out, w, depth);
    keys_only k = {w->fn, w->ud};
    walk inner = *w;
    inner.fn = key_only;
    inner.ud = &k;
    bool ok = read_as(cc, ob, s, known, out, &inner, depth);
    w->seen = inner.seen;
    w->stop = inner.stop;
    return ok;
}

bool hf_hcoll_measure(hf_hcolls *cc, const hf_hobj *ob, hf_hcoll *out)
{
    walk w = {NULL, NULL, 0, WALK_BUDGET(cc), false};
    return collection(cc, ob, out, &w, 0);
}

bool hf_hcoll_entries(hf_hcolls *cc, const hf_hobj *ob, hf_hcoll_entry_fn fn, void *ud)
{
    hf_hcoll c;
    walk w = {fn, ud, 0, WALK_BUDGET(cc), false};
    return collection(cc, ob, &c, &w, 0);
}

/* ---- descriptions ---- */

static const char *const boxes[] = {
    "java.lang.Boolean", "java.lang.Byte", "java.lang.Character", "java.lang.Double",
    "java.lang.Float", "java.lang.Integer", "java.lang.Long", "java.lang.Short"};
static const uint8_t box_types[] = {HF_T_BOOLEAN, HF_T_BYTE, HF_T_CHAR, HF_T_DOUBLE,
                                    HF_T_FLOAT, HF_T_INT, HF_T_LONG, HF_T_SHORT};

unsigned hf_heap_box_class(const hf_hclass *c)
{
    if (c->elem || strncmp(c->name, "java.lang.", 10) != 0)
        return 0;
    for (unsigned i = 0; i < G_N_ELEMENTS(boxes); i++)
        if (strcmp(c->name, boxes[i]) == 0)
            return box_types[i];
    return 0;
}

bool hf_heap_boxed(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob, unsigned *type,
                   uint64_t *bits)
{
    if (ob->kind != HF_K_INSTANCE || !(*type = hf_heap_box_class(hf_heap_class(sn, ob->cls))))
        return false;
    int64_t f = hf_hfield_named(sn, ob->cls, "value", UINT32_MAX);
    return f >= 0 && hf_heap_field(h, sn, ob, (uint32_t)f, bits);
}

#define DESCRIBE_TEXT_MAX 80

/* "int[100]" for an int[] of 100, "java.lang.Object[3][]" for an outer
 * array of 3. */
static void append_array_name(const char *dir, uint64_t length, GString *out)
{
    const char *dims = strstr(dir, "[]");
    if (!dims) {
        g_string_append(out, dir);
        return;
    }
    g_string_append_len(out, dir, dims - dir);
    g_string_append_printf(out, "[%" G_GUINT64_FORMAT "]%s", (guint64)length, dims + 2);
}

static void describe_instance(hf_hcolls *cc, const hf_hobj *ob, GString *d)
{
    const hf_hclass *c = hf_heap_class(cc->sn, ob->cls);
    unsigned type;
    uint64_t bits;
    hf_hcoll coll;
    if (ob->cls == cc->sn->string_class) {
        GString *t = g_string_new(NULL);
        hf_heap_text(cc->h, cc->sn, ob, t);
        const char *cut = t->str;
        for (unsigned n = 0; *cut && n < DESCRIBE_TEXT_MAX; n++)
            cut = g_utf8_find_next_char(cut, NULL);
        g_string_append_c(d, '"');
        g_string_append_len(d, t->str, cut - t->str);
        g_string_append(d, *cut ? "\"..." : "\"");
        g_string_free(t, TRUE);
    } else if (hf_heap_boxed(cc->h, cc->sn, ob, &type, &bits)) {
        g_string_append_printf(d, "%s(", c->name + 10);
        hf_heap_format_value(d, type, bits);
        g_string_append_c(d, ')');
    } else if (hf_hcoll_measure(cc, ob, &coll)) {
        g_string_append_printf(d, "%s size=%" G_GUINT64_FORMAT, c->dir, (guint64)coll.size);
    } else {
        g_string_append(d, c->dir);
    }
}

void hf_heap_describe(hf_hcolls *cc, uint64_t id, GString *out)
{
    GString *d = g_string_new(NULL);
    hf_heap_describe_raw(cc, id, d);
    hf_tsv_text(out, d->str, d->len);
    g_string_free(d, TRUE);
}

void hf_heap_describe_raw(hf_hcolls *cc, uint64_t id, GString *d)
{
    hf_hobj ob;
    if (!id) {
        g_string_append(d, "null");
    } else if (!decode_id(cc, id, &ob)) {
        g_string_append(d, "?");
    } else if (ob.kind == HF_K_INSTANCE) {
        describe_instance(cc, &ob, d);
    } else if (ob.kind == HF_K_CLASS) {
        const hf_hclass *self = hf_heap_described(cc->sn, &ob);
        g_string_append_printf(d, "class %s", self ? self->dir : "?");
    } else {
        append_array_name(hf_heap_class(cc->sn, ob.cls)->dir, ob.length, d);
    }
}
