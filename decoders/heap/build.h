/*
 * build.h - filling the heap graph (heap.h) at open: what a heap format's
 * scanner calls, from hf_heap_init to hf_heap_finish, and the pieces of
 * the layer that build with it (keys.c, index.c, build.c, sizes.c).
 *
 * Ownership: what is added is copied or taken into the hf_heap (names are
 * interned in h->chunk, runs are taken); hf_heap_clear frees it all.
 *
 * Thread safety: single-threaded, inside the decoder's open(), except that
 * a key table (hf_hkeys), its runs (hf_hrun) and an hf_hlayout may be
 * filled on a scanning thread, each by one thread.
 */
#ifndef HF_HEAP_BUILD_H
#define HF_HEAP_BUILD_H

#include "decoders/heap/heap.h"

/* The graph empty, with the decoder's ops and codec (h->base is inited). */
void hf_heap_init(hf_heap *h, const hf_dump_ops *ops, const hf_heap_codec *codec,
                  const char *path, GMappedFile *map, unsigned id_size);
hf_hsnap *hf_heap_add_snap(hf_heap *h);
const char *hf_heap_intern(hf_heap *h, const char *s, size_t len);

void hf_hpairs_grow(hf_hpairs *p);
/* Sort n {id, loc} pairs by id, stably (LSD radix on the id bits that vary). */
void hf_hpairs_sort(uint64_t *v, size_t n);
/* Add an object at a locator (< 2^40) while scanning: no call, no malloc
 * in the common case. */
static inline void hf_heap_add_object(hf_hsnap *sn, uint64_t id, uint64_t loc, bool is_class)
{
    hf_hpairs *p = &sn->tmp[is_class];
    if (G_UNLIKELY(p->len == p->cap))
        hf_hpairs_grow(p);
    p->v[2 * p->len] = id;
    p->v[2 * p->len + 1] = loc;
    p->len++;
}

/*
 * Objects classified while scanning (HPROF), so that hf_heap_finish need
 * not read every record back.  A scanning thread keys each object by what
 * decides its class: instance or object array and the class id, or
 * primitive array and the element type as the record states it.  A key
 * table (hf_hkeys, one per thread and snapshot) numbers the keys in the
 * order met and sums, per key, what the size rule needs once it is decided:
 * the count, and for arrays the summed lengths and the count by length
 * mod 256 (the padding of align(header + length * size) depends on nothing
 * else, alignments being powers of two up to 256).  Objects go into runs
 * (hf_hrun) as one word loc | key << HF_LOC_BITS each: the id is not kept,
 * it is in the record at loc (codec->object_id), and runs are split in
 * chunks so that hf_heap_finish frees each as soon as it is indexed; the
 * runs and the index never hold all objects at once (about 9 bytes per
 * object at the peak, not 25).  hf_heap_finish resolves a key to its class
 * at the key's first object in id order, so classes the dump lacks are
 * made up, and reported, in the order they always were.  A table and its
 * runs are written by one thread; hf_heap_add_run is single-threaded.  A
 * snapshot's runs may refer to at most 255 tables (so that every key
 * number of the snapshot fits below HF_HKEY_NONE).
 */
#define HF_LOC_BITS 40
#define HF_HKEY_NONE 0xFFFFFFu /* not keyed: finish reads the record back */

typedef struct {
    uint64_t class_id;        /* instances, object arrays */
    uint8_t kind, elem;       /* hf_okind; primitive arrays: element type */
    uint64_t count, sum_len;  /* objects; arrays: their summed lengths */
    uint64_t *by_len;         /* arrays: count by length mod 256 */
    uint64_t gap, gap_n, gap_all; /* instances: the least distance from one to the
                                     object after it in the file, how many had it,
                                     and how many had an object after them */
} hf_hkey;

typedef struct {
    uint64_t id;     /* class id, or element type */
    uint32_t key1;   /* key number + 1; 0: a free slot */
    uint32_t kind;
} hf_hslot;

typedef struct {
    GArray *keys;      /* hf_hkey, by key number */
    hf_hslot *slots;   /* open addressing, at most half full */
    uint32_t mask;     /* number of slots - 1 */
    uint32_t n_arrays; /* keys with by_len */
} hf_hkeys;

hf_hkeys *hf_hkeys_new(void);
void hf_hkeys_free(hf_hkeys *k);
/* The key of an object (kind, class_id for instances and object arrays,
 * elem and len for arrays), counted; HF_HKEY_NONE when the table is full. */
