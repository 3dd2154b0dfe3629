/*
 * v8.h - V8 heap snapshots (.heapsnapshot: Node.js, Chrome DevTools),
 * plain or gzipped, one file or several of one process: the decoder's
 * shared parts.  The format and what the tree shows: docs/formats.md.
 *
 *   json.c     a focused scanner for the one JSON shape V8 writes (why not
 *              a general parser: at the top of json.c)
 *   snap.c     a snapshot's strings and edge names, decoded on demand; free
 *   scan.c     one file into one snapshot: meta, nodes, edges, strings,
 *              checked; then what DevTools derives before it computes
 *              dominators (user roots, page-owned flags, shallow sizes moved
 *              to owners, essential edges, nodes with no strong retainer)
 *   heap.c     the snapshots on the heap layer (decoders/heap/): classes by
 *              DevTools' class name, objects by node id, the codec
 *   decoder.c  detect, open (one file or a series), the ops and tables
 *   classes.c  DevTools' DOM state and interfaces ("{a, b}") of plain objects
 *   derive.c   (scan.c's second half) what DevTools derives before its
 *              dominators
 *   render.c   V8's own views: info, roots, strings, detached DOM nodes,
 *              objects new since the previous snapshot, leak candidates,
 *              class info
 *   objects.c  objects/0xID/: info, edges, value, refs/
 *   traces.c   allocation traces: the call tree, frame names, sites
 *   store.c    the index files: one per snapshot file (core/keepstore.h),
 *              the same for a file mounted alone or in a series
 *
 * Objects are V8 nodes.  A node's locator (the heap layer's loc) is its
 * ordinal plus its snapshot's `base`, so the codec, which sees only a
 * locator, finds the snapshot by binary search on the bases.
 *
 * Ownership: the dump owns everything.  The file's bytes (mapped, or
 * inflated when gzipped) stay until destroy: strings are decoded from them
 * on demand.  A snapshot loaded from its index file has its columns and
 * strings in that file's mapping instead (store.c), which its member's
 * store holds until destroy.  Thread safety: read-only after open (the
 * members' stores keep their .stats lines behind their own locks).
 */
#ifndef HF_V8_H
#define HF_V8_H

#include "decoders/core/keepstore.h"
#include "decoders/heap/heap.h"

/* Node and edge types as the meta of every V8 version since 2012 names
 * them; a snapshot's own lists are mapped to these by name. */
enum {
    V8N_HIDDEN, V8N_ARRAY, V8N_STRING, V8N_OBJECT, V8N_CODE, V8N_CLOSURE, V8N_REGEXP,
    V8N_NUMBER, V8N_NATIVE, V8N_SYNTHETIC, V8N_CONS_STRING, V8N_SLICED_STRING, V8N_SYMBOL,
    V8N_BIGINT, V8N_OBJECT_SHAPE, V8N_WASM_OBJECT, V8N_OTHER, V8N_N
};
enum {
    V8E_CONTEXT, V8E_ELEMENT, V8E_PROPERTY, V8E_INTERNAL, V8E_HIDDEN, V8E_SHORTCUT, V8E_WEAK,
    V8E_OTHER, V8E_N
};
extern const char *const v8_node_type_names[V8N_N];
extern const char *const v8_edge_type_names[V8E_N];

/* Allocation traces (traces.c): a call-tree node, a function. */
enum { TN_ID, TN_FUNC, TN_COUNT, TN_SIZE, TN_N };
enum { TF_NAME, TF_SCRIPT, TF_LINE, TF_COLUMN, TF_N };
typedef struct {
    uint64_t id;
    uint32_t parent; /* index, UINT32_MAX for the root */
    uint32_t func;   /* index into tfuncs, UINT32_MAX when out of range */
    uint64_t count, size;
} v8_tnode;
typedef struct {
    uint32_t name, script, line, column; /* strings; positions from 1, 0 unknown */
} v8_tfunc;

/* A class id no node id can be (the heap layer keys classes by id). */
#define V8_CLASS_ID(k) ((UINT64_C(1) << 62) | (uint64_t)(k))

/* One snapshot.  What open fills in (scan, derive) is also what its index
 * file holds (store.c: a column per array, the counts in its head): a
 * field added here must be added there too, or a remount lacks it. */
