/*
 * decoder.c - the decoder of HPROF agent text output (java.hprof.txt):
 * detection, open, destroy, the tables of views and the ops table.
 *
 * The pass over the file is scan.c's (the heap dump part heap.c's), the
 * views render.c's, heap.pprof profile.c's, objects' fields and refs/
 * objects.c's; classes, objects, roots and the histogram the heap layer's
 * (decoders/heap/).
 *
 * The dump is read-only after open: thread-safe.
 */
#include "decoders/hproftxt/hproftxt.h"
#include "decoders/heap/build.h"
#include "decoders/heap/render.h"
#include "decoders/heap/retained.h"
#include "decoders/heap/tables.h"

#include <string.h>

static const hf_dump_ops hproftxt_ops;

/* ---- detection, open, destroy ---- */

static bool detect(const uint8_t *head, size_t len)
{
    if (len < 13 || memcmp(head, "JAVA PROFILE ", 13) != 0)
        return false;
    /* Text: the first line ends with a newline before any NUL (the binary
     * format has "JAVA PROFILE 1.0.x" followed by a NUL). */
    for (size_t i = 13; i < len; i++) {
        if (head[i] == 0)
            return false;
        if (head[i] == '\n')
            return true;
    }
    return false;
}

static void hproftxt_destroy(hf_dump *d)
{
    hproftxt_dump *t = (hproftxt_dump *)d;
    for (guint i = 0; i < t->snaps->len; i++) {
        hproftxt_snap *sn = &g_array_index(t->snaps, hproftxt_snap, i);
        g_array_free(sn->sites, TRUE);
        g_array_free(sn->samples, TRUE);
        g_array_free(sn->times, TRUE);
    }
    g_array_free(t->snaps, TRUE);
    g_array_free(t->traces, TRUE);
    g_array_free(t->threads, TRUE);
    g_string_chunk_free(t->chunk);
    g_free(t->created);
    hf_heap_clear(&t->heap);
    g_free(t);
}

static hf_dump *hproftxt_open(const char *path, GMappedFile *map, const hf_open_opts *opts,
                              GError **err)
{
    hproftxt_dump *t = g_new0(hproftxt_dump, 1);
    /* Ids in these files are 32-bit object tags. */
    hf_heap_init(&t->heap, &hproftxt_ops, &hproftxt_codec, path, map, 4);
    t->chunk = g_string_chunk_new(4096);
    t->snaps = g_array_new(FALSE, FALSE, sizeof(hproftxt_snap));
    t->traces = g_array_new(FALSE, FALSE, sizeof(hproftxt_trace));
    t->threads = g_array_new(FALSE, FALSE, sizeof(hproftxt_thread));
    hproftxt_scan(t);
    t->heap.pprof = hf_heap_pprof_new(&t->heap, t->snaps->len, "java", hproftxt_build_pprof, t,
                                      hproftxt_trace_names, t);
    if (!t->traces->len && !t->threads->len && !t->snaps->len) {
        g_set_error(err, HF_ERROR, HF_ERROR_FORMAT,
                    "%s: HPROF agent text output with no TRACE, THREAD or BEGIN..END block",
                    path);
        hproftxt_destroy(&t->heap.base);
        return NULL;
    }
    return &t->heap.base;
}

const hf_decoder hf_decoder_hproftxt = {
    .format = "hprof-text",
    .detect = detect,
    .open = hproftxt_open,
};

/* ---- the model ---- */