uint32_t hf_hkeys_note(hf_hkeys *k, unsigned kind, uint64_t class_id, unsigned elem,
                       uint64_t len);

/* Note that the instance keyed `key` at address id is followed, in the
 * file, by an object at address next (evidence of its class's size for
 * hf_heap_size_by_gaps). */
static inline void hf_hkeys_gap(hf_hkeys *t, uint32_t key, uint64_t id, uint64_t next)
{
    if (key == HF_HKEY_NONE || next <= id)
        return; /* a new space or region: no evidence */
    hf_hkey *k = &g_array_index(t->keys, hf_hkey, key);
    uint64_t gap = next - id;
    k->gap_all++;
    if (!k->gap_n || gap < k->gap)
        k->gap = gap, k->gap_n = 1;
    else if (gap == k->gap)
        k->gap_n++;
}

/* A run's word i is chunk[i >> HF_RUN_BITS][i & HF_RUN_MASK]; the first
 * chunk grows up to full size, the others are allocated full (8 MiB). */
#define HF_RUN_BITS 20
#define HF_RUN_MASK ((UINT64_C(1) << HF_RUN_BITS) - 1)

typedef struct {
    uint64_t **chunk;   /* words loc | key << HF_LOC_BITS, file order; a
                           chunk already indexed is freed and NULL */
    uint32_t n_chunks;
    uint64_t len;
    uint64_t cap0;      /* words the first chunk holds */
    hf_hkeys *keys;     /* what the keys refer to (not owned) */
    uint64_t first_id, max_id, or_ids;
    bool unsorted;      /* ids not strictly ascending */
} hf_hrun;

void hf_hrun_grow(hf_hrun *r);
void hf_hrun_free(hf_hrun *r); /* r and its chunks */

static inline uint64_t hf_hrun_word(const hf_hrun *r, uint64_t i)
{
    return r->chunk[i >> HF_RUN_BITS][i & HF_RUN_MASK];
}

static inline void hf_hrun_add(hf_hrun *r, uint64_t id, uint64_t loc, uint32_t key)
{
    if (G_UNLIKELY(r->len == (r->n_chunks > 1 ? (uint64_t)r->n_chunks << HF_RUN_BITS : r->cap0)))
        hf_hrun_grow(r);
    if (!r->len)
        r->first_id = id;
    else if (id <= r->max_id)
        r->unsorted = true;
    r->max_id = id > r->max_id ? id : r->max_id;
    r->or_ids |= id;
    r->chunk[r->len >> HF_RUN_BITS][r->len & HF_RUN_MASK] = loc | (uint64_t)key << HF_LOC_BITS;
    r->len++;
}

/* The keys of a snapshot's runs, numbered across their tables. */
typedef struct {
    hf_hkey **key; /* by number (g_free it) */
    uint32_t n;
} hf_hkeyset;
/* For hf_heap_finish (index.c): sn's object index, every object once in id
 * order (the first record of an id that repeats: the others reported):
 * locs, samples, n_objects, and in cls each object's key number in *ks, or
 * HF_HKEY_NONE where its record must be read back.  Frees sn's pairs and
 * runs.  Returns the number of objects. */
uint64_t hf_heap_index_objects(hf_heap *h, hf_hsnap *sn, hf_hkeyset *ks);
void hf_heap_free_runs(hf_hsnap *sn);

/* Hand a run of snapshot sn's objects over, in file order (takes r and its
 * pairs; r->keys must live until hf_heap_finish returns).  A snapshot's
 * objects other than class objects come either all in runs or all by
 * hf_heap_add_object. */
void hf_heap_add_run(hf_hsnap *sn, hf_hrun *r);

/* Add a class.  c->name is the display name; decl/statics arrays are
 * copied.  Returns its index.  Duplicate ids: the first one wins (the
 * problem is the caller's to report). */
uint32_t hf_heap_add_class(hf_heap *h, hf_hsnap *sn, const hf_hclass *c);

/* Turn a JVM internal class name (java/lang/String, [I, [Ljava/lang/Object;)
 * into the display name (java.lang.String, int[], java.lang.Object[]).
 * Returns an interned string (building only).  The _append form is pure
 * and thread-safe. */
const char *hf_heap_display_name(hf_heap *h, const char *internal, size_t len);
void hf_heap_display_name_append(GString *out, const char *internal, size_t len);