typedef struct {
    char *path;
    GMappedFile *map;     /* the file */
    GByteArray *inflated; /* its contents when gzipped */
    const uint8_t *data;  /* what was parsed */
    size_t len;
    bool gzipped;
    uint64_t base;        /* locator of node 0 */
    uint32_t n;           /* nodes */
    uint32_t root;        /* ordinal of the root node (meta root_index) */
    uint8_t *type;        /* V8N_* */
    uint32_t *name;       /* string index */
    uint64_t *id;
    uint64_t *raw_size;   /* self_size as the file states it */
    uint64_t *size;       /* shallow size as DevTools shows it (scan.c) */
    uint32_t *trace;      /* call-tree node index + 1 (trace_node_id, linked), 0 */
    uint8_t *detached;    /* detachedness: 0 unknown, 1 attached, 2 detached */
    uint32_t *first;      /* edges of node i: [first[i], first[i+1]) */
    uint32_t n_edges;
    uint8_t *etype;       /* V8E_* */
    uint32_t *ename;      /* string index, or the element/hidden index */
    uint32_t *eto;        /* target ordinal */
    uint8_t *essential;   /* bit per edge: counts for dominators */
    uint32_t *orphans;    /* nodes no essential edge reaches: under the root */
    uint32_t n_orphans;
    uint32_t n_detached;  /* nodes detached after DevTools' DOM state */
    uint64_t *str_off;    /* offset of each string's opening quote */
    uint32_t n_strings;
    uint32_t *cls;        /* class per node, while building only */
    bool user_roots;      /* the root has edges to objects (globals): DevTools
                             then moves arrays' sizes to their owners */
    v8_tnode *tnodes;     /* the allocation call tree, parents first */
    uint32_t n_tnodes;
    v8_tfunc *tfuncs;
    uint32_t n_tfuncs;
    uint32_t tbase;       /* trace serial of tnodes[0] - 1 */
    uint64_t meta_nodes, meta_edges; /* counts the meta states */
    uint32_t trace_functions;       /* meta trace_function_count */
} v8_snap;

/* A file of the mount and its index file (store.c): each file has its
 * own, the one a mount of that file alone uses. */
typedef struct {
    char *path;
    hf_keepstore store;
    GMappedFile *map;    /* the file (its key; read unless loaded) */
    char *note;          /* the .stats line's end instead of the store's: its
                            file valid but not used, or none to be written */
    uint64_t valid_id;   /* with a note of a valid file: that file's id (the
                            key of the retained results computed instead) */
    uint32_t problem0;   /* its problems while read: lines problem0.. */
    uint32_t n_lines;
    uint64_t n_problems; /* ... and how many there were */
    double seconds;      /* reading it took */
    uint8_t *locs;       /* loaded after another: its locators moved up by
                            its base (owned; the file's are from 0) */
} v8_member;

typedef struct {
    hf_heap heap; /* first: heap.base is the hf_dump */
    GPtrArray *snaps; /* v8_snap *, one per file */
    v8_member *members; /* one per file, in step with snaps */
    uint32_t n_members;
    bool loaded;        /* the snapshots come from index files */
} v8_dump;

extern const hf_decoder hf_decoder_v8;
extern const hf_heap_codec v8_codec;

/* ---- json.c: the scanner (pure; never reads outside [p, end)) ---- */

typedef struct {
    const uint8_t *start, *p, *end;
    const char *error; /* first problem, NULL */
    uint64_t error_at; /* its offset from start */
} v8_json;

/* Notes the first problem (at the current offset); returns false. */
bool v8_json_fail(v8_json *j, const char *what);
/* Consumes c (after white space); false (and an error) otherwise. */
bool v8_json_expect(v8_json *j, char c);

/* The scanner's hot paths, inline: they run once or twice per number. */
static inline void v8_json_ws(v8_json *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
        j->p++;
}

/* True when the next character (after white space) is c, consumed. */
static inline bool v8_json_accept(v8_json *j, char c)
{
    if (G_LIKELY(j->p < j->end && *j->p == (uint8_t)c)) {
        j->p++;
        return true;
    }
    v8_json_ws(j);
    if (j->p < j->end && *j->p == (uint8_t)c) {
        j->p++;
        return true;
    }
    return false;
}

bool v8_json_uint_slow(v8_json *j, uint64_t *v);
/* A string token: *at its opening quote's offset; the text is not decoded. */
bool v8_json_string(v8_json *j, uint64_t *at);
/* A non-negative integer that fits 53 bits (JSON from JavaScript).  The
 * common case (up to 15 digits, then a ',' or ']') here; the rest, and
 * every error, by v8_json_uint_slow. */
static inline bool v8_json_uint(v8_json *j, uint64_t *v)
{
    const uint8_t *p = j->p, *end = j->end;
    uint64_t x = 0;
    int n = 0;
    while (p < end && n < 16 && (unsigned)(*p - '0') < 10) {
        x = x * 10 + (uint64_t)(*p - '0');
        p++;
        n++;
    }
    if (G_LIKELY(n && n < 16 && p < end && (*p == ',' || *p == ']' || *p == '\n'))) {
        j->p = p;
        *v = x;
        return true;
    }
    return v8_json_uint_slow(j, v);
}
/* Skips any value, nested at most 64 deep. */
bool v8_json_skip(v8_json *j);
/* Decodes the string token at offset `at` of data[0, size) into out
 * (\uXXXX pairs joined, lone surrogates as U+FFFD).  False when it is not
 * a complete string token. */
bool v8_json_decode(const uint8_t *data, size_t size, uint64_t at, GString *out);
/* Whether the string token at `at` equals s (decoded). */
bool v8_json_equals(const uint8_t *data, size_t size, uint64_t at, const char *s);

/* ---- scan.c ---- */

/* Parses one file's bytes (sn->data, sn->len) into sn.  False with *err
 * (one line) when nothing can be shown; problems that leave a snapshot go
 * to hf_problem on d. */
bool v8_scan(hf_dump *d, v8_snap *sn, GError **err);

