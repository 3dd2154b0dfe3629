/*
 * decoder.c - V8 heap snapshots: detection (plain or gzipped JSON), open
 * of one file or several of one process (snapshots 1, 2, 3 of one mount),
 * destroy, the tables of views and the ops table.  The dump is immutable
 * after open; everything here is thread-safe.
 */
#include "decoders/v8/v8.h"
#include "decoders/heap/build.h"
#include "decoders/heap/profile.h"
#include "decoders/heap/render.h"
#include "decoders/heap/retained.h"
#include "decoders/heap/tables.h"
#include "decoders/pprof/proto.h"

#include <string.h>
#include <zlib.h>

/* ---- detection ---- */

static const uint8_t *skip_ws(const uint8_t *p, const uint8_t *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* {"snapshot":{ ... "meta" ... "node_fields" within the head. */
static bool head_is_snapshot(const uint8_t *head, size_t len)
{
    const uint8_t *p = head, *end = head + len;
    static const char key[] = "\"snapshot\"";
    p = skip_ws(p, end);
    if (p == end || *p++ != '{')
        return false;
    p = skip_ws(p, end);
    if ((size_t)(end - p) < sizeof key - 1 || memcmp(p, key, sizeof key - 1) != 0)
        return false;
    p = skip_ws(p + sizeof key - 1, end);
    if (p == end || *p++ != ':')
        return false;
    p = skip_ws(p, end);
    if (p == end || *p != '{')
        return false;
    return g_strstr_len((const char *)p, end - p, "\"meta\"") &&
           g_strstr_len((const char *)p, end - p, "\"node_fields\"");
}

/* The first bytes of a gzip stream, inflated (as many as come). */
static size_t inflate_head(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
    z_stream z = {0};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return 0;
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    inflate(&z, Z_SYNC_FLUSH);
    size_t got = cap - z.avail_out;
    inflateEnd(&z);
    return got;
}

static bool v8_detect(const uint8_t *head, size_t len)
{
    if (hf_is_gzip(head, len)) {
        uint8_t buf[4096];
        return head_is_snapshot(buf, inflate_head(head, len, buf, sizeof buf));
    }
    return head_is_snapshot(head, len);
}

/* ---- open ---- */

static const hf_dump_ops v8_ops, v8_one_ops;

static void v8_destroy(hf_dump *base)
{
    v8_dump *d = (v8_dump *)base;
    if (d->store.r)
        v8_store_unmap(d); /* its arrays are the index file's */
    if (d->snaps)
        g_ptr_array_free(d->snaps, TRUE);
    hf_heap_clear(&d->heap);
    hf_keepstore_clear(&d->store);
    g_free(d);
}

/* File i's bytes: mapped, and inflated when gzipped. */
static bool load(v8_dump *d, v8_snap *sn, GMappedFile *map, GError **err)
{
    GError *e = NULL;
    sn->map = map ? g_mapped_file_ref(map) : g_mapped_file_new(sn->path, FALSE, &e);
    if (!sn->map) {
        g_set_error(err, HF_ERROR, HF_ERROR_OPEN, "%s", e->message);
        g_error_free(e);
        return false;
    }
    sn->data = (const uint8_t *)g_mapped_file_get_contents(sn->map);
    sn->len = g_mapped_file_get_length(sn->map);
    if (sn->len && !v8_detect(sn->data, MIN(sn->len, 4096))) {
        g_set_error(err, HF_ERROR, HF_ERROR_FORMAT, "%s: not a V8 heap snapshot (the other "
                    "files of the mount are)", sn->path);
        return false;
    }
    if (!hf_is_gzip(sn->data, sn->len))
        return true;
    bool cut = false;
    sn->inflated = hf_gunzip(sn->data, sn->len, HF_GUNZIP_MAX, &cut, &e);
    if (!sn->inflated) {
        g_set_error(err, HF_ERROR, HF_ERROR_FORMAT, "%s: %s", sn->path,
                    e ? e->message : "damaged gzip stream");
        g_clear_error(&e);
        return false;
    }
    if (cut)
        hf_problem_nooff(&d->heap.base, "%s: the gzip stream ends early (%u bytes inflated)",
                         sn->path, sn->inflated->len);
    sn->gzipped = true;
    sn->data = sn->inflated->data;
    sn->len = sn->inflated->len;
    return true;
}

static void build_pprof(hf_heap_pprof_out *o, uint32_t s, void *ud)
{
    hf_heap_pprof_add_objects(o, s);
}

static v8_dump *v8_new(const char *path, GMappedFile *map, const hf_dump_ops *ops)
{
    v8_dump *d = g_new0(v8_dump, 1);
    hf_heap_init(&d->heap, ops, &v8_codec, path, map, 8);
    d->snaps = g_ptr_array_new_with_free_func((GDestroyNotify)v8_snap_free);
    return d;
}

/* The files read and put on the heap layer. */
static bool parse(v8_dump *d, const char *const *paths, int n, GMappedFile *map, GError **err)
{
    uint64_t base = 0;
    uint32_t tbase = 0;
    for (int i = 0; i < n; i++) {
        v8_snap *sn = g_new0(v8_snap, 1);
        sn->path = g_strdup(paths[i]);
        g_ptr_array_add(d->snaps, sn);
        if (!load(d, sn, i == 0 ? map : NULL, err) || !v8_scan(&d->heap.base, sn, err))
            return false;
        sn->base = base;
        base += sn->n;
        if (sn->n_tnodes > UINT32_MAX - 1 - tbase) { /* traces numbered past 2^32: none */
            hf_problem_nooff(&d->heap.base, "%s: more than 2^32 traces in all: left out",
                             sn->path);
            sn->n_tnodes = 0;
            memset(sn->trace, 0, (size_t)sn->n * 4);
        }
        sn->tbase = tbase;
        tbase += sn->n_tnodes;
    }
    v8_build_heap(d);
    return true;
}

static hf_dump *finish(v8_dump *d)
{
    d->heap.pprof = hf_heap_pprof_new(&d->heap, d->heap.snaps->len, "node", build_pprof, d,
                                      v8_trace_names, NULL);
    return &d->heap.base;
}

/* One file: from its index file when there is a valid one, else parsed
 * (the index file is written once the mount is live: v8_store_save). */
static hf_dump *v8_open(const char *path, GMappedFile *map, const hf_open_opts *opts,
                        GError **err)
{
    v8_dump *d = v8_new(path, map, &v8_one_ops);
    const uint8_t *data = (const uint8_t *)g_mapped_file_get_contents(map);
    if (!hf_keepstore_begin(&d->store, "v8", path, data, g_mapped_file_get_length(map), opts,
                            err))
        goto fail;
    if (!v8_store_load(d)) {
        hf_keepstore store = d->store; /* what the attempt found goes on to the new one */
        d->store = (hf_keepstore){0};
        v8_destroy(&d->heap.base);
        d = v8_new(path, map, &v8_one_ops);
        d->store = store;
        double t0 = g_get_monotonic_time() / 1e6;
        if (!parse(d, &path, 1, map, err))
            goto fail;
        hf_keepstore_built(&d->store, g_get_monotonic_time() / 1e6 - t0);
    }
    if (d->store.keyed) { /* dominator results go to files beside the index, keyed to it */
        hf_keepkey results = d->store.key;
        results.source = d->store.r ? hf_keepr_id(d->store.r) : 0; /* built: v8_store_save sets it */
        hf_heap_graphs_keep(d->heap.graphs, path, opts->index, &results);
    }
    return finish(d);
fail:
    v8_destroy(&d->heap.base);
    return NULL;
}

static hf_dump *v8_open_series(const char *const *paths, int n, const hf_open_opts *opts,
                               GError **err)
{
    v8_dump *d = v8_new(paths[0], NULL, &v8_ops);
    if (!parse(d, paths, n, NULL, err)) {
        v8_destroy(&d->heap.base);
        return NULL;
    }
    return finish(d);
}

const hf_decoder hf_decoder_v8 = {
    .format = "v8",
    .detect = v8_detect,
    .open = v8_open,
    .open_series = v8_open_series,
};

/* ---- the tables ---- */

static const hf_file snap_files[] = {
    {"info", v8_view_snap_info, NULL},
    {"histogram", hf_heap_view_histogram, NULL},
    {"roots", v8_view_roots, NULL},
    {"strings", v8_view_strings, NULL},
    {"detached", v8_view_detached, v8_has_detached},
    {"sites", v8_view_sites, v8_has_sites},
    {"new", v8_view_new, v8_has_new},
    {"leaks", v8_view_leaks, v8_has_leaks},
    {"heap.pprof", hf_heap_view_pprof, NULL},
    {"heap.pb.gz", hf_heap_view_pb, NULL},
    {"stacks.folded", hf_heap_view_folded, NULL},
    {"flame.svg", hf_heap_view_flame, NULL},
    HF_HEAP_RETAINED_SNAP_FILES,
    HF_HEAP_TABLE_SNAP_FILES(NULL),
    {NULL},
};

static const hf_file class_files[] = {
    {"info", v8_view_class_info, NULL},
    {"instances", hf_heap_view_class_instances, hf_heap_has_class_instances},
    {"retained", hf_heap_view_class_retained, NULL},
    {"table.tsv", hf_heap_class_table_view, NULL},
    {NULL},
};

static const hf_file object_files[] = {
    {"info", v8_view_object_info, NULL},
    {"edges", v8_view_object_edges, NULL},
    {"value", v8_view_object_value, v8_has_value},
    HF_HEAP_RETAINED_OBJECT_FILES,
    {NULL},
};

static const hf_linkdir object_dirs[] = {
    {"refs", NULL, v8_refs_entry, v8_refs_find},
    {"referrers", NULL, hf_heap_referrers_entry, hf_heap_referrers_find},
    {"dominated", NULL, hf_heap_dominated_entry, hf_heap_dominated_find},
    {NULL},
};

/* A series and one file: only one file has an index file (store.c).
 * HF_HEAP_GRAPH_OPS but for traces/, which are the call trees'. */
#define V8_OPS                                                                             \
    .format = "v8", .destroy = v8_destroy, .describe = v8_describe,                        \
    .render_info = v8_view_info, .class_name = hf_heap_class_name,                         \
    .object_name = hf_heap_object_name, .tally = hf_heap_tally, .text = v8_text,           \
    .render_trace = v8_view_trace, .n_traces = v8_n_traces, .trace_number = v8_trace_number, \
    .n_snapshots = hf_heap_n_snapshots, .snapshot_number = hf_heap_snapshot_number,        \
    .n_threads = hf_heap_n_threads, .thread_name = hf_heap_thread_name,                    \
    .n_classes = hf_heap_n_classes, .class_find = hf_heap_class_find,                      \
    .n_objects = hf_heap_n_objects, .object_find = hf_heap_object_find,                    \
    .thread = {.files = hf_heap_thread_files}, .snapshot = {.files = snap_files},          \
    .class_ = {class_files, NULL, NULL},                                                   \
    .object = {object_files, hf_heap_object_links, object_dirs}

static const hf_dump_ops v8_ops = {V8_OPS, .status = hf_heap_graph_status};
static const hf_dump_ops v8_one_ops = {V8_OPS, .status = v8_status,
                                       .after_mount = v8_store_save};
