/*
 * heap.h - the format-neutral heap graph shared by the heap-dump decoders
 * (HPROF binary, BMD, HPROF text).
 *
 * A heap decoder embeds hf_heap first in its dump, fills it while indexing
 * (classes, a compact object index, roots, traces, threads) and supplies a
 * small codec (hf_heap_codec) that knows how to read one object back from
 * the file.  Everything else is here: display names of classes, field
 * layouts, the size rule, the histogram, and the renderers and model ops of
 * classes, objects, roots, strings, traces and threads.  A decoder's ops
 * table points at the hf_heap_* functions below for what it does not do
 * itself (HF_HEAP_MODEL_OPS and HF_HEAP_GRAPH_OPS name them).
 *
 * The object index (per snapshot) is a set of packed arrays sorted by
 * object id: a 5-byte "locator" per object (for HPROF the file offset of
 * its sub-record; the id is read back from there), a 4-byte class index per
 * object, and every 64th id as a sample to narrow binary searches.  About
 * 9.1 bytes per object; nothing per object lives in a hash table.
 *
 * Ownership: everything reachable from an hf_heap belongs to it and is freed
 * by hf_heap_clear().  Names (const char *) live in h->chunk.
 *
 * Thread safety: building (hf_heap_init .. hf_heap_finish) is single
 * threaded, inside the decoder's open(), except that key tables and runs
 * (hf_hkeys, hf_hrun) may be filled on scanning threads, each by one.
 * After that the structure is never written again, and every query and
 * renderer here may run on several threads at once.
 */
#ifndef HF_HEAP_H
#define HF_HEAP_H

#include "decoders/core/model.h"

/* Basic types, with HPROF's codes (other formats map theirs to these). */
enum {
    HF_T_OBJECT = 2,
    HF_T_BOOLEAN = 4,
    HF_T_CHAR = 5,
    HF_T_FLOAT = 6,
    HF_T_DOUBLE = 7,
    HF_T_BYTE = 8,
    HF_T_SHORT = 9,
    HF_T_INT = 10,
    HF_T_LONG = 11,
    HF_T_MAX = 12
};
/* Java name of a basic type ("int"), NULL for an invalid code. */
const char *hf_btype_name(unsigned t);
/* Width of a value of type t in memory (objects: ref_size), 0 if invalid. */
unsigned hf_btype_size(unsigned t, unsigned ref_size);

/* Object kinds. */
typedef enum { HF_K_INSTANCE, HF_K_OBJARRAY, HF_K_PRIMARRAY, HF_K_CLASS } hf_okind;
extern const char *const hf_okind_names[4];

/* GC root kinds (HPROF's, including Android's). */
typedef enum {
    HF_ROOT_UNKNOWN, HF_ROOT_JNI_GLOBAL, HF_ROOT_JNI_LOCAL, HF_ROOT_JAVA_FRAME,
    HF_ROOT_NATIVE_STACK, HF_ROOT_STICKY_CLASS, HF_ROOT_THREAD_BLOCK, HF_ROOT_MONITOR_USED,
    HF_ROOT_THREAD_OBJECT, HF_ROOT_INTERNED_STRING, HF_ROOT_FINALIZING, HF_ROOT_DEBUGGER,
    HF_ROOT_REFERENCE_CLEANUP, HF_ROOT_VM_INTERNAL, HF_ROOT_JNI_MONITOR, HF_ROOT_UNREACHABLE,
    HF_ROOT_NKINDS
} hf_root_kind;
extern const char *const hf_root_names[HF_ROOT_NKINDS];

typedef struct {
    uint64_t id;
    uint64_t extra;  /* JNI GLOBAL: the global ref id; THREAD OBJECT: trace serial */
    uint32_t thread; /* thread serial, 0 when none */
    uint32_t frame;  /* frame number, UINT32_MAX when none */
    uint8_t kind;    /* hf_root_kind */
} hf_hroot;

