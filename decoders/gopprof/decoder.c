/*
 * decoder.c - pprof's profile.proto (gzipped or not) as a mount: detect,
 * open of one file or a series, destroy, the ops table (gopprof.h).
 */
#include "decoders/gopprof/gopprof.h"
#include "decoders/pprof/flamediff.h"

#include <string.h>

static const hf_dump_ops gopprof_ops;

static void gopprof_destroy(hf_dump *d)
{
    gopprof_dump *g = (gopprof_dump *)d;
    if (g->snaps)
        g_ptr_array_free(g->snaps, TRUE);
    if (g->frame_idx)
        g_hash_table_destroy(g->frame_idx);
    if (g->frames)
        g_ptr_array_free(g->frames, TRUE);
    if (g->funcs)
        g_ptr_array_free(g->funcs, TRUE);
    if (g->trace_idx)
        g_hash_table_destroy(g->trace_idx);
    if (g->trace_frames)
        g_array_free(g->trace_frames, TRUE);
    if (g->traces)
        g_array_free(g->traces, TRUE);
    hf_dump_clear(&g->base);
    g_free(g);
}

static uint32_t gopprof_n_snapshots(hf_dump *d)
{
    return ((gopprof_dump *)d)->snaps->len;
}

static uint64_t gopprof_n_traces(hf_dump *d)
{
    return ((gopprof_dump *)d)->traces->len;
}

static const hf_dump_ops gopprof_ops = {
    .format = "gopprof",
    .destroy = gopprof_destroy,
    .describe = gopprof_describe,
    .render_info = gopprof_render_info,
    .render_trace = gopprof_render_trace,
    .n_snapshots = gopprof_n_snapshots,
    .snapshot_number = hf_snapshot_ordinal,
    .n_traces = gopprof_n_traces,
    .trace_number = hf_trace_ordinal,
    .tally = gopprof_tally,
    .stacks = gopprof_stacks,
    .flame_diff = hf_flame_diff_render,
    .snapshot = {.files = gopprof_snap_files},
};

static bool gopprof_detect(const uint8_t *head, size_t len)
{
    return gopprof_head_is_profile(head, len);
}

static gopprof_dump *new_dump(const char *path, GMappedFile *map)
{
    gopprof_dump *g = g_new0(gopprof_dump, 1);
    hf_dump_init(&g->base, &gopprof_ops, path, map);
    g->snaps = g_ptr_array_new_with_free_func((GDestroyNotify)gopprof_snap_free);
    g->frames = g_ptr_array_new_with_free_func(g_free);
    g->funcs = g_ptr_array_new_with_free_func(g_free);
    g->frame_idx = g_hash_table_new(g_str_hash, g_str_equal);
    g->trace_frames = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g->traces = g_array_new(FALSE, FALSE, sizeof(gopprof_trace));
    return g;
}

/* Reads one file (its bytes in `file`, taken) as the next snapshot. */
static bool add_file(gopprof_dump *g, const char *path, GBytes *file, GError **err)
{
    gsize len;
    const uint8_t *data = g_bytes_get_data(file, &len);
    bool gz;
    GError *e = NULL;
    Perftools__Profiles__Profile *p = gopprof_read(data, len, &gz, &e);
    if (p && p->n_sample_type == 0) {
        g_set_error(&e, HF_ERROR, HF_ERROR_FORMAT, "the profile has no sample types");
        gopprof_profile_free(p);
        p = NULL;
    }
    if (!p) {
        g_set_error(err, HF_ERROR, HF_ERROR_CORRUPT, "%s: %s", path, e->message);
        g_error_free(e);
        g_bytes_unref(file);
        return false;
    }
    gopprof_snap *sn = g_new0(gopprof_snap, 1);
    sn->path = g_strdup(path);
    sn->file = file;
    sn->gzipped = gz;
    g_ptr_array_add(g->snaps, sn);
    gopprof_scan(g, sn, p);
    gopprof_profile_free(p);
    return true;
}

static hf_dump *gopprof_open(const char *path, GMappedFile *map, const hf_open_opts *opts,
                             GError **err)
{
    gopprof_dump *g = new_dump(path, map);
    if (!add_file(g, path, g_mapped_file_get_bytes(map), err)) {
        gopprof_destroy(&g->base);
        return NULL;
    }
    return &g->base;
}

static hf_dump *gopprof_open_series(const char *const *paths, int n, const hf_open_opts *opts,
                                    GError **err)
{
    gopprof_dump *g = new_dump(paths[0], NULL);
    for (int i = 0; i < n; i++) {
        GError *e = NULL;
        GMappedFile *m = g_mapped_file_new(paths[i], FALSE, &e);
        if (!m) {
            g_set_error(err, HF_ERROR, HF_ERROR_OPEN, "%s: %s", paths[i], e->message);
            g_error_free(e);
            gopprof_destroy(&g->base);
            return NULL;
        }
        GBytes *b = g_mapped_file_get_bytes(m);
        g_mapped_file_unref(m);
        if (!add_file(g, paths[i], b, err)) {
            gopprof_destroy(&g->base);
            return NULL;
        }
    }
    return &g->base;
}

const hf_decoder hf_decoder_gopprof = {
    .format = "gopprof",
    .detect = gopprof_detect,
    .open = gopprof_open,
    .open_series = gopprof_open_series,
};