/* After everything was added: decide the size rule (from the largest object
 * id of all snapshots); per snapshot synthesize missing array classes and
 * java.lang.Class, resolve supers, lay out fields, name directories, sort
 * the object index, classify every object and build the histogram; then
 * sort traces and threads, name thread directories and fill thread names
 * from their Thread objects where the file gave none. */
void hf_heap_finish(hf_heap *h);

/* What object addresses say about the JVM's object layout (sizes.c).  In a
 * dump the JVM writes, an HPROF object id is the object's address, and the
 * heap walk writes objects in address order, mostly back to back.  The
 * decoder notes every instance and array in file order
 * (hf_heap_note_object, hf_heap_note_array); for each array followed by an
 * object at a higher address, the "slack" is the distance to that object
 * minus the array's elements: the room its header and padding took.  A
 * header bigger than the slack is impossible (the array would overlap the
 * next object); a header no bigger, and less than one alignment step
 * smaller, makes the array end exactly where the next object starts.
 * Object arrays count twice, with 4-byte and with 8-byte references. */
static inline void hf_hlayout_slack(hf_hlayout *l, int k, uint64_t room, uint64_t used)
{
    uint64_t s = room > used ? room - used : 0;
    l->slack[k][s < HF_SLACK_MAX ? s : HF_SLACK_MAX]++;
}

/* The object at id comes next after the array noted last. */
static inline void hf_hlayout_next(hf_hlayout *l, uint64_t id)
{
    if (id <= l->prev_id)
        return; /* a new space or region: no evidence */
    uint64_t room = id - l->prev_id;
    if (l->prev == 1) {
        hf_hlayout_slack(l, HF_EV_PRIM, room, l->prev_n);
    } else {
        hf_hlayout_slack(l, HF_EV_REF4, room, 4 * l->prev_n);
        hf_hlayout_slack(l, HF_EV_REF8, room, 8 * l->prev_n);
    }
}

/* Note, in file order, an instance (or any object not measured) at id.
 * Inline and allocation-free: the scan calls these once per object. */
static inline void hf_heap_note_object(hf_hlayout *l, uint64_t id)
{
    if (l->prev) {
        hf_hlayout_next(l, id);
        l->prev = 0;
    }
}

/* Note that the next object noted does not follow the last one in memory
 * (a new heap dump: another moment, objects moved). */
static inline void hf_heap_note_break(hf_hlayout *l)
{
    l->prev = 0;
}

/* Note an array at id: an object array of n elements (ref), or a
 * primitive array of n bytes of elements. */
static inline void hf_heap_note_array(hf_hlayout *l, uint64_t id, bool ref, uint64_t n)
{
    if (l->prev)
        hf_hlayout_next(l, id);
    l->prev = ref ? 2 : 1;
    l->prev_id = id;
    l->prev_n = n;
}

/* A thread's directory name into out (replacing what it held): "SERIAL",
 * or "SERIAL-NAME" with NAME escaped (names.h) and cut to 160 bytes
 * without splitting a UTF-8 sequence. */
void hf_heap_thread_dir(GString *out, uint32_t serial, const char *name);
/* ---- the size rule, for the layer's own building (build.c, sizes.c) ---- */

/* decide_rule picks the JVM's object layout from
 * what the dump shows (h->layout where the decoder noted objects, else the
 * id size and the largest id); size_class sets c->vm_extra and c->shallow
 * once c's fields are laid out (sup: its laid-out super class, or NULL). */
void hf_heap_decide_rule(hf_heap *h);
void hf_heap_size_class(hf_heap *h, hf_hsnap *sn, hf_hclass *c, const hf_hclass *sup);
/* Where object addresses prove an instance size (64-bit ids that are
 * addresses): a class some instance of which lies closer than its size to
 * the next object (objects do not overlap), or whose instances mostly lie
 * at one distance from the next, takes that distance as its size (keys:
 * the snapshot's keys, hf_hkeys_gap).  Before the histogram is counted. */
void hf_heap_size_by_gaps(hf_heap *h, hf_hsnap *sn, hf_hkey *const *keys, uint32_t n);
/* Bytes of an array of `len` elements of type elem, and of the class
 * object with id class_id (java.lang.Class's size + its statics). */
uint64_t hf_heap_array_size(const hf_heap *h, unsigned elem, uint64_t len);
/* The summed hf_heap_array_size of the arrays an hf_hkey counts. */
uint64_t hf_heap_array_bytes(const hf_heap *h, const hf_hkey *k);
uint64_t hf_heap_class_object_size(const hf_heap *h, const hf_hsnap *sn, uint64_t class_id);

#endif