/* One instance field of a class. */
typedef struct {
    const char *name;
    const char *refname; /* name in refs/: name, or name@Declaring when shadowed */
    uint32_t decl;       /* declaring class (index) */
    uint32_t offset;     /* byte offset in the dump's instance data */
    uint8_t type;        /* HF_T_* */
} hf_hfield;

typedef struct {
    const char *name;
    uint64_t value; /* raw bits (floats as their IEEE bits) */
    uint8_t type;
} hf_hstatic;

typedef struct {
    uint64_t id;      /* class object id; 0 for a synthesized class */
    const char *name; /* display name: java.lang.String, int[][] */
    const char *dir;  /* escaped, unique directory name */
    int64_t super;    /* class index, -1 */
    uint64_t super_id, loader_id;
    uint32_t trace;     /* stack trace serial of the class object */
    uint32_t inst_size; /* instance size as the dump states it */
    uint8_t elem;       /* array classes: element type (HF_T_*); 0 otherwise */
    bool synthetic;     /* not in the dump: made up for primitive arrays etc. */
    hf_hfield *decl;    /* declared fields, dump order */
    uint32_t n_decl;
    hf_hfield *fields; /* all instance fields in instance-data order: declared,
                          then the super class's, and so on up */
    uint32_t n_fields;
    uint32_t *ref_offs; /* data offsets of the reference fields, whole chain */
    uint32_t n_refs;
    uint32_t data_size; /* bytes of instance data in the dump */
    hf_hstatic *statics;
    uint32_t n_statics;
    uint32_t vm_extra;     /* bytes the JVM adds that the dump omits (injected
                              fields, @Contended padding), whole chain */
    uint32_t omitted;      /* bytes of this class's own instance fields that the
                              dump leaves out (BMD drops primitive fields and
                              keeps their total): set by the decoder; the size
                              rule adds them, the supers' too */
    uint64_t shallow;      /* instance size by the size rule */
    uint64_t count, bytes; /* this snapshot's instances and their bytes */
} hf_hclass;

/* An object decoded back from the file by the codec. */
typedef struct {
    uint64_t id;
    uint64_t loc;
    uint32_t cls;     /* class index (java.lang.Class for class objects) */
    uint8_t kind;     /* hf_okind */
    uint8_t elem;     /* arrays: element type */
    bool nodata;      /* array without element data (Android NODATA) */
    uint64_t length;  /* arrays: element count */
    uint32_t trace;   /* allocation stack trace serial */
    const uint8_t *data, *end; /* encoded values: instance data, elements */
} hf_hobj;

/* What the object index needs to know of an object at a locator. */
typedef struct {
    uint8_t kind;
    uint8_t elem;      /* primitive arrays */
    uint64_t class_id; /* instances and object arrays */
    uint64_t length;   /* arrays */
} hf_hshape;

typedef struct hf_heap hf_heap;
typedef struct hf_heap_pprof hf_heap_pprof; /* profile.h */
typedef struct hf_hgraphs hf_hgraphs;       /* retained.h */
typedef struct hf_htables hf_htables;       /* tables.h */
typedef struct hf_hsnap hf_hsnap;

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
#define HF_SLACK_MAX 511 /* slacks above: counted here, fit no header */
enum { HF_EV_PRIM, HF_EV_REF4, HF_EV_REF8, HF_EV_N };
typedef struct {
    uint64_t slack[HF_EV_N][HF_SLACK_MAX + 1]; /* arrays by slack, clamped */
    uint64_t prev_id; /* the array noted last, when it was the last object: */
    uint64_t prev_n;  /* its element bytes (object arrays: its length) */
    uint8_t prev;     /* 0: none, 1: a primitive array, 2: an object array */
} hf_hlayout;

/* How the size rule in force was decided (hf_heap_size_rule says it). */
typedef enum {
    HF_RULE_DEFAULT,       /* no address evidence noted (not HPROF, or no arrays) */
    HF_RULE_ADDRESSES,     /* inferred from the slacks */
    HF_RULE_NO_FIT,        /* addresses, but no array fits any layout exactly */
    HF_RULE_NOT_ADDRESSES, /* objects would overlap under every layout */
} hf_rule_basis;

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

