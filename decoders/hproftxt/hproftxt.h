/*
 * hproftxt.h - the HPROF agent's text output (java.hprof.txt): the
 * decoder's shared parts.  The format: docs/formats.md.
 *
 *   decoder.c  detection, open, destroy, the tables of views, the ops table
 *   scan.c     the line scanner: blocks, threads, traces, SITES and CPU
 *              rows; finding a trace and its frames
 *   render.c   the views: info, traces, threads, snapshot info and blocks
 *   profile.c  heap.pprof and stacks.folded
 *   heap.c     (an extra of this format) the HEAP DUMP block on the heap
 *              layer, and the codec
 *   objects.c  (an extra of this format) objects' fields and refs/ from
 *              their lines; classes/ and objects/ only where a HEAP DUMP is
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
 * The index keeps offsets into the mapped file: traces/N, sites.agent,
 * cpu/samples.agent and cpu/times.agent are served as the file has them.
 * SITES and CPU rows are parsed at open for the tables (sites, cpu/samples,
 * cpu/times), the checks and heap.pprof; they are few (the agent cuts off).
 *
 * Ownership: the dump owns everything; names live in `chunk`.
 * Thread safety: read-only after open, except the per-snapshot pprof
 * builders, made once under g_once_init_enter (decoders/heap/profile.h).
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
} hproftxt_block;

typedef struct {
    uint32_t trace;
    uint64_t live_bytes, live_objs, alloc_bytes, alloc_objs;
    const char *cls; /* class name (chunk) */
} hproftxt_site;

typedef struct {
    uint64_t count;
    uint32_t trace;
    uint32_t self;      /* the row's self percentage, in hundredths */
    const char *method; /* the row's method (chunk) */
} hproftxt_cpu;

typedef struct {
    hproftxt_block blk[TB_N];
    GArray *sites;   /* hproftxt_site, file order */
    GArray *samples; /* hproftxt_cpu */
    GArray *times;   /* hproftxt_cpu */
} hproftxt_snap;

typedef struct {
    uint32_t serial, thread; /* thread 0: none given */
    uint32_t n_frames;
    uint64_t off;    /* "TRACE N:" line */
    uint64_t frames; /* first frame line */
    uint64_t end;    /* end of the block */
} hproftxt_trace;
G_STATIC_ASSERT(offsetof(hproftxt_trace, serial) == 0); /* search.h's serial helpers */

typedef struct {
    uint32_t serial;
    uint32_t trace;  /* from a heap dump's ROOT <thread> line, 0 when unknown */
    uint64_t obj;
    const char *name, *group, *dir; /* chunk; name/group NULL when not given */
    uint64_t start_off;
    bool ended;
} hproftxt_thread;
G_STATIC_ASSERT(offsetof(hproftxt_thread, serial) == 0);

typedef struct {
    hf_heap heap; /* first: the heap dump part (heap.h); heap.base is the hf_dump */
    bool has_heap; /* some snapshot has a HEAP DUMP block */
    GStringChunk *chunk;
    char *created;   /* the header's date, NULL when none */
    GArray *snaps;   /* hproftxt_snap */
    GArray *traces;  /* hproftxt_trace, ascending serial */
    GArray *threads; /* hproftxt_thread, ascending serial */
} hproftxt_dump;

extern const hf_decoder hf_decoder_hproftxt;

/* ---- scan.c ---- */

/* The pass over the file at open: fills everything above (the heap part
 * through heap.c), sorts traces (a repeated serial keeps its first) and
 * threads, and checks what needs the whole file.  Problems go to
 * hf_problem(). */
void hproftxt_scan(hproftxt_dump *t);
/* Index of the trace with this serial, -1 when none. */
int64_t hproftxt_trace_find(const hproftxt_dump *t, uint32_t serial);
/* Appends frame k of a trace: the text of its line (full) or the method
 * without "(File.java:N)" (short).  False past the last frame. */
bool hproftxt_trace_frame(const hproftxt_dump *t, const hproftxt_trace *tr, uint32_t k, bool full,
                          GString *out);

/* ---- heap.c: the HEAP DUMP block on the heap layer ---- */

/* Building the heap part while scanning: begin at each HEAP DUMP BEGIN
 * (snap: its snapshot index), every line of the block, end at its end;
 * finish once after the scan (adds empty heap snapshots up to n_snaps,
 * runs hf_heap_finish, frees the scanner). */
