/*
 * heap.h - the format-neutral heap graph shared by the heap-dump decoders
 * (HPROF binary, BMD, HPROF text): its types and the queries views call.
 *
 * A heap decoder embeds hf_heap first in its dump, fills it while indexing
 * (build.h: classes, a compact object index, roots, traces, threads) and
 * supplies a small codec (hf_heap_codec) that knows how to read one object
 * back from the file.  The layer does the rest: display names of classes,
 * field layouts, the size rule, the histogram, and the renderers and
 * model ops of classes, objects, roots, strings, traces and threads
 * (render.h), to which a decoder's ops table points.
 *
 * Three headers, by who uses them:
 *   heap.h    the graph's types and the queries (this file): everyone;
 *   build.h   filling the graph at open (hf_heap_init .. hf_heap_finish,
 *             object runs, layout evidence): the format scanners;
 *   render.h  the model ops, views and tables of parts a format's ops
 *             table points at, and the helpers its own views share.
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
 * Thread safety: building (build.h) is single threaded, inside the
 * decoder's open(), except that key tables and runs may be filled on
 * scanning threads, each by one.  After that the structure is never
 * written again, and every query here may run on several threads at once.
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

/* One instance field a class declares.  The fields of an instance, its
 * class's and its supers', are walked with fields.h. */
typedef struct {
    const char *name;
    uint32_t decl;       /* declaring class (index) */
    uint32_t offset;     /* byte offset in the declaring class's own part of
                            the instance data (set when classes are laid out) */
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
    uint32_t *own_refs; /* offsets of the declared reference fields in the
                           class's own part, ascending; non-NULL once laid out */
    uint32_t n_own_refs;
    uint32_t *by_name;  /* decl indices sorted by name, then index (fields.h) */
    uint32_t n_fields;  /* instance fields in instance-data order: declared,
                           then the super class's, and so on up (fields.h) */
    uint32_t n_refs;    /* reference fields among them */
    uint32_t data_size; /* bytes of instance data in the dump, whole chain */
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

/* Address evidence of the JVM's object layout (build.h says how it is
 * noted, sizes.c what it decides).  Building only. */
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
    /* Formats whose objects carry their own named edges instead of class
     * layouts (V8), NULL for the others: refs calls fn for every reference
     * of ob that keeps its target alive (hf_heap_for_each_ref_of then
     * calls nothing else), ref_name names the one at a slot refs gave. */
    void (*refs)(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob,
                 bool (*fn)(uint64_t target, uint32_t slot, void *ud), void *ud);
    void (*ref_name)(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob, uint32_t slot,
                     char name[HF_NAME_MAX]);
} hf_heap_codec;

/* value and element for a format whose objects hold no values the layer
 * can address (HPROF text, V8): both always false. */
bool hf_codec_no_value(const hf_heap *h, unsigned t, const uint8_t **p, const uint8_t *end,
                       uint64_t *v);
bool hf_codec_no_element(const hf_heap *h, const hf_hobj *ob, uint64_t i, uint64_t *v);

/* Objects met while building, before the object index (build.h). */
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

/* Frees everything, including the hf_dump part. */
void hf_heap_clear(hf_heap *h);

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
 * (classes).  Walks each class's own reference offsets (own_refs) up the
 * superclass chain: no field lookup per call.  For retained sizes
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
/* The class a class object describes, NULL for other objects. */
const hf_hclass *hf_heap_described(const hf_hsnap *sn, const hf_hobj *ob);

#endif
