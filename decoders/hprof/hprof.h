/*
 * hprof.h - internals of the HPROF binary decoder (docs/formats.md).
 *
 * The top-level records (tags, big-endian readers, body parsers) are in
 * records.h, which this file includes and BMD includes too: BMD carries
 * "legacy HPROF records" (stack frames, traces, threads, load class) with
 * their original bodies.  Here: heap dump sub-records, the dump, and what
 * the files of this folder give each other.
 *
 * Files: decoder.c (detect, open, destroy, the tables of views and the ops
 * table), read.c (record and sub-record parsers, values, the codec),
 * scan.c (the one streaming pass, and lookups of strings, LOAD CLASS and
 * ALLOC SITES records), heapscan.c (the heap dump bodies of that pass, on
 * several threads), render.c (HPROF's own views: info, sites),
 * profile.c (heap.pprof), store.c (the index file).  The heap graph
 * itself (classes, object index, views) is heap.h's.
 *
 * Sub-record parsers are pure functions like the record parsers: they never
 * read past `end`.  Thread-safe.
 */
#ifndef HF_HPROF_H
#define HF_HPROF_H

#include "decoders/core/keepstore.h"
#include "decoders/core/progress.h"
#include "decoders/heap/heap.h"
#include "decoders/heap/profile.h"
#include "decoders/hprof/records.h"

#include <string.h>

/* Heap dump sub-record tags. */
enum {
    HPROF_GC_ROOT_UNKNOWN = 0xFF, HPROF_GC_ROOT_JNI_GLOBAL = 0x01,
    HPROF_GC_ROOT_JNI_LOCAL = 0x02, HPROF_GC_ROOT_JAVA_FRAME = 0x03,
    HPROF_GC_ROOT_NATIVE_STACK = 0x04, HPROF_GC_ROOT_STICKY_CLASS = 0x05,
    HPROF_GC_ROOT_THREAD_BLOCK = 0x06, HPROF_GC_ROOT_MONITOR_USED = 0x07,
    HPROF_GC_ROOT_THREAD_OBJ = 0x08, HPROF_GC_CLASS_DUMP = 0x20,
    HPROF_GC_INSTANCE_DUMP = 0x21, HPROF_GC_OBJ_ARRAY_DUMP = 0x22,
    HPROF_GC_PRIM_ARRAY_DUMP = 0x23,
    /* Android */
    HPROF_GC_ROOT_INTERNED_STRING = 0x89, HPROF_GC_ROOT_FINALIZING = 0x8A,
    HPROF_GC_ROOT_DEBUGGER = 0x8B, HPROF_GC_ROOT_REFERENCE_CLEANUP = 0x8C,
    HPROF_GC_ROOT_VM_INTERNAL = 0x8D, HPROF_GC_ROOT_JNI_MONITOR = 0x8E,
    HPROF_GC_UNREACHABLE = 0x90, HPROF_GC_PRIM_ARRAY_NODATA = 0xC3,
    HPROF_GC_HEAP_DUMP_INFO = 0xFE,
};

/* ---- heap dump values ---- */

/* A value of basic type t (HF_T_*), width hf_btype_size(t, idsz). */
uint64_t hprof_value(const uint8_t *p, unsigned t, unsigned idsz);

/* ---- heap dump sub-records ---- */

/* Length in bytes of the sub-record at p (tag included), or 0 when it is
 * unknown or runs past end. */
size_t hprof_subrecord_len(const uint8_t *p, const uint8_t *end, unsigned idsz);

typedef struct {
    uint64_t id, super, loader, signers, domain;
    uint32_t trace, inst_size;
    uint16_t n_statics, n_fields;
    const uint8_t *statics; /* {id name, u1 type, value} ... */
    const uint8_t *fields;  /* {id name, u1 type} ... */
    size_t len;             /* of the whole sub-record */
} hprof_class_dump;
/* p points at the 0x20 tag. */
bool hprof_parse_class_dump(const uint8_t *p, const uint8_t *end, unsigned idsz,
                            hprof_class_dump *out);

/* ---- the decoder ---- */

typedef struct {
    uint64_t id, off; /* off: of the STRING record body */
} hprof_strref;

/* The index file of this dump (store.c; core/keepstore.h, heap/persist.h). */
typedef hf_keepstore hprof_store;

typedef struct hprof_dump {
    hf_heap heap; /* first: a hprof_dump is an hf_heap is an hf_dump */
    char version[24];
    uint64_t time_ms;
    size_t header_len; /* offset of the first record */
    uint64_t n_records[256]; /* top-level records by tag */
    uint64_t n_sub[256];     /* heap dump sub-records by tag */
    uint64_t n_segments;
    hprof_strref *strings; /* sorted by id */
    uint64_t n_strings;
    GArray *load_classes; /* hprof_load_class, sorted by serial */
    GArray *sites;        /* uint64 record offset */
    GArray *sites_snap;   /* uint32 snapshot index per sites record */
    bool truncated;
    hprof_store store;
} hprof_dump;