/* Per-format access to objects in the file.  All must be thread-safe. */
typedef struct {
    /* True when values in hf_hobj.data are fixed width, big-endian, with
     * references id_size wide (HPROF): lets hot paths skip value(). */
    bool fixed_be;
    uint64_t (*object_id)(const hf_heap *h, uint64_t loc);
    bool (*shape)(const hf_heap *h, uint64_t loc, hf_hshape *out);
    /* Decode the object at loc; cls is left for the caller to fill. */
    bool (*object)(const hf_heap *h, uint64_t loc, hf_hobj *ob);
    /* Read one value of type t at *p and advance; false past end. */
    bool (*value)(const hf_heap *h, unsigned t, const uint8_t **p, const uint8_t *end,
                  uint64_t *v);
    /* Element i of array ob (random access). */
    bool (*element)(const hf_heap *h, const hf_hobj *ob, uint64_t i, uint64_t *v);
} hf_heap_codec;

typedef struct {
    uint64_t *v; /* {id, loc} pairs */
    size_t len, cap;
} hf_hpairs;

struct hf_hsnap {
    uint64_t number;     /* directory name: 1-based */
    GArray *classes;     /* hf_hclass */
    GHashTable *class_by_id;  /* id -> index + 1 */
    GHashTable *class_by_dir; /* dir name -> index + 1 */
    uint32_t *hist;      /* non-empty classes by bytes desc, then name */
    uint32_t n_hist;
    uint32_t prim_class[HF_T_MAX]; /* class of T[] per element type, UINT32_MAX */
    uint32_t class_class;  /* java.lang.Class */
    uint32_t string_class; /* java.lang.String, UINT32_MAX when absent */
    int32_t str_value, str_coder, str_offset, str_count; /* field index, -1 */
    /* the object index */
    uint64_t n_objects;
    uint8_t *locs;     /* 5 bytes (little-endian) per object, by id */
    uint32_t *cls;     /* class index per object */
    uint64_t *samples; /* id of every HF_SAMPLE-th object */
    uint64_t n_samples;
    uint64_t n_kind[4]; /* objects per hf_okind */
    uint64_t total_bytes;
    GArray *roots;  /* hf_hroot, sorted by kind, id, thread, frame */
    GPtrArray *heap_names;  /* Android: heap name per heap index (const char *) */
    GArray *heap_switch;    /* {uint64 loc, uint32 heap} ascending: objects at or
                               after loc belong to that heap */
    /* building only: {id, loc} pairs of class objects and of the others,
     * kept apart because HotSpot writes all class dumps first (in load
     * order) and then the heap in address order: the second run is then
     * already sorted and only a short merge is needed. */
    hf_hpairs tmp[2];
    /* building only, instead of tmp[0]: objects classified while scanning
     * (hf_heap_add_run), hf_hrun *, in file order */
    GPtrArray *runs;
};

typedef struct {
    uint64_t loc;
    uint32_t heap;
} hf_hswitch;

#define HF_SAMPLE 64

/* How object ids are written: 0x + lower-case hex. */
#define HF_FMT_ID "0x%" G_GINT64_MODIFIER "x"

typedef struct {
    const char *cls, *method, *sig, *source;
    int32_t line; /* >0 line, 0 none, -1 unknown, -2 compiled, -3 native */
} hf_hframe;

typedef struct {
    uint32_t serial, thread;
    uint32_t first, n; /* frames: trace_frames[first .. first+n) */
} hf_htrace;

typedef struct {
    uint32_t serial, trace;
    uint64_t obj;
    const char *name, *group, *parent; /* NULL when unknown */
    const char *dir;                   /* directory name */
    uint32_t snap;                     /* snapshot whose roots give its locals */
} hf_hthread;

/* Traces and threads are kept sorted by serial with search.h's helpers,
 * which read the serial as the first member. */