/* ---- snap.c ---- */

void v8_snap_free(v8_snap *sn);
/* String i decoded into out ("" when out of range). */
void v8_string(const v8_snap *sn, uint32_t i, GString *out);
/* Edge e's name as DevTools shows it: the property name, or the index of
 * an element or hidden edge. */
void v8_edge_name(const v8_snap *sn, uint32_t e, GString *out);
static inline bool v8_essential(const v8_snap *sn, uint32_t e)
{
    return sn->essential[e >> 3] >> (e & 7) & 1;
}

/* ---- heap.c ---- */

/* The snapshots on the heap layer, then hf_heap_finish. */
void v8_build_heap(v8_dump *d);
/* What the layer asks of V8 besides the codec (built or loaded heaps). */
void v8_heap_hooks(hf_heap *h);
/* The snapshot and node ordinal of a locator; NULL when none. */
const v8_snap *v8_at(const v8_dump *d, uint64_t loc, uint32_t *ord);
/* Node ordinal of heap object o of snapshot s. */
static inline uint32_t v8_ord(const v8_dump *d, uint32_t s, uint64_t o)
{
    const hf_hsnap *hs = hf_heap_snap(&d->heap, s);
    const v8_snap *sn = g_ptr_array_index(d->snaps, s);
    return (uint32_t)(hf_heap_loc(hs, o) - sn->base);
}
/* Heap object index of node `ord` of snapshot s, -1. */
int64_t v8_object_of(const v8_dump *d, uint32_t s, uint32_t ord);

/* ---- store.c ---- */

/* Fills d (members' stores begun, no snapshot yet) from the members'
 * index files, one snapshot from each; false when one has no usable one
 * (then throw d away, and read the files with the members kept: the valid
 * files found have their note set, so they are kept, not written again).
 * save: hf_dump_ops.after_mount.  unmap: forgets the arrays in the files
 * (before freeing).  status: .stats, a line per file. */
bool v8_store_load(v8_dump *d);
void v8_store_save(hf_dump *d);
void v8_store_unmap(v8_dump *d);
void v8_status(hf_dump *d, GString *out);

/* ---- traces.c ---- */

/* The trace_tree array into sn->tnodes; pos: where the meta puts each TN_
 * field, per: fields a node has (children last). */
bool v8_read_trace_tree(v8_json *j, v8_snap *sn, const int *pos, uint32_t per);
/* sn->trace from call-tree node ids to indices + 1; problems to d. */
void v8_link_traces(hf_dump *d, v8_snap *sn);
/* Frame names of trace `serial` (an hf_trace_names_fn; ud unused). */
void v8_trace_names(const hf_heap *h, uint32_t serial, bool full, GPtrArray *frames, void *ud);
uint64_t v8_view_sites(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                       size_t budget);
bool v8_has_sites(hf_dump *d, uint32_t s, uint64_t index);
/* traces/: every call-tree node of every snapshot, numbered as in sites. */
uint64_t v8_n_traces(hf_dump *d);
uint64_t v8_trace_number(hf_dump *d, uint64_t t);
uint64_t v8_view_trace(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                       size_t budget);

/* ---- classes.c ---- */

/* DevTools' DOM state: detached spread over native nodes (sn->detached). */
void v8_dom_state(v8_snap *sn);
/* The interfaces of plain objects: the kept ones, and per node (*of,
 * g_free) the one it takes or UINT32_MAX; free with g_ptr_array_free. */
GPtrArray *v8_interfaces(const v8_snap *sn, uint32_t **of);
const char *v8_interface_name(GPtrArray *defs, uint32_t i);

/* ---- derive.c ---- */

bool v8_derive(hf_dump *d, v8_snap *sn);

/* ---- render.c, objects.c ---- */

void v8_describe(hf_dump *d, GString *out);
uint64_t v8_view_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out, size_t budget);
uint64_t v8_view_snap_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                           size_t budget);
uint64_t v8_view_roots(hf_dump *d, const hf_view *v, uint64_t first, GString *out, size_t budget);
uint64_t v8_view_strings(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                         size_t budget);
uint64_t v8_view_detached(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                          size_t budget);
bool v8_has_detached(hf_dump *d, uint32_t s, uint64_t index);
uint64_t v8_view_new(hf_dump *d, const hf_view *v, uint64_t first, GString *out, size_t budget);
bool v8_has_new(hf_dump *d, uint32_t s, uint64_t index);
uint64_t v8_view_leaks(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                       size_t budget);
bool v8_has_leaks(hf_dump *d, uint32_t s, uint64_t index);
uint64_t v8_view_class_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget);
uint64_t v8_view_object_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget);
uint64_t v8_view_object_edges(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget);
uint64_t v8_view_object_value(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget);
bool v8_has_value(hf_dump *d, uint32_t s, uint64_t o);
hf_ref_status v8_refs_entry(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                            char name[HF_NAME_MAX], hf_target *to);
int64_t v8_refs_find(hf_dump *d, uint32_t s, uint64_t o, const char *name);
bool v8_text(hf_dump *d, uint32_t s, uint64_t o, GString *out);

#endif