/* The index file (store.c).  begin: where it may be and the dump's key
 * (opts NULL or -o index=none: nowhere); false, with *err, when -o index=
 * names a file that is not an index file and must not be replaced.  load: fills d, fresh from
 * hprof_new, from the file; false when there is no usable one (then d is
 * half-filled: destroy it and index anew).  built: after hprof_index
 * (seconds: the time it took), sets the .stats line.  save: writes the
 * file (hf_dump_ops.after_mount: on a thread of its own, after the mount
 * is live; it only reads d).  status: the .stats lines
 * (hf_dump_ops.status). */
bool hprof_store_begin(hprof_store *store, const char *path, const uint8_t *data, size_t size,
                       const hf_open_opts *opts, GError **err);
bool hprof_store_load(hprof_dump *d);
void hprof_store_built(hprof_dump *d, double seconds);
void hprof_store_save(hf_dump *d);
void hprof_store_clear(hprof_store *store);
void hprof_status(hf_dump *d, GString *out);

/* The streaming pass (scan.c): fills everything above and calls
 * hf_heap_finish().  Problems go to hf_problem(). */
void hprof_index(hprof_dump *d);
/* The heap dump bodies, scanned on several threads (heapscan.c): queued in
 * file order by the pass over the records (a body of snapshot snap, which
 * new_snap says it opens; problems of the records between bodies), run,
 * and freed after hf_heap_finish.  The index it gives is the same for any
 * number of threads. */
typedef struct hprof_heapscan hprof_heapscan;
hprof_heapscan *hprof_heapscan_new(hprof_dump *d);
void hprof_heapscan_add(hprof_heapscan *hs, uint32_t snap, bool new_snap, uint64_t b, uint64_t e,
                        bool cut);
void hprof_heapscan_problem(hprof_heapscan *hs, uint64_t off, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
/* Bytes of the bodies queued. */
uint64_t hprof_heapscan_bytes(const hprof_heapscan *hs);
/* Scans the bodies on up to `threads` threads, counting bytes done on
 * progress, then hands objects, roots, layout evidence and problems to d
 * and class dump offsets to class_dumps[snapshot], in file order.  Returns
 * the number of threads used. */
unsigned hprof_heapscan_run(hprof_heapscan *hs, GPtrArray *class_dumps, unsigned threads,
                            hf_progress *progress);
void hprof_heapscan_free(hprof_heapscan *hs);
/* Threads to scan `bytes` of bodies with: $HEAPFS_THREADS (a testing and
 * tuning knob), else the processors online but no more than one per whole
 * MiB (a small dump is scanned on the calling thread alone); at most 64. */
unsigned hprof_heapscan_threads(uint64_t bytes);
/* Text of string id (modified UTF-8), NULL when absent.  *len set. */
const char *hprof_string_text(const hprof_dump *d, uint64_t id, uint32_t *len);
/* Interned display name of a string id, or "0x<id>" when absent. */
const char *hprof_intern_string(hprof_dump *d, uint64_t id);
/* LOAD CLASS record of class serial, NULL when absent. */
const hprof_load_class *hprof_load_class_by_serial(const hprof_dump *d, uint32_t serial);

/* The ALLOC SITES records of snapshot s, in file order: the first at or
 * after record index *i (an index into d->sites) that parses; sets *i to
 * it and fills *st.  False when there is none. */
bool hprof_sites_next(const hprof_dump *d, uint32_t s, uint64_t *i, hprof_sites *st);
/* Appends the class a site allocated: its LOAD CLASS name as a display
 * name, else "T[]" for a primitive array, else "class-serial-N". */
void hprof_site_class(const hprof_dump *d, const hprof_site *site, GString *out);
/* tables/sites.tsv (render.c). */
uint64_t hprof_sites_tsv_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget);
uint64_t hprof_sites_tsv_measure(hf_dump *d, const hf_view *v, uint64_t first, uint64_t *bytes,
                                 size_t budget);

/* The codec (read.c): objects read back from their sub-records. */
extern const hf_heap_codec hprof_codec;

/* heap.pprof samples of snapshot s: ALLOC SITES, else live objects by
 * allocation trace (profile.c; an hf_heap_pprof_build_fn, ud: the dump). */
void hprof_build_pprof(hf_heap_pprof_out *o, uint32_t s, void *ud);

/* The views that are HPROF's own (render.c), for decoder.c's tables. */
uint64_t hprof_render_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                           size_t budget);
uint64_t hprof_view_snap_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget);
uint64_t hprof_view_sites(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                          size_t budget);
uint64_t hprof_view_sites_agent(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                size_t budget);
bool hprof_has_sites(hf_dump *d, uint32_t s, uint64_t index);
void hprof_describe(hf_dump *d, GString *out);

extern const hf_decoder hf_decoder_hprof;

#endif