G_STATIC_ASSERT(offsetof(hf_htrace, serial) == 0);
G_STATIC_ASSERT(offsetof(hf_hthread, serial) == 0);

struct hf_heap {
    hf_dump base;
    const hf_heap_codec *codec;
    unsigned id_size;
    /* The size rule (sizes.c; hf_heap_size_rule() states it). */
    unsigned ref_size, obj_header, arr_header, align;
    bool compressed;     /* the default's guess (64-bit: all ids below 32 GiB) */
    uint8_t rule_basis;  /* hf_rule_basis */
    hf_hlayout layout;   /* address evidence, noted by the decoder (HPROF) */
    unsigned build_threads; /* threads hf_heap_finish may use (0, 1: one) */
    /* Sizes the dump states itself (HPROF agent text: sz=), NULL where it
     * states none: sets *size for the object at loc and returns true, or
     * returns false to leave it to the rule. */
    bool (*stated_size)(const hf_heap *h, uint64_t loc, uint64_t *size);
    GStringChunk *chunk; /* all names */
    GArray *snaps;       /* hf_hsnap */
    GArray *frames;      /* hf_hframe */
    GArray *trace_frames; /* uint32 frame index, UINT32_MAX when missing */
    GArray *traces;      /* hf_htrace, ascending serial */
    GArray *threads;     /* hf_hthread, ascending serial */
    /* heap.pprof and stacks.folded (profile.h): made by the decoder in open,
     * freed by hf_heap_clear. */
    hf_heap_pprof *pprof;
    /* Dominators and retained sizes per snapshot (retained.h): made empty by
     * hf_heap_finish, computed on first use, freed by hf_heap_clear. */
    hf_hgraphs *graphs;
    /* The byte counts of the tables' rows by blocks of objects (tables.h):
     * made on first use, freed by hf_heap_clear. */
    hf_htables *tables;
};

/* ---- building (single-threaded, inside open) ---- */

void hf_heap_init(hf_heap *h, const hf_dump_ops *ops, const hf_heap_codec *codec,
                  const char *path, GMappedFile *map, unsigned id_size);
void hf_heap_clear(hf_heap *h); /* frees everything, including the hf_dump part */
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
/* A thread's directory name into out (replacing what it held): "SERIAL",
 * or "SERIAL-NAME" with NAME escaped (names.h) and cut to 160 bytes
 * without splitting a UTF-8 sequence. */
void hf_heap_thread_dir(GString *out, uint32_t serial, const char *name);
/* The size rule (sizes.c).  decide_rule picks the JVM's object layout from
 * what the dump shows (h->layout where the decoder noted objects, else the
 * id size and the largest id); size_class sets c->vm_extra and c->shallow
 * once c's fields are laid out (sup: its laid-out super class, or NULL). */
void hf_heap_decide_rule(hf_heap *h);
void hf_heap_size_class(hf_heap *h, hf_hsnap *sn, hf_hclass *c, const hf_hclass *sup);
/* Bytes of an array of `len` elements of type elem, and of the class
 * object with id class_id (java.lang.Class's size + its statics). */
uint64_t hf_heap_array_size(const hf_heap *h, unsigned elem, uint64_t len);
/* The summed hf_heap_array_size of the arrays an hf_hkey counts. */
uint64_t hf_heap_array_bytes(const hf_heap *h, const hf_hkey *k);
uint64_t hf_heap_class_object_size(const hf_heap *h, const hf_hsnap *sn, uint64_t class_id);
/* Bytes of index arrays (the "index bytes" figure). */
uint64_t hf_heap_index_bytes(const hf_heap *h);
/* One line stating the size rule in force. */
void hf_heap_size_rule(const hf_heap *h, GString *out);

/* ---- queries (thread-safe) ---- */

static inline uint64_t hf_heap_loc(const hf_hsnap *sn, uint64_t o)
{
    const uint8_t *p = sn->locs + 5 * o;
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32;
}
/* The class index of object o.  The array may come from an index file
 * (persist.h) that a damaged byte was not caught in: an index out of range
 * reads as class 0, so a wrong answer, never a read outside the classes. */
