/*
 * inspect.h - MAT's one-click queries as files (docs/retained.md,
 * "Collections, class loaders, waste, threads"): the views of the JDK's
 * collections (collviews.c, reading collections.h), class loaders
 * (loaders.c), waste (waste.c) and the threads' retained sizes and locals
 * (threadsviews.c), and the rows of the parts tables that hold them.
 *
 * Tables follow the views' convention (docs/views.md): a "# " header of
 * column names, TAB between columns, plain integers, free text last.
 * Views follow the render protocol (model.h).  Only the loader and thread
 * views compute retained sizes (retained.h); the others read the index
 * and the dump.  Read-only over the finished heap: thread-safe.
 */
#ifndef HF_HEAP_INSPECT_H
#define HF_HEAP_INSPECT_H

#include "decoders/core/tsv.h"
#include "decoders/heap/heap.h"

/* The header line: "# " and the column names, TAB between them. */
static inline void hf_heap_put_header(hf_tsv *t, const char *const *names, unsigned n)
{
    hf_tsv_put_str(t, "# ");
    for (unsigned i = 0; i < n; i++) {
        hf_tsv_put_str(t, names[i]);
        hf_tsv_c(t, i + 1 < n ? '\t' : '\n');
    }
}

/* A row of n numbers and a text last (escaped), TAB separated. */
static inline void hf_heap_put_row(hf_tsv *t, const uint64_t *nums, unsigned n, const char *text)
{
    for (unsigned i = 0; i < n; i++) {
        hf_tsv_put_u64(t, nums[i]);
        hf_tsv_c(t, '\t');
    }
    hf_tsv_put_str(t, text);
    hf_tsv_c(t, '\n');
}

/* A table of one row per object of some kind, streamed by object index
 * (items: 0 the header, 1 + o for object o, so a chunk starts where the
 * last stopped): `wanted` says cheaply (from the class) whether object o
 * may have a row, `row` writes its row, or nothing.  The render protocol
 * on a sink (hf_tsv_rows_fn). */
typedef bool (*hf_heap_wanted_fn)(const hf_hsnap *sn, uint64_t o, void *ud);
typedef void (*hf_heap_row_fn)(hf_heap *h, const hf_hsnap *sn, uint64_t o, hf_tsv *t, void *ud);
uint64_t hf_heap_object_rows(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
                             size_t budget, const char *const *cols, unsigned n_cols,
                             hf_heap_wanted_fn wanted, hf_heap_row_fn row, void *ud);

/* Whether class c is a collection, remembered in memo (one byte per
 * class, zeroed: 0 not asked yet, 1 no, 2 yes). */
bool hf_heap_coll_memo(const hf_hsnap *sn, uint8_t *memo, uint32_t c);

/* ---- collections (collviews.c) ---- */
uint64_t hf_heap_collections_instances_view(hf_dump *d, const hf_view *v, uint64_t first,
                                            GString *out, size_t budget);
uint64_t hf_heap_collections_classes_view(hf_dump *d, const hf_view *v, uint64_t first,
                                          GString *out, size_t budget);
uint64_t hf_heap_waste_collections_view(hf_dump *d, const hf_view *v, uint64_t first,
                                        GString *out, size_t budget);
uint64_t hf_heap_view_object_entries(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                     size_t budget);
bool hf_heap_has_object_entries(hf_dump *d, uint32_t s, uint64_t o);

/* ---- waste (waste.c) ---- */
uint64_t hf_heap_waste_arrays_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget);
uint64_t hf_heap_waste_boxed_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget);
uint64_t hf_heap_waste_zeros_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget);

/* ---- class loaders (loaders.c; both compute retained sizes) ---- */
uint64_t hf_heap_view_classloaders(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget);
uint64_t hf_heap_view_duplicate_classes(hf_dump *d, const hf_view *v, uint64_t first,
                                        GString *out, size_t budget);

/* ---- threads (threadsviews.c; all compute retained sizes) ---- */
/* threads/T/retained and threads/T/locals (v->index: the thread). */
uint64_t hf_heap_view_thread_retained(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                      size_t budget);
uint64_t hf_heap_view_thread_locals(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                    size_t budget);
/* thread-overview, where snapshot s has threads (hf_heap_has_threads). */
uint64_t hf_heap_view_thread_overview(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                      size_t budget);
bool hf_heap_has_threads(hf_dump *d, uint32_t s, uint64_t index);

/* The rows of a heap format's snapshot table. */
#define HF_HEAP_INSPECT_SNAP_FILES                                                         \
    {"collections/instances", hf_heap_collections_instances_view, NULL},                   \
        {"collections/classes", hf_heap_collections_classes_view, NULL},                   \
        {"waste/collections", hf_heap_waste_collections_view, NULL},                       \
        {"waste/arrays", hf_heap_waste_arrays_view, NULL},                                 \
        {"waste/boxed", hf_heap_waste_boxed_view, NULL},                                   \
        {"waste/zeros", hf_heap_waste_zeros_view, NULL},                                   \
        {"classloaders", hf_heap_view_classloaders, NULL},                                 \
        {"duplicate-classes", hf_heap_view_duplicate_classes, NULL},                       \
        {"thread-overview", hf_heap_view_thread_overview, hf_heap_has_threads}
/* ... of its object table ... */
#define HF_HEAP_INSPECT_OBJECT_FILES                                                       \
    {"entries", hf_heap_view_object_entries, hf_heap_has_object_entries}
/* ... and of its thread table. */
#define HF_HEAP_INSPECT_THREAD_FILES                                                       \
    {"retained", hf_heap_view_thread_retained, NULL},                                      \
        {"locals", hf_heap_view_thread_locals, NULL}

#endif