typedef struct hproftxt_hscan hproftxt_hscan;
hproftxt_hscan *hproftxt_hscan_new(hproftxt_dump *t);
void hproftxt_hscan_begin(hproftxt_hscan *hs, uint32_t snap);
void hproftxt_hscan_line(hproftxt_hscan *hs, const char *s, size_t len, uint64_t off, uint32_t no);
void hproftxt_hscan_end(hproftxt_hscan *hs);
void hproftxt_hscan_finish(hproftxt_hscan *hs, uint32_t n_snaps);
/* A sub-line "\tname\t\tID" of an OBJ, ARR or CLS record. */
bool hproftxt_sub_line(const char *s, size_t len, const char **name, size_t *name_len,
                       uint64_t *id);
/* Objects read back from their lines. */
extern const hf_heap_codec hproftxt_codec;

/* ---- render.c: views (the render protocol, model.h) and has() rows ---- */

uint64_t hproftxt_render_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget);
uint64_t hproftxt_view_trace(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget);
uint64_t hproftxt_view_thread_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget);
uint64_t hproftxt_view_thread_stack(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                    size_t budget);
uint64_t hproftxt_view_snap_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                 size_t budget);
uint64_t hproftxt_view_sites(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget);
uint64_t hproftxt_view_samples(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                               size_t budget);
uint64_t hproftxt_view_snap_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget);
uint64_t hproftxt_view_sites(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                        size_t budget);
uint64_t hproftxt_view_samples(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                          size_t budget);
uint64_t hproftxt_view_times(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                        size_t budget);
uint64_t hproftxt_view_sites_agent(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget);
uint64_t hproftxt_view_samples_agent(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                     size_t budget);
uint64_t hproftxt_view_times_agent(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget);
bool hproftxt_has_sites(hf_dump *d, uint32_t s, uint64_t index);
bool hproftxt_has_samples(hf_dump *d, uint32_t s, uint64_t index);
bool hproftxt_has_times(hf_dump *d, uint32_t s, uint64_t index);
/* tables/sites.tsv, samples.tsv, times.tsv: the rows of SITES, CPU
 * SAMPLES and CPU TIME (render.c; docs/tables.md). */
uint64_t hproftxt_sites_tsv_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget);
uint64_t hproftxt_sites_tsv_measure(hf_dump *d, const hf_view *v, uint64_t first, uint64_t *bytes,
                               size_t budget);
uint64_t hproftxt_samples_tsv_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget);
uint64_t hproftxt_samples_tsv_measure(hf_dump *d, const hf_view *v, uint64_t first, uint64_t *bytes,
                                 size_t budget);
uint64_t hproftxt_times_tsv_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget);
uint64_t hproftxt_times_tsv_measure(hf_dump *d, const hf_view *v, uint64_t first, uint64_t *bytes,
                               size_t budget);
/* True when snapshot s has a HEAP DUMP block. */
bool hproftxt_has_heap(hf_dump *d, uint32_t s, uint64_t index);
/* True when it has SITES or a HEAP DUMP: heap.pprof and stacks.folded. */
bool hproftxt_has_profile(hf_dump *d, uint32_t s, uint64_t index);
void hproftxt_describe(hf_dump *d, GString *out);

/* ---- profile.c: heap.pprof and stacks.folded ---- */

/* Frame names of a TRACE (an hf_trace_names_fn; ud: the hproftxt_dump). */
void hproftxt_trace_names(const hf_heap *h, uint32_t serial, bool full, GPtrArray *frames,
                          void *ud);
/* Builds snapshot s's heap.pprof samples (for hf_heap_pprof; ud: the
 * hproftxt_dump): SITES where the snapshot has them, else the heap dump. */
void hproftxt_build_pprof(hf_heap_pprof_out *o, uint32_t s, void *ud);

/* ---- objects.c ---- */

/* objects/O/fields and refs/ of an instance or object array, read from
 * its lines; the heap layer's for class objects. */
uint64_t hproftxt_view_object_fields(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                     size_t budget);
hf_ref_status hproftxt_refs_entry(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot,
                                  char name[HF_NAME_MAX], hf_target *to);
int64_t hproftxt_refs_find(hf_dump *d, uint32_t s, uint64_t o, const char *name);
/* The model ops that hide classes/ and objects/ in snapshots without a
 * HEAP DUMP. */
uint64_t hproftxt_n_classes(hf_dump *d, uint32_t s);
int64_t hproftxt_class_find(hf_dump *d, uint32_t s, const char *name);
uint64_t hproftxt_n_objects(hf_dump *d, uint32_t s);
int64_t hproftxt_object_find(hf_dump *d, uint32_t s, const char *name);

#endif