static inline uint32_t hf_heap_cls(const hf_hsnap *sn, uint64_t o)
{
    uint32_t c = sn->cls[o];
    return G_LIKELY(c < sn->classes->len) ? c : 0;
}
const hf_hsnap *hf_heap_snap(const hf_heap *h, uint32_t s);
const hf_hclass *hf_heap_class(const hf_hsnap *sn, uint64_t c);
int64_t hf_heap_class_by_id(const hf_hsnap *sn, uint64_t id);
uint64_t hf_heap_object_id(const hf_heap *h, const hf_hsnap *sn, uint64_t o);
/* Object index of id, -1 when the snapshot has no such object. */
int64_t hf_heap_find_id(const hf_heap *h, const hf_hsnap *sn, uint64_t id);
bool hf_heap_decode(const hf_heap *h, const hf_hsnap *sn, uint64_t o, hf_hobj *ob);
/* Shallow size of a decoded object by the size rule. */
uint64_t hf_heap_shallow(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob);
/* Android heap name of object o, NULL when the file names no heaps. */
const char *hf_heap_heap_name(const hf_hsnap *sn, uint64_t loc);
/* Value of instance field fi (index into its class's fields) of ob. */
bool hf_heap_field(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob, uint32_t fi,
                   uint64_t *v);
/* Element i of array ob as an unsigned integer, 0 when unreadable. */
uint64_t hf_heap_element(const hf_heap *h, const hf_hobj *ob, uint64_t i);
/* Text of a java.lang.String, char[] or byte[] object, as UTF-8 appended to
 * out.  False when o has no such text. */
bool hf_heap_text(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob, GString *out);
/* Calls fn for every non-null reference of object o (instance fields,
 * object array elements, static fields of a class); stops when fn returns
 * false.  slot: the reference's position among the object's reference
 * fields (instances), the element index (arrays), the static's index
 * (classes).  Walks the class's precomputed reference offsets (ref_offs,
 * whole superclass chain): no field lookup per call.  For retained sizes
 * and paths to GC roots. */
typedef bool (*hf_heap_ref_fn)(uint64_t target, uint32_t slot, void *ud);
void hf_heap_for_each_ref(const hf_heap *h, const hf_hsnap *sn, uint64_t o, hf_heap_ref_fn fn,
                          void *ud);
/* The same for an object already decoded (hf_heap_decode). */
void hf_heap_for_each_ref_of(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob,
                             hf_heap_ref_fn fn, void *ud);
/* Appends a value of type t as the fields view shows it. */
void hf_heap_format_value(GString *out, unsigned t, uint64_t v);
const hf_htrace *hf_heap_trace_by_serial(const hf_heap *h, uint32_t serial);

/* ---- model ops (hf_dump_ops members; d is the hf_heap) ---- */

uint32_t hf_heap_n_snapshots(hf_dump *d);
uint64_t hf_heap_snapshot_number(hf_dump *d, uint32_t s);
uint64_t hf_heap_n_traces(hf_dump *d);
uint64_t hf_heap_trace_number(hf_dump *d, uint64_t t);
uint64_t hf_heap_n_threads(hf_dump *d);
void hf_heap_thread_name(hf_dump *d, uint64_t t, char name[HF_NAME_MAX]);
uint64_t hf_heap_n_classes(hf_dump *d, uint32_t s);
void hf_heap_class_name(hf_dump *d, uint32_t s, uint64_t c, char name[HF_NAME_MAX]);
int64_t hf_heap_class_find(hf_dump *d, uint32_t s, const char *name);
uint64_t hf_heap_n_objects(hf_dump *d, uint32_t s);
void hf_heap_object_name(hf_dump *d, uint32_t s, uint64_t o, char name[HF_NAME_MAX]);
/* An object id as objects/ names it (HF_FMT_ID). */
void hf_heap_id_name(uint64_t id, char name[HF_NAME_MAX]);
int64_t hf_heap_object_find(hf_dump *d, uint32_t s, const char *name);

