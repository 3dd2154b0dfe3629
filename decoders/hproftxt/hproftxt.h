/*
 * hproftxt.h - the HPROF agent's text output (java.hprof.txt): the
 * decoder's shared parts.  FORMATS.md section 2.
 *
 *   hproftxt_parse.c  detection, the line scanner, blocks, threads,
 *                     traces, SITES and CPU rows, open
 *   hproftxt_view.c   the model ops and the views
 *
 * Parsing goes by block markers at the start of a line ("TRACE N:",
 * "THREAD START (", "SITES BEGIN", "CPU SAMPLES BEGIN", "CPU TIME (ms)
 * BEGIN", "HEAP DUMP BEGIN", "MONITOR ... BEGIN" and their ENDs), never by
 * columns: rows are split on white space, and the explanatory comment at
 * the top (which names the same records in prose) never matches a marker.
 *
 * Snapshots: the agent writes its blocks at exit, or each time the user
 * asks (Ctrl-\); a block of a kind the current snapshot already has starts
 * the next snapshot.  Traces and threads belong to the whole file.
 *
 * The index keeps offsets into the mapped file: traces/N, sites,
 * cpu/samples and cpu/times are served as the file has them.  SITES and
 * CPU rows are parsed at open for the internal checks and for heap.pprof;
 * they are few (the agent cuts them off).
 *
 * Ownership: the dump owns everything; names live in `chunk`.
 * Thread safety: read-only after open, except the per-snapshot pprof
 * builders, made once under g_once_init_enter (heap_pprof.h).
 */
#ifndef HF_HPROFTXT_H
#define HF_HPROFTXT_H

#include "decoders/heap/heap.h"
#include "decoders/core/model.h"
#include "decoders/heap/profile.h"
#include "decoders/pprof/pprof.h"

/* Block kinds of a snapshot. */
enum { TB_SITES, TB_CPU_SAMPLES, TB_CPU_TIME, TB_HEAP, TB_MON_DUMP, TB_MON_TIME, TB_N };

typedef struct {
    uint64_t off, end; /* [off, end): from the BEGIN line through the END line */
    bool present, closed;
    uint64_t total; /* CPU: "total = N"; heap: objects in the BEGIN line */
    uint64_t total2; /* heap: bytes in the BEGIN line */
} txt_block;

typedef struct {
    uint32_t trace;
    uint64_t live_bytes, live_objs, alloc_bytes, alloc_objs;
    const char *cls; /* class name (chunk) */
} txt_site;

typedef struct {
    uint64_t count;
    uint32_t trace;
} txt_cpu;

typedef struct {
    txt_block blk[TB_N];
    GArray *sites;   /* txt_site, file order */
    GArray *samples; /* txt_cpu */
    GArray *times;   /* txt_cpu */
} txt_snap;

typedef struct {
    uint32_t serial, thread; /* thread 0: none given */
    uint32_t n_frames;
    uint64_t off;    /* "TRACE N:" line */
    uint64_t frames; /* first frame line */
    uint64_t end;    /* end of the block */
} txt_trace;
G_STATIC_ASSERT(offsetof(txt_trace, serial) == 0); /* search.h's serial helpers */

typedef struct {
    uint32_t serial;
    uint32_t trace;  /* from a heap dump's ROOT <thread> line, 0 when unknown */
    uint64_t obj;
    const char *name, *group, *dir; /* chunk; name/group NULL when not given */
    uint64_t start_off;
    bool ended;
} txt_thread;
G_STATIC_ASSERT(offsetof(txt_thread, serial) == 0);

typedef struct {
    hf_heap heap; /* first: the heap dump part (heap.h); heap.base is the hf_dump */
    bool has_heap; /* some snapshot has a HEAP DUMP block */
    GStringChunk *chunk;
    char *created;   /* the header's date, NULL when none */
    GArray *snaps;   /* txt_snap */
    GArray *traces;  /* txt_trace, ascending serial */
    GArray *threads; /* txt_thread, ascending serial */
} txt_dump;

extern const hf_dump_ops hproftxt_ops;
/* objects.c: what a text heap dump's objects hold, and the model ops that
 * hide classes/ and objects/ in snapshots without a HEAP DUMP. */
extern const hf_file txt_object_files[];
extern const hf_linkdir txt_object_dirs[];
uint64_t txt_n_classes(hf_dump *d, uint32_t s);
int64_t txt_class_find(hf_dump *d, uint32_t s, const char *name);
uint64_t txt_n_objects(hf_dump *d, uint32_t s);
int64_t txt_object_find(hf_dump *d, uint32_t s, const char *name);
/* True when snapshot s has a HEAP DUMP block (an hf_has_fn). */
bool txt_has_heap(hf_dump *d, uint32_t s, uint64_t index);
extern const hf_heap_codec txt_codec;

/* Building the heap part while scanning (hproftxt_heap.c): begin at each
 * HEAP DUMP BEGIN (snap: its snapshot index), every line of the block,
 * end at its end; finish once after the scan (adds empty heap snapshots up
 * to n_snaps, runs hf_heap_finish, frees the scanner). */
typedef struct txt_hscan txt_hscan;
txt_hscan *txt_hscan_new(txt_dump *t);
void txt_hscan_begin(txt_hscan *hs, uint32_t snap);
void txt_hscan_line(txt_hscan *hs, const char *s, size_t len, uint64_t off, uint32_t no);
void txt_hscan_end(txt_hscan *hs);
void txt_hscan_finish(txt_hscan *hs, uint32_t n_snaps);
/* A sub-line "\tname\t\tID" of an OBJ, ARR or CLS record. */
bool txt_sub_line(const char *s, size_t len, const char **name, size_t *name_len, uint64_t *id);

/* Index of the trace with this serial, -1 when none. */
int64_t txt_trace_find(const txt_dump *t, uint32_t serial);
/* Appends frame k of a trace: the text of its line (full) or the method
 * without "(File.java:N)" (short).  False past the last frame. */
bool txt_trace_frame(const txt_dump *t, const txt_trace *tr, uint32_t k, bool full, GString *out);

void hproftxt_destroy(hf_dump *d);

/* Ops shared by both ops tables (hproftxt_view.c). */
uint64_t hproftxt_render(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                         size_t budget);
void hproftxt_describe(hf_dump *d, GString *out);
uint32_t hproftxt_n_snapshots(hf_dump *d);
uint64_t hproftxt_snapshot_number(hf_dump *d, uint32_t s);
uint32_t hproftxt_snap_files(hf_dump *d, uint32_t s, const char *const **names);
uint64_t hproftxt_n_traces(hf_dump *d);
uint64_t hproftxt_trace_number(hf_dump *d, uint64_t t);
uint64_t hproftxt_n_threads(hf_dump *d);
void hproftxt_thread_name(hf_dump *d, uint64_t t, char name[HF_NAME_MAX]);
/* Frame names of a TRACE (an hf_trace_names_fn; ud: the txt_dump). */
void txt_trace_names(const hf_heap *h, uint32_t serial, bool full, GPtrArray *frames, void *ud);
/* Builds snapshot s's heap.pprof samples (for hf_heap_pprof). */
void txt_build_pprof(hf_heap_pprof_out *o, uint32_t s, void *ud);
/* objects/O/fields of an instance or object array, from its lines
 * (hproftxt_obj.c); false for other objects. */
bool txt_render_fields(txt_dump *t, uint32_t s, uint64_t o, GString *out);

#endif
