/*
 * profile.h - heap.pprof and stacks.folded for decoders built on the
 * heap layer (heap.h): HPROF binary, HPROF text, BMD.
 *
 * A sample is an allocation site: the stack of its trace with the class
 * allocated as the leaf frame ("java.lang.String" under
 * "Foo.bar(Foo.java:12)"), so pprof and flame graphs say what was
 * allocated where.  Two sources:
 *  - ALLOC SITES / SITES, where the file has them (live and allocated
 *    objects and bytes): the decoder adds each site with hf_heap_pprof_add;
 *  - otherwise the snapshot's live objects grouped by (allocation trace,
 *    class): hf_heap_pprof_add_objects; bytes by the size rule (so the
 *    totals are the snapshot info's objects and bytes), and allocated =
 *    live (a heap dump does not know what was freed).
 * Frame names come from the layer's traces (h->traces, h->frames) or from
 * a decoder's own callback (HPROF text keeps its traces as text).
 *
 * hf_heap_pprof keeps, per snapshot, the two hf_pprof builders (full frame
 * names for heap.pprof; method names for stacks.folded, whose value is
 * live bytes), made the first time either view is rendered.
 *
 * Ownership: the decoder makes the hf_heap_pprof in open and keeps it in
 * hf_heap.pprof; hf_heap_clear frees it (hf_heap_pprof_free), with the
 * builders, which belong to it.  Thread safety: hf_heap_pprof_render may
 * run on several threads; each snapshot is built once (g_once), by the
 * build callback, which must only read the finished heap.
 */
#ifndef HF_HEAP_PPROF_H
#define HF_HEAP_PPROF_H

#include "decoders/heap/heap.h"
#include "decoders/pprof/pprof.h"

/* Appends trace `serial`'s frame names (g_strdup'd), leaf first, to
 * frames: "pkg.Class.method(File.java:12)" when full, else
 * "pkg.Class.method".  A trace that does not exist adds nothing. */
typedef void (*hf_trace_names_fn)(const hf_heap *h, uint32_t serial, bool full,
                                  GPtrArray *frames, void *ud);
/* The layer's own traces (h->traces, h->frames). */
void hf_heap_trace_names(const hf_heap *h, uint32_t serial, bool full, GPtrArray *frames,
                         void *ud);

/* Where a decoder puts its samples for snapshot s (see hf_heap_pprof_new). */
typedef struct {
    const hf_heap *h;
    hf_trace_names_fn names;
    void *names_ud;
    hf_pprof *full, *brief;
} hf_heap_pprof_out;

/* One site: class `cls` allocated at trace `serial`. */
void hf_heap_pprof_add(hf_heap_pprof_out *o, uint32_t serial, const char *cls,
                       const hf_pprof_values *v);
/* Every object of snapshot s (class objects too, as java.lang.Class), by
 * (trace, class), in ascending (trace, class index) order: the totals are
 * the snapshot's objects and bytes. */
void hf_heap_pprof_add_objects(hf_heap_pprof_out *o, uint32_t s);

/* Fills o for snapshot s (o->h, names and the builders are set). */
typedef void (*hf_heap_pprof_build_fn)(hf_heap_pprof_out *o, uint32_t s, void *ud);

typedef struct hf_heap_pprof hf_heap_pprof;
/* For snapshots 0 .. n_snaps-1.  names NULL: hf_heap_trace_names.
 * binary: the symbol section's binary=. */
hf_heap_pprof *hf_heap_pprof_new(const hf_heap *h, uint32_t n_snaps, const char *binary,
                                 hf_heap_pprof_build_fn build, void *build_ud,
                                 hf_trace_names_fn names, void *names_ud);
void hf_heap_pprof_free(hf_heap_pprof *p);
/* heap.pprof (folded false) or stacks.folded (true) of snapshot s. */
uint64_t hf_heap_pprof_render(hf_heap_pprof *p, uint32_t s, bool folded, uint64_t first,
                              GString *out, size_t budget);

#endif