static const hf_file snap_files[] = {
    {"info", hproftxt_view_snap_info, NULL},
    {"sites", hproftxt_view_sites, hproftxt_has_sites},
    {"sites.agent", hproftxt_view_sites_agent, hproftxt_has_sites},
    {"cpu/samples", hproftxt_view_samples, hproftxt_has_samples},
    {"cpu/samples.agent", hproftxt_view_samples_agent, hproftxt_has_samples},
    {"cpu/times", hproftxt_view_times, hproftxt_has_times},
    {"cpu/times.agent", hproftxt_view_times_agent, hproftxt_has_times},
    {"histogram", hf_heap_view_histogram, hproftxt_has_heap},
    {"roots", hf_heap_view_roots, hproftxt_has_heap},
    {"heap.pprof", hf_heap_view_pprof, hproftxt_has_profile},
    {"heap.pb.gz", hf_heap_view_pb, hproftxt_has_profile},
    {"stacks.folded", hf_heap_view_folded, hproftxt_has_profile},
    {"flame.svg", hf_heap_view_flame, hproftxt_has_profile},
    {"dominators", hf_heap_view_dominators, hproftxt_has_heap},
    {"histogram-retained", hf_heap_view_histogram_retained, hproftxt_has_heap},
    {"suspects", hf_heap_view_suspects, hproftxt_has_heap},
    {"suspects-report", hf_heap_view_suspects_report, hproftxt_has_heap},
    {"unreachable", hf_heap_view_unreachable, hproftxt_has_heap},
    {"dominators.svg", hf_heap_view_dominators_svg, hproftxt_has_heap},
    HF_HEAP_MAT_SNAP_FILES(hproftxt_has_heap),
    HF_HEAP_TABLE_SNAP_FILES(hproftxt_has_heap),
    {"tables/sites.tsv", hproftxt_sites_tsv_view, hproftxt_has_sites, hproftxt_sites_tsv_measure},
    {"tables/samples.tsv", hproftxt_samples_tsv_view, hproftxt_has_samples, hproftxt_samples_tsv_measure},
    {"tables/times.tsv", hproftxt_times_tsv_view, hproftxt_has_times, hproftxt_times_tsv_measure},
    {NULL},
};

static const hf_file thread_files[] = {
    {"info", hproftxt_view_thread_info, NULL},
    {"stack", hproftxt_view_thread_stack, NULL},
    {NULL},
};

/* No value file: the text has no string contents. */
static const hf_file object_files[] = {
    {"info", hf_heap_view_object_info, NULL},
    {"fields", hproftxt_view_object_fields, hf_heap_has_object_fields},
    HF_HEAP_RETAINED_OBJECT_FILES,
    {NULL},
};

static const hf_linkdir object_dirs[] = {
    {"refs", hf_heap_has_refs, hproftxt_refs_entry, hproftxt_refs_find},
    {"referrers", NULL, hf_heap_referrers_entry, hf_heap_referrers_find},
    {"dominated", NULL, hf_heap_dominated_entry, hf_heap_dominated_find},
    {NULL},
};

static uint32_t hproftxt_n_snapshots(hf_dump *d)
{
    return ((hproftxt_dump *)d)->snaps->len;
}

static uint64_t hproftxt_n_traces(hf_dump *d)
{
    return ((hproftxt_dump *)d)->traces->len;
}

static uint64_t hproftxt_trace_number(hf_dump *d, uint64_t t)
{
    return g_array_index(((hproftxt_dump *)d)->traces, hproftxt_trace, t).serial;
}

static uint64_t hproftxt_n_threads(hf_dump *d)
{
    return ((hproftxt_dump *)d)->threads->len;
}

static void hproftxt_thread_name(hf_dump *d, uint64_t t, char name[HF_NAME_MAX])
{
    g_strlcpy(name, g_array_index(((hproftxt_dump *)d)->threads, hproftxt_thread, t).dir,
              HF_NAME_MAX);
}

static const hf_dump_ops hproftxt_ops = {
    .format = "hprof-text",
    .destroy = hproftxt_destroy,
    .describe = hproftxt_describe,
    .render_info = hproftxt_render_info,
    .render_trace = hproftxt_view_trace,
    .status = hf_heap_graph_status,
    HF_HEAP_MODEL_OPS,
    .n_snapshots = hproftxt_n_snapshots,
    .snapshot_number = hf_snapshot_ordinal,
    .n_traces = hproftxt_n_traces,
    .trace_number = hproftxt_trace_number,
    .n_threads = hproftxt_n_threads,
    .thread_name = hproftxt_thread_name,
    .n_classes = hproftxt_n_classes,
    .class_find = hproftxt_class_find,
    .n_objects = hproftxt_n_objects,
    .object_find = hproftxt_object_find,
    .snapshot = {.files = snap_files},
    .thread = {.files = thread_files},
    .object = {object_files, hf_heap_object_links, object_dirs},
};
