/*
 * query.c - reading the finished heap graph: the names and widths of basic
 * types and kinds, snapshots, classes, objects by index or id, decoding an
 * object back from the file, Android heap names, traces.  Calls nothing
 * else of the layer: everything else may call it.  Read-only over the
 * finished hf_heap: thread-safe.
 */
#include "decoders/heap/heap.h"
#include "decoders/core/search.h"

#include <string.h>

const char *const hf_okind_names[4] = {"instance", "object array", "primitive array", "class"};

const char *const hf_root_names[HF_ROOT_NKINDS] = {
    "unknown",        "jni-global",        "jni-local",   "java-frame",   "native-stack",
    "sticky-class",   "thread-block",      "monitor-used", "thread-object", "interned-string",
    "finalizing",     "debugger",          "reference-cleanup", "vm-internal", "jni-monitor",
    "unreachable",
};

const char *hf_btype_name(unsigned t)
{
    static const char *const n[HF_T_MAX] = {
        [HF_T_OBJECT] = "object", [HF_T_BOOLEAN] = "boolean", [HF_T_CHAR] = "char",
        [HF_T_FLOAT] = "float",   [HF_T_DOUBLE] = "double",   [HF_T_BYTE] = "byte",
        [HF_T_SHORT] = "short",   [HF_T_INT] = "int",         [HF_T_LONG] = "long",
    };
    return t < HF_T_MAX ? n[t] : NULL;
}

unsigned hf_btype_size(unsigned t, unsigned ref_size)
{
    static const unsigned sz[HF_T_MAX] = {
        [HF_T_BOOLEAN] = 1, [HF_T_CHAR] = 2, [HF_T_FLOAT] = 4, [HF_T_DOUBLE] = 8,
        [HF_T_BYTE] = 1,    [HF_T_SHORT] = 2, [HF_T_INT] = 4,  [HF_T_LONG] = 8,
    };
    if (t == HF_T_OBJECT)
        return ref_size;
    return t < HF_T_MAX ? sz[t] : 0;
}

const hf_hsnap *hf_heap_snap(const hf_heap *h, uint32_t s)
{
    return s < h->snaps->len ? &g_array_index(h->snaps, hf_hsnap, s) : NULL;
}

const hf_hclass *hf_heap_class(const hf_hsnap *sn, uint64_t c)
{
    return c < sn->classes->len ? &g_array_index(sn->classes, hf_hclass, c) : NULL;
}

int64_t hf_heap_class_by_id(const hf_hsnap *sn, uint64_t id)
{
    gpointer v = g_hash_table_lookup(sn->class_by_id, GSIZE_TO_POINTER(id));
    return v ? (int64_t)GPOINTER_TO_SIZE(v) - 1 : -1;
}

uint64_t hf_heap_object_id(const hf_heap *h, const hf_hsnap *sn, uint64_t o)
{
    return h->codec->object_id(h, hf_heap_loc(sn, o));
}

/* For hf_heap_find_id: whether object i's id is below the one looked for. */
typedef struct {
    const hf_heap *h;
    const hf_hsnap *sn;
    uint64_t id;
} id_key;

static bool id_below(const void *ud, uint64_t i)
{
    const id_key *k = ud;
    return hf_heap_object_id(k->h, k->sn, i) < k->id;
}

int64_t hf_heap_find_id(const hf_heap *h, const hf_hsnap *sn, uint64_t id)
{
    if (!sn->n_samples || id < sn->samples[0])
        return -1;
    /* the last sample <= id, then within its block of HF_SAMPLE objects,
     * reading ids back */
    uint64_t block = hf_upper_bound_u64(sn->samples, sn->n_samples, id) - 1;
    uint64_t a = block * HF_SAMPLE, b = a + HF_SAMPLE;
    if (b > sn->n_objects)
        b = sn->n_objects;
    id_key k = {h, sn, id};
    a = hf_lower_bound(a, b, id_below, &k);
    if (a < sn->n_objects && hf_heap_object_id(h, sn, a) == id)
        return (int64_t)a;
    return -1;
}

bool hf_heap_decode(const hf_heap *h, const hf_hsnap *sn, uint64_t o, hf_hobj *ob)
{
    if (o >= sn->n_objects)
        return false;
    memset(ob, 0, sizeof *ob);
    if (!h->codec->object(h, hf_heap_loc(sn, o), ob))
        return false;
    ob->cls = hf_heap_cls(sn, o);
    return true;
}

static bool switch_at_or_below(const void *ud, uint64_t i)
{
    const hf_search_key *k = ud;
    return g_array_index((const GArray *)k->a, hf_hswitch, i).loc <= k->key;
}

const char *hf_heap_heap_name(const hf_hsnap *sn, uint64_t loc)
{
    const GArray *sw = sn->heap_switch;
    hf_search_key k = {sw, loc};
    uint64_t after = hf_lower_bound(0, sw->len, switch_at_or_below, &k); /* first switch after loc */
    if (after == 0)
        return NULL;
    uint32_t heap = g_array_index(sw, hf_hswitch, after - 1).heap;
    return heap < sn->heap_names->len ? g_ptr_array_index(sn->heap_names, heap) : NULL;
}

const hf_htrace *hf_heap_trace_by_serial(const hf_heap *h, uint32_t serial)
{
    int64_t t = hf_serial_find_array(h->traces, serial);
    return t >= 0 ? &g_array_index(h->traces, hf_htrace, t) : NULL;
}
