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

static const hf_dump_ops v8_ops;

static double now(void)
{
    return g_get_monotonic_time() / 1e6;
}

static void free_members(v8_member *ms, uint32_t n)
{
    for (uint32_t i = 0; ms && i < n; i++) {
        g_free(ms[i].path);
        hf_keepstore_clear(&ms[i].store);
        if (ms[i].map)
            g_mapped_file_unref(ms[i].map);
        g_free(ms[i].note);
        g_free(ms[i].locs);
    }
    g_free(ms);
}

static void v8_destroy(hf_dump *base)
{
    v8_dump *d = (v8_dump *)base;
    if (d->loaded)
        v8_store_unmap(d); /* its arrays are the index files' */
    if (d->snaps)
        g_ptr_array_free(d->snaps, TRUE);
    hf_heap_clear(&d->heap);
    free_members(d->members, d->n_members);
    g_free(d);
}

/* A file's bytes (map): as mapped, or inflated when gzipped. */
static bool read_file(v8_dump *d, v8_snap *sn, GMappedFile *map, GError **err)
{
    sn->map = g_mapped_file_ref(map);
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
    GError *e = NULL;
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

static v8_dump *v8_new(const char *path, GMappedFile *map, v8_member *ms, uint32_t n)
{
    v8_dump *d = g_new0(v8_dump, 1);
    hf_heap_init(&d->heap, &v8_ops, &v8_codec, path, n == 1 ? map : NULL, 8);
    d->snaps = g_ptr_array_new_with_free_func((GDestroyNotify)v8_snap_free);
    d->members = ms;
    d->n_members = n;
    return d;
}

/* Member i read: its problems noted (a series writes its file with them). */
static bool read_member(v8_dump *d, uint32_t i, GError **err)
{
    v8_member *m = &d->members[i];
    hf_dump *base = &d->heap.base;
    v8_snap *sn = g_new0(v8_snap, 1);
    sn->path = g_strdup(m->path);
    g_ptr_array_add(d->snaps, sn);
    double t0 = now();
    uint64_t n0 = base->n_problems;
    m->problem0 = base->problems->len;
    if (!read_file(d, sn, m->map, err) || !v8_scan(base, sn, err))
        return false;
    m->seconds = now() - t0;
    m->n_lines = base->problems->len - m->problem0;
    m->n_problems = base->n_problems - n0;
    return true;
}

/* Member i not to be written (unless its valid file is kept): why. */
static void not_written(v8_member *m, const char *why)
{
    if (!m->note)
        m->note = g_strdup_printf("built in %.2f s, index file not written (%s)\n", m->seconds,
                                  why);
}

/* The files read and put on the heap layer. */
static bool parse(v8_dump *d, GError **err)
{
    uint64_t base = 0;
    uint32_t tbase = 0;
    for (uint32_t i = 0; i < d->n_members; i++) {
        if (!read_member(d, i, err))
            return false;
        v8_snap *sn = g_ptr_array_index(d->snaps, i);
        v8_member *m = &d->members[i];
        if (m->n_lines != MIN(m->n_problems, HF_PROBLEMS_MAX))
            not_written(m, "its problems did not all fit in the series' list");
        sn->base = base;
        base += sn->n;
        if (sn->n_tnodes > UINT32_MAX - 1 - tbase) { /* traces numbered past 2^32: none */
            hf_problem_nooff(&d->heap.base, "%s: more than 2^32 traces in all: left out",
                             sn->path);
            sn->n_tnodes = 0;
            if (sn->n)
                memset(sn->trace, 0, (size_t)sn->n * 4);
            not_written(m, "its traces were left out in the series");
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

/* The files mapped, their index files' places and keys. */
static v8_member *begin_members(const char *const *paths, uint32_t n, GMappedFile *map,
                                const hf_open_opts *opts, GError **err)
{
    v8_member *ms = g_new0(v8_member, n);
    for (uint32_t i = 0; i < n; i++) {
        v8_member *m = &ms[i];
        GError *e = NULL;
        m->path = g_strdup(paths[i]);
        m->map = i == 0 && map ? g_mapped_file_ref(map) : g_mapped_file_new(paths[i], FALSE, &e);
        if (!m->map) {
            g_set_error(err, HF_ERROR, HF_ERROR_OPEN, "%s", e->message);
            g_error_free(e);
            free_members(ms, n);
            return NULL;
        }
        if (!hf_keepstore_begin(&m->store, "v8", paths[i],
                                (const uint8_t *)g_mapped_file_get_contents(m->map),
                                g_mapped_file_get_length(m->map), opts, err)) {
            free_members(ms, n);
            return NULL;
        }
    }
    return ms;
}

/* One file or a series: from the files' index files when each has a valid
 * one, else read (the index files each file lacks are written once the
 * mount is live: v8_store_save). */
static hf_dump *open_files(const char *const *paths, uint32_t n, GMappedFile *map,
                           const hf_open_opts *opts, GError **err)
{
    v8_member *ms = begin_members(paths, n, map, opts, err);
    if (!ms)
        return NULL;
    v8_dump *d = v8_new(paths[0], map, ms, n);
    if (v8_store_load(d)) {
        for (uint32_t i = 0; i < n; i++) /* no byte of the files is read again */
            g_clear_pointer(&ms[i].map, g_mapped_file_unref);
    } else {
        d->members = NULL; /* what the attempt found goes on to the new dump */
        v8_destroy(&d->heap.base);
        for (uint32_t i = 0; i < n; i++) {
            g_clear_pointer(&ms[i].store.r, hf_keepr_free);
            g_clear_pointer(&ms[i].locs, g_free);
        }
        d = v8_new(paths[0], map, ms, n);
        double t0 = now();
        if (!parse(d, err)) {
            v8_destroy(&d->heap.base);
            return NULL;
        }
        for (uint32_t i = 0; i < n; i++)
            if (!ms[i].note)
                hf_keepstore_built(&ms[i].store, n == 1 ? now() - t0 : ms[i].seconds);
    }
    /* dominator results go to files beside each file's index file, keyed
     * to it: a series' snapshot i has the results a mount of file i has */
    for (uint32_t i = 0; i < n; i++) {
        if (!ms[i].store.keyed)
            continue;
        hf_keepkey results = ms[i].store.key;
        /* loaded; else valid but not used; else built: v8_store_save sets it */
        results.source = ms[i].store.r ? hf_keepr_id(ms[i].store.r) : ms[i].valid_id;
        hf_heap_graphs_keep_file(d->heap.graphs, i, paths[i], 1, opts->index, &results);
    }
    return finish(d);
}

static hf_dump *v8_open(const char *path, GMappedFile *map, const hf_open_opts *opts,
                        GError **err)
{
    return open_files(&path, 1, map, opts, err);
}

static hf_dump *v8_open_series(const char *const *paths, int n, const hf_open_opts *opts,
                               GError **err)
{
    if (opts && opts->index && strcmp(opts->index, "none") != 0) {
        g_set_error(err, HF_ERROR, HF_ERROR_OPEN, "-o index=%s: names one file, and %d "
                    "snapshots are given (each has its own index file)", opts->index, n);
        return NULL;
    }
    return open_files(paths, (uint32_t)n, NULL, opts, err);
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

/* HF_HEAP_GRAPH_OPS but for traces/, which are the call trees'. */
static const hf_dump_ops v8_ops = {
    .format = "v8", .destroy = v8_destroy, .describe = v8_describe,
    .render_info = v8_view_info, .class_name = hf_heap_class_name,
    .object_name = hf_heap_object_name, .tally = hf_heap_tally, .text = v8_text,
    .render_trace = v8_view_trace, .n_traces = v8_n_traces, .trace_number = v8_trace_number,
    .n_snapshots = hf_heap_n_snapshots, .snapshot_number = hf_heap_snapshot_number,
    .n_threads = hf_heap_n_threads, .thread_name = hf_heap_thread_name,
    .n_classes = hf_heap_n_classes, .class_find = hf_heap_class_find,
    .n_objects = hf_heap_n_objects, .object_find = hf_heap_object_find,
    .thread = {.files = hf_heap_thread_files}, .snapshot = {.files = snap_files},
    .class_ = {class_files, NULL, NULL},
    .object = {object_files, hf_heap_object_links, object_dirs},
    .status = v8_status, .after_mount = v8_store_save,
};