/* hf_dump_ops members, as designated initializers, that every heap format
 * (HPROF, BMD, HPROF text) takes from the layer: the names of classes and
 * objects, their tally for growth, and the files and links of a class.
 * .status is each format's: hf_heap_graph_status (the .stats lines of the
 * retained-size graphs; include decoders/heap/retained.h), or a function
 * that adds its own lines to it (HPROF: the index file). */
#define HF_HEAP_MODEL_OPS                                                                  \
    .class_name = hf_heap_class_name, .object_name = hf_heap_object_name,                  \
    .tally = hf_heap_tally, .class_ = {hf_heap_class_files, hf_heap_class_links, NULL}

/* The further members a format takes whose snapshots, traces, threads,
 * classes and objects are all the layer's (HPROF, BMD; not HPROF text,
 * whose traces and threads are its own text, and whose classes/ and
 * objects/ exist only where a HEAP DUMP is). */
#define HF_HEAP_GRAPH_OPS                                                                  \
    .render_trace = hf_heap_view_trace, .n_snapshots = hf_heap_n_snapshots,                \
    .snapshot_number = hf_heap_snapshot_number, .n_traces = hf_heap_n_traces,              \
    .trace_number = hf_heap_trace_number, .n_threads = hf_heap_n_threads,                  \
    .thread_name = hf_heap_thread_name, .n_classes = hf_heap_n_classes,                    \
    .class_find = hf_heap_class_find, .n_objects = hf_heap_n_objects,                      \
    .object_find = hf_heap_object_find, .thread = {.files = hf_heap_thread_files}

/* ---- comparing snapshots (tally.c; core/compare.h) ---- */

/* hf_dump_ops.tally: classes by escaped display name (no @0xID suffix). */
bool hf_heap_tally(hf_dump *d, uint32_t s, bool retained, hf_tally_fn fn, void *ud);
/* hf_dump_ops.text: java.lang.String objects, as `strings` shows them. */
bool hf_heap_text_of(hf_dump *d, uint32_t s, uint64_t o, GString *out);

/* ---- the parts of classes, objects and threads (parts.c: the tables) ---- */

extern const hf_file hf_heap_class_files[];
extern const hf_link hf_heap_class_links[];
extern const hf_file hf_heap_object_files[];
extern const hf_link hf_heap_object_links[];
extern const hf_linkdir hf_heap_object_dirs[];
extern const hf_file hf_heap_thread_files[];

/* Their pieces, for decoders that declare tables of their own.  Views
 * follow the render protocol (model.h); has/link/entry/find follow the
 * hf_file, hf_link and hf_linkdir members. */
uint64_t hf_heap_view_class_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                 size_t budget);
uint64_t hf_heap_view_class_fields(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget);
uint64_t hf_heap_view_class_statics(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                    size_t budget);
uint64_t hf_heap_view_class_instances(hf_dump *d, const hf_view *v, uint64_t first,
                                      GString *out, size_t budget);
bool hf_heap_has_class_statics(hf_dump *d, uint32_t s, uint64_t c);
bool hf_heap_has_class_instances(hf_dump *d, uint32_t s, uint64_t c);
bool hf_heap_link_super(hf_dump *d, uint32_t s, uint64_t c, hf_target *to);

uint64_t hf_heap_view_object_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget);
uint64_t hf_heap_view_object_fields(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                    size_t budget);
uint64_t hf_heap_view_object_value(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget);
bool hf_heap_has_object_fields(hf_dump *d, uint32_t s, uint64_t o);
bool hf_heap_has_object_value(hf_dump *d, uint32_t s, uint64_t o);
bool hf_heap_link_class(hf_dump *d, uint32_t s, uint64_t o, hf_target *to);
bool hf_heap_has_refs(hf_dump *d, uint32_t s, uint64_t o);
hf_ref_status hf_heap_refs_entry(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                                 char name[HF_NAME_MAX], hf_target *to);
int64_t hf_heap_refs_find(hf_dump *d, uint32_t s, uint64_t o, const char *name);
/* The class a class object describes, NULL for other objects. */
const hf_hclass *hf_heap_described(const hf_hsnap *sn, const hf_hobj *ob);

