/*
 * hprof.h - internals of the HPROF binary decoder, and the HPROF record
 * parsers other decoders reuse (BMD carries "legacy HPROF records": stack
 * frames, traces, threads, load class, with their original bodies).
 *
 * Files: hprof_read.c (big-endian readers, top-level record body parsers,
 * heap dump sub-record lengths), hprof_index.c (the one streaming pass),
 * hprof_ops.c (the decoder: detect, open, ops table, info, sites, codec).
 * The heap graph itself (classes, object index, views) is heap.h's.
 *
 * The parsers are pure functions of (body pointer, body length, id size):
 * they never read outside [b, b + len), fill *out and return true, or
 * return false when the body is too short for what it declares.  Pointers
 * in *out point into the body.  Thread-safe.
 */
#ifndef HF_HPROF_H
#define HF_HPROF_H

#include "decoders/heap/heap.h"
#include "decoders/heap/profile.h"

#include <string.h>

/* Top-level record tags. */
enum {
    HPROF_STRING = 0x01, HPROF_LOAD_CLASS = 0x02, HPROF_UNLOAD_CLASS = 0x03,
    HPROF_STACK_FRAME = 0x04, HPROF_STACK_TRACE = 0x05, HPROF_ALLOC_SITES = 0x06,
    HPROF_HEAP_SUMMARY = 0x07, HPROF_START_THREAD = 0x0A, HPROF_END_THREAD = 0x0B,
    HPROF_HEAP_DUMP = 0x0C, HPROF_CPU_SAMPLES = 0x0D, HPROF_CONTROL_SETTINGS = 0x0E,
    HPROF_HEAP_DUMP_SEGMENT = 0x1C, HPROF_HEAP_DUMP_END = 0x2C,
};
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

/* ---- big-endian readers (no bounds checks: callers check lengths) ---- */

static inline uint16_t hprof_u2(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}
static inline uint32_t hprof_u4(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return __builtin_bswap32(v);
}
static inline uint64_t hprof_u8(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}
static inline uint64_t hprof_id(const uint8_t *p, unsigned idsz)
{
    return idsz == 8 ? hprof_u8(p) : hprof_u4(p);
}
/* A value of basic type t (HF_T_*), width hf_btype_size(t, idsz). */
uint64_t hprof_value(const uint8_t *p, unsigned t, unsigned idsz);

/* ---- top-level record bodies ---- */

typedef struct {
    uint64_t id;
    const uint8_t *text; /* modified UTF-8, not NUL-terminated */
    uint32_t len;
} hprof_string;
bool hprof_parse_string(const uint8_t *b, size_t len, unsigned idsz, hprof_string *out);

typedef struct {
    uint32_t serial, trace;
    uint64_t class_id, name_id;
} hprof_load_class;
G_STATIC_ASSERT(offsetof(hprof_load_class, serial) == 0); /* search.h's serial helpers */
bool hprof_parse_load_class(const uint8_t *b, size_t len, unsigned idsz, hprof_load_class *out);

typedef struct {
    uint64_t id, method, sig, source;
    uint32_t class_serial;
    int32_t line;
} hprof_frame;
bool hprof_parse_stack_frame(const uint8_t *b, size_t len, unsigned idsz, hprof_frame *out);

typedef struct {
    uint32_t serial, thread, n_frames;
    const uint8_t *frames; /* n_frames ids: hprof_id(frames + i * idsz, idsz) */
} hprof_trace;
bool hprof_parse_stack_trace(const uint8_t *b, size_t len, unsigned idsz, hprof_trace *out);

typedef struct {
    uint16_t flags; /* 0x1 incremental, 0x2 sorted by allocation, 0x4 forced GC */
    float cutoff;
    uint32_t live_bytes, live_instances;
    uint64_t alloc_bytes, alloc_instances;
    uint32_t n_sites;
    const uint8_t *sites; /* hprof_site_at() */
} hprof_sites;
typedef struct {
    uint8_t array; /* 0 not an array, else the element's basic type */
    uint32_t class_serial, trace, live_bytes, live_instances, alloc_bytes, alloc_instances;
} hprof_site;
bool hprof_parse_alloc_sites(const uint8_t *b, size_t len, unsigned idsz, hprof_sites *out);
void hprof_site_at(const hprof_sites *s, uint32_t i, hprof_site *out);

typedef struct {
    uint32_t live_bytes, live_instances;
    uint64_t alloc_bytes, alloc_instances;
} hprof_heap_summary;
bool hprof_parse_heap_summary(const uint8_t *b, size_t len, unsigned idsz,
                              hprof_heap_summary *out);

typedef struct {
    uint32_t serial, trace;
    uint64_t obj, name, group, parent;
} hprof_thread;
bool hprof_parse_start_thread(const uint8_t *b, size_t len, unsigned idsz, hprof_thread *out);

/* UNLOAD CLASS (class serial) and END THREAD (thread serial): one u4. */
bool hprof_parse_serial(const uint8_t *b, size_t len, unsigned idsz, uint32_t *out);

typedef struct {
    uint32_t total, n;
    const uint8_t *samples; /* n x {u4 count, u4 trace serial} */
} hprof_cpu_samples;
bool hprof_parse_cpu_samples(const uint8_t *b, size_t len, unsigned idsz, hprof_cpu_samples *out);

typedef struct {
    uint32_t flags; /* 0x1 alloc traces, 0x2 cpu sampling */
    uint16_t depth;
} hprof_control;
bool hprof_parse_control(const uint8_t *b, size_t len, unsigned idsz, hprof_control *out);

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
    const char **snap_files[2]; /* with and without "sites" */
    bool truncated;
} hprof_dump;

/* The streaming pass (hprof_index.c): fills everything above and calls
 * hf_heap_finish().  Problems go to hf_problem(). */
void hprof_index(hprof_dump *d);
/* Text of string id (modified UTF-8), NULL when absent.  *len set. */
const char *hprof_string_text(const hprof_dump *d, uint64_t id, uint32_t *len);
/* Interned display name of a string id, or "0x<id>" when absent. */
const char *hprof_intern_string(hprof_dump *d, uint64_t id);
/* LOAD CLASS record of class serial, NULL when absent. */
const hprof_load_class *hprof_load_class_by_serial(const hprof_dump *d, uint32_t serial);

/* heap.pprof samples of snapshot s: ALLOC SITES, else live objects by
 * allocation trace (hprof_pprof.c; an hf_heap_pprof_build_fn, ud: the dump). */
void hprof_build_pprof(hf_heap_pprof_out *o, uint32_t s, void *ud);

extern const hf_heap_codec hprof_codec;
extern const hf_decoder hf_decoder_hprof;

#endif
