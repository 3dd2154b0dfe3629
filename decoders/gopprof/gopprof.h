/*
 * gopprof.h - pprof's own profile format (profile.proto, gzipped or not):
 * Go heap profiles (runtime/pprof, net/http/pprof) and any other
 * profile.proto file.
 *
 *   read.c     the bytes to a Profile: gunzip and protobuf-c's unpack, both
 *              within a budget of a few times the file's size; the head
 *              check of detect
 *   scan.c     a Profile to a snapshot: string, location and function
 *              references checked, frames named, stacks numbered as traces
 *              shared by every file of the series
 *   render.c   the views: info, snapshot info, sites, heap.pprof,
 *              stacks.folded, heap.pb.gz, traces/N
 *   decoder.c  detect, open (one file or a series), destroy, the ops table
 *
 * A frame is "function (file:line)" (the file and line when the profile
 * has them), or "0xADDR" for a location with no line.  A location with
 * inlined lines gives one frame per line, callee first.  A trace is a
 * distinct stack, leaf first; traces are numbered 1, 2, ... in order of
 * first appearance over the files of the series.
 *
 * Ownership: everything belongs to the gopprof_dump.  Thread safety: read-only
 * after open, except each snapshot's two pprof builders, made once under
 * g_once_init_enter.
 */
#ifndef HF_GOPPROF_H
#define HF_GOPPROF_H

#include "build/gen/pprof/profile.pb-c.h"
#include "decoders/core/model.h"
#include "decoders/pprof/pprof.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint32_t first; /* into gopprof_dump.trace_frames */
    uint32_t n;
} gopprof_trace;

/* One stack of a snapshot: its trace and values (n_types of them). */
typedef struct {
    uint32_t trace;
    uint32_t vals; /* into gopprof_snap.vals */
} gopprof_sample;

typedef struct {
    char *path;
    GBytes *file;        /* the file as given (heap.pb.gz when gzipped) */
    bool gzipped;
    GPtrArray *types;    /* char * "type/unit", one per value */
    char *period_type;   /* "type/unit" or "" */
    int64_t period, duration_nanos, time_nanos;
    uint64_t n_raw;      /* samples in the file (before merging stacks) */
    GArray *samples;     /* gopprof_sample, one per distinct stack */
    GArray *vals;        /* int64_t */
    int64_t *totals;     /* n_types */
    int idx[4];          /* value index of inuse_objects, inuse_space,
                            alloc_objects, alloc_space (see scan.c), -1 when
                            there are no values: gopprof_value */
    gsize pprof_ready;
    hf_pprof *pp_full, *pp_brief;
} gopprof_snap;

/* Value k of idx (0 in-use objects, 1 in-use bytes, 2 allocated objects,
 * 3 allocated bytes) of a sample; 0 for a profile without sample types. */
static inline int64_t gopprof_value(const gopprof_snap *sn, const gopprof_sample *smp, int k)
{
    return sn->idx[k] < 0 ? 0 : g_array_index(sn->vals, int64_t, smp->vals + (guint)sn->idx[k]);
}

typedef struct {
    hf_dump base;
    GPtrArray *snaps;        /* gopprof_snap * */
    GPtrArray *frames;       /* char *: "function (file:line)" */
    GPtrArray *funcs;        /* char *: the function alone (same index) */
    GHashTable *frame_idx;   /* frame -> index + 1 */
    GArray *trace_frames;    /* uint32_t frame indices */
    GArray *traces;          /* gopprof_trace */
    GHashTable *trace_idx;   /* uint32_t key [n, frames...] -> index + 1 */
} gopprof_dump;

/* read.c */
bool gopprof_head_is_profile(const uint8_t *head, size_t len);
/* The profile in data[0..len) (gzipped or not); NULL with *err. */
Perftools__Profiles__Profile *gopprof_read(const uint8_t *data, size_t len, bool *gzipped,
                                           GError **err);
void gopprof_profile_free(Perftools__Profiles__Profile *p);

/* scan.c: adds snapshot sn (filled from p) to d; problems to d. */
void gopprof_scan(gopprof_dump *d, gopprof_snap *sn, const Perftools__Profiles__Profile *p);
void gopprof_snap_free(gopprof_snap *sn);

/* render.c */
extern const hf_file gopprof_snap_files[];
/* tables/samples.tsv (render.c). */
uint64_t gopprof_samples_tsv_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget);
uint64_t gopprof_samples_tsv_measure(hf_dump *d, const hf_view *v, uint64_t first, uint64_t *bytes,
                                 size_t budget);
uint64_t gopprof_render_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                         size_t budget);
/* hf_dump_ops.tally: in-use objects and bytes by stack (growth). */
bool gopprof_tally(hf_dump *d, uint32_t s, bool retained, hf_tally_fn fn, void *ud);
/* hf_dump_ops.stacks: the builder stacks.folded renders. */
const struct hf_pprof *gopprof_stacks(hf_dump *d, uint32_t s);
uint64_t gopprof_render_trace(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget);
void gopprof_describe(hf_dump *d, GString *out);

#endif
