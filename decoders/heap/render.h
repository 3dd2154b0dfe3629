/*
 * render.h - what a heap format's ops table points at (heap.h's graph as
 * the model sees it): the model ops, the views (renderers) of snapshots,
 * classes, objects, threads and traces, the tables of their parts, and
 * the helpers a format's own views share.
 *
 * Views follow the render protocol of model.h: the same `first` always
 * gives the same bytes.  Ownership: GString arguments are the caller's;
 * nothing here keeps a pointer to them.  Thread safety: every function
 * may run on several threads at once after open (those of dominators.c
 * compute a snapshot's graph once, retained.h).
 */
#ifndef HF_HEAP_RENDER_H
#define HF_HEAP_RENDER_H

#include "decoders/heap/heap.h"
#include "decoders/pprof/flamediff.h"

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
    .tally = hf_heap_tally, .stacks = hf_heap_stacks, .flame_diff = hf_flame_diff_render,   \
    .class_ = {hf_heap_class_files, hf_heap_class_links, NULL}

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
/* The same suspects in words: paths, accumulation points (suspects.c). */
uint64_t hf_heap_view_suspects_report(hf_dump *d, const hf_view *v, uint64_t first,
                                      GString *out, size_t budget);
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
        {"suspects", hf_heap_view_suspects, NULL},                                          \
        {"suspects-report", hf_heap_view_suspects_report, NULL},                            \
        {"unreachable", hf_heap_view_unreachable, NULL},                                    \
        {"dominators.svg", hf_heap_view_dominators_svg, NULL}
#define HF_HEAP_RETAINED_OBJECT_FILES                                                      \
    {"retained", hf_heap_view_object_retained, NULL}, {"path", hf_heap_view_object_path, NULL}, \
        {"dominated-by-class", hf_heap_view_dominated_by_class, NULL}

/* ---- what Eclipse MAT answers in one click (biggest.c, domclass.c,
 * consumers.c) ---- */

/* Rows of biggest and biggest-shallow. */
#define HF_BIGGEST 1000
uint64_t hf_heap_view_biggest(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget);
uint64_t hf_heap_view_biggest_shallow(hf_dump *d, const hf_view *v, uint64_t first,
                                      GString *out, size_t budget);
/* The dominator tree's top level, and an object's dominated objects,
 * grouped by class (domclass.c). */
uint64_t hf_heap_view_dominators_by_class(hf_dump *d, const hf_view *v, uint64_t first,
                                          GString *out, size_t budget);
uint64_t hf_heap_view_dominated_by_class(hf_dump *d, const hf_view *v, uint64_t first,
                                         GString *out, size_t budget);
/* MAT's top consumers: retained bytes by class, loader, package, each
 * object counted once (consumers.c). */
uint64_t hf_heap_view_consumers_class(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                      size_t budget);
uint64_t hf_heap_view_consumers_loader(hf_dump *d, const hf_view *v, uint64_t first,
                                       GString *out, size_t budget);
uint64_t hf_heap_view_consumers_package(hf_dump *d, const hf_view *v, uint64_t first,
                                        GString *out, size_t budget);

/* classes/NAME/paths: the shortest paths to its instances merged
 * (mergedpaths.c). */
uint64_t hf_heap_view_class_paths(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget);

/* Their rows in a snapshot table (has: where the snapshot has a heap;
 * NULL for every snapshot). */
#define HF_HEAP_MAT_SNAP_FILES(has)                                                        \
    {"biggest", hf_heap_view_biggest, has}, {"biggest-shallow", hf_heap_view_biggest_shallow, has}, \
        {"dominators-by-class", hf_heap_view_dominators_by_class, has},                    \
        {"consumers-by-class", hf_heap_view_consumers_class, has},                         \
        {"consumers-by-loader", hf_heap_view_consumers_loader, has},                       \
        {"consumers-by-package", hf_heap_view_consumers_package, has}

/* objects/0xID/bitmap.png: an Android Bitmap's pixels (bitmap.c); its
 * bitmap.jpg or bitmap.webp instead when Android dumped it compressed so. */
uint64_t hf_heap_view_bitmap(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget);
bool hf_heap_has_bitmap(hf_dump *d, uint32_t s, uint64_t o);
uint64_t hf_heap_view_bitmap_jpeg(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget);
bool hf_heap_has_bitmap_jpeg(hf_dump *d, uint32_t s, uint64_t o);
uint64_t hf_heap_view_bitmap_webp(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget);
bool hf_heap_has_bitmap_webp(hf_dump *d, uint32_t s, uint64_t o);

/* ---- snapshot views (render.c; profile.c: heap.pprof, stacks.folded, flame.svg) ---- */

uint64_t hf_heap_view_pprof(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget);
uint64_t hf_heap_view_folded(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget);
/* dominators.svg: the dominator tree as a treemap (treemap.c). */
uint64_t hf_heap_view_dominators_svg(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                     size_t budget);
/* hf_dump_ops.stacks: the builder stacks.folded renders (NULL: none). */
const struct hf_pprof *hf_heap_stacks(hf_dump *d, uint32_t s);
/* flame.svg: stacks.folded drawn (pprof/flame.h). */
uint64_t hf_heap_view_flame(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
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
/* Bytes of index arrays (the "index bytes" figure). */
uint64_t hf_heap_index_bytes(const hf_heap *h);
/* One line stating the size rule in force. */
void hf_heap_size_rule(const hf_heap *h, GString *out);
/* How many classes of all snapshots hf_heap_size_by_gaps sized (the rule
 * would give them another size), and the size the rule gives class c
 * (sizes.c). */
uint64_t hf_heap_n_sized_by_gaps(const hf_heap *h);
uint64_t hf_heap_rule_size(const hf_heap *h, const hf_hsnap *sn, const hf_hclass *c);

#endif