uint64_t hf_heap_view_thread_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget);
uint64_t hf_heap_view_thread_stack(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget);
/* traces/N (ops.render_trace). */
uint64_t hf_heap_view_trace(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget);

/* ---- what keeps objects alive (dominators.c; retained.h computes) ---- */

uint64_t hf_heap_view_dominators(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                 size_t budget);
uint64_t hf_heap_view_histogram_retained(hf_dump *d, const hf_view *v, uint64_t first,
                                         GString *out, size_t budget);
uint64_t hf_heap_view_suspects(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                               size_t budget);
uint64_t hf_heap_view_unreachable(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget);
uint64_t hf_heap_view_duplicates(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                 size_t budget);
uint64_t hf_heap_view_class_retained(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                     size_t budget);
uint64_t hf_heap_view_object_retained(hf_dump *d, const hf_view *v, uint64_t first,
                                      GString *out, size_t budget);
uint64_t hf_heap_view_object_path(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget);
bool hf_heap_link_dominator(hf_dump *d, uint32_t s, uint64_t o, hf_target *to);
bool hf_heap_has_always(hf_dump *d, uint32_t s, uint64_t index);
hf_ref_status hf_heap_referrers_entry(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                                      char name[HF_NAME_MAX], hf_target *to);
int64_t hf_heap_referrers_find(hf_dump *d, uint32_t s, uint64_t o, const char *name);
hf_ref_status hf_heap_dominated_entry(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                                      char name[HF_NAME_MAX], hf_target *to);
int64_t hf_heap_dominated_find(hf_dump *d, uint32_t s, uint64_t o, const char *name);

/* Table rows every heap format's snapshot and object tables include. */
#define HF_HEAP_RETAINED_SNAP_FILES                                                        \
    {"dominators", hf_heap_view_dominators, NULL},                                          \
        {"histogram-retained", hf_heap_view_histogram_retained, NULL},                      \
        {"suspects", hf_heap_view_suspects, NULL}, {"unreachable", hf_heap_view_unreachable, NULL}
#define HF_HEAP_RETAINED_OBJECT_FILES                                                      \
    {"retained", hf_heap_view_object_retained, NULL}, {"path", hf_heap_view_object_path, NULL}

/* ---- snapshot views (render.c; profile.c: heap.pprof, stacks.folded) ---- */

uint64_t hf_heap_view_pprof(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget);
uint64_t hf_heap_view_folded(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget);
/* heap.pb.gz: heap.pprof's samples as gzipped protobuf (pprof/proto.h). */
uint64_t hf_heap_view_pb(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                         size_t budget);

uint64_t hf_heap_view_histogram(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                size_t budget);
uint64_t hf_heap_view_roots(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget);
uint64_t hf_heap_view_strings(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget);
/* Append text as one line of a view: newline, CR, backslash and NUL become
 * \n, \r, \\ and \0 (a NUL would make grep call the file binary). */
void hf_heap_escape_line(GString *out, const char *s, size_t n);
/* The heap part of a snapshot's info. */
void hf_heap_render_snap_info(hf_heap *h, uint32_t s, GString *out);
/* Appends frame fi (an index into h->frames) as the HPROF agent writes it,
 * "pkg.Class.method(File.java:12)", or without the part in parentheses
 * when not full; "<unknown frame>" when the dump lacks the frame. */
void hf_heap_frame_text(const hf_heap *h, uint32_t fi, bool full, GString *out);
/* One trace in the HPROF agent's form (no trailing blank line). */
void hf_heap_render_trace(const hf_heap *h, const hf_htrace *t, GString *out);
/* The counts lines of MOUNT/info: snapshots, then classes, objects,
 * traces, threads and roots summed over snapshots. */
void hf_heap_render_counts(const hf_heap *h, GString *out);

#endif
